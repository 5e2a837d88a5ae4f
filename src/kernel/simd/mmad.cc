// The cube engine: C (NZ, float32 / int32) (+)= A * B for Mmad and Matmul
// (include/asc/kernel/cube.h, asc::kernel::cube::gemm), for every Highway target.
//
// Why not CBLAS: a kernel block runs on one "core" thread and the device runs
// one block per core at once; OpenBLAS's thread count is process-global
// (openblas_set_num_threads), so calling sgemm from blocks would either
// oversubscribe the cores or serialise the rest of the process. Its sgemm also
// knows neither the fractal layouts nor 16-bit / int8 inputs. So the blocks
// run this single-threaded, GotoBLAS-style kernel:
//
// * k is split into chunks of kKc. For each chunk, A is converted to the
//   accumulator type (float32 or int32) in a Zz scratch with 16 x 16
//   fractals (At) -- except float A already in L0A's Zz (16 x 8 fractals),
//   which the micro-kernel reads in place -- and B is packed into panels of
//   NR = 2 vectors of columns, one row of NR values per k (Bp). Conversions
//   are SIMD where the source is contiguous; a Zn fractal of B (16 rows of C0
//   k-values) becomes C0 rows of 16 n-values by log2(C0) rounds of
//   ConcatEven / ConcatOdd (TransposeFractal).
// * A register block of MR rows x NR columns (AVX3: 8 x 32, others 4 x 2
//   vectors) keeps MR*NV accumulators in registers; each k step loads NV
//   vectors of Bp, broadcasts MR values of At (constant offsets inside a Zz
//   fractal, MR divides 16) and issues MR*NV fused multiply-adds. The Bp panel
//   (kKc x NR) stays in L1 while every row block streams through.
// * C is read (accumulate) or zeroed in registers and stored straight into the
//   NZ destination: NR-wide column groups are whole vectors inside one
//   16-column fractal.
// float16 / bfloat16 products are exact in float32, so MulAdd (one rounding)
// matches a float32 accumulator fed with exact products; int8 products are
// exact in int32 and the sums wrap.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/core/status.h"
#include "asc/kernel/cube.h"
#include "kernel/simd/tables.h"

namespace asc::kernel::cube::detail {
// Thread-local scratch (defined once below): slot 0 = At, 1 = Bp, 2 = fractal tmp.
void* gemm_scratch(int slot, size_t bytes);
}  // namespace asc::kernel::cube::detail

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/simd/mmad.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include "kernel/simd/float16-inl.h"

#ifndef ASC_KERNEL_SIMD_MMAD_ONCE
#define ASC_KERNEL_SIMD_MMAD_ONCE
namespace asc::kernel::cube::detail {
using GemmFn = void (*)(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c,
                        int64_t c_col_stride, bool accumulate);
struct GemmTable {
  GemmFn by_dtype[static_cast<size_t>(kNumDTypes)] = {};
  const char* target = "";
  int mr = 0;
  int nr = 0;
};
constexpr int64_t kKc = 256;  // k chunk: a Bp panel of kKc x NR floats fits L1
}  // namespace asc::kernel::cube::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cd = ::asc::kernel::cube::detail;
using ::asc::kernel::cube::Layout;
using ::asc::kernel::cube::Operand;

// ---------------------------------------------------------------- loaders
// Each converts source elements to the accumulator lane type of D.

