// Cast (all RoundModes) and whole-vector reductions for every Highway target,
// their entry points, and the scalar reference conversion used where a SIMD
// path would round twice.
//
// Casts go through float32 lanes: every source type except int32 is exact in
// float32, and every narrowing rounding is done once, from float32, with the
// requested mode. Directed modes for float16/bfloat16 start from the
// round-to-nearest-even result and step its magnitude by one unit where the
// mode wants the other neighbour (so overflow, subnormals and NaN follow from
// the RNE conversion).

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/simd/convert_reduce.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernel/simd/float16-inl.h"
#include "kernel/simd/tables.h"

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::VFromD<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VU = hn::VFromD<DU>;
using DI = hn::RebindToSigned<DF>;

// ---------------------------------------------------------------- sources
// Load(df, p): Lanes(df) elements as float32 (exact except int32 > 2^24).

struct SrcF32 {
  using S = float;
  static HWY_INLINE VF Load(DF d, const S* p) { return hn::LoadU(d, p); }
};
struct SrcF16 {
  using S = uint16_t;
  static HWY_INLINE VF Load(DF d, const S* p) { return F16IO::Load(d, p); }
};
struct SrcBF16 {
  using S = uint16_t;
  static HWY_INLINE VF Load(DF d, const S* p) { return BF16IO::Load(d, p); }
};
struct SrcI32 {
  using S = int32_t;
  static HWY_INLINE VF Load(DF d, const S* p) { return hn::ConvertTo(d, hn::LoadU(DI(), p)); }
};
template <typename T>
struct SrcSmallInt {
  using S = T;
  static HWY_INLINE VF Load(DF d, const S* p) {
    const hn::Rebind<T, DF> dn;
    return hn::ConvertTo(d, hn::PromoteTo(DI(), hn::LoadU(dn, p)));
  }
};

// ---------------------------------------------------------------- rounding

HWY_INLINE bool IsNearest(RoundMode m) { return m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT; }

// Rounds to an integral value (CAST_NONE and CAST_RINT: nearest even).
HWY_INLINE VF RoundIntegralImpl(DF d, VF v, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_FLOOR: return hn::Floor(v);
    case RoundMode::CAST_CEIL: return hn::Ceil(v);
    case RoundMode::CAST_TRUNC: return hn::Trunc(v);
    case RoundMode::CAST_ROUND: {
      // Ties away from zero: x - trunc(x) is exact, so compare it with 0.5.
      const VF t = hn::Trunc(v);
      const auto away = hn::Ge(hn::Abs(hn::Sub(v, t)), hn::Set(d, 0.5f));
      return hn::IfThenElse(away, hn::Add(t, hn::CopySign(hn::Set(d, 1.0f), v)), t);
    }
    default: return hn::Round(v);
  }
}
// Rounding to an integer never changes the sign (a zero result keeps x's sign);
// Highway 1.0.3's scalar Round/Floor/Ceil get the sign of zero wrong, so restore it.
HWY_INLINE VF RoundIntegral(DF d, VF v, RoundMode mode) { return hn::CopySign(RoundIntegralImpl(d, v, mode), v); }

// Narrow float formats as bit patterns in u32 lanes.
struct F16Fmt {
  static HWY_INLINE VU FromF32(DF d, VF v) { return F32ToF16Bits(d, v); }
  static HWY_INLINE VF ToF32(DF d, VU h) { return F16BitsToF32(d, h); }
};
struct BF16Fmt {
  static HWY_INLINE VU FromF32(DF d, VF v) { return F32ToBF16Bits(d, v); }
  static HWY_INLINE VF ToF32(DF d, VU h) { return BF16BitsToF32(d, h); }
};

