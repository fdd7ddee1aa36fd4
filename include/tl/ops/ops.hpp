#pragma once
/// @file ops.hpp
/// @brief Aggregator for materializing tensor operations (joining, indexing, sorting, matmul).
#include "tl/eval/eval.hpp"
#include "tl/ops/cat.hpp"
#include "tl/ops/gather.hpp"
#include "tl/ops/index_select.hpp"
#include "tl/ops/masked_fill.hpp"
#include "tl/ops/matmul.hpp"
#include "tl/ops/roll.hpp"
#include "tl/ops/scatter.hpp"
#include "tl/ops/sort.hpp"
#include "tl/ops/split.hpp"
#include "tl/ops/topk.hpp"
#include "tl/ops/unique.hpp"
