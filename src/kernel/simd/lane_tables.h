// Function-pointer table of lane_ops.cc (LaneOp kernels, Compare, Select) for
// the running Highway target; the mask/repeat engine (repeat.cc) and the
// entry points in include/asc/kernel/simd_lane.h index it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "asc/core/dtype.h"
#include "asc/kernel/simd_lane.h"

namespace asc::kernel::simd {

/// dst, a, b (tensor, scalar pointer or unused), n.
using LaneFn = void (*)(void* dst, const void* a, const void* b, size_t n);
/// bits, a, b (tensor or scalar pointer), n.
using CmpFn = void (*)(uint8_t* bits, const void* a, const void* b, size_t n);
/// dst, bits, a, b (tensor or scalar pointer), n.
using SelFn = void (*)(void* dst, const uint8_t* bits, const void* a, const void* b, size_t n);

constexpr size_t kNumLaneOps = static_cast<size_t>(LaneOp::kCount);
constexpr size_t kNumCmpModes = static_cast<size_t>(CmpMode::kCount);

struct LaneTable {
  LaneFn lane[kNumLaneOps][kNumDTypes] = {};
  CmpFn cmp[kNumCmpModes][kNumDTypes][2] = {};  // [mode][dtype][b is a scalar]
  SelFn sel[2][2] = {};                          // [element size 2: 0, 4: 1][b is a scalar]
};

/// The running target's table (chosen once).
const LaneTable& lane_table();
/// The loop for (op, dtype); throws kInvalidDtype when unsupported.
LaneFn lane_fn(LaneOp op, DType dtype);
CmpFn cmp_fn(CmpMode mode, DType dtype, bool b_scalar);
SelFn sel_fn(DType dtype, bool b_scalar);

}  // namespace asc::kernel::simd
