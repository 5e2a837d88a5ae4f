// The separable resampler behind asc.image.resize (include/asc/image/image.h):
// bicubic (OpenCV's INTER_CUBIC), area (OpenCV's INTER_AREA), bilinear/nearest
// for float32 and batches, and Pillow's antialiased bilinear/bicubic filters.
//
// Every mode is "per output column/row: a few source indices and weights",
// computed once per axis in double precision (the formulas are the reference
// libraries', so the only differences from them are float32 accumulation and
// their fixed-point weights: <= 1 LSB on uint8). Bilinear and bicubic (OpenCV's
// modes, not antialiased) run on the vectorised passes of resample_simd.cc: a
// ring of K horizontally filtered rows per thread, output rows split over the
// threads. The other modes (nearest, area, Pillow's filters with their wide
// supports) keep the path below: a horizontal pass (only over the source rows the
// vertical pass reads) into a float32 buffer and a vertical multiply-add over
// whole rows (omp simd). Both split rows into one contiguous block per thread
// (plain std::threads: OpenMP's spinning workers cost tens of milliseconds when
// the cores are oversubscribed).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <type_traits>
#include <exception>
#include <vector>

#include "asc/core/status.h"
#include "asc/image/image.h"
#include "image/resample_simd.h"

namespace asc::image {
namespace {

using detail::Axis;
using detail::blocks;
using detail::thread_count;
using detail::opencv_axis;

[[noreturn]] void fail(const std::string& op, const std::string& msg, ErrorCode c) {
  throw Error(Status::Make(c, op, msg));
}

// Keys' cubic convolution kernel with parameter a (OpenCV a = -0.75, Pillow a = -0.5).
double cubic(double x, double a) {
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

int32_t clampi(int64_t i, int64_t n) { return int32_t(std::min<int64_t>(std::max<int64_t>(i, 0), n - 1)); }

// Pillow's resampling coefficients (ImagingResample's precompute_coeffs): the filter's
// support grows with the downscale ratio; taps outside the image are dropped and the
// remaining weights renormalised (no border replication).
Axis pillow_axis(int64_t in, int64_t out, bool bicubic) {
  const double scale = double(in) / double(out);
  const double fscale = std::max(scale, 1.0);
  const double support = (bicubic ? 2.0 : 1.0) * fscale;
  Axis A;
  A.K = int(std::ceil(support)) * 2 + 1;
  A.idx.assign(size_t(out * A.K), 0);
  A.w.assign(size_t(out * A.K), 0.f);
  std::vector<double> ww(size_t(A.K));
  for (int64_t o = 0; o < out; ++o) {
    const double center = (double(o) + 0.5) * scale;
    // C's (int) truncation, as Pillow: only matters below zero, where it is clamped anyway
    const int64_t xmin = std::max<int64_t>(int64_t(center - support + 0.5), 0);
    const int64_t xmax = std::min<int64_t>(int64_t(center + support + 0.5), in);
    const int64_t n = std::min<int64_t>(xmax - xmin, A.K);
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double x = (double(j + xmin) - center + 0.5) / fscale;
      const double v = bicubic ? cubic(x, -0.5) : std::max(0.0, 1.0 - std::fabs(x));
      ww[size_t(j)] = v;
      sum += v;
    }
    for (int64_t j = 0; j < A.K; ++j) {
      A.idx[size_t(o * A.K + j)] = clampi(xmin + std::min<int64_t>(j, std::max<int64_t>(n - 1, 0)), in);
      A.w[size_t(o * A.K + j)] = (j < n && sum != 0.0) ? float(ww[size_t(j)] / sum) : 0.f;
    }
  }
  return A;
}

// OpenCV's INTER_AREA for a downscaling axis (computeResizeAreaTab): the exact box
// [o*scale, (o+1)*scale) with fractional weights at its ends, normalised by its width.
Axis box_axis(int64_t in, int64_t out) {
  const double scale = double(in) / double(out);
  Axis A;
  A.K = int(std::ceil(scale)) + 1;
  A.idx.assign(size_t(out * A.K), 0);
  A.w.assign(size_t(out * A.K), 0.f);
  for (int64_t o = 0; o < out; ++o) {
    const double f1 = double(o) * scale, f2 = f1 + scale;
    const double cell = std::min(scale, double(in) - f1);
    int64_t s1 = int64_t(std::ceil(f1)), s2 = int64_t(std::floor(f2));
    s2 = std::min<int64_t>(s2, in - 1);
    s1 = std::min<int64_t>(s1, s2);
    int k = 0;
    auto put = [&](int64_t i, double v) {
      if (k < A.K) {
        A.idx[size_t(o * A.K + k)] = clampi(i, in);
        A.w[size_t(o * A.K + k)] = float(v / cell);
        ++k;
      }
    };
    if (double(s1) - f1 > 1e-3) put(s1 - 1, double(s1) - f1);
    for (int64_t s = s1; s < s2; ++s) put(s, 1.0);
    if (f2 - double(s2) > 1e-3) put(s2, std::min(std::min(f2 - double(s2), 1.0), cell));
    for (int j = k; j < A.K; ++j) A.idx[size_t(o * A.K + j)] = A.idx[size_t(o * A.K)];
  }
  return A;
}

// OpenCV's interpolating modes (cv::resize's coefficient tables). `area_up`: the
// INTER_AREA rule for axes that are not both downscaled (linear with its own offsets).
}  // namespace

Axis detail::opencv_axis(int64_t in, int64_t out, Interp mode, bool area_up) {
  const double scale = double(in) / double(out), inv = double(out) / double(in);
  Axis A;
  A.K = mode == Interp::kNearest ? 1 : mode == Interp::kBicubic ? 4 : 2;
  A.idx.assign(size_t(out * A.K), 0);
  A.w.assign(size_t(out * A.K), 0.f);
  for (int64_t o = 0; o < out; ++o) {
    int32_t* ix = &A.idx[size_t(o * A.K)];
    float* wt = &A.w[size_t(o * A.K)];
    if (mode == Interp::kNearest) {  // INTER_NEAREST: floor(o * scale)
      ix[0] = clampi(int64_t(std::floor(double(o) * scale)), in);
      wt[0] = 1.f;
      continue;
    }
    double fx;
    int64_t sx;
    if (area_up) {
      sx = int64_t(std::floor(double(o) * scale));
      fx = double(o + 1) - double(sx + 1) * inv;
      fx = fx <= 0 ? 0.0 : fx - std::floor(fx);
    } else {
      fx = (double(o) + 0.5) * scale - 0.5;
      sx = int64_t(std::floor(fx));
      fx -= double(sx);
    }
    if (mode == Interp::kBicubic) {  // taps sx-1 .. sx+2, replicated borders
      const double a = -0.75;
      const double c0 = cubic(fx + 1.0, a), c1 = cubic(fx, a), c2 = cubic(1.0 - fx, a);
      const double cs[4] = {c0, c1, c2, 1.0 - c0 - c1 - c2};
      for (int k = 0; k < 4; ++k) {
        ix[k] = clampi(sx - 1 + k, in);
        wt[k] = float(cs[k]);
      }
      continue;
    }
    if (sx < 0) fx = 0, sx = 0;
    if (sx >= in - 1) fx = 0, sx = in - 1;
    ix[0] = clampi(sx, in);
    ix[1] = clampi(sx + 1, in);
    wt[0] = float(1.0 - fx);
    wt[1] = float(fx);
  }
  return A;
}

int detail::thread_count(int threads, int64_t work) {
  int t = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
  // below ~64K multiply-adds a thread costs more than it saves
  return int(std::max<int64_t>(1, std::min<int64_t>(t, work / 65536)));
}

namespace {

template <typename T, int C, int KK>
void horizontal(const T* src, int64_t w, int64_t cdyn, const Axis& ax, int64_t ow, float* dst) {
  const int64_t c = C > 0 ? C : cdyn;
  const int K = KK > 0 ? KK : ax.K;  // KK: the tap count known at compile time, so the loops unroll
  for (int64_t x = 0; x < ow; ++x) {
    const int32_t* ix = &ax.idx[size_t(x * K)];
    const float* wt = &ax.w[size_t(x * K)];
    if constexpr (C > 0) {
      float acc[C] = {};
      for (int k = 0; k < K; ++k) {
        const T* p = src + int64_t(ix[k]) * C;
        for (int ch = 0; ch < C; ++ch) acc[ch] += wt[k] * float(p[ch]);
      }
      for (int ch = 0; ch < C; ++ch) dst[x * C + ch] = acc[ch];
    } else {
      for (int64_t ch = 0; ch < c; ++ch) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) acc += wt[k] * float(src[int64_t(ix[k]) * c + ch]);
        dst[x * c + ch] = acc;
      }
    }
  }
  (void)w;
}

