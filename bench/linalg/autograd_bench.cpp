// Backward passes of tl::linalg (det, inv, solve, cholesky) at n = 256 in double: one forward and
// one backward of a scalar loss, against LibTorch's autograd in the same run (both on one thread).
//
//   det:      loss = det(A)        (A = I + entries of size 0.5 / sqrt(n): a determinant of moderate size)
//   inv:      loss = sum(inv(A) * W)
//   solve:    loss = sum(solve(A, B) * W), B n x 16, gradients for A and B
//   cholesky: loss = sum(cholesky(S) * W), S symmetric positive-definite
//   svd:      loss = sum(S * w) + sum(U Vh * W) (reduced SVD; U Vh does not depend on the signs), n = 32, 128
//   eigh:     loss = sum(L * w) + sum(V * V * W) (V * V does not depend on the signs), S symmetric
//             positive-definite with separated eigenvalues, n = 32, 128
//   eig:      loss = Re sum(L^2) + sum(|V| * W) (real input, complex results), n = 32, 128
//   qr:       loss = sum(Q * W) + sum(R * W'), reduced QR of an n x n matrix, n = 32 and 128
//   matrix_exp: loss = sum(matrix_exp(A) * W), entries of A of size 1 / sqrt(n), n = 32 and 128
//   jacobians: tl::autograd::jacobian of inv, solve and solve_triangular (in A), lu_solve (in the packed
//             factors, pivots fixed), cholesky, eigh (V * V + L) and svd (U Vh + S; 16 x 16) and of
//             det over 64 matrices 8 x 8, vectorized (one backward pass) and row by row (one pass per
//             output element)
//
// Items processed count matrices (one forward + backward each).
#define TL_AUTOGRAD 1

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <tl/tensor.hpp>

#ifdef TL_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {

constexpr tl::index_t kN = 256, kRhs = 16;

void single_thread() {
  if (tl::get_num_threads() != 1) tl::set_num_threads(1);
#ifdef TL_BENCH_HAVE_TORCH
  static const bool interop = [] {
    try {
      at::set_num_interop_threads(1);
    } catch (const std::exception&) {
    }
    return true;
  }();
  (void)interop;
  at::set_num_threads(1);
#endif
}

/// A deterministic m x n matrix with entries sin(...) * scale and `shift` on the diagonal. With
/// `spd`, A A^T / n + I instead.
tl::tensor<double, 2> make(tl::index_t m, tl::index_t n, double shift, double seed, bool spd = false,
                           double scale = 1.0) {
  tl::tensor<double, 2> a(tl::shape_t<2>{m, n});
  for (tl::index_t i = 0; i < m * n; ++i)
    a.data()[i] = scale * std::sin(0.37 * static_cast<double>(i) + seed) + ((i / n == i % n) ? shift : 0.0);
  if (!spd) return a;
  tl::tensor<double, 2> s = tl::matmul(a, a.mT()) / static_cast<double>(n) + tl::eye<double>(m);
  return s;
}

enum class op { det, inv, solve, cholesky, solve_triangular, lu_solve, eigh, svd };

template <op Op>
void BM_tl_backward(benchmark::State& st) {
  single_thread();
  const auto a0 = make(kN, kN, Op == op::det ? 1.0 : 8.0, 0.3, Op == op::cholesky, Op == op::det ? 0.5 / 16.0 : 1.0);
  const auto w = make(kN, Op == op::solve ? kRhs : kN, 0, 1.1);
  const auto b0 = make(kN, kRhs, 0, 2.3);
  for (auto _ : st) {
    tl::tensor<double, 2> a = a0.clone();
    a.requires_grad_();
    tl::tensor<double, 2> b = b0.clone();
    b.requires_grad_();
    if constexpr (Op == op::det) {
      tl::tensor<double, 0> l = tl::linalg::det(a);
      l.backward();
    } else if constexpr (Op == op::inv) {
      tl::tensor<double, 0> l = tl::sum(tl::linalg::inv(a) * w);
      l.backward();
    } else if constexpr (Op == op::solve) {
      tl::tensor<double, 0> l = tl::sum(tl::linalg::solve(a, b) * w);
      l.backward();
    } else {
      tl::tensor<double, 0> l = tl::sum(tl::linalg::cholesky(a) * w);
      l.backward();
    }
    benchmark::DoNotOptimize(a.grad().data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_tl_backward<op::det>)->Name("tl/det_backward/256")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tl_backward<op::inv>)->Name("tl/inv_backward/256")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tl_backward<op::solve>)->Name("tl/solve_backward/256x16")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tl_backward<op::cholesky>)->Name("tl/cholesky_backward/256")->Unit(benchmark::kMillisecond);