struct LoadF32 {
  using S = float;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Vec(D d, const S* p) { return hn::LoadU(d, p); }
  static HWY_INLINE float One(const S* p) { return *p; }
};
struct LoadF16 {
  using S = uint16_t;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Vec(D d, const S* p) {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> d16;
    return F16BitsToF32(d, hn::PromoteTo(du, hn::LoadU(d16, p)));
  }
  static HWY_INLINE float One(const S* p) { return ::asc::detail::f16_bits_to_f32(*p); }
};
struct LoadBF16 {
  using S = uint16_t;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Vec(D d, const S* p) {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint16_t, D> d16;
    return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, p))));
  }
  static HWY_INLINE float One(const S* p) { return ::asc::detail::bf16_bits_to_f32(*p); }
};
struct LoadI8 {
  using S = int8_t;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Vec(D d, const S* p) {
    const hn::Rebind<int8_t, D> d8;
    return hn::PromoteTo(d, hn::LoadU(d8, p));
  }
  static HWY_INLINE int32_t One(const S* p) { return *p; }
};

// n contiguous source elements -> dst (accumulator type).
template <class Ld, class D>
HWY_INLINE void ConvertRun(D d, const typename Ld::S* HWY_RESTRICT src, hn::TFromD<D>* HWY_RESTRICT dst, size_t n) {
  if constexpr (std::is_same_v<typename Ld::S, hn::TFromD<D>>) {
    std::memcpy(dst, src, n * sizeof(*dst));  // float32: a plain copy
    return;
  }
  // The vector bound is n rounded down to whole vectors, computed once: with
  // `i + L <= n` GCC cannot exclude a wrapping i + L, so after inlining a
  // constant n (PackB's 16 * C0) it assumed a tail loop of 2^63 iterations
  // (-Waggressive-loop-optimizations). L is a power of two.
  const size_t L = hn::Lanes(d);
  const size_t nv = n & ~(L - 1);
  size_t i = 0;
  for (; i < nv; i += L) hn::StoreU(Ld::Vec(d, src + i), d, dst + i);
  for (; i < n; ++i) dst[i] = static_cast<hn::TFromD<D>>(Ld::One(src + i));
}

// Exactly R elements (R a compile-time constant).
template <class Ld, int64_t R, class D>
HWY_INLINE void ConvertFixed(D d, const typename Ld::S* HWY_RESTRICT src, hn::TFromD<D>* HWY_RESTRICT dst) {
  if constexpr (std::is_same_v<typename Ld::S, hn::TFromD<D>>) {
    std::memcpy(dst, src, R * sizeof(*dst));
  } else {
    constexpr size_t L = hn::MaxLanes(D());
    if constexpr (R % L == 0) {
      for (size_t i = 0; i < static_cast<size_t>(R); i += L) hn::StoreU(Ld::Vec(d, src + i), d, dst + i);
    } else {
      ConvertRun<Ld>(d, src, dst, static_cast<size_t>(R));
    }
  }
}

// ---------------------------------------------------------------- packing

// A rows [0, 16*M1) x k [k0, k0+kc) -> At: Zz with 16 x 16 fractals,
// (i, kk) at ((i/16) * K1t + kk/16) * 256 + (i%16) * 16 + kk%16.
template <class Ld, class D>
void PackA(D d, const Operand& a, int64_t m1, int64_t k0, int64_t kc, hn::TFromD<D>* HWY_RESTRICT at) {
  using T = hn::TFromD<D>;
  using S = typename Ld::S;
  const S* src = static_cast<const S*>(a.data);
  const int64_t k1t = (kc + 15) / 16;
  const int64_t rows = 16 * m1;
  for (int64_t i = 0; i < rows; ++i) {
    T* row = at + (i / 16) * k1t * 256 + (i % 16) * 16;
    if (a.layout == Layout::kFractal) {
      // Runs of R = min(C0, 16) elements are contiguous in both layouts (k0 is
      // a multiple of kKc): fixed-size copies / conversions, no call per run.
      constexpr int64_t c0 = 32 / static_cast<int64_t>(sizeof(S));
      constexpr int64_t R = c0 < 16 ? c0 : 16;
      const S* base = src + (i / 16) * a.ld * 16 * c0 + (i % 16) * c0;
      int64_t kk = 0;
      for (; kk + R <= kc; kk += R) {
        const int64_t kg = k0 + kk;
        ConvertFixed<Ld, R>(d, base + (kg / c0) * 16 * c0 + kg % c0, row + (kk / 16) * 256 + kk % 16);
      }
      if (kk < kc) {
        const int64_t kg = k0 + kk;
        ConvertRun<Ld>(d, base + (kg / c0) * 16 * c0 + kg % c0, row + (kk / 16) * 256 + kk % 16,
                       static_cast<size_t>(kc - kk));
      }
    } else if (i >= a.valid) {
      for (int64_t kk = 0; kk < kc; kk += 16) {
        std::fill_n(row + (kk / 16) * 256, static_cast<size_t>(std::min<int64_t>(16, kc - kk)), T(0));
      }
    } else if (a.layout == Layout::kRowMajor) {
      const S* base = src + i * a.ld + k0;
      for (int64_t kk = 0; kk < kc; kk += 16) {
        ConvertRun<Ld>(d, base + kk, row + (kk / 16) * 256, static_cast<size_t>(std::min<int64_t>(16, kc - kk)));
      }
    } else {  // kColMajor: (i, kg) at kg * ld + i
      const S* base = src + k0 * a.ld + i;
      for (int64_t kk = 0; kk < kc; ++kk) row[(kk / 16) * 256 + kk % 16] = static_cast<T>(Ld::One(base + kk * a.ld));
    }
  }
}

