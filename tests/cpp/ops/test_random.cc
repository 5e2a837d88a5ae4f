// The Philox-4x32-10 random ops: known-answer vectors, element positions
// independent of the block split, ranges and moments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"

using namespace asc;

namespace {

ops::Attrs draw(std::vector<int64_t> shape, DType dtype, uint64_t key0, uint64_t key1 = 0, uint64_t counter = 0) {
  ops::Attrs a;
  a.shape = std::move(shape);
  a.dtype = dtype;
  a.key[0] = key0;
  a.key[1] = key1;
  a.counter = counter;
  return a;
}

template <typename T>
std::vector<T> to_vec(const Tensor& t) {
  std::vector<T> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * sizeof(T));
  return v;
}

std::vector<uint32_t> raw(size_t words, uint64_t key0, uint64_t key1, uint64_t counter) {
  return to_vec<uint32_t>(ops::call("random_raw", std::vector<Tensor>{},
                                    draw({static_cast<int64_t>(words)}, DType::kUInt32, key0, key1, counter)));
}

}  // namespace

// Random123's known-answer vectors for philox4x32_10: (counter words, key words) -> output.
TEST(Random, PhiloxKnownAnswers) {
  EXPECT_EQ(raw(4, 0, 0, 0), (std::vector<uint32_t>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(raw(4, ~0ull, ~0ull, ~0ull), (std::vector<uint32_t>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(raw(4, 0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull),
            (std::vector<uint32_t>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Random, UniformFloat64IsTheRawStreamAtItsPosition) {
  const int64_t n = (1 << 18) + 7;  // several parallel blocks plus a tail
  const auto u = to_vec<double>(ops::call("random_uniform", std::vector<Tensor>{}, draw({n}, DType::kFloat64, 42, 7, 100)));
  const auto w = raw(static_cast<size_t>(2 * n + 4), 42, 7, 100);
  for (int64_t i = 0; i < n; ++i) {
    const size_t p = static_cast<size_t>(4 * (i / 2) + 2 * (i % 2));
    const uint64_t x = (uint64_t(w[p + 1]) << 32) | w[p];
    ASSERT_EQ(u[static_cast<size_t>(i)], static_cast<double>(x >> 11) * 0x1.0p-53) << i;
  }
  double mean = 0;
  for (double x : u) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    mean += x;
  }
  mean /= static_cast<double>(n);
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / static_cast<double>(n)));
}

TEST(Random, Float32CounterOffsetShiftsByOneBlock) {
  const auto a = to_vec<float>(ops::call("random_uniform", std::vector<Tensor>{}, draw({100000}, DType::kFloat32, 5, 0, 10)));
  const auto b = to_vec<float>(ops::call("random_uniform", std::vector<Tensor>{}, draw({100000}, DType::kFloat32, 5, 0, 11)));
  for (size_t i = 0; i + 4 < a.size(); ++i) ASSERT_EQ(a[i + 4], b[i]);
  const auto c = to_vec<float>(ops::call("random_uniform", std::vector<Tensor>{}, draw({100000}, DType::kFloat32, 6, 0, 10)));
  EXPECT_NE(a, c);  // another key, another stream
}

TEST(Random, IntegersRanges) {
  ops::Attrs a = draw({200000}, DType::kInt8, 9);
  a.ilow = static_cast<uint64_t>(int64_t{-128});
  a.irange = 255;
  const auto v = to_vec<int8_t>(ops::call("random_integers", std::vector<Tensor>{}, a));
  std::vector<int> hist(256, 0);
  for (int8_t x : v) ++hist[static_cast<size_t>(x + 128)];
  for (int h : hist) EXPECT_NEAR(h, 200000.0 / 256, 6 * std::sqrt(200000.0 / 256));

  // Full uint64 range and a range above 2^32 (128-bit path).
  a = draw({1000}, DType::kUInt64, 9);
  a.irange = ~0ull;
  const auto full = to_vec<uint64_t>(ops::call("random_integers", std::vector<Tensor>{}, a));
  EXPECT_GT(*std::max_element(full.begin(), full.end()), 1ull << 62);
  a = draw({100000}, DType::kInt64, 9);
  a.ilow = static_cast<uint64_t>(int64_t{-5});
  a.irange = (1ull << 40);
  const auto big = to_vec<int64_t>(ops::call("random_integers", std::vector<Tensor>{}, a));
  for (int64_t x : big) ASSERT_TRUE(x >= -5 && x <= -5 + (int64_t(1) << 40));
  double mean = 0;
  for (int64_t x : big) mean += static_cast<double>(x);
  mean /= 100000.0;
  EXPECT_NEAR(mean / double(int64_t(1) << 40), 0.5, 0.01);

  a = draw({1000}, DType::kFloat32, 9);
  EXPECT_THROW(ops::call("random_integers", std::vector<Tensor>{}, a), Error);
}

TEST(Random, NormalAndExponentialMoments) {
  ops::Attrs a = draw({1 << 20}, DType::kFloat64, 123);
  a.param[0] = 2.0;
  a.param[1] = 3.0;
  const auto z = to_vec<double>(ops::call("random_normal", std::vector<Tensor>{}, a));
  double m = 0, v = 0;
  for (double x : z) m += x;
  m /= static_cast<double>(z.size());
  for (double x : z) v += (x - m) * (x - m);
  v /= static_cast<double>(z.size());
  EXPECT_NEAR(m, 2.0, 0.02);
  EXPECT_NEAR(v, 9.0, 0.1);
  a.param[0] = 0.5;
  const auto e = to_vec<double>(ops::call("random_exponential", std::vector<Tensor>{}, a));
  m = 0;
  for (double x : e) {
    ASSERT_GE(x, 0.0);
    m += x;
  }
  EXPECT_NEAR(m / static_cast<double>(e.size()), 0.5, 0.005);
}

TEST(Random, PermutationAndTakeRows) {
  const auto p = to_vec<int64_t>(ops::call("random_permutation", std::vector<Tensor>{}, draw({1000}, DType::kInt64, 77)));
  std::vector<int64_t> s = p;
  std::sort(s.begin(), s.end());
  std::vector<int64_t> id(1000);
  std::iota(id.begin(), id.end(), 0);
  EXPECT_EQ(s, id);
  EXPECT_NE(p, id);
  Tensor x = Tensor::empty({4, 3}, DType::kFloat32);
  for (int i = 0; i < 12; ++i) x.data_as<float>()[i] = static_cast<float>(i);
  Tensor idx = Tensor::empty({2}, DType::kInt64);
  idx.data_as<int64_t>()[0] = 3;
  idx.data_as<int64_t>()[1] = 0;
  const auto r = to_vec<float>(ops::call("take_rows", {x, idx}));
  EXPECT_EQ(r, (std::vector<float>{9, 10, 11, 0, 1, 2}));
  idx.data_as<int64_t>()[1] = 4;
  EXPECT_THROW(ops::call("take_rows", {x, idx}), Error);
}

// The SIMD Philox (one counter per lane) equals the scalar reference at every
// position, including counters whose low word wraps inside a vector.
TEST(Random, SimdPhiloxEqualsScalarReferenceAcrossLowWordWrap) {
  auto ref_block = [](uint64_t key0, uint64_t key1, uint64_t c, uint32_t w[4]) {
    uint32_t c0 = static_cast<uint32_t>(c), c1 = static_cast<uint32_t>(c >> 32);
    uint32_t c2 = static_cast<uint32_t>(key1), c3 = static_cast<uint32_t>(key1 >> 32);
    uint32_t k0 = static_cast<uint32_t>(key0), k1 = static_cast<uint32_t>(key0 >> 32);
    for (int r = 0; r < 10; ++r) {
      const uint64_t p0 = uint64_t(0xD2511F53u) * c0, p1 = uint64_t(0xCD9E8D57u) * c2;
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
      c1 = static_cast<uint32_t>(p1);
      c3 = static_cast<uint32_t>(p0);
      c0 = n0;
      c2 = n2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    w[0] = c0, w[1] = c1, w[2] = c2, w[3] = c3;
  };
  for (uint64_t counter : {uint64_t(0), (uint64_t(1) << 32) - 3, (uint64_t(5) << 32) - 17, ~uint64_t(0) - 40}) {
    const size_t blocks = 3000;
    const auto got = raw(4 * blocks + 3, 0xABCDEF0123456789ull, 0x55AA55AA00FF00FFull, counter);
    ASSERT_EQ(got.size(), 4 * blocks + 3);
    for (size_t b = 0; b <= blocks; ++b) {
      uint32_t w[4];
      ref_block(0xABCDEF0123456789ull, 0x55AA55AA00FF00FFull, counter + b, w);
      for (size_t j = 0; j < 4 && 4 * b + j < got.size(); ++j) ASSERT_EQ(got[4 * b + j], w[j]) << counter << " " << b;
    }
  }
}

TEST(Random, SimdIntegersAndFloat32EqualTheirFormulas) {
  const int64_t n = 100003;
  const auto w = raw(static_cast<size_t>(2 * n + 4), 3, 4, (uint64_t(1) << 32) - 7);
  ops::Attrs a = draw({n}, DType::kInt32, 3, 4, (uint64_t(1) << 32) - 7);
  a.ilow = static_cast<uint64_t>(int64_t{-1000});
  a.irange = 123456;
  const auto v = to_vec<int32_t>(ops::call("random_integers", std::vector<Tensor>{}, a));
  for (int64_t i = 0; i < n; ++i) {
    const size_t p = static_cast<size_t>(2 * i);
    const uint64_t x = (uint64_t(w[p + 1]) << 32) | w[p];
    const auto expect = static_cast<int32_t>(-1000 + static_cast<int64_t>((static_cast<unsigned __int128>(x) * 123457) >> 64));
    ASSERT_EQ(v[static_cast<size_t>(i)], expect) << i;
  }
  const auto f = to_vec<float>(ops::call("random_uniform", std::vector<Tensor>{},
                                         draw({n}, DType::kFloat32, 3, 4, (uint64_t(1) << 32) - 7)));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(f[static_cast<size_t>(i)], static_cast<float>(w[static_cast<size_t>(i)] >> 8) * 0x1.0p-24f);
}
