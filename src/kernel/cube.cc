// Cube instructions (include/asc/kernel/cube.h): validation, layout moves and
// Fixpipe; the GEMM itself is src/kernel/simd/mmad.cc.
#include "asc/kernel/cube.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "asc/kernel/atomic.h"
#include "asc/kernel/checker.h"
#include "asc/kernel/data_copy.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/simd.h"
#include "asc/runtime/block_serial.h"

namespace asc::kernel::cube {

namespace {

constexpr uint64_t kFractalBytes = 512;

std::string num(uint64_t v) { return std::to_string(v); }

[[noreturn]] void bad_param(const char* op, const std::string& detail) { fail(ErrorCode::kInvalidParam, op, detail); }

void check_bytes(const char* op, const char* what, uint64_t need, uint64_t have) {
  if (need > have) fail_size(op, what, need, have);
}

template <typename T>
void transpose16(T* dst, const T* src) {
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) dst[r * 16 + c] = src[c * 16 + r];
  }
}

// Bytes from `p` to the end of the running core's L0A or L0B when p lies in
// one of them (else `have`).
uint64_t room_in_core(const void* p, uint64_t have) {
  const auto* b = ::asc::runtime::current_block();
  if (!b || !b->arenas) return have;
  const auto* d = static_cast<const uint8_t*>(p);
  const auto& a = *b->arenas;
  if (d >= a.l0a && d < a.l0a + a.l0a_size) return uint64_t(a.l0a + a.l0a_size - d);
  if (d >= a.l0b && d < a.l0b + a.l0b_size) return uint64_t(a.l0b + a.l0b_size - d);
  if (d >= a.l0c && d < a.l0c + a.l0c_size) return uint64_t(a.l0c + a.l0c_size - d);
  return have;
}

float scale_of(uint64_t bits) {
  float f;
  const uint32_t lo = static_cast<uint32_t>(bits);
  std::memcpy(&f, &lo, 4);
  return f;
}

}  // namespace

// ---------------------------------------------------------------- LoadData

void load_data_2d(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, bool src_is_gm,
                  size_t elem_size, const AscendC::LoadData2DParams& p, const char* op, const void* gm_bound,
                  uint64_t gm_bound_bytes) {
  if (p.repeatTimes == 0) return;
  if (p.ifTranspose && elem_size != 2) {
    fail(ErrorCode::kFeatureUnsupported, op,
         "the 2D transpose supports 16-bit types (half, bfloat16_t) only, got " + num(elem_size) +
             "-byte elements");
  }
  const uint64_t rep = p.repeatTimes;
  const uint64_t src_first = uint64_t{p.startIndex} * kFractalBytes;
  const uint64_t src_extent = src_first + ((rep - 1) * p.srcStride + 1) * kFractalBytes;
  const uint64_t dst_pitch = (1 + uint64_t{p.dstGap}) * kFractalBytes;
  const uint64_t dst_extent = (rep - 1) * dst_pitch + kFractalBytes;
  // The checker's report comes before the size check's kInvalidParam.
  if (src_is_gm && check::active()) {
    check::gm_access(op, gm_bound, gm_bound_bytes, static_cast<const uint8_t*>(src) + src_first,
                     static_cast<uint32_t>(rep), kFractalBytes, uint64_t{p.srcStride} * kFractalBytes, false);
  }
  if (!src_is_gm || src_bytes != 0) {
    check_bytes(op, "bytes of the source (startIndex + (repeatTimes-1)*srcStride + 1 fractals of 512 bytes)",
                src_extent, src_bytes);
  }
  check_bytes(op, "bytes of the destination (repeatTimes fractals of 512 bytes plus dstGap)", dst_extent, dst_bytes);
  if (check::active()) {  // local operands in freed queue buffers
    check::local_operand(op, "dst", dst, dst_extent);
    if (!src_is_gm) check::local_operand(op, "src", static_cast<const uint8_t*>(src) + src_first, src_extent - src_first);
  }
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  if (src_is_gm) {
    ::asc::kernel::detail::count_gm_bytes(rep * kFractalBytes);
  } else {
    elide::read(s + src_first, src_extent - src_first);
  }
  if (p.dstGap == 0) {
    elide::write(d, dst_extent);
  } else {
    elide::access(d, dst_extent);
  }
  if (!p.ifTranspose && p.srcStride == 1 && p.dstGap == 0) {
    std::memmove(d, s + src_first, rep * kFractalBytes);  // consecutive fractals: one block copy
    return;
  }
  for (uint64_t r = 0; r < rep; ++r) {
    const uint8_t* sf = s + src_first + r * p.srcStride * kFractalBytes;
    uint8_t* df = d + r * dst_pitch;
    if (p.ifTranspose) {
      transpose16(reinterpret_cast<uint16_t*>(df), reinterpret_cast<const uint16_t*>(sf));
    } else {
      std::memmove(df, sf, kFractalBytes);
    }
  }
}

void int4_no_transpose(const char* op, bool transpose) {
  if (transpose) {
    fail(ErrorCode::kFeatureUnsupported, op,
         "the transposing load of int4b_t (64 x 64 squares) is not implemented on the CPU device");
  }
}

// ---------------------------------------------------------------- LoadDataWithTranspose

namespace {

// One square of a transposing load, in elements of `bits` bits: the source
// square S (side n) is read, its transpose T = S^T written. For 4/8/16 bits
// the square is n = 32 B * 8 / bits rows of n elements, fractal j holding
// rows 16j..16j+15 (of S in the source, of T in the destination). For 32 bits
// it is 16 x 16 and fractal j holds columns 8j..8j+7 as 16 rows of 8.
// dst_frac[j] points at destination fractal j (dstFracGap apart).
template <typename Get, typename Set>
void transpose_square(int bits, Get get, Set set, uint64_t src_base, const uint64_t* dst_frac) {
  if (bits == 32) {
    for (int r = 0; r < 16; ++r) {      // row of T
      for (int c = 0; c < 16; ++c) {    // column of T
        const uint64_t s_el = uint64_t(r / 8) * 128 + uint64_t(c) * 8 + uint64_t(r % 8);  // S[c][r]
        set(dst_frac[c / 8] + uint64_t(r) * 8 + uint64_t(c % 8), get(src_base + s_el));
      }
    }
    return;
  }
  const int n = 256 / bits;  // 64, 32, 16 elements per 32-byte row
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      set(dst_frac[r / 16] + uint64_t(r % 16) * n + uint64_t(c), get(src_base + uint64_t(c) * n + uint64_t(r)));
    }
  }
}

}  // namespace

