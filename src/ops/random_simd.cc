// Highway code of src/ops/random_simd.h (one table of entry points per
// target; see that header for the contracts).
//
// No fused multiply-adds: GCC would contract Mul+Add intrinsics on FMA targets,
// which rounds once instead of twice and makes results depend on the target.
#pragma GCC optimize("fp-contract=off")
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/random_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernel/simd/tables.h"
#include "ops/random_simd.h"

#ifndef ASC_OPS_RANDOM_SIMD_SCALAR_ONCE
#define ASC_OPS_RANDOM_SIMD_SCALAR_ONCE
namespace asc::ops::rng::detail {
// The reference scalar Philox-4x32-10 (also used for lanes whose low counter
// word would wrap inside a vector, and for tails).
inline void philox_scalar(const PhiloxKey& key, uint64_t c, uint32_t* w) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(c), c1 = static_cast<uint32_t>(c >> 32), c2 = key.s0, c3 = key.s1;
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = uint64_t(kM0) * c0, p1 = uint64_t(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += kW0;
    k1 += kW1;
  }
  w[0] = c0;
  w[1] = c1;
  w[2] = c2;
  w[3] = c3;
}
}  // namespace asc::ops::rng::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace asc::ops::rng::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

/// hi:lo = a * m per u32 lane (MulEven covers the even lanes; the odd lanes
/// are shifted down and multiplied the same way).
template <class D, class V>
HWY_INLINE void MulHiLo(D d, V a, V m, V& hi, V& lo) {
  const hn::Repartition<uint64_t, D> d64;
  const auto pe = hn::MulEven(a, m);
  const auto po = hn::MulEven(hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, a))), m);
  lo = hn::OddEven(hn::BitCast(d, hn::ShiftLeft<32>(po)), hn::BitCast(d, pe));
  hi = hn::OddEven(hn::BitCast(d, po), hn::BitCast(d, hn::ShiftRight<32>(pe)));
}

void PhiloxBlocks(const PhiloxKey& key, uint64_t first, size_t nblocks, uint32_t* out) {
  const hn::ScalableTag<uint32_t> d;
  const size_t N = hn::Lanes(d);
  const auto m0 = hn::Set(d, 0xD2511F53u), m1 = hn::Set(d, 0xCD9E8D57u);
  const auto s0 = hn::Set(d, key.s0), s1 = hn::Set(d, key.s1);
  const auto iota = hn::Iota(d, 0);
  size_t b = 0;
  for (; b + N <= nblocks; b += N) {
    const uint64_t c = first + b;
    const uint32_t lo32 = static_cast<uint32_t>(c);
    if (lo32 > 0xFFFFFFFFu - static_cast<uint32_t>(N - 1)) {
      // The low counter word wraps inside this vector: carry per block.
      for (size_t j = 0; j < N; ++j) detail::philox_scalar(key, c + j, out + 4 * (b + j));
      continue;
    }
    auto c0 = hn::Add(hn::Set(d, lo32), iota);
    auto c1 = hn::Set(d, static_cast<uint32_t>(c >> 32));
    auto c2 = s0, c3 = s1;
    uint32_t k0 = key.k0, k1 = key.k1;
    for (int r = 0; r < 10; ++r) {
      hn::Vec<decltype(d)> hi0, lo0, hi1, lo1;
      MulHiLo(d, c0, m0, hi0, lo0);
      MulHiLo(d, c2, m1, hi1, lo1);
      const auto n0 = hn::Xor(hn::Xor(hi1, c1), hn::Set(d, k0));
      const auto n2 = hn::Xor(hn::Xor(hi0, c3), hn::Set(d, k1));
      c1 = lo1;
      c3 = lo0;
      c0 = n0;
      c2 = n2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    hn::StoreInterleaved4(c0, c1, c2, c3, d, out + 4 * b);
  }
  for (; b < nblocks; ++b) detail::philox_scalar(key, first + b, out + 4 * b);
}

void UnitF64(const uint64_t* x, double* out, size_t n, double low, double width) {
  const hn::ScalableTag<double> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df);
  const auto scale = hn::Set(df, 0x1.0p-53), vlow = hn::Set(df, low), vw = hn::Set(df, width);
  const bool unit = low == 0.0 && width == 1.0;
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::BitCast(di, hn::ShiftRight<11>(hn::LoadU(du, x + i)));
    auto u = hn::Mul(hn::ConvertTo(df, v), scale);
    if (!unit) u = hn::Add(vlow, hn::Mul(vw, u));
    hn::StoreU(u, df, out + i);
  }
  for (; i < n; ++i) {
    const double u = static_cast<double>(x[i] >> 11) * 0x1.0p-53;
    out[i] = unit ? u : low + width * u;
  }
}

