// The vectorised passes of the separable resize (src/image/resample_simd.h),
// Highway dynamic dispatch (ASC_SIMD_TARGET honoured).
//
// Horizontal: every output element of a row is a K-tap dot product over
// precomputed source positions, so one vector of outputs is K gathers and K
// multiply-adds whatever the channel count (channels are folded into the table:
// element (x, ch) reads src[idx(x)*C + ch]). uint8 rows are gathered as 32-bit
// words at byte offsets clamped to the row (the wanted byte is shifted down by a
// per-lane amount from the table), so the gather never reads past the image.
// Vertical: a multiply-add of K float rows, then either round-half-up to uint8
// (clamped first, as the reference libraries' fixed point) or an affine map
// (the fused preprocess's normalise) to float32. Arithmetic is float32 with
// float64-derived weights: uint8 results are within 1 LSB of the float64
// formula, the same bound as before vectorising.
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the uint8 gather assumes little-endian words"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "image/resample_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace asc::image::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void HPassU8(const uint8_t* row, int K, int64_t L, bool gather4, const int32_t* src, const int32_t* goff,
             const int32_t* sh, const float* w, float* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const int64_t N = int64_t(hn::Lanes(df));
  int64_t j = 0;
  if (gather4) {
    const uint32_t* base = reinterpret_cast<const uint32_t*>(row);  // gathered at byte offsets
    const auto mask = hn::Set(du, 0xFFu);
    for (; j + N <= L; j += N) {
      auto acc = hn::Zero(df);
      for (int k = 0; k < K; ++k) {
        const int64_t o = int64_t(k) * L + j;
        auto v = hn::GatherOffset(du, base, hn::LoadU(di, goff + o));
        v = hn::And(v >> hn::BitCast(du, hn::LoadU(di, sh + o)), mask);
        acc = hn::MulAdd(hn::ConvertTo(df, hn::BitCast(di, v)), hn::LoadU(df, w + o), acc);
      }
      hn::StoreU(acc, df, out + j);
    }
  }
  for (; j < L; ++j) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += w[int64_t(k) * L + j] * float(row[src[int64_t(k) * L + j]]);
    out[j] = acc;
  }
}

// 3- or 4-channel interleaved rows: one 4-lane vector per output pixel, K loads of one
// source pixel each (its 3 or 4 channels plus, for 3, the next pixel's first: that lane is
// overwritten by the next pixel's store; the row buffer has one float of slack). Pixels
// from `nsafe` on read the row's last pixel and take the scalar loop. No gathers: they
// are slow on some x86 cores (AMD's vpgatherdd: ~1 cycle per lane).
template <typename T, int KK>
void HPixT(const T* row, int C, int Kd, int64_t ow, int64_t nsafe, const int32_t* off, const float* w, float* out) {
  const int K = KK > 0 ? KK : Kd;  // 2 and 4 taps are compiled apart so the tap loop unrolls
  const hn::CappedTag<float, 4> d4;
  int64_t x = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  {
    // two output pixels per 8-lane vector: each tap loads both pixels' 4 elements into one
    // vector (the 4-byte pairs composed in a register: two stores and a reload would stall
    // on store forwarding), the halves are stored at their two pixels
    const hn::CappedTag<float, 8> d8;
    const hn::RebindToSigned<decltype(d8)> di8;
    const hn::Full128<uint64_t> d64;
    const hn::Full128<uint8_t> du8;
    for (; x + 1 < nsafe; x += 2) {
      auto acc = hn::Zero(d8);
      for (int k = 0; k < K; ++k) {
        const T* p0 = row + off[x * K + k];
        const T* p1 = row + off[(x + 1) * K + k];
        hn::Vec<decltype(d8)> v;
        if constexpr (sizeof(T) == 1) {
          uint32_t a, b;
          std::memcpy(&a, p0, 4);
          std::memcpy(&b, p1, 4);
          const auto q = hn::BitCast(du8, hn::Set(d64, uint64_t(a) | (uint64_t(b) << 32)));
          v = hn::ConvertTo(d8, hn::PromoteTo(di8, hn::LowerHalf(q)));
        } else {
          v = hn::Combine(d8, hn::LoadU(d4, p1), hn::LoadU(d4, p0));
        }
        const auto wv = hn::Combine(d8, hn::Set(d4, w[(x + 1) * K + k]), hn::Set(d4, w[x * K + k]));
        acc = hn::MulAdd(v, wv, acc);
      }
      hn::StoreU(hn::LowerHalf(d4, acc), d4, out + x * C);
      hn::StoreU(hn::UpperHalf(d4, acc), d4, out + (x + 1) * C);
    }
  }
#endif
  if (hn::Lanes(d4) == 4) {
    const hn::RebindToSigned<decltype(d4)> di4;
    const hn::Rebind<uint8_t, decltype(di4)> d8;
    for (; x < nsafe; ++x) {
      auto acc = hn::Zero(d4);
      for (int k = 0; k < K; ++k) {
        const T* p = row + off[x * K + k];
        hn::Vec<decltype(d4)> v;
        if constexpr (sizeof(T) == 1) {
          v = hn::ConvertTo(d4, hn::PromoteTo(di4, hn::LoadU(d8, p)));
        } else {
          v = hn::LoadU(d4, p);
        }
        acc = hn::MulAdd(v, hn::Set(d4, w[x * K + k]), acc);
      }
      hn::StoreU(acc, d4, out + x * C);
    }
  }
  for (; x < ow; ++x) {
    for (int ch = 0; ch < C; ++ch) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += w[x * K + k] * float(row[off[x * K + k] + ch]);
      out[x * C + ch] = acc;
    }
  }
}

