// LoadData with LoadData2DParamsV2 (include/asc/kernel/load_data_v2.h).
#include "asc/kernel/load_data_v2.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "asc/kernel/checker.h"
#include "asc/kernel/elide.h"
#include "asc/runtime/block_serial.h"
#include "asc/runtime/device.h"

namespace asc::kernel::cube {

namespace {
constexpr uint64_t kFractal = 512;
std::string num(int64_t v) { return std::to_string(v); }
// A destination in L0A / L0B may be written past its tensor up to the end of
// the core's buffer, as on the NPU (the load_data_2dv2_l12l0 sample's int8
// loop writes mStep 2 row blocks into a column of 3, the last one spilling).
uint64_t l0_room(const void* p, uint64_t have) {
  const auto* b = ::asc::runtime::current_block();
  if (!b || !b->arenas) return have;
  const auto* d = static_cast<const uint8_t*>(p);
  const auto& a = *b->arenas;
  if (d >= a.l0a && d < a.l0a + a.l0a_size) return std::max<uint64_t>(have, uint64_t(a.l0a + a.l0a_size - d));
  if (d >= a.l0b && d < a.l0b + a.l0b_size) return std::max<uint64_t>(have, uint64_t(a.l0b + a.l0b_size - d));
  return have;
}
}  // namespace

void load_data_2d_v2(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t es,
                     const AscendC::LoadData2DParamsV2& p) {
  const char* op = "LoadData";
  if (p.mStep == 0 || p.kStep == 0) return;
  if (p.srcStride < 0) {
    fail(ErrorCode::kInvalidParam, op, "LoadData2DParamsV2: a negative srcStride (" + num(p.srcStride) +
                                           ") is not supported on the CPU device");
  }
  const uint64_t ms = p.mStep, ks = p.kStep, c0 = 32 / es;
  if (p.ifTranspose) {
    if (es == 1 && ms % 2 != 0) {
      fail(ErrorCode::kInvalidParam, op, "LoadData2DParamsV2: the b8 transpose needs an even mStep, got " + num(ms));
    }
    if (es == 4 && ks % 2 != 0) {
      fail(ErrorCode::kInvalidParam, op, "LoadData2DParamsV2: the b32 transpose needs an even kStep, got " + num(ks));
    }
  }
  const uint64_t ss = static_cast<uint64_t>(p.srcStride), ds = p.dstStride;
  // Source fractal (r, c) and destination fractal indices, and the extents.
  auto src_frac = [&](uint64_t r, uint64_t c) { return (uint64_t{p.kStartPosition} + c) * ss + p.mStartPosition + r; };
  uint64_t src_max = 0;
  for (uint64_t c = 0; c < ks; ++c) src_max = std::max(src_max, src_frac(ms - 1, c));
  // Destination: NZ of (rows x cols) = (16 ms x c0 ks), or its transpose.
  const uint64_t rows = p.ifTranspose ? c0 * ks : 16 * ms, cols = p.ifTranspose ? 16 * ms : c0 * ks;
  const uint64_t dr = rows / 16, dc = cols / c0;  // destination fractal rows / columns
  uint64_t dst_max = 0;
  for (uint64_t c = 0; c < dc; ++c) dst_max = std::max(dst_max, c * ds + dr - 1);
  const uint64_t src_need = (src_max + 1) * kFractal, dst_need = (dst_max + 1) * kFractal;
  if (src_need > src_bytes) {
    fail_size(op, "bytes of the source (LoadData2DParamsV2: fractals up to (kStartPosition + kStep - 1) * "
                  "srcStride + mStartPosition + mStep of 512 bytes)", src_need, src_bytes);
  }
  if (dst_need > dst_bytes) dst_bytes = l0_room(dst, dst_bytes);
  if (dst_need > dst_bytes) {
    fail_size(op, "bytes of the destination (LoadData2DParamsV2: fractals up to (columns - 1) * dstStride + rows "
                  "of 512 bytes)", dst_need, dst_bytes);
  }
  if (check::active()) {
    check::local_operand(op, "src", src, src_need);
    check::local_operand(op, "dst", dst, dst_need);
  }
  elide::read(src, src_need);
  elide::access(dst, dst_need);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (!p.ifTranspose) {
    for (uint64_t c = 0; c < ks; ++c)
      for (uint64_t r = 0; r < ms; ++r) std::memmove(d + (c * ds + r) * kFractal, s + src_frac(r, c) * kFractal, kFractal);
    return;
  }
  // Gather the region as a row-major (16 ms) x (c0 ks) matrix first: the
  // destination may overlap nothing of it, but reading it whole keeps the
  // element loop simple.
  thread_local std::vector<uint8_t> m;
  const uint64_t R = 16 * ms, C = c0 * ks;
  m.resize(R * C * es);
  for (uint64_t r = 0; r < ms; ++r)
    for (uint64_t c = 0; c < ks; ++c) {
      const uint8_t* f = s + src_frac(r, c) * kFractal;
      for (uint64_t i = 0; i < 16; ++i) std::memcpy(&m[((r * 16 + i) * C + c * c0) * es], f + i * 32, 32);
    }
  // Element (i, j) of the transpose (rows C, cols R) = m(j, i), written NZ.
  for (uint64_t i = 0; i < C; ++i)
    for (uint64_t j = 0; j < R; ++j) {
      uint8_t* to = d + ((j / c0) * ds + i / 16) * kFractal + ((i % 16) * c0 + j % c0) * es;
      std::memcpy(to, &m[(j * C + i) * es], es);
    }
}

AscendC::LoadDataRepeatParamWithStride& load3d_stride_reg() noexcept {
  thread_local AscendC::LoadDataRepeatParamWithStride r;
  thread_local uint64_t serial = 0;
  const uint64_t now = runtime::block_serial();
  if (serial != now) {  // set by an earlier block on this thread
    serial = now;
    r = AscendC::LoadDataRepeatParamWithStride();
  }
  return r;
}

void load_data_3d_stride(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t es,
                         const Img2ColParams& p, const void* pad_value, bool dst_b2) {
  const char* op = "LoadDataWithStride";
  const AscendC::LoadDataRepeatParamWithStride reg = load3d_stride_reg();
  if (reg.repeatTime > 1) {
    fail(ErrorCode::kFeatureUnsupported, op,
         "SetLoadDataRepeatWithStride: repeatTime " + num(reg.repeatTime) + " > 1 is not supported on the CPU device");
  }
  if (p.m_ext == 0 || p.k_ext == 0) return;
  const uint64_t c0 = 32 / es, R = p.m_ext, C = p.k_ext, ds = reg.dstStride;
  // X (R x C) through the img2col of load_data_3d, as Zz in a scratch; its
  // checks (multiples of 16 / C0, the source extent) apply as they are.
  Img2ColParams q = p;
  q.transpose = false;
  thread_local std::vector<uint8_t> x;
  x.resize(R * C * es);
  load_data_3d(x.data(), x.size(), src, src_bytes, es, q, pad_value, false);
  const bool tr = dst_b2 || p.transpose;  // NZ of X^T (L0B: Zn of X)
  // Rows of the written matrix are padded to 16 (32-bit kExtension 72 -> 80
  // in the transposed forms, as the 2201 img2col does); the padding is not
  // written.
  const uint64_t rows = tr ? C : R, cols = tr ? R : C;
  const uint64_t rb = (rows + 15) / 16, cb = (cols + c0 - 1) / c0;
  if (cb > 1 && ds < rb) {
    fail(ErrorCode::kInvalidParam, op, "SetLoadDataRepeatWithStride: dstStride " + num(int64_t(ds)) +
                                           " is less than the " + num(int64_t(rb)) + " fractals of a column block");
  }
  const uint64_t need = ((cb - 1) * ds + rb) * kFractal;
  if (need > dst_bytes) dst_bytes = l0_room(dst, dst_bytes);
  if (need > dst_bytes) {
    fail_size(op, "bytes of the destination ((columns / C0 - 1) * dstStride + rows / 16 fractals of 512 bytes)", need,
              dst_bytes);
  }
  if (check::active()) check::local_operand(op, "dst", dst, need);
  elide::access(dst, need);
  auto* d = static_cast<uint8_t*>(dst);
  const uint64_t k1 = C / c0;
  if (!tr) {  // NZ of X: Zz fractal (i, j) at i * k1 + j -> j * ds + i
    for (uint64_t i = 0; i < R / 16; ++i)
      for (uint64_t j = 0; j < k1; ++j)
        std::memcpy(d + (j * ds + i) * kFractal, x.data() + (i * k1 + j) * kFractal, kFractal);
    return;
  }
  // NZ of X^T: X(i, j) becomes row j, column i.
  for (uint64_t i = 0; i < R; ++i)
    for (uint64_t j = 0; j < C; ++j) {
      const uint8_t* from = x.data() + ((i / 16) * k1 + j / c0) * kFractal + ((i % 16) * c0 + j % c0) * es;
      std::memcpy(d + ((i / c0) * ds + j / 16) * kFractal + ((j % 16) * c0 + i % c0) * es, from, es);
    }
}

}  // namespace asc::kernel::cube