void load_data_2d_transpose(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, int elem_bits,
                            const AscendC::LoadData2dTransposeParams& p, const char* op) {
  if (elem_bits != 4 && elem_bits != 8 && elem_bits != 16 && elem_bits != 32) {
    fail(ErrorCode::kInvalidDtype, op, "takes 4-, 8-, 16- or 32-bit elements, got " + num(elem_bits) + " bits");
  }
  if (p.repeatTimes == 0) return;  // CANN: a NOP
  // Fractals per square: int4 4 (64 x 64), int8 2 (32 x 32), 16-bit 1, 32-bit 2 (16 x 16).
  const uint64_t fracs = elem_bits == 4 ? 4 : elem_bits == 16 ? 1 : 2;
  const uint64_t square = fracs * kFractalBytes;
  const uint64_t rep = p.repeatTimes;
  const uint64_t first = uint64_t{p.startIndex};
  const uint64_t walk = (rep - 1) * p.srcStride;  // squares between the first and the last repeat
  if (p.addrMode != 0 && walk > first) {
    bad_param(op, "addrMode 1 walks the source backwards past its start: startIndex " + num(first) +
                      " < (repeatTimes-1)*srcStride " + num(walk));
  }
  const uint64_t lo_sq = p.addrMode != 0 ? first - walk : first;
  const uint64_t src_lo = lo_sq * square;
  const uint64_t src_hi = (lo_sq + walk + 1) * square;
  const uint64_t dst_pitch = (1 + uint64_t{p.dstGap}) * kFractalBytes;
  const uint64_t frac_pitch = (1 + uint64_t{p.dstFracGap}) * kFractalBytes;
  const uint64_t dst_extent = (rep - 1) * dst_pitch + (fracs - 1) * frac_pitch + kFractalBytes;
  check_bytes(op,
              fracs == 1 ? "bytes of the source ((startIndex + (repeatTimes-1)*srcStride + 1) squares of 512 bytes)"
                         : "bytes of the source ((startIndex + (repeatTimes-1)*srcStride + 1) squares of 2 or 4 "
                           "fractals of 512 bytes)",
              src_hi, src_bytes);
  check_bytes(op, "bytes of the destination (repeats dstGap apart, fractals dstFracGap apart)", dst_extent,
              dst_bytes);
  if (check::active()) {
    check::local_operand(op, "dst", dst, dst_extent);
    check::local_operand(op, "src", static_cast<const uint8_t*>(src) + src_lo, src_hi - src_lo);
  }
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  elide::read(s + src_lo, src_hi - src_lo);
  elide::access(d, dst_extent);  // gaps keep their bytes
  // CANN requires the transposed fractals not to overlap: each square goes
  // through a copy so that an overlap is at least deterministic.
  const uint64_t el_per_frac = kFractalBytes * 8 / elem_bits;
  std::vector<uint8_t> tmp(square);
  for (uint64_t r = 0; r < rep; ++r) {
    const uint64_t sq = p.addrMode != 0 ? first - r * p.srcStride : first + r * p.srcStride;
    std::memcpy(tmp.data(), s + sq * square, square);
    uint64_t dst_frac[4];
    for (uint64_t j = 0; j < fracs; ++j) dst_frac[j] = (r * dst_pitch + j * frac_pitch) / kFractalBytes * el_per_frac;
    const uint8_t* t = tmp.data();
    switch (elem_bits) {
      case 4:  // element 2i in the low nibble of byte i (CANN's int4b_t packing)
        transpose_square(
            4, [t](uint64_t i) { return uint8_t((t[i / 2] >> ((i & 1) * 4)) & 0xF); },
            [d](uint64_t i, uint8_t v) {
              const int sh = int(i & 1) * 4;
              d[i / 2] = uint8_t((d[i / 2] & ~(0xF << sh)) | (v << sh));
            },
            0, dst_frac);
        break;
      case 8:
        transpose_square(8, [t](uint64_t i) { return t[i]; }, [d](uint64_t i, uint8_t v) { d[i] = v; }, 0, dst_frac);
        break;
      case 16:
        transpose_square(
            16, [t](uint64_t i) { uint16_t v; std::memcpy(&v, t + i * 2, 2); return v; },
            [d](uint64_t i, uint16_t v) { std::memcpy(d + i * 2, &v, 2); }, 0, dst_frac);
        break;
      default:
        transpose_square(
            32, [t](uint64_t i) { uint32_t v; std::memcpy(&v, t + i * 4, 4); return v; },
            [d](uint64_t i, uint32_t v) { std::memcpy(d + i * 4, &v, 4); }, 0, dst_frac);
        break;
    }
  }
}

// ---------------------------------------------------------------- Mmad of int4b_t

