#pragma once
/// @file linalg.hpp
/// @brief tl::linalg, mirroring torch.linalg: matrix products, LU, Cholesky, solves, inverses and
/// determinants on the CPU, on one packed, cache-blocked GEMM.
#include "tl/linalg/error.hpp"
#include "tl/linalg/matmul.hpp"
#include "tl/linalg/lu_factor.hpp"
#include "tl/linalg/lu.hpp"
#include "tl/linalg/lu_solve.hpp"
#include "tl/linalg/solve.hpp"
#include "tl/linalg/inv.hpp"
#include "tl/linalg/det.hpp"
#include "tl/linalg/cholesky.hpp"
#include "tl/linalg/solve_triangular.hpp"
#include "tl/linalg/svd.hpp"
#include "tl/linalg/pinv.hpp"
#include "tl/linalg/matrix_rank.hpp"
#include "tl/linalg/cond.hpp"
#include "tl/linalg/eig.hpp"
#include "tl/linalg/vector_norm.hpp"
#include "tl/linalg/matrix_norm.hpp"
#include "tl/linalg/norm.hpp"
#include "tl/linalg/qr.hpp"
#include "tl/linalg/householder_product.hpp"
#include "tl/linalg/eigh.hpp"
#include "tl/linalg/lstsq.hpp"
#include "tl/linalg/vecdot.hpp"
#include "tl/linalg/cross.hpp"
#include "tl/linalg/multi_dot.hpp"
#include "tl/linalg/matrix_power.hpp"
#include "tl/linalg/vander.hpp"
#include "tl/linalg/diagonal.hpp"
#include "tl/linalg/matrix_exp.hpp"
#include "tl/linalg/tensorinv.hpp"
#include "tl/linalg/tensorsolve.hpp"
// Gradients of the operations above (after all of them: the rules call one another).
#if TL_AUTOGRAD
#include "tl/linalg/detail/autograd.hpp"
#endif
