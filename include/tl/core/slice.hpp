#pragma once
/// @file slice.hpp
/// @brief Python-style slice specifications for indexing: `t(tl::all, tl::s(1, -1))` is `t[:, 1:-1]`.
#include <limits>

#include "tl/core/config.hpp"

namespace tl {

/// @brief A start:stop:step slice; negative start/stop count from the end, missing ends are open.
struct slice_spec {
  index_t start = 0, stop = 0, step = 1;
  bool has_start = false, has_stop = false;
};

/// @brief `s(start, stop, step)` is Python's `start:stop:step`.
constexpr slice_spec s(index_t start, index_t stop, index_t step = 1) { return {start, stop, step, true, true}; }
/// @brief `from(start)` is Python's `start:`.
constexpr slice_spec from(index_t start, index_t step = 1) { return {start, 0, step, true, false}; }
/// @brief `upto(stop)` is Python's `:stop`.
constexpr slice_spec upto(index_t stop, index_t step = 1) { return {0, stop, step, false, true}; }
/// @brief Every element along a dimension: Python's `:`.
inline constexpr slice_spec all{0, 0, 1, false, false};
/// @brief Every step-th element: Python's `::step` (a negative step walks backwards).
constexpr slice_spec every(index_t step) { return {0, 0, step, false, false}; }

}  // namespace tl