void mmad_s4(void* c, uint64_t c_bytes, const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes,
             const void* bias, uint64_t bias_bytes, const AscendC::MmadParams& p) {
  const char* op = "Mmad";
  if (p.m > 4095 || p.n > 4095 || p.k > 4095) {
    bad_param(op, "m, n and k must be <= 4095, got m=" + num(p.m) + " n=" + num(p.n) + " k=" + num(p.k));
  }
  if (p.m == 0 || p.n == 0) return;
  // int4b_t fractals are 16 rows of C0 = 64 elements (32 bytes); the int8
  // copies have C0 = 32, so twice as many k-fractals.
  const int64_t m1 = ceil_div(p.m, 16), n1 = ceil_div(p.n, 16);
  const int64_t k1_4 = ceil_div(p.k, 64), k1_8 = ceil_div(p.k, 32);
  const uint64_t a_need = uint64_t(m1 * k1_4) * kFractalBytes;
  const uint64_t b_need = uint64_t(k1_4 * n1) * kFractalBytes;
  check_bytes(op, "bytes of fm (ceil(m/16) x ceil(k/64) int4b_t fractals of 512 bytes)", a_need, a_bytes);
  check_bytes(op, "bytes of filter (ceil(k/64) x ceil(n/16) int4b_t fractals of 512 bytes)", b_need, b_bytes);
  if (check::active()) {
    check::local_operand(op, "fm", a, a_need);
    check::local_operand(op, "filter", b, b_need);
  }
  elide::read(a, a_need);
  elide::read(b, b_need);
  std::vector<int8_t> a8(static_cast<size_t>(m1 * k1_8) * kFractalBytes, 0);
  std::vector<int8_t> b8(static_cast<size_t>(k1_8 * n1) * kFractalBytes, 0);
  for (int64_t i = 0; i < 16 * m1; ++i) {
    for (int64_t kk = 0; kk < p.k; ++kk) a8[zz_offset(i, kk, k1_8, 32)] = int4_get(a, zz_offset(i, kk, k1_4, 64));
  }
  for (int64_t kk = 0; kk < p.k; ++kk) {
    for (int64_t j = 0; j < 16 * n1; ++j) b8[zn_offset(kk, j, n1, 32)] = int4_get(b, zn_offset(kk, j, n1, 64));
  }
  mmad(c, c_bytes, DType::kInt32, a8.data(), a8.size(), DType::kInt8, b8.data(), b8.size(), DType::kInt8, bias,
       bias_bytes, p);
}

// ---------------------------------------------------------------- ND -> NZ

void nd2nz(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t elem_size,
           const AscendC::Nd2NzParams& p, const void* gm_bound, uint64_t gm_bound_bytes) {
  const char* op = "DataCopy";
  if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;
  if (p.srcDValue < p.dValue) {
    bad_param(op, "Nd2NzParams: srcDValue (" + num(p.srcDValue) + ") must be >= dValue (" + num(p.dValue) +
                      "): source rows would overlap");
  }
  if (p.dstNzNStride == 0) bad_param(op, "Nd2NzParams: dstNzNStride must be >= 1");
  const uint64_t e = elem_size;
  const uint64_t c0 = 32 / e;
  const uint64_t blocks = (p.dValue + c0 - 1) / c0;
  const uint64_t src_elems =
      uint64_t(p.ndNum - 1) * p.srcNdMatrixStride + uint64_t(p.nValue - 1) * p.srcDValue + p.dValue;
  const uint64_t dst_elems = uint64_t(p.ndNum - 1) * p.dstNzMatrixStride + (blocks - 1) * p.dstNzC0Stride * c0 +
                             uint64_t(p.nValue - 1) * p.dstNzNStride * c0 + c0;
  if (check::active()) {
    // ndNum matrices of nValue rows of dValue elements, srcDValue apart.
    for (uint64_t m = 0; m < p.ndNum; ++m) {
      check::gm_access(op, gm_bound, gm_bound_bytes, static_cast<const uint8_t*>(src) + m * p.srcNdMatrixStride * e,
                       p.nValue, uint64_t{p.dValue} * e, uint64_t{p.srcDValue} * e, false);
    }
  }
  if (src_bytes != 0) check_bytes(op, "bytes of the GlobalTensor (Nd2NzParams source extent)", src_elems * e, src_bytes);
  check_bytes(op, "bytes of the LocalTensor (Nd2NzParams NZ extent)", dst_elems * e, dst_bytes);
  if (check::active()) check::local_operand(op, "dst", dst, dst_elems * e);
  elide::access(dst, dst_elems * e);
  ::asc::kernel::detail::count_gm_bytes(uint64_t{p.ndNum} * p.nValue * p.dValue * e);
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  const uint64_t full = p.dValue / c0;  // whole 32-byte blocks per row
  const uint64_t tail = (p.dValue % c0) * e;
  const uint64_t dst_block_pitch = uint64_t{p.dstNzC0Stride} * 32;
  // Row by row; the destination is a small buffer that stays in cache. The
  // source rows come from GM, often one page apart (a 1024-float row is 4
  // KiB), where the hardware prefetchers do not follow: each row's lines are
  // prefetched kAhead rows in advance so that their misses overlap.
  constexpr uint64_t kAhead = 8;
  const uint64_t row_bytes = uint64_t{p.dValue} * e;
  for (uint64_t m = 0; m < p.ndNum; ++m) {
    for (uint64_t r = 0; r < p.nValue; ++r) {
      const uint8_t* srow = s + (m * p.srcNdMatrixStride + r * p.srcDValue) * e;
      if (r + kAhead < p.nValue) {
        const uint8_t* ahead = srow + kAhead * p.srcDValue * e;
        for (uint64_t o = 0; o < row_bytes; o += 64) __builtin_prefetch(ahead + o);
        __builtin_prefetch(ahead + row_bytes - 1);
      }
      uint8_t* drow = d + (m * p.dstNzMatrixStride + r * p.dstNzNStride * c0) * e;
      // Constant-size copies compile to two vector moves (no libc call per block).
      for (uint64_t b = 0; b < full; ++b) std::memcpy(drow + b * dst_block_pitch, srow + b * 32, 32);
      if (tail != 0) {
        uint8_t* db = drow + full * dst_block_pitch;
        std::memcpy(db, srow + full * 32, tail);
        std::memset(db + tail, 0, 32 - tail);
      }
    }
  }
}

// ---------------------------------------------------------------- Mmad