/// The input of the spectral losses at size n (svd: 0.5 added to the diagonal; eig: 0.25 i added
/// to diagonal entry i, so that the eigenvalues are well separated).
tl::tensor<double, 2> spectral_input(tl::index_t n, bool eig) {
  tl::tensor<double, 2> a = make(n, n, eig ? 0.0 : 0.5, 0.3);
  if (eig)
    for (tl::index_t i = 0; i < n; ++i) a(i, i) += 0.25 * static_cast<double>(i);
  return a;
}

/// Forward + backward of the spectral losses at size n.
template <bool Eig>
void BM_tl_spectral(benchmark::State& st) {
  single_thread();
  const tl::index_t n = st.range(0);
  const auto a1 = spectral_input(n, Eig);
  const auto w = make(n, n, 0, 1.1);
  const auto wv = make(n, 1, 0, 2.3).reshape(n);
  for (auto _ : st) {
    tl::tensor<double, 2> a = a1.clone();
    a.requires_grad_();
    if constexpr (Eig) {
      const auto r = tl::linalg::eig(a);
      tl::tensor<double, 0> l = tl::sum(tl::real(r.eigenvalues * r.eigenvalues)) + tl::sum(tl::abs(r.eigenvectors) * w);
      l.backward();
    } else {
      const auto r = tl::linalg::svd(a, false);
      tl::tensor<double, 0> l = tl::sum(r.S * wv) + tl::sum(tl::matmul(r.U, r.Vh) * w);
      l.backward();
    }
    benchmark::DoNotOptimize(a.grad().data());
  }
  st.SetItemsProcessed(st.iterations());
}

/// A symmetric positive-definite n x n input with well separated eigenvalues (make's spd matrix is
/// a rank-2 change of a multiple of I: 0.25 i added to diagonal entry i).
tl::tensor<double, 2> eigh_input(tl::index_t n) {
  tl::tensor<double, 2> s = make(n, n, 0.0, 0.3, true);
  for (tl::index_t i = 0; i < n; ++i) s(i, i) += 0.25 * static_cast<double>(i);
  return s;
}

