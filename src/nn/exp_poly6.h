// Degree-6 float32 exp polynomial shared by the nn kernels (src/nn/softmax.cc rows,
// src/nn/activation.cc gelu): exp(r) = 1 + r + r^2 P(r) for the reduced argument
// |r| <= ln2 / 2, P of degree 4 (one degree below kernel/simd/exp_f32-inl.h's P, one FMA
// fewer per vector). Fitted (iteratively reweighted least squares towards the minimax
// relative error of exp(r) - 1, float64 against numpy.expm1, coefficients rounded to float32):
// the error of exp(r) - 1 is <= 1.7e-8 of its value, i.e. <= 0.17 ulp of exp(r) itself.
#pragma once

namespace asc::nn::detail {
// P's coefficients, constant term first
constexpr float kExpP6[5] = {0.4999999701976776f, 0.1666654348373413f, 0.04166720062494278f, 0.008366547524929047f,
                             0.0013882515486329794f};
}  // namespace asc::nn::detail
