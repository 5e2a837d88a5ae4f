// JPEG (libjpeg-turbo) and PNG (libpng simplified API) decoding and encoding
// for asc.image (include/asc/image/image.h).
//
// libjpeg reports errors by calling error_exit, which must not return: it
// longjmps back to the decode call (no C++ object is created between the
// setjmp and the libjpeg calls that can jump), which then throws asc::Error.
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <jpeglib.h>
#include <png.h>

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <cstring>
#include <exception>
#include <thread>

#include "asc/core/status.h"
#include "asc/image/image.h"

namespace asc::image {
namespace {

[[noreturn]] void fail(const std::string& op, const std::string& msg, ErrorCode c = ErrorCode::kInvalidFile) {
  throw Error(Status::Make(c, op, msg));
}

// ---------------------------------------------------------------- EXIF

uint32_t rd(const uint8_t* p, bool le, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint32_t(p[le ? i : n - 1 - i]) << (8 * i);
  return v;
}

// The Orientation tag (0x0112) of IFD0 in an APP1 "Exif\0\0" payload; 1 when absent or malformed
// (a broken EXIF block does not make the picture unreadable: viewers ignore it too).
int exif_orientation(const uint8_t* p, size_t n) {
  if (n < 14 || std::memcmp(p, "Exif\0\0", 6) != 0) return 1;
  const uint8_t* t = p + 6;
  const size_t tn = n - 6;
  bool le;
  if (t[0] == 'I' && t[1] == 'I') le = true;
  else if (t[0] == 'M' && t[1] == 'M') le = false;
  else return 1;
  if (rd(t + 2, le, 2) != 42) return 1;
  // The offset comes from the file: compare in size_t so an offset near 2^32
  // cannot wrap `ifd + 2` past the bound (0xFFFFFFFF read 4 GiB past the block).
  const size_t ifd = rd(t + 4, le, 4);
  if (ifd > tn || tn - ifd < 2) return 1;
  const uint32_t count = rd(t + ifd, le, 2);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = ifd + 2 + size_t(i) * 12;
    if (e + 12 > tn) return 1;
    if (rd(t + e, le, 2) == 0x0112) {
      const uint32_t v = rd(t + e + 8, le, 2);  // SHORT, left-justified in the value field
      return (v >= 1 && v <= 8) ? int(v) : 1;
    }
  }
  return 1;
}

// Applies EXIF orientation o (2..8) to an HWC image: returns the upright image.
Tensor orient(const Tensor& img, int o) {
  const int64_t h = img.shape()[0], w = img.shape()[1], c = img.shape()[2];
  const bool swap = o >= 5;
  const int64_t oh = swap ? w : h, ow = swap ? h : w;
  Tensor out = Tensor::empty(Shape{oh, ow, c}, DType::kUInt8);
  const uint8_t* s = img.data_as<uint8_t>();
  uint8_t* d = out.data_as<uint8_t>();
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      int64_t sy, sx;  // the source pixel shown at (y, x)
      switch (o) {
        case 2: sy = y; sx = w - 1 - x; break;               // mirrored horizontally
        case 3: sy = h - 1 - y; sx = w - 1 - x; break;       // rotated 180
        case 4: sy = h - 1 - y; sx = x; break;               // mirrored vertically
        case 5: sy = x; sx = y; break;                       // transposed
        case 6: sy = h - 1 - x; sx = y; break;               // rotate 90 clockwise to view
        case 7: sy = h - 1 - x; sx = w - 1 - y; break;       // transverse
        case 8: sy = x; sx = w - 1 - y; break;               // rotate 90 counter-clockwise to view
        default: sy = y; sx = x; break;
      }
      std::memcpy(d + (y * ow + x) * c, s + (sy * w + sx) * c, size_t(c));
    }
  }
  return out;
}

// ---------------------------------------------------------------- JPEG

// The largest picture decoded: 2^30 pixels (3 GiB as RGB). Larger headers are refused up front.
constexpr int64_t kMaxPixels = int64_t(1) << 30;