void HPixU8(const uint8_t* row, int C, int K, int64_t ow, int64_t nsafe, const int32_t* off, const float* w,
            float* out) {
  if (K == 2) return HPixT<uint8_t, 2>(row, C, K, ow, nsafe, off, w, out);
  if (K == 4) return HPixT<uint8_t, 4>(row, C, K, ow, nsafe, off, w, out);
  HPixT<uint8_t, 0>(row, C, K, ow, nsafe, off, w, out);
}

void HPixF32(const float* row, int C, int K, int64_t ow, int64_t nsafe, const int32_t* off, const float* w,
             float* out) {
  if (K == 2) return HPixT<float, 2>(row, C, K, ow, nsafe, off, w, out);
  if (K == 4) return HPixT<float, 4>(row, C, K, ow, nsafe, off, w, out);
  HPixT<float, 0>(row, C, K, ow, nsafe, off, w, out);
}

// One-channel rows, outputs [fa, fb) whose K (2 or 4) taps are consecutive: each output's taps
// are one 8- or 16-byte load, transposed into tap vectors in registers. vgatherdps waits ~20
// cycles per 8 lanes on the AMD cores this was measured on and K of them per 8 outputs bounded
// the pass. The sums are the gather loop's (same products, same order): bit-equal results.
template <int K>
int64_t HRunF32(const float* row, int64_t L, int64_t fa, int64_t fb, const int32_t* src, const float* w,
                float* out) {
  int64_t j = fa;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::FixedTag<float, 8> d8;
  const hn::FixedTag<float, 4> d4;
  const hn::Repartition<uint64_t, decltype(d8)> dq;
  for (; j + 8 <= fb; j += 8) {
    hn::Vec<decltype(d8)> t[K];
    if constexpr (K == 2) {
      const hn::FixedTag<double, 1> e1;
      const hn::FixedTag<double, 2> e2;
      const hn::FixedTag<double, 4> e4;
      auto pr = [&](int64_t i) {
        double v;
        std::memcpy(&v, row + src[i], 8);
        return hn::Set(e1, v);
      };
      const auto lo = hn::BitCast(d8, hn::Combine(e4, hn::Combine(e2, pr(j + 3), pr(j + 2)),
                                                  hn::Combine(e2, pr(j + 1), pr(j))));
      const auto hi = hn::BitCast(d8, hn::Combine(e4, hn::Combine(e2, pr(j + 7), pr(j + 6)),
                                                  hn::Combine(e2, pr(j + 5), pr(j + 4))));
      t[0] = hn::ConcatEven(d8, hi, lo);
      t[1] = hn::ConcatOdd(d8, hi, lo);
    } else {
      auto q = [&](int64_t a, int64_t b) {  // outputs a (lower block) and b (upper block)
        return hn::Combine(d8, hn::LoadU(d4, row + src[b]), hn::LoadU(d4, row + src[a]));
      };
      const auto A = q(j, j + 4), B = q(j + 1, j + 5), C = q(j + 2, j + 6), D = q(j + 3, j + 7);
      // 4x4 transposes within each 128-bit block
      const auto ab0 = hn::BitCast(dq, hn::InterleaveLower(d8, A, B));
      const auto ab1 = hn::BitCast(dq, hn::InterleaveUpper(d8, A, B));
      const auto cd0 = hn::BitCast(dq, hn::InterleaveLower(d8, C, D));
      const auto cd1 = hn::BitCast(dq, hn::InterleaveUpper(d8, C, D));
      t[0] = hn::BitCast(d8, hn::InterleaveLower(dq, ab0, cd0));
      t[1] = hn::BitCast(d8, hn::InterleaveUpper(dq, ab0, cd0));
      t[2] = hn::BitCast(d8, hn::InterleaveLower(dq, ab1, cd1));
      t[3] = hn::BitCast(d8, hn::InterleaveUpper(dq, ab1, cd1));
    }
    auto acc = hn::MulAdd(t[0], hn::LoadU(d8, w + j), hn::Zero(d8));
    for (int k = 1; k < K; ++k) acc = hn::MulAdd(t[k], hn::LoadU(d8, w + int64_t(k) * L + j), acc);
    hn::StoreU(acc, d8, out + j);
  }
#else
  (void)row, (void)L, (void)fb, (void)src, (void)w, (void)out;
#endif
  return j;
}

