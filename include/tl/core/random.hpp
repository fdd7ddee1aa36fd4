#pragma once
/// @file random.hpp
/// @brief The Philox 4x32-10 counter-based generator, the global generator state, and the stream
/// contract every backend (CPU now, CUDA later) follows so that both produce identical numbers.
///
/// ## Philox 4x32-10
/// `philox4x32_10(counter, key)` is the pure function of Salmon et al., "Parallel random numbers:
/// as easy as 1, 2, 3" (SC'11), as in Random123: 10 rounds on a 128-bit counter with a 64-bit key,
/// multipliers 0xD2511F53 / 0xCD9E8D57, Weyl key increments 0x9E3779B9 / 0xBB67AE85. It matches
/// Random123's known-answer vectors (tests/core/random_test.cpp).
///
/// ## The stream contract
/// The global generator holds `seed` (uint64) and `offset` (uint64, counted in 32-bit words).
/// A random op that needs W words in total reserves them: it reads (seed, offset) and advances
/// `offset` by W rounded up to a multiple of 4 (whole Philox blocks), atomically.
/// Word j (j = 0 .. W-1) of that op is
///
///     a       = offset + j                       (absolute word index)
///     block   = a / 4,  lane = a % 4
///     counter = { uint32(block), uint32(block >> 32), 0, 0 }
///     key     = { uint32(seed),  uint32(seed >> 32) }
///     word(j) = philox4x32_10(counter, key)[lane]
///
/// so every word, hence every element, depends only on (seed, offset, j) and never on how the
/// work is split over threads or GPU blocks. How elements use words (k = words per uniform:
/// 1 for float, 2 for double):
///
/// - uniform U_q of a float:  `(w[q] >> 8) * 2^-24`                               (24 bits, in [0, 1))
/// - uniform U_q of a double: `(((uint64(w[2q]) << 32) | w[2q+1]) >> 11) * 2^-53`  (53 bits, in [0, 1))
/// - `rand`:      element i is U_i. W = k * n.
/// - `randn`:     elements 2p and 2p+1 come from one Box–Muller pair: r = sqrt(-2 log(1 - U_{2p})),
///                t = 2 pi U_{2p+1}, z_{2p} = r cos t, z_{2p+1} = r sin t, evaluated in double and
///                rounded to T. W = k * 2 * ceil(n / 2).
/// - complex `rand`/`randn`: the tensor is treated as 2n reals (real part at 2i, imaginary part at
///                2i+1) of the real type; `randn` then scales by sqrt(1/2) (in double) so that
///                E|z|^2 = 1, like torch.
/// - `randint(low, high)`: element i uses x = (uint64(w[2i]) << 32) | w[2i+1] and is
///                low + (x mod (high - low)) (range computed in uint64). W = 2n.
/// - `bernoulli(p)`: element i is 1 when U_i < p_i, U_i a uniform of p's real type (a scalar p
///                uses double uniforms). W = k * n.
///
/// The uniforms and integers are bit-identical on every backend; normals are as exact as the
/// backend's double-precision log/sqrt/sin/cos (correctly rounded in practice after rounding to float).
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "tl/core/config.hpp"

