#pragma once
/// @file dim_list.hpp
/// @brief Internal header: the short lists the FFT drivers pass around (transformed dims, lengths).
#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "tl/core/config.hpp"

namespace tl::fft::detail {

/// A short list (transformed dims, lengths) held inline up to 8 entries, on the heap beyond: the
/// argument handling of a call allocates nothing for the usual ranks.
template <class T>
class dim_list {
 public:
  dim_list() = default;
  dim_list(std::initializer_list<T> l) : dim_list(l.begin(), l.end()) {}
  template <class It>
  dim_list(It b, It e) {
    for (; b != e; ++b) push_back(static_cast<T>(*b));
  }
  void push_back(T v) {
    if (m_n < m_small.size() && m_big.empty()) {
      m_small[m_n] = v;
    } else {
      if (m_big.empty()) m_big.assign(m_small.begin(), m_small.begin() + m_n);
      m_big.push_back(v);
    }
    ++m_n;
  }
  std::size_t size() const { return m_n; }
  bool empty() const { return m_n == 0; }
  T* data() { return m_big.empty() ? m_small.data() : m_big.data(); }
  const T* data() const { return m_big.empty() ? m_small.data() : m_big.data(); }
  T* begin() { return data(); }
  T* end() { return data() + m_n; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + m_n; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  const T& back() const { return data()[m_n - 1]; }
  T& back() { return data()[m_n - 1]; }

 private:
  std::array<T, 8> m_small{};
  std::vector<T> m_big;
  std::size_t m_n = 0;
};

/// The `s` / `dim` arguments as the drivers take them (a std::vector converts implicitly).
using index_span = std::span<const index_t>;

}  // namespace tl::fft::detail
