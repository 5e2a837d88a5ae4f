// WholeReduceSum/Max/Min (all ReduceOrders), BlockReduceSum/Max/Min and the
// mask/repeat form of ReduceSum/Max/Min, against scalar references written
// from the Ascend C semantics; float and half; NaN; elision on and off.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

enum class Op { kSum, kMax, kMin };

// Reduction of selected (value, index) pairs in order: sum in double, rounded
// to float then T; max/min with the first NaN winning, first occurrence.
template <typename T>
struct Ref {
  Op op;
  double sum = 0;
  float best = 0;
  uint32_t index = 0;
  bool any = false, nan = false;
  void add(T v, uint32_t i) {
    const float x = static_cast<float>(v);
    if (op == Op::kSum) {
      sum += x;
      return;
    }
    if (nan) return;
    if (std::isnan(x)) {
      nan = true;
      best = x;
      index = i;
      any = true;
      return;
    }
    if (!any || (op == Op::kMax ? x > best : x < best)) {
      best = x;
      index = i;
    }
    any = true;
  }
  T value() const {
    if (op == Op::kSum) return static_cast<T>(static_cast<float>(sum));
    if (!any) return static_cast<T>(op == Op::kMax ? -INFINITY : INFINITY);
    return static_cast<T>(best);
  }
};

template <typename T>
using IndexBits = std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>;

template <typename T>
T index_as(uint32_t i) {
  const IndexBits<T> b = static_cast<IndexBits<T>>(i);
  T t;
  std::memcpy(static_cast<void*>(&t), &b, sizeof(T));
  return t;
}

template <typename T>
void whole_reduce(Op op, ReduceOrder order) {
  std::mt19937 rng(5 + int(op) * 3 + int(order) + sizeof(T));
  const uint32_t lanes = 256 / sizeof(T);
  for (int iter = 0; iter < 10; ++iter) {
    uint64_t mask[2] = {(uint64_t(rng()) << 32) | rng(), (uint64_t(rng()) << 32) | rng()};
    bool as_count = iter % 3 == 0;
    uint64_t count = 1 + rng() % lanes;
    if (as_count) asc::kernel::simd::mask_from_count(count, mask);
    if (sizeof(T) == 4) mask[1] = 0;
    const int32_t repeat = 1 + rng() % 5;
    const int32_t sblk = iter == 1 ? 1 : 1 + rng() % 2, srep = iter == 1 ? 8 : rng() % 20;
    const int32_t drep = 1 + rng() % 3;
    const size_t ns = vt::needed<T>(mask, repeat, sblk, srep) + 1;
    auto src = vt::random_vec<T>(ns, iter, -8, 8, iter % 2 == 0);
    if constexpr (std::is_same_v<T, half>) {
      for (auto& x : src) x = static_cast<T>(std::round(static_cast<float>(x)));  // exact sums
    }
    const bool pair = op != Op::kSum &&
                      (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    const size_t nd = (size_t(repeat - 1) * drep + 1) * (pair ? 2 : 1) * (order == ReduceOrder::ORDER_ONLY_INDEX ? 2 : 1) + 3;
    const auto d0 = vt::random_vec<T>(nd, iter + 100);
    std::vector<T> want = d0;
    for (int32_t r = 0; r < repeat; ++r) {
      Ref<T> acc{op};
      for (uint32_t l = 0; l < lanes; ++l) {
        if (vt::lane_on<T>(mask, l)) acc.add(src[vt::lane_index<T>(r, l, sblk, srep)], l);
      }
      if (op == Op::kSum || order == ReduceOrder::ORDER_ONLY_VALUE) {
        want[size_t(r) * drep] = acc.value();
      } else if (order == ReduceOrder::ORDER_VALUE_INDEX) {
        want[size_t(r) * drep * 2] = acc.value();
        want[size_t(r) * drep * 2 + 1] = index_as<T>(acc.index);
      } else if (order == ReduceOrder::ORDER_INDEX_VALUE) {
        want[size_t(r) * drep * 2] = index_as<T>(acc.index);
        want[size_t(r) * drep * 2 + 1] = acc.value();
      } else {
        std::memcpy(reinterpret_cast<uint8_t*>(want.data()) + size_t(r) * drep * 4, &acc.index, 4);
      }
    }
    for (bool elide : vt::elision_modes()) {
      Bytes bd = vt::to_bytes(d0), bs = vt::to_bytes(src);
      ASSERT_TRUE(vt::run_ub({&bd, &bs},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto d = v[0].ReinterpretCast<T>(), s = v[1].ReinterpretCast<T>();
                               d.SetSize(static_cast<uint32_t>(nd));
                               s.SetSize(static_cast<uint32_t>(ns));
                               const int32_t m = static_cast<int32_t>(count);
                               switch (op) {
                                 case Op::kSum:
                                   if (as_count) WholeReduceSum(d, s, m, repeat, drep, sblk, srep);
                                   else WholeReduceSum(d, s, mask, repeat, drep, sblk, srep);
                                   break;
                                 case Op::kMax:
                                   if (as_count) WholeReduceMax(d, s, m, repeat, drep, sblk, srep, order);
                                   else WholeReduceMax(d, s, mask, repeat, drep, sblk, srep, order);
                                   break;
                                 case Op::kMin:
                                   if (as_count) WholeReduceMin(d, s, m, repeat, drep, sblk, srep, order);
                                   else WholeReduceMin(d, s, mask, repeat, drep, sblk, srep, order);
                                   break;
                               }
                             },
                             elide)
                      .ok());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, nd), want))
          << "op " << int(op) << " order " << int(order) << " iter " << iter;
    }
  }
}

