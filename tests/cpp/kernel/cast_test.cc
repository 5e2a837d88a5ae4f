// Cast: every supported dtype pair and RoundMode against an independent
// reference (bracketing search over all values of the 16-bit formats).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using asc::DType;
using asc::kernel::RoundMode;
namespace simd = asc::kernel::simd;

const RoundMode kModes[] = {RoundMode::CAST_NONE,  RoundMode::CAST_RINT,  RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                            RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
const DType kTypes[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt32,
                        DType::kInt16,   DType::kInt8,    DType::kUInt8};

// ---------------------------------------------------------------- reference

// All non-negative finite values of a 16-bit float format plus +Inf, sorted.
struct Narrow {
  std::vector<double> value;
  std::vector<uint16_t> bits;
  double overflow_point;  // where +Inf "sits" for round-to-nearest (max + ulp)
};

const Narrow& narrow_table(bool bf16) {
  static const Narrow tables[2] = {[] {
                                     Narrow t;
                                     for (uint32_t b = 0; b <= 0x7C00; ++b) {
                                       t.bits.push_back(static_cast<uint16_t>(b));
                                       t.value.push_back(asc::detail::f16_bits_to_f32(static_cast<uint16_t>(b)));
                                     }
                                     t.overflow_point = 65536.0;
                                     return t;
                                   }(),
                                   [] {
                                     Narrow t;
                                     for (uint32_t b = 0; b <= 0x7F80; ++b) {
                                       t.bits.push_back(static_cast<uint16_t>(b));
                                       t.value.push_back(asc::detail::bf16_bits_to_f32(static_cast<uint16_t>(b)));
                                     }
                                     t.overflow_point = std::ldexp(1.0, 128);
                                     return t;
                                   }()};
  return tables[bf16 ? 1 : 0];
}

enum class Dir { kDown, kUp, kNearestEven, kNearestAway, kOdd };

Dir magnitude_dir(RoundMode m, bool negative) {
  switch (m) {
    case RoundMode::CAST_FLOOR: return negative ? Dir::kUp : Dir::kDown;
    case RoundMode::CAST_CEIL: return negative ? Dir::kDown : Dir::kUp;
    case RoundMode::CAST_TRUNC: return Dir::kDown;
    case RoundMode::CAST_ROUND: return Dir::kNearestAway;
    case RoundMode::CAST_ODD: return Dir::kOdd;
    default: return Dir::kNearestEven;
  }
}

uint16_t ref_narrow(double x, RoundMode mode, bool bf16) {
  if (std::isnan(x)) return bf16 ? 0x7FC0 : 0x7E00;  // any NaN (checked by class)
  const bool neg = std::signbit(x);
  const double ax = std::fabs(x);
  const Narrow& t = narrow_table(bf16);
  const uint16_t sign = neg ? 0x8000 : 0;
  size_t hi = static_cast<size_t>(std::lower_bound(t.value.begin(), t.value.end(), ax) - t.value.begin());
  if (t.value[hi] == ax) return sign | t.bits[hi];
  const size_t lo = hi - 1;
  const double hv = std::isinf(t.value[hi]) ? t.overflow_point : t.value[hi];
  size_t pick = lo;
  switch (magnitude_dir(mode, neg)) {
    case Dir::kDown: pick = lo; break;
    case Dir::kUp: pick = hi; break;
    case Dir::kOdd: pick = (t.bits[lo] & 1) ? lo : hi; break;
    case Dir::kNearestEven:
    case Dir::kNearestAway: {
      const double dl = ax - t.value[lo], dh = hv - ax;
      if (dl < dh) pick = lo;
      else if (dh < dl) pick = hi;
      else pick = magnitude_dir(mode, neg) == Dir::kNearestAway ? hi : ((t.bits[lo] & 1) ? hi : lo);
      break;
    }
  }
  return sign | t.bits[pick];
}

float ref_f32_from_exact(double x, RoundMode mode) {
  const float f = static_cast<float>(x);
  if (static_cast<double>(f) == x) return f;
  const bool neg = x < 0;
  const float a = static_cast<float>(std::fabs(x));  // RNE magnitude
  float lo, hi;
  if (static_cast<double>(a) < std::fabs(x)) {
    lo = a;
    hi = std::nextafter(a, std::numeric_limits<float>::infinity());
  } else {
    hi = a;
    lo = std::nextafter(a, 0.0f);
  }
  uint32_t lb;
  std::memcpy(&lb, &lo, 4);
  float pick;
  switch (magnitude_dir(mode, neg)) {
    case Dir::kDown: pick = lo; break;
    case Dir::kUp: pick = hi; break;
    case Dir::kOdd: pick = (lb & 1) ? lo : hi; break;
    case Dir::kNearestAway: {
      const double dl = std::fabs(x) - lo, dh = hi - std::fabs(x);
      pick = dl < dh ? lo : hi;
      break;
    }
    default: pick = a; break;
  }
  return neg ? -pick : pick;
}

double round_integral(double x, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_FLOOR: return std::floor(x);
    case RoundMode::CAST_CEIL: return std::ceil(x);
    case RoundMode::CAST_TRUNC: return std::trunc(x);
    case RoundMode::CAST_ROUND: return std::round(x);
    default: return std::nearbyint(x);
  }
}

