#pragma once
/// @file eval.hpp
/// @brief Aggregator for the evaluation layer (CPU evaluator).
#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/random.hpp"