// A converted Zn fractal (16 rows of c0 values, c0 = 8, 16 or 32, a power of
// two) -> c0 rows of 16: element (n, t) at n*c0 + t moves to t*16 + n. Taking
// every c0-th element is log2(c0) rounds of "even elements, then odd
// elements" of the whole sequence (ConcatEven / ConcatOdd of consecutive
// vector pairs); each round doubles the stride the classes are sorted by.
// Returns the buffer holding the result (`buf` or `spare`).
template <class D>
HWY_INLINE const hn::TFromD<D>* TransposeFractal(D d, hn::TFromD<D>* HWY_RESTRICT buf,
                                                 hn::TFromD<D>* HWY_RESTRICT spare, int64_t c0) {
  const size_t n = static_cast<size_t>(16 * c0);
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  for (size_t i = 0; i < n; ++i) spare[(i % c0) * 16 + i / c0] = buf[i];
  return spare;
#else
  using T = hn::TFromD<D>;
  const size_t L = hn::Lanes(d);
  T* x = buf;
  T* y = spare;
  for (int64_t s = 1; s < c0; s *= 2) {
    for (size_t p = 0; p < n; p += 2 * L) {
      const auto lo = hn::Load(d, x + p);
      const auto hi = hn::Load(d, x + p + L);
      hn::Store(hn::ConcatEven(d, hi, lo), d, y + p / 2);
      hn::Store(hn::ConcatOdd(d, hi, lo), d, y + n / 2 + p / 2);
    }
    std::swap(x, y);
  }
  return x;
#endif
}

