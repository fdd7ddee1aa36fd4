#pragma once
/// @file linalg.hpp
/// @brief tl::linalg, mirroring torch.linalg: matrix products and factorizations on the CPU.
#include "tl/linalg/matmul.hpp"
