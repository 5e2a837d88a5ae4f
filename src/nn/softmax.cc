// softmax / log_softmax kernels (include/asc/nn/softmax.h), Highway dynamic dispatch.
//
// Contiguous rows (softmax over the last axis, or any axis whose trailing axes have
// size 1): three passes over each row, one from memory and two from cache:
//   1. max and min, 2. e = exp(x - max) summed (softmax keeps e in a per-thread float
//   scratch row, so pass 3 needs no second exp), 3. y = e * (1 / sum), or
//   y = (x - max) - log(sum). Rows longer than the scratch recompute exp in pass 3.
// When min - max >= -87 (float32 rows of ordinary data) every exp is a normal number and
// pass 2 runs ExpRowF32 with no per-vector range test; otherwise ExpNonPos (which tests
// each vector and handles tiny, zero and NaN results). A NaN in the row needs no test in
// pass 1: its exp is NaN on both paths, so the sum and every output of the row are NaN.
// Measured per element (one thread, AVX2): pass 2 is ~70% of the kernel; this form has
// ~16 vector operations per 8 lanes in pass 2 and ~2 in pass 1 against ~21 and ~4 before
// (NaN flags, sign xor, range test and spills in the loop).
// Measured (benchmarks/bench_nn_act.py): an online one-pass max+sum needs a second exp
// per element (the rescale) and gains nothing for rows that fit in L1/L2, which is
// what softmax rows are in practice; the row is read from memory once either way.
// Large outputs are written with streaming (non-temporal) stores, so the output costs
// one write instead of a read-for-ownership plus a write.
//
// Strided case (the axis has trailing axes of size `inner` > 1): a slab (n, w) of w
// adjacent inner columns is processed with per-column max/sum vectors. PackedT copies
// the slab into a contiguous buffer (half an L2) on the one read of x, so passes 2-3
// run from cache whatever the row stride; SlabT (passes in place, w chosen so the slab
// stays in L2) is kept for axes too long for a packed slab of 16 columns (16 MiB).
//
// Special values: a max of +-inf (a +inf entry, or only -inf entries) turns the row's max
// into NaN, which the later passes propagate, and a NaN entry makes the sum NaN: the whole
// row is NaN, as torch's formula gives. exp(-inf) = 0 (our exp clamps below the
// underflow point), so -inf entries of finite rows give 0 / -inf.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/softmax.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "kernel/simd/exp_f32-inl.h"
#include "kernel/simd/float16-inl.h"
#include "kernel/simd/tables.h"
#include "nn/exp_poly6.h"

#ifndef ASC_NN_SOFTMAX_ONCE
#define ASC_NN_SOFTMAX_ONCE
namespace asc::nn::softmax_detail {
enum Flags : int { kLog = 1, kNeg = 2, kStream = 4 };
// dtype codes of the per-target entry points
enum Code : int { kF32 = 0, kF64 = 1, kF16 = 2, kBF16 = 3 };
// Rows up to this many elements keep exp(x - max) in the scratch row (64 KiB of float).
constexpr int64_t kScratchMax = 16384;
// Strided slabs: n * w * sizeof(compute type) at most this many bytes.
constexpr int64_t kSlabBytes = 128 * 1024;
// Packed strided slabs: target and upper bound of the packed copy's bytes.
constexpr int64_t kPackBytes = 1024 * 1024;
constexpr int64_t kPackMax = 16 << 20;
}  // namespace asc::nn::softmax_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sd = asc::nn::softmax_detail;

