// Mask/repeat forms of the vector instructions: hand-checked lane selection
// and strides, then random layouts for every op and dtype against a scalar
// model of the Ascend C layout (vec_test_util.h), with copy elision on and off.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "asc/kernel/simd_lane.h"
#include "vec_test_util.h"

namespace {

using namespace AscendC;
namespace simd = asc::kernel::simd;
using vt::Bytes;

struct Layout {
  uint64_t mask[2] = {~0ull, ~0ull};
  bool as_count = false;
  uint64_t count = 0;
  uint32_t repeat = 1;
  uint32_t blk[3] = {1, 1, 1};
  uint32_t rep[3] = {8, 8, 8};
  std::string str() const {
    char b[200];
    std::snprintf(b, sizeof b, "mask=%s%llx:%llx repeat=%u blk=%u,%u,%u rep=%u,%u,%u", as_count ? "count " : "",
                  (unsigned long long)mask[1], (unsigned long long)mask[0], repeat, blk[0], blk[1], blk[2], rep[0],
                  rep[1], rep[2]);
    return b;
  }
};

template <typename T>
Layout random_layout(std::mt19937& rng, bool unit_strides = false) {
  Layout l;
  const uint32_t lanes = 256 / sizeof(T);
  const int kind = rng() % 5;
  if (kind == 0) {
    l.as_count = true;
    l.count = 1 + rng() % lanes;
    simd::mask_from_count(l.count, l.mask);
  } else if (kind == 1) {
    l.mask[0] = l.mask[1] = ~0ull;  // full
  } else {
    l.mask[0] = (uint64_t(rng()) << 32) | rng();
    l.mask[1] = (uint64_t(rng()) << 32) | rng();
    if (kind == 3) l.mask[0] &= 0x00FF00FF00F0000Full;  // sparse, whole blocks off
  }
  if (sizeof(T) == 4) l.mask[1] = 0;
  static const uint32_t reps[] = {1, 2, 3, 7};
  l.repeat = reps[rng() % 4];
  if (!unit_strides) {
    static const uint32_t rs[] = {0, 1, 8, 9, 16};
    l.blk[0] = 1 + rng() % 3;
    l.rep[0] = 8 + rng() % 20;  // dst repeats do not overlap
    for (int j = 1; j < 3; ++j) {
      l.blk[j] = rng() % 4;
      l.rep[j] = rs[rng() % 5];
    }
  }
  return l;
}

// The expected result: per repeat, selected lanes are gathered into dense
// arrays, `dense` computes all lanes, and the selected lanes are written back.
template <typename T>
std::vector<T> reference(const Layout& l, std::vector<T> dst, const std::vector<T>& a, const std::vector<T>& b,
                         const std::function<void(T*, const T*, const T*, size_t)>& dense) {
  const uint32_t lanes = 256 / sizeof(T);
  for (uint32_t r = 0; r < l.repeat; ++r) {
    std::vector<T> da(lanes, T(0)), db(lanes, T(0)), dd(lanes, T(0));
    for (uint32_t k = 0; k < lanes; ++k) {
      if (!vt::lane_on<T>(l.mask, k)) continue;
      if (!a.empty()) da[k] = a[vt::lane_index<T>(r, k, l.blk[1], l.rep[1])];
      if (!b.empty()) db[k] = b[vt::lane_index<T>(r, k, l.blk[2], l.rep[2])];
      dd[k] = dst[vt::lane_index<T>(r, k, l.blk[0], l.rep[0])];
    }
    dense(dd.data(), da.data(), db.data(), lanes);
    for (uint32_t k = 0; k < lanes; ++k) {
      if (vt::lane_on<T>(l.mask, k)) dst[vt::lane_index<T>(r, k, l.blk[0], l.rep[0])] = dd[k];
    }
  }
  return dst;
}

// Values equal (NaN == NaN; with zero_sign_ok, +0 == -0), else bits equal.
template <typename T>
::testing::AssertionResult same_values(const std::vector<T>& got, const std::vector<T>& want, bool zero_sign_ok) {
  if (!zero_sign_ok) return vt::same_bits(got, want);
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(static_cast<float>(got[i]));
    const double w = static_cast<double>(static_cast<float>(want[i]));
    if (!(g == w || (std::isnan(g) && std::isnan(w)))) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << " want " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

// Calls `api(dst, a, b, mask, repeat)` (mask as uint64_t or uint64_t*) in a
// kernel on UB copies of dst/a/b, for both elision modes, and checks the result.
template <typename T, class Api>
void check_op(const std::string& what, const Layout& l, bool two_srcs, Api api,
              const std::function<void(T*, const T*, const T*, size_t)>& dense, uint32_t seed,
              bool zero_sign_ok = false) {
  const size_t nd = vt::needed<T>(l.mask, l.repeat, l.blk[0], l.rep[0]) + 5;
  const size_t na = vt::needed<T>(l.mask, l.repeat, l.blk[1], l.rep[1]) + 3;
  const size_t nb = two_srcs ? vt::needed<T>(l.mask, l.repeat, l.blk[2], l.rep[2]) + 3 : 0;
  const auto d0 = vt::random_vec<T>(nd, seed);
  const auto a = vt::random_vec<T>(na, seed + 1, 0.5, 9);
  const auto b = vt::random_vec<T>(nb, seed + 2, 0.5, 9);
  const auto want = reference<T>(l, d0, a, b, dense);
  for (bool elide : vt::elision_modes()) {
    Bytes bd = vt::to_bytes(d0), ba = vt::to_bytes(a), bb = vt::to_bytes(b.empty() ? std::vector<T>(1) : b);
    const asc::Status st = vt::run_ub(
        {&bd, &ba, &bb},
        [&](std::vector<LocalTensor<uint8_t>>& v) {
          auto td = v[0].ReinterpretCast<T>();
          td.SetSize(static_cast<uint32_t>(nd));
          auto ta = v[1].ReinterpretCast<T>();
          ta.SetSize(static_cast<uint32_t>(na));
          auto tb = v[2].ReinterpretCast<T>();
          tb.SetSize(static_cast<uint32_t>(std::max<size_t>(nb, 1)));
          uint64_t m[2] = {l.mask[0], l.mask[1]};
          if (l.as_count) {
            api(td, ta, tb, l.count, static_cast<uint8_t>(l.repeat));
          } else {
            api(td, ta, tb, m, static_cast<uint8_t>(l.repeat));
          }
        },
        elide);
    ASSERT_TRUE(st.ok()) << what << " " << l.str() << ": " << st.ToString();
    EXPECT_TRUE(same_values(vt::from_bytes<T>(bd, nd), want, zero_sign_ok))
        << what << " " << l.str() << (elide ? " (elision on)" : " (elision off)");
  }
}

BinaryRepeatParams bparams(const Layout& l) {
  return BinaryRepeatParams(l.blk[0], l.blk[1], l.blk[2], l.rep[0], l.rep[1], l.rep[2]);
}
UnaryRepeatParams uparams(const Layout& l) { return UnaryRepeatParams(l.blk[0], l.blk[1], l.rep[0], l.rep[1]); }

template <typename T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  } else {
    return static_cast<T>(static_cast<float>(a) + static_cast<float>(b));
  }
}

