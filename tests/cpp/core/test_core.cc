#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "asc/core/dtype.h"
#include "asc/core/half.h"
#include "asc/core/log.h"
#include "asc/core/status.h"

using namespace asc;

TEST(Status, CodesMatchAcl) {
  EXPECT_EQ(static_cast<int>(ErrorCode::kSuccess), 0);
  EXPECT_EQ(static_cast<int>(ErrorCode::kInvalidParam), 100000);
  EXPECT_EQ(static_cast<int>(ErrorCode::kRtMemoryAllocation), 207001);
  EXPECT_STREQ(error_code_name(ErrorCode::kRtMemoryAllocation), "ACL_ERROR_RT_MEMORY_ALLOCATION");
}

TEST(Status, MessageStartsWithOp) {
  Status s = Status::Invalid("vector_add", "lengths differ: 3 vs 4");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "[vector_add] lengths differ: 3 vs 4");
  EXPECT_EQ(s.ToString(), "ACL_ERROR_INVALID_PARAM (100000): [vector_add] lengths differ: 3 vs 4");
  try {
    s.ThrowIfError();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidParam);
    EXPECT_STREQ(e.what(), "[vector_add] lengths differ: 3 vs 4");
  }
  EXPECT_NO_THROW(Status::OK().ThrowIfError());
}

static Result<int> half_of(int x) {
  if (x % 2) return Status::Invalid("half_of", "odd");
  return x / 2;
}
static Status use(int x, int* out) {
  ASC_ASSIGN_OR_RETURN(*out, half_of(x));
  return Status::OK();
}

TEST(Result, ValueAndError) {
  int out = 0;
  EXPECT_TRUE(use(4, &out).ok());
  EXPECT_EQ(out, 2);
  EXPECT_EQ(use(3, &out).code(), ErrorCode::kInvalidParam);
  EXPECT_THROW(half_of(3).value(), Error);
}

TEST(DType, Traits) {
  EXPECT_EQ(dtype_size(DType::kFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kBFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kFloat64), 8u);
  EXPECT_EQ(dtype_size(DType::kBool), 1u);
  EXPECT_STREQ(dtype_name(DType::kUInt32), "uint32");
  EXPECT_EQ(dtype_of<float16>(), DType::kFloat16);
  EXPECT_EQ(dtype_of<const double>(), DType::kFloat64);
  EXPECT_TRUE(is_floating(DType::kBFloat16));
  EXPECT_TRUE(is_integer(DType::kUInt8));
  EXPECT_FALSE(is_integer(DType::kBool));
  EXPECT_EQ(dtype_from_name("int64").value(), DType::kInt64);
  EXPECT_EQ(dtype_from_name("float128").status().code(), ErrorCode::kInvalidDtype);
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    EXPECT_EQ(dtype_traits(d).dtype, d);
    size_t sz = visit_dtype_all(d, [](auto v) { return sizeof(v); });  // visit_dtype refuses complex
    EXPECT_EQ(sz, dtype_size(d));
  }
}

// Reference conversion by exhaustive comparison: the nearest half value.
static uint16_t ref_f16(float f) {
  // Compare against every finite half; pick nearest, ties to even mantissa.
  if (std::isnan(f)) return 0x7E00;
  double best_err = INFINITY;
  uint16_t best = 0;
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    double v = detail::f16_bits_to_f32(static_cast<uint16_t>(h));
    double err = std::fabs(v - std::fabs(static_cast<double>(f)));
    if (err < best_err || (err == best_err && (h & 1) == 0)) {
      best_err = err;
      best = static_cast<uint16_t>(h);
    }
  }
  // Overflow: values >= 65520 round to Inf.
  if (std::fabs(static_cast<double>(f)) >= 65520.0) best = 0x7C00;
  return static_cast<uint16_t>(best | (std::signbit(f) ? 0x8000 : 0));
}

TEST(Half, RoundTripAllHalfValues) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = detail::f16_bits_to_f32(static_cast<uint16_t>(h));
    uint16_t back = float16(f).bits;
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(float16::from_bits(back))));
    } else {
      EXPECT_EQ(back, h) << std::hex << h;
    }
  }
}

TEST(Half, RoundToNearestEven) {
  const float samples[] = {0.f, -0.f, 1.f, 1.0004883f, 1.0009766f, 1.00146484375f, 65504.f, 65519.f, 65520.f,
                           -65520.f, 5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f, 8.940697e-8f, 6.1035156e-5f,
                           6.0975552e-5f, 3.14159265f, -2.7182818f, 1e-10f, 1e10f, 0.1f, 1234.5678f};
  for (float f : samples) EXPECT_EQ(float16(f).bits, ref_f16(f)) << f;
  EXPECT_EQ(float16(std::numeric_limits<float>::infinity()).bits, 0x7C00);
  EXPECT_EQ(float16(-std::numeric_limits<float>::infinity()).bits, 0xFC00);
  EXPECT_TRUE(std::isnan(static_cast<float>(float16(std::nanf("")))));
  EXPECT_EQ(float16(-0.0f).bits, 0x8000);
}

TEST(BFloat16, RoundToNearestEven) {
  auto bits_of = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; };
  auto from_bits = [](uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; };
  EXPECT_EQ(bfloat16(1.0f).bits, 0x3F80);
  // Exactly halfway between 0x3F80 and 0x3F81: ties to even (0x3F80).
  EXPECT_EQ(bfloat16(from_bits(0x3F808000u)).bits, 0x3F80);
  // Halfway between 0x3F81 and 0x3F82: ties to even (0x3F82).
  EXPECT_EQ(bfloat16(from_bits(0x3F818000u)).bits, 0x3F82);
  EXPECT_EQ(bfloat16(from_bits(0x3F808001u)).bits, 0x3F81);
  EXPECT_EQ(bfloat16(from_bits(0x7F7FFFFFu)).bits, 0x7F80);  // rounds to Inf
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(from_bits(0x7F800001u)))));  // NaN stays NaN
  EXPECT_EQ(bfloat16(-0.0f).bits, 0x8000);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = from_bits(h << 16);
    if (!std::isnan(f)) {
      EXPECT_EQ(bfloat16(f).bits, h);
    }
  }
  (void)bits_of;
}

TEST(Log, LevelControl) {
  LogLevel saved = log_level();
  set_log_level(LogLevel::kError);
  EXPECT_FALSE(log_enabled(LogLevel::kDebug));
  EXPECT_TRUE(log_enabled(LogLevel::kError));
  set_log_level(LogLevel::kDebug);
  EXPECT_TRUE(log_enabled(LogLevel::kDebug));
  set_log_level(saved);
}
