// Image decoding and classification preprocessing on the host (asc.image).
//
// JPEG through libjpeg-turbo (EXIF orientation applied, DCT-domain downscaling
// when the caller asks for a smaller image), PNG through libpng's simplified
// API. Decoded images are HWC uint8 tensors (C = 3 for RGB/BGR, 1 for gray).
// Errors: asc::Error with kInvalidFile naming the image ("[decode_jpeg] image
// 3: Premature end of JPEG file") -- libjpeg's warnings (truncated or corrupt
// data) are errors here, so a damaged file never decodes into grey blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::image {

enum class ColorMode : int { kRGB = 0, kBGR = 1, kGray = 2 };

/// One encoded image: bytes and a name for messages (file name or "image <i>").
struct Source {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string name;
};

struct DecodeOptions {
  ColorMode mode = ColorMode::kRGB;
  bool apply_exif = true;
  /// JPEG only: decode at the smallest libjpeg scale (1/8 .. 1) whose shorter side is
  /// still >= min_short_side (0: full size). Used by preprocess() before resizing.
  int64_t min_short_side = 0;
};

/// "jpeg", "png" or "" from the magic bytes.
std::string sniff(const uint8_t* data, size_t size);

Tensor decode_jpeg(const Source& src, const DecodeOptions& opt);
Tensor decode_png(const Source& src, const DecodeOptions& opt);
/// JPEG or PNG by magic; anything else is kInvalidFile.
Tensor decode_image(const Source& src, const DecodeOptions& opt);
/// Decodes every source on up to `threads` threads (0: all cores); the first
/// failure (lowest index) is rethrown after all finished.
std::vector<Tensor> decode_batch(const std::vector<Source>& srcs, const DecodeOptions& opt, int threads);

/// JPEG / PNG bytes of an HWC (or HW) uint8 image (RGB or gray).
std::vector<uint8_t> encode_jpeg(const Tensor& img, int quality);
std::vector<uint8_t> encode_png(const Tensor& img);

/// Bilinear (OpenCV's INTER_LINEAR: half-pixel centres, no antialiasing) or nearest
/// resize of an HWC uint8 image to out_h x out_w.
Tensor resize(const Tensor& img, int64_t out_h, int64_t out_w, bool bilinear);

/// Interpolation of resample(): OpenCV's INTER_NEAREST / INTER_LINEAR / INTER_CUBIC
/// (a = -0.75) / INTER_AREA (exact box average when both axes shrink).
enum class Interp : int { kNearest = 0, kBilinear = 1, kBicubic = 2, kArea = 3 };
/// Separable resize of an HWC or NHWC uint8/float32 image (src/image/resample.cc):
/// `antialias` (bilinear/bicubic only) uses Pillow's filters instead (support scaled
/// by the downscale ratio, bicubic a = -0.5); uint8 results are rounded half up,
/// within 1 LSB of the float64 formula. Rows split over `threads` (0: all cores).
Tensor resample(const Tensor& img, int64_t out_h, int64_t out_w, Interp mode, bool antialias, int threads);

struct PreprocessOptions {
  int64_t resize_short = 256;  // the shorter side after resizing (0: no resize)
  int64_t crop_h = 224, crop_w = 224;
  float mean[3] = {0.485f, 0.456f, 0.406f};
  float std[3] = {0.229f, 0.224f, 0.225f};
  float scale = 1.0f / 255.0f;  // applied before mean/std
  ColorMode mode = ColorMode::kRGB;
  bool dct_scaling = true;  // JPEG: decode at a reduced DCT scale when it covers resize_short
};

/// Classification preprocessing of one decoded HWC image into `out` (3 x crop_h x
/// crop_w float32, CHW): resize so the shorter side is resize_short, centre crop,
/// (x * scale - mean) / std -- one pass reading the source pixels directly.
void resize_crop_normalize(const Tensor& img, const PreprocessOptions& opt, float* out);

/// decode + resize_crop_normalize for a batch, in parallel: NCHW float32.
Tensor preprocess_batch(const std::vector<Source>& srcs, const PreprocessOptions& opt, bool apply_exif, int threads);

}  // namespace asc::image
