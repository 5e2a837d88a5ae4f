// The built-in gelu kernel as an ops-layer inner loop, for the lazy graph's
// gelu pass (src/graph/passes.cc): defined in chain-inl.h (math.cc's
// translation unit), over the kernel of asc.ops.gelu (src/nn/activation.cc).
// Dependencies point down: the nn layer registers its kernel here when libasc
// loads (register_gelu_range), the kernel layer never names an nn symbol.
#pragma once

#include <cstdint>

namespace asc::kernel::simd {

/// `void(char** ptrs, const int64_t* strides, int64_t n)` over float32: ptrs[0]
/// the output, ptrs[1] the input, strides in bytes (any; contiguous runs go to
/// the kernel as they are). The exact (erf) form, or the tanh form. Null when
/// the kernel is not linked in (the pass then does not fire).
using GeluLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n);
GeluLoop native_gelu_loop(bool tanh_form) noexcept;

/// The built-in gelu kernel's per-range entry: code 0 = float32 (1 float16,
/// 2 bfloat16), elements [lo, hi) of x into y, stream = streaming stores.
/// The function dispatches to the CPU's best target itself, so a registered
/// node computes the very vectors asc.ops.gelu computes.
using GeluRangeFn = void (*)(int code, bool tanh_form, const void* x, void* y, int64_t lo, int64_t hi, bool stream);

/// Called once by src/nn/activation.cc's static initialiser (libasc load).
/// Thread-safe (an atomic store); until it runs, native_gelu_loop() is null.
void register_gelu_range(GeluRangeFn fn) noexcept;
/// The registered entry, or null.
GeluRangeFn registered_gelu_range() noexcept;

}  // namespace asc::kernel::simd
