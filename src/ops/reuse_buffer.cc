// The thread-local reuse-buffer stack behind asc.reuse_buffer (see
// asc/ops/reuse_buffer.h).
#include "asc/ops/reuse_buffer.h"

#include <vector>

namespace asc::ops {
namespace {
thread_local std::vector<Tensor> g_stack;
}  // namespace

void reuse_buffer_push(const Tensor& buffer) {
  if (!buffer.is_contiguous()) throw Error(Status::Invalid("reuse_buffer", "the buffer must be C-contiguous"));
  g_stack.push_back(buffer);
}

bool reuse_buffer_active() noexcept { return !g_stack.empty(); }

void reuse_buffer_pop() noexcept {
  if (!g_stack.empty()) g_stack.pop_back();
}

Tensor allocate_output(const Shape& shape, DType dtype, const Tensor* inputs, int n) {
  if (g_stack.empty()) return Tensor::empty(shape, dtype);
  const Tensor& b = g_stack.back();
  if (b.dtype() != dtype || b.shape() != shape) return Tensor::empty(shape, dtype);
  for (int i = 0; i < n; ++i) {
    const Tensor& x = inputs[i];
    if (x.storage() != b.storage()) continue;
    // The same elements in the same places (after broadcasting to the result) are safe.
    if (x.offset() != b.offset() || x.shape() != b.shape() || x.strides() != b.strides())
      return Tensor::empty(shape, dtype);
  }
  return b;
}

}  // namespace asc::ops
