// Per-target helpers shared by the Highway translation units: float16 and
// bfloat16 <-> float32 conversions with round-to-nearest-even, and the "IO"
// policies that load a storage type into a compute vector and store it back.
//
// Why our own conversions: Highway 1.0.3 emulates float16 on SSE4 and scalar
// targets by truncating (and mishandles Inf/NaN), and converts to bfloat16 by
// truncation on every target. On AVX2/AVX3 we use the F16C instructions (RNE).
//
// Included once per target by foreach_target.h (hence the toggle guard).

#if defined(ASC_KERNEL_SIMD_FLOAT16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ASC_KERNEL_SIMD_FLOAT16_INL_H_
#undef ASC_KERNEL_SIMD_FLOAT16_INL_H_
#else
#define ASC_KERNEL_SIMD_FLOAT16_INL_H_
#endif

#include <cstring>

#include <hwy/highway.h>

#include "asc/core/half.h"

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef ASC_SIMD_HW_F16
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
#define ASC_SIMD_HW_F16 1
#else
#define ASC_SIMD_HW_F16 0
#endif

// float32 lanes -> float16 bit patterns in the low half of u32 lanes (RNE,
// overflow to Inf, NaN stays a quiet NaN). Same algorithm as asc::float16.
template <class D>
HWY_INLINE hn::VFromD<hn::RebindToUnsigned<D>> F32ToF16Bits(D d, hn::VFromD<D> v) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto x = hn::BitCast(du, v);
  const auto sign = hn::And(hn::ShiftRight<16>(x), hn::Set(du, 0x8000u));
  const auto abs = hn::And(x, hn::Set(du, 0x7FFFFFFFu));
  const auto absi = hn::BitCast(di, abs);
  // Normal results: rebias the exponent and round the 13 dropped bits.
  auto r = hn::Sub(abs, hn::Set(du, 0x38000000u));
  r = hn::Add(r, hn::Add(hn::Set(du, 0x0FFFu), hn::And(hn::ShiftRight<13>(r), hn::Set(du, 1u))));
  auto res = hn::ShiftRight<13>(r);
  // Subnormal results: adding 0.5f puts the value's 2^-24 units into the low
  // mantissa bits and the FPU rounds them to nearest even for us.
  const auto sub = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(d, abs), hn::Set(d, 0.5f))),
                           hn::Set(du, 0x3F000000u));
  res = hn::IfThenElse(hn::RebindMask(du, hn::Lt(absi, hn::Set(di, 0x38800000))), sub, res);
  res = hn::IfThenElse(hn::RebindMask(du, hn::Gt(absi, hn::Set(di, 0x477FEFFF))), hn::Set(du, 0x7C00u), res);
  const auto nan = hn::Or(hn::Set(du, 0x7E00u), hn::And(hn::ShiftRight<13>(abs), hn::Set(du, 0x3FFu)));
  res = hn::IfThenElse(hn::RebindMask(du, hn::Gt(absi, hn::Set(di, 0x7F800000))), nan, res);
  return hn::Or(res, sign);
}

// float16 bit patterns in u32 lanes -> float32 (exact).
template <class D>
HWY_INLINE hn::VFromD<D> F16BitsToF32(D d, hn::VFromD<hn::RebindToUnsigned<D>> h) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const auto em = hn::And(h, hn::Set(du, 0x7FFFu));
  const auto emi = hn::BitCast(di, em);
  const auto normal = hn::Add(hn::ShiftLeft<13>(em), hn::Set(du, 0x38000000u));
  auto res = hn::IfThenElse(hn::RebindMask(du, hn::Gt(emi, hn::Set(di, 0x7BFF))),
                            hn::Add(normal, hn::Set(du, 0x38000000u)), normal);
  const auto sub = hn::BitCast(du, hn::Mul(hn::ConvertTo(d, emi), hn::Set(d, 5.9604644775390625e-8f)));
  res = hn::IfThenElse(hn::RebindMask(du, hn::Lt(emi, hn::Set(di, 0x400))), sub, res);
  return hn::BitCast(d, hn::Or(res, sign));
}

// float32 -> bfloat16 bits in u32 lanes, RNE, NaN kept quiet.
template <class D>
HWY_INLINE hn::VFromD<hn::RebindToUnsigned<D>> F32ToBF16Bits(D d, hn::VFromD<D> v) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  (void)d;
  const auto x = hn::BitCast(du, v);
  const auto hi = hn::ShiftRight<16>(x);
  const auto rounded = hn::ShiftRight<16>(hn::Add(x, hn::Add(hn::Set(du, 0x7FFFu), hn::And(hn::Set(du, 1u), hi))));
  const auto absi = hn::BitCast(di, hn::And(x, hn::Set(du, 0x7FFFFFFFu)));
  return hn::IfThenElse(hn::RebindMask(du, hn::Gt(absi, hn::Set(di, 0x7F800000))),
                        hn::Or(hi, hn::Set(du, 0x40u)), rounded);
}

template <class D>
HWY_INLINE hn::VFromD<D> BF16BitsToF32(D d, hn::VFromD<hn::RebindToUnsigned<D>> h) {
  return hn::BitCast(d, hn::ShiftLeft<16>(h));
}

