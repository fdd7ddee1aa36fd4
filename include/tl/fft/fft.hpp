#pragma once
/// @file fft.hpp
/// @brief tl::fft: discrete Fourier transforms with torch.fft's functions, arguments and
/// numerics (fft, ifft, rfft, irfft, hfft, ihfft and their 2-D / n-D forms, fftfreq, fftshift).
///
/// Lengths `n` / `s` zero-pad or truncate the input; `dim` may be negative and in any order;
/// `norm` is "backward" (default), "ortho" or "forward". Real and integer inputs are promoted
/// (integers and bool to float); float computes in complex<float>, double in complex<double>.
/// Every transform materializes its input once and returns a new contiguous tensor.
///
/// @code
/// tl::tensor<tl::complex<float>, 1> X = tl::fft::fft(x);             // all of x
/// auto spec = tl::fft::rfft(y, /*n=*/{}, /*dim=*/-1, "ortho");        // last dim, orthonormal
/// auto img = tl::fft::irfft2(F, {256, 256});                          // real 256 x 256 image
/// @endcode
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tl/core/complex.hpp"
#include "tl/core/error.hpp"
#include "tl/core/tensor.hpp"
#include "tl/fft/detail/driver.hpp"
#include "tl/fft/detail/plan_cache.hpp"
#include "tl/ops/roll.hpp"
#if TL_AUTOGRAD
#include "tl/fft/detail/autograd.hpp"
#endif
#if defined(__CUDACC__)
#include "tl/fft/cuda/fft.cuh"
#endif

