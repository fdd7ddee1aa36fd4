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
#include "tl/linalg/vector_norm.hpp"
#include "tl/linalg/matrix_norm.hpp"
#include "tl/linalg/norm.hpp"
#include "tl/linalg/qr.hpp"
#include "tl/linalg/householder_product.hpp"
#include "tl/linalg/eigh.hpp"
