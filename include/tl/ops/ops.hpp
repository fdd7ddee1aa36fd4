#pragma once
/// @file ops.hpp
/// @brief Aggregator for materializing tensor operations (joining, indexing, sorting, matmul).
#include "tl/eval/eval.hpp"
