// Vector instructions beyond the basic element-wise set, and the mask/repeat
// engine: non-template entry points in libasc (the AscendC templates in
// vector_mask.h, compare_select.h and reduce_ext.h call these).
//
// Lane operations (LaneOp) are element-wise like simd::binary(), with one
// signature for every arity: dst, a, b, n, where `b` is a second tensor
// (binary), a pointer to one scalar element (with-scalar) or unused (unary).
// Some read dst as an input (MulAddDst, FusedMulAdd, FusedMulAddRelu, Axpy).
// float16 is computed in float32 and rounded once (nearest-even); the
// multiply-add family multiplies and adds with two float32 roundings (not a
// fused FMA: results do not depend on the CPU's FMA support).
//
// The mask/repeat form (RepeatLayout) processes `repeat` repeats of 256 bytes:
// 8 blocks of 32 bytes, lanes = 256 / sizeof(T) per repeat (64 for 32-bit,
// 128 for 16-bit types). Block k of repeat r of operand j starts at
//   base_j + (r * rep[j] + k * blk[j]) * 32 bytes,
// and lane l of the repeat is element l % (32 / sizeof(T)) of block
// l / (32 / sizeof(T)). Only lanes whose bit is set in mask (bit l of mask[0]
// for l < 64, bit l - 64 of mask[1] above; mask[1] is ignored for 32-bit
// types) are read or written: the other lanes of dst keep their bytes.
// Every repeat reads all of its selected source lanes before writing its
// destination lanes; overlaps between different repeats follow repeat order.
//
// Errors: an unsupported dtype is asc::Error(kInvalidDtype) "[<Op>] dtype ...";
// types other than 2 or 4 bytes in a mask/repeat form are kInvalidDtype too.
//
// Thread-safety: all functions are reentrant; tables are built once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "asc/core/dtype.h"
#include "asc/kernel/simd.h"

namespace asc::kernel::simd {

/// Element-wise operations added for the full vector instruction surface.
enum class LaneOp : uint8_t {
  // dst = f(a, b): int16/uint16/int32/uint32 (And, Or); float32/float16/int16 (AddRelu, SubRelu)
  kAnd,
  kOr,
  kAddRelu,
  kSubRelu,
  // dst = f(a, b, dst): float32/float16
  kMulAddDst,        // a * b + dst
  kFusedMulAdd,      // a * dst + b
  kFusedMulAddRelu,  // relu(a * dst + b)
  // dst = f(a, scalar)
  kLeakyRelu,   // a >= 0 ? a : a * scalar (float32/float16; NaN passes through)
  kShiftLeft,   // int16/uint16/int32/uint32; a shift >= the width gives 0
  kShiftRight,  // logical for unsigned, arithmetic for signed (>= width: 0 or -1)
  kAxpy,        // dst = a * scalar + dst (float32/float16)
  // dst = f(a)
  kNot,         // bitwise not: int16/uint16/int32/uint32
  kReciprocal,  // 1 / a (float32/float16; correctly rounded in float32)
  kRsqrt,       // 1 / sqrt(a) (float32/float16)
  kNeg,         // -a (float32/float16/int16/int32; integers wrap)
  kCount
};
/// "And", "Or", ... (error messages).
const char* op_name(LaneOp op) noexcept;
/// How an op uses its operands.
bool lane_reads_b_tensor(LaneOp op) noexcept;  // b is a tensor (binary and multiply-add family)
bool lane_has_scalar(LaneOp op) noexcept;      // b points to a scalar
bool lane_reads_dst(LaneOp op) noexcept;       // dst is an input as well

/// Count form: n elements (in place allowed).
void lane(LaneOp op, DType dtype, void* dst, const void* a, const void* b, size_t n);
/// Throws what lane() would throw for (op, dtype).
void check_lane(LaneOp op, DType dtype);

/// Mask/repeat layout of one instruction. Strides count 32-byte blocks;
/// operands: 0 = dst, 1 = src0, 2 = src1.
struct RepeatLayout {
  uint64_t mask[2] = {~uint64_t{0}, ~uint64_t{0}};
  uint32_t repeat = 1;
  uint32_t blk[3] = {1, 1, 1};
  uint32_t rep[3] = {8, 8, 8};
};
/// Lanes per repeat for elements of `esize` bytes (256 / esize).
inline uint32_t repeat_lanes(size_t esize) { return static_cast<uint32_t>(256 / esize); }
/// Bytes from operand `which`'s base to the end of its last selected lane
/// (0 when no lane is selected or repeat == 0). For bounds checks.
uint64_t repeat_extent(const RepeatLayout& l, int which, size_t esize);
/// The selected lane mask for a count-style mask value (the first `count` lanes).
void mask_from_count(uint64_t count, uint64_t mask[2]);

/// Mask/repeat forms. `scalar` points to one element of dtype.
void binary_repeat(BinaryOp op, DType dtype, void* dst, const void* a, const void* b, const RepeatLayout& l);
void scalar_repeat(ScalarOp op, DType dtype, void* dst, const void* src, const void* scalar, const RepeatLayout& l);
void unary_repeat(UnaryOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l);
void lane_repeat(LaneOp op, DType dtype, void* dst, const void* a, const void* b, const RepeatLayout& l);
/// dst selected lanes = *scalar (operand 0's strides).
void duplicate_repeat(DType dtype, void* dst, const void* scalar, const RepeatLayout& l);

// ---------------------------------------------------------------- compare / select

/// Compare modes (values as AscendC::CMPMODE).
enum class CmpMode : uint8_t { kLT = 0, kGT, kEQ, kLE, kGE, kNE, kCount };
const char* cmp_mode_name(CmpMode m) noexcept;
/// bits[i / 8] bit (i % 8) = a[i] <mode> b[i] for i < n (little-endian bit
/// order); the unused high bits of the last byte are written as 0. NaN
/// compares false except with NE. Dtypes: float32, float16, int16, uint16,
/// int32, uint32. `b_scalar`: b points to one element compared with every a[i].
void compare(CmpMode mode, DType dtype, uint8_t* bits, const void* a, const void* b, size_t n, bool b_scalar);
/// Throws what compare() would throw for (mode, dtype).
void check_compare(CmpMode mode, DType dtype, bool b_scalar);
/// Mask/repeat form: repeat r writes its lanes' bits to bits + r * lanes / 8
/// (the destination is contiguous, as on the hardware); unselected lanes keep
/// their bits. Operand 0's strides are unused.
void compare_repeat(CmpMode mode, DType dtype, uint8_t* bits, const void* a, const void* b, bool b_scalar,
                    const RepeatLayout& l);
/// dst[i] = bit i of bits ? a[i] : b[i] (b_scalar: *b) for any 2- or 4-byte dtype.
void select(DType dtype, void* dst, const uint8_t* bits, const void* a, const void* b, size_t n, bool b_scalar);
/// Mask/repeat form of select; the selection bits of repeat r start at bits +
/// r * lanes / 8, or at `bits` for every repeat when `same_bits_each_repeat`.
void select_repeat(DType dtype, void* dst, const uint8_t* bits, const void* a, const void* b, bool b_scalar,
                   bool same_bits_each_repeat, const RepeatLayout& l);

}  // namespace asc::kernel::simd