void HPassF32(const float* row, int K, int64_t L, int64_t fa, int64_t fb, const int32_t* src, const float* w,
              float* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const int64_t N = int64_t(hn::Lanes(df));
  int64_t j = 0;
  if (fb - fa >= 8 && (K == 2 || K == 4)) {
    for (; j < fa; ++j) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += w[int64_t(k) * L + j] * row[src[int64_t(k) * L + j]];
      out[j] = acc;
    }
    j = K == 2 ? HRunF32<2>(row, L, fa, fb, src, w, out) : HRunF32<4>(row, L, fa, fb, src, w, out);
  }
  for (; j + N <= L; j += N) {
    auto acc = hn::Zero(df);
    for (int k = 0; k < K; ++k) {
      const int64_t o = int64_t(k) * L + j;
      acc = hn::MulAdd(hn::GatherIndex(df, row, hn::LoadU(di, src + o)), hn::LoadU(df, w + o), acc);
    }
    hn::StoreU(acc, df, out + j);
  }
  for (; j < L; ++j) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += w[int64_t(k) * L + j] * row[src[int64_t(k) * L + j]];
    out[j] = acc;
  }
}

// sum_k w[k] * rows[k][j] for one vector at j
template <int KK, class D>
HWY_INLINE hn::Vec<D> VSum(D df, const float* const* rows, const float* w, int Kd, int64_t j) {
  const int K = KK > 0 ? KK : Kd;
  auto acc = hn::Mul(hn::LoadU(df, rows[0] + j), hn::Set(df, w[0]));
  for (int k = 1; k < K; ++k) acc = hn::MulAdd(hn::LoadU(df, rows[k] + j), hn::Set(df, w[k]), acc);
  return acc;
}

template <int KK>
void VPassU8T(const float* const* rows, const float* w, int K, int64_t n, uint8_t* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(di)> d8;
  const int64_t N = int64_t(hn::Lanes(df));
  const auto lo = hn::Zero(df), hi = hn::Set(df, 255.f), half = hn::Set(df, 0.5f);
  int64_t j = 0;
  for (; j + N <= n; j += N) {
    const auto v = hn::Add(hn::Min(hn::Max(VSum<KK>(df, rows, w, K, j), lo), hi), half);
    hn::StoreU(hn::DemoteTo(d8, hn::ConvertTo(di, v)), d8, out + j);  // ConvertTo truncates: v >= 0.5
  }
  for (; j < n; ++j) {
    float a = 0.f;
    for (int k = 0; k < K; ++k) a += w[k] * rows[k][j];
    out[j] = uint8_t(int32_t(std::min(std::max(a, 0.f), 255.f) + 0.5f));
  }
}

void VPassU8(const float* const* rows, const float* w, int K, int64_t n, uint8_t* out) {
  if (K == 2) return VPassU8T<2>(rows, w, K, n, out);
  if (K == 4) return VPassU8T<4>(rows, w, K, n, out);
  VPassU8T<0>(rows, w, K, n, out);
}

template <int KK>
void VPassF32T(const float* const* rows, const float* w, int K, int64_t n, float mul, float add, float* out) {
  const hn::ScalableTag<float> df;
  const int64_t N = int64_t(hn::Lanes(df));
  const auto m = hn::Set(df, mul), a = hn::Set(df, add);
  const bool affine = mul != 1.f || add != 0.f;
  int64_t j = 0;
  for (; j + N <= n; j += N) {
    auto v = VSum<KK>(df, rows, w, K, j);
    if (affine) v = hn::MulAdd(v, m, a);
    hn::StoreU(v, df, out + j);
  }
  for (; j < n; ++j) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += w[k] * rows[k][j];
    out[j] = affine ? s * mul + add : s;
  }
}

// 2 and 4 taps compiled apart so the tap loop unrolls (the upscales are bound by this pass)
void VPassF32(const float* const* rows, const float* w, int K, int64_t n, float mul, float add, float* out) {
  if (K == 2) return VPassF32T<2>(rows, w, K, n, mul, add, out);
  if (K == 4) return VPassF32T<4>(rows, w, K, n, mul, add, out);
  VPassF32T<0>(rows, w, K, n, mul, add, out);
}

}  // namespace asc::image::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "image/resample_simd.h"
#include "kernel/simd/tables.h"

namespace asc::image::simd {
HWY_EXPORT(HPassU8);
HWY_EXPORT(HPassF32);
HWY_EXPORT(HPixU8);
HWY_EXPORT(HPixF32);
HWY_EXPORT(VPassU8);
HWY_EXPORT(VPassF32);
}  // namespace asc::image::simd