template <typename T>
void resample_one(const T* src, int64_t w, int64_t c, const Axis& ay, const Axis& ax, int64_t oh,
                  int64_t ow, T* dst, int nt_h, int nt_v, std::vector<float>& tmp, std::vector<int32_t>& rows,
                  std::vector<int32_t>& slot) {
  // the horizontal pass runs only over the source rows some output row reads
  const int64_t row = ow * c;
  auto hrow = [&](auto cc, auto kk, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      horizontal<T, decltype(cc)::value, decltype(kk)::value>(src + int64_t(rows[size_t(r)]) * w * c, w, c, ax, ow,
                                                              tmp.data() + r * row);
    }
  };
  blocks(int64_t(rows.size()), nt_h, [&](int64_t r0, int64_t r1) {
    using I1 = std::integral_constant<int, 1>;
    using I2 = std::integral_constant<int, 2>;
    using I3 = std::integral_constant<int, 3>;
    using I4 = std::integral_constant<int, 4>;
    using I0 = std::integral_constant<int, 0>;
    if (c == 3 && ax.K == 2) hrow(I3{}, I2{}, r0, r1);
    else if (c == 3 && ax.K == 4) hrow(I3{}, I4{}, r0, r1);
    else if (c == 3 && ax.K == 1) hrow(I3{}, I1{}, r0, r1);
    else if (c == 3) hrow(I3{}, I0{}, r0, r1);
    else if (c == 1 && ax.K == 2) hrow(I1{}, I2{}, r0, r1);
    else if (c == 1 && ax.K == 4) hrow(I1{}, I4{}, r0, r1);
    else if (c == 1) hrow(I1{}, I0{}, r0, r1);
    else if (c == 4) hrow(I4{}, I0{}, r0, r1);
    else hrow(I0{}, I0{}, r0, r1);
  });
  const int K = ay.K;
  blocks(oh, nt_v, [&](int64_t y0, int64_t y1) {
    std::vector<float> acc(static_cast<size_t>(row));
    for (int64_t y = y0; y < y1; ++y) {
      std::fill(acc.begin(), acc.end(), 0.f);
      float* a = acc.data();
      for (int k = 0; k < K; ++k) {
        const float wk = ay.w[size_t(y * K + k)];
        if (wk == 0.f) continue;
        const float* t = tmp.data() + int64_t(slot[size_t(ay.idx[size_t(y * K + k)])]) * row;
        #pragma omp simd
        for (int64_t i = 0; i < row; ++i) a[i] += wk * t[i];
      }
      T* o = dst + y * row;
      if constexpr (std::is_same_v<T, uint8_t>) {
        // round half up after clamping, as the reference libraries' fixed point does; through
        // int32 because float -> uint8 has no vector conversion before AVX-512 (scalar: 3x slower)
        #pragma omp simd
        for (int64_t i = 0; i < row; ++i) o[i] = uint8_t(int32_t(std::min(std::max(a[i], 0.f), 255.f) + 0.5f));
      } else {
        std::memcpy(o, a, size_t(row) * sizeof(float));
      }
    }
  });
}

}  // namespace