void mmad(void* c, uint64_t c_bytes, DType c_dtype, const void* a, uint64_t a_bytes, DType a_dtype, const void* b,
          uint64_t b_bytes, DType b_dtype, const void* bias, uint64_t bias_bytes, const AscendC::MmadParams& p,
          bool a_nz) {
  const char* op = "Mmad";
  const bool float_pair = (a_dtype == DType::kFloat16 || a_dtype == DType::kBFloat16 || a_dtype == DType::kFloat32) &&
                          c_dtype == DType::kFloat32;
  const bool int_pair = a_dtype == DType::kInt8 && c_dtype == DType::kInt32;
  if (a_dtype != b_dtype || !(float_pair || int_pair)) {
    fail(ErrorCode::kInvalidDtype, op,
         std::string("unsupported types: dst ") + dtype_name(c_dtype) + ", fm " + dtype_name(a_dtype) + ", filter " +
             dtype_name(b_dtype) +
             " (supported: half x half -> float, bfloat16 x bfloat16 -> float, float x float -> float, "
             "int8 x int8 -> int32)");
  }
  if (p.m > 4095 || p.n > 4095 || p.k > 4095) {
    bad_param(op, "m, n and k must be <= 4095, got m=" + num(p.m) + " n=" + num(p.n) + " k=" + num(p.k));
  }
  const bool wants_bias = p.cmatrixSource || p.isBias;
  if (wants_bias && bias == nullptr) {
    bad_param(op, "cmatrixSource/isBias take the initial C from a bias: use Mmad(dst, fm, filter, bias, params)");
  }
  if (p.m == 0 || p.n == 0) return;
  const int64_t c0 = c0_of(dtype_size(a_dtype));
  const int64_t m1 = ceil_div(p.m, 16);
  const int64_t n1 = ceil_div(p.n, 16);
  const int64_t k1 = ceil_div(p.k, c0);
  // kDirectionAlign (float only, CANN's "K-direction alignment"): each 16-row
  // block of A in L0A holds ceil(k/16)*2 fractals of 16 x 8 (the transposing
  // loads align k to 16) and the cube unit skips the padding fractal, so the
  // distance between row blocks is that, not ceil(k/8). B's k fractals are
  // its outer index (Zn): nothing to skip there.
  const int64_t a_ld = (p.kDirectionAlign && a_dtype == DType::kFloat32) ? 2 * ceil_div(p.k, 16) : k1;
  // GEMV (CANN: m = 1 without disableGemv): the cube unit reads A from L0A as
  // a 1 x k ND vector, k elements one after the other, not as Zz fractals.
  const bool gemv = p.m == 1 && !p.disableGemv;
  // NZ A (dav-3510): k column j's row blocks one after the other, m1 apart.
  const bool nz_a = a_nz && !gemv;
  const uint64_t a_need = gemv   ? uint64_t{p.k} * dtype_size(a_dtype)
                          : nz_a ? uint64_t(m1 * k1) * kFractalBytes
                                 : uint64_t((m1 - 1) * a_ld + k1) * kFractalBytes;
  const uint64_t b_need = uint64_t(k1 * n1) * kFractalBytes;
  const uint64_t c_need = uint64_t(m1 * n1) * 256 * 4;
  // CANN's samples size L0A / L0B tensors by element count (e.g. 70 x 64
  // floats for k = 70), while the cube unit reads whole fractals: the last
  // fractals may reach past the tensor into the core's physical L0A / L0B, as
  // on the NPU. A tensor that holds the logical m x k (k x n) elements is
  // checked against the end of that memory instead; a shorter one is an error.
  const uint64_t esz = dtype_size(a_dtype);
  if (a_bytes >= uint64_t{p.m} * p.k * esz) a_bytes = std::max(a_bytes, room_in_core(a, a_bytes));
  if (b_bytes >= uint64_t{p.k} * p.n * esz) b_bytes = std::max(b_bytes, room_in_core(b, b_bytes));
  // Likewise C: int8 samples pass n aligned to 32 (the transposing int8 loads
  // leave a 32-column padding) with C sized for n aligned to 16 (the mmad
  // sample's scenario 1: 30 x 64 into a 32 x 48 tensor); the cube unit writes
  // that last fractal column into the rest of L0C. One column at most.
  if (n1 > 1 && c_bytes >= uint64_t(m1 * (n1 - 1)) * 1024) c_bytes = std::max(c_bytes, room_in_core(c, c_bytes));
  check_bytes(op,
              gemv        ? "bytes of fm (GEMV, m = 1: k elements)"
              : nz_a      ? "bytes of fm (NZ on dav-3510: ceil(m/16) x ceil(k/C0) fractals of 512 bytes)"
              : a_ld == k1 ? "bytes of fm (ceil(m/16) x ceil(k/C0) fractals of 512 bytes)"
                         : "bytes of fm (ceil(m/16) x 2*ceil(k/16) fractals of 512 bytes: kDirectionAlign)",
              a_need, a_bytes);
  check_bytes(op, "bytes of filter (ceil(k/C0) x ceil(n/16) fractals of 512 bytes)", b_need, b_bytes);
  check_bytes(op, "bytes of dst (ceil(m/16) x ceil(n/16) fractals of 16 x 16)", c_need, c_bytes);
  const bool use_bias = wants_bias;
  if (use_bias) check_bytes(op, "bytes of bias (n elements)", uint64_t{p.n} * 4, bias_bytes);
  if (check::active()) {  // operands in freed queue buffers
    check::local_operand(op, "fm", a, a_need);
    check::local_operand(op, "filter", b, b_need);
    check::local_operand(op, "dst", c, c_need);
    if (use_bias) check::local_operand(op, "bias", bias, uint64_t{p.n} * 4);
  }
  elide::read(a, a_need);
  elide::read(b, b_need);
  const bool accumulate = use_bias || !p.cmatrixInitVal;
  if (use_bias) {
    elide::read(bias, uint64_t{p.n} * 4);
    elide::write(c, c_need);
    // Every row of the padded C starts as the bias row (0 in padding columns).
    auto* cw = static_cast<uint32_t*>(c);
    const auto* bw = static_cast<const uint32_t*>(bias);
    const int64_t mpad = 16 * m1;
    for (int64_t j = 0; j < 16 * n1; ++j) {
      const uint32_t v = j < p.n ? bw[j] : 0u;
      uint32_t* col = cw + (j / 16) * mpad * 16 + j % 16;
      for (int64_t i = 0; i < mpad; ++i) col[i * 16] = v;
    }
  } else if (accumulate) {
    elide::access(c, c_need);
  } else {
    elide::write(c, c_need);
  }
  if (nz_a) {
    // The gemm engine reads Zz: reorder the fractals (row block i, k column j:
    // NZ j * m1 + i -> Zz i * k1 + j) into a scratch.
    thread_local std::vector<uint8_t> zz;
    zz.resize(a_need);
    const auto* an = static_cast<const uint8_t*>(a);
    for (int64_t i = 0; i < m1; ++i)
      for (int64_t j = 0; j < k1; ++j)
        std::memcpy(zz.data() + (i * k1 + j) * kFractalBytes, an + (j * m1 + i) * kFractalBytes, kFractalBytes);
    a = zz.data();
  }
  const int64_t lda = nz_a ? k1 : a_ld;
  const Operand oa = gemv ? Operand{a, a_dtype, Layout::kRowMajor, p.k, 1} : Operand{a, a_dtype, Layout::kFractal, lda, 0};
  Operand ob{b, b_dtype, Layout::kFractal, n1, 0};
  gemm(p.m, p.n, p.k, oa, ob, c, c_dtype, 16 * m1 * 16, accumulate);
}