template <class Fmt>
HWY_INLINE VU RoundToNarrow(DF d, VF x, RoundMode mode) {
  const DU du;
  const VU h = Fmt::FromF32(d, x);
  if (IsNearest(mode)) return h;
  const VU one = hn::Set(du, 1u);
  const VU sign = hn::And(h, hn::Set(du, 0x8000u));
  VU mag = hn::And(h, hn::Set(du, 0x7FFFu));
  const VF ax = hn::Abs(x);
  const VF afh = hn::Abs(Fmt::ToF32(d, h));
  // NaN compares false everywhere below, so NaN results stay untouched.
  const auto farther = hn::RebindMask(du, hn::Gt(afh, ax));  // RNE went away from zero
  const auto nearer = hn::RebindMask(du, hn::Lt(afh, ax));   // RNE went toward zero
  const auto neg = hn::RebindMask(du, hn::Lt(hn::BitCast(DI(), hn::BitCast(du, x)), hn::Zero(DI())));
  auto inc = hn::FirstN(du, 0);
  auto dec = hn::FirstN(du, 0);
  switch (mode) {
    case RoundMode::CAST_TRUNC: dec = farther; break;
    case RoundMode::CAST_FLOOR:
      dec = hn::AndNot(neg, farther);
      inc = hn::And(neg, nearer);
      break;
    case RoundMode::CAST_CEIL:
      dec = hn::And(neg, farther);
      inc = hn::AndNot(neg, nearer);
      break;
    case RoundMode::CAST_ROUND: {
      // RNE differs from ties-away only on a tie it resolved toward zero.
      const VF next = hn::Abs(Fmt::ToF32(d, hn::Add(mag, one)));
      const auto tie = hn::RebindMask(du, hn::Eq(hn::Sub(ax, afh), hn::Sub(next, ax)));
      inc = hn::And(nearer, tie);
      break;
    }
    case RoundMode::CAST_ODD: {
      const auto inexact = hn::Or(farther, nearer);
      const auto even = hn::Eq(hn::And(mag, one), hn::Zero(du));
      const auto fix = hn::And(inexact, even);
      dec = hn::And(fix, farther);
      inc = hn::And(fix, nearer);
      break;
    }
    default: break;
  }
  mag = hn::IfThenElse(inc, hn::Add(mag, one), mag);
  mag = hn::IfThenElse(dec, hn::Sub(mag, one), mag);
  return hn::Or(sign, mag);
}

// ---------------------------------------------------------------- destinations

struct DstF32 {
  using S = float;
  static HWY_INLINE void Store(DF d, VF v, S* p, RoundMode mode) {
    hn::StoreU(mode == RoundMode::CAST_NONE ? v : RoundIntegral(d, v, mode), d, p);
  }
};
template <class Fmt>
struct DstNarrow {
  using S = uint16_t;
  static HWY_INLINE void Store(DF d, VF v, S* p, RoundMode mode) {
    StoreU32AsU16(d, RoundToNarrow<Fmt>(d, v, mode), p);
  }
};
// Saturating conversion to int32 lanes; NaN -> 0.
HWY_INLINE hn::VFromD<DI> ToInt32(DF d, VF v, RoundMode mode, float lo, float hi) {
  const VF r = RoundIntegral(d, v, mode);
  const VF clamped = hn::Min(hn::Max(r, hn::Set(d, lo)), hn::Set(d, hi));
  return hn::IfThenZeroElse(hn::RebindMask(DI(), hn::IsNaN(v)), hn::ConvertTo(DI(), clamped));
}
struct DstI32 {
  using S = int32_t;
  static HWY_INLINE void Store(DF d, VF v, S* p, RoundMode mode) {
    const DI di;
    // 2147483520 is the largest float below 2^31; values >= 2^31 saturate.
    auto i = ToInt32(d, v, mode, -2147483648.0f, 2147483520.0f);
    i = hn::IfThenElse(hn::RebindMask(di, hn::Ge(RoundIntegral(d, v, mode), hn::Set(d, 2147483648.0f))),
                       hn::Set(di, std::numeric_limits<int32_t>::max()), i);
    hn::StoreU(i, di, p);
  }
};
template <typename T>
struct DstSmallInt {
  using S = T;
  static HWY_INLINE void Store(DF d, VF v, S* p, RoundMode mode) {
    const hn::Rebind<T, DF> dn;
    const auto i = ToInt32(d, v, mode, static_cast<float>(std::numeric_limits<T>::min()),
                           static_cast<float>(std::numeric_limits<T>::max()));
    hn::StoreU(hn::DemoteTo(dn, i), dn, p);
  }
};

