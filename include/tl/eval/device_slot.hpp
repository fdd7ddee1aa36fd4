#pragma once
/// @file device_slot.hpp
/// @brief Internal: how host code finds the CUDA implementation of one kernel instantiation
/// (detail header; no CUDA headers).
///
/// A template such as `eval_into<Op, T, E>` is instantiated in every translation unit that uses it,
/// compiled by g++ or by nvcc, and the linker keeps one copy. So that the copy kept behaves the same
/// whichever compiler made it, the host code never calls a CUDA launcher directly: it looks the
/// launcher up in a `device_slot`, a function pointer per instantiation that nvcc-compiled
/// translation units fill in during static initialization (tl/eval/cuda/). An empty slot means
/// that no nvcc translation unit instantiated that kernel, and the caller throws a tl::device_error
/// that says so.
#include "tl/core/error.hpp"

namespace tl::detail {

template <class Key, class Fn>
struct device_slot {
  inline static Fn fn = nullptr;
};

/// Fills slot (Key, Fn) with `Launch` during static initialization (of each nvcc translation unit
/// that calls fill_device_slot<Key, Fn, Launch>()).
template <class Key, class Fn, Fn Launch>
struct slot_registrar {
  inline static const bool done = (device_slot<Key, Fn>::fn = Launch, true);
};

/// Instantiates `Launch` (and so the kernels it launches) and fills its slot at static
/// initialization. The flag initializes a named local on purpose: nvcc's device pass does not
/// instantiate the flag's initializer for a discarded `(void)slot_registrar<...>::done`, and then
/// the kernels are missing from the device code and every launch fails with "invalid device
/// function".
template <class Key, class Fn, Fn Launch>
void fill_device_slot() {
  [[maybe_unused]] const bool filled = slot_registrar<Key, Fn, Launch>::done;
}

/// The launcher in slot (Key, Fn), or a device_error naming op.
template <class Key, class Fn>
Fn require_device_slot(const char* op) {
  Fn f = device_slot<Key, Fn>::fn;
  if (!f)
    throw device_error(cat_str("tl::", op,
                               ": this operation on a CUDA tensor was not compiled for the GPU; perform it in a "
                               "translation unit compiled by nvcc (a .cu file including <tl/tensor.hpp>)"));
  return f;
}

}  // namespace tl::detail