// ---------------------------------------------------------------- Fixpipe

void fixpipe(void* dst, uint64_t dst_bytes, DType dst_dtype, bool dst_is_gm, const void* src, uint64_t src_bytes,
             DType src_dtype, const AscendC::FixpipeParamsV220& p, AscendC::CO2Layout layout, const uint64_t* scales,
             uint64_t scales_count, const char* check_op, const void* gm_bound, uint64_t gm_bound_bytes) {
  using AscendC::QuantMode_t;
  const char* op = "Fixpipe";
  if (layout != AscendC::CO2Layout::ROW_MAJOR && layout != AscendC::CO2Layout::NZ) {
    fail(ErrorCode::kFeatureUnsupported, op, "only the ND (CFG_ROW_MAJOR) and NZ (CFG_NZ) outputs are supported");
  }
  const bool nz = layout == AscendC::CO2Layout::NZ;
  if (p.ndNum > 1) fail(ErrorCode::kFeatureUnsupported, op, "ndNum > 1 is not supported, got " + num(p.ndNum));
  // The destination type each quantisation mode produces from each source.
  DType want_src = DType::kFloat32, want_dst = DType::kFloat32;
  const char* mode = "NoQuant";
  bool per_channel = false;
  switch (p.quantPre) {
    case QuantMode_t::NoQuant:
      want_src = want_dst = src_dtype == DType::kInt32 ? DType::kInt32 : DType::kFloat32;
      break;
    case QuantMode_t::F322F16: want_dst = DType::kFloat16; mode = "F322F16"; break;
    case QuantMode_t::F322BF16: want_dst = DType::kBFloat16; mode = "F322BF16"; break;
    case QuantMode_t::VDEQF16: per_channel = true; [[fallthrough]];
    case QuantMode_t::DEQF16:
      want_src = DType::kInt32;
      want_dst = DType::kFloat16;
      mode = per_channel ? "VDEQF16" : "DEQF16";
      break;
    case QuantMode_t::VQF322B8_PRE: per_channel = true; [[fallthrough]];
    case QuantMode_t::QF322B8_PRE:
      want_dst = DType::kInt8;
      mode = per_channel ? "VQF322B8_PRE" : "QF322B8_PRE";
      break;
    case QuantMode_t::VREQ8: per_channel = true; [[fallthrough]];
    case QuantMode_t::REQ8:
      want_src = DType::kInt32;
      want_dst = DType::kInt8;
      mode = per_channel ? "VREQ8" : "REQ8";
      break;
    default: bad_param(op, "unknown quantPre " + num(static_cast<uint64_t>(p.quantPre)));
  }
  if (src_dtype != want_src || dst_dtype != want_dst) {
    fail(ErrorCode::kInvalidDtype, op,
         std::string("quantPre ") + mode + " converts " + dtype_name(want_src) + " to " + dtype_name(want_dst) +
             ", got src " + dtype_name(src_dtype) + " and dst " + dtype_name(dst_dtype));
  }
  if (p.mSize == 0 || p.nSize == 0) return;
  if (per_channel && (scales == nullptr || scales_count < p.nSize)) {
    bad_param(op, std::string(mode) + " needs nSize (" + num(p.nSize) + ") per-column parameters in cbufWorkspace, got " +
                      num(scales ? scales_count : 0));
  }
  const uint64_t de = dtype_size(dst_dtype);
  // NZ output: c columns per fractal column, fractal columns dstStride
  // 32-byte units apart. int8 destinations merge channels (CANN's "Int8
  // Channel Merge", always on): two 16-column fractals become one of 16 x 32,
  // and with an odd number of them the last stays 16 wide.
  const uint64_t nz_c = de == 1 ? 32 : (p.isChannelSplit && de == 4) ? 8 : 16;
  const uint64_t nz_col = nz ? uint64_t{p.dstStride} * 32 / de : 0;
  const uint64_t nz_groups = nz ? (p.nSize + nz_c - 1) / nz_c : 0;
  const uint64_t nz_last = nz && nz_groups ? p.nSize - (nz_groups - 1) * nz_c : 0;  // width of the last group
  if (nz) {
    const uint64_t unit = de == 1 ? 16 : nz_c;
    if (p.nSize % unit != 0) {
      bad_param(op, "the NZ output needs nSize (" + num(p.nSize) + ") to be a multiple of " + num(unit));
    }
    if (p.nSize > nz_c && nz_col < uint64_t{p.mSize} * nz_c) {
      bad_param(op, "dstStride (" + num(p.dstStride) + " x 32 bytes between NZ fractal columns) leaves no room for " +
                        num(p.mSize) + " rows of " + num(nz_c) + " elements");
    }
  } else if (p.dstStride < p.nSize) {
    bad_param(op, "dstStride (" + num(p.dstStride) + ") must be >= nSize (" + num(p.nSize) + ")");
  }
  const uint64_t n1 = (p.nSize + 15) / 16;
  if (n1 > 1 && p.srcStride < p.mSize) {
    bad_param(op, "srcStride (" + num(p.srcStride) + " rows between NZ fractal columns) must be >= mSize (" +
                      num(p.mSize) + ")");
  }
  const uint64_t src_need = ((n1 - 1) * p.srcStride * 16 + uint64_t{p.mSize} * 16) * 4;
  check_bytes(op, "bytes of the L0C source", src_need, src_bytes);
  if (check::active()) check::local_operand(check_op ? check_op : op, "src", src, src_need);
  const uint64_t dst_need = nz ? ((nz_groups - 1) * nz_col + uint64_t{p.mSize} * nz_last) * de
                               : (uint64_t(p.mSize - 1) * p.dstStride + p.nSize) * de;
  // What reaches GM: ND, mSize rows dstStride apart; NZ, the fractal columns
  // of mSize x c elements (the last one mSize x nz_last), dstStride apart.
  // `bursts` uniform bursts, then for a narrower last NZ group one more.
  const bool narrow_last = nz && nz_last != nz_c;
  const uint32_t bursts = nz ? static_cast<uint32_t>(nz_groups - (narrow_last ? 1 : 0)) : p.mSize;
  const uint64_t burst = nz ? uint64_t{p.mSize} * nz_c * de : uint64_t{p.nSize} * de;
  const uint64_t pitch = nz ? nz_col * de : uint64_t{p.dstStride} * de;
  uint8_t* const last_dst = narrow_last ? static_cast<uint8_t*>(dst) + (nz_groups - 1) * nz_col * de : nullptr;
  const uint64_t last_burst = uint64_t{p.mSize} * nz_last * de;
  // As on the NPU, SetAtomicAdd/Max/Min applies to Fixpipe's GM writes too.
  const bool atomic_write = dst_is_gm && atomic::maybe_active() && atomic::current().op != atomic::Op::kNone;
  if (dst_is_gm && check_op && check::active()) {
    if (bursts) check::gm_access(check_op, gm_bound, gm_bound_bytes, dst, bursts, burst, pitch, true, atomic_write);
    if (narrow_last) {
      check::gm_access(check_op, gm_bound, gm_bound_bytes, last_dst, 1, last_burst, last_burst, true, atomic_write);
    }
  }
  if (!dst_is_gm || dst_bytes != 0) check_bytes(op, "bytes of the destination", dst_need, dst_bytes);
  if (!dst_is_gm && check::active()) check::local_operand(op, "dst", dst, dst_need);
  if (atomic_write) {
    // Convert into a scratch laid out like the destination, then combine it
    // into GM burst by burst.
    // (The nested call writes local memory, so it never gets here.)
    thread_local std::vector<uint8_t> staged;
    staged.resize(dst_need);
    fixpipe(staged.data(), dst_need, dst_dtype, false, src, src_bytes, src_dtype, p, layout, scales, scales_count);
    if (bursts) atomic::store(check_op ? check_op : op, dst, staged.data(), bursts, burst, pitch, pitch);
    if (narrow_last) {
      atomic::store(check_op ? check_op : op, last_dst, staged.data() + (last_dst - static_cast<uint8_t*>(dst)), 1,
                    last_burst, last_burst, last_burst);
    }
    return;
  }
  elide::read(src, src_need);
  if (dst_is_gm) {
    elide::gm_write(dst, dst_need);
    ::asc::kernel::detail::count_gm_bytes(uint64_t{p.mSize} * p.nSize * de);
  } else {
    elide::access(dst, dst_need);
  }

  thread_local std::vector<uint32_t> row_buf;
  thread_local std::vector<float> scaled;
  const size_t n = p.nSize;
  row_buf.resize(n);
  scaled.resize(n);
  const auto* s = static_cast<const uint32_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  const float scalar_scale = scale_of(p.deqScalar);
  // Row i of the source, converted (ReLU, quantisation) into n elements at `out`.
  auto convert_row = [&](uint8_t* out, uint64_t i) {
    for (uint64_t jb = 0; jb < n1; ++jb) {
      const uint64_t cnt = std::min<uint64_t>(16, n - jb * 16);
      std::memcpy(row_buf.data() + jb * 16, s + jb * p.srcStride * 16 + i * 16, cnt * 4);
    }
    if (p.reluEn) simd::unary(simd::UnaryOp::kRelu, src_dtype, row_buf.data(), row_buf.data(), n);
    if (p.quantPre == QuantMode_t::NoQuant) {
      std::memcpy(out, row_buf.data(), n * 4);
      return;
    }
    const void* from = row_buf.data();
    if (src_dtype == DType::kInt32 || p.quantPre == QuantMode_t::QF322B8_PRE ||
        p.quantPre == QuantMode_t::VQF322B8_PRE) {
      // Scaled modes: value * scale in float32, then rounded to the destination.
      for (size_t j = 0; j < n; ++j) {
        const float v = src_dtype == DType::kInt32 ? static_cast<float>(static_cast<int32_t>(row_buf[j]))
                                                   : ::asc::detail::bits_float(row_buf[j]);
        scaled[j] = v * (per_channel ? scale_of(scales[j]) : scalar_scale);
      }
      from = scaled.data();
    }
    simd::cast(dst_dtype, DType::kFloat32, RoundMode::CAST_RINT, out, from, n);
  };
  const bool direct = !p.reluEn && p.quantPre == QuantMode_t::NoQuant;
  thread_local std::vector<uint8_t> nz_row;
  if (nz) nz_row.resize(n * de);
  for (uint64_t i = 0; i < p.mSize; ++i) {
    if (nz) {
      // Convert the row into a scratch, then place its c-column groups.
      convert_row(nz_row.data(), i);
      for (uint64_t jb = 0; jb < nz_groups; ++jb) {
        const uint64_t w = jb + 1 == nz_groups ? nz_last : nz_c;
        std::memcpy(d + (jb * nz_col + i * w) * de, nz_row.data() + jb * nz_c * de, w * de);
      }
      continue;
    }
    uint8_t* drow = d + i * p.dstStride * de;
    if (direct) {
      // Straight from the fractals into the row (constant 64-byte copies).
      for (uint64_t jb = 0; jb < n / 16; ++jb) std::memcpy(drow + jb * 64, s + jb * p.srcStride * 16 + i * 16, 64);
      if (n % 16) std::memcpy(drow + (n / 16) * 64, s + (n / 16) * p.srcStride * 16 + i * 16, (n % 16) * 4);
      continue;
    }
    convert_row(drow, i);
  }
}