template <class Src, class Dst>
void CastLoop(void* dst, const void* src, size_t n, RoundMode mode) {
  const DF d;
  const size_t N = hn::Lanes(d);
  using SS = typename Src::S;
  using DS = typename Dst::S;
  const SS* ps = static_cast<const SS*>(src);
  DS* pd = static_cast<DS*>(dst);
  size_t i = 0;
  for (; i + N <= n; i += N) Dst::Store(d, Src::Load(d, ps + i), pd + i, mode);
  if (i < n) {
    const size_t r = n - i;
    SS ts[kMaxLanes<float>] = {};
    DS td[kMaxLanes<float>];
    std::memcpy(ts, ps + i, r * sizeof(SS));
    Dst::Store(d, Src::Load(d, ts), td, mode);
    std::memcpy(pd + i, td, r * sizeof(DS));
  }
}

// ---------------------------------------------------------------- reductions

// Four vector accumulators summed for at most kInner iterations, then folded
// into a double: float32 error stays that of ~64 additions per lane whatever n.
template <class IO>
void SumLoop(void* dst, const void* src, size_t n, bool with_index) {
  using S = typename IO::S;
  constexpr size_t kInner = 16;
  const DF d;
  const size_t N = hn::Lanes(d);
  const S* p = static_cast<const S*>(src);
  double total = 0.0;
  float lanes[kMaxLanes<float>];
  const auto fold = [&](VF v) HWY_ATTR {
    hn::StoreU(v, d, lanes);
    for (size_t k = 0; k < N; ++k) total += lanes[k];
  };
  size_t i = 0;
  while (i + 4 * N <= n) {
    VF a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (size_t it = 0; it < kInner && i + 4 * N <= n; ++it, i += 4 * N) {
      a0 = hn::Add(a0, IO::Load(d, p + i));
      a1 = hn::Add(a1, IO::Load(d, p + i + N));
      a2 = hn::Add(a2, IO::Load(d, p + i + 2 * N));
      a3 = hn::Add(a3, IO::Load(d, p + i + 3 * N));
    }
    fold(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)));
  }
  VF rest = hn::Zero(d);
  for (; i + N <= n; i += N) rest = hn::Add(rest, IO::Load(d, p + i));
  if (i < n) {
    S t[kMaxLanes<float>] = {};
    std::memcpy(t, p + i, (n - i) * sizeof(S));
    rest = hn::Add(rest, IO::Load(d, t));
  }
  fold(rest);
  S out[kMaxLanes<float>];
  IO::Store(d, hn::Set(d, static_cast<float>(total)), out);
  std::memcpy(dst, out, sizeof(S));
  (void)with_index;  // ReduceSum has no index
}