// B k [k0, k0+kc) x columns [0, npad) -> Bp: panels of `nr` columns (the last
// may be narrower), panel at j0 * kc, (kk, j) at j0*kc + kk*w + (j - j0).
template <class Ld, class D>
void PackB(D d, const Operand& b, int64_t npad, int64_t k0, int64_t kc, int64_t nr, hn::TFromD<D>* HWY_RESTRICT bp) {
  using T = hn::TFromD<D>;
  using S = typename Ld::S;
  const S* src = static_cast<const S*>(b.data);
  const int64_t c0 = 32 / static_cast<int64_t>(sizeof(S));
  T* tmp = static_cast<T*>(cd::gemm_scratch(2, sizeof(T) * 16 * 32 * 2));
  for (int64_t j0 = 0; j0 < npad; j0 += nr) {
    const int64_t w = std::min(nr, npad - j0);
    T* panel = bp + j0 * kc;
    if (b.layout == Layout::kRowMajor) {
      const int64_t live = std::clamp<int64_t>(b.valid - j0, 0, w);
      for (int64_t kk = 0; kk < kc; ++kk) {
        T* dst = panel + kk * w;
        ConvertRun<Ld>(d, src + (k0 + kk) * b.ld + j0, dst, static_cast<size_t>(live));
        std::fill(dst + live, dst + w, T(0));
      }
      continue;
    }
    for (int64_t j = j0; j < j0 + w; ++j) {
      T* col = panel + (j - j0);
      if (b.layout == Layout::kColMajor) {
        if (j >= b.valid) {
          for (int64_t kk = 0; kk < kc; ++kk) col[kk * w] = T(0);
          continue;
        }
        const S* s = src + j * b.ld + k0;
        for (int64_t kk = 0; kk < kc;) {
          const int64_t run = std::min<int64_t>(16 * 32, kc - kk);
          ConvertRun<Ld>(d, s + kk, tmp, static_cast<size_t>(run));
          for (int64_t t = 0; t < run; ++t) col[(kk + t) * w] = tmp[t];
          kk += run;
        }
      }
    }
    if (b.layout != Layout::kFractal) continue;
    // Zn: fractal (kb, nb) = 16 rows (n) of c0 k-values. Convert a fractal,
    // transpose it into c0 rows of 16 n-values (SIMD), and copy those rows
    // into the panel.
    for (int64_t nb = j0 / 16; nb * 16 < j0 + w; ++nb) {
      // Panels narrower than a fractal (SSE4, scalar) take part of its rows.
      const int64_t jlo = std::max(j0, nb * 16), jhi = std::min(j0 + w, nb * 16 + 16);
      for (int64_t kk = 0; kk < kc;) {
        const int64_t kg = k0 + kk;
        const int64_t kb = kg / c0;
        const int64_t off = kg % c0;
        const int64_t run = std::min(c0 - off, kc - kk);
        const S* frac = src + (kb * b.ld + nb) * 16 * c0;
        ConvertRun<Ld>(d, frac, tmp, static_cast<size_t>(16 * c0));
        const T* rows = TransposeFractal(d, tmp, tmp + 16 * 32, c0);  // rows[t*16 + jn] = (k off t, n jn)
        T* dst = panel + kk * w - j0;
        for (int64_t t = 0; t < run; ++t) {
          std::memcpy(dst + t * w + jlo, rows + (off + t) * 16 + (jlo - nb * 16), sizeof(T) * (jhi - jlo));
        }
        kk += run;
      }
    }
  }
}

// ---------------------------------------------------------------- micro-kernel

template <class V>
HWY_INLINE V Fma(V a, V b, V acc) {
  if constexpr (hwy::IsFloat<hn::TFromV<V>>()) {
    return hn::MulAdd(a, b, acc);
  } else {
    return hn::Add(acc, hn::Mul(a, b));
  }
}

