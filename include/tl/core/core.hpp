#pragma once
/// @file core.hpp
/// @brief Aggregator for the core layer.
#include "tl/core/complex.hpp"
#include "tl/core/config.hpp"
#include "tl/core/creation.hpp"
#include "tl/core/device.hpp"
#include "tl/core/dtype.hpp"
#include "tl/core/error.hpp"
#include "tl/core/expression.hpp"
#include "tl/core/extents.hpp"
#include "tl/core/print.hpp"
#include "tl/core/random.hpp"
#include "tl/core/slice.hpp"
#include "tl/core/storage.hpp"
#include "tl/core/tensor.hpp"
