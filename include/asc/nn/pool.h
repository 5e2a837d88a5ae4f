// Pooling operators of asc.ops (max / average / adaptive pooling over 1 to 3
// spatial axes), CPU device.
//
// Input (N, C, *spatial) or unbatched (C, *spatial), any strides (non-contiguous
// inputs are copied to C order once); outputs are new C-contiguous tensors from the
// device pool, in the input's dtype (float32, float64, float16, bfloat16; sums
// accumulate in float32, float64 for float64). Max-pool indices are int64, the flat
// index into the input's spatial plane (torch's convention: (d * H + h) * W + w).
// Max pooling propagates NaN (a NaN in the window wins, as torch).
//
// Engine: the kernels of src/nn/pool.cc (direct window loops over one plane per
// (n, c)); see docs/nn.md for why not oneDNN's pooling primitive here.
//
// Errors (asc::Error): kInvalidDtype for non-floating inputs; kInvalidShape for a
// rank that does not match the pooling's spatial rank or zero non-batch dims;
// kInvalidParam for kernel/stride/dilation <= 0, padding < 0 or more than half
// the (effective) kernel, and an output size below 1. Messages start "[<op>]".
//
// Thread-safety: every function may be called concurrently from several threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::nn {

enum class PoolKind : uint8_t { kMax, kAvg };

/// Attributes of the pooling family (typed, not ops::Attrs). Vectors have one
/// entry per spatial axis (spatial_ndim entries).
struct PoolAttrs {
  PoolKind kind = PoolKind::kMax;
  int spatial_ndim = 2;
  std::vector<int64_t> kernel, stride, padding, dilation;  // dilation: max pooling only
  bool ceil_mode = false;
  bool count_include_pad = true;  // average pooling
  int64_t divisor_override = 0;   // average pooling; 0 = none
  bool return_indices = false;    // max pooling
  std::string op = "max_pool2d";  // name used in error messages
};

struct PoolResult {
  Tensor out;
  Tensor indices;  // int64, only with return_indices
};

/// Sliding-window max / average pooling (torch.nn.functional.max_poolNd / avg_poolNd).
PoolResult pool(const Tensor& x, const PoolAttrs& attrs);

/// Adaptive pooling (adaptive_avg_poolNd / adaptive_max_poolNd): output bin o of an
/// axis covers [floor(o * in / out), ceil((o + 1) * in / out)).
/// Max pooling of a channel-blocked (N, C1, *spatial, C0) input (the NC1HWC0 layout
/// of conv.h; 1 to 3 spatial axes, kernel.size() of them) into (N, C1, *out, C0):
/// out = floor((in + pad_l + pad_r - dilation * (kernel - 1) - 1) / stride) + 1 per axis,
/// padding is implicit -inf (ONNX MaxPool with explicit, possibly asymmetric pads),
/// NaN propagates (as pool()). The C0 lanes of a position are one vector, so the
/// window loop is vectorised across channels; rows run in parallel on the device's
/// cores. Errors: kInvalidShape for a wrong rank or an empty output, kInvalidParam
/// for non-positive kernel/stride/dilation or negative pads, kInvalidDtype for a
/// non-floating input.
///
/// `out` (optional): the caller's buffer the result is written into and returned (the
/// model executor's arena slot). Checked before anything is written: the output's shape
/// and the input's dtype, C-contiguous, writeable, sharing no bytes with the input
/// (kInvalidShape / kInvalidDtype / kInvalidParam naming the op, shapes and dtypes).
Tensor max_pool_blocked(const Tensor& x, const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& pad_l, const std::vector<int64_t>& pad_r,
                        const std::vector<int64_t>& dilation, const std::string& op, const Tensor* out = nullptr);

/// Average pooling of a channel-blocked (N, C1, *spatial, C0) input into (N, C1, *out, C0)
/// (ONNX AveragePool in floor mode with explicit, possibly asymmetric pads, no dilation):
/// out = floor((in + pad_l + pad_r - kernel) / stride) + 1 per axis. The divisor is the
/// window's size (count_include_pad) or its positions inside the input; sums accumulate
/// in float32 (float64 for float64). A kernel equal to the plane without pads is the
/// global average pool, whose (N, C1, 1.., C0) result is NCHW's (N, C, 1..) memory.
/// Errors: kInvalidShape for a wrong rank or an empty output, kInvalidParam for
/// non-positive kernel/stride or pads outside [0, kernel), kInvalidDtype for a
/// non-floating input. `out`: as max_pool_blocked's.
Tensor avg_pool_blocked(const Tensor& x, const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& pad_l, const std::vector<int64_t>& pad_r, bool count_include_pad,
                        const std::string& op, const Tensor* out = nullptr);

PoolResult adaptive_pool(const Tensor& x, PoolKind kind, const std::vector<int64_t>& output_size,
                         bool return_indices, const std::string& op);

}  // namespace asc::nn
