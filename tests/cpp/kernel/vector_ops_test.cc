// Element-wise vector instructions against scalar references, over dtypes,
// tail lengths and special values; run inside kernels on UB tensors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::LocalTensor;

constexpr size_t kGuard = 40;  // elements past n that must stay untouched
constexpr uint8_t kSentinel = 0x5A;

size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Copies a and b into UB, runs body(dst, a, b, n) and returns dst[0, n + kGuard).
template <typename T, typename Body>
std::vector<T> run_on_ub(const std::vector<T>& a, const std::vector<T>& b, size_t n, Body body) {
  std::vector<T> out(n + kGuard);
  kt::run_or_throw("vector_ops_test", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    const size_t cap = align_up((n + kGuard) * sizeof(T), 32);
    pipe.InitBuffer(buf, static_cast<uint32_t>(3 * cap));
    LocalTensor<T> all = buf.Get<T>();
    LocalTensor<T> ta = all[0];
    LocalTensor<T> tb = all[static_cast<uint32_t>(cap / sizeof(T))];
    LocalTensor<T> td = all[static_cast<uint32_t>(2 * cap / sizeof(T))];
    ta.SetSize(static_cast<uint32_t>(n));
    tb.SetSize(static_cast<uint32_t>(n));
    td.SetSize(static_cast<uint32_t>(n));
    if (n) {
      std::memcpy(ta.data(), a.data(), n * sizeof(T));
      std::memcpy(tb.data(), b.data(), n * sizeof(T));
    }
    std::memset(static_cast<void*>(td.data()), kSentinel, (n + kGuard) * sizeof(T));
    body(td, ta, tb, static_cast<int32_t>(n));
    std::memcpy(out.data(), td.data(), (n + kGuard) * sizeof(T));
  });
  return out;
}

template <typename T>
bool untouched(const std::vector<T>& out, size_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(out.data() + n);
  return std::all_of(p, p + kGuard * sizeof(T), [](uint8_t c) { return c == kSentinel; });
}

// ---------------------------------------------------------------- data

const float kSpecials[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           0.0f,
                           -0.0f,
                           1e-40f,   // subnormal
                           -3e-39f,  // subnormal
                           std::numeric_limits<float>::max(),
                           -std::numeric_limits<float>::max(),
                           1.0f,
                           -1.0f};

template <typename T>
std::vector<T> make_data(size_t n, uint32_t seed, bool specials, float lo = -100.0f, float hi = 100.0f) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    for (auto& x : v) x = static_cast<T>(dist(rng));
    if (specials) {
      for (size_t i = 0; i < n; i += 9) v[i] = std::numeric_limits<T>::min();
      for (size_t i = 4; i < n; i += 9) v[i] = std::numeric_limits<T>::max();
      for (size_t i = 6; i < n; i += 9) v[i] = 0;
    }
  } else {
    std::uniform_real_distribution<float> dist(lo, hi);
    for (auto& x : v) x = T(dist(rng));
    if (specials) {
      const size_t ns = sizeof(kSpecials) / sizeof(kSpecials[0]);
      for (size_t i = seed % 5; i < n; i += 5) v[i] = T(kSpecials[(i / 5 + seed) % ns]);
    }
  }
  return v;
}

template <typename T>
double as_double(T v) {
  return static_cast<double>(static_cast<float>(v));
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return std::isnan(static_cast<float>(v));
  }
}

template <typename T>
uint32_t bits_of(T v) {
  uint32_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}

// Equal as values of T: both NaN, or the same bits (or == when zero_sign_free).
template <typename T>
bool same(T got, T want, bool zero_sign_free = false) {
  if constexpr (std::is_integral_v<T>) {
    return got == want;
  } else {
    if (is_nan(want)) return is_nan(got);
    if (zero_sign_free && static_cast<float>(want) == 0.0f) return static_cast<float>(got) == 0.0f;
    return bits_of(got) == bits_of(want);
  }
}

