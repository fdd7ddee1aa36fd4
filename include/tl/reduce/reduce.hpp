#pragma once
/// @file reduce.hpp
/// @brief Aggregator for reductions, scans and softmax.
#include "tl/eval/eval.hpp"