namespace {

template <class D>
HWY_INLINE hn::VFromD<D> Kc(D d, double c) {
  return hn::Set(d, static_cast<hn::TFromD<D>>(c));
}

// exp(z) for z <= 0 or NaN (z = x - max). float32: the shifter-based kernel of
// ExpF32Fast (kernel/simd/exp_f32-inl.h) when every lane is >= -87 (normal results), else Highway's Exp
// on z clamped to just below the underflow point; exactly 0 below it (so -inf -> 0);
// NaN propagates.
template <class D, class V>
HWY_INLINE V ExpNonPos(D d, V z) {
  if constexpr (sizeof(hn::TFromD<D>) == 4) {
    if (HWY_LIKELY(hn::AllTrue(d, hn::Ge(z, Kc(d, -87.0))))) {
      return asc::kernel::simd::HWY_NAMESPACE::ExpF32Fast(d, z);
    }
  }
  const double lo = sizeof(hn::TFromD<D>) == 4 ? -104.0 : -746.0;
  const V zc = hn::Max(z, Kc(d, lo));
  V r = hn::IfThenZeroElse(hn::Le(zc, Kc(d, lo)), hn::Exp(d, zc));
  return hn::IfThenElse(hn::IsNaN(z), z, r);
}

template <class IO, class D>
HWY_INLINE hn::VFromD<D> LoadTail(D d, const typename IO::S* p, size_t r) {
  typename IO::S buf[kMaxLanes<typename IO::C>] = {};
  std::memcpy(buf, p, r * sizeof(typename IO::S));
  return IO::Load(d, buf);
}

template <class IO, class D>
HWY_INLINE void StoreTail(D d, hn::VFromD<D> v, typename IO::S* p, size_t r) {
  typename IO::S buf[kMaxLanes<typename IO::C>];
  IO::Store(d, v, buf);
  std::memcpy(p, buf, r * sizeof(typename IO::S));
}

// Full-vector store at p, streaming when `stream` and p is vector aligned (float32 /
// float64 outputs only: half outputs are demoted vectors).
template <class IO, class D>
HWY_INLINE void StoreOut(D d, hn::VFromD<D> v, typename IO::S* p, bool stream) {
  if constexpr (std::is_same_v<typename IO::S, typename IO::C>) {
    if (stream && (reinterpret_cast<uintptr_t>(p) % (hn::Lanes(d) * sizeof(typename IO::S))) == 0) {
      hn::Stream(v, d, p);
      return;
    }
  }
  IO::Store(d, v, p);
}

template <class C>
std::vector<C>& Scratch() {
  thread_local std::vector<C> s;
  return s;
}

// exp(z) for float32 lanes with z in [-87, 0] or NaN (RowsT checks the row's min first):
// k = round(z log2 e) by the magic bias 1.5 * 2^23 + 127 (the sum's low mantissa bits are
// then k + 127, the biased exponent of 2^k, so one shift makes the float 2^k), r = z - k ln2
// in two parts, exp(r) = 1 + r (1 + r P(r)) with nn/exp_poly6.h's degree-4 P in Horner form
// (6 FMAs, no separate r^2 and +1), and 2^k applied by a multiply. Why not ExpF32Fast: its
// exponent-field integer add turns a NaN whose payload has low bits set into a finite
// number, so it needs the per-vector range/NaN test (compare + test + branch) this form
// avoids; the multiply keeps every NaN a NaN. 12 vector operations per 8 lanes against
// ExpNonPos's ~18.
template <class D, class V>
HWY_INLINE V ExpRowF32(D d, V z) {
  namespace nd = asc::nn::detail;
  const hn::RebindToSigned<D> di;
  const V bias = hn::Set(d, 12583039.0f);  // 1.5 * 2^23 + 127
  const V kx = hn::MulAdd(z, hn::Set(d, 1.442695040888963407359924681f), bias);
  const V k = hn::Sub(kx, bias);
  V r = hn::NegMulAdd(k, hn::Set(d, 0.693145751953125f), z);  // k * ln2_hi is exact (|k| <= 126)
  r = hn::NegMulAdd(k, hn::Set(d, 1.428606765330187045e-6f), r);
  V p = hn::MulAdd(hn::Set(d, nd::kExpP6[4]), r, hn::Set(d, nd::kExpP6[3]));
  p = hn::MulAdd(p, r, hn::Set(d, nd::kExpP6[2]));
  p = hn::MulAdd(p, r, hn::Set(d, nd::kExpP6[1]));
  p = hn::MulAdd(p, r, hn::Set(d, nd::kExpP6[0]));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));  // 1 + r (1 + r P) = exp(r)
  return hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, kx))));
}