struct JpegErr {
  jpeg_error_mgr mgr;
  jmp_buf jump;
  char msg[JMSG_LENGTH_MAX];
};

void on_error(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegErr*>(c->err);
  (*c->err->format_message)(c, e->msg);
  longjmp(e->jump, 1);
}

// libjpeg reports truncated / corrupt entropy data as warnings (level -1) and fills the rest
// with grey; here they stop the decode.
void on_message(j_common_ptr c, int level) {
  if (level < 0) on_error(c);
}

}  // namespace

std::string sniff(const uint8_t* p, size_t n) {
  if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "jpeg";
  if (n >= 8 && std::memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return "png";
  return "";
}

namespace {

// The libjpeg part of decode_jpeg: false (err->msg set) when libjpeg failed. Results go through
// pointers so nothing live across the setjmp can be clobbered by the longjmp.
bool jpeg_decode(const Source& src, const DecodeOptions& opt, JpegErr* err, Tensor* out, int* orientation) {
  jpeg_decompress_struct ci;
  ci.err = jpeg_std_error(&err->mgr);
  err->mgr.error_exit = on_error;
  err->mgr.emit_message = on_message;
  if (setjmp(err->jump)) {
    jpeg_destroy_decompress(&ci);
    return false;
  }
  jpeg_create_decompress(&ci);
  jpeg_mem_src(&ci, src.data, static_cast<unsigned long>(src.size));
  if (opt.apply_exif) jpeg_save_markers(&ci, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&ci, TRUE);
  if (opt.apply_exif) {
    for (jpeg_saved_marker_ptr m = ci.marker_list; m; m = m->next) {
      if (m->marker == JPEG_APP0 + 1) {
        *orientation = exif_orientation(m->data, m->data_length);
        if (*orientation != 1) break;
      }
    }
  }
  if (opt.mode == ColorMode::kGray) {
    ci.out_color_space = JCS_GRAYSCALE;
  } else {
    ci.out_color_space = opt.mode == ColorMode::kBGR ? JCS_EXT_BGR : JCS_EXT_RGB;
  }
  if (opt.min_short_side > 0) {
    // the smallest DCT scale k/8 that keeps the shorter side >= min_short_side
    const int64_t short_side = std::min<int64_t>(ci.image_width, ci.image_height);
    unsigned num = 8;
    for (unsigned k = 1; k <= 8; ++k) {
      if ((short_side * k + 7) / 8 >= opt.min_short_side) {
        num = k;
        break;
      }
    }
    ci.scale_num = num;
    ci.scale_denom = 8;
  }
  ci.dct_method = JDCT_ISLOW;
  // A header may claim up to 65500 x 65500 pixels: refuse more than kMaxPixels before libjpeg
  // allocates its row buffers or we allocate the output (as decode_png does).
  jpeg_calc_output_dimensions(&ci);
  if (int64_t(ci.output_width) * int64_t(ci.output_height) > kMaxPixels) {
    std::snprintf(err->msg, sizeof err->msg, "unsupported size %ux%u (more than 2^30 pixels)",
                  unsigned(ci.output_width), unsigned(ci.output_height));
    jpeg_destroy_decompress(&ci);
    return false;
  }
  jpeg_start_decompress(&ci);
  const int64_t channels = ci.output_components;
  try {
    *out = Tensor::empty(Shape{int64_t(ci.output_height), int64_t(ci.output_width), channels}, DType::kUInt8);
  } catch (...) {
    jpeg_destroy_decompress(&ci);  // the decoder's memory is ours to free on every way out
    throw;
  }
  uint8_t* base = out->data_as<uint8_t>();
  const size_t stride = size_t(ci.output_width) * size_t(channels);
  while (ci.output_scanline < ci.output_height) {
    JSAMPROW row = base + size_t(ci.output_scanline) * stride;
    jpeg_read_scanlines(&ci, &row, 1);
  }
  jpeg_finish_decompress(&ci);
  jpeg_destroy_decompress(&ci);
  return true;
}

}  // namespace

Tensor decode_jpeg(const Source& src, const DecodeOptions& opt) {
  const std::string op = "decode_jpeg";
  if (src.size == 0) fail(op, src.name + ": empty data");
  if (src.size > (size_t(1) << 31)) fail(op, src.name + ": larger than 2 GiB");
  JpegErr err;
  Tensor out;
  int orientation = 1;
  if (!jpeg_decode(src, opt, &err, &out, &orientation)) fail(op, src.name + ": " + err.msg);
  return orientation == 1 ? out : orient(out, orientation);
}

Tensor decode_png(const Source& src, const DecodeOptions& opt) {
  const std::string op = "decode_png";
  if (src.size == 0) fail(op, src.name + ": empty data");
  png_image im;
  std::memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&im, src.data, src.size)) {
    const std::string m = im.message;
    png_image_free(&im);
    fail(op, src.name + ": " + m);
  }
  const int channels = opt.mode == ColorMode::kGray ? 1 : 3;
  im.format = opt.mode == ColorMode::kGray ? PNG_FORMAT_GRAY : opt.mode == ColorMode::kBGR ? PNG_FORMAT_BGR
                                                                                             : PNG_FORMAT_RGB;
  const int64_t h = im.height, w = im.width;
  if (h <= 0 || w <= 0 || h * w > kMaxPixels) {
    png_image_free(&im);
    fail(op, src.name + ": unsupported size " + std::to_string(w) + "x" + std::to_string(h));
  }
  Tensor out;
  try {
    out = Tensor::empty(Shape{h, w, channels}, DType::kUInt8);
  } catch (...) {
    png_image_free(&im);  // the decoder's memory is ours to free on every way out
    throw;
  }
  if (!png_image_finish_read(&im, nullptr, out.data_as<uint8_t>(), static_cast<png_int_32>(w * channels), nullptr)) {
    const std::string m = im.message;
    png_image_free(&im);
    fail(op, src.name + ": " + m);
  }
  png_image_free(&im);
  return out;
}

