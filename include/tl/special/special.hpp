#pragma once
/// @file special.hpp
/// @brief tl::special, mirroring torch.special: lazy elementwise special functions (see docs/special.md).
#include "tl/special/erf.hpp"
#include "tl/special/elementary.hpp"
#include "tl/special/gamma.hpp"
#include "tl/special/bessel.hpp"
#include "tl/special/polynomial.hpp"
#include "tl/special/incomplete_gamma.hpp"
