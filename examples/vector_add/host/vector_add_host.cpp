#include "host/vector_add_host.h"

#include <algorithm>

#include "asc/runtime/launch.h"

namespace vector_add_host {

VectorAddTiling make_tiling(uint64_t n, int num_cores, uint32_t* block_dim) {
  const uint64_t cores = static_cast<uint64_t>(std::max(1, num_cores));
  uint64_t blocks = std::min<uint64_t>(cores, std::max<uint64_t>(1, n / kMinBlockLength));
  // Each block but the last gets a multiple of 8 elements so every block starts
  // 32-byte aligned (DataCopy's rule).
  uint64_t per_block = (n / blocks) / 8 * 8;
  if (per_block == 0) {
    blocks = 1;
    per_block = n;
  }
  *block_dim = static_cast<uint32_t>(blocks);
  return VectorAddTiling{n, per_block, kTileLength};
}

void launch(const float* x, const float* y, float* z, uint64_t n, asc::runtime::Stream* stream) {
  if (n == 0) return;
  uint32_t block_dim = 0;
  VectorAddTiling tiling = make_tiling(n, asc::runtime::current_device().properties().num_cores, &block_dim);
  auto* gx = reinterpret_cast<uint8_t*>(const_cast<float*>(x));
  auto* gy = reinterpret_cast<uint8_t*>(const_cast<float*>(y));
  auto* gz = reinterpret_cast<uint8_t*>(z);
  ACLRT_LAUNCH_KERNEL(vector_add)(block_dim, stream, gx, gy, gz, tiling);
}

}  // namespace vector_add_host
