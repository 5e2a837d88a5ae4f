// CANN's C API (c_api/asc_simd.h) for dav-2201 vector kernels: copies in the
// burst layout, binary instructions in count, repeat (strides + mask) and
// _sync forms, against plain loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "c_api/asc_simd.h"
#include "kernel_test_util.h"

namespace {

TEST(CApi, AddKernelAsTheSamplesWriteIt) {
  constexpr uint32_t kBlocks = 4, kLen = 512;
  std::vector<float> x(kBlocks * kLen), y(kBlocks * kLen), z(kBlocks * kLen, -1.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i) * 0.1f;
    y[i] = static_cast<float>(i) * 0.3f - 7.0f;
  }
  float* xp = x.data();
  float* yp = y.data();
  float* zp = z.data();
  kt::run_or_throw("c_api_add", kBlocks, [=] {
    asc_init();
    __gm__ float* xg = xp + asc_get_block_idx() * kLen;
    __gm__ float* yg = yp + block_idx * kLen;
    __gm__ float* zg = zp + asc_get_block_idx() * kLen;
    __ubuf__ float xl[kLen];
    __ubuf__ float yl[kLen];
    __ubuf__ float zl[kLen];
    asc_copy_gm2ub(xl, xg, kLen * sizeof(float));
    asc_copy_gm2ub_sync(yl, yg, kLen * sizeof(float));
    asc_sync();
    asc_sync_notify(PIPE_MTE2, PIPE_V, EVENT_ID0);
    asc_sync_wait(PIPE_MTE2, PIPE_V, EVENT_ID0);
    asc_add(zl, xl, yl, kLen);
    asc_sync_pipe(PIPE_ALL);
    asc_copy_ub2gm(zg, zl, kLen * sizeof(float));
  });
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
}

TEST(CApi, RepeatFormUsesStridesAndTheMask) {
  // float: 64 lanes per repeat = 8 blocks of 8. Two repeats, block stride 2 on
  // the destination, repeat stride 16 blocks; lanes 0..9 and 64..69 masked in.
  std::vector<float> a(512), b(512), d(512, 0.0f), want(512, 0.0f);
  for (int i = 0; i < 512; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(1000 - i);
  }
  float* ap = a.data();
  float* bp = b.data();
  float* dp = d.data();
  kt::run_or_throw("c_api_repeat", 1, [=] {
    asc_init();
    asc_set_vector_mask(0, (uint64_t{1} << 10) - 1);  // lanes 0..9
    asc_mul(dp, ap, bp, 2, 2, 1, 1, 16, 8, 8);
    asc_init();  // full mask again
  });
  for (int r = 0; r < 2; ++r)
    for (int lane = 0; lane < 10; ++lane) {
      const int blk = lane / 8, e = lane % 8;
      const int od = (r * 16 + blk * 2) * 8 + e, os = (r * 8 + blk) * 8 + e;
      want[od] = a[os] * b[os];
    }
  EXPECT_EQ(d, want);
}

TEST(CApi, HalfRoundsOnceAndIntegersWrap) {
  std::vector<half> a(64), b(64), d(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = half(1.0f + i / 1024.0f);
    b[i] = half(3.0f / (i + 1));
  }
  std::vector<int16_t> ia(16, 32767), ib(16, 1), id(16, 0);
  half* ap = a.data();
  half* bp = b.data();
  half* dp = d.data();
  int16_t* iap = ia.data();
  int16_t* ibp = ib.data();
  int16_t* idp = id.data();
  kt::run_or_throw("c_api_half", 1, [=] {
    asc_div(dp, ap, bp, 64);
    asc_add_sync(idp, iap, ibp, 16);
  });
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(static_cast<float>(d[i]), static_cast<float>(half(static_cast<float>(a[i]) / static_cast<float>(b[i]))));
  for (int16_t v : id) EXPECT_EQ(v, -32768);
}

