// Register-level evaluation of float32 elementwise chains (tables.h, "chains";
// used by the fused tile programs of src/graph/program.cc).
//
// Included by math.cc once per Highway target, after its vector functors: a
// chain's math instructions call the SAME functors (ErfF, ExpF, ...) as the
// standalone kernels of the math table, compiled in the same translation unit
// with the same flags, so their results are bit-identical. The arithmetic
// instructions are single Highway operations (hn::Add/Sub/Mul/Div/Neg/Abs), the
// same instructions as elementwise.cc's loops and the ops layer's scalar loops.
//
// Why: a fused program used to run each instruction as a call of its inner
// loop over a 384-element sub-tile in the UB; cheap instructions (x * 0.5,
// 1 + e) then cost a call through the ops layer's loop, a stride check, a table
// dispatch and a load/load/store pass each. Here one switch per instruction
// covers a block of kChainBlock elements, temporaries live in a register file
// of such blocks on the stack (L1), and only the chain's live-out values are
// stored to their destinations. Each instruction runs in its own switch case on values that went
// through memory, so the compiler cannot contract a multiply and a following
// add into an FMA (which would change the rounding).
//
// Included once per target by foreach_target.h (hence the toggle guard).

#if defined(ASC_KERNEL_SIMD_CHAIN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ASC_KERNEL_SIMD_CHAIN_INL_H_
#undef ASC_KERNEL_SIMD_CHAIN_INL_H_
#else
#define ASC_KERNEL_SIMD_CHAIN_INL_H_
#endif

#include <atomic>
#include <cstring>

#include <hwy/highway.h>

#include "kernel/simd/gelu_loop.h"
#include "kernel/simd/tables.h"

// Math ops whose float32 kernel runs in float32 lanes (NativeIO<float> in
// math.cc's table). tan, cbrt and the gelus compute float32 in float64 lanes:
// not chained (their loop stays a separate instruction).
#define ASC_CHAIN_MATH_OPS(X)                                                                              \
  X(kExp, ExpF) X(kExp2, Exp2F) X(kExpm1, Expm1F) X(kLog, LogF) X(kLog2, Log2F) X(kLog10, Log10F)           \
  X(kLog1p, Log1pF) X(kSin, SinF) X(kCos, CosF) X(kArcsin, ArcsinF) X(kArccos, ArccosF) X(kArctan, ArctanF) \
  X(kSinh, SinhF) X(kCosh, CoshF) X(kTanh, TanhF) X(kArcsinh, ArcsinhF) X(kArccosh, ArccoshF)               \
  X(kArctanh, ArctanhF) X(kSqrt, SqrtF) X(kRsqrt, RsqrtF) X(kSigmoid, SigmoidF) X(kErf, ErfF) X(kErfc, ErfcF)

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements per block: each instruction runs over a block before the next one
// starts (one switch per instruction and block). 128 float32 = 16 AVX2
// vectors: a register file of a few such blocks stays in L1, and a math
// instruction's loop keeps its constants in registers over 16 vectors.
// Measured (2^24 float32, CustomGeLU and (x*2+1)*y - x/3, chain vs node by
// node, CPU time, load ~15): 32 elements 0.72x / 1.02x, 64 0.91x / 1.27x,
// 128 1.08x / 1.24x, 256 0.87x / 0.87x, 384 0.82x / 1.05x. At 32 (4 vectors,
// the math functor inlined per vector group) erf lost its hoisted constants.
constexpr size_t kChainBlock = 128;

// A math instruction: the standalone kernel's own loop (UnaryLoop over the
// functor, inlined) over the block: the same vectors, the same zero-padded
// partial last vector, so the same results.
template <class Op>
HWY_INLINE void ChainMathRun(const float* a, float* o, size_t n) {
  UnaryLoop<NativeIO<float>, Op>(o, a, n);
}

HWY_INLINE void ChainMath(MathOp m, const float* a, float* o, size_t n) {
  switch (m) {
#define ASC_X(OP, F) \
  case MathOp::OP: return ChainMathRun<F>(a, o, n);
    ASC_CHAIN_MATH_OPS(ASC_X)
#undef ASC_X
    default: return;  // chain_math_supported() is checked when a chain is formed
  }
}