// kMax: true for ReduceMax, false for ReduceMin.
template <class IO, bool kMax>
void ExtremumLoop(void* dst, const void* src, size_t n, bool with_index) {
  using S = typename IO::S;
  const DF d;
  const size_t N = hn::Lanes(d);
  const S* p = static_cast<const S*>(src);
  const float identity = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  // Four independent accumulators hide Max/Min latency; NaNs are tracked in a
  // separate mask accumulator (Max/Min of NaN is target-defined) so the hot
  // loop is one Max, one compare and one Or per vector.
  const auto mm = [](VF x, VF y) HWY_ATTR { return kMax ? hn::Max(x, y) : hn::Min(x, y); };
  VF a0 = hn::Set(d, identity), a1 = a0, a2 = a0, a3 = a0;
  VF nan0 = hn::Zero(d), nan1 = nan0;
  size_t i = 0;
  if (n >= 4 * N) {
    for (; i <= n - 4 * N; i += 4 * N) {
      const VF v0 = IO::Load(d, p + i), v1 = IO::Load(d, p + i + N);
      const VF v2 = IO::Load(d, p + i + 2 * N), v3 = IO::Load(d, p + i + 3 * N);
      a0 = mm(a0, v0);
      a1 = mm(a1, v1);
      a2 = mm(a2, v2);
      a3 = mm(a3, v3);
      nan0 = hn::Or(nan0, hn::Or(hn::VecFromMask(d, hn::IsNaN(v0)), hn::VecFromMask(d, hn::IsNaN(v1))));
      nan1 = hn::Or(nan1, hn::Or(hn::VecFromMask(d, hn::IsNaN(v2)), hn::VecFromMask(d, hn::IsNaN(v3))));
    }
  }
  for (; i + N <= n; i += N) {
    const VF v = IO::Load(d, p + i);
    a0 = mm(a0, v);
    nan0 = hn::Or(nan0, hn::VecFromMask(d, hn::IsNaN(v)));
  }
  if (i < n) {
    // Pad with the identity (in storage form, so float16 sees -Inf/+Inf too).
    S t[kMaxLanes<float>];
    IO::Store(d, hn::Set(d, identity), t);
    std::memcpy(t, p + i, (n - i) * sizeof(S));
    const VF v = IO::Load(d, t);
    a1 = mm(a1, v);
    nan1 = hn::Or(nan1, hn::VecFromMask(d, hn::IsNaN(v)));
  }
  const bool any_nan = !hn::AllFalse(d, hn::MaskFromVec(hn::Or(nan0, nan1)));
  float lanes[kMaxLanes<float>];
  hn::StoreU(mm(mm(a0, a1), mm(a2, a3)), d, lanes);
  float best = lanes[0];
  for (size_t k = 1; k < N; ++k) {
    if (kMax ? lanes[k] > best : lanes[k] < best) best = lanes[k];
  }
  if (any_nan) best = std::numeric_limits<float>::quiet_NaN();
  uint32_t index = 0;
  if (with_index && n > 0) {
    // First element equal to the result (or the first NaN).
    const bool nan = std::isnan(best);
    const VF vb = hn::Set(d, best);
    size_t j = 0;
    bool found = false;
    for (; j + N <= n && !found; j += N) {
      const VF v = IO::Load(d, p + j);
      const intptr_t k = hn::FindFirstTrue(d, nan ? hn::IsNaN(v) : hn::Eq(v, vb));
      if (k >= 0) {
        index = static_cast<uint32_t>(j + static_cast<size_t>(k));
        found = true;
      }
    }
    if (!found) {
      S t[kMaxLanes<float>];
      IO::Store(d, hn::Set(d, identity), t);
      std::memcpy(t, p + j, (n - j) * sizeof(S));
      const VF v = IO::Load(d, t);
      const intptr_t k = hn::FindFirstTrue(d, nan ? hn::IsNaN(v) : hn::Eq(v, vb));
      index = static_cast<uint32_t>(j + static_cast<size_t>(k < 0 ? 0 : k));
    }
  }
  S out[kMaxLanes<float>];
  IO::Store(d, hn::Set(d, best), out);
  std::memcpy(dst, out, sizeof(S));
  if (with_index) {
    if (sizeof(S) == 4) {
      std::memcpy(static_cast<uint8_t*>(dst) + 4, &index, 4);
    } else {
      const uint16_t i16 = static_cast<uint16_t>(index);
      std::memcpy(static_cast<uint8_t*>(dst) + 2, &i16, 2);
    }
  }
}

// ---------------------------------------------------------------- table