void UnitF32(const uint32_t* x, float* out, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df);
  const auto scale = hn::Set(df, 0x1.0p-24f);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::BitCast(di, hn::ShiftRight<8>(hn::LoadU(du, x + i)));
    hn::StoreU(hn::Mul(hn::ConvertTo(df, v), scale), df, out + i);
  }
  for (; i < n; ++i) out[i] = static_cast<float>(x[i] >> 8) * 0x1.0p-24f;
}

void BoundedU64(const uint64_t* x, uint64_t* out, size_t n, uint64_t low, uint64_t range) {
  // floor(x * range / 2^64) for range < 2^32 with x = xh 2^32 + xl:
  // (xh * range + ((xl * range) >> 32)) >> 32, no term overflowing 64 bits.
  const hn::ScalableTag<uint64_t> d;
  const hn::Repartition<uint32_t, decltype(d)> d32;
  const size_t N = hn::Lanes(d);
  const auto r32 = hn::BitCast(d32, hn::Set(d, range));
  const auto vlow = hn::Set(d, low);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    const auto a = hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(v)), r32);
    const auto b = hn::MulEven(hn::BitCast(d32, v), r32);
    hn::StoreU(hn::Add(vlow, hn::ShiftRight<32>(hn::Add(a, hn::ShiftRight<32>(b)))), d, out + i);
  }
  for (; i < n; ++i) {
    const uint64_t xh = x[i] >> 32, xl = x[i] & 0xFFFFFFFFu;
    out[i] = low + ((xh * range + ((xl * range) >> 32)) >> 32);
  }
}

void BoxMullerInputs(const uint64_t* x, double* u1, double* t, size_t nb) {
  const hn::ScalableTag<double> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const size_t N = hn::Lanes(df);
  const auto scale = hn::Set(df, 0x1.0p-53), two_pi = hn::Set(df, 6.283185307179586476925286766559);
  const auto one = hn::Set(du, 1);
  size_t b = 0;
  for (; b + N <= nb; b += N) {
    hn::Vec<decltype(du)> a, c;
    hn::LoadInterleaved2(du, x + 2 * b, a, c);
    const auto va = hn::BitCast(di, hn::Add(hn::ShiftRight<11>(a), one));
    const auto vc = hn::BitCast(di, hn::ShiftRight<11>(c));
    hn::StoreU(hn::Mul(hn::ConvertTo(df, va), scale), df, u1 + b);
    hn::StoreU(hn::Mul(two_pi, hn::Mul(hn::ConvertTo(df, vc), scale)), df, t + b);
  }
  for (; b < nb; ++b) {
    u1[b] = static_cast<double>((x[2 * b] >> 11) + 1) * 0x1.0p-53;
    t[b] = 6.283185307179586476925286766559 * (static_cast<double>(x[2 * b + 1] >> 11) * 0x1.0p-53);
  }
}

void BoxMullerFinish(const double* lg, const double* c, const double* s, double* out, size_t nb, double loc,
                     double scale) {
  const hn::ScalableTag<double> df;
  const size_t N = hn::Lanes(df);
  const auto m2 = hn::Set(df, -2.0), vloc = hn::Set(df, loc), vs = hn::Set(df, scale);
  size_t b = 0;
  for (; b + N <= nb; b += N) {
    const auto r = hn::Sqrt(hn::Mul(m2, hn::LoadU(df, lg + b)));
    const auto z0 = hn::Add(vloc, hn::Mul(vs, hn::Mul(r, hn::LoadU(df, c + b))));
    const auto z1 = hn::Add(vloc, hn::Mul(vs, hn::Mul(r, hn::LoadU(df, s + b))));
    hn::StoreInterleaved2(z0, z1, df, out + 2 * b);
  }
  for (; b < nb; ++b) {
    const double r = std::sqrt(-2.0 * lg[b]);
    out[2 * b] = loc + scale * (r * c[b]);
    out[2 * b + 1] = loc + scale * (r * s[b]);
  }
}

