#pragma once
/// @file print.hpp
/// @brief Printing tensors the way torch does: `operator<<` and `tl::to_string`.
///
/// The format follows torch's `_tensor_str.py`: a shared column width for all printed elements,
/// 4 digits after the point for floating values (`1.5000`), a bare point when every float is an
/// integer (`1.`), scientific notation when the magnitudes span more than 1000x (or exceed 1e8 or
/// fall below 1e-4), True/False for bool, `1.+2.j` for complex, lines wrapped at 80 columns,
/// summarization with `...` (3 items at each end of each dim) above 1000 elements, and a
/// `dtype=tl.<name>` suffix for dtypes other than float32, complex64, int64 and bool.
///
/// @code
/// std::cout << tl::from<float>({{1, 2}, {3, 4}});
/// // tensor([[1., 2.],
/// //         [3., 4.]])
/// @endcode
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/tensor.hpp"

namespace tl {

/// @brief Options of tensor printing (torch.set_printoptions).
struct print_options {
  int precision = 4;          ///< digits after the decimal point for floating values
  index_t threshold = 1000;   ///< summarize tensors with more elements than this
  index_t edgeitems = 3;      ///< items shown at each end of a summarized dim
  index_t linewidth = 80;     ///< characters per line before wrapping
};

namespace detail {
inline print_options& print_opts() {
  static print_options o;
  return o;
}

inline std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

/// Python's '{:.Nf}' / '{:.Ne}' for a double (nan is always "nan", like Python).
inline std::string py_float(double v, int precision, char conv) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[512];
  const char fmt[5] = {'%', '.', '*', conv, '\0'};
  std::snprintf(buf, sizeof(buf), fmt, precision, v);
  return buf;
}

/// torch's _Formatter for a floating tensor (real values).
class float_formatter {
 public:
  float_formatter(const std::vector<double>& vals, int precision) : m_precision(precision) {
    double mn = 0, mx = 0;
    bool any = false;
    for (double v : vals) {
      if (!std::isfinite(v) || v == 0) continue;
      const double a = std::fabs(v);
      if (!any) mn = mx = a;
      mn = std::min(mn, a);
      mx = std::max(mx, a);
      any = true;
      if (v != std::ceil(v)) m_int_mode = false;
    }
    if (!any) return;
    auto widen = [&](const std::string& s, std::size_t extra) { m_width = std::max(m_width, s.size() + extra); };
    if (m_int_mode) {
      if (mx / mn > 1000.0 || mx > 1.0e8) {
        m_sci_mode = true;
        for (double v : vals)
          if (std::isfinite(v) && v != 0) widen(py_float(v, m_precision, 'e'), 0);
      } else {
        for (double v : vals)
          if (std::isfinite(v) && v != 0) widen(py_float(v, 0, 'f'), 1);
      }
    } else {
      if (mx / mn > 1000.0 || mx > 1.0e8 || mn < 1.0e-4) {
        m_sci_mode = true;
        for (double v : vals)
          if (std::isfinite(v) && v != 0) widen(py_float(v, m_precision, 'e'), 0);
      } else {
        for (double v : vals)
          if (std::isfinite(v) && v != 0) widen(py_float(v, m_precision, 'f'), 0);
      }
    }
  }
  std::size_t width() const { return m_width; }
  std::string format(double v) const {
    std::string s;
    if (m_sci_mode) {
      s = py_float(v, m_precision, 'e');
    } else if (m_int_mode) {
      s = py_float(v, 0, 'f');
      if (std::isfinite(v)) s += '.';
    } else {
      s = py_float(v, m_precision, 'f');
    }
    return pad_left(s, m_width);
  }

