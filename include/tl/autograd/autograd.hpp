#pragma once
/// @file autograd.hpp
/// @brief Aggregator for autograd: grad modes, the tensor's autograd members, gradients of every
/// differentiable op, the functional API and gradcheck.
#include "tl/autograd/grad_mode.hpp"
#include "tl/autograd/detail/graph.hpp"
#include "tl/autograd/detail/function.hpp"
#include "tl/autograd/detail/views.hpp"
#include "tl/autograd/detail/adjoint.hpp"
#include "tl/autograd/detail/expr_node.hpp"
#include "tl/autograd/detail/reductions.hpp"
#include "tl/autograd/detail/linear.hpp"
#include "tl/autograd/detail/list_ops.hpp"
#include "tl/autograd/detail/index_ops.hpp"
#include "tl/autograd/tensor_autograd.hpp"
#include "tl/autograd/functional.hpp"
#include "tl/autograd/gradcheck.hpp"
