// Internal to src/image: the per-axis tap tables shared by resample.cc and
// resize.cc, and the vectorised separable passes of resample_simd.cc
// (Highway dynamic dispatch, ASC_SIMD_TARGET honoured).
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "asc/image/image.h"

namespace asc::image::detail {

// One axis: for output o, taps k < K read source index idx[o*K+k] with weight w[o*K+k]
// (unused taps have weight 0 and a valid index).
struct Axis {
  int K = 1;
  std::vector<int32_t> idx;
  std::vector<float> w;
};

/// OpenCV's interpolating modes (cv::resize's coefficient tables) for output
/// positions [0, out); `area_up`: INTER_AREA's rule for axes that are not both shrunk.
Axis opencv_axis(int64_t in, int64_t out, Interp mode, bool area_up);

/// Threads worth starting for `work` multiply-adds (threads <= 0: all cores).
int thread_count(int threads, int64_t work);

/// fn(begin, end) over [0, n) in `t` contiguous blocks, the first on the calling thread;
/// the first exception is rethrown after all joined.
template <typename F>
void blocks(int64_t n, int t, F&& fn) {
  if (t <= 1 || n <= 1) {
    fn(int64_t(0), n);
    return;
  }
  t = int(std::min<int64_t>(t, n));
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errs(static_cast<size_t>(t));
  auto run = [&](int k) {
    try {
      fn(n * k / t, n * (k + 1) / t);
    } catch (...) {
      errs[size_t(k)] = std::current_exception();
    }
  };
  for (int k = 1; k < t; ++k) pool.emplace_back(run, k);
  run(0);
  for (auto& th : pool) th.join();
  for (auto& e : errs) {
    if (e) std::rethrow_exception(e);
  }
}

/// The horizontal pass of one source row as a flat table: output element j < L is
/// sum_k w[k*L + j] * row[src[k*L + j]] (k-major so each tap is one contiguous load).
/// For uint8 rows the vector code gathers 4 bytes at goff = min(src, row_bytes - 4) and
/// shifts the wanted byte down by sh = 8 * (src - goff): it never reads past the row.
struct HTable {
  int K = 1;
  int64_t L = 0;
  bool gather4 = false;  // row_bytes >= 4: the uint8 gather is usable
  std::vector<int32_t> src, goff, sh;
  std::vector<float> w;
  // 3/4-channel interleaved rows instead take one vector per output pixel (no gathers):
  // C channels, ow pixels, pix_off[x*K + k] = the element offset of tap k, pixels >= nsafe
  // touch the row's last pixel (scalar there)
  int C = 0;
  int64_t ow = 0, nsafe = 0;
  // one-channel interleaved rows: outputs [fa, fb) have K consecutive taps inside the row (the
  // float path loads them as one 8- or 16-byte run instead of K gathers)
  int64_t fa = 0, fb = 0;
  std::vector<int32_t> pix_off;
  std::vector<float> pix_w;
};

/// Table of `ax` for rows of `w` pixels x `c` channels: `planes` < 0 gives interleaved
/// (HWC) output rows of ow*c; otherwise `planes` planes of ow elements, plane p reading
/// channel src_ch[p] (the fused preprocess writes CHW).
HTable make_htable(const Axis& ax, int64_t first, int64_t ow, int64_t w, int64_t c, int planes,
                   const int64_t* src_ch);

void hpass_u8(const uint8_t* row, const HTable& t, float* out);
void hpass_f32(const float* row, const HTable& t, float* out);
/// out[j] = round-half-up(clamp(sum_k w[k] * rows[k][j], 0, 255)), j < n
void vpass_u8(const float* const* rows, const float* w, int K, int64_t n, uint8_t* out);
/// out[j] = (sum_k w[k] * rows[k][j]) * mul + add, j < n
void vpass_f32(const float* const* rows, const float* w, int K, int64_t n, float mul, float add, float* out);

/// OpenCV's fixed-point taps for uint8 bilinear / bicubic (resample_fixed.cc): cv::resize's
/// float32 coordinates and coefficients times 2048, rounded to int16. `clamp_linear`: the
/// horizontal axis's rule (bilinear coordinates clamped to the image; vertically only the row
/// indices are).
struct AxisQ {
  int K = 2;
  std::vector<int32_t> idx;
  std::vector<int16_t> w;
};
AxisQ opencv_axis_q(int64_t in, int64_t out, bool cubic, bool clamp_linear);

/// The fixed-point horizontal pass of rows of w pixels x C channels: K = 2 writes int16 rows
/// of (sum >> 4), K = 4 int32 sums (both ow * C elements plus slack for 4-lane stores).
struct HTableQ {
  int K = 2, C = 1;
  int64_t ow = 0, L = 0;
  std::vector<int32_t> off;  // [x*K + k]: element offset of tap k's pixel (1 channel: + tap 0's again at ow*K + x)
  std::vector<int16_t> w;    // [x*K + k]
  std::vector<int32_t> wx;   // int16 weight pairs as int32: 3/4 channels [(j*ow + x)*4 + 0..3], 1 channel [j*ow + x]
  int64_t nsafe = 0;         // 3/4 channels: pixels [0, nsafe) read 4 bytes per tap inside the row
  int64_t xa = 0, xb = 0;    // 1 channel: outputs [xa, xb) have consecutive taps and the 4-byte word inside the row
};
HTableQ make_htable_q(const AxisQ& ax, int64_t w, int64_t c);
void hpass_q(const uint8_t* row, const HTableQ& t, void* out);
/// OpenCV's bilinear vertical pass: out = sat_u8((mulhi(r0, b0) + mulhi(r1, b1) + 2) >> 2)
void vpass_q_linear(const int16_t* r0, const int16_t* r1, const int16_t* beta, int64_t n, uint8_t* out);
/// OpenCV's bicubic vertical pass: out = sat_u8(round_even(sum_k float(rows[k]) * beta[k] / 2^22))
void vpass_q_cubic(const int32_t* const* rows, const int16_t* beta, int64_t n, uint8_t* out);

/// Output rows [y0, y1) of a separable resize: output row y reads source rows
/// iy[(y0ff + y)*K + k]; hpass(src_row, dst) filters a source row horizontally into a ring
/// slot of `stride` elements of R (consecutive output rows share source rows, so each is
/// filtered once), then emit(y, rows) writes output row y from its K filtered rows.
template <typename R, typename HPass, typename Emit, typename Prefetch = void (*)(int64_t)>
void ring_rows_of(size_t stride, const int32_t* iy, int K, int64_t y0ff, int64_t y0, int64_t y1, HPass&& hpass,
                  Emit&& emit, Prefetch&& prefetch = [](int64_t) {}) {
  std::vector<R> ring(static_cast<size_t>(K) * stride);
  std::vector<int64_t> tag(static_cast<size_t>(K), -1);
  std::vector<const R*> rows(static_cast<size_t>(K));
  std::vector<char> used(static_cast<size_t>(K));
  for (int64_t y = y0; y < y1; ++y) {
    const int32_t* ix = iy + (y0ff + y) * K;
    if (y + 1 < y1) {
      // the next output row's new source rows lie several rows below when downscaling, where
      // the hardware prefetchers do not look: ask for them while this row is filtered
      const int32_t* nx = ix + K;
      for (int k = 0; k < K; ++k) {
        if (nx[k] > ix[K - 1]) prefetch(int64_t(nx[k]));
      }
    }
    std::fill(used.begin(), used.end(), 0);
    // slots already holding a wanted row are kept; the others are free for this row
    for (int k = 0; k < K; ++k) {
      for (int s = 0; s < K; ++s) {
        if (tag[size_t(s)] == ix[k]) used[size_t(s)] = 1;
      }
    }
    for (int k = 0; k < K; ++k) {
      int s = 0;
      while (s < K && tag[size_t(s)] != ix[k]) ++s;
      if (s == K) {
        s = 0;
        while (used[size_t(s)]) ++s;  // K slots for at most K distinct rows: one is free
        hpass(int64_t(ix[k]), ring.data() + size_t(s) * stride);
        tag[size_t(s)] = ix[k];
        used[size_t(s)] = 1;
      }
      rows[size_t(k)] = ring.data() + size_t(s) * stride;
    }
    emit(y, rows.data());
  }
}

/// ring_rows_of over float rows of the float passes above: emit(y, rows, weights).
template <typename T, typename Emit>
void ring_rows(const T* src, int64_t row_elems, const HTable& t, const Axis& ay, int64_t y0ff, int64_t y0, int64_t y1,
               Emit&& emit) {
  const size_t stride = static_cast<size_t>(t.L) + 4;  // slack for HPixT's 4-lane store
  ring_rows_of<float>(
      stride, ay.idx.data(), ay.K, y0ff, y0, y1,
      [&](int64_t r, float* dst) {
        if constexpr (sizeof(T) == 1) {
          hpass_u8(src + r * row_elems, t, dst);
        } else {
          hpass_f32(src + r * row_elems, t, dst);
        }
      },
      [&](int64_t y, const float* const* rows) { emit(y, rows, &ay.w[size_t((y0ff + y) * ay.K)]); });
}

}  // namespace asc::image::detail