 private:
  int m_precision;
  bool m_int_mode = true;
  bool m_sci_mode = false;
  std::size_t m_width = 1;
};

/// torch's _Formatter for integer and bool tensors: the width of the widest printed value.
class plain_formatter {
 public:
  explicit plain_formatter(const std::vector<std::string>& strs) {
    for (const auto& s : strs) m_width = std::max(m_width, s.size());
  }
  std::size_t width() const { return m_width; }
  std::string format(const std::string& s) const { return pad_left(s, m_width); }

 private:
  std::size_t m_width = 1;
};

template <class T>
std::string plain_str(const T& v) {
  if constexpr (std::is_same_v<T, bool>) return v ? "True" : "False";
  else return std::to_string(v);
}

/// Formats the elements of one tensor; mirrors _tensor_str_with_formatter and _vector_str.
template <class T, std::size_t R>
class tensor_printer {
 public:
  tensor_printer(const T* data, const shape_t<R>& shape, const shape_t<R>& strides, bool conj, const print_options& o)
      : m_data(data), m_shape(shape), m_stride(strides), m_conj(conj), m_opts(o) {
    m_summarize = numel(shape) > o.threshold;
  }

  std::string str(std::size_t indent) {
    std::vector<T> vis;
    collect(m_data, 0, vis);
    if constexpr (is_complex_v<T>) {
      std::vector<double> re, im;
      for (const T& v : vis) {
        re.push_back(static_cast<double>(v.re));
        im.push_back(static_cast<double>(v.im));
      }
      float_formatter f1(re, m_opts.precision), f2(im, m_opts.precision);
      auto fmt = [&](const T& v) {
        const std::string r = f1.format(static_cast<double>(v.re));
        std::string i = f2.format(static_cast<double>(v.im)) + "j";
        i.erase(0, i.find_first_not_of(' '));
        return (i[0] == '+' || i[0] == '-') ? r + i : r + "+" + i;
      };
      return rec(m_data, 0, indent, f1.width() + 2 + f2.width() + 1, fmt);
    } else if constexpr (is_floating_v<T>) {
      std::vector<double> vals(vis.begin(), vis.end());
      float_formatter f(vals, m_opts.precision);
      return rec(m_data, 0, indent, f.width() + 2, [&](const T& v) { return f.format(static_cast<double>(v)); });
    } else {
      std::vector<std::string> strs;
      for (const T& v : vis) strs.push_back(plain_str(v));
      plain_formatter f(strs);
      return rec(m_data, 0, indent, f.width() + 2, [&](const T& v) { return f.format(plain_str(v)); });
    }
  }

