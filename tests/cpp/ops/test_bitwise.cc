// Bitwise ops (src/ops/bitwise.cc, bitwise_simd.cc): the Highway kernels
// against an independent scalar model for every dtype, operand form and
// length around the vector widths, on every SIMD target (the test re-runs
// itself with ASC_SIMD_TARGET), and the registry ops' dtype rules.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"
#include "ops/bitwise_simd.h"

using namespace asc;
using ops::bitwise::BinOp;
using ops::bitwise::Form;

namespace {

// Lengths around 1..8 vectors of 8/16/32/64-bit lanes (SSE4 ... AVX3) and tiles.
std::vector<size_t> lengths() {
  std::vector<size_t> n;
  for (size_t i = 0; i <= 70; ++i) n.push_back(i);
  for (size_t i : {127, 128, 129, 255, 256, 257, 383, 384, 385, 4095, 4096, 4097}) n.push_back(i);
  return n;
}

/// Model of NumPy's loops, written with 64-bit arithmetic (not the kernels' code).
template <typename T>
T model(BinOp op, T a, T b) {
  const int bits = static_cast<int>(sizeof(T) * 8);
  const uint64_t ua = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(a));
  const uint64_t cnt = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b));  // negative: huge
  switch (op) {
    case BinOp::kAnd: return static_cast<T>(ua & static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b)));
    case BinOp::kOr: return static_cast<T>(ua | static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b)));
    case BinOp::kXor: return static_cast<T>(ua ^ static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b)));
    case BinOp::kLeftShift: return cnt >= static_cast<uint64_t>(bits) ? T(0) : static_cast<T>(ua << cnt);
    case BinOp::kRightShift: {
      const bool neg = std::is_signed_v<T> && a < 0;
      if (cnt >= static_cast<uint64_t>(bits)) return neg ? static_cast<T>(-1) : T(0);
      uint64_t r = ua >> cnt;
      if (neg && cnt > 0) r |= ~uint64_t(0) << (bits - static_cast<int>(cnt));  // sign fill
      return static_cast<T>(r);
    }
  }
  return T(0);
}

template <typename T>
std::vector<T> values(size_t n, uint32_t seed, bool counts) {
  std::mt19937_64 rng(seed);
  const int bits = static_cast<int>(sizeof(T) * 8);
  std::vector<T> special = {T(0), T(1), std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), T(5)};
  if (counts) {
    special = {T(0), T(1), static_cast<T>(bits - 1), static_cast<T>(bits), static_cast<T>(bits + 1), T(3),
               std::numeric_limits<T>::max(), std::numeric_limits<T>::min()};
    if (std::is_signed_v<T>) {
      special.push_back(static_cast<T>(-1));
      special.push_back(static_cast<T>(-bits));
    }
  } else if (std::is_signed_v<T>) {
    special.push_back(static_cast<T>(-1));
    special.push_back(static_cast<T>(-128));
  }
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (rng() % 3 == 0) v[i] = special[rng() % special.size()];
    else if (counts) v[i] = static_cast<T>(rng() % static_cast<uint64_t>(bits + 3));
    else v[i] = static_cast<T>(rng());
  }
  return v;
}

template <typename T>
void check_binary_kernels() {
  const DType dt = dtype_of<T>();
  for (BinOp op : {BinOp::kAnd, BinOp::kOr, BinOp::kXor, BinOp::kLeftShift, BinOp::kRightShift}) {
    const bool shift = op == BinOp::kLeftShift || op == BinOp::kRightShift;
    for (size_t n : lengths()) {
      const auto a = values<T>(n + 1, static_cast<uint32_t>(n * 7 + 1), false);
      const auto b = values<T>(n + 1, static_cast<uint32_t>(n * 7 + 2), shift);
      for (Form form : {Form::kVecVec, Form::kVecScalar, Form::kScalarVec}) {
        std::vector<T> out(n + 1, T(42));
        ASSERT_TRUE(ops::bitwise::binary(op, dt, form, out.data(), a.data(), b.data(), n));
        for (size_t i = 0; i < n; ++i) {
          const T x = form == Form::kScalarVec ? a[0] : a[i];
          const T y = form == Form::kVecScalar ? b[0] : b[i];
          ASSERT_EQ(out[i], model<T>(op, x, y))
              << dtype_name(dt) << " op " << static_cast<int>(op) << " form " << static_cast<int>(form) << " n " << n
              << " i " << i << " a " << +x << " b " << +y;
        }
        ASSERT_EQ(out[n], T(42)) << "wrote past the end, n " << n;
      }
      // In place (dst == a).
      std::vector<T> inplace = a;
      ASSERT_TRUE(ops::bitwise::binary(op, dt, Form::kVecVec, inplace.data(), inplace.data(), b.data(), n));
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(inplace[i], model<T>(op, a[i], b[i]));
    }
  }
  // invert and bitwise_count.
  for (size_t n : lengths()) {
    const auto a = values<T>(n + 1, static_cast<uint32_t>(n * 7 + 3), false);
    std::vector<T> inv(n + 1, T(42));
    std::vector<uint8_t> cnt(n + 1, 200);
    ASSERT_TRUE(ops::bitwise::invert(dt, inv.data(), a.data(), n));
    ASSERT_TRUE(ops::bitwise::count(dt, cnt.data(), a.data(), n));
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(inv[i], static_cast<T>(~static_cast<uint64_t>(a[i])));
      uint64_t mag = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(a[i]));
      if (std::is_signed_v<T> && a[i] < 0) mag = static_cast<std::make_unsigned_t<T>>(-mag);
      int bitsum = 0;
      for (; mag; mag >>= 1) bitsum += static_cast<int>(mag & 1);
      ASSERT_EQ(cnt[i], bitsum) << dtype_name(dt) << " n " << n << " value " << +a[i];
    }
    ASSERT_EQ(inv[n], T(42));
    ASSERT_EQ(cnt[n], 200);
  }
}

}  // namespace

