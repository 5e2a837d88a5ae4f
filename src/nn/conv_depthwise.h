// Depthwise 3x3 convolution on NCHW float32 activations for AVX2 + FMA CPUs
// (src/nn/conv_depthwise.cc), used by conv() in src/nn/conv.cc.
//
// Why: oneDNN 2.6's depthwise kernel (jit_dw) wants the channel-blocked nChw8c
// layout, so an NCHW call pays a reorder in and a reorder out around it -- measured
// at batch 1 (32 channels at 112x112, per piece): reorders 0.04 + 0.06 ms around
// a 0.05 ms kernel. A depthwise convolution is a per-plane stencil: this path runs
// it on the NCHW planes directly, 8 output columns per AVX2 register.
#pragma once

#include <cstdint>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/nn/conv.h"

namespace asc::nn::depthwise {

/// True when conv() should take this path: float32 input, weight, bias and
/// residual; a forward 2-D convolution with groups == input channels == output
/// channels (weight (C, 1, 3, 3)), stride 1 or 2, dilation 1, padding at most 2 on
/// every side; NCHW in and out (no NHWC, no NC1HWC0 operand: oneDNN's blocked
/// kernel needs no reorder there); activation none, relu, relu6 or leaky_relu; an
/// AVX2 + FMA CPU; and the environment variable ASC_CONV_DEPTHWISE not "0".
bool eligible(const Tensor& x, const Tensor& w, const ConvAttrs& a, int64_t c, int64_t oc);

/// out = act(conv(x, w) + bias + residual) for an eligible call (x, w, b, r
/// contiguous; r NCHW of the output's shape; out may be r's own buffer).
void run(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a, const Tensor& out);

/// Calls that took this path so far, for the tests and the benchmark.
int64_t calls();

}  // namespace asc::nn::depthwise
