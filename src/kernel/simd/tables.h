// Function-pointer tables filled per Highway target (see elementwise.cc and
// convert_reduce.cc). The entry points in include/asc/kernel/simd.h index them
// by operation and dtype; a null slot means "not supported".
#pragma once

#include <cstddef>

#include "asc/core/dtype.h"
#include "asc/kernel/simd.h"

namespace asc::kernel::simd {

using BinaryFn = void (*)(void* dst, const void* a, const void* b, size_t n);
using ScalarFn = void (*)(void* dst, const void* src, const void* scalar, size_t n);
using UnaryFn = void (*)(void* dst, const void* src, size_t n);
using FillFn = void (*)(void* dst, const void* scalar, size_t n);
using CopyFn = void (*)(void* dst, const void* src, size_t bytes);
using CastFn = void (*)(void* dst, const void* src, size_t n, RoundMode mode);
using ReduceFn = void (*)(void* dst, const void* src, size_t n, bool with_index);

constexpr size_t kNumBinaryOps = static_cast<size_t>(BinaryOp::kCount);
constexpr size_t kNumScalarOps = static_cast<size_t>(ScalarOp::kCount);
constexpr size_t kNumUnaryOps = static_cast<size_t>(UnaryOp::kCount);
constexpr size_t kNumReduceOps = static_cast<size_t>(ReduceOp::kCount);
constexpr size_t kDT = static_cast<size_t>(kNumDTypes);

constexpr size_t idx(DType d) { return static_cast<size_t>(d); }
constexpr size_t idx(BinaryOp o) { return static_cast<size_t>(o); }
constexpr size_t idx(ScalarOp o) { return static_cast<size_t>(o); }
constexpr size_t idx(UnaryOp o) { return static_cast<size_t>(o); }
constexpr size_t idx(ReduceOp o) { return static_cast<size_t>(o); }

struct ElementwiseTable {
  BinaryFn binary[kNumBinaryOps][kDT] = {};
  ScalarFn scalar[kNumScalarOps][kDT] = {};
  UnaryFn unary[kNumUnaryOps][kDT] = {};
  FillFn fill[4] = {};  // by log2(element size): 1, 2, 4, 8 bytes
  CopyFn stream_copy = nullptr;
  const char* target = "";
};

struct ConvertReduceTable {
  CastFn cast[kDT][kDT] = {};  // [dst][src]
  ReduceFn reduce[kNumReduceOps][kDT] = {};
};

/// Scalar reference conversion of one element through double (used where the
/// SIMD path would round twice, e.g. int32 -> float32 with a directed mode).
void cast_scalar(DType dst_dtype, DType src_dtype, RoundMode mode, void* dst, const void* src, size_t n);

[[noreturn]] void throw_unsupported(const char* op, DType dtype);

/// The running target's table (copy elision reads its loops directly).
const ElementwiseTable& elementwise_table();
/// The loop for (op, dtype) of the running target; throws kInvalidDtype like
/// binary() / binary_scalar() / unary() when the dtype is not supported
/// (copy elision validates an instruction when it is issued, runs it later).
BinaryFn binary_fn(BinaryOp op, DType dtype);
ScalarFn scalar_fn(ScalarOp op, DType dtype);
UnaryFn unary_fn(UnaryOp op, DType dtype);
/// memcpy with non-temporal (cache-bypassing) stores for the aligned middle;
/// call stream_fence() before other threads may read dst.
void stream_copy(void* dst, const void* src, size_t bytes);
/// Orders the non-temporal stores before later stores (SFENCE on x86).
void stream_fence();
/// Throws what cast() would throw for these dtypes and mode.
void check_cast(DType dst_dtype, DType src_dtype, RoundMode mode);

// ---------------------------------------------------------------- chains
// Register-level evaluation of a chain of elementwise instructions of a fused
// tile program (src/graph/program.cc): block by block (128 elements), every
// instruction of the chain runs on a register file of blocks on the stack (L1)
// instead of one inner-loop call per instruction streaming a sub-tile through
// the UB; only the chain's live-out values are stored. Evaluated by
// chain-inl.h inside math.cc's translation unit, so that math instructions run
// the very loops and functors of the standalone kernels (bit-identical).

/// Instructions of a chain. kMath: the float32 kernel of MathOp `math`.
enum class ChainOp : uint8_t { kAdd, kSub, kMul, kDiv, kNeg, kAbs, kSquare, kMath };

constexpr int kChainMaxInsts = 24;
constexpr int kChainMaxIn = 8;
constexpr int kChainMaxOut = 8;
constexpr int kChainMaxRegs = kChainMaxIn + kChainMaxInsts;

/// dst = op(a, b) over chain registers: 0 .. nin-1 are the inputs, nin + k the
/// value of instruction k (single assignment).
struct ChainInst {
  ChainOp op = ChainOp::kAdd;
  MathOp math = MathOp::kExp;
  uint8_t dst = 0, a = 0, b = 0;
};

struct ChainCode {
  int nin = 0, nout = 0, ninst = 0;
  uint8_t out_reg[kChainMaxOut] = {};  // the registers stored to out[0 .. nout-1]
  ChainInst inst[kChainMaxInsts];
};

/// Evaluates `code` over n elements: in[k] contiguous (or one value for all
/// elements where in_scalar[k]), out[k] contiguous. Lanes are grouped into
/// vectors from element 0 as by the standalone loops, and a math instruction
/// runs the standalone loop itself over each block (its zero-padded partial
/// last vector included), so every result equals the per-instruction one bit
/// for bit (the sign/payload of a NaN met by another NaN aside: see
/// docs/custom_ops.md).
using ChainFn = void (*)(const ChainCode& code, const void* const* in, const uint8_t* in_scalar, void* const* out,
                         size_t n);
/// The running target's evaluator for chains of `dtype` (float32), else null.
ChainFn chain_fn(DType dtype) noexcept;
/// Whether chains evaluate MathOp `op` (float32 kernels computed in float32 lanes).
bool chain_math_supported(MathOp op) noexcept;

/// Applies ASC_SIMD_TARGET (AVX3, AVX2, SSE4 or SCALAR: the best target the
/// tables may use; for testing the fallback paths). Call before dispatching.
void apply_target_override();

}  // namespace asc::kernel::simd
