// uint8 bilinear / bicubic (OpenCV's INTER_LINEAR / INTER_CUBIC) in OpenCV's 16-bit fixed
// point, Highway dynamic dispatch (ASC_SIMD_TARGET honoured); the float path for float32 and
// the fused preprocess stays in resample_simd.cc.
//
// Weights are OpenCV's: the source coordinate and Keys' kernel in float32 as cv::resize
// computes them, times 2048 (INTER_RESIZE_COEF_BITS = 11) rounded to int16. The horizontal
// pass is exact integer arithmetic (uint8 x int16 pair products summed in int32:
// _mm256_madd_epi16 on AVX2) into a ring of rows, so each source row is filtered once per
// thread. The vertical pass is OpenCV's too: bilinear keeps rows of (sum >> 4) as int16 and
// takes (mulhi(r0, b0) + mulhi(r1, b1) + 2) >> 2 over 16 lanes (what cv2 computes: the
// results are bit-equal to cv2.resize's INTER_LINEAR); bicubic converts the int32 sums to
// float32, multiplies by beta / 2^22 and rounds half to even (cv2's vector formula; cv2's
// bicubic results differ from these by at most 1 LSB in a few percent of the pixels). Both
// are within 1 LSB of the rounded float64 formula. Why fixed point: 16 lanes of int16 per
// AVX2 operation where float32 has 8, and no int <-> float conversions for bilinear.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the uint8 loads assume little-endian words"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "image/resample_fixed.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace asc::image::fixed::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// int32 lanes = a[2i] * b[2i] + a[2i+1] * b[2i+1] (int16 pairs): madd_epi16 on x86, two
// products elsewhere (ReorderWidenMulAccumulate's contract is only "sum0 + sum1").
template <class D32, class V16>
HWY_INLINE hn::Vec<D32> Madd(D32 d32, V16 a, V16 b) {
  auto s1 = hn::Zero(d32);
  const auto s0 = hn::ReorderWidenMulAccumulate(d32, a, b, hn::Zero(d32), s1);
  return hn::RearrangeToOddPlusEven(s0, s1);
}

// One output pixel's int32 sums -> the ring's element type: linear rows keep sum >> 4 as
// int16 (OpenCV's vertical pass starts with exactly that shift and pack), cubic rows int32.
template <typename R>
HWY_INLINE R Narrow(int32_t s) {
  if constexpr (sizeof(R) == 2) {
    return R(s >> 4);
  } else {
    return R(s);
  }
}

template <int K, typename R>
void PixScalar(const uint8_t* row, int C, int64_t x, const int32_t* off, const int16_t* w, R* out) {
  for (int ch = 0; ch < C; ++ch) {
    int32_t s = 0;
    for (int k = 0; k < K; ++k) s += int32_t(w[x * K + k]) * int32_t(row[off[x * K + k] + ch]);
    out[x * C + ch] = Narrow<R>(s);
  }
}