template <typename T>
std::string show(T v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g (0x%x)", static_cast<double>(static_cast<float>(v)), bits_of(v));
    return buf;
  }
}

// ---------------------------------------------------------------- references

enum class Op { kAdd, kSub, kMul, kDiv, kMax, kMin };

template <typename T>
T ref_binary(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Two's complement wrap-around.
    const int64_t x = a, y = b;
    switch (op) {
      case Op::kAdd: return static_cast<T>(static_cast<uint64_t>(x + y));
      case Op::kSub: return static_cast<T>(static_cast<uint64_t>(x - y));
      case Op::kMul: return static_cast<T>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      case Op::kMax: return std::max(a, b);
      case Op::kMin: return std::min(a, b);
      default: return 0;
    }
  } else {
    const float x = static_cast<float>(a), y = static_cast<float>(b);
    float r = 0;
    switch (op) {
      case Op::kAdd: r = x + y; break;
      case Op::kSub: r = x - y; break;
      case Op::kMul: r = x * y; break;
      case Op::kDiv: r = x / y; break;
      case Op::kMax: r = (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y); break;
      case Op::kMin: r = (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y); break;
    }
    return T(r);  // float16: one rounding (correct: float32 has >= 2*11+2 bits)
  }
}

template <typename T>
void call_binary(Op op, const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t n) {
  switch (op) {
    case Op::kAdd: AscendC::Add(d, a, b, n); break;
    case Op::kSub: AscendC::Sub(d, a, b, n); break;
    case Op::kMul: AscendC::Mul(d, a, b, n); break;
    case Op::kDiv: AscendC::Div(d, a, b, n); break;
    case Op::kMax: AscendC::Max(d, a, b, n); break;
    case Op::kMin: AscendC::Min(d, a, b, n); break;
  }
}

const char* op_str(Op op) {
  static const char* const names[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  return names[static_cast<int>(op)];
}

template <typename T>
void check_binary(Op op, bool specials) {
  for (size_t n : kt::tail_lengths()) {
    const auto a = make_data<T>(n, 1 + static_cast<uint32_t>(n), specials);
    const auto b = make_data<T>(n, 2 + static_cast<uint32_t>(n), specials);
    const auto out = run_on_ub<T>(a, b, n, [op](auto d, auto x, auto y, int32_t c) { call_binary(op, d, x, y, c); });
    const bool zero_free = op == Op::kMax || op == Op::kMin;
    for (size_t i = 0; i < n; ++i) {
      const T want = ref_binary(op, a[i], b[i]);
      ASSERT_TRUE(same(out[i], want, zero_free))
          << op_str(op) << " n=" << n << " i=" << i << " a=" << show(a[i]) << " b=" << show(b[i])
          << " got " << show(out[i]) << " want " << show(want);
    }
    ASSERT_TRUE(untouched(out, n)) << op_str(op) << " wrote past n=" << n;
  }
}

TEST(VectorBinary, Float32) {
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kMax, Op::kMin}) check_binary<float>(op, true);
}
TEST(VectorBinary, Float16) {
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kMax, Op::kMin}) check_binary<half>(op, true);
}
TEST(VectorBinary, Int16) {
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kMax, Op::kMin}) check_binary<int16_t>(op, true);
}
TEST(VectorBinary, Int32) {
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kMax, Op::kMin}) check_binary<int32_t>(op, true);
}

TEST(VectorBinary, MaxMinNaNRule) {
  // Documented choice: a NaN in either operand gives NaN (like numpy.maximum).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {nan, 1.0f, nan, -0.0f, 3.0f, -2.0f, 0.0f, 5.0f};
  std::vector<float> b = {1.0f, nan, nan, 0.0f, 4.0f, nan, -0.0f, 5.0f};
  for (bool is_max : {true, false}) {
    auto out = run_on_ub<float>(a, b, a.size(), [is_max](auto d, auto x, auto y, int32_t c) {
      if (is_max) AscendC::Max(d, x, y, c); else AscendC::Min(d, x, y, c);
    });
    EXPECT_TRUE(std::isnan(out[0]));
    EXPECT_TRUE(std::isnan(out[1]));
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_EQ(out[3], 0.0f);  // +0 or -0
    EXPECT_EQ(out[4], is_max ? 4.0f : 3.0f);
    EXPECT_TRUE(std::isnan(out[5]));
    EXPECT_EQ(out[7], 5.0f);
  }
}