TEST(BitwiseKernels, Int8) { check_binary_kernels<int8_t>(); }
TEST(BitwiseKernels, Int16) { check_binary_kernels<int16_t>(); }
TEST(BitwiseKernels, Int32) { check_binary_kernels<int32_t>(); }
TEST(BitwiseKernels, Int64) { check_binary_kernels<int64_t>(); }
TEST(BitwiseKernels, UInt8) { check_binary_kernels<uint8_t>(); }
TEST(BitwiseKernels, UInt16) { check_binary_kernels<uint16_t>(); }
TEST(BitwiseKernels, UInt32) { check_binary_kernels<uint32_t>(); }
TEST(BitwiseKernels, UInt64) { check_binary_kernels<uint64_t>(); }

TEST(BitwiseKernels, BoolIsLogicalOnAnyNonzeroByte) {
  for (size_t n : lengths()) {
    std::vector<uint8_t> a(n + 1), b(n + 1);
    std::mt19937 rng(static_cast<uint32_t>(n));
    for (size_t i = 0; i <= n; ++i) {
      a[i] = static_cast<uint8_t>(rng() % 3 == 0 ? 0 : rng() % 2 ? 1 : 0x80);  // non-canonical true bytes too
      b[i] = static_cast<uint8_t>(rng() % 2 ? 0 : 1 + rng() % 255);
    }
    for (BinOp op : {BinOp::kAnd, BinOp::kOr, BinOp::kXor}) {
      for (Form form : {Form::kVecVec, Form::kVecScalar, Form::kScalarVec}) {
        std::vector<uint8_t> out(n + 1, 42);
        ASSERT_TRUE(ops::bitwise::binary(op, DType::kBool, form, out.data(), a.data(), b.data(), n));
        for (size_t i = 0; i < n; ++i) {
          const bool x = (form == Form::kScalarVec ? a[0] : a[i]) != 0;
          const bool y = (form == Form::kVecScalar ? b[0] : b[i]) != 0;
          const bool want = op == BinOp::kAnd ? (x && y) : op == BinOp::kOr ? (x || y) : (x != y);
          ASSERT_EQ(out[i], want ? 1 : 0) << "op " << static_cast<int>(op) << " n " << n << " i " << i;
        }
        ASSERT_EQ(out[n], 42);
      }
    }
    std::vector<uint8_t> inv(n + 1, 42);
    ASSERT_TRUE(ops::bitwise::invert(DType::kBool, inv.data(), a.data(), n));
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(inv[i], a[i] == 0 ? 1 : 0);
    ASSERT_EQ(inv[n], 42);
  }
  uint8_t x = 1, y = 1, o = 0;
  EXPECT_FALSE(ops::bitwise::binary(BinOp::kLeftShift, DType::kBool, Form::kVecVec, &o, &x, &y, 1));
  EXPECT_FALSE(ops::bitwise::count(DType::kBool, &o, &x, 1));
  float f = 1;
  EXPECT_FALSE(ops::bitwise::binary(BinOp::kAnd, DType::kFloat32, Form::kVecVec, &f, &f, &f, 1));
  EXPECT_FALSE(ops::bitwise::invert(DType::kFloat64, &f, &f, 0));
}

TEST(BitwiseKernels, RunsOnTheRequestedTarget) {
  const char* want = std::getenv("ASC_SIMD_TARGET");
  const std::string got = ops::bitwise::target_name();
  if (want && *want) {
    // The override caps the target; this machine supports every x86 target we compile.
    EXPECT_EQ(got, std::string(want));
  } else {
    EXPECT_FALSE(got.empty());
  }
}