Tensor decode_image(const Source& src, const DecodeOptions& opt) {
  const std::string kind = sniff(src.data, src.size);
  if (kind == "jpeg") return decode_jpeg(src, opt);
  if (kind == "png") return decode_png(src, opt);
  fail("decode_image", src.name + ": not a JPEG or PNG image (" + std::to_string(src.size) + " bytes, no known magic)");
}

// Runs fn(i) for i in [0, n) on up to `threads` threads; rethrows the lowest-index failure.
template <typename F>
void parallel_for(size_t n, int threads, F&& fn) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const size_t t = std::min<size_t>(size_t(threads), n);
  std::vector<std::exception_ptr> errs(n);
  if (t <= 1) {
    for (size_t i = 0; i < n; ++i) {
      try { fn(i); } catch (...) { errs[i] = std::current_exception(); }
    }
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    pool.reserve(t);
    for (size_t k = 0; k < t; ++k) {
      pool.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
          try { fn(i); } catch (...) { errs[i] = std::current_exception(); }
        }
      });
    }
    for (auto& th : pool) th.join();
  }
  for (auto& e : errs) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<Tensor> decode_batch(const std::vector<Source>& srcs, const DecodeOptions& opt, int threads) {
  std::vector<Tensor> out(srcs.size());
  parallel_for(srcs.size(), threads, [&](size_t i) { out[i] = decode_image(srcs[i], opt); });
  return out;
}

