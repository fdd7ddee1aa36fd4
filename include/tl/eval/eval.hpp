#pragma once
/// @file eval.hpp
/// @brief Aggregator for the evaluation layer: the CPU evaluator, and under nvcc the CUDA evaluator
/// (assignment, random fills, reductions, scans, softmax, sort).
#include "tl/eval/cpu/assign.hpp"
#include "tl/eval/cpu/thread_pool.hpp"
#include "tl/eval/random.hpp"

#if defined(__CUDACC__)
#include "tl/eval/cuda/allocator.cuh"
#include "tl/eval/cuda/assign.cuh"
#include "tl/eval/cuda/graph.cuh"
#include "tl/eval/cuda/random.cuh"
#include "tl/eval/cuda/record_stream.cuh"
#include "tl/eval/cuda/reduce.cuh"
#include "tl/eval/cuda/runtime.cuh"
#include "tl/eval/cuda/scan.cuh"
#include "tl/eval/cuda/softmax.cuh"
#include "tl/eval/cuda/sort.cuh"
#endif
