// Host side of the vector_add operator: tiling and launch.
#pragma once

#include <cstdint>

#include "asc/runtime/stream.h"
#include "kernels/vector_add_tiling.h"

extern "C" void vector_add(uint8_t* x, uint8_t* y, uint8_t* z, VectorAddTiling tiling);

namespace vector_add_host {

/// Elements per UB tile: 3 queues x 2 buffers x 16 KiB = 96 KiB of the 192 KiB UB.
constexpr uint32_t kTileLength = 4096;
/// Below this many elements per block, splitting across more cores costs more than it gains.
constexpr uint64_t kMinBlockLength = 16384;

/// blockDim and per-block lengths for `n` elements on `num_cores` cores.
VectorAddTiling make_tiling(uint64_t n, int num_cores, uint32_t* block_dim);

/// Enqueues z = x + y (n float32 elements) on `stream`; asynchronous.
/// n == 0 enqueues nothing.
void launch(const float* x, const float* y, float* z, uint64_t n, asc::runtime::Stream* stream);

}  // namespace vector_add_host