// 3- or 4-channel interleaved rows: per output pixel and tap pair, the two source pixels'
// 4 bytes zero-extended to int32 lanes, the second shifted into the high halves, so each lane
// is the pair (p0[ch], p1[ch]) as int16 and one madd against (w0, w1) gives 4 channel sums
// (OpenCV's cn == 3 loop; the 4th lane of a 3-channel pixel is the next pixel's first
// channel, overwritten by that pixel's store). Two pixels per vector on AVX2/AVX3.
// wx: per pair j and pixel x, 4 copies of the int32 pair (w0 & 0xFFFF) | w1 << 16, at
// ((j * ow + x) * 4). Pixels from `nsafe` on read the row's last pixel: scalar.
template <int K, typename R>
void HPixT(const uint8_t* row, int C, int64_t ow, int64_t nsafe, const int32_t* off, const int16_t* w,
           const int32_t* wx, R* out) {
  (void)nsafe, (void)wx;  // unused on the scalar target
  int64_t x = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  {
    const hn::FixedTag<int32_t, 8> d32;
    const hn::Repartition<int16_t, decltype(d32)> d16;
    const hn::Rebind<uint8_t, decltype(d32)> d8;
    const hn::FixedTag<uint64_t, 1> d64;
    const hn::FixedTag<int32_t, 4> d32h;
    for (; x + 1 < nsafe; x += 2) {
      hn::Vec<decltype(d32)> acc;
      for (int j = 0; j < K / 2; ++j) {
        uint32_t a0, b0, a1, b1;  // taps 2j and 2j+1 of pixels x and x+1
        std::memcpy(&a0, row + off[x * K + 2 * j], 4);
        std::memcpy(&b0, row + off[x * K + 2 * j + 1], 4);
        std::memcpy(&a1, row + off[(x + 1) * K + 2 * j], 4);
        std::memcpy(&b1, row + off[(x + 1) * K + 2 * j + 1], 4);
        // composed in a register: two 4-byte stores and an 8-byte reload would stall on
        // store forwarding
        const auto va = hn::PromoteTo(d32, hn::BitCast(d8, hn::Set(d64, uint64_t(a0) | (uint64_t(a1) << 32))));
        const auto vb = hn::PromoteTo(d32, hn::BitCast(d8, hn::Set(d64, uint64_t(b0) | (uint64_t(b1) << 32))));
        const auto pr = hn::BitCast(d16, hn::Or(va, hn::ShiftLeft<16>(vb)));
        const auto m = Madd(d32, pr, hn::BitCast(d16, hn::LoadU(d32, wx + (int64_t(j) * ow + x) * 4)));
        acc = j == 0 ? m : hn::Add(acc, m);
      }
      if constexpr (sizeof(R) == 2) {
        const hn::Rebind<int16_t, decltype(d32)> dn;  // 8 x int16
        const hn::Half<decltype(dn)> dq;
        const auto v = hn::DemoteTo(dn, hn::ShiftRight<4>(acc));
        hn::StoreU(hn::LowerHalf(dq, v), dq, out + x * C);
        hn::StoreU(hn::UpperHalf(dq, v), dq, out + (x + 1) * C);
      } else {
        hn::StoreU(hn::LowerHalf(d32h, acc), d32h, out + x * C);
        hn::StoreU(hn::UpperHalf(d32h, acc), d32h, out + (x + 1) * C);
      }
    }
  }
#endif
#if HWY_TARGET != HWY_SCALAR
  {
    const hn::FixedTag<int32_t, 4> d32;
    const hn::Repartition<int16_t, decltype(d32)> d16;
    const hn::Rebind<uint8_t, decltype(d32)> d8;
    for (; x < nsafe; ++x) {
      hn::Vec<decltype(d32)> acc;
      for (int j = 0; j < K / 2; ++j) {
        const auto va = hn::PromoteTo(d32, hn::LoadU(d8, row + off[x * K + 2 * j]));
        const auto vb = hn::PromoteTo(d32, hn::LoadU(d8, row + off[x * K + 2 * j + 1]));
        const auto pr = hn::BitCast(d16, hn::Or(va, hn::ShiftLeft<16>(vb)));
        const auto m = Madd(d32, pr, hn::BitCast(d16, hn::LoadU(d32, wx + (int64_t(j) * ow + x) * 4)));
        acc = j == 0 ? m : hn::Add(acc, m);
      }
      if constexpr (sizeof(R) == 2) {
        const hn::Rebind<int16_t, decltype(d32)> dn;
        hn::StoreU(hn::DemoteTo(dn, hn::ShiftRight<4>(acc)), dn, out + x * C);
      } else {
        hn::StoreU(acc, d32, out + x * C);
      }
    }
  }
#endif
  for (; x < ow; ++x) PixScalar<K>(row, C, x, off, w, out);
}