// Rows [r0, r1) of length n, contiguous; kNeg: softmin (the rows of -x).
template <class IO, bool kNeg>
void RowsT(const void* xv, void* yv, int64_t r0, int64_t r1, int64_t n, int flags) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const bool log = flags & sd::kLog, stream = flags & sd::kStream;
  const size_t un = static_cast<size_t>(n);
  const size_t body = un - un % N, rem = un - body;
  const bool keep = !log && n <= sd::kScratchMax;
  std::vector<C>& scratch = Scratch<C>();
  if (keep && scratch.size() < body + N) scratch.resize(body + N);
  C* e_row = scratch.data();
  const auto tail_mask = hn::FirstN(d, rem);
  constexpr C kInf = std::numeric_limits<C>::infinity();
  for (int64_t row = r0; row < r1; ++row) {
    const S* x = static_cast<const S*>(xv) + row * n;
    S* y = static_cast<S*>(yv) + row * n;
    auto ld = [&](size_t i) { return IO::Load(d, x + i); };
    // 1. max and min of x (two accumulators each for ILP). No NaN test here: a NaN in the row
    // makes its exp NaN in pass 2 on either path (ExpRowF32's multiply, ExpNonPos's test), so
    // the sum, and with it every output of the row, is NaN (the file comment).
    V hi0 = hn::Set(d, -kInf), hi1 = hi0, lo0 = hn::Set(d, kInf), lo1 = lo0;
    size_t i = 0;
    for (; i + 2 * N <= body; i += 2 * N) {
      const V a = ld(i), b = ld(i + N);
      hi0 = hn::Max(hi0, a);
      hi1 = hn::Max(hi1, b);
      lo0 = hn::Min(lo0, a);
      lo1 = hn::Min(lo1, b);
    }
    for (; i < body; i += N) {
      const V a = ld(i);
      hi0 = hn::Max(hi0, a);
      lo0 = hn::Min(lo0, a);
    }
    V tail = hn::Zero(d);
    if (rem) {
      tail = LoadTail<IO>(d, x + body, rem);
      hi1 = hn::Max(hi1, hn::IfThenElse(tail_mask, tail, hi0));
      lo1 = hn::Min(lo1, hn::IfThenElse(tail_mask, tail, lo0));
    }
    const C xmax = hn::GetLane(hn::MaxOfLanes(d, hn::Max(hi0, hi1)));
    const C xmin = hn::GetLane(hn::MinOfLanes(d, hn::Min(lo0, lo1)));
    // the max and min of the row being reduced (of -x for softmin)
    C m = kNeg ? -xmin : xmax;
    const C lo = kNeg ? -xmax : xmin;
    if (std::isinf(m)) m = std::numeric_limits<C>::quiet_NaN();
    const V vm = hn::Set(d, m);
    auto zof = [&](V v) { return kNeg ? hn::Sub(hn::Neg(vm), v) : hn::Sub(v, vm); };
    // every z = x - max in [-87, 0] (or the row NaN): exps are normal, no per-vector test
    bool fast = false;
    if constexpr (sizeof(C) == 4) fast = lo - m >= C(-87);
    // 2. sum of exp(x - max): one loop per (fast exp, keep) pair so neither test is in the loop
    auto ex = [&](V z) {
      if constexpr (sizeof(C) == 4) {
        if (fast) return ExpRowF32(d, z);
      }
      return ExpNonPos(d, z);
    };
    // the next row (this row again for the last one): its DRAM fetch overlaps this row's
    // in-cache passes 2 and 3 instead of stalling pass 1 of the next row
    const S* nx = row + 1 < r1 ? x + n : x;
    V s0 = hn::Zero(d), s1 = hn::Zero(d);
    auto sum_exp = [&](auto fast_c, auto keep_c) {
      constexpr bool kFast = decltype(fast_c)::value && sizeof(C) == 4, kKeep = decltype(keep_c)::value;
      auto e = [&](V z) {
        if constexpr (kFast) {
          return ExpRowF32(d, z);
        } else {
          return ExpNonPos(d, z);
        }
      };
      size_t j = 0;
      for (; j + 2 * N <= body; j += 2 * N) {
        hwy::Prefetch(nx + j);
        const V a = e(zof(ld(j)));
        const V b = e(zof(ld(j + N)));
        if constexpr (kKeep) {
          hn::StoreU(a, d, e_row + j);
          hn::StoreU(b, d, e_row + j + N);
        }
        s0 = hn::Add(s0, a);
        s1 = hn::Add(s1, b);
      }
      for (; j < body; j += N) {
        const V a = e(zof(ld(j)));
        if constexpr (kKeep) hn::StoreU(a, d, e_row + j);
        s0 = hn::Add(s0, a);
      }
    };
    using T1 = std::true_type;
    using F0 = std::false_type;
    if (fast) {
      keep ? sum_exp(T1{}, T1{}) : sum_exp(T1{}, F0{});
    } else {
      keep ? sum_exp(F0{}, T1{}) : sum_exp(F0{}, F0{});
    }
    V et = hn::Zero(d);
    if (rem) {
      et = hn::IfThenElseZero(tail_mask, ex(zof(tail)));
      s1 = hn::Add(s1, et);
    }
    const C s = hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
    // 3. output
    if (log) {
      const V ls = hn::Set(d, std::log(s));
      for (i = 0; i < body; i += N) StoreOut<IO>(d, hn::Sub(zof(ld(i)), ls), y + i, stream);
      if (rem) StoreTail<IO>(d, hn::Sub(zof(tail), ls), y + body, rem);
    } else {
      const V inv = hn::Set(d, C(1) / s);
      if (keep) {
        // y + i is vector aligned for every i iff y is: one test per row, not per vector
        bool nt = false;
        if constexpr (std::is_same_v<S, C>) nt = stream && reinterpret_cast<uintptr_t>(y) % (N * sizeof(S)) == 0;
        if (nt) {
          if constexpr (std::is_same_v<S, C>) {
            for (i = 0; i < body; i += N) hn::Stream(hn::Mul(hn::LoadU(d, e_row + i), inv), d, y + i);
          }
        } else {
          for (i = 0; i < body; i += N) IO::Store(d, hn::Mul(hn::LoadU(d, e_row + i), inv), y + i);
        }
      } else {
        for (i = 0; i < body; i += N) StoreOut<IO>(d, hn::Mul(ex(zof(ld(i))), inv), y + i, stream);
      }
      if (rem) StoreTail<IO>(d, hn::Mul(et, inv), y + body, rem);
    }
  }
  if (stream) hwy::FlushStream();
}