namespace tl {

/// @brief N 32-bit words: a Philox counter (N = 4) or key (N = 2). A plain aggregate usable in
/// device code (std::array's members are host-only for nvcc without --expt-relaxed-constexpr).
template <std::size_t N>
struct philox_words {
  std::uint32_t v[N];
  TL_HD constexpr std::uint32_t& operator[](std::size_t i) { return v[i]; }
  TL_HD constexpr const std::uint32_t& operator[](std::size_t i) const { return v[i]; }
  friend TL_HD constexpr bool operator==(const philox_words& a, const philox_words& b) {
    for (std::size_t i = 0; i < N; ++i)
      if (a.v[i] != b.v[i]) return false;
    return true;
  }
};
/// @brief A Philox 4x32 counter (also the type of a generated block).
using philox_counter = philox_words<4>;
/// @brief A Philox 4x32 key.
using philox_key = philox_words<2>;

/// @brief Philox 4x32-10: the 128-bit block for `counter` under `key` (a pure function, host and device).
///
/// @code
/// auto r = tl::philox4x32_10({0, 0, 0, 0}, {0, 0});  // {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}
/// @endcode
TL_HD constexpr philox_counter philox4x32_10(philox_counter ctr, philox_key key) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key.v[0] += w0;
      key.v[1] += w1;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(m0) * ctr.v[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(m1) * ctr.v[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    ctr = {{hi1 ^ ctr.v[1] ^ key.v[0], lo1, hi0 ^ ctr.v[3] ^ key.v[1], lo0}};
  }
  return ctr;
}

/// @brief The state of a Philox stream: the seed (the key) and the offset in 32-bit words.
struct rng_state {
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
  friend constexpr bool operator==(const rng_state&, const rng_state&) = default;
};

namespace detail {

/// Reads words of the stream (seed, offset) in order, one Philox block per 4 words (host and device).
class philox_cursor {
 public:
  /// A cursor at word j of the op whose stream starts at (seed, offset).
  TL_HD constexpr philox_cursor(rng_state st, std::uint64_t j)
      : m_key{{static_cast<std::uint32_t>(st.seed), static_cast<std::uint32_t>(st.seed >> 32)}}, m_abs(st.offset + j) {}
  /// The next 32-bit word.
  TL_HD constexpr std::uint32_t next() {
    const std::uint64_t block = m_abs >> 2;
    if (block != m_block) {
      m_buf = philox4x32_10(
          {{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), 0u, 0u}}, m_key);
      m_block = block;
    }
    return m_buf.v[m_abs++ & 3u];
  }
  /// The next uniform in [0, 1) of type T (float: 1 word, 24 bits; double: 2 words, 53 bits).
  template <class T>
  TL_HD constexpr T uniform() {
    if constexpr (sizeof(T) == sizeof(float)) {
      return static_cast<T>(next() >> 8) * T(0x1p-24);
    } else {
      const std::uint64_t hi = next();
      const std::uint64_t lo = next();
      return static_cast<T>(((hi << 32) | lo) >> 11) * T(0x1p-53);
    }
  }
  /// The next 64-bit integer (2 words, the first word in the high half).
  TL_HD constexpr std::uint64_t next64() {
    const std::uint64_t hi = next();
    const std::uint64_t lo = next();
    return (hi << 32) | lo;
  }

 private:
  philox_key m_key;
  std::uint64_t m_abs;
  std::uint64_t m_block = ~std::uint64_t{0};
  philox_counter m_buf{};
};

/// Word j of the stream (seed, offset) (the contract above, one word at a time; for tests and references).
TL_HD constexpr std::uint32_t philox_word(rng_state st, std::uint64_t j) { return philox_cursor(st, j).next(); }

/// Words per uniform of real type T.
template <class T>
inline constexpr std::uint64_t words_per_uniform = sizeof(T) == sizeof(float) ? 1 : 2;

/// The process-wide generator: a seed and an offset, advanced atomically by each random op.
class global_generator {
 public:
  /// torch's default seed.
  static constexpr std::uint64_t default_seed = 67280421310721ull;

  static global_generator& instance() {
    static global_generator g;
    return g;
  }
  void manual_seed(std::uint64_t s) {
    std::lock_guard<std::mutex> lk(m_mutex);
    m_state = {s, 0};
  }
  rng_state state() {
    std::lock_guard<std::mutex> lk(m_mutex);
    return m_state;
  }
  void set_state(rng_state s) {
    std::lock_guard<std::mutex> lk(m_mutex);
    m_state = s;
  }
  /// Reserves `words` words for one op; returns where its stream starts.
  rng_state reserve(std::uint64_t words) {
    std::lock_guard<std::mutex> lk(m_mutex);
    const rng_state start = m_state;
    m_state.offset += (words + 3) / 4 * 4;
    return start;
  }

 private:
  global_generator() = default;
  std::mutex m_mutex;
  rng_state m_state{default_seed, 0};
};

}  // namespace detail

/// @brief Seeds the global generator and resets its offset to 0 (torch.manual_seed).
///
/// @code
/// tl::manual_seed(42);
/// auto a = tl::rand<float>(5);
/// tl::manual_seed(42);
/// auto b = tl::rand<float>(5);  // same numbers as a
/// @endcode
inline void manual_seed(std::uint64_t seed) { detail::global_generator::instance().manual_seed(seed); }
/// @brief The seed of the global generator (torch.initial_seed).
inline std::uint64_t initial_seed() { return detail::global_generator::instance().state().seed; }
/// @brief The global generator's (seed, offset), to save and later restore with set_rng_state.
inline rng_state get_rng_state() { return detail::global_generator::instance().state(); }
/// @brief Restores a state returned by get_rng_state: the following ops repeat the same numbers.
inline void set_rng_state(rng_state s) { detail::global_generator::instance().set_state(s); }

}  // namespace tl