// ---------------------------------------------------------------- LoadData 3D (img2col)

void load_data_3d(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t elem_size,
                  const Img2ColParams& p, const void* pad_value, bool dst_zn) {
  const char* op = "LoadData";
  if (p.small_k) fail(ErrorCode::kFeatureUnsupported, op, "LoadData3DParamsV2: enSmallK is not supported");
  const uint64_t e = elem_size;
  const uint64_t c0 = 32 / e;
  if (p.transpose && e != 2 && e != 4) {
    // CANN documents enTranspose for 16- and 32-bit types (A2/A3).
    fail(ErrorCode::kFeatureUnsupported, op,
         "LoadData3DParamsV2: enTranspose takes 16- or 32-bit types (half, bfloat16_t, float, int32_t), got " +
             num(e * 8) + "-bit elements");
  }
  if (p.m_ext == 0 || p.k_ext == 0) return;
  // 16-bit: each 16 x 16 fractal is transposed, so kExtension is a multiple
  // of 16. 32-bit: squares of two 16 x 8 fractals (16 x 16) are transposed;
  // a kExtension that is a multiple of 8 only is padded to 16 and the
  // padding is not written (the documented reference, load3d.py of the
  // mmad_load3dv2 sample).
  if (p.transpose && ((e == 2 && p.k_ext % 16 != 0) || p.m_ext % c0 != 0)) {
    bad_param(op, "LoadData3DParamsV2 with enTranspose: kExtension (" + num(p.k_ext) +
                      ") must be a multiple of 16 and mExtension (" + num(p.m_ext) + ") of C0 = " + num(c0));
  }
  if (p.m_ext % 16 != 0 || p.k_ext % c0 != 0 || p.channels == 0 || p.channels % c0 != 0) {
    bad_param(op, "LoadData3DParamsV2: mExtension (" + num(p.m_ext) + ") must be a multiple of 16, kExtension (" +
                      num(p.k_ext) + ") and channelSize (" + num(p.channels) + ") positive multiples of C0 = " +
                      num(c0));
  }
  if (p.stride_w == 0 || p.stride_h == 0 || p.filter_w == 0 || p.filter_h == 0 || p.dil_w == 0 || p.dil_h == 0) {
    bad_param(op, "LoadData3DParamsV2: strides, filter sizes and dilations must be >= 1");
  }
  const int64_t span_w = int64_t{p.dil_w} * (p.filter_w - 1) + 1;
  const int64_t padded_w = int64_t{p.l1w} + p.pad[0] + p.pad[1];
  if (padded_w < span_w) {
    bad_param(op, "LoadData3DParamsV2: the filter (" + num(static_cast<uint64_t>(span_w)) +
                      " columns with dilation) is wider than the padded input (" +
                      num(static_cast<uint64_t>(padded_w)) + ")");
  }
  const int64_t wo = (padded_w - span_w) / p.stride_w + 1;
  const uint64_t c1 = p.channels / c0;
  const uint64_t k_total = c1 * p.filter_h * p.filter_w * c0;
  if (uint64_t{p.k_start} + p.k_ext > k_total) {
    bad_param(op, "LoadData3DParamsV2: kStartPt + kExtension (" + num(uint64_t{p.k_start} + p.k_ext) +
                      ") exceeds channelSize x filterH x filterW = " + num(k_total));
  }
  check_bytes(op, "bytes of the L1 feature map (channelSize x l1H x l1W elements)",
              uint64_t{p.channels} * p.l1h * p.l1w * e, src_bytes);
  // The transposed Zn (L0B) of 32-bit types has kExtension padded to 16 columns.
  const uint64_t k_cols = p.transpose ? (p.k_ext + 15) / 16 * 16 : p.k_ext;
  const uint64_t out_bytes = uint64_t{p.m_ext} * (p.transpose && dst_zn ? k_cols : p.k_ext) * e;
  if (k_cols != p.k_ext && dst_zn) {
    // CANN's samples size the L0B tensor as mExtension x kExtension; the
    // padded Zn reaches past it into the physical L0B, as on the NPU: check
    // against the end of the core's L0B instead.
    const auto* b = ::asc::runtime::current_block();
    if (b && b->arenas) {
      const auto* d0 = static_cast<const uint8_t*>(dst);
      const auto& a = *b->arenas;
      if (d0 >= a.l0b && d0 < a.l0b + a.l0b_size) dst_bytes = std::max<uint64_t>(dst_bytes, a.l0b + a.l0b_size - d0);
    }
  }
  check_bytes(op, "bytes of the destination (mExtension x kExtension elements)", out_bytes, dst_bytes);
  elide::read(src, uint64_t{p.channels} * p.l1h * p.l1w * e);
  if (k_cols != p.k_ext) {
    elide::access(dst, out_bytes);  // the padding columns keep their bytes
  } else {
    elide::write(dst, out_bytes);
  }
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  const uint64_t k1 = p.k_ext / c0, m1 = p.m_ext / 16;
  if (p.transpose) {
    // enTranspose writes the transpose of the img2col matrix X (m_ext x k_ext):
    // into L0A as the Zz A = X^T (k_ext rows), into L0B as the Zn B = X
    // (k = the m_ext positions, n = the k_ext channels, padded to 16). For
    // 16-bit types each 16 x 16 fractal is transposed; for 32-bit each square
    // of two 16 x 8 fractals, which gives the same Zz/Zn orders with C0 = 8.
    for (uint64_t mi = 0; mi < p.m_ext; ++mi) {
      const int64_t m = int64_t{p.m_start} + static_cast<int64_t>(mi);
      const int64_t oh = m / wo, ow = m % wo;
      for (uint64_t kk = 0; kk < p.k_ext; ++kk) {
        const uint64_t k = p.k_start + kk;
        const uint64_t cc = k % c0, pos = k / c0;
        const uint64_t kw = pos % p.filter_w, kh = (pos / p.filter_w) % p.filter_h, ci = pos / (p.filter_w * p.filter_h);
        const int64_t h = oh * p.stride_h - int64_t{p.pad[2]} + static_cast<int64_t>(kh) * p.dil_h;
        const int64_t w = ow * p.stride_w - int64_t{p.pad[0]} + static_cast<int64_t>(kw) * p.dil_w;
        const int64_t off = dst_zn ? zn_offset(static_cast<int64_t>(mi), static_cast<int64_t>(kk),
                                               static_cast<int64_t>(k_cols / 16), static_cast<int64_t>(c0))
                                   : zz_offset(static_cast<int64_t>(kk), static_cast<int64_t>(mi),
                                               static_cast<int64_t>(p.m_ext / c0), static_cast<int64_t>(c0));
        if (h < 0 || h >= p.l1h || w < 0 || w >= p.l1w) {
          std::memcpy(d + off * e, pad_value, e);
        } else {
          std::memcpy(d + off * e,
                      s + (((ci * p.l1h + static_cast<uint64_t>(h)) * p.l1w + static_cast<uint64_t>(w)) * c0 + cc) * e, e);
        }
      }
    }
    return;
  }
  // Each (row, C0 group) is one contiguous 32-byte run of the source (one
  // position, C0 channels) or padding: copy whole runs.
  for (uint64_t mi = 0; mi < p.m_ext; ++mi) {
    const int64_t m = int64_t{p.m_start} + static_cast<int64_t>(mi);
    const int64_t oh = m / wo, ow = m % wo;
    for (uint64_t kb = 0; kb < k1; ++kb) {
      const uint64_t kg = p.k_start + kb * c0;  // first k of this group
      uint8_t* out = dst_zn ? d + ((kb * m1 + mi / 16) * 16 + mi % 16) * 32 : d + ((mi / 16) * k1 + kb) * 512 + (mi % 16) * 32;
      // k groups may start off a C0 boundary (kStartPt): take element by element then.
      for (uint64_t t = 0; t < c0;) {
        const uint64_t k = kg + t;
        const uint64_t cc = k % c0, pos = k / c0;  // pos = (c1 * FH + kh) * FW + kw
        const uint64_t kw = pos % p.filter_w, kh = (pos / p.filter_w) % p.filter_h, ci = pos / (p.filter_w * p.filter_h);
        const int64_t h = oh * p.stride_h - int64_t{p.pad[2]} + static_cast<int64_t>(kh) * p.dil_h;
        const int64_t w = ow * p.stride_w - int64_t{p.pad[0]} + static_cast<int64_t>(kw) * p.dil_w;
        const uint64_t run = std::min<uint64_t>(c0 - t, c0 - cc);
        if (h < 0 || h >= p.l1h || w < 0 || w >= p.l1w) {
          for (uint64_t r = 0; r < run; ++r) std::memcpy(out + (t + r) * e, pad_value, e);
        } else {
          std::memcpy(out + t * e, s + (((ci * p.l1h + static_cast<uint64_t>(h)) * p.l1w + static_cast<uint64_t>(w)) * c0 + cc) * e,
                      run * e);
        }
        t += run;
      }
    }
  }
}