template <typename T>
T ref_int(double x, RoundMode mode) {
  if (std::isnan(x)) return 0;
  const double r = round_integral(x, mode);
  if (r <= std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  if (r >= std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

double load(DType t, const uint8_t* p) {
  switch (t) {
    case DType::kFloat32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kFloat16: { uint16_t b; std::memcpy(&b, p, 2); return asc::detail::f16_bits_to_f32(b); }
    case DType::kBFloat16: { uint16_t b; std::memcpy(&b, p, 2); return asc::detail::bf16_bits_to_f32(b); }
    case DType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kInt8: return static_cast<int8_t>(*p);
    case DType::kUInt8: return *p;
    default: return 0;
  }
}

// Expected bytes of one converted element.
std::vector<uint8_t> ref_cast(DType dst, DType src, RoundMode mode, double x) {
  std::vector<uint8_t> out(asc::dtype_size(dst));
  switch (dst) {
    case DType::kFloat32: {
      float f;
      if (asc::is_integer(src)) f = ref_f32_from_exact(x, mode);
      else if (mode == RoundMode::CAST_NONE || std::isnan(x) || std::isinf(x)) f = static_cast<float>(x);
      else f = static_cast<float>(round_integral(x, mode));
      std::memcpy(out.data(), &f, 4);
      break;
    }
    case DType::kFloat16:
    case DType::kBFloat16: {
      const uint16_t b = ref_narrow(x, mode, dst == DType::kBFloat16);
      std::memcpy(out.data(), &b, 2);
      break;
    }
    case DType::kInt32: { int32_t v = ref_int<int32_t>(x, mode); std::memcpy(out.data(), &v, 4); break; }
    case DType::kInt16: { int16_t v = ref_int<int16_t>(x, mode); std::memcpy(out.data(), &v, 2); break; }
    case DType::kInt8: { int8_t v = ref_int<int8_t>(x, mode); std::memcpy(out.data(), &v, 1); break; }
    case DType::kUInt8: { uint8_t v = ref_int<uint8_t>(x, mode); std::memcpy(out.data(), &v, 1); break; }
    default: break;
  }
  return out;
}

// ---------------------------------------------------------------- inputs

void push(std::vector<uint8_t>& buf, const void* p, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  buf.insert(buf.end(), b, b + n);
}

std::vector<uint8_t> inputs(DType t) {
  std::vector<uint8_t> buf;
  std::mt19937 rng(1234);
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
      for (uint32_t b = 0; b < 65536; ++b) {
        const uint16_t v = static_cast<uint16_t>(b);
        push(buf, &v, 2);
      }
      break;
    case DType::kInt8:
    case DType::kUInt8:
      for (uint32_t b = 0; b < 256; ++b) buf.push_back(static_cast<uint8_t>(b));
      break;
    case DType::kInt32: {
      std::vector<int32_t> v = {0, 1, -1, 2147483647, -2147483647 - 1, 16777216, 16777217, 16777219, -16777217,
                                16842753, 16842752, 16908289, -16842753, 65504, 65519, 65520, 65536, 70000, 127,
                                128, -128, -129, 255, 256, 32767, 32768, -32769};
      std::uniform_int_distribution<int32_t> d(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
      std::uniform_int_distribution<int32_t> small(-100000, 100000);
      for (int i = 0; i < 20000; ++i) v.push_back(i % 2 ? d(rng) : small(rng));
      push(buf, v.data(), v.size() * 4);
      break;
    }
    case DType::kFloat32: {
      std::vector<float> v = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN(), 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f,
                              0.49999997f, -0.49999997f, 65504.0f, 65519.99f, 65520.0f, 65536.0f, 1e10f, -1e10f,
                              2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 32767.5f, -32768.5f,
                              127.5f, -128.5f, 255.5f, 2.9802322e-8f /* 2^-25 */, 5.9604645e-8f, 3e-8f, 1e-40f,
                              std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 3.3895314e38f,
                              3.4e38f};
      // Exact midpoints (and their float neighbours) of float16 and bfloat16 values.
      std::uniform_int_distribution<uint32_t> hb(0, 0x7BFE), bb(0, 0x7F7E);
      for (int i = 0; i < 3000; ++i) {
        const uint16_t h = static_cast<uint16_t>(hb(rng));
        const float m = (asc::detail::f16_bits_to_f32(h) + asc::detail::f16_bits_to_f32(h + 1)) * 0.5f;
        const uint16_t b = static_cast<uint16_t>(bb(rng));
        const float mb = static_cast<float>((static_cast<double>(asc::detail::bf16_bits_to_f32(b)) +
                                             asc::detail::bf16_bits_to_f32(b + 1)) * 0.5);
        for (float x : {m, mb}) {
          for (float y : {x, std::nextafter(x, 0.0f), std::nextafter(x, 1e38f)}) {
            v.push_back(y);
            v.push_back(-y);
          }
        }
      }
      // Random magnitudes over the whole range, and integers +- fractions.
      std::uniform_int_distribution<uint32_t> any(0, 0xFFFFFFFFu);
      std::uniform_real_distribution<float> r(-300.0f, 300.0f);
      for (int i = 0; i < 20000; ++i) {
        v.push_back(kt::bits_f32(any(rng)));
        v.push_back(r(rng));
        v.push_back(std::round(r(rng)) + 0.5f);
      }
      push(buf, v.data(), v.size() * 4);
      break;
    }
    default: break;
  }
  return buf;
}

bool same_result(DType dst, const uint8_t* got, const std::vector<uint8_t>& want) {
  if (dst == DType::kFloat32 || dst == DType::kFloat16 || dst == DType::kBFloat16) {
    const double g = load(dst, got), w = load(dst, want.data());
    if (std::isnan(w)) return std::isnan(g);
  }
  return std::memcmp(got, want.data(), want.size()) == 0;
}

TEST(Cast, AllPairsAllModes) {
  int pairs = 0;
  for (DType src : kTypes) {
    const std::vector<uint8_t> in = inputs(src);
    const size_t ss = asc::dtype_size(src);
    const size_t n = in.size() / ss;
    for (DType dst : kTypes) {
      if (!simd::cast_supported(dst, src)) continue;
      ++pairs;
      const size_t ds = asc::dtype_size(dst);
      for (RoundMode mode : kModes) {
        const bool narrow_float = dst == DType::kFloat16 || dst == DType::kBFloat16;
        std::vector<uint8_t> out(n * ds + 64, 0xCD);
        if (mode == RoundMode::CAST_ODD && !narrow_float) {
          try {
            simd::cast(dst, src, mode, out.data(), in.data(), n);
            FAIL() << "CAST_ODD to " << asc::dtype_name(dst) << " should be rejected";
          } catch (const asc::Error& e) {
            EXPECT_EQ(e.code(), asc::ErrorCode::kInvalidParam);
          }
          continue;
        }
        simd::cast(dst, src, mode, out.data(), in.data(), n);
        int failures = 0;
        for (size_t i = 0; i < n && failures < 5; ++i) {
          const double x = load(src, in.data() + i * ss);
          const auto want = ref_cast(dst, src, mode, x);
          if (!same_result(dst, out.data() + i * ds, want)) {
            ++failures;
            ADD_FAILURE() << asc::dtype_name(src) << " -> " << asc::dtype_name(dst) << " "
                          << asc::kernel::round_mode_name(mode) << " x=" << x << " (element " << i << ") got "
                          << load(dst, out.data() + i * ds) << " want " << load(dst, want.data());
          }
        }
        for (size_t k = n * ds; k < out.size(); ++k) ASSERT_EQ(out[k], 0xCD) << "wrote past n";
      }
    }
  }
  // float -> float (7, incl. float32 -> float32), float -> int (12), int -> float (12).
  EXPECT_EQ(pairs, 7 + 12 + 12);
}

TEST(Cast, TailLengthsAndUnsupported) {
  std::vector<float> src(5000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.37f - 900.0f;
  for (size_t n : kt::tail_lengths()) {
    std::vector<uint16_t> out(n + 8, 0xBEEF);
    simd::cast(DType::kFloat16, DType::kFloat32, RoundMode::CAST_RINT, out.data(), src.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], asc::float16(src[i]).bits) << i;
    for (size_t i = n; i < n + 8; ++i) ASSERT_EQ(out[i], 0xBEEF);
  }
  uint8_t a[8] = {}, b[8] = {};
  EXPECT_FALSE(simd::cast_supported(DType::kInt16, DType::kInt32));
  try {
    simd::cast(DType::kInt16, DType::kInt32, RoundMode::CAST_NONE, a, b, 2);
    FAIL();
  } catch (const asc::Error& e) {
    EXPECT_EQ(e.code(), asc::ErrorCode::kInvalidDtype);
    EXPECT_NE(std::string(e.what()).find("[Cast]"), std::string::npos);
  }
}

TEST(Cast, KernelTemplate) {
  // The AscendC::Cast template inside a kernel: float -> half -> float, float -> int32.
  const std::vector<float> x = {1.5f, 2.5f, -2.5f, 65520.0f, 1e-8f, -7.75f, 3.0f, 0.1f, 100000.0f};
  std::vector<half> h(x.size());
  std::vector<float> back(x.size());
  std::vector<int32_t> ri(x.size()), ti(x.size());
  std::vector<bfloat16_t> bf(x.size());
  kt::run_or_throw("cast_kernel", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> buf;
    pipe.InitBuffer(buf, 4096);
    const uint32_t n = static_cast<uint32_t>(x.size());
    auto f = buf.Get<float>(n);
    auto hh = buf.GetWithOffset<half>(n, 256);
    auto f2 = buf.GetWithOffset<float>(n, 512);
    auto i1 = buf.GetWithOffset<int32_t>(n, 1024);
    auto i2 = buf.GetWithOffset<int32_t>(n, 1536);
    auto b = buf.GetWithOffset<bfloat16_t>(n, 2048);
    std::memcpy(f.data(), x.data(), n * 4);
    AscendC::Cast(hh, f, AscendC::RoundMode::CAST_NONE, n);
    AscendC::Cast(f2, hh, AscendC::RoundMode::CAST_NONE, n);
    AscendC::Cast(i1, f, AscendC::RoundMode::CAST_ROUND, n);
    AscendC::Cast(i2, f, AscendC::RoundMode::CAST_TRUNC, n);
    AscendC::Cast(b, f, AscendC::RoundMode::CAST_RINT, n);
    std::memcpy(h.data(), hh.data(), n * 2);
    std::memcpy(back.data(), f2.data(), n * 4);
    std::memcpy(ri.data(), i1.data(), n * 4);
    std::memcpy(ti.data(), i2.data(), n * 4);
    std::memcpy(bf.data(), b.data(), n * 2);
  });
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(h[i].bits, half(x[i]).bits) << i;
    EXPECT_EQ(back[i], static_cast<float>(half(x[i]))) << i;
    EXPECT_EQ(ri[i], static_cast<int32_t>(std::round(x[i]))) << i;
    EXPECT_EQ(ti[i], static_cast<int32_t>(std::trunc(x[i]))) << i;
    EXPECT_EQ(bf[i].bits, bfloat16_t(x[i]).bits) << i;
  }
  EXPECT_TRUE(std::isinf(static_cast<float>(h[3])));  // 65520 rounds to +Inf in half
}

