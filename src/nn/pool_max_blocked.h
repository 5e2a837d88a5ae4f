// The SIMD rows of the NC1HWC0 max pool (src/nn/pool_max_blocked.cc), for pool.cc.
#pragma once

#include <cstdint>

namespace asc::nn::detail {

/// One output row (od, oh) of one plane of a float32 blocked max pool with C0 = 8
/// or 16 lanes, on the CPU's best Highway target; NaN propagates. Spatial arrays
/// are the padded-to-3 ones of max_pool_blocked (input/output extents, kernel,
/// stride, left pads, dilation). Returns false (writing nothing) for other C0.
/// Thread-safe: rows may run concurrently on disjoint outputs.
bool max_pool_blocked_row_f32(int64_t c0, const float* xp, float* yp, const int64_t* in, const int64_t* out,
                              const int64_t* k, const int64_t* s, const int64_t* pl, const int64_t* dl, int64_t od,
                              int64_t oh);

}  // namespace asc::nn::detail