template <class Src>
void AddCastsFrom(ConvertReduceTable& t, DType src, bool src_is_int) {
  t.cast[idx(DType::kFloat32)][idx(src)] = &CastLoop<Src, DstF32>;
  if (src != DType::kFloat16) t.cast[idx(DType::kFloat16)][idx(src)] = &CastLoop<Src, DstNarrow<F16Fmt>>;
  if (src != DType::kBFloat16) t.cast[idx(DType::kBFloat16)][idx(src)] = &CastLoop<Src, DstNarrow<BF16Fmt>>;
  if (src_is_int) return;  // integer -> integer is not a Cast the vector unit offers
  t.cast[idx(DType::kInt32)][idx(src)] = &CastLoop<Src, DstI32>;
  t.cast[idx(DType::kInt16)][idx(src)] = &CastLoop<Src, DstSmallInt<int16_t>>;
  t.cast[idx(DType::kInt8)][idx(src)] = &CastLoop<Src, DstSmallInt<int8_t>>;
  t.cast[idx(DType::kUInt8)][idx(src)] = &CastLoop<Src, DstSmallInt<uint8_t>>;
}

ConvertReduceTable MakeConvertReduceTable() {
  ConvertReduceTable t;
  AddCastsFrom<SrcF32>(t, DType::kFloat32, false);
  AddCastsFrom<SrcF16>(t, DType::kFloat16, false);
  AddCastsFrom<SrcBF16>(t, DType::kBFloat16, false);
  AddCastsFrom<SrcI32>(t, DType::kInt32, true);
  AddCastsFrom<SrcSmallInt<int16_t>>(t, DType::kInt16, true);
  AddCastsFrom<SrcSmallInt<int8_t>>(t, DType::kInt8, true);
  AddCastsFrom<SrcSmallInt<uint8_t>>(t, DType::kUInt8, true);

  t.reduce[idx(ReduceOp::kSum)][idx(DType::kFloat32)] = &SumLoop<NativeIO<float>>;
  t.reduce[idx(ReduceOp::kSum)][idx(DType::kFloat16)] = &SumLoop<F16IO>;
  t.reduce[idx(ReduceOp::kMax)][idx(DType::kFloat32)] = &ExtremumLoop<NativeIO<float>, true>;
  t.reduce[idx(ReduceOp::kMax)][idx(DType::kFloat16)] = &ExtremumLoop<F16IO, true>;
  t.reduce[idx(ReduceOp::kMin)][idx(DType::kFloat32)] = &ExtremumLoop<NativeIO<float>, false>;
  t.reduce[idx(ReduceOp::kMin)][idx(DType::kFloat16)] = &ExtremumLoop<F16IO, false>;
  return t;
}