// C rows [i0, i0+MR) (c = C + i0*16) x columns [j0, j0 + NV*L).
// a = the rows' first A values in a Zz layout of 16 x KA fractals (KA = 16:
// the At scratch; KA = C0 = 8: float A read in place from L0A), so row r's
// value for k step u of a fractal is a[r*KA + u] and the next fractal along k
// starts 16*KA later; b = the panel (row stride NV*L).
template <int MR, int NV, int KA, class D>
HWY_NOINLINE void Micro(D d, const hn::TFromD<D>* HWY_RESTRICT a, const hn::TFromD<D>* HWY_RESTRICT b, int64_t kc,
                        hn::TFromD<D>* HWY_RESTRICT c, int64_t col_stride, int64_t j0, bool load) {
  using V = hn::VFromD<D>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t w = NV * L;
  hn::TFromD<D>* cv[NV];
  for (int v = 0; v < NV; ++v) cv[v] = c + ((j0 + v * L) / 16) * col_stride + (j0 + v * L) % 16;
  V acc[MR][NV];
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) acc[r][v] = load ? hn::LoadU(d, cv[v] + r * 16) : hn::Zero(d);
  }
  int64_t kk = 0;
  for (; kk + KA <= kc; kk += KA, a += 16 * KA) {
    const hn::TFromD<D>* bk = b + kk * w;
    for (int u = 0; u < KA; ++u, bk += w) {
      V bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, bk + v * L);
      for (int r = 0; r < MR; ++r) {
        const V av = hn::Set(d, a[r * KA + u]);
        for (int v = 0; v < NV; ++v) acc[r][v] = Fma(av, bv[v], acc[r][v]);
      }
    }
  }
  for (int u = 0; kk < kc; ++kk, ++u) {
    const hn::TFromD<D>* bk = b + kk * w;
    V bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, bk + v * L);
    for (int r = 0; r < MR; ++r) {
      const V av = hn::Set(d, a[r * KA + u]);
      for (int v = 0; v < NV; ++v) acc[r][v] = Fma(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int v = 0; v < NV; ++v) hn::StoreU(acc[r][v], d, cv[v] + r * 16);
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int kMr = 8;  // 32 vector registers: 8 x 2 accumulators + 2 B + 1 A
#else
constexpr int kMr = 4;  // 16 registers: 4 x 2 accumulators
#endif

template <class Ld, class D>
void GemmT(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* cv, int64_t col_stride,
           bool accumulate) {
  using T = hn::TFromD<D>;
  const D d;
  T* c = static_cast<T*>(cv);
  const int64_t m1 = (m + 15) / 16;
  const int64_t npad = (n + 15) / 16 * 16;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t nr = 2 * L;
  if (k == 0) {
    if (!accumulate) {
      for (int64_t j = 0; j < npad; j += 16) std::memset(c + (j / 16) * col_stride, 0, sizeof(T) * 256 * m1);
    }
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += cd::kKc) {
    const int64_t kc = std::min(cd::kKc, k - k0);
    const int64_t k1t = (kc + 15) / 16;
    T* bp = static_cast<T*>(cd::gemm_scratch(1, sizeof(T) * npad * kc));
    PackB<Ld>(d, b, npad, k0, kc, nr, bp);
    const bool load = accumulate || k0 > 0;
    // float A already in L0A's Zz (16 x 8 fractals) is read in place: only the
    // other cases are converted into the 16 x 16 At scratch.
    constexpr bool kInPlaceA = std::is_same_v<typename Ld::S, float>;
    const bool in_place = kInPlaceA && a.layout == Layout::kFractal;
    const T* a_base;
    int64_t a_rows;  // elements between 16-row blocks
    if (in_place) {
      a_base = static_cast<const T*>(a.data) + (k0 / 8) * 128;
      a_rows = a.ld * 128;
    } else {
      T* at = static_cast<T*>(cd::gemm_scratch(0, sizeof(T) * 256 * m1 * k1t));
      PackA<Ld>(d, a, m1, k0, kc, at);
      a_base = at;
      a_rows = k1t * 256;
    }
    for (int64_t j0 = 0; j0 < npad; j0 += nr) {
      const int64_t w = std::min(nr, npad - j0);
      const T* panel = bp + j0 * kc;
      for (int64_t i0 = 0; i0 < 16 * m1; i0 += kMr) {
        T* ci = c + i0 * 16;
        if constexpr (kInPlaceA) {
          if (in_place) {
            const T* ai = a_base + (i0 / 16) * a_rows + (i0 % 16) * 8;
            if (w == nr) {
              Micro<kMr, 2, 8>(d, ai, panel, kc, ci, col_stride, j0, load);
            } else {
              Micro<kMr, 1, 8>(d, ai, panel, kc, ci, col_stride, j0, load);
            }
            continue;
          }
        }
        const T* ai = a_base + (i0 / 16) * a_rows + (i0 % 16) * 16;
        if (w == nr) {
          Micro<kMr, 2, 16>(d, ai, panel, kc, ci, col_stride, j0, load);
        } else {
          Micro<kMr, 1, 16>(d, ai, panel, kc, ci, col_stride, j0, load);
        }
      }
    }
  }
}

void GemmF32(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c, int64_t cs, bool acc) {
  GemmT<LoadF32, hn::ScalableTag<float>>(m, n, k, a, b, c, cs, acc);
}
void GemmF16(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c, int64_t cs, bool acc) {
  GemmT<LoadF16, hn::ScalableTag<float>>(m, n, k, a, b, c, cs, acc);
}
void GemmBF16(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c, int64_t cs, bool acc) {
  GemmT<LoadBF16, hn::ScalableTag<float>>(m, n, k, a, b, c, cs, acc);
}
void GemmI8(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c, int64_t cs, bool acc) {
  GemmT<LoadI8, hn::ScalableTag<int32_t>>(m, n, k, a, b, c, cs, acc);
}

const cd::GemmTable* GetGemmTable() {
  static const cd::GemmTable table = [] {
    cd::GemmTable t;
    t.by_dtype[static_cast<size_t>(DType::kFloat32)] = &GemmF32;
    t.by_dtype[static_cast<size_t>(DType::kFloat16)] = &GemmF16;
    t.by_dtype[static_cast<size_t>(DType::kBFloat16)] = &GemmBF16;
    t.by_dtype[static_cast<size_t>(DType::kInt8)] = &GemmI8;
    t.target = hwy::TargetName(HWY_TARGET);
    t.mr = kMr;
    t.nr = static_cast<int>(2 * hn::Lanes(hn::ScalableTag<float>()));
    return t;
  }();
  return &table;
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::kernel::simd {
HWY_EXPORT(GetGemmTable);
}  // namespace asc::kernel::simd

namespace asc::kernel::cube {

namespace detail {
void* gemm_scratch(int slot, size_t bytes) {
  struct Buf {
    hwy::AlignedFreeUniquePtr<uint8_t[]> p;
    size_t size = 0;
  };
  thread_local Buf bufs[3];
  Buf& b = bufs[slot];
  if (b.size < bytes) {
    // Grow geometrically: a block's tiles usually repeat one size.
    const size_t want = std::max(bytes, b.size * 2);
    b.p = hwy::AllocateAligned<uint8_t>(want);
    if (!b.p) throw Error(ErrorCode::kBadAlloc, "[Mmad] cannot allocate " + std::to_string(want) + " bytes of scratch");
    b.size = want;
  }
  return b.p.get();
}

const GemmTable& gemm_table() {
  static const GemmTable* const t = (simd::apply_target_override(), HWY_DYNAMIC_DISPATCH(simd::GetGemmTable)());
  return *t;
}
}  // namespace detail

void gemm(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c, DType c_dtype,
          int64_t c_col_stride, bool accumulate) {
  const DType want = a.dtype == DType::kInt8 ? DType::kInt32 : DType::kFloat32;
  const detail::GemmFn fn = detail::gemm_table().by_dtype[static_cast<size_t>(a.dtype)];
  if (!fn || a.dtype != b.dtype || c_dtype != want) {
    throw Error(ErrorCode::kInvalidDtype, std::string("[Mmad] unsupported dtypes: A ") + dtype_name(a.dtype) +
                                              ", B " + dtype_name(b.dtype) + ", C " + dtype_name(c_dtype) +
                                              " (supported: float16/bfloat16/float32 x same -> float32, "
                                              "int8 x int8 -> int32)");
  }
  if (m <= 0 || n <= 0) return;
  fn(m, n, k, a, b, c, c_col_stride, accumulate);
}

const char* gemm_target() noexcept { return detail::gemm_table().target; }

}  // namespace asc::kernel::cube
#endif  // HWY_ONCE