template <class IO>
void RowsDispatch(const void* xv, void* yv, int64_t r0, int64_t r1, int64_t n, int flags) {
  if (flags & sd::kNeg) {
    RowsT<IO, true>(xv, yv, r0, r1, n, flags);
  } else {
    RowsT<IO, false>(xv, yv, r0, r1, n, flags);
  }
}

// Per-column running max and NaN flag of a strided slab (SlabT and PackedT): mv holds the
// max, bv the NaN flags, sv (the later column sums) is zeroed; each w lanes wide, padded to wp.
template <class D>
struct ColumnMax {
  using C = hn::TFromD<D>;
  using V = hn::VFromD<D>;
  D d;
  C* mv;
  C* sv;
  C* bv;
  size_t wp;
  void Init() const {
    for (size_t i = 0; i < wp; i += hn::Lanes(d)) {
      hn::StoreU(hn::Set(d, -std::numeric_limits<C>::infinity()), d, mv + i);
      hn::StoreU(hn::Zero(d), d, bv + i);
      hn::StoreU(hn::Zero(d), d, sv + i);
    }
  }
  // one row's lanes [i, i + N) of the slab
  HWY_INLINE void Add(size_t i, V a) const {
    hn::StoreU(hn::Max(hn::LoadU(d, mv + i), a), d, mv + i);
    hn::StoreU(hn::Or(hn::LoadU(d, bv + i), hn::VecFromMask(d, hn::IsNaN(a))), d, bv + i);
  }
  // a column holding a NaN, or whose max is +-inf, gets a NaN max (the file comment)
  void Finish() const {
    for (size_t i = 0; i < wp; i += hn::Lanes(d)) {
      const V m = hn::LoadU(d, mv + i);
      // flags are all-ones bit patterns, i.e. NaNs (an ordered != would miss them)
      const auto nanrow = hn::Or(hn::IsNaN(hn::LoadU(d, bv + i)), hn::IsInf(m));
      hn::StoreU(hn::IfThenElse(nanrow, hn::NaN(d), m), d, mv + i);
    }
  }
};

