// SIMD kernels of the bitwise ops (src/ops/bitwise.cc): and/or/xor, left and
// right shifts, invert and bitwise_count over contiguous runs, compiled for
// every Highway target and picked at run time (dynamic dispatch,
// ASC_SIMD_TARGET honoured). Results equal NumPy 2.4's loops on every target:
//
// * and/or/xor/invert of bool treat any nonzero byte as true and store 0/1.
// * Shift counts are compared as the unsigned type of the operands' width:
//   a count >= the width, or a negative count, shifts everything out:
//   left_shift gives 0, right_shift gives -1 for negative signed values and
//   0 otherwise (NumPy's npy_lshift/npy_rshift).
// * bitwise_count is the number of one bits of |x| (as NumPy), as uint8.
//
// Thread-safety: pure functions of their arguments; callers own the buffers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "asc/core/dtype.h"

namespace asc::ops::bitwise {

enum class BinOp : int { kAnd, kOr, kXor, kLeftShift, kRightShift };

/// Which operand of a binary kernel is a single value (read once, broadcast).
enum class Form : int { kVecVec, kVecScalar, kScalarVec };

/// dst[i] = a[i] op b[i] for n elements of `dtype` (bool or an integer type;
/// shifts: integers only). With kVecScalar b (with kScalarVec a) points to one
/// element. dst may equal a or b. Returns false (nothing written) for a dtype
/// the kernel does not take.
bool binary(BinOp op, DType dtype, Form form, void* dst, const void* a, const void* b, size_t n);
/// dst[i] = ~src[i] (bool: !src[i]). false for an unsupported dtype.
bool invert(DType dtype, void* dst, const void* src, size_t n);
/// dst[i] = popcount(|src[i]|) for integer `dtype`. false for an unsupported dtype.
bool count(DType dtype, uint8_t* dst, const void* src, size_t n);
/// The Highway target these entry points run on now (e.g. "AVX2").
const char* target_name();

}  // namespace asc::ops::bitwise