// ---------------------------------------------------------------- IO policies
// S: storage type in memory; C: lane type computed on. Load(d, p) reads
// Lanes(d) elements of S; Store writes them.

template <typename T>
struct NativeIO {
  using S = T;
  using C = T;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Load(D d, const S* p) {
    return hn::LoadU(d, p);
  }
  template <class D>
  static HWY_INLINE void Store(D d, hn::VFromD<D> v, S* p) {
    hn::StoreU(v, d, p);
  }
  static C ToCompute(S s) { return s; }
};

// Loads Lanes(d) u16 values and widens them to u32 lanes.
template <class D>
HWY_INLINE hn::VFromD<hn::RebindToUnsigned<D>> LoadU16AsU32(D, const uint16_t* p) {
  const hn::RebindToUnsigned<D> du;
  const hn::Rebind<uint16_t, D> d16;
  return hn::PromoteTo(du, hn::LoadU(d16, p));
}
// Stores u32 lanes holding values <= 0xFFFF as u16.
template <class D>
HWY_INLINE void StoreU32AsU16(D, hn::VFromD<hn::RebindToUnsigned<D>> v, uint16_t* p) {
  const hn::RebindToSigned<D> di;
  const hn::Rebind<uint16_t, D> d16;
  hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, v)), d16, p);
}

struct F16IO {
  using S = uint16_t;
  using C = float;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Load(D d, const S* p) {
#if ASC_SIMD_HW_F16
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
#else
    return F16BitsToF32(d, LoadU16AsU32(d, p));
#endif
  }
  template <class D>
  static HWY_INLINE void Store(D d, hn::VFromD<D> v, S* p) {
#if ASC_SIMD_HW_F16
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(p));
#else
    StoreU32AsU16(d, F32ToF16Bits(d, v), p);
#endif
  }
  static C ToCompute(S s) { return asc::detail::f16_bits_to_f32(s); }
};

struct BF16IO {
  using S = uint16_t;
  using C = float;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Load(D d, const S* p) {
    return BF16BitsToF32(d, LoadU16AsU32(d, p));
  }
  template <class D>
  static HWY_INLINE void Store(D d, hn::VFromD<D> v, S* p) {
    StoreU32AsU16(d, F32ToBF16Bits(d, v), p);
  }
  static C ToCompute(S s) { return asc::detail::bf16_bits_to_f32(s); }
};

// Largest number of lanes of any vector on this target (tail buffers).
template <typename C>
constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(C);

// Contiguous loops over an IO adapter: two vectors per iteration, then one,
// then the remainder through a padded stack buffer so that no access goes
// past n (any tile length works). Shared by the elementwise and math tables.
template <class IO, class Op>
void BinaryLoop(void* dst, const void* a, const void* b, size_t n) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const size_t N = hn::Lanes(d);
  const Op op;
  S* pd = static_cast<S*>(dst);
  const S* pa = static_cast<const S*>(a);
  const S* pb = static_cast<const S*>(b);
  size_t i = 0;
  if (n >= 2 * N) {
    for (; i <= n - 2 * N; i += 2 * N) {
      const auto a0 = IO::Load(d, pa + i);
      const auto a1 = IO::Load(d, pa + i + N);
      const auto b0 = IO::Load(d, pb + i);
      const auto b1 = IO::Load(d, pb + i + N);
      IO::Store(d, op(d, a0, b0), pd + i);
      IO::Store(d, op(d, a1, b1), pd + i + N);
    }
  }
  for (; i + N <= n; i += N) IO::Store(d, op(d, IO::Load(d, pa + i), IO::Load(d, pb + i)), pd + i);
  if (i < n) {
    const size_t r = n - i;
    S ta[kMaxLanes<C>] = {};
    S tb[kMaxLanes<C>] = {};
    S td[kMaxLanes<C>];
    std::memcpy(ta, pa + i, r * sizeof(S));
    std::memcpy(tb, pb + i, r * sizeof(S));
    IO::Store(d, op(d, IO::Load(d, ta), IO::Load(d, tb)), td);
    std::memcpy(pd + i, td, r * sizeof(S));
  }
}

template <class IO, class Op>
void UnaryLoop(void* dst, const void* src, size_t n) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const size_t N = hn::Lanes(d);
  const Op op;
  S* pd = static_cast<S*>(dst);
  const S* pa = static_cast<const S*>(src);
  size_t i = 0;
  if (n >= 2 * N) {
    for (; i <= n - 2 * N; i += 2 * N) {
      const auto a0 = IO::Load(d, pa + i);
      const auto a1 = IO::Load(d, pa + i + N);
      IO::Store(d, op(d, a0), pd + i);
      IO::Store(d, op(d, a1), pd + i + N);
    }
  }
  for (; i + N <= n; i += N) IO::Store(d, op(d, IO::Load(d, pa + i)), pd + i);
  if (i < n) {
    const size_t r = n - i;
    S ta[kMaxLanes<C>] = {};
    S td[kMaxLanes<C>];
    std::memcpy(ta, pa + i, r * sizeof(S));
    IO::Store(d, op(d, IO::Load(d, ta)), td);
    std::memcpy(pd + i, td, r * sizeof(S));
  }
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