// ---------------------------------------------------------------- InitConstValue

void init_const_value(void* dst, uint64_t dst_bytes, size_t elem_size, uint32_t repeat, uint32_t blocks,
                      uint32_t gap, const void* value) {
  const char* op = "InitConstValue";
  if (repeat == 0 || blocks == 0) return;
  const uint64_t need = ((uint64_t{repeat} - 1) * (blocks + gap) + blocks) * kFractalBytes;
  check_bytes(op, "bytes of dst ((repeatTimes - 1) x (blockNum + dstGap) + blockNum blocks of 512 bytes)", need,
              dst_bytes);
  elide::access(dst, need);
  uint8_t block[kFractalBytes];
  for (uint64_t i = 0; i < kFractalBytes; i += elem_size) std::memcpy(block + i, value, elem_size);
  auto* d = static_cast<uint8_t*>(dst);
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t b = 0; b < blocks; ++b) std::memcpy(d + (r * (blocks + gap) + b) * kFractalBytes, block, kFractalBytes);
  }
}

// ---------------------------------------------------------------- DataCopy L0C -> GM/UB

FixpipeRegs& fixpipe_regs() noexcept {
  thread_local FixpipeRegs r;
  const uint64_t serial = runtime::block_serial();
  if (r.serial != serial) r = FixpipeRegs{serial};  // set by an earlier block on this thread
  return r;
}

AscendC::FixpipeParamsV220 co12dst_params(const AscendC::DataCopyCO12DstParams& p, AscendC::CO2Layout* layout) {
  if (p.reluPre > 1) {
    bad_param("DataCopy", "DataCopyCO12DstParams: reluPre " + num(p.reluPre) + " is not supported (0 none, 1 ReLU)");
  }
  const FixpipeRegs& r = fixpipe_regs();
  AscendC::FixpipeParamsV220 f(p.nSize, p.mSize, p.srcStride, p.dstStride, p.reluPre == 1, p.quantPre,
                               r.quant_scalar);
  f.isChannelSplit = p.channelSplit;
  if (p.nz2ndEn) {
    f.ndNum = r.nd_num;
    f.srcNdStride = r.src_nd_stride;
    f.dstNdStride = r.dst_nd_stride;
  }
  *layout = p.nz2ndEn ? AscendC::CO2Layout::ROW_MAJOR : AscendC::CO2Layout::NZ;
  return f;
}

}  // namespace asc::kernel::cube