// One strided slab: x is (n, inner) at the slab's outer index, columns [j0, j1).
template <class IO>
void SlabT(const void* xv, void* yv, int64_t n, int64_t inner, int64_t j0, int64_t j1, int flags) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const bool log = flags & sd::kLog;
  const V sign = hn::Set(d, (flags & sd::kNeg) ? C(-0.0) : C(0.0));
  const size_t w = static_cast<size_t>(j1 - j0);
  const size_t body = w - w % N, rem = w - body;
  const auto tail_mask = hn::FirstN(d, rem);
  std::vector<C>& scratch = Scratch<C>();
  const size_t wp = body + (rem ? N : 0);
  if (scratch.size() < 3 * wp) scratch.resize(3 * wp);
  C* mv = scratch.data();
  C* sv = mv + wp;
  C* bv = sv + wp;
  const S* x0 = static_cast<const S*>(xv) + j0;
  S* y0 = static_cast<S*>(yv) + j0;
  auto ld = [&](int64_t k, size_t i) {
    const S* p = x0 + k * inner + i;
    return hn::Xor(i < body ? IO::Load(d, p) : LoadTail<IO>(d, p, rem), sign);
  };
  // 1. column max and NaN flags
  const ColumnMax<decltype(d)> cm{d, mv, sv, bv, wp};
  cm.Init();
  for (int64_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < wp; i += N) cm.Add(i, ld(k, i));
  }
  cm.Finish();
  // 2. column sums
  for (int64_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < wp; i += N) {
      const V e = ExpNonPos(d, hn::Sub(ld(k, i), hn::LoadU(d, mv + i)));
      hn::StoreU(hn::Add(hn::LoadU(d, sv + i), e), d, sv + i);
    }
  }
  // 3. output (1 / sum, or log(sum), once per column)
  for (size_t i = 0; i < wp; i += N) {
    const V s = hn::LoadU(d, sv + i);
    hn::StoreU(log ? hn::Log(d, s) : hn::Div(hn::Set(d, C(1)), s), d, sv + i);
  }
  // hn::Log(0) is not -inf on every target, but s >= 1 unless the column is NaN (s NaN).
  for (int64_t k = 0; k < n; ++k) {
    S* y = y0 + k * inner;
    for (size_t i = 0; i < wp; i += N) {
      const V z = hn::Sub(ld(k, i), hn::LoadU(d, mv + i));
      const V r = log ? hn::Sub(z, hn::LoadU(d, sv + i)) : hn::Mul(ExpNonPos(d, z), hn::LoadU(d, sv + i));
      if (i < body) {
        IO::Store(d, r, y + i);
      } else {
        StoreTail<IO>(d, r, y + i, rem);
      }
    }
  }
  (void)tail_mask;
}