// ---------------------------------------------------------------- hand-checked

TEST(MaskRepeat, BitMaskSelectsExactlyThoseLanes) {
  for (bool elide : vt::elision_modes()) {
    std::vector<float> d(64, -7.0f), a(64), b(64);
    for (int i = 0; i < 64; ++i) {
      a[i] = float(i);
      b[i] = 100.0f;
    }
    Bytes bd = vt::to_bytes(d), ba = vt::to_bytes(a), bb = vt::to_bytes(b);
    ASSERT_TRUE(vt::run_ub({&bd, &ba, &bb},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             uint64_t m[2] = {0b1010, 0};
                             Add(v[0].ReinterpretCast<float>(), v[1].ReinterpretCast<float>(),
                                 v[2].ReinterpretCast<float>(), m, 1, BinaryRepeatParams());
                           },
                           elide)
                    .ok());
    auto got = vt::from_bytes<float>(bd, 64);
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(got[i], (i == 1 || i == 3) ? 100.0f + float(i) : -7.0f) << i;
    }
  }
}

TEST(MaskRepeat, HalfUsesBothMaskWordsAndCountMask) {
  for (bool elide : vt::elision_modes()) {
    std::vector<half> d(256, half(-1.0f)), a(256, half(2.0f));
    Bytes bd = vt::to_bytes(d), ba = vt::to_bytes(a);
    ASSERT_TRUE(vt::run_ub({&bd, &ba},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             uint64_t m[2] = {1ull << 63, 1ull};  // lanes 63 and 64
                             Muls(v[0].ReinterpretCast<half>(), v[1].ReinterpretCast<half>(), half(3.0f), m, 1,
                                  UnaryRepeatParams());
                             // Count mask 3 in repeat 2 (elements 128..130).
                             Adds(v[0].ReinterpretCast<half>()[128], v[1].ReinterpretCast<half>()[128], half(1.0f),
                                  uint64_t{3}, 1, UnaryRepeatParams());
                           },
                           elide)
                    .ok());
    auto got = vt::from_bytes<half>(bd, 256);
    for (int i = 0; i < 256; ++i) {
      const float want = (i == 63 || i == 64) ? 6.0f : (i >= 128 && i < 131) ? 3.0f : -1.0f;
      EXPECT_EQ(float(got[i]), want) << i;
    }
  }
}

