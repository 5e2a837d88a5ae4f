// Direct NCHW convolution for float32 on AVX2 + FMA CPUs (src/nn/conv_direct.cc),
// used by conv() in src/nn/conv.cc for stride-2 convolutions (ResNet's 3x3 / 2 and
// its 7x7 / 2 stem) when ASC_CONV_DIRECT=1: opt-in, because it has not yet measured
// faster than oneDNN (parity single-threaded; docs/nn.md).
//
// Why try: oneDNN 2.6's AVX2 direct kernel works on the channel-blocked nChw8c layout,
// so an NCHW call pays a reorder of the input in and of the output out around the
// kernel (the stem's output conversion was ~20% of its time). This path reads NCHW
// and writes NCHW: packed weight rows of 24/16/8 output channels times one broadcast
// input scalar per output position of a padded input band (12-accumulator FMA
// micro-kernels), written to the output rows through 8x8 transposes with the epilogue
// (bias, residual, activation) fused. Measured at parity with oneDNN, hence still opt-in.
#pragma once

#include <cstdint>

#include "asc/core/tensor.h"
#include "asc/nn/conv.h"

namespace asc::nn::direct {

/// True when conv() should take this path: float32 input, weight, bias and
/// residual; a forward 2-D convolution with one group, dilation 1, equal strides of
/// 2 (stride-1 3x3 has Winograd, stride-1 1x1 oneDNN's GEMM), a kernel of at most
/// 11 x 11; NCHW in and out (no NHWC, no NC1HWC0 operand); activation none, relu,
/// relu6 or leaky_relu; an AVX2 + FMA CPU; and the environment variable
/// ASC_CONV_DIRECT set to "1" (read per call; off by default).
bool eligible(const Tensor& x, const Tensor& w, const ConvAttrs& a);

/// out = act(conv(x, w) + bias + residual) for an eligible call (x, w, b, r
/// contiguous; r NCHW of the output's shape; out may be r's own buffer).
void run(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a, const Tensor& out);

/// Calls that took this path so far, for the tests and the benchmark.
int64_t calls();

}  // namespace asc::nn::direct