TEST(WholeReduce, SumFloat) { whole_reduce<float>(Op::kSum, ReduceOrder::ORDER_ONLY_VALUE); }
TEST(WholeReduce, SumHalf) { whole_reduce<half>(Op::kSum, ReduceOrder::ORDER_ONLY_VALUE); }
TEST(WholeReduce, MaxMinAllOrders) {
  for (ReduceOrder o : {ReduceOrder::ORDER_VALUE_INDEX, ReduceOrder::ORDER_INDEX_VALUE, ReduceOrder::ORDER_ONLY_VALUE,
                        ReduceOrder::ORDER_ONLY_INDEX}) {
    whole_reduce<float>(Op::kMax, o);
    whole_reduce<float>(Op::kMin, o);
    whole_reduce<half>(Op::kMax, o);
    whole_reduce<half>(Op::kMin, o);
  }
}

TEST(WholeReduce, HandChecked) {
  // 2 repeats of 64 floats: repeat 0 = 0..63, repeat 1 = 100 - i; mask = first 10 lanes.
  std::vector<float> s(128), d(8, -1.0f);
  for (int i = 0; i < 64; ++i) {
    s[i] = float(i);
    s[64 + i] = 100.0f - float(i);
  }
  s[3] = NAN;  // repeat 0's max is NaN at lane 3
  Bytes bs = vt::to_bytes(s), bd = vt::to_bytes(d), bsum = vt::to_bytes(d);
  ASSERT_TRUE(vt::run_ub({&bs, &bd, &bsum},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           auto x = v[0].ReinterpretCast<float>();
                           WholeReduceMax(v[1].ReinterpretCast<float>(), x, 10, 2, 1, 1, 8);
                           WholeReduceSum(v[2].ReinterpretCast<float>(), x[64], 10, 1, 1, 1, 8);
                         },
                         true)
                  .ok());
  auto got = vt::from_bytes<float>(bd, 8);
  EXPECT_TRUE(std::isnan(got[0]));
  uint32_t i0, i1;
  std::memcpy(&i0, &got[1], 4);
  std::memcpy(&i1, &got[3], 4);
  EXPECT_EQ(i0, 3u);
  EXPECT_EQ(got[2], 100.0f);
  EXPECT_EQ(i1, 0u);
  EXPECT_EQ(got[4], -1.0f);  // untouched
  EXPECT_EQ(vt::from_bytes<float>(bsum, 8)[0], 955.0f);  // 100 + 99 + ... + 91
}

