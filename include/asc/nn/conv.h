// Convolution and transposed convolution of asc.ops (1 to 3 spatial axes), CPU device.
//
// x: (N, C, *spatial) for layout NCHW or (N, *spatial, C) for NHWC (batched; the
// Python layer adds/removes the batch axis of unbatched inputs). Weights in torch's
// layout: forward (C_out, C_in / groups, *k); transposed (C_in, C_out / groups, *k).
// Any strides (non-contiguous inputs are copied once). The output is a new
// C-contiguous tensor from the device pool in x's layout and dtype.
//
// Engines (ConvAttrs::engine):
//  * kOneDnn (default): oneDNN convolution_forward / deconvolution_forward with
//    format_tag::any for src, weights and dst (oneDNN picks its blocked layouts,
//    e.g. nChw16c / OIhw16i16o on AVX-512; reorders in and out are cached with the
//    primitive). float16 is computed in float32 lanes (the reorders convert; oneDNN
//    2.6 has no f16 convolution on AVX-512 without FP16), bfloat16 natively
//    where oneDNN has bfloat16 convolutions (AVX512_BF16 / AVX-512; float32
//    accumulation, bfloat16 output), else in float32 lanes like float16 (AVX2).
//    Bias, residual (sum post-op) and activation (eltwise post-op) fuse into
//    the primitive:
//    out = act(conv(x, w) + bias + residual).
//    float32 3x3 / stride 1 / one-group 2-D convolutions with outputs of at least
//    14x14 on AVX2 + FMA CPUs take a Winograd F(2x2, 3x3) path instead
//    (src/nn/conv_winograd.h: oneDNN 2.6 has Winograd kernels only for AVX-512),
//    with the same fused epilogue for none/relu/relu6/leaky_relu;
//    ASC_CONV_WINOGRAD=0 keeps them on oneDNN.
//    float32 depthwise 3x3 (stride 1 or 2) convolutions on NCHW take the stencil
//    path of src/nn/conv_depthwise.h (no reorders; ASC_CONV_DEPTHWISE=0: oneDNN).
//    With ASC_CONV_DIRECT=1 (opt-in, not yet faster than oneDNN), float32 stride-2
//    NCHW convolutions take the direct kernel of src/nn/conv_direct.h.
//  * kAscendC: the Ascend C model path: img2col of each group into a row-major
//    matrix + the cube engine behind Mmad (asc::kernel::cube::gemm, float32 NZ
//    accumulation), forward convolution only, float32/float16/bfloat16.
//  float64 (not a oneDNN type) always runs a direct reference loop in double.
//
// Primitive planning is cached in PrimitiveCache keyed by (op, shapes, strides,
// dtypes, layout, attributes): steady-state calls do no planning. Weights (and a
// bias that needs converting) reordered into the primitive's layout are cached
// per (storage uid, offset, layouts) and reused while Storage::version() is
// unchanged: steady-state calls do no weight reorder; any write through pyasc
// (eager, in place, out=, a pending graph write) makes the next call reorder
// again. Weights in memory NumPy may write (asarray views of NumPy arrays, live
// exports) are reordered on every call.
//
// Threads: a forward convolution on a device with several cores is cut into
// about 2 x cores pieces (groups of images, or bands of output rows of each image
// when the batch is small), each a single-threaded oneDNN call; the device's core
// workers (and the calling thread) take pieces from an atomic counter
// (runtime::Device::run_kernel), so a worker the OS deschedules on a shared
// machine delays nothing and no thread spins in an OpenMP barrier. Transposed
// convolutions run as one call on the calling thread's OpenMP team.
//
// Errors (asc::Error, messages start "[<op>]"): kInvalidDtype for non-floating or
// mismatched dtypes; kInvalidShape for wrong ranks, channel counts not matching
// groups/weights, bias/residual shapes, an empty output; kInvalidParam for
// stride/dilation/groups < 1, negative padding, output_padding >= stride and
// >= dilation, an unknown activation.
//
// Thread-safety: conv() may be called concurrently from several threads.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::nn {

