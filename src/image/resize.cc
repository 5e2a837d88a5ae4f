// Resizing and the fused classification preprocessing of asc.image
// (include/asc/image/image.h).
//
// Bilinear sampling follows OpenCV's INTER_LINEAR: source coordinate
// (dst + 0.5) * src / dst - 0.5, clamped to the image, no antialiasing. The
// fused pass never materialises the resized image: each output pixel of the
// centre crop samples the decoded image at the coordinate the resize would have
// used, then scales and normalises into planar (CHW) float32 -- through the
// vectorised separable passes of resample_simd.cc, over the crop window only.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "asc/core/status.h"
#include "asc/image/image.h"
#include "image/resample_simd.h"

namespace asc::image {
namespace {

[[noreturn]] void fail(const std::string& op, const std::string& msg, ErrorCode c) {
  throw Error(Status::Make(c, op, msg));
}

// Per output coordinate of one axis: the two source indices and the weight of the second.
struct Taps {
  std::vector<int32_t> i0, i1;
  std::vector<float> w1;
};

// Taps for output positions [first, first + count) of an axis resized from `src` to `dst`.
Taps taps(int64_t src, int64_t dst, int64_t first, int64_t count, bool bilinear) {
  Taps t;
  t.i0.resize(size_t(count));
  t.i1.resize(size_t(count));
  t.w1.resize(size_t(count));
  const double scale = double(src) / double(dst);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t o = first + k;
    if (!bilinear) {  // nearest: OpenCV's INTER_NEAREST, floor(o * scale)
      const int64_t s = std::min<int64_t>(int64_t(std::floor(double(o) * scale)), src - 1);
      t.i0[k] = t.i1[k] = int32_t(s);
      t.w1[k] = 0.f;
      continue;
    }
    double s = (double(o) + 0.5) * scale - 0.5;
    if (s < 0) s = 0;
    int64_t a = int64_t(std::floor(s));
    if (a >= src - 1) {
      a = src - 1;
      s = double(a);
    }
    t.i0[k] = int32_t(a);
    t.i1[k] = int32_t(std::min<int64_t>(a + 1, src - 1));
    t.w1[k] = float(s - double(a));
  }
  return t;
}

void check_image(const Tensor& img, const std::string& op) {
  if (img.dtype() != DType::kUInt8) {
    fail(op, std::string("expected a uint8 HWC image, got ") + dtype_name(img.dtype()), ErrorCode::kInvalidDtype);
  }
  if (img.ndim() != 3 || img.shape()[0] <= 0 || img.shape()[1] <= 0 || img.shape()[2] <= 0) {
    fail(op, "expected a non-empty HxWxC image, got shape " + Tensor::shape_str(img.shape()), ErrorCode::kInvalidShape);
  }
  if (!img.is_contiguous()) fail(op, "the image must be C-contiguous", ErrorCode::kInvalidParam);
}

}  // namespace

Tensor resize(const Tensor& img, int64_t out_h, int64_t out_w, bool bilinear) {
  const std::string op = "image.resize";
  check_image(img, op);
  if (out_h <= 0 || out_w <= 0 || out_h > (1 << 16) || out_w > (1 << 16)) {
    fail(op, "output size must be in 1..65536, got " + std::to_string(out_h) + "x" + std::to_string(out_w),
         ErrorCode::kInvalidParam);
  }
  const int64_t h = img.shape()[0], w = img.shape()[1], c = img.shape()[2];
  const Taps ty = taps(h, out_h, 0, out_h, bilinear), tx = taps(w, out_w, 0, out_w, bilinear);
  Tensor out = Tensor::empty(Shape{out_h, out_w, c}, DType::kUInt8);
  const uint8_t* s = img.data_as<uint8_t>();
  uint8_t* d = out.data_as<uint8_t>();
  for (int64_t y = 0; y < out_h; ++y) {
    const uint8_t* r0 = s + int64_t(ty.i0[y]) * w * c;
    const uint8_t* r1 = s + int64_t(ty.i1[y]) * w * c;
    const float wy = ty.w1[y];
    for (int64_t x = 0; x < out_w; ++x) {
      const int64_t a = tx.i0[x] * c, b = tx.i1[x] * c;
      const float wx = tx.w1[x];
      for (int64_t k = 0; k < c; ++k) {
        const float top = float(r0[a + k]) + wx * (float(r0[b + k]) - float(r0[a + k]));
        const float bot = float(r1[a + k]) + wx * (float(r1[b + k]) - float(r1[a + k]));
        const float v = top + wy * (bot - top);
        d[(y * out_w + x) * c + k] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
      }
    }
  }
  return out;
}

void resize_crop_normalize(const Tensor& img, const PreprocessOptions& opt, float* out) {
  const std::string op = "image.preprocess";
  check_image(img, op);
  const int64_t h = img.shape()[0], w = img.shape()[1], c = img.shape()[2];
  if (c != 3 && c != 1) fail(op, "expected 1 or 3 channels, got " + std::to_string(c), ErrorCode::kInvalidShape);
  // the resized size: shorter side = resize_short, aspect kept (torchvision's Resize(int) rounding)
  int64_t rh = h, rw = w;
  if (opt.resize_short > 0) {
    if (h <= w) {
      rh = opt.resize_short;
      rw = std::max<int64_t>(1, int64_t(double(opt.resize_short) * double(w) / double(h)));
    } else {
      rw = opt.resize_short;
      rh = std::max<int64_t>(1, int64_t(double(opt.resize_short) * double(h) / double(w)));
    }
  }
  if (opt.crop_h > rh || opt.crop_w > rw) {
    fail(op, "crop " + std::to_string(opt.crop_h) + "x" + std::to_string(opt.crop_w) + " is larger than the resized " +
                 std::to_string(rh) + "x" + std::to_string(rw) + " image", ErrorCode::kInvalidShape);
  }
  // torchvision's CenterCrop offsets: Python's round(), halves to even
  const int64_t top = int64_t(std::nearbyint(double(rh - opt.crop_h) / 2.0));
  const int64_t left = int64_t(std::nearbyint(double(rw - opt.crop_w) / 2.0));
  // per channel: out = v * mul + add with mul = scale / std, add = -mean / std
  float mul[3], add[3];
  for (int k = 0; k < 3; ++k) {
    mul[k] = opt.scale / opt.std[k];
    add[k] = -opt.mean[k] / opt.std[k];
  }
  // source channel of each output plane (gray images feed all three)
  const int64_t src_ch[3] = {0, c == 3 ? 1 : 0, c == 3 ? 2 : 0};
  // the vectorised separable resample (resample_simd.cc) over the crop window only: the
  // horizontal table writes the three planes of a row side by side (CHW), the vertical
  // pass normalises each plane as it writes it
  const detail::Axis ay = detail::opencv_axis(h, rh, Interp::kBilinear, false);
  const detail::Axis ax = detail::opencv_axis(w, rw, Interp::kBilinear, false);
  const detail::HTable ht = detail::make_htable(ax, left, opt.crop_w, w, c, 3, src_ch);
  const int64_t plane = opt.crop_h * opt.crop_w, cw = opt.crop_w;
  detail::ring_rows(img.data_as<uint8_t>(), w * c, ht, ay, top, 0, opt.crop_h,
                    [&](int64_t y, const float* const* rows, const float* wy) {
                      const float* r[2];
                      for (int k = 0; k < 3; ++k) {
                        r[0] = rows[0] + k * cw;
                        r[1] = rows[1] + k * cw;
                        detail::vpass_f32(r, wy, 2, cw, mul[k], add[k], out + k * plane + y * cw);
                      }
                    });
}

}  // namespace asc::image