#else  // HWY_SCALAR: the reference loops.

void PhiloxBlocks(const PhiloxKey& key, uint64_t first, size_t nblocks, uint32_t* out) {
  for (size_t b = 0; b < nblocks; ++b) detail::philox_scalar(key, first + b, out + 4 * b);
}
void UnitF64(const uint64_t* x, double* out, size_t n, double low, double width) {
  const bool unit = low == 0.0 && width == 1.0;
  for (size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(x[i] >> 11) * 0x1.0p-53;
    out[i] = unit ? u : low + width * u;
  }
}
void UnitF32(const uint32_t* x, float* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(x[i] >> 8) * 0x1.0p-24f;
}
void BoundedU64(const uint64_t* x, uint64_t* out, size_t n, uint64_t low, uint64_t range) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t xh = x[i] >> 32, xl = x[i] & 0xFFFFFFFFu;
    out[i] = low + ((xh * range + ((xl * range) >> 32)) >> 32);
  }
}
void BoxMullerInputs(const uint64_t* x, double* u1, double* t, size_t nb) {
  for (size_t b = 0; b < nb; ++b) {
    u1[b] = static_cast<double>((x[2 * b] >> 11) + 1) * 0x1.0p-53;
    t[b] = 6.283185307179586476925286766559 * (static_cast<double>(x[2 * b + 1] >> 11) * 0x1.0p-53);
  }
}
void BoxMullerFinish(const double* lg, const double* c, const double* s, double* out, size_t nb, double loc,
                     double scale) {
  for (size_t b = 0; b < nb; ++b) {
    const double r = std::sqrt(-2.0 * lg[b]);
    out[2 * b] = loc + scale * (r * c[b]);
    out[2 * b + 1] = loc + scale * (r * s[b]);
  }
}

#endif

}  // namespace asc::ops::rng::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::ops::rng {

HWY_EXPORT(PhiloxBlocks);
HWY_EXPORT(UnitF64);
HWY_EXPORT(UnitF32);
HWY_EXPORT(BoundedU64);
HWY_EXPORT(BoxMullerInputs);
HWY_EXPORT(BoxMullerFinish);

namespace {
// Calls resolve through Highway's per-function dispatch tables (one indirect
// call per tile of ~1000 elements, so caching a table of our own buys nothing).
inline void init() { kernel::simd::apply_target_override(); }
}  // namespace

void philox_blocks(const PhiloxKey& key, uint64_t first, size_t nblocks, uint32_t* out) {
  init();
  HWY_DYNAMIC_DISPATCH(PhiloxBlocks)(key, first, nblocks, out);
}
void unit_f64(const uint64_t* x, double* out, size_t n, double low, double width) {
  init();
  HWY_DYNAMIC_DISPATCH(UnitF64)(x, out, n, low, width);
}
void unit_f32(const uint32_t* x, float* out, size_t n) {
  init();
  HWY_DYNAMIC_DISPATCH(UnitF32)(x, out, n);
}
void bounded_u64(const uint64_t* x, uint64_t* out, size_t n, uint64_t low, uint64_t range) {
  init();
  HWY_DYNAMIC_DISPATCH(BoundedU64)(x, out, n, low, range);
}
void box_muller_inputs(const uint64_t* x, double* u1, double* t, size_t nblocks) {
  init();
  HWY_DYNAMIC_DISPATCH(BoxMullerInputs)(x, u1, t, nblocks);
}
void box_muller_finish(const double* lg, const double* c, const double* s, double* out, size_t nblocks, double loc,
                       double scale) {
  init();
  HWY_DYNAMIC_DISPATCH(BoxMullerFinish)(lg, c, s, out, nblocks, loc, scale);
}

}  // namespace asc::ops::rng
#endif  // HWY_ONCE
