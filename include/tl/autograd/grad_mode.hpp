#pragma once
/// @file grad_mode.hpp
/// @brief Grad modes: whether operations are recorded for autograd (torch's no_grad,
/// enable_grad, set_grad_enabled and inference_mode), per thread.
///
/// @code
/// {
///   tl::no_grad guard;            // nothing below is recorded
///   w = w - lr * w.grad();
/// }
/// {
///   tl::inference_mode guard;     // no recording and no autograd bookkeeping at all
///   auto y = model(x);            // y is an inference tensor: it cannot later be used in recorded ops
/// }
/// @endcode
#include <cstdint>

namespace tl {
namespace detail {
struct grad_state {
  bool enabled = true;
  bool inference = false;
};
inline grad_state& grad_state_ref() {
  thread_local grad_state s;
  return s;
}
}  // namespace detail

/// @brief Whether operations on this thread are recorded for autograd (torch.is_grad_enabled).
inline bool is_grad_enabled() { return detail::grad_state_ref().enabled; }
/// @brief Whether this thread is in inference mode (torch.is_inference_mode_enabled).
inline bool is_inference_mode_enabled() { return detail::grad_state_ref().inference; }

/// @brief RAII guard setting grad mode on or off for its scope (torch.set_grad_enabled).
class set_grad_enabled {
 public:
  explicit set_grad_enabled(bool on) : m_prev(detail::grad_state_ref().enabled) { detail::grad_state_ref().enabled = on; }
  set_grad_enabled(const set_grad_enabled&) = delete;
  set_grad_enabled& operator=(const set_grad_enabled&) = delete;
  ~set_grad_enabled() { detail::grad_state_ref().enabled = m_prev; }

 private:
  bool m_prev;
};

/// @brief RAII guard: nothing is recorded in its scope (torch.no_grad).
class no_grad : public set_grad_enabled {
 public:
  no_grad() : set_grad_enabled(false) {}
};

/// @brief RAII guard: recording is on in its scope, also inside a no_grad scope (torch.enable_grad).
class enable_grad : public set_grad_enabled {
 public:
  enable_grad() : set_grad_enabled(true) {}
};

/// @brief RAII guard for inference (torch.inference_mode, torch 1.9): nothing is recorded and
/// tensors created inside are inference tensors (no autograd bookkeeping); using one later in a
/// recorded operation throws tl::autograd_error.
class inference_mode {
 public:
  explicit inference_mode(bool on = true) : m_prev(detail::grad_state_ref()) {
    if (on) {
      detail::grad_state_ref().enabled = false;
      detail::grad_state_ref().inference = true;
    }
  }
  inference_mode(const inference_mode&) = delete;
  inference_mode& operator=(const inference_mode&) = delete;
  ~inference_mode() { detail::grad_state_ref() = m_prev; }

 private:
  detail::grad_state m_prev;
};

}  // namespace tl
