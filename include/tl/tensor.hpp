#pragma once
/// @file tensor.hpp
/// @brief The umbrella header: everything a user of tl needs.
#include "tl/core/core.hpp"
#include "tl/expr/expr.hpp"
#include "tl/eval/eval.hpp"
#include "tl/reduce/reduce.hpp"
#include "tl/ops/ops.hpp"
#include "tl/autograd/autograd.hpp"
#include "tl/fft/fft.hpp"
#include "tl/linalg/linalg.hpp"
#include "tl/special/special.hpp"