TEST(CApi, BurstCopiesSkipTheGaps) {
  // 3 bursts of 2 blocks; source gap 1 block, destination gap 2 blocks (int32: 8 per block).
  std::vector<int32_t> src(3 * 3 * 8), dst(3 * 4 * 8, -1), want(3 * 4 * 8, -1);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int32_t>(i);
  for (int burst = 0; burst < 3; ++burst)
    for (int k = 0; k < 16; ++k) want[burst * 32 + k] = src[burst * 24 + k];
  int32_t* s = src.data();
  int32_t* dd = dst.data();
  kt::run_or_throw("c_api_burst", 1, [=] {
    __ubuf__ int32_t ub[3 * 4 * 8];
    for (auto& v : ub) v = -1;
    asc_copy_gm2ub(ub, s, 3, 2, 1, 2);
    asc_copy_ub2gm(dd, ub, 3 * 4 * 8 * sizeof(int32_t));
  });
  EXPECT_EQ(dst, want);
  // A null address is an error naming the call.
  const asc::Status st = kt::run("c_api_null", 1, [] { asc_copy_gm2ub(nullptr, nullptr, 64); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("asc_copy_gm2ub"), std::string::npos) << st.message();
}

// dav-3510 register part, as the reg_vector_compute samples write it.
__simd_vf__ inline void abs_scale_vf(__ubuf__ float* x, __ubuf__ float* y, uint32_t n, uint16_t per, uint16_t rep) {
  vector_bool m;
  vector_float s;
  vector_float d;
  for (uint16_t i = 0; i < rep; ++i) {
    m = asc_update_mask_b32(n);
    asc_loadalign(s, x + i * per);
    asc_abs(d, s, m);
    asc_mul_scalar(d, d, 2.0f, m);
    asc_storealign(y + i * per, d, m);
  }
}

TEST(CApi, RegisterVfOverTheTail) {
  // 100 elements = one full register of 64 floats and a 36-element tail: the
  // tail's stores must stop at the mask (element 100 onwards keeps 7).
  std::vector<float> x(100), y(128, 7.0f);
  for (int i = 0; i < 100; ++i) x[i] = static_cast<float>(i % 2 ? -i : i) * 0.5f;
  float* xp = x.data();
  float* yp = y.data();
  kt::run_or_throw("c_api_reg", 1, [=] {
    asc_init();
    __ubuf__ float xl[128];
    __ubuf__ float yl[128];
    for (auto& v : yl) v = 7.0f;
    asc_copy_gm2ub_align(xl, xp, 100 * sizeof(float));
    const uint16_t per = asc_get_vf_len() / sizeof(float);
    abs_scale_vf(xl, yl, 100, per, (100 + per - 1) / per);
    asc_copy_ub2gm_align(yp, yl, 1, 128 * sizeof(float), asc_store_l2_cache_mode::NORMAL_FIRST_VICTIM, 0, 0);
  });
  for (int i = 0; i < 100; ++i) ASSERT_EQ(y[i], std::fabs(x[i]) * 2.0f) << i;
  for (int i = 100; i < 128; ++i) ASSERT_EQ(y[i], 7.0f) << i;
  // half: computed in float, rounded once; arange and duplicate.
  std::vector<half> h(128);
  half* hp = h.data();
  kt::run_or_throw("c_api_reg_half", 1, [=] {
    vector_half a;
    vector_half b;
    vector_bool all = asc_create_mask_b16(PAT_ALL);
    asc_arange(a, 1.0f);
    asc_duplicate_scalar(b, half(3.0f), all);
    asc_div(a, a, b, all);
    asc_storealign(hp, a, all);
  });
  for (int i = 0; i < 128; ++i) ASSERT_EQ(static_cast<float>(h[i]), static_cast<float>(half((i + 1.0f) / 3.0f))) << i;
  // PAT_H: the low half of the 64 float lanes.
  std::vector<float> o(64, -1.0f);
  float* op = o.data();
  kt::run_or_throw("c_api_reg_pat", 1, [=] {
    vector_float a;
    asc_duplicate_scalar(a, 5.0f, asc_create_mask_b32(PAT_ALL));
    asc_storealign(op, a, asc_create_mask_b32(PAT_H));
  });
  for (int i = 0; i < 64; ++i) ASSERT_EQ(o[i], i < 32 ? 5.0f : -1.0f) << i;
}

TEST(CApi, PaddedAlignedCopyAndUnmaskedRegisterForms) {
  // 3 rows of 5 floats out of a 3 x 8 GM matrix (GM gap 3 floats = 12 bytes),
  // each UB row: 1 zero pad, 5 values, 2 zero pads = 8 floats = 32 bytes.
  std::vector<float> gm(24), out(24, -1.0f);
  for (int i = 0; i < 24; ++i) gm[i] = static_cast<float>(i + 1);
  float* g = gm.data();
  float* o = out.data();
  kt::run_or_throw("c_api_pad", 1, [=] {
    __ubuf__ float ub[64];
    for (auto& v : ub) v = -1.0f;
    const uint8_t id = AscendC::AllocMutexID();
    asc_lock(PIPE_MTE2, id);
    asc_copy_gm2ub_align(ub, g, 3, 5 * sizeof(float), 1, 2, true, asc_load_l2_cache_mode::NORMAL_FIRST_VICTIM,
                         3 * sizeof(float), 0);
    asc_unlock(PIPE_MTE2, id);
    AscendC::ReleaseMutexID(id);
    vector_float r;
    asc_load(r, ub);          // 64 lanes: the 24 floats then the untouched -1s
    asc_add(r, r, r, asc_create_mask_b32(PAT_ALL));
    asc_store(ub, r);
    asc_copy_ub2gm(o, ub, 24 * sizeof(float));
  });
  for (int row = 0; row < 3; ++row)
    for (int k = 0; k < 8; ++k) {
      const float want = (k == 0 || k > 5) ? 0.0f : 2.0f * gm[row * 8 + (k - 1)];
      ASSERT_EQ(out[row * 8 + k], want) << row << " " << k;
    }
}

TEST(CApi, RegisterCompareSelectReduceMerge) {
  std::vector<float> a(64), b(64), sel(64), red(64), mrg(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<float>((i * 37) % 64) - 20.0f;
    b[i] = static_cast<float>(i) - 30.0f;
  }
  float* ap = a.data();
  float* bp = b.data();
  float* sp = sel.data();
  float* rp = red.data();
  float* mp = mrg.data();
  kt::run_or_throw("c_api_reg_cmp", 1, [=] {
    vector_float x, y, d, r, m;
    vector_bool all = asc_create_mask_b32(PAT_ALL), gt;
    __ubuf__ float* xa = ap;
    asc_loadalign_postupdate(x, xa, 64);
    asc_loadalign(y, bp);
    asc_gt(gt, x, y, all);
    asc_select(d, x, y, gt);  // max(a, b)
    asc_storealign(sp, d, all);
    asc_reduce_sum(r, x, asc_create_mask_b32(PAT_H));  // a[0..31]
    asc_storealign(rp, r, all);
    asc_duplicate_scalar(m, -1.0f, all);
    asc_copy(m, x, asc_create_mask_b32(PAT_Q));  // lanes 0..15 from a, the rest kept
    asc_storealign(mp, m, all);
    EXPECT_EQ(xa, ap + 64);
    // A mask register loaded from UB steps its pointer in bytes (32 per register).
    __ubuf__ uint8_t bits[64] = {};
    bits[0] = 0x11;  // lanes 0 and 1 of a b32 register (bits 0 and 4)
    __ubuf__ uint32_t* mp32 = reinterpret_cast<uint32_t*>(bits);
    vector_bool lm;
    asc_loadalign_postupdate(lm, mp32, 32);
    EXPECT_EQ(reinterpret_cast<uint8_t*>(mp32), bits + 32);
    vector_float z;
    asc_duplicate_scalar(z, 0.0f);
    asc_select(z, x, z, lm);
    EXPECT_EQ(z.v[0], ap[0]);
    EXPECT_EQ(z.v[1], ap[1]);
    EXPECT_EQ(z.v[2], 0.0f);
  });
  float sum = 0.0f;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(sel[i], std::max(a[i], b[i])) << i;
    EXPECT_EQ(mrg[i], i < 16 ? a[i] : -1.0f) << i;
    if (i < 32) sum += a[i];  // integers: exact in any order
  }
  EXPECT_EQ(red[0], sum);
  for (int i = 1; i < 64; ++i) EXPECT_EQ(red[i], 0.0f) << i;
}