Tensor preprocess_batch(const std::vector<Source>& srcs, const PreprocessOptions& opt, bool apply_exif, int threads) {
  if (opt.crop_h <= 0 || opt.crop_w <= 0) {
    fail("preprocess", "crop size must be positive, got " + std::to_string(opt.crop_h) + "x" +
                           std::to_string(opt.crop_w), ErrorCode::kInvalidParam);
  }
  const int64_t n = int64_t(srcs.size());
  Tensor out = Tensor::empty(Shape{n, 3, opt.crop_h, opt.crop_w}, DType::kFloat32);
  float* base = out.data_as<float>();
  DecodeOptions dopt;
  dopt.mode = opt.mode;
  dopt.apply_exif = apply_exif;
  // the DCT scale must leave both the resize target and the crop covered
  dopt.min_short_side = opt.dct_scaling ? std::max({opt.resize_short, opt.crop_h, opt.crop_w}) : 0;
  parallel_for(srcs.size(), threads, [&](size_t i) {
    const Tensor img = decode_image(srcs[i], dopt);
    resize_crop_normalize(img, opt, base + i * size_t(3 * opt.crop_h * opt.crop_w));
  });
  return out;
}

// ---------------------------------------------------------------- encoding

namespace {
void check_u8_image(const Tensor& img, const std::string& op, int64_t* h, int64_t* w, int64_t* c) {
  if (img.dtype() != DType::kUInt8) fail(op, std::string("expected a uint8 image, got ") + dtype_name(img.dtype()),
                                         ErrorCode::kInvalidDtype);
  if (!(img.ndim() == 2 || (img.ndim() == 3 && (img.shape()[2] == 1 || img.shape()[2] == 3)))) {
    fail(op, "expected an HxW or HxWxC image with C = 1 or 3, got shape " + Tensor::shape_str(img.shape()),
         ErrorCode::kInvalidShape);
  }
  if (!img.is_contiguous()) fail(op, "the image must be C-contiguous", ErrorCode::kInvalidParam);
  *h = img.shape()[0];
  *w = img.shape()[1];
  *c = img.ndim() == 3 ? img.shape()[2] : 1;
  if (*h <= 0 || *w <= 0 || *h > 65500 || *w > 65500) {
    fail(op, "image size " + Tensor::shape_str(img.shape()) + " is outside 1..65500", ErrorCode::kInvalidShape);
  }
}
}  // namespace

std::vector<uint8_t> encode_jpeg(const Tensor& img, int quality) {
  const std::string op = "encode_jpeg";
  int64_t h, w, c;
  check_u8_image(img, op, &h, &w, &c);
  if (quality < 1 || quality > 100) fail(op, "quality must be in 1..100, got " + std::to_string(quality),
                                         ErrorCode::kInvalidParam);
  jpeg_compress_struct ci;
  JpegErr err;
  ci.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_error;
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&ci);
    std::free(buf);
    fail(op, err.msg, ErrorCode::kInternal);
  }
  jpeg_create_compress(&ci);
  jpeg_mem_dest(&ci, &buf, &size);
  ci.image_width = JDIMENSION(w);
  ci.image_height = JDIMENSION(h);
  ci.input_components = int(c);
  ci.in_color_space = c == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&ci);
  jpeg_set_quality(&ci, quality, TRUE);
  jpeg_start_compress(&ci, TRUE);
  const uint8_t* base = img.data_as<uint8_t>();
  while (ci.next_scanline < ci.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(base + size_t(ci.next_scanline) * size_t(w * c));
    jpeg_write_scanlines(&ci, &row, 1);
  }
  jpeg_finish_compress(&ci);
  jpeg_destroy_compress(&ci);
  std::vector<uint8_t> out(buf, buf + size);
  std::free(buf);
  return out;
}

std::vector<uint8_t> encode_png(const Tensor& img) {
  const std::string op = "encode_png";
  int64_t h, w, c;
  check_u8_image(img, op, &h, &w, &c);
  png_image im;
  std::memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  im.width = png_uint_32(w);
  im.height = png_uint_32(h);
  im.format = c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  png_alloc_size_t size = 0;
  const void* data = img.data();
  if (!png_image_write_to_memory(&im, nullptr, &size, 0, data, 0, nullptr)) {
    fail(op, im.message, ErrorCode::kInternal);
  }
  std::vector<uint8_t> out(size);
  if (!png_image_write_to_memory(&im, out.data(), &size, 0, data, 0, nullptr)) {
    fail(op, im.message, ErrorCode::kInternal);
  }
  out.resize(size);
  return out;
}

}  // namespace asc::image