// Arithmetic over the block's vectors (the caller pads the inputs of a partial
// block: no access past a register's kChainBlock floats).
#define ASC_CHAIN_BINARY(EXPR)                                                     \
  for (size_t j = 0; j < nv; j += N) {                                             \
    const auto va = hn::LoadU(d, a + j), vb = hn::LoadU(d, b + j);                 \
    hn::StoreU(EXPR, d, o + j);                                                    \
  }                                                                                \
  break;
#define ASC_CHAIN_UNARY(EXPR)                                                      \
  for (size_t j = 0; j < nv; j += N) {                                             \
    const auto va = hn::LoadU(d, a + j);                                           \
    hn::StoreU(EXPR, d, o + j);                                                    \
  }                                                                                \
  break;

// Every instruction over one block of n <= kChainBlock elements; p[r]: register
// r's memory (an input's or output's, or a row of the stack file), readable
// for whole vectors up to n rounded up.
HWY_INLINE void ChainBlock(const ChainCode& c, float* const* p, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t nv = (n + N - 1) / N * N;
  for (int k = 0; k < c.ninst; ++k) {
    const ChainInst& t = c.inst[k];
    float* o = p[t.dst];
    const float* a = p[t.a];
    const float* b = p[t.b];
    switch (t.op) {
      case ChainOp::kAdd: ASC_CHAIN_BINARY(hn::Add(va, vb))
      case ChainOp::kSub: ASC_CHAIN_BINARY(hn::Sub(va, vb))
      case ChainOp::kMul: ASC_CHAIN_BINARY(hn::Mul(va, vb))
      case ChainOp::kDiv: ASC_CHAIN_BINARY(hn::Div(va, vb))
      case ChainOp::kNeg: ASC_CHAIN_UNARY(hn::Neg(va))
      case ChainOp::kAbs: ASC_CHAIN_UNARY(hn::Abs(va))
      case ChainOp::kSquare: ASC_CHAIN_UNARY(hn::Mul(va, va))
      case ChainOp::kMath: ChainMath(t.math, a, o, n); break;
    }
  }
}
#undef ASC_CHAIN_BINARY
#undef ASC_CHAIN_UNARY

void RunChainF32(const ChainCode& c, const void* const* in, const uint8_t* in_scalar, void* const* out, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t B = kChainBlock / N * N;
  // The register file; scalars are expanded into theirs once per call.
  alignas(64) float file[kChainMaxRegs][kChainBlock];
  float* p[kChainMaxRegs];
  const int nreg = c.nin + c.ninst;
  for (int r = 0; r < nreg; ++r) p[r] = file[r];
  for (int k = 0; k < c.nin; ++k) {
    if (!in_scalar[k]) continue;
    float v;
    std::memcpy(&v, in[k], sizeof v);
    for (size_t j = 0; j < B; j += N) hn::StoreU(hn::Set(d, v), d, file[k] + j);
  }
  size_t i = 0;
  for (; i + B <= n; i += B) {
    for (int k = 0; k < c.nin; ++k)
      if (!in_scalar[k]) p[k] = const_cast<float*>(static_cast<const float*>(in[k])) + i;
    for (int k = 0; k < c.nout; ++k) p[c.out_reg[k]] = static_cast<float*>(out[k]) + i;
    ChainBlock(c, p, B);
  }
  if (i == n) return;
  // The tail: inputs copied into zero-padded registers, outputs computed in the
  // file and copied out (no access past element n). Arithmetic lanes past n
  // hold values of the padding; a math instruction's loop gets the true count
  // and pads its own partial vector with zeros, as the standalone loop does.
  const size_t rem = n - i;
  for (int k = 0; k < c.nin; ++k) {
    if (in_scalar[k]) continue;
    p[k] = file[k];
    std::memset(file[k], 0, B * sizeof(float));
    std::memcpy(file[k], static_cast<const float*>(in[k]) + i, rem * sizeof(float));
  }
  for (int k = 0; k < c.nout; ++k) p[c.out_reg[k]] = file[c.out_reg[k]];
  ChainBlock(c, p, rem);
  for (int k = 0; k < c.nout; ++k)
    std::memcpy(static_cast<float*>(out[k]) + i, file[c.out_reg[k]], rem * sizeof(float));
}