TEST(MaskRepeat, StridesCountThirtyTwoByteBlocks) {
  // float, src block stride 2: lane 8 (block 1, element 0) reads element 16;
  // repeat stride 3 blocks: repeat 1 starts at element 24 of src; dst repeat
  // stride 16 blocks: repeat 1 writes from element 128.
  for (bool elide : vt::elision_modes()) {
    std::vector<float> d(256, 0.0f), a(512);
    for (int i = 0; i < 512; ++i) a[i] = float(i);
    Bytes bd = vt::to_bytes(d), ba = vt::to_bytes(a);
    ASSERT_TRUE(vt::run_ub({&bd, &ba},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             Abs(v[0].ReinterpretCast<float>(), v[1].ReinterpretCast<float>(), uint64_t{16}, 2,
                                 UnaryRepeatParams(1, 2, 16, 3));
                           },
                           elide)
                    .ok());
    auto got = vt::from_bytes<float>(bd, 256);
    EXPECT_EQ(got[0], 0.0f);
    EXPECT_EQ(got[7], 7.0f);
    EXPECT_EQ(got[8], 16.0f);   // block 1 of src at 2 * 8 elements
    EXPECT_EQ(got[15], 23.0f);
    EXPECT_EQ(got[16], 0.0f);   // lane 16 not selected
    EXPECT_EQ(got[128], 24.0f);  // repeat 1: src at 3 blocks, dst at 16 blocks
    EXPECT_EQ(got[136], 40.0f);
    EXPECT_EQ(got[144], 0.0f);
  }
}

TEST(MaskRepeat, DuplicateMaskForm) {
  for (bool elide : vt::elision_modes()) {
    std::vector<int16_t> d(512, 5);
    Bytes bd = vt::to_bytes(d);
    ASSERT_TRUE(vt::run_ub({&bd},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             uint64_t m[2] = {0xFFFF, 0x1};  // block 0 and lane 64 (block 4, element 0)
                             Duplicate(v[0].ReinterpretCast<int16_t>(), int16_t(-3), m, 2, 2, 16);
                           },
                           elide)
                    .ok());
    auto got = vt::from_bytes<int16_t>(bd, 512);
    std::vector<int16_t> want(512, 5);
    for (int r = 0; r < 2; ++r) {
      for (int j = 0; j < 16; ++j) want[r * 256 + j] = -3;  // block 0
      want[r * 256 + 4 * 2 * 16] = -3;                      // block 4 with block stride 2
    }
    EXPECT_TRUE(vt::same_bits(got, want));
  }
}