// One-channel rows: in [xa, xb) the K taps are consecutive bytes and the 4-byte word at the
// first one lies inside the row, so one 32-bit gather per output brings all taps; bytes
// (0, 1) and (2, 3) are spread into int16 pairs for the madd. wp: int32 pairs at (j * ow + x).
template <int K, typename R>
void HGrayT(const uint8_t* row, int64_t ow, int64_t xa, int64_t xb, const int32_t* off, const int16_t* w,
            const int32_t* wp, R* out) {
  (void)xb, (void)wp;  // unused on the scalar target
  int64_t x = 0;
  for (; x < xa; ++x) PixScalar<K>(row, 1, x, off, w, out);
#if HWY_TARGET != HWY_SCALAR
  const hn::CappedTag<int32_t, 8> d32;  // 8 lanes on AVX2 and AVX3
  const hn::Repartition<int16_t, decltype(d32)> d16;
  const int64_t N = int64_t(hn::Lanes(d32));
  const int32_t* base = reinterpret_cast<const int32_t*>(row);  // gathered at byte offsets
  const auto m00ff = hn::Set(d32, 0xFF), mff00 = hn::Set(d32, 0xFF00), m_hi = hn::Set(d32, 0xFF0000);
  // off holds K entries per output; the gather wants tap 0's offsets contiguous: wp's
  // companion `first` table is passed as off + ow * K (see make_htable_q)
  const int32_t* first = off + ow * K;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if (N == 8) {
    // x86 gathers (vpgatherdd) wait ~20 cycles on the AMD cores this was measured on and
    // dominated the profile: 8 plain 4-byte loads composed in registers are faster
    const hn::FixedTag<uint64_t, 1> d1;
    const hn::FixedTag<uint64_t, 2> d2;
    const hn::FixedTag<uint64_t, 4> d4;
    auto q = [&](int64_t i) {
      uint32_t a, b;
      std::memcpy(&a, row + first[i], 4);
      std::memcpy(&b, row + first[i + 1], 4);
      return hn::Set(d1, uint64_t(a) | (uint64_t(b) << 32));
    };
    for (; x + 8 <= xb; x += 8) {
      const auto word = hn::BitCast(d32, hn::Combine(d4, hn::Combine(d2, q(x + 6), q(x + 4)),
                                                     hn::Combine(d2, q(x + 2), q(x))));
      const auto lo = hn::Or(hn::And(word, m00ff), hn::ShiftLeft<8>(hn::And(word, mff00)));
      auto acc = Madd(d32, hn::BitCast(d16, lo), hn::BitCast(d16, hn::LoadU(d32, wp + x)));
      if constexpr (K == 4) {
        const auto hi = hn::Or(hn::And(hn::ShiftRight<16>(word), m00ff), hn::And(hn::ShiftRight<8>(word), m_hi));
        acc = hn::Add(acc, Madd(d32, hn::BitCast(d16, hi), hn::BitCast(d16, hn::LoadU(d32, wp + ow + x))));
      }
      if constexpr (sizeof(R) == 2) {
        const hn::Rebind<int16_t, decltype(d32)> dn;
        hn::StoreU(hn::DemoteTo(dn, hn::ShiftRight<4>(acc)), dn, out + x);
      } else {
        hn::StoreU(acc, d32, out + x);
      }
    }
  }
#endif
  for (; x + N <= xb; x += N) {
    const auto word = hn::GatherOffset(d32, base, hn::LoadU(d32, first + x));
    const auto lo = hn::Or(hn::And(word, m00ff), hn::ShiftLeft<8>(hn::And(word, mff00)));
    auto acc = Madd(d32, hn::BitCast(d16, lo), hn::BitCast(d16, hn::LoadU(d32, wp + x)));
    if constexpr (K == 4) {
      const auto hi = hn::Or(hn::And(hn::ShiftRight<16>(word), m00ff), hn::And(hn::ShiftRight<8>(word), m_hi));
      acc = hn::Add(acc, Madd(d32, hn::BitCast(d16, hi), hn::BitCast(d16, hn::LoadU(d32, wp + ow + x))));
    }
    if constexpr (sizeof(R) == 2) {
      const hn::Rebind<int16_t, decltype(d32)> dn;
      hn::StoreU(hn::DemoteTo(dn, hn::ShiftRight<4>(acc)), dn, out + x);
    } else {
      hn::StoreU(acc, d32, out + x);
    }
  }
#endif
  for (; x < ow; ++x) PixScalar<K>(row, 1, x, off, w, out);
}