const ChainFn* GetChainF32() {
  static const ChainFn fn = &RunChainF32;
  return &fn;
}

// ---------------------------------------------------------------- the gelu pass's kernel
// The lazy graph's gelu pass (src/graph/passes.cc) replaces an erf/tanh GeLU
// subgraph by one node running the kernel of the built-in asc.ops.gelu through
// the per-range entry src/nn/activation.cc registers (register_gelu_range in
// gelu_loop.h; code 0 = float32, stream = no streaming stores: the tile program
// stages long outputs itself). The entry dispatches to the same target as the
// built-in, so a node's values are the built-in's bit for bit (same vectors: the
// kernel computes each vector of 8/16 lanes by itself; see docs/custom_ops.md
// for the one case where vector boundaries can differ). Why not nn::gelu(): it
// allocates its own output tensor, and the graph would then copy the result
// into the node's storage (one more read and write of the whole array).

template <bool kTanh>
void GeluLoopT(char** p, const int64_t* s, int64_t n) {
  constexpr int64_t kF = sizeof(float);
  const GeluRangeFn gelu_range = ::asc::kernel::simd::registered_gelu_range();
  if (s[0] == kF && s[1] == kF) return gelu_range(0, kTanh, p[1], p[0], 0, n, false);
  // Other strides (a stride-0 input, a strided output: the fallback paths of a
  // tile program) go through contiguous blocks on the stack.
  alignas(64) float in[kChainBlock], out[kChainBlock];
  for (int64_t i = 0; i < n; i += static_cast<int64_t>(kChainBlock)) {
    const int64_t m = n - i < static_cast<int64_t>(kChainBlock) ? n - i : static_cast<int64_t>(kChainBlock);
    for (int64_t j = 0; j < m; ++j) std::memcpy(&in[j], p[1] + (i + j) * s[1], sizeof(float));
    gelu_range(0, kTanh, in, out, 0, m, false);
    for (int64_t j = 0; j < m; ++j) std::memcpy(p[0] + (i + j) * s[0], &out[j], sizeof(float));
  }
}

GeluLoop GetGeluLoop(bool tanh_form) {
  if (!::asc::kernel::simd::registered_gelu_range()) return nullptr;  // not registered (see above)
  return tanh_form ? &GeluLoopT<true> : &GeluLoopT<false>;
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::kernel::simd {

namespace {
std::atomic<GeluRangeFn> g_gelu_range{nullptr};
}  // namespace

void register_gelu_range(GeluRangeFn fn) noexcept { g_gelu_range.store(fn, std::memory_order_release); }
GeluRangeFn registered_gelu_range() noexcept { return g_gelu_range.load(std::memory_order_acquire); }

HWY_EXPORT(GetChainF32);
HWY_EXPORT(GetGeluLoop);

GeluLoop native_gelu_loop(bool tanh_form) noexcept {
  static const bool once = (apply_target_override(), true);
  (void)once;
  return HWY_DYNAMIC_DISPATCH(GetGeluLoop)(tanh_form);
}

ChainFn chain_fn(DType dtype) noexcept {
  if (dtype != DType::kFloat32) return nullptr;
  static const ChainFn fn = (apply_target_override(), *HWY_DYNAMIC_DISPATCH(GetChainF32)());
  return fn;
}

bool chain_math_supported(MathOp op) noexcept {
  switch (op) {
#define ASC_X(OP, F) case MathOp::OP:
    ASC_CHAIN_MATH_OPS(ASC_X)
#undef ASC_X
    return true;
    default: return false;
  }
}

}  // namespace asc::kernel::simd
#endif  // HWY_ONCE
#endif  // toggle guard
