#pragma once
/// @file reduce.hpp
/// @brief Aggregator for reductions, scans and softmax.
#include "tl/eval/eval.hpp"
#include "tl/reduce/dims.hpp"
#include "tl/reduce/sum.hpp"
#include "tl/reduce/mean.hpp"
#include "tl/reduce/prod.hpp"
#include "tl/reduce/min_max.hpp"
#include "tl/reduce/var_std.hpp"
#include "tl/reduce/norm.hpp"
#include "tl/reduce/logsumexp.hpp"
#include "tl/reduce/logical.hpp"
#include "tl/reduce/cumulative.hpp"
#include "tl/reduce/softmax.hpp"