template <typename R>
void HPassQT(const uint8_t* row, int C, int K, int64_t ow, int64_t nsafe, int64_t xa, int64_t xb,
             const int32_t* off, const int16_t* w, const int32_t* wx, R* out) {
  if (C == 3 || C == 4) {
    if (K == 2) return HPixT<2>(row, C, ow, nsafe, off, w, wx, out);
    return HPixT<4>(row, C, ow, nsafe, off, w, wx, out);
  }
  if (C == 1) {
    if (K == 2) return HGrayT<2>(row, ow, xa, xb, off, w, wx, out);
    return HGrayT<4>(row, ow, xa, xb, off, w, wx, out);
  }
  for (int64_t x = 0; x < ow; ++x) {  // 2 or 5+ channels: rare, plain loops
    if (K == 2) {
      PixScalar<2>(row, C, x, off, w, out);
    } else {
      PixScalar<4>(row, C, x, off, w, out);
    }
  }
}

void HPassQ16(const uint8_t* row, int C, int K, int64_t ow, int64_t nsafe, int64_t xa, int64_t xb,
              const int32_t* off, const int16_t* w, const int32_t* wx, int16_t* out) {
  HPassQT(row, C, K, ow, nsafe, xa, xb, off, w, wx, out);
}

void HPassQ32(const uint8_t* row, int C, int K, int64_t ow, int64_t nsafe, int64_t xa, int64_t xb,
              const int32_t* off, const int16_t* w, const int32_t* wx, int32_t* out) {
  HPassQT(row, C, K, ow, nsafe, xa, xb, off, w, wx, out);
}

// OpenCV's VResizeLinearVec_32s8u on rows already shifted to int16.
void VLinQ(const int16_t* r0, const int16_t* r1, int16_t b0, int16_t b1, int64_t n, uint8_t* out) {
  int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<uint8_t, decltype(d16)> d8;
  const int64_t N = int64_t(hn::Lanes(d16));
  const auto vb0 = hn::Set(d16, b0), vb1 = hn::Set(d16, b1), two = hn::Set(d16, int16_t(2));
  for (; j + N <= n; j += N) {
    auto v = hn::Add(hn::MulHigh(hn::LoadU(d16, r0 + j), vb0), hn::MulHigh(hn::LoadU(d16, r1 + j), vb1));
    hn::StoreU(hn::DemoteTo(d8, hn::ShiftRight<2>(hn::Add(v, two))), d8, out + j);
  }
#endif
  for (; j < n; ++j) {  // the same integer arithmetic (>> of a negative int is arithmetic in GCC/Clang)
    const int32_t v = ((int32_t(r0[j]) * b0) >> 16) + ((int32_t(r1[j]) * b1) >> 16);
    out[j] = uint8_t(std::min(std::max((v + 2) >> 2, 0), 255));
  }
}

// OpenCV's VResizeCubicVec_32s8u: float32 products with beta / 2^22 (exact: a power of two),
// summed innermost first, rounded half to even, saturated.
template <class DF>
HWY_INLINE void CubVec(DF df, const int32_t* s0, const int32_t* s1, const int32_t* s2, const int32_t* s3,
                       const hn::Vec<DF>* b, uint8_t* out) {
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, decltype(di)> d8;
  const auto f0 = hn::ConvertTo(df, hn::LoadU(di, s0)), f1 = hn::ConvertTo(df, hn::LoadU(di, s1));
  const auto f2 = hn::ConvertTo(df, hn::LoadU(di, s2)), f3 = hn::ConvertTo(df, hn::LoadU(di, s3));
  // Mul and Add, not MulAdd: the same roundings on every target (and as cv2's SSE build)
  const auto acc = hn::Add(hn::Mul(f0, b[0]), hn::Add(hn::Mul(f1, b[1]), hn::Add(hn::Mul(f2, b[2]), hn::Mul(f3, b[3]))));
  hn::StoreU(hn::DemoteTo(d8, hn::NearestInt(acc)), d8, out);
}

