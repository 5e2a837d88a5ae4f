// MrgSort (2-4 lists, ties, NaN, exhausted suspension, repeat mode),
// GetMrgSortResult and Concat against scalar references; errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "asc/core/half.h"
#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

struct Rec {
  float key;
  uint16_t raw16;  // the half bits for half records
  uint32_t index;
};

// Descending, NaN first (Sort's order).
bool desc(const Rec& a, const Rec& b) {
  const bool an = std::isnan(a.key), bn = std::isnan(b.key);
  if (an || bn) return an && !bn;
  return a.key > b.key;
}

template <typename T>
Bytes encode(const std::vector<Rec>& v) {
  Bytes b(v.size() * 8, 0);
  for (size_t i = 0; i < v.size(); ++i) {
    if constexpr (sizeof(T) == 4) {
      std::memcpy(&b[i * 8], &v[i].key, 4);
    } else {
      std::memcpy(&b[i * 8], &v[i].raw16, 2);
    }
    std::memcpy(&b[i * 8 + 4], &v[i].index, 4);
  }
  return b;
}

// A sorted list of n records; values from a small set so that lists tie.
template <typename T>
std::vector<Rec> sorted_list(size_t n, uint32_t list, uint32_t seed, bool nan) {
  std::mt19937 rng(seed);
  std::vector<Rec> v(n);
  for (size_t i = 0; i < n; ++i) {
    float f = static_cast<float>(static_cast<int>(rng() % 9) - 4) * 0.5f;
    if (i == 1) f = -0.0f;
    if (nan && i == 0) f = std::numeric_limits<float>::quiet_NaN();
    if (i == 2 && n > 3) f = -std::numeric_limits<float>::infinity();
    const uint16_t h = asc::detail::f32_to_f16_bits(f);
    v[i] = Rec{sizeof(T) == 4 ? f : asc::detail::f16_bits_to_f32(h), h, list * 1000 + static_cast<uint32_t>(i)};
  }
  std::stable_sort(v.begin(), v.end(), desc);
  return v;
}

template <typename T>
void merge_case(std::vector<uint16_t> lens, bool suspend) {
  const int nl = static_cast<int>(lens.size());
  std::vector<std::vector<Rec>> lists(4);
  std::vector<Rec> all;
  for (int i = 0; i < nl; ++i) {
    lists[i] = sorted_list<T>(lens[i], i, 10 + i + lens[i], i == 1);
    all.insert(all.end(), lists[i].begin(), lists[i].end());
  }
  // Reference: a stable sort of the concatenation (ties keep list order); with
  // suspension, the prefix up to the record that empties the first list.
  std::stable_sort(all.begin(), all.end(), desc);
  std::vector<uint16_t> taken(4, 0);
  size_t keep = all.size();
  if (suspend) {
    keep = 0;
    bool empty = std::find(lens.begin(), lens.end(), 0) != lens.end();
    while (!empty && keep < all.size()) {
      const uint32_t l = all[keep].index / 1000;
      ++taken[l];
      ++keep;
      empty = taken[l] == lens[l];
    }
  } else {
    for (int i = 0; i < nl; ++i) taken[i] = lens[i];
  }
  all.resize(keep);
  const Bytes want = encode<T>(all);
  uint16_t el[4] = {0, 0, 0, 0};
  for (int i = 0; i < nl; ++i) el[i] = lens[i];
  const uint16_t valid = static_cast<uint16_t>((1u << nl) - 1);
  for (bool elide : vt::elision_modes()) {
    Bytes b[4], bd(std::max<size_t>(8, size_t{8} * (lens[0] + lens[1] + (nl > 2 ? lens[2] : 0) + (nl > 3 ? lens[3] : 0))), 0xAB);
    const Bytes bd0 = bd;
    for (int i = 0; i < 4; ++i) b[i] = encode<T>(lists[i]);
    for (int i = 0; i < 4; ++i) if (b[i].empty()) b[i].resize(32);
    uint16_t got[4] = {9, 9, 9, 9};
    ASSERT_TRUE(vt::run_ub({&bd, &b[0], &b[1], &b[2], &b[3]},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             MrgSortSrcList<T> src(v[1].ReinterpretCast<T>(), v[2].ReinterpretCast<T>(),
                                                   v[3].ReinterpretCast<T>(), v[4].ReinterpretCast<T>());
                             MrgSort(v[0].ReinterpretCast<T>(), src, MrgSort4Info(el, suspend, valid, 1));
                             GetMrgSortResult(got[0], got[1], got[2], got[3]);
                           },
                           elide)
                    .ok());
    Bytes head(bd.begin(), bd.begin() + want.size());
    EXPECT_EQ(head, want) << "lists " << nl << " suspend " << suspend;
    for (size_t i = want.size(); i < bd0.size(); ++i) ASSERT_EQ(bd[i], 0xAB) << "byte " << i << " written";
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], taken[i]) << "list " << i;
  }
}

