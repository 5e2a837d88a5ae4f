// Normalisation operators of asc.ops (batch / layer / group / instance / RMS /
// local-response norms and the fused image normalisation), CPU device.
//
// Calls take C++ tensors of any strides (non-contiguous inputs are copied to C
// order once) and return new C-contiguous tensors from the device pool in the
// input's dtype. Floating dtypes only: float32 and float64, float16 / bfloat16
// computed in float32 (float lanes with sums added in double; float64 in float64).
//
// Engine: the own kernels of src/nn/norm.cc and the SIMD rows / spans of
// src/nn/norm_rows.cc (two-pass statistics with the second pass from cache, one pass
// for the affine output); ASC_NN_LNORM_ONEDNN=1 sends float32 / bfloat16 layer_norm to
// oneDNN's layer_normalization primitive for comparisons (see docs/nn.md).
//
// Errors (asc::Error): kInvalidDtype for a non-floating input or parameter,
// kInvalidShape for weight/bias/running-stat shapes that do not match, kInvalidParam
// for bad attributes (num_groups not dividing C, eps < 0, size <= 0, ...). Every
// message starts with "[<op>]" and names the offending shapes/values.
//
// Thread-safety: every function may be called concurrently from several threads;
// batch_norm / instance_norm with training / use_input_stats write running_mean
// and running_var in place (callers must not share those between concurrent calls).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::nn {

/// Attributes of the normalisation family (typed, not ops::Attrs).
struct NormAttrs {
  double eps = 1e-5;
  double momentum = 0.1;     // running = (1 - momentum) * running + momentum * batch
  bool training = false;     // batch_norm: batch statistics; instance_norm: use_input_stats
  int64_t num_groups = 1;    // group_norm
  int64_t normalized_ndim = 1;  // layer_norm / rms_norm: trailing axes normalised
};

/// torch.nn.functional.batch_norm on x (N, C, *) (or (N, C)). Inference
/// (training=false) uses running_mean/running_var (required); training computes the
/// biased batch statistics over N and the spatial axes, normalises with them and,
/// when given, updates the running statistics in place with the unbiased variance.
/// Optional tensors are null. All per-channel tensors have shape (C,).
Tensor batch_norm(const Tensor& x, const Tensor* running_mean, const Tensor* running_var, const Tensor* weight,
                  const Tensor* bias, const NormAttrs& attrs);

/// torch.nn.functional.layer_norm: statistics over the last attrs.normalized_ndim
/// axes; weight/bias (optional) have the shape of those axes.
Tensor layer_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, const NormAttrs& attrs);

/// torch.nn.functional.group_norm on x (N, C, *): attrs.num_groups groups of C/G
/// channels; weight/bias of shape (C,).
Tensor group_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, const NormAttrs& attrs);

/// torch.nn.functional.instance_norm on x (N, C, *): per-(n, c) statistics when
/// attrs.training (use_input_stats), updating the running statistics (if given)
/// with their batch mean; running statistics otherwise.
Tensor instance_norm(const Tensor& x, const Tensor* running_mean, const Tensor* running_var, const Tensor* weight,
                     const Tensor* bias, const NormAttrs& attrs);

/// torch.nn.functional.rms_norm (torch 2.4): x * rsqrt(mean(x^2) + eps) * weight over
/// the last attrs.normalized_ndim axes. eps < 0 means torch's default
/// (the machine epsilon of x's dtype).
Tensor rms_norm(const Tensor& x, const Tensor* weight, const NormAttrs& attrs);

/// torch.nn.functional.local_response_norm over axis 1 of x (N, C, *):
/// x / (k + alpha / size * sum_{window of `size` channels} x^2) ^ beta, the window
/// [c - size/2, c + (size-1)/2] zero padded (torch's formula).
Tensor local_response_norm(const Tensor& x, int64_t size, double alpha, double beta, double k);

/// Per-channel image normalisation fused with the layout and dtype conversion:
/// out = (x * scale - mean[c]) / std[c] in one pass. `layout` and `out_layout` are
/// permutations of "CHW" or "NCHW" (e.g. "HWC", "NHWC"); mean/std have C entries
/// (or one). out_dtype is a floating dtype. x may be any real dtype (uint8 images).
Tensor normalize_image(const Tensor& x, const std::vector<double>& mean, const std::vector<double>& std,
                       const std::string& layout, const std::string& out_layout, DType out_dtype, double scale);

}  // namespace asc::nn