TEST(MaskRepeat, MaskRegisterWithIsSetMaskFalse) {
  for (bool elide : vt::elision_modes()) {
    std::vector<float> d(64, -1.0f), e(64, -1.0f), a(64);
    for (int i = 0; i < 64; ++i) a[i] = float(i);
    Bytes bd = vt::to_bytes(d), be = vt::to_bytes(e), ba = vt::to_bytes(a);
    ASSERT_TRUE(vt::run_ub({&bd, &be, &ba},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto x = v[2].ReinterpretCast<float>();
                             SetVectorMask<float>(0, 0b110);  // lanes 1 and 2
                             Adds<float, false>(v[0].ReinterpretCast<float>(), x, 10.0f, MASK_PLACEHOLDER, 1,
                                                UnaryRepeatParams());
                             SetVectorMask<float>(3);  // lanes 0..2
                             uint64_t ignored[2] = {~0ull, ~0ull};
                             Muls<float, false>(v[1].ReinterpretCast<float>(), x, 2.0f, ignored, 1,
                                                UnaryRepeatParams());
                             ResetMask();
                           },
                           elide)
                    .ok());
    auto gd = vt::from_bytes<float>(bd, 64), ge = vt::from_bytes<float>(be, 64);
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(gd[i], (i == 1 || i == 2) ? float(i) + 10.0f : -1.0f) << i;
      EXPECT_EQ(ge[i], i < 3 ? float(i) * 2.0f : -1.0f) << i;
    }
  }
  std::vector<float> d(64);
  Bytes bd = vt::to_bytes(d);
  const asc::Status st = vt::run_ub({&bd},
                                    [&](std::vector<LocalTensor<uint8_t>>& v) {
                                      auto t = v[0].ReinterpretCast<float>();
                                      SetMaskCount();
                                      struct Norm {
                                        ~Norm() { SetMaskNorm(); }
                                      } norm;
                                      Abs<float, false>(t, t, MASK_PLACEHOLDER, 1, UnaryRepeatParams());
                                    },
                                    true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Abs]"), std::string::npos) << st.message();
}

// ---------------------------------------------------------------- random sweeps

template <typename T>
void sweep_binary() {
  std::mt19937 rng(1234 + sizeof(T) * 7 + std::is_integral_v<T>);
  struct Case {
    const char* name;
    std::function<void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t, uint8_t,
                       const BinaryRepeatParams&)>
        by_count;
    std::function<void(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint64_t*, uint8_t,
                       const BinaryRepeatParams&)>
        by_bits;
    std::function<T(T, T)> f;
    bool zero_sign_ok;
  };
#define CASE(NAME, EXPR, Z)                                                                                \
  Case{#NAME,                                                                                             \
       [](const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t m, uint8_t r, \
          const BinaryRepeatParams& p) { NAME(d, a, b, m, r, p); },                                        \
       [](const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t* m, uint8_t r, \
          const BinaryRepeatParams& p) { NAME(d, a, b, m, r, p); },                                        \
       EXPR, Z}
  std::vector<Case> cases = {
      CASE(Add, [](T a, T b) { return wrap_add(a, b); }, false),
      CASE(Sub, [](T a, T b) {
        if constexpr (std::is_integral_v<T>) return wrap_add(a, static_cast<T>(-static_cast<int64_t>(b)));
        else return static_cast<T>(static_cast<float>(a) - static_cast<float>(b));
      }, false),
      CASE(Mul, [](T a, T b) {
        if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(a) * b);
        else return static_cast<T>(static_cast<float>(a) * static_cast<float>(b));
      }, false),
      CASE(Max, [](T a, T b) {
        if constexpr (std::is_integral_v<T>) return std::max(a, b);
        else {
          const float x = a; const float y = b;
          return static_cast<T>(std::isnan(x) ? x : std::isnan(y) ? y : std::max(x, y));
        }
      }, true),
      CASE(Min, [](T a, T b) {
        if constexpr (std::is_integral_v<T>) return std::min(a, b);
        else {
          const float x = a; const float y = b;
          return static_cast<T>(std::isnan(x) ? x : std::isnan(y) ? y : std::min(x, y));
        }
      }, true),
  };
  if constexpr (!std::is_integral_v<T>) {
    cases.push_back(CASE(Div, [](T a, T b) { return static_cast<T>(static_cast<float>(a) / static_cast<float>(b)); },
                         false));
  }
