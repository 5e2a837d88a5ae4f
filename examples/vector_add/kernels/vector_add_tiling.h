// Tiling shared by the vector_add host launcher and kernel.
#pragma once
#include <cstdint>

struct VectorAddTiling {
  uint64_t totalLength;  // elements in x, y, z
  uint64_t blockLength;  // elements per block (a multiple of 8 = 32 bytes; the last block takes the rest)
  uint32_t tileLength;   // elements per UB tile (a multiple of 8)
};