void VCubQ(const int32_t* const* rows, const int16_t* beta, int64_t n, uint8_t* out) {
  const hn::ScalableTag<float> df;
  const int64_t N = int64_t(hn::Lanes(df));
  hn::Vec<decltype(df)> b[4];
  for (int k = 0; k < 4; ++k) b[k] = hn::Set(df, float(beta[k]) * (1.f / (2048.f * 2048.f)));
  int64_t j = 0;
  for (; j + N <= n; j += N) CubVec(df, rows[0] + j, rows[1] + j, rows[2] + j, rows[3] + j, b, out + j);
  if (j < n) {  // the tail through the same vector code on zero-padded copies
    HWY_ALIGN int32_t t[4][HWY_MAX_BYTES / 4] = {};
    HWY_ALIGN uint8_t o[HWY_MAX_BYTES / 4];
    for (int k = 0; k < 4; ++k) std::memcpy(t[k], rows[k] + j, size_t(n - j) * 4);
    CubVec(df, t[0], t[1], t[2], t[3], b, o);
    std::memcpy(out + j, o, size_t(n - j));
  }
}

}  // namespace asc::image::fixed::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "image/resample_simd.h"
#include "kernel/simd/tables.h"

namespace asc::image::fixed {
HWY_EXPORT(HPassQ16);
HWY_EXPORT(HPassQ32);
HWY_EXPORT(VLinQ);
HWY_EXPORT(VCubQ);
}  // namespace asc::image::fixed