#undef CASE
  for (const Case& c : cases) {
    for (int iter = 0; iter < 8; ++iter) {
      const Layout l = random_layout<T>(rng, iter == 0);
      auto dense = [&](T* d, const T* a, const T* b, size_t n) {
        for (size_t i = 0; i < n; ++i) d[i] = c.f(a[i], b[i]);
      };
      auto api = [&](const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, auto m, uint8_t r) {
        if constexpr (std::is_pointer_v<decltype(m)>) {
          c.by_bits(d, a, b, m, r, bparams(l));
        } else {
          c.by_count(d, a, b, m, r, bparams(l));
        }
      };
      check_op<T>(c.name, l, true, api, dense, 100 + iter, c.zero_sign_ok);
    }
  }
}

TEST(MaskRepeat, BinaryFloat) { sweep_binary<float>(); }
TEST(MaskRepeat, BinaryHalf) { sweep_binary<half>(); }
TEST(MaskRepeat, BinaryInt16) { sweep_binary<int16_t>(); }
TEST(MaskRepeat, BinaryInt32) { sweep_binary<int32_t>(); }

template <typename T>
void sweep_scalar_unary() {
  std::mt19937 rng(99 + sizeof(T));
  const T s = static_cast<T>(3);
  struct SCase {
    const char* name;
    simd::ScalarOp op;
  };
  for (SCase c : {SCase{"Adds", simd::ScalarOp::kAdds}, SCase{"Muls", simd::ScalarOp::kMuls},
                  SCase{"Maxs", simd::ScalarOp::kMaxs}, SCase{"Mins", simd::ScalarOp::kMins}}) {
    for (int iter = 0; iter < 6; ++iter) {
      const Layout l = random_layout<T>(rng, iter == 0);
      auto dense = [&](T* d, const T* a, const T*, size_t n) {
        simd::binary_scalar(c.op, asc::dtype_of<T>(), d, a, &s, n);
      };
      auto api = [&](const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>&, auto m, uint8_t r) {
        switch (c.op) {
          case simd::ScalarOp::kAdds: Adds(d, a, s, m, r, uparams(l)); break;
          case simd::ScalarOp::kMuls: Muls(d, a, s, m, r, uparams(l)); break;
          case simd::ScalarOp::kMaxs: Maxs(d, a, s, m, r, uparams(l)); break;
          default: Mins(d, a, s, m, r, uparams(l)); break;
        }
      };
      check_op<T>(c.name, l, false, api, dense, 300 + iter);
    }
  }
  std::vector<simd::UnaryOp> ops = {simd::UnaryOp::kAbs, simd::UnaryOp::kRelu};
  if constexpr (!std::is_integral_v<T>) {
    ops.insert(ops.end(), {simd::UnaryOp::kExp, simd::UnaryOp::kLn, simd::UnaryOp::kSqrt});
  }
  for (simd::UnaryOp op : ops) {
    for (int iter = 0; iter < 6; ++iter) {
      const Layout l = random_layout<T>(rng, iter == 0);
      auto dense = [&](T* d, const T* a, const T*, size_t n) { simd::unary(op, asc::dtype_of<T>(), d, a, n); };
      auto api = [&](const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>&, auto m, uint8_t r) {
        switch (op) {
          case simd::UnaryOp::kAbs: Abs(d, a, m, r, uparams(l)); break;
          case simd::UnaryOp::kRelu: Relu(d, a, m, r, uparams(l)); break;
          case simd::UnaryOp::kExp: Exp(d, a, m, r, uparams(l)); break;
          case simd::UnaryOp::kLn: Ln(d, a, m, r, uparams(l)); break;
          default: Sqrt(d, a, m, r, uparams(l)); break;
        }
      };
      check_op<T>(simd::op_name(op), l, false, api, dense, 400 + iter);
    }
  }
}

