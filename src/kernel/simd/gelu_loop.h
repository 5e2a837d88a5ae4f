// The built-in gelu kernel as an ops-layer inner loop, for the lazy graph's
// gelu pass (src/graph/passes.cc): defined in chain-inl.h (math.cc's
// translation unit), over the kernel of asc.ops.gelu (src/nn/activation.cc).
#pragma once

#include <cstdint>

namespace asc::kernel::simd {

/// `void(char** ptrs, const int64_t* strides, int64_t n)` over float32: ptrs[0]
/// the output, ptrs[1] the input, strides in bytes (any; contiguous runs go to
/// the kernel as they are). The exact (erf) form, or the tanh form. Null when
/// the kernel is not linked in (the pass then does not fire).
using GeluLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n);
GeluLoop native_gelu_loop(bool tanh_form) noexcept;

}  // namespace asc::kernel::simd