enum class Activation : uint8_t { kNone, kRelu, kLeakyRelu, kGelu, kGeluTanh, kSilu, kSigmoid, kTanh, kElu, kRelu6 };
enum class ConvEngine : uint8_t { kOneDnn, kAscendC };

/// Attributes of a convolution call (typed; one entry per spatial axis).
struct ConvAttrs {
  int spatial_ndim = 2;
  std::vector<int64_t> stride, pad_l, pad_r, dilation, output_padding;  // output_padding: transposed only
  int64_t groups = 1;
  bool transposed = false;
  bool channels_last = false;  // NHWC (N, *spatial, C)
  // NC1HWC0 (channel-blocked) layouts, forward oneDNN convolutions only: 0 = plain
  // (NCHW / NHWC by channels_last); C0 in {4, 8, 16} = the input (src_block) or the
  // output (dst_block) is (N, C / C0, *spatial, C0), channel c at [c / C0, ..., c % C0]
  // (oneDNN's nChw8c for C0 = 8). The input's channel count is C1 * C0; the output's
  // must be a multiple of C0. With C0 == preferred_block() activations pass from
  // one convolution to the next without a layout reorder (the model executor's
  // layout assignment, python/pyasc/models/_passes.py). A residual has the output's
  // layout and shape.
  int src_block = 0, dst_block = 0;
  // The caller gives the residual up: a contiguous residual's buffer becomes the
  // output (the sum post-op then reads it in place instead of from a copy). Only
  // for a residual no one reads afterwards (the model executor sets it for a
  // value's last reader).
  bool residual_inplace = false;
  Activation act = Activation::kNone;
  float alpha = 0.f;  // leaky_relu slope / elu alpha
  ConvEngine engine = ConvEngine::kOneDnn;
  std::string op = "conv2d";
};

/// act(conv(x, w) + bias + residual). bias: (C_out,) or null; residual: the
/// output's shape or null.
/// out: null (a new tensor from the pool, or the residual's buffer under
/// residual_inplace) or the caller's preallocated output (a model's memory arena):
/// the output's shape (its layout: NCHW / NHWC / NC1HWC0 as the attrs say) and
/// dtype, C-contiguous, writeable, sharing no bytes with x, w or bias; it may be
/// exactly the residual's buffer (then the result replaces the residual in place)
/// but not overlap it otherwise. Violations: kInvalidDtype / kInvalidShape /
/// kInvalidParam naming out and the op, raised before anything is written. The
/// result is written into it and returned (a tensor sharing out's storage).
Tensor conv(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor* residual, const ConvAttrs& attrs,
            const Tensor* out = nullptr);

/// The channel block C0 of the blocked layout oneDNN's float32 convolutions use on
/// this CPU (8 on AVX2, 16 on AVX-512), found once by asking oneDNN for a typical
/// convolution's preferred destination layout; 0 when it prefers a plain layout.
int preferred_block();

/// Activation by name ("none", "relu", "leaky_relu", "gelu", "gelu_tanh", "silu",
/// "sigmoid", "tanh", "elu", "relu6"); kInvalidParam otherwise.
Activation activation_of(const std::string& name, const std::string& op);

/// (hits, misses) of the process-wide primitive cache (PrimitiveCache), for tests.
/// A steady-state call served whole by the per-call cache (its pieces' primitives and
/// weights resolved once, src/nn/conv.cc CallPlan) counts as one hit.
std::pair<int64_t, int64_t> conv_cache_stats();

/// (hits, misses) of the reordered weight/bias cache (src/nn/onednn.h
/// reordered_const), for tests: a steady-state call with unchanged weights hits.
std::pair<int64_t, int64_t> conv_weight_cache_stats();

/// (calls, transformed-weight cache hits, misses) of the Winograd F(2x2, 3x3) path
/// (float32 3x3 / stride 1 convolutions on AVX2; src/nn/conv_winograd.h), for tests.
std::tuple<int64_t, int64_t, int64_t> conv_winograd_stats();

/// Calls that took the NCHW depthwise 3x3 path (src/nn/conv_depthwise.h), for tests.
int64_t conv_depthwise_calls();

/// Calls that took the direct NCHW stride-2 path (src/nn/conv_direct.h), for tests.
int64_t conv_direct_calls();

}  // namespace asc::nn