template <typename T>
void block_reduce(Op op) {
  std::mt19937 rng(9 + int(op) + sizeof(T));
  const uint32_t lanes = 256 / sizeof(T), lpb = 32 / sizeof(T);
  for (int iter = 0; iter < 10; ++iter) {
    uint64_t mask[2] = {(uint64_t(rng()) << 32) | rng(), (uint64_t(rng()) << 32) | rng()};
    if (iter % 4 == 0) mask[0] &= 0xFFFFFFFF00000000ull;  // empty blocks
    if (sizeof(T) == 4) mask[1] = 0;
    const int32_t repeat = 1 + rng() % 4, sblk = 1 + rng() % 2, srep = rng() % 20, drep = 1 + rng() % 2;
    const size_t ns = vt::needed<T>(mask, repeat, sblk, srep) + 1;
    auto src = vt::random_vec<T>(ns, iter, -8, 8);
    if constexpr (std::is_same_v<T, half>) {
      for (auto& x : src) x = static_cast<T>(std::round(static_cast<float>(x)));
    }
    const size_t nd = (size_t(repeat - 1) * drep + 1) * 8 + 2;
    const auto d0 = vt::random_vec<T>(nd, iter + 7);
    std::vector<T> want = d0;
    for (int32_t r = 0; r < repeat; ++r) {
      for (uint32_t k = 0; k < 8; ++k) {
        Ref<T> acc{op};
        for (uint32_t j = 0; j < lpb; ++j) {
          const uint32_t l = k * lpb + j;
          if (vt::lane_on<T>(mask, l)) acc.add(src[vt::lane_index<T>(r, l, sblk, srep)], l);
        }
        want[size_t(r) * drep * 8 + k] = acc.value();
      }
    }
    (void)lanes;
    for (bool elide : vt::elision_modes()) {
      Bytes bd = vt::to_bytes(d0), bs = vt::to_bytes(src);
      ASSERT_TRUE(vt::run_ub({&bd, &bs},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto d = v[0].ReinterpretCast<T>(), s = v[1].ReinterpretCast<T>();
                               d.SetSize(static_cast<uint32_t>(nd));
                               s.SetSize(static_cast<uint32_t>(ns));
                               switch (op) {
                                 case Op::kSum: BlockReduceSum(d, s, repeat, mask, drep, sblk, srep); break;
                                 case Op::kMax: BlockReduceMax(d, s, repeat, mask, drep, sblk, srep); break;
                                 case Op::kMin: BlockReduceMin(d, s, repeat, mask, drep, sblk, srep); break;
                               }
                             },
                             elide)
                      .ok());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, nd), want)) << "op " << int(op) << " iter " << iter;
    }
  }
}

TEST(BlockReduce, Float) {
  block_reduce<float>(Op::kSum);
  block_reduce<float>(Op::kMax);
  block_reduce<float>(Op::kMin);
}
TEST(BlockReduce, Half) {
  block_reduce<half>(Op::kSum);
  block_reduce<half>(Op::kMax);
  block_reduce<half>(Op::kMin);
}
TEST(BlockReduce, CountMaskHandChecked) {
  // 16 lanes of float = blocks 0 and 1: sums of 0..7 and 8..15; the rest empty.
  std::vector<float> s(64), d(8, 5.0f);
  for (int i = 0; i < 64; ++i) s[i] = float(i);
  Bytes bs = vt::to_bytes(s), bd = vt::to_bytes(d);
  ASSERT_TRUE(vt::run_ub({&bs, &bd},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           BlockReduceSum(v[1].ReinterpretCast<float>(), v[0].ReinterpretCast<float>(), 1, 16, 1, 1,
                                          8);
                         },
                         false)
                  .ok());
  auto got = vt::from_bytes<float>(bd, 8);
  EXPECT_EQ(got[0], 28.0f);
  EXPECT_EQ(got[1], 92.0f);
  for (int k = 2; k < 8; ++k) EXPECT_EQ(got[k], 0.0f);
}