/// Forward + backward of the eigh loss sum(L * w) + sum(V * V * W) (V * V does not depend on the
/// signs) for a symmetric positive-definite input of size n.
void BM_tl_eigh(benchmark::State& st) {
  single_thread();
  const tl::index_t n = st.range(0);
  const auto a1 = eigh_input(n);
  const auto w = make(n, n, 0, 1.1);
  const auto wv = make(n, 1, 0, 2.3).reshape(n);
  for (auto _ : st) {
    tl::tensor<double, 2> a = a1.clone();
    a.requires_grad_();
    const auto r = tl::linalg::eigh(a);
    tl::tensor<double, 0> l = tl::sum(r.eigenvalues * wv) + tl::sum(r.eigenvectors * r.eigenvectors * w);
    l.backward();
    benchmark::DoNotOptimize(a.grad().data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_tl_eigh)->Name("tl/eigh_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tl_spectral<false>)->Name("tl/svd_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tl_spectral<true>)->Name("tl/eig_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

/// qr (IsQr) or matrix_exp at n = st.range(0).
template <bool IsQr>
void BM_tl_factor_backward(benchmark::State& st) {
  single_thread();
  const tl::index_t n = st.range(0);
  const auto a0 = make(n, n, IsQr ? 1.0 : 0.0, 0.3, false, IsQr ? 1.0 : 1.0 / std::sqrt(static_cast<double>(n)));
  const auto w = make(n, n, 0, 1.1), w2 = make(n, n, 0, 2.3);
  for (auto _ : st) {
    tl::tensor<double, 2> a = a0.clone();
    a.requires_grad_();
    if constexpr (IsQr) {
      const auto [q, r] = tl::linalg::qr(a);
      tl::tensor<double, 0> l = tl::sum(q * w) + tl::sum(r * w2);
      l.backward();
    } else {
      tl::tensor<double, 0> l = tl::sum(tl::linalg::matrix_exp(a) * w);
      l.backward();
    }
    benchmark::DoNotOptimize(a.grad().data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_tl_factor_backward<true>)->Name("tl/qr_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tl_factor_backward<false>)->Name("tl/matrix_exp_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

/// Jacobians through nodes with a batched rule: inv(A), solve(A, B), solve_triangular(A, B) (upper)
/// and lu_solve(LU, pivots, B) (with respect to A or LU, the pivots those of A; B 16 x 16)
/// and cholesky(S) for 16 x 16 matrices (256 outputs, so 256 cotangents) and det over a batch of 64 matrices 8 x 8 (64 cotangents), with
/// vectorize = true (one backward pass carrying every cotangent) and false (one pass per cotangent).
template <op Op, bool Vec>
void BM_tl_jacobian(benchmark::State& st) {
  single_thread();
  namespace ag = tl::autograd;
  const ag::jacobian_options o{.create_graph = false, .vectorize = Vec};
  using M2 = tl::tensor<double, 2>;
  using T3 = tl::tensor<double, 3>;
  if constexpr (Op == op::det) {
    const T3 a = make(64 * 8, 8, 0.0, 0.3).reshape(64, 8, 8) + tl::eye<double>(8) * 2.0;
    for (auto _ : st) benchmark::DoNotOptimize(ag::jacobian([](const T3& v) { return tl::linalg::det(v); }, a, o).data());
  } else {
    const M2 a0 = Op == op::eigh ? eigh_input(16) : Op == op::svd ? spectral_input(16, true) : make(16, 16, 4.0, 0.3, Op == op::cholesky);
    const M2 b = make(16, 16, 0.0, 0.7);
    const auto fa = tl::linalg::lu_factor(a0);
    const M2 a = Op == op::lu_solve ? M2(fa.LU) : a0;
    const tl::tensor<std::int32_t, 1> piv = fa.pivots;
    const auto f = [&b, &piv](const M2& v) {
      if constexpr (Op == op::inv) return M2(tl::linalg::inv(v));
      else if constexpr (Op == op::solve) return M2(tl::linalg::solve(v, b));
      else if constexpr (Op == op::solve_triangular) return M2(tl::linalg::solve_triangular(v, b, true));
      else if constexpr (Op == op::lu_solve) return M2(tl::linalg::lu_solve(v, piv, b));
      else if constexpr (Op == op::svd) {
        const auto r = tl::linalg::svd(v, false);
        return M2(tl::matmul(r.U, r.Vh) + r.S.unsqueeze(0));
      } else if constexpr (Op == op::eigh) {
        const auto r = tl::linalg::eigh(v);
        return M2(r.eigenvectors * r.eigenvectors + r.eigenvalues.unsqueeze(0));
      }
      else return M2(tl::linalg::cholesky(v));
    };
    for (auto _ : st) benchmark::DoNotOptimize(ag::jacobian(f, a, o).data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_tl_jacobian<op::inv, true>)->Name("tl/inv_jacobian/16/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::inv, false>)->Name("tl/inv_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::cholesky, true>)->Name("tl/cholesky_jacobian/16/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::cholesky, false>)->Name("tl/cholesky_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::solve, true>)->Name("tl/solve_jacobian/16/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::solve, false>)->Name("tl/solve_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::solve_triangular, true>)
    ->Name("tl/solve_triangular_jacobian/16/vectorized")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::solve_triangular, false>)->Name("tl/solve_triangular_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::lu_solve, true>)->Name("tl/lu_solve_jacobian/16/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::lu_solve, false>)->Name("tl/lu_solve_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::svd, true>)->Name("tl/svd_jacobian/16/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::svd, false>)->Name("tl/svd_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::eigh, true>)->Name("tl/eigh_jacobian/16/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::eigh, false>)->Name("tl/eigh_jacobian/16/rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::det, true>)->Name("tl/det_jacobian/64x8x8/vectorized")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tl_jacobian<op::det, false>)->Name("tl/det_jacobian/64x8x8/rows")->Unit(benchmark::kMicrosecond);

#ifdef TL_BENCH_HAVE_TORCH
torch::Tensor to_torch(const tl::tensor<double, 2>& t) {
  const tl::tensor<double, 2> c = t.contiguous();
  return torch::from_blob(const_cast<double*>(c.data()), {c.extent(0), c.extent(1)}, torch::kFloat64).clone();
}

template <op Op>
void BM_torch_backward(benchmark::State& st) {
  single_thread();
  const auto a0 =
      to_torch(make(kN, kN, Op == op::det ? 1.0 : 8.0, 0.3, Op == op::cholesky, Op == op::det ? 0.5 / 16.0 : 1.0));
  const auto w = to_torch(make(kN, Op == op::solve ? kRhs : kN, 0, 1.1));
  const auto b0 = to_torch(make(kN, kRhs, 0, 2.3));
  for (auto _ : st) {
    auto a = a0.clone().requires_grad_(true);
    auto b = b0.clone().requires_grad_(true);
    torch::Tensor l;
    if constexpr (Op == op::det) l = torch::linalg::det(a);
    else if constexpr (Op == op::inv) l = (torch::linalg::inv(a) * w).sum();
    else if constexpr (Op == op::solve) l = (torch::linalg::solve(a, b, /*left=*/true) * w).sum();
    else l = (torch::linalg::cholesky(a) * w).sum();
    l.backward();
    benchmark::DoNotOptimize(a.grad().data_ptr<double>());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_torch_backward<op::det>)->Name("torch/det_backward/256")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_backward<op::inv>)->Name("torch/inv_backward/256")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_backward<op::solve>)->Name("torch/solve_backward/256x16")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_backward<op::cholesky>)->Name("torch/cholesky_backward/256")->Unit(benchmark::kMillisecond);

template <bool Eig>
void BM_torch_spectral(benchmark::State& st) {
  single_thread();
  const tl::index_t n = st.range(0);
  const auto a0 = to_torch(spectral_input(n, Eig));
  const auto w = to_torch(make(n, n, 0, 1.1));
  const auto wv = to_torch(make(n, 1, 0, 2.3)).reshape({n});
  for (auto _ : st) {
    auto a = a0.clone().requires_grad_(true);
    torch::Tensor l;
    if constexpr (Eig) {
      auto [ev, v] = torch::linalg::eig(a);
      l = at::real(ev * ev).sum() + (v.abs() * w).sum();
    } else {
      auto [u, s, vh] = torch::linalg::svd(a, /*full_matrices=*/false, /*driver=*/c10::nullopt);
      l = (s * wv).sum() + (torch::matmul(u, vh) * w).sum();
    }
    l.backward();
    benchmark::DoNotOptimize(a.grad().data_ptr<double>());
  }
  st.SetItemsProcessed(st.iterations());
}
void BM_torch_eigh(benchmark::State& st) {
  single_thread();
  const tl::index_t n = st.range(0);
  const auto a0 = to_torch(eigh_input(n));
  const auto w = to_torch(make(n, n, 0, 1.1));
  const auto wv = to_torch(make(n, 1, 0, 2.3)).reshape({n});
  for (auto _ : st) {
    auto a = a0.clone().requires_grad_(true);
    auto [ev, v] = torch::linalg::eigh(a, "L");
    torch::Tensor l = (ev * wv).sum() + (v * v * w).sum();
    l.backward();
    benchmark::DoNotOptimize(a.grad().data_ptr<double>());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_torch_eigh)->Name("torch/eigh_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_spectral<false>)->Name("torch/svd_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_spectral<true>)->Name("torch/eig_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

template <bool IsQr>
void BM_torch_factor_backward(benchmark::State& st) {
  single_thread();
  const tl::index_t n = st.range(0);
  const auto a0 = to_torch(make(n, n, IsQr ? 1.0 : 0.0, 0.3, false, IsQr ? 1.0 : 1.0 / std::sqrt(static_cast<double>(n))));
  const auto w = to_torch(make(n, n, 0, 1.1)), w2 = to_torch(make(n, n, 0, 2.3));
  for (auto _ : st) {
    auto a = a0.clone().requires_grad_(true);
    torch::Tensor l;
    if constexpr (IsQr) {
      const auto [q, r] = torch::linalg::qr(a);
      l = (q * w).sum() + (r * w2).sum();
    } else {
      l = (torch::linalg::matrix_exp(a) * w).sum();
    }
    l.backward();
    benchmark::DoNotOptimize(a.grad().data_ptr<double>());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_torch_factor_backward<true>)->Name("torch/qr_backward")->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_factor_backward<false>)
    ->Name("torch/matrix_exp_backward")
    ->Arg(32)
    ->Arg(128)
    ->Unit(benchmark::kMillisecond);
#endif

}  // namespace
