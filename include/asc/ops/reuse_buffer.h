// asc.reuse_buffer: explicit lifetime control of large results.
//
// A thread-local stack of output buffers. While a buffer is pushed, the
// executor's output allocation (allocate_output, used by ops::call for
// elementwise results and reduction accumulators) returns the innermost
// buffer instead of fresh pool memory when the result has exactly the
// buffer's shape and dtype and no input shares memory with the buffer in a
// different layout (an input that IS the buffer, element for element, is
// fine: elementwise ops read each element before writing it). Every such op
// writes into the same buffer, so a result computed earlier inside the block
// and still held in a variable is overwritten by the next matching op -- the
// same contract as NumPy's `out=`. Ops whose result does not match allocate
// as usual.
//
// Errors: reuse_buffer_push with a non-contiguous buffer is kInvalidParam
// ("[reuse_buffer] the buffer must be C-contiguous").
// Thread-safety: the stack is per thread; ops on other threads never see it.
#pragma once

#include "asc/core/tensor.h"

namespace asc::ops {

/// Makes `buffer` the innermost reuse buffer of this thread.
void reuse_buffer_push(const Tensor& buffer);
/// Removes the innermost reuse buffer of this thread (no-op when none).
void reuse_buffer_pop() noexcept;
/// The executor's output allocation: the innermost reuse buffer when it
/// matches (see above), else Tensor::empty(shape, dtype).
Tensor allocate_output(const Shape& shape, DType dtype, const Tensor* inputs = nullptr, int n = 0);
/// Whether this thread has a reuse buffer pushed (the lazy graph then runs
/// ops eagerly, so that results land in the buffer at the call).
bool reuse_buffer_active() noexcept;

}  // namespace asc::ops