const ConvertReduceTable* GetConvertReduceTable() {
  static const ConvertReduceTable table = MakeConvertReduceTable();
  return &table;
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::kernel::simd {

HWY_EXPORT(GetConvertReduceTable);

namespace {

const ConvertReduceTable& table() {
  static const ConvertReduceTable* const t =
      (apply_target_override(), HWY_DYNAMIC_DISPATCH(GetConvertReduceTable)());
  return *t;
}

bool is_nearest(RoundMode m) { return m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT; }

// ---- scalar reference (double -> each type, every mode)

double load_as_double(DType t, const void* p) {
  switch (t) {
    case DType::kFloat32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kFloat16: { uint16_t b; std::memcpy(&b, p, 2); return asc::detail::f16_bits_to_f32(b); }
    case DType::kBFloat16: { uint16_t b; std::memcpy(&b, p, 2); return asc::detail::bf16_bits_to_f32(b); }
    case DType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kInt8: { int8_t v; std::memcpy(&v, p, 1); return v; }
    case DType::kUInt8: { uint8_t v; std::memcpy(&v, p, 1); return v; }
    default: return 0.0;
  }
}

// Picks between the two floats bracketing d (lo < d < hi) for a directed mode.
float pick_float(double d, float lo, float hi, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_FLOOR: return lo;
    case RoundMode::CAST_CEIL: return hi;
    case RoundMode::CAST_TRUNC: return d > 0 ? lo : hi;
    case RoundMode::CAST_ROUND: {
      const double dl = d - lo, dh = hi - d;
      if (dl != dh) return dl < dh ? lo : hi;
      return d > 0 ? hi : lo;
    }
    default: {  // CAST_ODD: lo and hi are one unit apart, one of them is odd
      uint32_t lo_bits;
      std::memcpy(&lo_bits, &lo, 4);
      return (lo_bits & 1u) ? lo : hi;
    }
  }
}

float double_to_float(double d, RoundMode mode) {
  const float f = static_cast<float>(d);  // nearest even
  if (std::isnan(d) || static_cast<double>(f) == d || is_nearest(mode)) return f;
  float lo, hi;
  if (static_cast<double>(f) < d) {
    lo = f;
    hi = std::nextafter(f, std::numeric_limits<float>::infinity());
  } else {
    hi = f;
    lo = std::nextafter(f, -std::numeric_limits<float>::infinity());
  }
  if (std::isinf(lo) && std::isinf(hi)) return f;
  return pick_float(d, lo, hi, mode);
}

// float -> narrow bits through RNE plus a one-unit correction (as the SIMD code).
uint16_t float_to_narrow(float x, RoundMode mode, bool bf16) {
  const auto to_bits = [&](float v) {
    return bf16 ? asc::detail::f32_to_bf16_bits(v) : asc::detail::f32_to_f16_bits(v);
  };
  const auto to_float = [&](uint32_t b) {
    return bf16 ? asc::detail::bf16_bits_to_f32(static_cast<uint16_t>(b))
                : asc::detail::f16_bits_to_f32(static_cast<uint16_t>(b));
  };
  const uint16_t h = to_bits(x);
  if (is_nearest(mode) || std::isnan(x)) return h;
  const uint32_t sign = h & 0x8000u;
  uint32_t mag = h & 0x7FFFu;
  const float ax = std::fabs(x), afh = std::fabs(to_float(h));
  const bool farther = afh > ax, nearer = afh < ax, neg = std::signbit(x);
  bool inc = false, dec = false;
  switch (mode) {
    case RoundMode::CAST_TRUNC: dec = farther; break;
    case RoundMode::CAST_FLOOR: dec = !neg && farther; inc = neg && nearer; break;
    case RoundMode::CAST_CEIL: dec = neg && farther; inc = !neg && nearer; break;
    case RoundMode::CAST_ROUND: inc = nearer && (ax - afh == std::fabs(to_float(mag + 1)) - ax); break;
    case RoundMode::CAST_ODD:
      if ((farther || nearer) && !(mag & 1u)) { dec = farther; inc = nearer; }
      break;
    default: break;
  }
  if (inc) ++mag;
  if (dec) --mag;
  return static_cast<uint16_t>(sign | mag);
}

// Round-to-odd double -> float: keeps enough information for a second,
// narrower rounding to be correct in any mode.
float double_to_float_odd(double d) { return double_to_float(d, RoundMode::CAST_ODD); }

double round_integral(double d, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_FLOOR: return std::floor(d);
    case RoundMode::CAST_CEIL: return std::ceil(d);
    case RoundMode::CAST_TRUNC: return std::trunc(d);
    case RoundMode::CAST_ROUND: return std::round(d);  // ties away from zero
    default: return std::nearbyint(d);                 // ties to even
  }
}

template <typename T>
T double_to_int(double d, RoundMode mode) {
  if (std::isnan(d)) return 0;
  const double r = round_integral(d, mode);
  if (r <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

}  // namespace

void cast_scalar(DType dst_dtype, DType src_dtype, RoundMode mode, void* dst, const void* src, size_t n) {
  const size_t ss = dtype_size(src_dtype), ds = dtype_size(dst_dtype);
  for (size_t i = 0; i < n; ++i) {
    const double v = load_as_double(src_dtype, static_cast<const uint8_t*>(src) + i * ss);
    uint8_t* out = static_cast<uint8_t*>(dst) + i * ds;
    switch (dst_dtype) {
      case DType::kFloat32: {
        float f;
        if (is_integer(src_dtype)) {
          f = double_to_float(v, mode);  // int32 may need rounding
        } else if (mode == RoundMode::CAST_NONE) {
          f = static_cast<float>(v);
        } else {
          // float -> float32 with a mode rounds to an integral value (exact).
          f = static_cast<float>(round_integral(v, mode));
        }
        std::memcpy(out, &f, 4);
        break;
      }
      case DType::kFloat16:
      case DType::kBFloat16: {
        const uint16_t b = float_to_narrow(double_to_float_odd(v), mode, dst_dtype == DType::kBFloat16);
        std::memcpy(out, &b, 2);
        break;
      }
      case DType::kInt32: { const int32_t x = double_to_int<int32_t>(v, mode); std::memcpy(out, &x, 4); break; }
      case DType::kInt16: { const int16_t x = double_to_int<int16_t>(v, mode); std::memcpy(out, &x, 2); break; }
      case DType::kInt8: { const int8_t x = double_to_int<int8_t>(v, mode); std::memcpy(out, &x, 1); break; }
      case DType::kUInt8: { const uint8_t x = double_to_int<uint8_t>(v, mode); std::memcpy(out, &x, 1); break; }
      default: throw_unsupported("Cast", dst_dtype);
    }
  }
}

bool cast_supported(DType dst_dtype, DType src_dtype) noexcept {
  return table().cast[idx(dst_dtype)][idx(src_dtype)] != nullptr;
}

void check_cast(DType dst_dtype, DType src_dtype, RoundMode mode) {
  if (HWY_UNLIKELY(!table().cast[idx(dst_dtype)][idx(src_dtype)])) {
    throw Error(ErrorCode::kInvalidDtype, std::string("[Cast] cast from ") + dtype_name(src_dtype) + " to " +
                                              dtype_name(dst_dtype) + " is not supported");
  }
  if (HWY_UNLIKELY(static_cast<int>(mode) < 0 || static_cast<int>(mode) > static_cast<int>(RoundMode::CAST_ODD))) {
    throw Error(ErrorCode::kInvalidParam, "[Cast] invalid RoundMode " + std::to_string(static_cast<int>(mode)));
  }
  if (HWY_UNLIKELY(mode == RoundMode::CAST_ODD && dst_dtype != DType::kFloat16 && dst_dtype != DType::kBFloat16)) {
    throw Error(ErrorCode::kInvalidParam, std::string("[Cast] CAST_ODD is only meaningful for a float16 or "
                                                      "bfloat16 destination, not ") + dtype_name(dst_dtype));
  }
}

void cast(DType dst_dtype, DType src_dtype, RoundMode mode, void* dst, const void* src, size_t n) {
  check_cast(dst_dtype, src_dtype, mode);
  const CastFn fn = table().cast[idx(dst_dtype)][idx(src_dtype)];
  // int32 is the one source float32 cannot hold exactly: where float32's
  // rounding could change the final result, use the scalar reference.
  if (src_dtype == DType::kInt32 &&
      (dst_dtype == DType::kBFloat16 || (dst_dtype == DType::kFloat32 && !is_nearest(mode)))) {
    cast_scalar(dst_dtype, src_dtype, mode, dst, src, n);
    return;
  }
  fn(dst, src, n, mode);
}

void reduce(ReduceOp op, DType dtype, void* dst, const void* src, size_t n, bool with_index) {
  const ReduceFn fn = idx(op) < kNumReduceOps ? table().reduce[idx(op)][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  fn(dst, src, n, with_index);
}

}  // namespace asc::kernel::simd
#endif  // HWY_ONCE