 private:
  T value(const T* p) const {
    T v = *p;
    if constexpr (is_complex_v<T>) {
      if (m_conj) v = tl::conj(v);
    }
    return v;
  }
  bool cut(std::size_t d) const { return m_summarize && m_shape[d] > 2 * m_opts.edgeitems; }
  /// The indices printed along dim d (-1 stands for the ellipsis).
  std::vector<index_t> shown(std::size_t d) const {
    std::vector<index_t> ix;
    const index_t n = m_shape[d];
    if (cut(d)) {
      for (index_t i = 0; i < m_opts.edgeitems; ++i) ix.push_back(i);
      ix.push_back(-1);
      for (index_t i = n - m_opts.edgeitems; i < n; ++i) ix.push_back(i);
    } else {
      for (index_t i = 0; i < n; ++i) ix.push_back(i);
    }
    return ix;
  }
  void collect(const T* p, std::size_t d, std::vector<T>& out) const {
    if (d == R) {
      out.push_back(value(p));
      return;
    }
    for (index_t i : shown(d))
      if (i >= 0) collect(p + i * m_stride[d], d + 1, out);
  }
  template <class F>
  std::string rec(const T* p, std::size_t d, std::size_t indent, std::size_t elem_len, const F& fmt) const {
    if (d == R) return fmt(value(p));
    const std::vector<index_t> ix = shown(d);
    if (d + 1 == R) {
      const index_t avail = m_opts.linewidth - static_cast<index_t>(indent);
      const index_t per_line = std::max<index_t>(
          1, static_cast<index_t>(std::floor(static_cast<double>(avail) / static_cast<double>(elem_len))));
      std::string s = "[";
      index_t k = 0;
      for (index_t i : ix) {
        if (k > 0) s += (k % per_line == 0) ? ",\n" + std::string(indent + 1, ' ') : ", ";
        s += i < 0 ? std::string(" ...") : fmt(value(p + i * m_stride[d]));
        ++k;
      }
      return s + "]";
    }
    const std::string sep = "," + std::string(R - d - 1, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    bool first = true;
    for (index_t i : ix) {
      if (!first) s += sep;
      first = false;
      s += i < 0 ? std::string("...") : rec(p + i * m_stride[d], d + 1, indent + 1, elem_len, fmt);
    }
    return s + "]";
  }

  const T* m_data;
  shape_t<R> m_shape, m_stride;
  bool m_conj;
  print_options m_opts;
  bool m_summarize = false;
};
}  // namespace detail

/// @brief Sets the options used by operator<< and to_string (torch.set_printoptions).
inline void set_printoptions(const print_options& o) { detail::print_opts() = o; }
/// @brief The current printing options.
inline print_options get_printoptions() { return detail::print_opts(); }

/// @brief The tensor formatted like torch's repr: `tensor([[1., 2.],\n        [3., 4.]])`.
///
/// @code
/// tl::to_string(tl::from<double>({1.5, -2}));  // "tensor([ 1.5000, -2.0000], dtype=tl.float64)"
/// @endcode
template <class T, class Ext>
std::string to_string(const basic_tensor<T, Ext>& tin) {
  constexpr std::size_t R = Ext::rank;
  const print_options& o = detail::print_opts();
  const std::string prefix = "tensor(";
  const std::size_t indent = prefix.size();
  std::vector<std::string> suffixes;
  // A device tensor prints its host copy with torch's device='cuda:i' suffix first.
  const basic_tensor<T, Ext> t = tin.is_cuda() ? tin.cpu() : tin;
  if (tin.is_cuda()) suffixes.push_back("device='" + tin.device().str() + "'");
  const std::string dtype_suffix = std::string("dtype=tl.") + std::string(dtype_name<T>());
  std::string body;
  if (t.numel() == 0) {
    if constexpr (R != 1) {
      std::string sz = "size=(";
      for (std::size_t i = 0; i < R; ++i) sz += (i ? ", " : "") + std::to_string(t.shape()[i]);
      suffixes.push_back(sz + ")");
    }
    if (!std::is_same_v<T, float>) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    constexpr bool default_dtype = std::is_same_v<T, float> || std::is_same_v<T, complex<float>> ||
                                   std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool>;
    if (!default_dtype) suffixes.push_back(dtype_suffix);
    shape_t<R> shape = t.shape(), strides = t.strides();
    body = detail::tensor_printer<T, R>(t.data(), shape, strides, t.is_conj(), o).str(indent);
  }
  std::string out = prefix + body;
  const std::size_t nl = out.rfind('\n');
  // torch's _add_suffixes arithmetic (rfind gives -1 when there is no newline).
  index_t last_line_len =
      static_cast<index_t>(out.size()) - (nl == std::string::npos ? -1 : static_cast<index_t>(nl)) + 1;
  for (const auto& s : suffixes) {
    const index_t len = static_cast<index_t>(s.size());
    if (last_line_len + len + 2 > o.linewidth) {
      out += ",\n" + std::string(indent, ' ') + s;
      last_line_len = static_cast<index_t>(indent) + len;
    } else {
      out += ", " + s;
      last_line_len += len + 2;
    }
  }
  return out + ")";
}

/// @brief Writes `tl::to_string(t)` to the stream.
template <class T, class Ext>
std::ostream& operator<<(std::ostream& os, const basic_tensor<T, Ext>& t) {
  return os << to_string(t);
}

}  // namespace tl