// One strided slab through a packed copy: x is (n, inner) at the slab's outer index,
// columns [j0, j1). Pass 1 copies each row's w-element piece into a contiguous (n, wp)
// buffer of the compute type while taking the column max; pass 2 replaces it in place
// by exp(x - max) and sums the columns; pass 3 scales and writes the strided output.
// Why: at a power-of-two row stride the pieces of an (n, w) slab map to a few cache
// sets, so a slab read in place falls out of L1/L2 between passes (measured 15-27x the
// last-axis time); the packed copy has no aliasing, and x is read once and exp runs
// once per element, as in RowsT.
template <class IO>
void PackedT(const void* xv, void* yv, int64_t n, int64_t inner, int64_t j0, int64_t j1, int flags) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const bool log = flags & sd::kLog, stream = flags & sd::kStream;
  const V sign = hn::Set(d, (flags & sd::kNeg) ? C(-0.0) : C(0.0));
  const size_t w = static_cast<size_t>(j1 - j0);
  const size_t body = w - w % N, rem = w - body;
  const size_t wp = body + (rem ? N : 0);
  std::vector<C>& scratch = Scratch<C>();
  const size_t need = (static_cast<size_t>(n) + 3) * wp;
  if (scratch.size() < need) scratch.resize(need);
  C* mv = scratch.data();
  C* sv = mv + wp;
  C* bv = sv + wp;
  C* pk = bv + wp;
  const S* x0 = static_cast<const S*>(xv) + j0;
  S* y0 = static_cast<S*>(yv) + j0;
  const int64_t ahead = 16;  // rows prefetched ahead of the strided gather
  // 1. pack, column max and NaN flags
  const ColumnMax<decltype(d)> cm{d, mv, sv, bv, wp};
  cm.Init();
  for (int64_t k = 0; k < n; ++k) {
    const S* p = x0 + k * inner;
    if (k + ahead < n) {
      for (size_t b = 0; b < w * sizeof(S); b += 64) hwy::Prefetch(reinterpret_cast<const uint8_t*>(p + ahead * inner) + b);
    }
    C* q = pk + size_t(k) * wp;
    for (size_t i = 0; i < wp; i += N) {
      const V a = hn::Xor(i < body ? IO::Load(d, p + i) : LoadTail<IO>(d, p + i, rem), sign);
      hn::StoreU(a, d, q + i);
      cm.Add(i, a);
    }
  }
  cm.Finish();
  // 2. exp in place (softmax) and column sums; the tail lanes past w hold zeros
  // (LoadTail) and only feed sums that are never stored
  for (int64_t k = 0; k < n; ++k) {
    C* q = pk + size_t(k) * wp;
    for (size_t i = 0; i < wp; i += N) {
      const V e = ExpNonPos(d, hn::Sub(hn::LoadU(d, q + i), hn::LoadU(d, mv + i)));
      if (!log) hn::StoreU(e, d, q + i);
      hn::StoreU(hn::Add(hn::LoadU(d, sv + i), e), d, sv + i);
    }
  }
  for (size_t i = 0; i < wp; i += N) {
    const V s = hn::LoadU(d, sv + i);
    hn::StoreU(log ? hn::Log(d, s) : hn::Div(hn::Set(d, C(1)), s), d, sv + i);
  }
  // 3. output
  for (int64_t k = 0; k < n; ++k) {
    const C* q = pk + size_t(k) * wp;
    S* y = y0 + k * inner;
    for (size_t i = 0; i < wp; i += N) {
      const V v = hn::LoadU(d, q + i);
      const V r = log ? hn::Sub(hn::Sub(v, hn::LoadU(d, mv + i)), hn::LoadU(d, sv + i)) : hn::Mul(v, hn::LoadU(d, sv + i));
      if (i < body) {
        StoreOut<IO>(d, r, y + i, stream);
      } else {
        StoreTail<IO>(d, r, y + i, rem);
      }
    }
  }
  if (stream) hwy::FlushStream();
  // a long axis may have grown the per-thread buffer to kPackMax: do not keep that much
  // per worker thread after the call (the 1 MiB of the usual slabs stays)
  if (scratch.size() * sizeof(C) > size_t(2 * sd::kPackBytes)) std::vector<C>().swap(scratch);
}

}  // namespace

