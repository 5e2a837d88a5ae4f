// The per-target table of the vector math loops (src/kernel/simd/math.cc),
// indexed by operation and dtype; a null slot means "not supported".
#pragma once

#include "kernel/simd/tables.h"

namespace asc::kernel::simd {

constexpr size_t kNumMathOps = static_cast<size_t>(MathOp::kCount);
constexpr size_t kNumMathBinaryOps = static_cast<size_t>(MathBinaryOp::kCount);
constexpr size_t idx(MathOp o) { return static_cast<size_t>(o); }
constexpr size_t idx(MathBinaryOp o) { return static_cast<size_t>(o); }

struct MathTable {
  MathUnaryFn unary[kNumMathOps][kDT] = {};
  MathBinaryFn binary[kNumMathBinaryOps][kDT] = {};
};

}  // namespace asc::kernel::simd