TEST(Cast, RoundModesExamples) {
  // Hand-checked values for float -> half (1 + 2^-11 is the tie between 1 and 1 + 2^-10).
  const float tie = 1.0f + std::ldexp(1.0f, -11);
  const float above = std::nextafter(tie, 2.0f);
  const float in[] = {tie, -tie, above, 70000.0f, -70000.0f, 1.0f + 3 * std::ldexp(1.0f, -11)};
  auto run = [&](RoundMode m) {
    std::vector<uint16_t> out(6);
    simd::cast(DType::kFloat16, DType::kFloat32, m, out.data(), in, 6);
    return out;
  };
  const uint16_t one = 0x3C00, one_up = 0x3C01, max = 0x7BFF, inf = 0x7C00;
  EXPECT_EQ(run(RoundMode::CAST_RINT), (std::vector<uint16_t>{one, 0x8000 | one, one_up, inf, 0x8000 | inf, 0x3C02}));
  EXPECT_EQ(run(RoundMode::CAST_ROUND), (std::vector<uint16_t>{one_up, 0x8000 | one_up, one_up, inf, 0x8000 | inf, 0x3C02}));
  EXPECT_EQ(run(RoundMode::CAST_TRUNC), (std::vector<uint16_t>{one, 0x8000 | one, one, max, 0x8000 | max, one_up}));
  EXPECT_EQ(run(RoundMode::CAST_FLOOR), (std::vector<uint16_t>{one, 0x8000 | one_up, one, max, 0x8000 | inf, one_up}));
  EXPECT_EQ(run(RoundMode::CAST_CEIL), (std::vector<uint16_t>{one_up, 0x8000 | one, one_up, inf, 0x8000 | max, 0x3C02}));
  EXPECT_EQ(run(RoundMode::CAST_ODD), (std::vector<uint16_t>{one_up, 0x8000 | one_up, one_up, max, 0x8000 | max, one_up}));
}

}  // namespace
