// SIMD pieces of the random ops (src/ops/random.cc): Philox-4x32-10 over many
// counter blocks at once (one counter per lane) and the conversions of raw
// words to distributions, compiled for every Highway target and picked at run
// time (dynamic dispatch, ASC_SIMD_TARGET honoured). Every function gives
// bit-identical results on every target: Philox is integer arithmetic, and
// the float conversions use only exactly rounded operations (int->float
// conversion, mul, add, sqrt; never a fused multiply-add), in the same order
// as the scalar formulas of random.cc.
//
// Thread-safety: pure functions of their arguments; callers own the buffers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace asc::ops::rng {

/// The constant part of a Philox stream: key (k0, k1) and the upper counter
/// words (s0, s1: the stream id).
struct PhiloxKey {
  uint32_t k0, k1, s0, s1;
};

/// out[4 b + j] = word j of Philox-4x32-10 applied to counter block
/// (lo32(first + b), hi32(first + b), s0, s1) under (k0, k1), b < nblocks.
void philox_blocks(const PhiloxKey& key, uint64_t first, size_t nblocks, uint32_t* out);

/// out[i] = low + width * ((x[i] >> 11) * 2^-53) (float64, mul then add).
void unit_f64(const uint64_t* x, double* out, size_t n, double low, double width);
/// out[i] = (x[i] >> 8) * 2^-24 (float32 in [0, 1)).
void unit_f32(const uint32_t* x, float* out, size_t n);
/// out[i] = low + floor(x[i] * range / 2^64) (wrapping add), range < 2^32.
void bounded_u64(const uint64_t* x, uint64_t* out, size_t n, uint64_t low, uint64_t range);
/// Box-Muller inputs of nblocks 128-bit blocks (x = two uint64 per block):
/// u1[b] = ((x[2b] >> 11) + 1) * 2^-53 in (0, 1], t[b] = 2 pi ((x[2b+1] >> 11) * 2^-53).
void box_muller_inputs(const uint64_t* x, double* u1, double* t, size_t nblocks);
/// With lg = log(u1), c = cos(t), s = sin(t) per block:
/// out[2b] = loc + scale * (r c), out[2b+1] = loc + scale * (r s), r = sqrt(-2 lg).
void box_muller_finish(const double* lg, const double* c, const double* s, double* out, size_t nblocks, double loc,
                       double scale);

}  // namespace asc::ops::rng
