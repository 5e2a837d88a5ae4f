// Winograd F(2x2, 3x3) convolution for float32 3x3 / stride 1 convolutions on
// AVX2 + FMA CPUs (src/nn/conv_winograd.cc), used by conv() in src/nn/conv.cc.
//
// Why: oneDNN 2.6 has Winograd kernels only for AVX-512; on AVX2 its direct JIT
// kernel does 9 multiply-adds per output and input channel. F(2x2, 3x3) does 4
// (16 per 2x2 output tile): ResNet's 3x3 convolutions at 56x56, 28x28 and 14x14 ran
// 1.4-1.9x faster than the direct kernel (CPU time; not at 7x7, where the transformed
// weights outweigh the work).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/nn/conv.h"

namespace asc::nn::winograd {

/// True when conv() should take the Winograd path for this call: float32 input,
/// weight, bias and residual; a forward 2-D 3x3 convolution with stride 1,
/// dilation 1, one group; NCHW or NC1HWC0 with C0 = 8 (in and out independently);
/// input and output channels multiples of 8; at least 16 input channels; an output
/// of at least 14x14 positions (at 7x7 the transformed weights, 16/9 of the
/// originals, outweigh the saving: 0.76-0.95x the direct kernel at 512 channels;
/// ASC_CONV_WINOGRAD_MIN_HW overrides, tuning only); activation none, relu, relu6
/// or leaky_relu; an AVX2 + FMA CPU; and the environment variable ASC_CONV_WINOGRAD
/// not "0".
bool eligible(const Tensor& x, const Tensor& w, const ConvAttrs& a, int64_t c, int64_t k,
              const std::vector<int64_t>& out);

/// out = act(conv(x, w) + bias + residual) for an eligible call (x, w, b, r
/// contiguous; r has the output's shape and layout). `out` is the output tensor
/// (may be r's own buffer when the caller gives the residual up).
void run(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a, const Tensor& out);

/// The transformed weights' cache (hits, misses), for the tests.
std::pair<int64_t, int64_t> weight_cache_stats();
/// Calls that took the Winograd path so far, for the tests and the benchmark.
int64_t calls();

}  // namespace asc::nn::winograd