TEST(MaskRepeat, ScalarAndUnaryFloat) { sweep_scalar_unary<float>(); }
TEST(MaskRepeat, ScalarAndUnaryHalf) { sweep_scalar_unary<half>(); }
TEST(MaskRepeat, ScalarAndUnaryInt16) { sweep_scalar_unary<int16_t>(); }
TEST(MaskRepeat, ScalarAndUnaryInt32) { sweep_scalar_unary<int32_t>(); }

// The lane ops' mask/repeat forms against their count forms on dense lanes.
template <typename T>
void sweep_lane(std::vector<simd::LaneOp> ops) {
  std::mt19937 rng(7 + sizeof(T) * 3 + std::is_integral_v<T>);
  const T s = static_cast<T>(std::is_integral_v<T> ? 3 : 0.25f);
  for (simd::LaneOp op : ops) {
    for (int iter = 0; iter < 6; ++iter) {
      const Layout l = random_layout<T>(rng, iter == 0);
      const bool two = simd::lane_reads_b_tensor(op);
      auto dense = [&](T* d, const T* a, const T* b, size_t n) {
        simd::lane(op, asc::dtype_of<T>(), d, a, simd::lane_has_scalar(op) ? static_cast<const void*>(&s) : b, n);
      };
      auto api = [&](const LocalTensor<T>& d, const LocalTensor<T>& a, const LocalTensor<T>& b, auto m, uint8_t r) {
        const BinaryRepeatParams bp = bparams(l);
        const UnaryRepeatParams up = uparams(l);
        switch (op) {
          case simd::LaneOp::kAnd: if constexpr (std::is_integral_v<T>) And(d, a, b, m, r, bp); break;
          case simd::LaneOp::kOr: if constexpr (std::is_integral_v<T>) Or(d, a, b, m, r, bp); break;
          case simd::LaneOp::kNot: if constexpr (std::is_integral_v<T>) Not(d, a, m, r, up); break;
          case simd::LaneOp::kShiftLeft: if constexpr (std::is_integral_v<T>) ShiftLeft(d, a, s, m, r, up); break;
          case simd::LaneOp::kShiftRight: if constexpr (std::is_integral_v<T>) ShiftRight(d, a, s, m, r, up); break;
          case simd::LaneOp::kAddRelu: AddRelu(d, a, b, m, r, bp); break;
          case simd::LaneOp::kSubRelu: SubRelu(d, a, b, m, r, bp); break;
          case simd::LaneOp::kMulAddDst: MulAddDst(d, a, b, m, r, bp); break;
          case simd::LaneOp::kFusedMulAdd: FusedMulAdd(d, a, b, m, r, bp); break;
          case simd::LaneOp::kFusedMulAddRelu: FusedMulAddRelu(d, a, b, m, r, bp); break;
          case simd::LaneOp::kLeakyRelu: LeakyRelu(d, a, s, m, r, up); break;
          case simd::LaneOp::kAxpy: Axpy(d, a, s, m, r, up); break;
          case simd::LaneOp::kReciprocal: Reciprocal(d, a, m, r, up); break;
          case simd::LaneOp::kRsqrt: Rsqrt(d, a, m, r, up); break;
          case simd::LaneOp::kNeg: Neg(d, a, m, r, up); break;
          default: FAIL() << "op";
        }
      };
      check_op<T>(simd::op_name(op), l, two, api, dense, 500 + iter);
    }
  }
}