namespace asc::image::detail {
namespace {
void init_target() {
  static const bool once = (kernel::simd::apply_target_override(), true);
  (void)once;
}
}  // namespace

HTable make_htable(const Axis& ax, int64_t first, int64_t ow, int64_t w, int64_t c, int planes,
                   const int64_t* src_ch) {
  HTable t;
  t.K = ax.K;
  const int64_t per = planes < 0 ? c : planes;  // output elements per output pixel
  t.L = ow * per;
  const int64_t row_bytes = w * c;
  t.gather4 = row_bytes >= 4;
  if (planes < 0 && (c == 3 || c == 4)) {  // the per-pixel path (HPixT)
    t.C = int(c);
    t.ow = ow;
    t.pix_off.resize(size_t(ow * t.K));
    t.pix_w.resize(size_t(ow * t.K));
    t.nsafe = ow;
    for (int64_t x = ow - 1; x >= 0; --x) {
      bool safe = true;
      for (int k = 0; k < t.K; ++k) {
        const size_t a = size_t((first + x) * t.K + k);
        t.pix_off[size_t(x * t.K + k)] = int32_t(int64_t(ax.idx[a]) * c);
        t.pix_w[size_t(x * t.K + k)] = ax.w[a];
        safe = safe && int64_t(ax.idx[a]) * c + 4 <= row_bytes;
      }
      if (!safe) t.nsafe = x;  // indices never decrease with x: the unsafe pixels are a suffix
    }
    return t;
  }
  if (planes < 0 && c == 1) {
    auto ok = [&](int64_t x) {
      const int64_t s0 = ax.idx[size_t((first + x) * t.K)];
      for (int k = 1; k < t.K; ++k) {
        if (ax.idx[size_t((first + x) * t.K + k)] != s0 + k) return false;
      }
      return s0 + t.K <= w;
    };
    while (t.fa < ow && !ok(t.fa)) ++t.fa;  // the consecutive-taps outputs are one run
    t.fb = t.fa;
    while (t.fb < ow && ok(t.fb)) ++t.fb;
  }
  const size_t n = size_t(t.K) * size_t(t.L);
  t.src.resize(n);
  t.goff.resize(n);
  t.sh.resize(n);
  t.w.resize(n);
  for (int64_t x = 0; x < ow; ++x) {
    for (int64_t e = 0; e < per; ++e) {
      const int64_t ch = planes < 0 ? e : src_ch[e];
      const int64_t j = planes < 0 ? x * c + e : e * ow + x;
      for (int k = 0; k < t.K; ++k) {
        const size_t a = size_t((first + x) * t.K + k), o = size_t(int64_t(k) * t.L + j);
        const int64_t s = int64_t(ax.idx[a]) * c + ch;
        const int64_t g = t.gather4 ? std::min<int64_t>(s, row_bytes - 4) : 0;
        t.src[o] = int32_t(s);
        t.goff[o] = int32_t(g);
        t.sh[o] = int32_t(8 * (s - g));  // little-endian: byte i of the word is bits 8i..8i+7
        t.w[o] = ax.w[a];
      }
    }
  }
  return t;
}

void hpass_u8(const uint8_t* row, const HTable& t, float* out) {
  init_target();
  if (t.C) {
    HWY_DYNAMIC_DISPATCH(simd::HPixU8)(row, t.C, t.K, t.ow, t.nsafe, t.pix_off.data(), t.pix_w.data(), out);
    return;
  }
  HWY_DYNAMIC_DISPATCH(simd::HPassU8)(row, t.K, t.L, t.gather4, t.src.data(), t.goff.data(), t.sh.data(), t.w.data(),
                                      out);
}

void hpass_f32(const float* row, const HTable& t, float* out) {
  init_target();
  if (t.C) {
    HWY_DYNAMIC_DISPATCH(simd::HPixF32)(row, t.C, t.K, t.ow, t.nsafe, t.pix_off.data(), t.pix_w.data(), out);
    return;
  }
  HWY_DYNAMIC_DISPATCH(simd::HPassF32)(row, t.K, t.L, t.fa, t.fb, t.src.data(), t.w.data(), out);
}

void vpass_u8(const float* const* rows, const float* w, int K, int64_t n, uint8_t* out) {
  init_target();
  HWY_DYNAMIC_DISPATCH(simd::VPassU8)(rows, w, K, n, out);
}

void vpass_f32(const float* const* rows, const float* w, int K, int64_t n, float mul, float add, float* out) {
  init_target();
  HWY_DYNAMIC_DISPATCH(simd::VPassF32)(rows, w, K, n, mul, add, out);
}

}  // namespace asc::image::detail
#endif  // HWY_ONCE