namespace asc::image::detail {
namespace {

void init_target() {
  static const bool once = (kernel::simd::apply_target_override(), true);
  (void)once;
}

// cvFloor of a float
int64_t floor_f(float v) {
  const int64_t i = int64_t(v);
  return i - int64_t(float(i) > v);
}

// OpenCV's interpolateCubic in float32 (A = -0.75). Each expression is written as cv::resize's
// and compiled for baseline x86-64 (no FMA contraction), so the float roundings are its own.
void cubic_coeffs(float x, float* c) {
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

int16_t q11(float v) {  // saturate_cast<short>(v * INTER_RESIZE_COEF_SCALE): round half to even
  const long r = std::lrint(double(v * 2048.f));
  return int16_t(std::min<long>(std::max<long>(r, -32768), 32767));
}

}  // namespace

AxisQ opencv_axis_q(int64_t in, int64_t out, bool cubic, bool clamp_linear) {
  AxisQ A;
  A.K = cubic ? 4 : 2;
  A.idx.assign(size_t(out * A.K), 0);
  A.w.assign(size_t(out * A.K), 0);
  const double scale = 1.0 / (double(out) / double(in));  // cv::resize: 1 / inv_scale
  for (int64_t o = 0; o < out; ++o) {
    float f = float((double(o) + 0.5) * scale - 0.5);
    int64_t s = floor_f(f);
    f -= float(s);
    float c[4];
    if (cubic) {
      cubic_coeffs(f, c);
      for (int k = 0; k < 4; ++k) A.idx[size_t(o * 4 + k)] = int32_t(std::clamp<int64_t>(s - 1 + k, 0, in - 1));
    } else {
      // cv::resize clamps the coordinate on the horizontal axis only; vertically the rows are
      // clamped and the weights kept (both rows are then the same row)
      if (clamp_linear && s < 0) f = 0.f, s = 0;
      if (clamp_linear && s >= in - 1) f = 0.f, s = in - 1;
      c[0] = 1.f - f;
      c[1] = f;
      A.idx[size_t(o * 2)] = int32_t(std::clamp<int64_t>(s, 0, in - 1));
      A.idx[size_t(o * 2 + 1)] = int32_t(std::clamp<int64_t>(s + 1, 0, in - 1));
    }
    for (int k = 0; k < A.K; ++k) A.w[size_t(o * A.K + k)] = q11(c[k]);
  }
  return A;
}

HTableQ make_htable_q(const AxisQ& ax, int64_t w, int64_t c) {
  HTableQ t;
  t.K = ax.K;
  t.C = int(c);
  t.ow = int64_t(ax.idx.size()) / ax.K;
  t.L = t.ow * c;
  const int K = t.K;
  const int64_t ow = t.ow, row_bytes = w * c;
  // off: K offsets per output pixel, then (one channel) tap 0's offsets again contiguously
  t.off.resize(size_t(ow * K + (c == 1 ? ow : 0)));
  t.w = ax.w;
  for (int64_t x = 0; x < ow; ++x) {
    for (int k = 0; k < K; ++k) t.off[size_t(x * K + k)] = int32_t(int64_t(ax.idx[size_t(x * K + k)]) * c);
  }
  auto pair = [&](int64_t x, int j) {
    return int32_t(uint32_t(uint16_t(ax.w[size_t(x * K + 2 * j)])) |
                   (uint32_t(uint16_t(ax.w[size_t(x * K + 2 * j + 1)])) << 16));
  };
  if (c == 3 || c == 4) {
    t.wx.resize(size_t(K / 2 * ow * 4));
    for (int j = 0; j < K / 2; ++j) {
      for (int64_t x = 0; x < ow; ++x) {
        for (int l = 0; l < 4; ++l) t.wx[size_t((j * ow + x) * 4 + l)] = pair(x, j);
      }
    }
    // every tap's 4-byte load inside the row; indices never decrease with x, so the pixels
    // failing it are a suffix
    t.nsafe = ow;
    while (t.nsafe > 0) {
      bool safe = true;
      for (int k = 0; k < K; ++k) safe = safe && int64_t(t.off[size_t((t.nsafe - 1) * K + k)]) + 4 <= row_bytes;
      if (safe) break;
      --t.nsafe;
    }
  } else if (c == 1) {
    t.wx.resize(size_t(K / 2 * ow));
    for (int j = 0; j < K / 2; ++j) {
      for (int64_t x = 0; x < ow; ++x) t.wx[size_t(j * ow + x)] = pair(x, j);
    }
    auto ok = [&](int64_t x) {
      const int64_t s0 = ax.idx[size_t(x * K)];
      for (int k = 1; k < K; ++k) {
        if (ax.idx[size_t(x * K + k)] != s0 + k) return false;
      }
      return s0 + 4 <= row_bytes;
    };
    for (int64_t x = 0; x < ow; ++x) t.off[size_t(ow * K + x)] = t.off[size_t(x * K)];
    // the consecutive-taps outputs are one run (left border, then interior, then right border)
    t.xa = 0;
    while (t.xa < ow && !ok(t.xa)) ++t.xa;
    t.xb = t.xa;
    while (t.xb < ow && ok(t.xb)) ++t.xb;
  }
  return t;
}

void hpass_q(const uint8_t* row, const HTableQ& t, void* out) {
  init_target();
  if (t.K == 2) {
    HWY_DYNAMIC_DISPATCH(fixed::HPassQ16)(row, t.C, t.K, t.ow, t.nsafe, t.xa, t.xb, t.off.data(), t.w.data(),
                                          t.wx.data(), static_cast<int16_t*>(out));
  } else {
    HWY_DYNAMIC_DISPATCH(fixed::HPassQ32)(row, t.C, t.K, t.ow, t.nsafe, t.xa, t.xb, t.off.data(), t.w.data(),
                                          t.wx.data(), static_cast<int32_t*>(out));
  }
}

void vpass_q_linear(const int16_t* r0, const int16_t* r1, const int16_t* beta, int64_t n, uint8_t* out) {
  init_target();
  HWY_DYNAMIC_DISPATCH(fixed::VLinQ)(r0, r1, beta[0], beta[1], n, out);
}

void vpass_q_cubic(const int32_t* const* rows, const int16_t* beta, int64_t n, uint8_t* out) {
  init_target();
  HWY_DYNAMIC_DISPATCH(fixed::VCubQ)(rows, beta, n, out);
}

}  // namespace asc::image::detail
#endif  // HWY_ONCE
