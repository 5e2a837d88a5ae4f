// float32 rows of the channel-blocked (NC1HWC0) max pool, Highway dynamic dispatch
// (src/nn/pool.cc's max_pool_blocked calls them; declared in nn/pool_max_blocked.h).
//
// Every output position reduces its C0 (8 or 16) lanes together as C0 / N vectors
// (N = min(C0, the target's lanes)). Max alone does not propagate NaN on every
// target (x86's maxps returns its second operand when either is NaN), so NaN is
// tracked in a separate unordered mask and ORed in at the end: a NaN window gives
// an all-ones lane, a NaN (pool()'s rule: NaN propagates). The generic template in
// pool.cc is not vectorised by the compiler: its NaN-aware select becomes one
// branch per lane (~10x slower on 3x3/2 over 112x112x64).
#include <cstdint>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/pool_max_blocked.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <int C0>
void MaxPoolBlockedRowT(const float* xp, float* yp, const int64_t* in, const int64_t* out, const int64_t* k,
                        const int64_t* s, const int64_t* pl, const int64_t* dl, int64_t od, int64_t oh) {
  const hn::CappedTag<float, C0> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t n = static_cast<int64_t>(hn::Lanes(d));
  constexpr int kMaxV = C0;  // at most C0 vectors (one lane each on the scalar target)
  // window [lo, hi) of output index o along one axis, first tap moved inside the input
  auto range = [](int64_t o, int64_t st, int64_t p, int64_t kk, int64_t dil, int64_t size, int64_t* lo,
                  int64_t* hi) {
    int64_t a = o * st - p;
    const int64_t b = a + (kk - 1) * dil + 1 < size ? a + (kk - 1) * dil + 1 : size;
    while (a < 0) a += dil;
    *lo = a;
    *hi = b;
  };
  int64_t d0, d1, h0, h1;
  range(od, s[0], pl[0], k[0], dl[0], in[0], &d0, &d1);
  range(oh, s[1], pl[1], k[1], dl[1], in[1], &h0, &h1);
  const int64_t nv = C0 / n;
  const V ninf = hn::Set(d, -std::numeric_limits<float>::infinity());
  for (int64_t ow = 0; ow < out[2]; ++ow) {
    int64_t w0, w1;
    range(ow, s[2], pl[2], k[2], dl[2], in[2], &w0, &w1);
    V acc[kMaxV], nan[kMaxV];
    for (int64_t j = 0; j < nv; ++j) {
      acc[j] = ninf;
      nan[j] = hn::Zero(d);
    }
    for (int64_t z = d0; z < d1; z += dl[0]) {
      for (int64_t h = h0; h < h1; h += dl[1]) {
        const float* row = xp + ((z * in[1] + h) * in[2]) * C0;
        for (int64_t w = w0; w < w1; w += dl[2]) {
          for (int64_t j = 0; j < nv; ++j) {
            const V v = hn::LoadU(d, row + w * C0 + j * n);
            acc[j] = hn::Max(v, acc[j]);
            nan[j] = hn::Or(nan[j], hn::VecFromMask(d, hn::IsNaN(v)));
          }
        }
      }
    }
    float* y = yp + ((od * out[1] + oh) * out[2] + ow) * C0;
    for (int64_t j = 0; j < nv; ++j) hn::StoreU(hn::Or(acc[j], nan[j]), d, y + j * n);
  }
}

void MaxPoolBlockedRowF32(int64_t c0, const float* xp, float* yp, const int64_t* in, const int64_t* out,
                          const int64_t* k, const int64_t* s, const int64_t* pl, const int64_t* dl, int64_t od,
                          int64_t oh) {
  if (c0 == 8) {
    MaxPoolBlockedRowT<8>(xp, yp, in, out, k, s, pl, dl, od, oh);
  } else {
    MaxPoolBlockedRowT<16>(xp, yp, in, out, k, s, pl, dl, od, oh);
  }
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernel/simd/tables.h"
#include "nn/pool_max_blocked.h"

namespace asc::kernel::simd {
HWY_EXPORT(MaxPoolBlockedRowF32);
}  // namespace asc::kernel::simd

namespace asc::nn::detail {

bool max_pool_blocked_row_f32(int64_t c0, const float* xp, float* yp, const int64_t* in, const int64_t* out,
                              const int64_t* k, const int64_t* s, const int64_t* pl, const int64_t* dl, int64_t od,
                              int64_t oh) {
  if (c0 != 8 && c0 != 16) return false;
  static const bool once = (kernel::simd::apply_target_override(), true);
  (void)once;
  HWY_DYNAMIC_DISPATCH(kernel::simd::MaxPoolBlockedRowF32)(c0, xp, yp, in, out, k, s, pl, dl, od, oh);
  return true;
}

}  // namespace asc::nn::detail
#endif  // HWY_ONCE