TEST(VectorBinary, InPlaceAndUnsupportedDtype) {
  std::vector<float> a = make_data<float>(300, 7, false), b = make_data<float>(300, 8, false);
  std::vector<float> out(300);
  kt::run_or_throw("inplace", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> buf;
    pipe.InitBuffer(buf, 2 * 300 * sizeof(float));
    auto x = buf.Get<float>(300);
    auto y = buf.Get<float>()[300];
    std::memcpy(x.data(), a.data(), 300 * 4);
    std::memcpy(y.data(), b.data(), 300 * 4);
    AscendC::Add(x, x, y, 300);  // dst aliases src0
    std::memcpy(out.data(), x.data(), 300 * 4);
  });
  for (int i = 0; i < 300; ++i) ASSERT_EQ(out[i], a[i] + b[i]);

  const asc::Status st = kt::run("div_int", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    auto t = buf.Get<int32_t>();
    AscendC::Div(t, t, t, 8);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  EXPECT_NE(st.message().find("[Div]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("int32"), std::string::npos) << st.message();
}

TEST(VectorBinary, CountErrors) {
  asc::Status st = kt::run("too_many", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    auto t = buf.Get<float>(64);
    AscendC::Add(t, t, t, 65);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Add] kernel 'too_many' block 0"), std::string::npos) << st.message();
  st = kt::run("negative", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    auto t = buf.Get<float>(64);
    AscendC::Exp(t, t, -1);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
}

// ---------------------------------------------------------------- with a scalar

template <typename T>
void check_scalar(Op op, T s) {
  for (size_t n : kt::tail_lengths()) {
    const auto a = make_data<T>(n, 3 + static_cast<uint32_t>(n), true);
    const auto out = run_on_ub<T>(a, a, n, [op, s](auto d, auto x, auto, int32_t c) {
      switch (op) {
        case Op::kAdd: AscendC::Adds(d, x, s, c); break;
        case Op::kMul: AscendC::Muls(d, x, s, c); break;
        case Op::kMax: AscendC::Maxs(d, x, s, c); break;
        case Op::kMin: AscendC::Mins(d, x, s, c); break;
        default: break;
      }
    });
    for (size_t i = 0; i < n; ++i) {
      const T want = ref_binary(op, a[i], s);
      ASSERT_TRUE(same(out[i], want, op == Op::kMax || op == Op::kMin))
          << op_str(op) << "s n=" << n << " i=" << i << " a=" << show(a[i]) << " s=" << show(s) << " got "
          << show(out[i]) << " want " << show(want);
    }
    ASSERT_TRUE(untouched(out, n));
  }
}

TEST(VectorScalar, AllDtypes) {
  for (Op op : {Op::kAdd, Op::kMul, Op::kMax, Op::kMin}) {
    check_scalar<float>(op, 2.5f);
    check_scalar<float>(op, -0.0f);
    check_scalar<float>(op, std::numeric_limits<float>::quiet_NaN());
    check_scalar<half>(op, half(-3.25f));
    check_scalar<int16_t>(op, int16_t(-1234));
    check_scalar<int32_t>(op, int32_t(1 << 20));
  }
}

TEST(VectorScalar, ScalarConvertsToTensorType) {
  // Adds(halfTensor, halfTensor, 1.5f, n): the float scalar converts to half.
  std::vector<half> a(16, half(1.0f));
  auto out = run_on_ub<half>(a, a, 16, [](auto d, auto x, auto, int32_t c) { AscendC::Adds(d, x, 1.5f, c); });
  for (int i = 0; i < 16; ++i) EXPECT_EQ(static_cast<float>(out[i]), 2.5f);
}

// ---------------------------------------------------------------- unary

enum class UOp { kExp, kLn, kAbs, kRelu, kSqrt };

template <typename T>
void call_unary(UOp op, const LocalTensor<T>& d, const LocalTensor<T>& a, int32_t n) {
  switch (op) {
    case UOp::kExp: AscendC::Exp(d, a, n); break;
    case UOp::kLn: AscendC::Ln(d, a, n); break;
    case UOp::kAbs: AscendC::Abs(d, a, n); break;
    case UOp::kRelu: AscendC::Relu(d, a, n); break;
    case UOp::kSqrt: AscendC::Sqrt(d, a, n); break;
  }
}

// Reference in double, rounded once to T.
template <typename T>
T ref_unary(UOp op, T a) {
  if constexpr (std::is_integral_v<T>) {
    if (op == UOp::kAbs) return a < 0 ? static_cast<T>(static_cast<uint64_t>(-static_cast<int64_t>(a))) : a;
    return a < 0 ? T(0) : a;
  } else {
    const double x = as_double(a);
    switch (op) {
      case UOp::kExp: return T(static_cast<float>(std::exp(x)));
      case UOp::kLn: return T(static_cast<float>(std::log(x)));
      case UOp::kAbs: return T(static_cast<float>(std::fabs(x)));
      case UOp::kRelu: return (x < 0) ? T(0.0f) : a;  // NaN and -0 pass through
      case UOp::kSqrt: return T(static_cast<float>(std::sqrt(x)));
    }
    return a;
  }
}

// Distance in units in the last place (same-sign finite values).
template <typename T>
int64_t ulp_diff(T x, T y) {
  auto key = [](T v) -> int64_t {
    const int bits = sizeof(T) * 8;
    const int64_t u = bits_of(v);
    const int64_t sign = int64_t{1} << (bits - 1);
    return (u & sign) ? -(u & (sign - 1)) : u;
  };
  return std::llabs(key(x) - key(y));
}

template <typename T>
void check_unary(UOp op, float lo, float hi, int64_t max_ulp) {
  static const char* const names[] = {"Exp", "Ln", "Abs", "Relu", "Sqrt"};
  for (size_t n : kt::tail_lengths()) {
    const auto a = make_data<T>(n, 11 + static_cast<uint32_t>(n), true, lo, hi);
    const auto out = run_on_ub<T>(a, a, n, [op](auto d, auto x, auto, int32_t c) { call_unary(op, d, x, c); });
    for (size_t i = 0; i < n; ++i) {
      const T want = ref_unary(op, a[i]);
      bool ok;
      if constexpr (std::is_integral_v<T>) {
        ok = out[i] == want;
      } else {
        ok = same(out[i], want) ||
             (!is_nan(want) && !is_nan(out[i]) && std::isfinite(as_double(want)) && ulp_diff(out[i], want) <= max_ulp);
      }
      ASSERT_TRUE(ok) << names[static_cast<int>(op)] << " n=" << n << " i=" << i << " a=" << show(a[i]) << " got "
                      << show(out[i]) << " want " << show(want);
    }
    ASSERT_TRUE(untouched(out, n));
  }
}

TEST(VectorUnary, Float32) {
  check_unary<float>(UOp::kExp, -110.0f, 100.0f, 2);
  check_unary<float>(UOp::kLn, 0.0f, 1e6f, 2);
  check_unary<float>(UOp::kLn, -10.0f, 10.0f, 2);
  check_unary<float>(UOp::kAbs, -100.0f, 100.0f, 0);
  check_unary<float>(UOp::kRelu, -100.0f, 100.0f, 0);
  check_unary<float>(UOp::kSqrt, -1.0f, 1e4f, 0);
}
TEST(VectorUnary, Float16) {
  check_unary<half>(UOp::kExp, -20.0f, 12.0f, 1);
  check_unary<half>(UOp::kLn, 0.0f, 6e4f, 1);
  check_unary<half>(UOp::kAbs, -100.0f, 100.0f, 0);
  check_unary<half>(UOp::kRelu, -100.0f, 100.0f, 0);
  check_unary<half>(UOp::kSqrt, -1.0f, 6e4f, 0);
}
TEST(VectorUnary, Integers) {
  check_unary<int16_t>(UOp::kAbs, 0, 0, 0);
  check_unary<int16_t>(UOp::kRelu, 0, 0, 0);
  check_unary<int32_t>(UOp::kAbs, 0, 0, 0);
  check_unary<int32_t>(UOp::kRelu, 0, 0, 0);
}

TEST(VectorUnary, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {0.0f, -0.0f, inf, -inf, nan, 88.7f, 89.0f, -87.0f, -100.0f, -200.0f, 1e-45f, 1e-40f};
  auto e = run_on_ub<float>(x, x, x.size(), [](auto d, auto a, auto, int32_t c) { AscendC::Exp(d, a, c); });
  EXPECT_EQ(e[0], 1.0f);
  EXPECT_EQ(e[1], 1.0f);
  EXPECT_EQ(e[2], inf);
  EXPECT_EQ(e[3], 0.0f);
  EXPECT_TRUE(std::isnan(e[4]));
  EXPECT_TRUE(std::isfinite(e[5]));
  EXPECT_EQ(e[6], inf);
  EXPECT_GT(e[7], 0.0f);
  EXPECT_GE(e[8], 0.0f);
  EXPECT_EQ(e[9], 0.0f);
  auto l = run_on_ub<float>(x, x, x.size(), [](auto d, auto a, auto, int32_t c) { AscendC::Ln(d, a, c); });
  EXPECT_EQ(l[0], -inf);
  EXPECT_EQ(l[1], -inf);
  EXPECT_EQ(l[2], inf);
  EXPECT_TRUE(std::isnan(l[3]));
  EXPECT_TRUE(std::isnan(l[4]));
  EXPECT_NEAR(l[10], std::log(static_cast<double>(1e-45f)), 1e-4);  // subnormal inputs
  EXPECT_NEAR(l[11], std::log(static_cast<double>(1e-40f)), 1e-4);
  auto s = run_on_ub<float>(x, x, x.size(), [](auto d, auto a, auto, int32_t c) { AscendC::Sqrt(d, a, c); });
  EXPECT_EQ(kt::f32_bits(s[1]), kt::f32_bits(-0.0f));
  EXPECT_TRUE(std::isnan(s[3]));
  auto r = run_on_ub<float>(x, x, x.size(), [](auto d, auto a, auto, int32_t c) { AscendC::Relu(d, a, c); });
  EXPECT_EQ(r[3], 0.0f);
  EXPECT_TRUE(std::isnan(r[4]));  // documented: Relu(NaN) = NaN
}

// ---------------------------------------------------------------- Duplicate

template <typename T>
void check_duplicate(T value) {
  for (size_t n : kt::tail_lengths()) {
    std::vector<T> none;
    const auto out = run_on_ub<T>(std::vector<T>(n), std::vector<T>(n), n,
                                  [value](auto d, auto, auto, int32_t c) { AscendC::Duplicate(d, value, c); });
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(same(out[i], value)) << "n=" << n << " i=" << i;
    ASSERT_TRUE(untouched(out, n));
  }
}

TEST(VectorDuplicate, AllSizes) {
  check_duplicate<float>(-1.5f);
  check_duplicate<half>(half(3.0f));
  check_duplicate<bfloat16_t>(bfloat16_t(7.0f));
  check_duplicate<int16_t>(-7);
  check_duplicate<int32_t>(123456789);
  check_duplicate<int8_t>(-3);
  check_duplicate<uint8_t>(200);
  check_duplicate<int64_t>(int64_t{1} << 40);
}

TEST(VectorDispatch, TargetName) {
  const std::string t = asc::kernel::simd::target_name();
  EXPECT_FALSE(t.empty());
  std::printf("[ INFO     ] vector instructions use Highway target %s\n", t.c_str());
}

}  // namespace