namespace tl::fft {

namespace detail {
/// The length argument of a 1-D transform as an `s` list; unlike an `s` entry, n = -1 is an error
/// (torch raises for any n < 1).
/// n as the drivers' `s` list (empty when not given); refers to the caller's optional.
inline index_span opt_n(const char* op, const std::optional<index_t>& n) {
  if (n && *n < 1) throw value_error(cat_str("tl::fft::", op, ": invalid number of data points (", *n, ") specified"));
  return n ? index_span(&*n, 1) : index_span();
}
inline constexpr default_dims all_dims{0}, last_two{2};
}  // namespace detail

// ---- complex-to-complex ---------------------------------------------------------------------

/// @brief 1-D discrete Fourier transform along `dim` (torch.fft.fft); `n` pads or truncates.
template <expression E>
auto fft(E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::c2c_nd("fft", std::forward<E>(x), detail::opt_n("fft", n), detail::index_span(&dim, 1),
                        detail::parse_norm("fft", norm), false, detail::all_dims);
}
/// @brief 1-D inverse discrete Fourier transform (torch.fft.ifft).
template <expression E>
auto ifft(E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::c2c_nd("ifft", std::forward<E>(x), detail::opt_n("ifft", n), detail::index_span(&dim, 1),
                        detail::parse_norm("ifft", norm), true, detail::all_dims);
}
/// @brief fft into `out` (torch.fft.fft with out=; LibTorch's fft_fft_out). `out` must have the
/// result's dtype and rank (compile-time checks) and shape (else shape_error; an empty or undefined
/// `out` is given a new tensor). Written directly when `out` is a contiguous host tensor apart
/// from x (or x itself), so a repeated call allocates nothing. Not differentiable: throws
/// autograd_error when x or out requires grad, as torch does.
template <class O, expression E>
O& fft_out(O& out, E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::c2c_out("fft", out, std::forward<E>(x), detail::opt_n("fft", n), dim, detail::parse_norm("fft", norm),
                         false);
}
/// @brief ifft into `out` (torch.fft.ifft with out=); see fft_out.
template <class O, expression E>
O& ifft_out(O& out, E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::c2c_out("ifft", out, std::forward<E>(x), detail::opt_n("ifft", n), dim,
                         detail::parse_norm("ifft", norm), true);
}
/// @brief 2-D transform over `dim` (default the last two dims) (torch.fft.fft2).
template <expression E>
auto fft2(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {-2, -1}, std::string_view norm = "backward") {
  return detail::c2c_nd("fft2", std::forward<E>(x), s, dim, detail::parse_norm("fft2", norm), false, detail::last_two);
}
/// @brief 2-D inverse transform (torch.fft.ifft2).
template <expression E>
auto ifft2(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {-2, -1},
           std::string_view norm = "backward") {
  return detail::c2c_nd("ifft2", std::forward<E>(x), s, dim, detail::parse_norm("ifft2", norm), true, detail::last_two);
}
/// @brief N-D transform over `dim` (default: the last s.size() dims, or all) (torch.fft.fftn).
template <expression E>
auto fftn(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {}, std::string_view norm = "backward") {
  return detail::c2c_nd("fftn", std::forward<E>(x), s, dim, detail::parse_norm("fftn", norm), false, detail::all_dims);
}
/// @brief N-D inverse transform (torch.fft.ifftn).
template <expression E>
auto ifftn(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {}, std::string_view norm = "backward") {
  return detail::c2c_nd("ifftn", std::forward<E>(x), s, dim, detail::parse_norm("ifftn", norm), true, detail::all_dims);
}

// ---- real input / real output ---------------------------------------------------------------

/// @brief Transform of a real signal: the n / 2 + 1 non-negative frequencies (torch.fft.rfft).
template <expression E>
auto rfft(E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::r2c_nd("rfft", std::forward<E>(x), detail::opt_n("rfft", n), detail::index_span(&dim, 1),
                        detail::parse_norm("rfft", norm), detail::all_dims, false);
}
/// @brief Inverse of rfft: n real values (default 2 * (m - 1)) from m frequencies (torch.fft.irfft).
template <expression E>
auto irfft(E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::c2r_nd("irfft", std::forward<E>(x), detail::opt_n("irfft", n), detail::index_span(&dim, 1),
                        detail::parse_norm("irfft", norm), detail::all_dims, false);
}
/// @brief 2-D rfft: real transform over the last of `dim`, complex over the other (torch.fft.rfft2).
template <expression E>
auto rfft2(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {-2, -1},
           std::string_view norm = "backward") {
  return detail::r2c_nd("rfft2", std::forward<E>(x), s, dim, detail::parse_norm("rfft2", norm), detail::last_two,
                        false);
}
/// @brief Inverse of rfft2 (torch.fft.irfft2).
template <expression E>
auto irfft2(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {-2, -1},
            std::string_view norm = "backward") {
  return detail::c2r_nd("irfft2", std::forward<E>(x), s, dim, detail::parse_norm("irfft2", norm), detail::last_two,
                        false);
}
/// @brief N-D rfft (torch.fft.rfftn).
template <expression E>
auto rfftn(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {}, std::string_view norm = "backward") {
  return detail::r2c_nd("rfftn", std::forward<E>(x), s, dim, detail::parse_norm("rfftn", norm), detail::all_dims,
                        false);
}
/// @brief Inverse of rfftn (torch.fft.irfftn).
template <expression E>
auto irfftn(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {}, std::string_view norm = "backward") {
  return detail::c2r_nd("irfftn", std::forward<E>(x), s, dim, detail::parse_norm("irfftn", norm), detail::all_dims,
                        false);
}

// ---- Hermitian input / output ---------------------------------------------------------------

/// @brief Transform of a Hermitian-symmetric signal given by its first half: n real values
/// (default 2 * (m - 1)) (torch.fft.hfft; equals irfft(conj(x)) with the dual normalization).
template <expression E>
auto hfft(E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::c2r_nd("hfft", std::forward<E>(x), detail::opt_n("hfft", n), detail::index_span(&dim, 1),
                        detail::dual(detail::parse_norm("hfft", norm)), detail::all_dims, true);
}
/// @brief Inverse of hfft: the n / 2 + 1 first values of the inverse transform of a real signal
/// (torch.fft.ihfft).
template <expression E>
auto ihfft(E&& x, std::optional<index_t> n = {}, index_t dim = -1, std::string_view norm = "backward") {
  return detail::r2c_nd("ihfft", std::forward<E>(x), detail::opt_n("ihfft", n), detail::index_span(&dim, 1),
                        detail::dual(detail::parse_norm("ihfft", norm)), detail::all_dims, true);
}
/// @brief 2-D hfft (torch.fft.hfft2).
template <expression E>
auto hfft2(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {-2, -1},
           std::string_view norm = "backward") {
  return detail::c2r_nd("hfft2", std::forward<E>(x), s, dim, detail::dual(detail::parse_norm("hfft2", norm)),
                        detail::last_two, true);
}
/// @brief 2-D ihfft (torch.fft.ihfft2).
template <expression E>
auto ihfft2(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {-2, -1},
            std::string_view norm = "backward") {
  return detail::r2c_nd("ihfft2", std::forward<E>(x), s, dim, detail::dual(detail::parse_norm("ihfft2", norm)),
                        detail::last_two, true);
}
/// @brief N-D hfft (torch.fft.hfftn).
template <expression E>
auto hfftn(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {}, std::string_view norm = "backward") {
  return detail::c2r_nd("hfftn", std::forward<E>(x), s, dim, detail::dual(detail::parse_norm("hfftn", norm)),
                        detail::all_dims, true);
}
/// @brief N-D ihfft (torch.fft.ihfftn).
template <expression E>
auto ihfftn(E&& x, std::vector<index_t> s = {}, std::vector<index_t> dim = {}, std::string_view norm = "backward") {
  return detail::r2c_nd("ihfftn", std::forward<E>(x), s, dim, detail::dual(detail::parse_norm("ihfftn", norm)),
                        detail::all_dims, true);
}

// ---- helpers --------------------------------------------------------------------------------

/// @brief Sample frequencies of an n-point fft with spacing d: [0, 1, ..., (n - 1) / 2,
/// -(n / 2), ..., -1] / (d n) (torch.fft.fftfreq; T defaults to float like torch's default dtype).
template <class T = float>
tensor<T, 1> fftfreq(index_t n, double d = 1.0) {
  static_assert(std::is_floating_point_v<T>, "tl::fft::fftfreq: T must be float or double");
  if (n < 0) throw value_error(detail::cat_str("tl::fft::fftfreq: n must be >= 0, got ", n));
  tensor<T, 1> out(shape_t<1>{n});
  const double v = 1.0 / (static_cast<double>(n) * d);
  for (index_t k = 0; k < n; ++k) out.data()[k] = static_cast<T>(static_cast<double>(k < (n + 1) / 2 ? k : k - n) * v);
  return out;
}
/// @brief Sample frequencies of an n-point rfft: [0, 1, ..., n / 2] / (d n) (torch.fft.rfftfreq).
template <class T = float>
tensor<T, 1> rfftfreq(index_t n, double d = 1.0) {
  static_assert(std::is_floating_point_v<T>, "tl::fft::rfftfreq: T must be float or double");
  if (n < 0) throw value_error(detail::cat_str("tl::fft::rfftfreq: n must be >= 0, got ", n));
  tensor<T, 1> out(shape_t<1>{n / 2 + 1});
  const double v = 1.0 / (static_cast<double>(n) * d);
  for (index_t k = 0; k <= n / 2; ++k) out.data()[k] = static_cast<T>(static_cast<double>(k) * v);
  return out;
}

namespace detail {
/// Rolls `x` along `dims` (all when empty) by extent / 2 (fftshift) or -(extent / 2) (ifftshift),
/// through tl::roll: on the operand's device, differentiable, a repeated dim rolling twice (as torch).
template <class E>
auto shift_nd(const char* op, E&& x, const std::vector<index_t>& dim, bool inverse) {
  using D = std::remove_cvref_t<E>;
  using V = typename D::value_type;
  constexpr std::size_t R = D::rank;
  tensor<V, R> t(std::forward<E>(x));
  std::vector<index_t> dims = dim, shifts;
  if (dims.empty())
    for (std::size_t i = 0; i < R; ++i) dims.push_back(static_cast<index_t>(i));
  if (dims.empty()) return t.clone();  // a zero-dim tensor
  for (index_t d : dims) {
    const index_t n = t.shape()[wrap(op, d, R)];
    shifts.push_back(inverse ? -(n / 2) : n / 2);
  }
  return tl::detail::roll_impl<V, R>(cat_str("fft::", op).c_str(), std::move(t), shifts, dims);
}
}  // namespace detail

/// @brief Moves the zero frequency to the centre: rolls each of `dim` (default all) by extent / 2
/// (torch.fft.fftshift). Runs on the operand's device and is differentiable.
template <expression E>
auto fftshift(E&& x, std::vector<index_t> dim = {}) {
  return detail::shift_nd("fftshift", std::forward<E>(x), dim, false);
}
/// @brief Inverse of fftshift: rolls by -(extent / 2) (torch.fft.ifftshift).
template <expression E>
auto ifftshift(E&& x, std::vector<index_t> dim = {}) {
  return detail::shift_nd("ifftshift", std::forward<E>(x), dim, true);
}

// ---- plan cache -----------------------------------------------------------------------------

/// @brief Number of plans in the cache (plans are keyed by length, precision and kind).
inline std::size_t plan_cache_size() { return detail::plan_cache::instance().size(); }
/// @brief The cache's capacity (default 64); least recently used plans are evicted beyond it.
inline std::size_t plan_cache_max_size() { return detail::plan_cache::instance().max_size(); }
/// @brief Sets the cache's capacity (0 disables caching); evicts plans beyond it.
inline void set_plan_cache_max_size(std::size_t n) { detail::plan_cache::instance().set_max_size(n); }
/// @brief Drops every cached plan (plans in use stay alive until their transforms finish).
inline void clear_plan_cache() { detail::plan_cache::instance().clear(); }

}  // namespace tl::fft