Tensor resample(const Tensor& img, int64_t out_h, int64_t out_w, Interp mode, bool antialias, int threads) {
  const std::string op = "image.resize";
  if (img.dtype() != DType::kUInt8 && img.dtype() != DType::kFloat32) {
    fail(op, std::string("expected uint8 or float32 pixels, got ") + dtype_name(img.dtype()),
         ErrorCode::kInvalidDtype);
  }
  if (img.ndim() != 3 && img.ndim() != 4) {
    fail(op, "expected an HxWxC image or an NxHxWxC batch, got shape " + Tensor::shape_str(img.shape()),
         ErrorCode::kInvalidShape);
  }
  if (!img.is_contiguous()) fail(op, "the image must be C-contiguous", ErrorCode::kInvalidParam);
  if (out_h <= 0 || out_w <= 0 || out_h > (1 << 16) || out_w > (1 << 16)) {
    fail(op, "output size must be in 1..65536, got " + std::to_string(out_h) + "x" + std::to_string(out_w),
         ErrorCode::kInvalidParam);
  }
  if (int(mode) < 0 || int(mode) > 3) {
    fail(op, "unknown interpolation " + std::to_string(int(mode)), ErrorCode::kInvalidParam);
  }
  const bool batch = img.ndim() == 4;
  const int64_t n = batch ? img.shape()[0] : 1;
  const int64_t h = img.shape()[batch ? 1 : 0], w = img.shape()[batch ? 2 : 1], c = img.shape()[batch ? 3 : 2];
  if (h <= 0 || w <= 0 || c <= 0) {
    fail(op, "expected a non-empty image, got shape " + Tensor::shape_str(img.shape()), ErrorCode::kInvalidShape);
  }
  if (int64_t(int32_t(h)) != h || int64_t(int32_t(w)) != w) {
    fail(op, "image sides must be below 2^31, got " + Tensor::shape_str(img.shape()), ErrorCode::kInvalidShape);
  }
  Shape os = batch ? Shape{n, out_h, out_w, c} : Shape{out_h, out_w, c};
  Tensor out = Tensor::empty(os, img.dtype());
  if (n == 0) return out;

  Axis ax, ay;
  const bool aa = antialias && (mode == Interp::kBilinear || mode == Interp::kBicubic);
  if (aa) {
    ay = pillow_axis(h, out_h, mode == Interp::kBicubic);
    ax = pillow_axis(w, out_w, mode == Interp::kBicubic);
  } else if (mode == Interp::kArea && h >= out_h && w >= out_w) {
    ay = box_axis(h, out_h);
    ax = box_axis(w, out_w);
  } else if (mode == Interp::kArea) {
    ay = opencv_axis(h, out_h, Interp::kBilinear, true);
    ax = opencv_axis(w, out_w, Interp::kBilinear, true);
  } else if (img.dtype() != DType::kUInt8 || mode == Interp::kNearest) {
    ay = opencv_axis(h, out_h, mode, false);
    ax = opencv_axis(w, out_w, mode, false);
  } else {  // uint8 bilinear / bicubic: resample_fixed.cc's own tables below
    ay.K = ax.K = mode == Interp::kBicubic ? 4 : 2;
  }
  if (!aa && (mode == Interp::kBilinear || mode == Interp::kBicubic)) {
    // the vectorised path (resample_simd.cc): each thread takes a block of output rows and
    // filters the source rows it needs once each into a ring of K rows
    // an explicit thread count is honoured; the default takes a thread per ~2M multiply-adds
    // or ~4 MB of source rows read (a downscale is bound by fetching its rows, not by the
    // arithmetic); starting threads for less loses, badly on a busy machine: at load 3.5-15 the
    // 1080p -> 224 downscale (2.6 MB of rows, ~0.2 ms) ran 1.25-1.4x slower on 2 threads than on 1
    const int64_t rows_read = std::min<int64_t>(h, out_h * ay.K);
    const int64_t work = (rows_read * ax.K + out_h * ay.K) * out_w * c;
    const int64_t bytes = rows_read * w * c * int64_t(img.dtype() == DType::kUInt8 ? 1 : 4);
    const int nt = threads > 0 ? int(std::min<int64_t>(threads, out_h)) : thread_count(0, work / 32 + bytes / 64);
    const int64_t in_img = h * w * c, out_img = out_h * out_w * c, row = out_w * c;
    if (img.dtype() == DType::kUInt8) {
      // OpenCV's fixed point (resample_fixed.cc): int16 rows for bilinear, int32 for bicubic
      const bool cub = mode == Interp::kBicubic;
      const detail::AxisQ qx = detail::opencv_axis_q(w, out_w, cub, true);
      const detail::AxisQ qy = detail::opencv_axis_q(h, out_h, cub, false);
      const detail::HTableQ hq = detail::make_htable_q(qx, w, c);
      const size_t stride = size_t(row) + 4;  // slack for the 4-lane stores of 3-channel pixels
      for (int64_t b = 0; b < n; ++b) {
        const uint8_t* s = img.data_as<uint8_t>() + b * in_img;
        uint8_t* o = out.data_as<uint8_t>() + b * out_img;
        auto hp = [&](int64_t r, auto* dst) { detail::hpass_q(s + r * w * c, hq, dst); };
        auto pf = [&](int64_t r) {
          const uint8_t* p = s + r * w * c;
          for (int64_t i = 0; i < w * c; i += 64) __builtin_prefetch(p + i);
        };
        blocks(out_h, nt, [&](int64_t y0, int64_t y1) {
          if (cub) {
            detail::ring_rows_of<int32_t>(stride, qy.idx.data(), 4, 0, y0, y1, hp,
                                          [&](int64_t y, const int32_t* const* rows) {
                                            detail::vpass_q_cubic(rows, &qy.w[size_t(y * 4)], row, o + y * row);
                                          },
                                          pf);
          } else {
            detail::ring_rows_of<int16_t>(stride, qy.idx.data(), 2, 0, y0, y1, hp,
                                          [&](int64_t y, const int16_t* const* rows) {
                                            detail::vpass_q_linear(rows[0], rows[1], &qy.w[size_t(y * 2)], row,
                                                                   o + y * row);
                                          },
                                          pf);
          }
        });
      }
      return out;
    }
    const detail::HTable ht = detail::make_htable(ax, 0, out_w, w, c, -1, nullptr);
    for (int64_t b = 0; b < n; ++b) {
      blocks(out_h, nt, [&](int64_t y0, int64_t y1) {
        float* o = out.data_as<float>() + b * out_img;
        detail::ring_rows(img.data_as<float>() + b * in_img, w * c, ht, ay, 0, y0, y1,
                          [&](int64_t y, const float* const* rows, const float* wy) {
                            detail::vpass_f32(rows, wy, ay.K, row, 1.f, 0.f, o + y * row);
                          });
      });
    }
    return out;
  }
  // source rows read by the vertical pass, in order, and their slot in the buffer
  std::vector<int32_t> slot(size_t(h), -1), rows;
  for (size_t i = 0; i < ay.idx.size(); ++i) slot[size_t(ay.idx[i])] = 0;
  for (int64_t y = 0; y < h; ++y) {
    if (slot[size_t(y)] == 0) {
      slot[size_t(y)] = int32_t(rows.size());
      rows.push_back(int32_t(y));
    }
  }
  std::vector<float> tmp(rows.size() * size_t(out_w * c));
  const int nt_h = thread_count(threads, int64_t(rows.size()) * out_w * c * ax.K);
  const int nt_v = thread_count(threads, out_h * out_w * c * ay.K);
  const int64_t in_img = h * w * c, out_img = out_h * out_w * c;
  for (int64_t b = 0; b < n; ++b) {
    if (img.dtype() == DType::kUInt8) {
      resample_one<uint8_t>(img.data_as<uint8_t>() + b * in_img, w, c, ay, ax, out_h, out_w,
                            out.data_as<uint8_t>() + b * out_img, nt_h, nt_v, tmp, rows, slot);
    } else {
      resample_one<float>(img.data_as<float>() + b * in_img, w, c, ay, ax, out_h, out_w,
                          out.data_as<float>() + b * out_img, nt_h, nt_v, tmp, rows, slot);
    }
  }
  return out;
}

}  // namespace asc::image
