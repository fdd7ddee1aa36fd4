#pragma once
/// @file expr.hpp
/// @brief Aggregator for the expression layer.
#include "tl/expr/elementwise.hpp"
#include "tl/expr/functors.hpp"
#include "tl/expr/node.hpp"