TEST(MaskRepeat, LaneOpsFloat) {
  using O = simd::LaneOp;
  sweep_lane<float>({O::kAddRelu, O::kSubRelu, O::kMulAddDst, O::kFusedMulAdd, O::kFusedMulAddRelu, O::kLeakyRelu,
                     O::kAxpy, O::kReciprocal, O::kRsqrt, O::kNeg});
}
TEST(MaskRepeat, LaneOpsHalf) {
  using O = simd::LaneOp;
  sweep_lane<half>({O::kAddRelu, O::kSubRelu, O::kMulAddDst, O::kFusedMulAdd, O::kFusedMulAddRelu, O::kLeakyRelu,
                    O::kAxpy, O::kReciprocal, O::kRsqrt, O::kNeg});
}
TEST(MaskRepeat, LaneOpsInt16) {
  using O = simd::LaneOp;
  sweep_lane<int16_t>({O::kAnd, O::kOr, O::kNot, O::kShiftLeft, O::kShiftRight, O::kAddRelu, O::kNeg});
}
TEST(MaskRepeat, LaneOpsUInt16AndInt32) {
  using O = simd::LaneOp;
  sweep_lane<uint16_t>({O::kAnd, O::kOr, O::kNot, O::kShiftLeft, O::kShiftRight});
  sweep_lane<int32_t>({O::kAnd, O::kOr, O::kNot, O::kShiftLeft, O::kShiftRight, O::kNeg});
  sweep_lane<uint32_t>({O::kAnd, O::kOr, O::kNot, O::kShiftRight});
}

// ---------------------------------------------------------------- errors

TEST(MaskRepeat, Errors) {
  std::vector<float> d(128), a(128);
  Bytes bd = vt::to_bytes(d), ba = vt::to_bytes(a);
  // A count mask beyond the 64 lanes of a float repeat.
  asc::Status st = vt::run_ub({&bd, &ba},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                Add(v[0].ReinterpretCast<float>(), v[1].ReinterpretCast<float>(),
                                    v[1].ReinterpretCast<float>(), uint64_t{65}, 1, BinaryRepeatParams());
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Add]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("65"), std::string::npos) << st.message();
  // Repeat 3 with stride 8 needs 192 floats: src has 128.
  st = vt::run_ub({&bd, &ba},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[1].ReinterpretCast<float>();
                    Exp(t, t, uint64_t{64}, 3, UnaryRepeatParams(1, 1, 0, 8));
                  },
                  false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Exp]"), std::string::npos) << st.message();
  // Div on int16 is not supported.
  std::vector<int16_t> i(256);
  Bytes bi = vt::to_bytes(i);
  st = vt::run_ub({&bi},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[0].ReinterpretCast<int16_t>();
                    uint64_t m[2] = {1, 0};
                    Div(t, t, t, m, 1, BinaryRepeatParams());
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  // roundEn is rejected, not ignored.
  st = vt::run_ub({&bi},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[0].ReinterpretCast<int16_t>();
                    ShiftRight(t, t, int16_t(1), uint64_t{128}, 1, UnaryRepeatParams(), true);
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
}

TEST(MaskRepeat, RepeatZeroAndEmptyMaskTouchNothing) {
  std::vector<float> d(64, 1.5f);
  Bytes bd = vt::to_bytes(d);
  ASSERT_TRUE(vt::run_ub({&bd},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           auto t = v[0].ReinterpretCast<float>();
                           uint64_t zero[2] = {0, 0};
                           Muls(t, t, 2.0f, zero, 4, UnaryRepeatParams());
                           Muls(t, t, 2.0f, uint64_t{64}, 0, UnaryRepeatParams());
                         },
                         true)
                  .ok());
  EXPECT_TRUE(vt::same_bits(vt::from_bytes<float>(bd, 64), d));
}

}  // namespace