TEST(CApi, RegisterAndUbGathers) {
  std::vector<half> src(128), out(128), out2(128);
  std::vector<uint16_t> idx(128);
  for (int i = 0; i < 128; ++i) {
    src[i] = half(static_cast<float>(i) * 0.25f);
    idx[i] = static_cast<uint16_t>((i * 53 + 7) % 128);
  }
  half* sp = src.data();
  half* op = out.data();
  half* op2 = out2.data();
  uint16_t* ip = idx.data();
  kt::run_or_throw("c_api_gather", 1, [=] {
    vector_half s, d;
    vector_uint16_t k;
    asc_loadalign(s, sp);
    asc_loadalign(k, ip);
    asc_gather(d, s, k);
    asc_storealign(op, d, asc_create_mask_b16(PAT_ALL));
    asc_gather(d, sp, k, asc_create_mask_b16(PAT_H));
    asc_storealign(op2, d, asc_create_mask_b16(PAT_ALL));
  });
  for (int i = 0; i < 128; ++i) {
    ASSERT_EQ(static_cast<float>(out[i]), static_cast<float>(src[idx[i]])) << i;
    ASSERT_EQ(static_cast<float>(out2[i]), i < 64 ? static_cast<float>(src[idx[i]]) : 0.0f) << i;
  }
  // asc_squeeze: every 4th float packed to the front (PAT_M4), zeros after.
  std::vector<float> sq(64, -1.0f);
  float* sqp = sq.data();
  kt::run_or_throw("c_api_squeeze", 1, [=] {
    vector_float a, d;
    asc_arange(a, 0.0f);
    asc_squeeze(d, a, asc_create_mask_b32(PAT_M4));
    asc_storealign(sqp, d, asc_create_mask_b32(PAT_ALL));
  });
  for (int i = 0; i < 64; ++i) ASSERT_EQ(sq[i], i < 16 ? 4.0f * i : 0.0f) << i;
  // Pair and data-block reductions against the same sums done here.
  std::vector<float> xs(64), pr(64), db(64);
  for (int i = 0; i < 64; ++i) xs[i] = 1.0f + static_cast<float>((i * 29) % 64) / 64.0f;
  float* xsp = xs.data();
  float* prp = pr.data();
  float* dbp = db.data();
  kt::run_or_throw("c_api_reductions", 1, [=] {
    vector_float a, p, q;
    asc_loadalign(a, xsp);
    asc_pair_reduce_sum(p, a, asc_create_mask_b32(PAT_ALL));
    asc_storealign(prp, p, asc_create_mask_b32(PAT_ALL));
    asc_reduce_sum_datablock(q, a, asc_create_mask_b32(PAT_ALL));
    asc_storealign(dbp, q, asc_create_mask_b32(PAT_ALL));
  });
  for (int j = 0; j < 64; ++j) ASSERT_EQ(pr[j], j < 32 ? xs[2 * j] + xs[2 * j + 1] : 0.0f) << j;
  for (int k = 0; k < 64; ++k) {
    const float* b = xs.data() + 8 * (k % 8);
    const float want = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
    ASSERT_EQ(db[k], k < 8 ? want : 0.0f) << k;
  }
  // Histogram of 256 bytes (two registers) into bins 0..127 and 128..255.
  std::vector<uint8_t> bytes(512);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>((i * 97 + 13) % 251);
  std::vector<uint16_t> hist(256, 0), want_hist(256, 0);
  for (size_t i = 0; i < 500; ++i) ++want_hist[bytes[i]];  // the last 12 bytes are masked off
  uint8_t* bp = bytes.data();
  uint16_t* hp = hist.data();
  kt::run_or_throw("c_api_histogram", 1, [=] {
    vector_uint8_t s;
    vector_uint16_t h0, h1;
    asc_duplicate_scalar(h0, 0);
    asc_duplicate_scalar(h1, 0);
    uint32_t left = 500;
    for (int r = 0; r < 2; ++r) {
      vector_bool m = asc_update_mask_b8(left);
      asc_loadalign(s, bp + 256 * r);
      asc_frequency_histogram_bin0(h0, s, m);
      asc_frequency_histogram_bin1(h1, s, m);
    }
    asc_storealign(hp, h0, asc_create_mask_b16(PAT_ALL));
    asc_storealign(hp + 128, h1, asc_create_mask_b16(PAT_ALL));
  });
  EXPECT_EQ(hist, want_hist);
  // An index past the register's 128 half lanes.
  const asc::Status st = kt::run("c_api_gather_bad", 1, [] {
    vector_half s, d;
    vector_uint16_t k;
    asc_duplicate_scalar(k, 200);
    asc_gather(d, s, k);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("index 200"), std::string::npos) << st.message();
}

// The C API's register arithmetic is the Reg API's (one semantics): each
// function gives bit for bit what its Reg counterpart gives, on float, half
// and int32 registers with a partial mask (inactive lanes zeroed).
template <typename T>
void expect_same(const AscendC::Reg::RegTensor<T>& a, const AscendC::Reg::RegTensor<T>& b, const char* what) {
  for (uint32_t i = 0; i < AscendC::Reg::RegTensor<T>::kLanes; ++i)
    ASSERT_EQ(std::memcmp(&a.v[i], &b.v[i], sizeof(T)), 0) << what << " lane " << i;
}

template <typename T>
void c_api_matches_reg_api(float scale) {
  namespace R = AscendC::Reg;
  constexpr uint32_t lanes = R::RegTensor<T>::kLanes;
  R::RegTensor<T> x, y, d, want;
  for (uint32_t i = 0; i < lanes; ++i) {
    x.v[i] = static_cast<T>((static_cast<float>(i % 23) - 11.0f) * scale);
    y.v[i] = static_cast<T>((static_cast<float>(i % 7) + 1.0f) * scale);
  }
  uint32_t n = lanes - 5;
  R::MaskReg m = R::UpdateMask<T>(n);
#define SAME_UNARY(C, REG)   \
  C(d, x, m);                \
  R::REG(want, x, m);        \
  expect_same(d, want, #C);  \
  for (uint32_t i = lanes - 5; i < lanes; ++i) ASSERT_EQ(static_cast<float>(d.v[i]), 0.0f) << #C;
#define SAME_BINARY(C, REG) \
  C(d, x, y, m);            \
  R::REG(want, x, y, m);    \
  expect_same(d, want, #C);
#define SAME_SCALAR(C, REG)         \
  C(d, x, T(3), m);                 \
  R::REG(want, x, T(3), m);         \
  expect_same(d, want, #C);
  SAME_UNARY(asc_abs, Abs)
  SAME_UNARY(asc_neg, Neg)
  SAME_UNARY(asc_relu, Relu)
  SAME_BINARY(asc_add, Add)
  SAME_BINARY(asc_sub, Sub)
  SAME_BINARY(asc_mul, Mul)
  SAME_BINARY(asc_div, Div)
  SAME_BINARY(asc_max, Max)
  SAME_BINARY(asc_min, Min)
  SAME_SCALAR(asc_add_scalar, Adds)
  SAME_SCALAR(asc_mul_scalar, Muls)
  SAME_SCALAR(asc_max_scalar, Maxs)
  SAME_SCALAR(asc_min_scalar, Mins)
  if constexpr (!std::is_integral_v<T>) {
    SAME_UNARY(asc_exp, Exp)
    SAME_UNARY(asc_sqrt, Sqrt)
    SAME_UNARY(asc_ln, Ln)
    asc_floor(d, x, m);
    R::Truncate<T, AscendC::RoundMode::CAST_FLOOR>(want, x, m);
    expect_same(d, want, "asc_floor");
    asc_ceil(d, x, m);
    R::Truncate<T, AscendC::RoundMode::CAST_CEIL>(want, x, m);
    expect_same(d, want, "asc_ceil");
    for (uint32_t i = 0; i < lanes - 5; ++i) {
      ASSERT_EQ(static_cast<float>(d.v[i]), std::ceil(static_cast<float>(x.v[i]))) << i;
    }
  }
#undef SAME_UNARY
#undef SAME_BINARY
#undef SAME_SCALAR
  // Select, duplicate and arange forward too.
  asc_select(d, x, y, m);
  R::Select(want, x, y, m);
  expect_same(d, want, "asc_select");
  asc_duplicate_scalar(d, T(5), m);
  R::Duplicate(want, T(5), m);
  expect_same(d, want, "asc_duplicate_scalar");
  asc_arange(d, T(2));
  R::Arange(want, T(2));
  expect_same(d, want, "asc_arange");
}

TEST(CApi, RegisterArithmeticIsTheRegApis) {
  c_api_matches_reg_api<float>(0.7f);
  c_api_matches_reg_api<half>(0.3f);
  c_api_matches_reg_api<int32_t>(1.0f);
}

}  // namespace