TEST(MrgSort, FloatTwoThreeFourLists) {
  merge_case<float>({5, 9}, false);
  merge_case<float>({16, 1, 33}, false);
  merge_case<float>({7, 32, 0, 40}, false);
  merge_case<float>({64, 64, 64, 64}, false);
}
TEST(MrgSort, HalfLists) {
  merge_case<half>({5, 9}, false);
  merge_case<half>({31, 2, 17, 8}, false);
}
TEST(MrgSort, ExhaustedSuspension) {
  merge_case<float>({5, 30, 12, 9}, true);
  merge_case<float>({3, 40}, true);
  merge_case<half>({20, 6, 11}, true);
  merge_case<float>({4, 0, 6, 2}, true);  // an empty list stops at once
}

TEST(MrgSort, RepeatMode) {
  // 3 repeats of 4 lists of 8 records, one after the other in src1.
  const int rep = 3, len = 8;
  std::vector<Rec> src, want;
  for (int r = 0; r < rep; ++r) {
    std::vector<Rec> group;
    for (int i = 0; i < 4; ++i) {
      auto l = sorted_list<float>(len, r * 4 + i, 100 + r * 4 + i, i == 3);
      src.insert(src.end(), l.begin(), l.end());
      group.insert(group.end(), l.begin(), l.end());
    }
    std::stable_sort(group.begin(), group.end(), desc);
    want.insert(want.end(), group.begin(), group.end());
  }
  const uint16_t el[4] = {len, len, len, len};
  for (bool elide : vt::elision_modes()) {
    Bytes bs = encode<float>(src), bd(src.size() * 8, 0);
    ASSERT_TRUE(vt::run_ub({&bd, &bs},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto s = v[1].ReinterpretCast<float>();
                             MrgSortSrcList<float> list(s, s[len * 2], s[len * 4], s[len * 6]);
                             MrgSort(v[0].ReinterpretCast<float>(), list, MrgSort4Info(el, false, 0b1111, rep));
                           },
                           elide)
                    .ok());
    EXPECT_EQ(bd, encode<float>(want));
  }
}

TEST(MrgSort, Errors) {
  Bytes a(64 * 8), b(64 * 8), d(128 * 8);
  auto run = [&](uint16_t l0, uint16_t l1, uint16_t valid, uint16_t rep) {
    const uint16_t el[4] = {l0, l1, l1, l1};
    return vt::run_ub({&d, &a, &b},
                      [&](std::vector<LocalTensor<uint8_t>>& v) {
                        auto s = v[1].ReinterpretCast<float>();
                        MrgSortSrcList<float> list(s, v[2].ReinterpretCast<float>(), s, s);
                        MrgSort(v[0].ReinterpretCast<float>(), list, MrgSort4Info(el, false, valid, rep));
                      },
                      true);
  };
  asc::Status st = run(8, 8, 0b101, 1);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[MrgSort]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("validBit 5"), std::string::npos) << st.message();
  st = run(65, 8, 0b11, 1);  // src1 holds 64 records
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("src1"), std::string::npos) << st.message();
  st = run(8, 4, 0b1111, 2);  // repeat mode needs equal lengths
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("repeatTimes 2"), std::string::npos) << st.message();
  st = run(64, 64, 0b11, 1);  // 128 records fit dst exactly
  EXPECT_TRUE(st.ok()) << st.message();
  st = run(64, 65, 0b11, 1);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
}

template <typename T>
void concat_case() {
  for (int rep : {0, 1, 3, 8}) {
    const auto src = vt::random_vec<T>(16 * 8, rep + 1);
    for (bool elide : vt::elision_modes()) {
      Bytes bs = vt::to_bytes(src), bd = vt::to_bytes(std::vector<T>(16 * 8, T(7)));
      ASSERT_TRUE(vt::run_ub({&bd, &bs},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto d = v[0].ReinterpretCast<T>();
                               auto tmp = v[1].ReinterpretCast<T>();
                               Concat(d, v[1].ReinterpretCast<T>(), tmp, rep);
                             },
                             elide)
                      .ok());
      auto want = std::vector<T>(16 * 8, T(7));
      std::copy(src.begin(), src.begin() + 16 * rep, want.begin());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, 16 * 8), want)) << "rep " << rep;
    }
  }
  Bytes bs(16 * sizeof(T)), bd(16 * sizeof(T));
  asc::Status st = vt::run_ub({&bd, &bs},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                auto d = v[0].ReinterpretCast<T>();
                                Concat(d, v[1].ReinterpretCast<T>(), d, 2);
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Concat]"), std::string::npos) << st.message();
}

TEST(Concat, FloatAndHalf) {
  concat_case<float>();
  concat_case<half>();
}

}  // namespace