template <typename T>
void reduce_mask_form(Op op) {
  std::mt19937 rng(21 + int(op) + sizeof(T));
  const uint32_t lanes = 256 / sizeof(T);
  for (int iter = 0; iter < 10; ++iter) {
    uint64_t mask[2] = {(uint64_t(rng()) << 32) | rng(), (uint64_t(rng()) << 32) | rng()};
    const bool as_count = iter % 2 == 0;
    const uint64_t count = 1 + rng() % lanes;
    if (as_count) asc::kernel::simd::mask_from_count(count, mask);
    if (sizeof(T) == 4) mask[1] = 0;
    const int32_t repeat = 1 + rng() % 6, srep = rng() % 12;
    const size_t ns = vt::needed<T>(mask, repeat, 1, srep) + 1;
    auto src = vt::random_vec<T>(ns, iter, -8, 8, iter % 3 == 0);
    if constexpr (std::is_same_v<T, half>) {
      for (auto& x : src) x = static_cast<T>(std::round(static_cast<float>(x)));
    }
    Ref<T> acc{op};
    for (int32_t r = 0; r < repeat; ++r) {
      for (uint32_t l = 0; l < lanes; ++l) {
        if (!vt::lane_on<T>(mask, l)) continue;
        const size_t at = vt::lane_index<T>(r, l, 1, srep);
        acc.add(src[at], static_cast<uint32_t>(at));
      }
    }
    std::vector<T> want = {acc.value(), op == Op::kSum ? T(9) : index_as<T>(acc.index), T(9)};
    for (bool elide : vt::elision_modes()) {
      std::vector<T> d0(3, T(9));
      Bytes bd = vt::to_bytes(d0), bs = vt::to_bytes(src), bw(64);
      ASSERT_TRUE(vt::run_ub({&bd, &bs, &bw},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto d = v[0].ReinterpretCast<T>(), s = v[1].ReinterpretCast<T>(),
                                    w = v[2].ReinterpretCast<T>();
                               s.SetSize(static_cast<uint32_t>(ns));
                               const int32_t m = static_cast<int32_t>(count);
                               switch (op) {
                                 case Op::kSum:
                                   if (as_count) ReduceSum(d, s, w, m, repeat, srep);
                                   else ReduceSum(d, s, w, mask, repeat, srep);
                                   break;
                                 case Op::kMax:
                                   if (as_count) ReduceMax(d, s, w, m, repeat, srep, true);
                                   else ReduceMax(d, s, w, mask, repeat, srep, true);
                                   break;
                                 case Op::kMin:
                                   if (as_count) ReduceMin(d, s, w, m, repeat, srep, true);
                                   else ReduceMin(d, s, w, mask, repeat, srep, true);
                                   break;
                               }
                             },
                             elide)
                      .ok());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, 3), want)) << "op " << int(op) << " iter " << iter;
    }
  }
}

TEST(ReduceMaskForm, Float) {
  reduce_mask_form<float>(Op::kSum);
  reduce_mask_form<float>(Op::kMax);
  reduce_mask_form<float>(Op::kMin);
}
TEST(ReduceMaskForm, Half) {
  reduce_mask_form<half>(Op::kSum);
  reduce_mask_form<half>(Op::kMax);
  reduce_mask_form<half>(Op::kMin);
}

TEST(WholeReduce, Errors) {
  std::vector<float> s(64), d(4);
  Bytes bs = vt::to_bytes(s), bd = vt::to_bytes(d);
  asc::Status st = vt::run_ub({&bs, &bd},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                auto dd = v[1].ReinterpretCast<float>();
                                dd.SetSize(4);
                                // 3 repeats with dstRepStride 2 write pairs up to element 10.
                                auto ss = v[0].ReinterpretCast<float>();
                                WholeReduceMax(dd, ss, 8, 3, 2, 1, 0);
                              },
                              false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[WholeReduceMax]"), std::string::npos) << st.message();
  st = vt::run_ub({&bs, &bd},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    WholeReduceSum(v[1].ReinterpretCast<float>(), v[0].ReinterpretCast<float>(), 65, 1, 1, 1, 8);
                  },
                  false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  st = vt::run_ub({&bs, &bd},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[0].ReinterpretCast<int32_t>();
                    BlockReduceSum(t, t, 1, 8, 1, 1, 8);
                  },
                  false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
}

}  // namespace