// Every kernel test again with each weaker target forced (a fresh process:
// the override is read once).
TEST(BitwiseTargets, EveryTargetGivesTheModelResults) {
  if (std::getenv("ASC_SIMD_TARGET")) GTEST_SKIP() << "already a forced-target child";
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  ASSERT_GT(len, 0);
  exe[len] = '\0';
  for (const char* target : {"AVX2", "SSE4", "SCALAR"}) {
    const std::string cmd = std::string("ASC_SIMD_TARGET=") + target + " '" + exe +
                            "' --gtest_filter='BitwiseKernels.*' > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "kernels failed with ASC_SIMD_TARGET=" << target
                                           << " (rerun: " << cmd << ")";
  }
}

// ---------------------------------------------------------------- registry ops

namespace {
template <typename T>
Tensor from(std::initializer_list<T> v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, dtype_of<T>());
  std::memcpy(t.data(), v.begin(), v.size() * sizeof(T));
  return t;
}
Tensor from(const std::vector<int32_t>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::kInt32);
  std::memcpy(t.data(), v.data(), v.size() * sizeof(int32_t));
  return t;
}
template <typename T>
std::vector<T> to_vec(const Tensor& t) {
  Tensor c = t.is_contiguous() ? t : t.clone();
  std::vector<T> v(static_cast<size_t>(c.numel()));
  std::memcpy(v.data(), c.data(), v.size() * sizeof(T));
  return v;
}
ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.status().code();
  }
  return ErrorCode::kSuccess;
}
}  // namespace

TEST(BitwiseOps, DtypeRules) {
  Tensor b = from<bool>({true, false, true});
  EXPECT_EQ(ops::call("bitwise_and", {b, b}).dtype(), DType::kBool);
  EXPECT_EQ(ops::call("invert", {b}).dtype(), DType::kBool);
  EXPECT_EQ(ops::call("left_shift", {b, b}).dtype(), DType::kInt8);  // NumPy: no bool shift loop
  EXPECT_EQ(ops::call("bitwise_count", {b}).dtype(), DType::kUInt8);
  Tensor i8 = from<int8_t>({-1, 2, 3}), u8 = from<uint8_t>({1, 2, 3});
  EXPECT_EQ(ops::call("bitwise_or", {i8, u8}).dtype(), DType::kInt16);
  EXPECT_EQ(ops::call("bitwise_count", {i8}).dtype(), DType::kUInt8);
  Tensor i64 = from<int64_t>({1, 2, 3}), u64 = from<uint64_t>({1, 2, 3});
  Tensor f = from<float>({1, 2, 3});
  EXPECT_EQ(code_of([&] { ops::call("bitwise_xor", {i64, u64}); }), ErrorCode::kInvalidDtype);  // float64
  EXPECT_EQ(code_of([&] { ops::call("right_shift", {f, i64}); }), ErrorCode::kInvalidDtype);
  EXPECT_EQ(code_of([&] { ops::call("invert", {f}); }), ErrorCode::kInvalidDtype);
  EXPECT_EQ(code_of([&] { ops::call("bitwise_count", {f}); }), ErrorCode::kInvalidDtype);
  try {
    ops::call("bitwise_and", {f, i64});
    FAIL();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("[bitwise_and] ufunc 'bitwise_and' not supported for the input types"), std::string::npos) << m;
    EXPECT_NE(m.find("float32, int64"), std::string::npos) << m;
  }
}

TEST(BitwiseOps, StridedAndBroadcastOperands) {
  // Every other element, reversed, and a broadcast 0-d count: the scalar loops.
  std::vector<int32_t> v(64);
  for (int i = 0; i < 64; ++i) v[static_cast<size_t>(i)] = (i % 5 == 0) ? -i * 1000 : i * 12345;
  Tensor a = from(v);
  Tensor strided = a.slice(0, 63, 0, -2);  // 63, 61, ..., 1 (a view with a negative stride)
  Tensor cnt = from<int32_t>({33}).reshape({});
  const auto l = to_vec<int32_t>(ops::call("left_shift", {strided, cnt}));
  const auto r = to_vec<int32_t>(ops::call("right_shift", {strided, cnt}));
  const auto sv = to_vec<int32_t>(strided);
  ASSERT_EQ(l.size(), 32u);
  for (size_t i = 0; i < l.size(); ++i) {
    EXPECT_EQ(l[i], 0);
    EXPECT_EQ(r[i], sv[i] < 0 ? -1 : 0);
  }
  const auto x = to_vec<int32_t>(ops::call("bitwise_xor", {strided, a.slice(0, 0, 32, 1)}));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], sv[i] ^ v[i]);
}