void SoftmaxRows(int code, const void* x, void* y, int64_t r0, int64_t r1, int64_t n, int flags) {
  switch (code) {
    case sd::kF32: RowsDispatch<NativeIO<float>>(x, y, r0, r1, n, flags); break;
    case sd::kF64: RowsDispatch<NativeIO<double>>(x, y, r0, r1, n, flags); break;
    case sd::kF16: RowsDispatch<F16IO>(x, y, r0, r1, n, flags); break;
    default: RowsDispatch<BF16IO>(x, y, r0, r1, n, flags); break;
  }
}

void SoftmaxSlab(int code, const void* x, void* y, int64_t n, int64_t inner, int64_t j0, int64_t j1, int flags) {
  switch (code) {
    case sd::kF32: SlabT<NativeIO<float>>(x, y, n, inner, j0, j1, flags); break;
    case sd::kF64: SlabT<NativeIO<double>>(x, y, n, inner, j0, j1, flags); break;
    case sd::kF16: SlabT<F16IO>(x, y, n, inner, j0, j1, flags); break;
    default: SlabT<BF16IO>(x, y, n, inner, j0, j1, flags); break;
  }
}

void SoftmaxPacked(int code, const void* x, void* y, int64_t n, int64_t inner, int64_t j0, int64_t j1, int flags) {
  switch (code) {
    case sd::kF32: PackedT<NativeIO<float>>(x, y, n, inner, j0, j1, flags); break;
    case sd::kF64: PackedT<NativeIO<double>>(x, y, n, inner, j0, j1, flags); break;
    case sd::kF16: PackedT<F16IO>(x, y, n, inner, j0, j1, flags); break;
    default: PackedT<BF16IO>(x, y, n, inner, j0, j1, flags); break;
  }
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "asc/nn/softmax.h"
#include "asc/runtime/device.h"
#include "nn/nn_util.h"
#include "runtime/parallel_for.h"

namespace asc::kernel::simd {
HWY_EXPORT(SoftmaxRows);
HWY_EXPORT(SoftmaxSlab);
HWY_EXPORT(SoftmaxPacked);
namespace {
void init_targets() {
  static const bool once = (apply_target_override(), true);
  (void)once;
}
void softmax_rows(int code, const void* x, void* y, int64_t r0, int64_t r1, int64_t n, int flags) {
  HWY_DYNAMIC_DISPATCH(SoftmaxRows)(code, x, y, r0, r1, n, flags);
}
void softmax_slab(int code, const void* x, void* y, int64_t n, int64_t inner, int64_t j0, int64_t j1, int flags) {
  HWY_DYNAMIC_DISPATCH(SoftmaxSlab)(code, x, y, n, inner, j0, j1, flags);
}
void softmax_packed(int code, const void* x, void* y, int64_t n, int64_t inner, int64_t j0, int64_t j1, int flags) {
  HWY_DYNAMIC_DISPATCH(SoftmaxPacked)(code, x, y, n, inner, j0, j1, flags);
}
}  // namespace
}  // namespace asc::kernel::simd

namespace asc::nn {
namespace {

namespace sd = softmax_detail;

// Below this many elements the work runs on the calling thread.
constexpr int64_t kParallelMin = 1 << 15;
// Outputs of at least this many bytes are written with streaming stores (they would
// evict the cache anyway; below it the caller likely reads the result from cache).
constexpr int64_t kStreamMin = 4 << 20;

int code_of(DType t) {
  switch (t) {
    case DType::kFloat32: return sd::kF32;
    case DType::kFloat64: return sd::kF64;
    case DType::kFloat16: return sd::kF16;
    default: return sd::kBF16;
  }
}

/// runtime::parallel_for with this file's threshold.
template <typename Fn>
void parallel_for(const char* name, int64_t total, int64_t work, Fn&& fn) {
  runtime::parallel_for(name, total, work, kParallelMin, std::forward<Fn>(fn));
}

}  // namespace

Tensor softmax(const Tensor& x_in, int64_t axis, bool log, bool negate) {
  const std::string op = log ? "log_softmax" : "softmax";
  detail::dispatch_float(x_in.dtype(), op, "input", [](auto) {});
  const int64_t nd = std::max<int64_t>(x_in.ndim(), 1);
  if (axis < -nd || axis >= nd) {
    throw Error(Status::Invalid(op, "dim " + std::to_string(axis) + " is out of range for an input with " +
                                        std::to_string(x_in.ndim()) + " dimensions"));
  }
  if (axis < 0) axis += nd;
  kernel::simd::init_targets();
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  if (x.numel() == 0) return y;
  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t i = 0; i < x.ndim(); ++i) {
    const int64_t s = x.shape()[size_t(i)];
    if (i < axis) outer *= s;
    else if (i == axis) n = s;
    else inner *= s;
  }
  const int code = code_of(x.dtype());
  const size_t item = x.itemsize();
  // raw accesses on the calling thread (materialises pending lazy work) before launching
  const uint8_t* xp = x.data();
  uint8_t* yp = y.data();
  const int64_t total = x.numel();
  int flags = (log ? sd::kLog : 0) | (negate ? sd::kNeg : 0);
  // ASC_NN_SOFTMAX_STREAM=0 turns the streaming stores off (benchmark comparisons)
  static const bool stream_ok = [] {
    const char* e = std::getenv("ASC_NN_SOFTMAX_STREAM");
    return !(e && e[0] == '0');
  }();
  if (stream_ok && int64_t(total * item) >= kStreamMin) flags |= sd::kStream;
  if (inner == 1) {
    parallel_for(op.c_str(), outer, total, [&](int64_t lo, int64_t hi) {
      kernel::simd::softmax_rows(code, xp, yp, lo, hi, n, flags);
    });
    return y;
  }
  // strided: slabs of w columns per outer index
  const int64_t csize = x.dtype() == DType::kFloat64 ? 8 : 4;
  // Packed slabs (PackedT): w columns, a multiple of 16 (a 64-byte line of float32 per
  // row at least), as many as keep the packed (n, w) copy within kPackBytes (half an
  // L2); used while even the narrowest slab fits in kPackMax.
  const int64_t wmin = std::min<int64_t>(inner, 64 / csize);
  if (n * wmin * csize <= sd::kPackMax) {
    int64_t w = sd::kPackBytes / std::max<int64_t>(1, n * csize);
    w = std::max<int64_t>(w / 16 * 16, wmin);
    w = std::min<int64_t>(w, std::min<int64_t>(inner, 1024));
    const int64_t per = (inner + w - 1) / w;
    parallel_for(op.c_str(), outer * per, total, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) {
        const int64_t o = t / per, j0 = (t % per) * w, j1 = std::min(inner, j0 + w);
        const uint8_t* xo = xp + size_t(o * n * inner) * item;
        uint8_t* yo = yp + size_t(o * n * inner) * item;
        kernel::simd::softmax_packed(code, xo, yo, n, inner, j0, j1, flags);
      }
    });
    return y;
  }
  // w columns: as many as keep the (n, w) slab in L2, but at least 256 (1 KiB rows: the
  // passes then stream whole contiguous rows from memory with the hardware prefetcher
  // when n is large; narrow column strips at a large row stride measured 10x slower).
  int64_t w = sd::kSlabBytes / std::max<int64_t>(1, n * csize);
  w = std::max<int64_t>(w, 256);
  w = w < inner ? std::min<int64_t>(w / 16 * 16, 4096) : inner;
  const int64_t per = (inner + w - 1) / w;
  parallel_for(op.c_str(), outer * per, total, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / per, j0 = (t % per) * w, j1 = std::min(inner, j0 + w);
      const uint8_t* xo = xp + size_t(o * n * inner) * item;
      uint8_t* yo = yp + size_t(o * n * inner) * item;
      kernel::simd::softmax_slab(code, xo, yo, n, inner, j0, j1, flags & ~sd::kStream);
    }
  });
  return y;
}

}  // namespace asc::nn
#endif  // HWY_ONCE
