#pragma once
/// @file cuda.hpp
/// @brief Everything in <tl/tensor.hpp> plus the CUDA layer (streams, events, the caching allocator's
/// statistics, CUDA graphs). Include it from a translation unit compiled by nvcc.
#if !defined(__CUDACC__)
#error "tl/cuda.hpp is the CUDA layer of tl: compile this translation unit with nvcc (a .cu file, or CMake's CUDA language)"
#endif
#include "tl/tensor.hpp"
