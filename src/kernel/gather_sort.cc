// Gather / Scatter / Brcb / Transpose / GatherMask / Sort cores (semantics in
// include/asc/kernel/gather_sort.h). These move or order elements rather than
// compute on them: memcpy per element or block, and std::stable_sort.
#include "asc/kernel/gather_sort.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "asc/core/half.h"

namespace asc::kernel {

namespace {

void check_offset(const char* op, const char* which, uint32_t esize, uint64_t off, uint64_t bytes, uint32_t i) {
  if (off % esize != 0) {
    fail(ErrorCode::kInvalidParam, op,
         std::string(which) + "[" + std::to_string(i) + "] gives byte offset " + std::to_string(off) +
             ", not a multiple of the element size " + std::to_string(esize));
  }
  if (off + esize > bytes) {
    fail(ErrorCode::kIndexOutOfRange, op,
         std::string(which) + "[" + std::to_string(i) + "] gives byte offset " + std::to_string(off) +
             ", outside the tensor's " + std::to_string(bytes) + " bytes");
  }
}

}  // namespace

void gather_bytes(const char* op, uint32_t esize, void* dst, const void* src, uint64_t src_bytes,
                  const uint32_t* offsets, uint32_t base, uint32_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  // Check everything first: an error leaves dst untouched.
  for (uint32_t i = 0; i < n; ++i) check_offset(op, "srcOffsetLocal", esize, uint64_t{base} + offsets[i], src_bytes, i);
  for (uint32_t i = 0; i < n; ++i) std::memcpy(d + uint64_t{i} * esize, s + uint64_t{base} + offsets[i], esize);
}

void scatter_bytes(const char* op, uint32_t esize, void* dst, uint64_t dst_bytes, const void* src,
                   const uint32_t* offsets, uint32_t base, uint32_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  for (uint32_t i = 0; i < n; ++i) check_offset(op, "dstOffsetLocal", esize, uint64_t{base} + offsets[i], dst_bytes, i);
  for (uint32_t i = 0; i < n; ++i) std::memcpy(d + uint64_t{base} + offsets[i], s + uint64_t{i} * esize, esize);
}

void brcb(uint32_t esize, void* dst, const void* src, uint32_t repeat, uint32_t blk_stride, uint32_t rep_stride) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  uint8_t block[32];
  for (uint32_t r = 0; r < repeat; ++r) {
    for (uint32_t k = 0; k < 8; ++k) {
      const uint8_t* v = s + (uint64_t{r} * 8 + k) * esize;
      for (uint32_t j = 0; j < 32; j += esize) std::memcpy(block + j, v, esize);
      std::memcpy(d + (uint64_t{r} * rep_stride + uint64_t{k} * blk_stride) * 32, block, 32);
    }
  }
}

void gatherb(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const uint32_t* offsets,
             uint32_t repeat, uint32_t blk_stride, uint32_t rep_stride) {
  const char* op = "Gatherb";
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  if (d == s) fail(ErrorCode::kInvalidParam, op, "dst and src are the same tensor (CANN does not support it)");
  const uint64_t dst_ext = (uint64_t{repeat - 1} * rep_stride + 7ull * blk_stride) * 32 + 32;
  if (dst_ext > dst_bytes) fail_size(op, "bytes of dst (repeat extent)", dst_ext, dst_bytes);
  // Check every offset first: an error leaves dst untouched.
  for (uint32_t i = 0; i < repeat * 8; ++i) {
    const uint64_t off = offsets[i];
    if (off % 32 != 0) {
      fail(ErrorCode::kInvalidParam, op,
           "offset[" + std::to_string(i) + "] = " + std::to_string(off) + " bytes is not 32-byte aligned");
    }
    if (off + 32 > src_bytes) {
      fail(ErrorCode::kIndexOutOfRange, op,
           "offset[" + std::to_string(i) + "] = " + std::to_string(off) + " bytes: the 32-byte block ends past src's " +
               std::to_string(src_bytes) + " bytes");
    }
  }
  for (uint32_t r = 0; r < repeat; ++r) {
    for (uint32_t j = 0; j < 8; ++j) {
      std::memmove(d + (uint64_t{r} * rep_stride + uint64_t{j} * blk_stride) * 32, s + offsets[r * 8 + j], 32);
    }
  }
}

void transpose16(void* dst, const void* src) {
  uint16_t tmp[256];
  std::memcpy(tmp, src, 512);  // dst may be src
  uint16_t out[256];
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) out[j * 16 + i] = tmp[i * 16 + j];
  }
  std::memcpy(dst, out, 512);
}

uint64_t gather_mask(uint32_t esize, void* dst, uint64_t dst_bytes, const void* src0, const uint8_t* pattern,
                     uint8_t builtin, bool counter_mode, uint32_t mask, const AscendC::GatherMaskParams& p) {
  const uint32_t lanes = 256 / esize, lpb = 32 / esize;
  // Counter mode: repeatTimes repeats of `mask` lanes each (CANN's
  // configuration one, the A2/A3/950 products').
  const uint32_t repeat = counter_mode && mask == 0 ? 0 : p.repeatTimes;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src0);
  uint64_t count = 0;
  auto builtin_on = [builtin](uint32_t l) {
    switch (builtin) {
      case 1: return l % 2 == 0;
      case 2: return l % 2 == 1;
      case 3: return l % 4 == 0;
      case 4: return l % 4 == 1;
      case 5: return l % 4 == 2;
      case 6: return l % 4 == 3;
      default: return true;
    }
  };
  for (uint32_t r = 0; r < repeat; ++r) {
    const uint32_t n = counter_mode ? mask : lanes;
    const uint8_t* bits = pattern ? pattern + uint64_t{r} * p.src1RepeatStride * 32 : nullptr;
    for (uint32_t l = 0; l < n; ++l) {
      const bool on = bits ? ((bits[l / 8] >> (l % 8)) & 1u) != 0 : builtin_on(l);
      if (!on) continue;
      if ((count + 1) * esize > dst_bytes) {
        fail(ErrorCode::kIndexOutOfRange, "GatherMask",
             "the gathered elements do not fit in dst (" + std::to_string(dst_bytes) + " bytes)");
      }
      const uint64_t off = (uint64_t{r} * p.src0RepeatStride + uint64_t{l / lpb} * p.src0BlockStride) * 32 +
                           uint64_t{l % lpb} * esize;
      std::memcpy(d + count * esize, s + off, esize);
      ++count;
    }
  }
  return count;
}

namespace {

struct Rec {
  float key;
  uint32_t index;
  uint32_t pos;  // position in the input (keeps raw bits for half)
};

// Descending; NaN first; equal keys keep their order (stable_sort).
bool before(const Rec& a, const Rec& b) {
  const bool an = std::isnan(a.key), bn = std::isnan(b.key);
  if (an || bn) return an && !bn;
  return a.key > b.key;
}

}  // namespace

void sort_records(DType dtype, void* dst, const void* values, const uint32_t* indices, uint32_t n, uint32_t chunk) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat16) {
    fail(ErrorCode::kInvalidDtype, "Sort", std::string("dtype ") + dtype_name(dtype) + " is not supported (float, half)");
  }
  const size_t es = dtype_size(dtype);
  const uint8_t* v = static_cast<const uint8_t*>(values);
  uint8_t* d = static_cast<uint8_t*>(dst);
  // Copy first: dst may alias the inputs.
  std::vector<Rec> recs(n);
  std::vector<uint8_t> raw(uint64_t{n} * es);
  std::memcpy(raw.data(), v, raw.size());
  for (uint32_t i = 0; i < n; ++i) {
    float key;
    if (es == 4) {
      std::memcpy(&key, v + uint64_t{i} * 4, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, v + uint64_t{i} * 2, 2);
      key = asc::detail::f16_bits_to_f32(h);
    }
    recs[i] = Rec{key, indices[i], i};
  }
  for (uint32_t start = 0; start < n; start += chunk) {
    const uint32_t end = std::min(n, start + chunk);
    std::stable_sort(recs.begin() + start, recs.begin() + end, before);
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t out[8] = {};
    std::memcpy(out, raw.data() + uint64_t{recs[i].pos} * es, es);
    std::memcpy(out + 4, &recs[i].index, 4);
    std::memcpy(d + uint64_t{i} * 8, out, 8);
  }
}

void extract_records(DType dtype, void* values, uint32_t* indices, const void* records, uint32_t n) {
  const size_t es = dtype_size(dtype);
  const uint8_t* s = static_cast<const uint8_t*>(records);
  std::vector<uint8_t> copy(s, s + uint64_t{n} * 8);  // outputs may alias the records
  uint8_t* v = static_cast<uint8_t*>(values);
  for (uint32_t i = 0; i < n; ++i) {
    std::memcpy(v + uint64_t{i} * es, copy.data() + uint64_t{i} * 8, es);
    std::memcpy(indices + i, copy.data() + uint64_t{i} * 8 + 4, 4);
  }
}

// ---------------------------------------------------------------- Gather, mask/repeat form

void gather_repeat(uint32_t esize, void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes,
                   const uint32_t* offsets, uint64_t offsets_count, uint32_t base, const uint64_t mask[2],
                   uint32_t repeat, uint32_t dst_rep_stride) {
  const char* op = "Gather";
  const uint32_t lanes = 256 / esize;
  auto selected = [&](uint32_t l) { return ((mask[l / 64] >> (l % 64)) & 1u) != 0; };
  // Check every selected lane first: an error leaves dst untouched.
  for (uint32_t r = 0; r < repeat; ++r) {
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!selected(l)) continue;
      const uint64_t i = uint64_t{r} * lanes + l;
      if (i >= offsets_count) {
        fail(ErrorCode::kIndexOutOfRange, op,
             "repeat " + std::to_string(r) + " lane " + std::to_string(l) + " needs srcOffsetLocal[" +
                 std::to_string(i) + "] but the tensor has " + std::to_string(offsets_count) + " elements");
      }
      check_offset(op, "srcOffsetLocal", esize, uint64_t{base} + offsets[i], src_bytes, static_cast<uint32_t>(i));
      const uint64_t d = uint64_t{r} * dst_rep_stride * 32 + uint64_t{l} * esize;
      if (d + esize > dst_bytes) fail_size(op, "bytes of dst (mask/repeat extent)", d + esize, dst_bytes);
    }
  }
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  for (uint32_t r = 0; r < repeat; ++r) {
    uint8_t* drep = d + uint64_t{r} * dst_rep_stride * 32;
    const uint32_t* orep = offsets + uint64_t{r} * lanes;
    for (uint32_t l = 0; l < lanes; ++l) {
      if (selected(l)) std::memcpy(drep + uint64_t{l} * esize, s + uint64_t{base} + orep[l], esize);
    }
  }
}

// ---------------------------------------------------------------- MrgSort

namespace {

thread_local uint16_t g_mrg_taken[4] = {0, 0, 0, 0};

float record_key(DType dtype, const uint8_t* rec) {
  if (dtype == DType::kFloat32) {
    float f;
    std::memcpy(&f, rec, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, rec, 2);
  return asc::detail::f16_bits_to_f32(h);
}

// a goes before b in a descending merge (NaN first); ties keep list order.
bool key_before(float a, float b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an && !bn;
  return a > b;
}

}  // namespace

const uint16_t* mrg_sort_taken() noexcept { return g_mrg_taken; }

void mrg_sort(DType dtype, void* dst, uint64_t dst_bytes, const void* const lists[4], const uint64_t list_bytes[4],
              const AscendC::MrgSort4Info& info) {
  const char* op = "MrgSort";
  if (dtype != DType::kFloat32 && dtype != DType::kFloat16) {
    fail(ErrorCode::kInvalidDtype, op, std::string("dtype ") + dtype_name(dtype) + " is not supported (float, half)");
  }
  int nlists = 0;
  switch (info.validBit) {
    case 0b11: nlists = 2; break;
    case 0b111: nlists = 3; break;
    case 0b1111: nlists = 4; break;
    default:
      fail(ErrorCode::kInvalidParam, op,
           "validBit " + std::to_string(info.validBit) + " is not 0b11, 0b111 or 0b1111 (2, 3 or 4 lists)");
  }
  const uint32_t repeat = info.repeatTimes;
  if (repeat > 1) {
    const uint16_t* e = info.elementLengths;
    if (nlists != 4 || e[1] != e[0] || e[2] != e[0] || e[3] != e[0]) {
      fail(ErrorCode::kInvalidParam, op,
           "repeatTimes " + std::to_string(repeat) + " > 1 needs validBit 0b1111 and four equal elementLengths, got " +
               std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) + ", " +
               std::to_string(e[3]));
    }
  }
  std::fill(g_mrg_taken, g_mrg_taken + 4, uint16_t{0});
  if (repeat == 0) return;
  uint64_t total = 0;
  for (int i = 0; i < nlists; ++i) total += info.elementLengths[i];
  // Bounds: repeat mode reads everything from src1.
  if (repeat > 1) {
    const uint64_t need = uint64_t{repeat} * total * 8;
    if (lists[0] == nullptr) fail(ErrorCode::kInvalidParam, op, "src1 has no buffer");
    if (need > list_bytes[0]) fail_size(op, "bytes of src1 (repeatTimes x 4 lists of 8-byte records)", need, list_bytes[0]);
  } else {
    for (int i = 0; i < nlists; ++i) {
      const uint64_t need = uint64_t{info.elementLengths[i]} * 8;
      if (need == 0) continue;
      if (lists[i] == nullptr) fail(ErrorCode::kInvalidParam, op, "src" + std::to_string(i + 1) + " has no buffer");
      if (need > list_bytes[i]) {
        const std::string what = "bytes of src" + std::to_string(i + 1) + " (elementLengths x 8-byte records)";
        fail_size(op, what.c_str(), need, list_bytes[i]);
      }
    }
  }
  const uint64_t dst_need = uint64_t{repeat} * total * 8;
  if (dst_need > dst_bytes) fail_size(op, "bytes of dst (8-byte records)", dst_need, dst_bytes);
  uint8_t* out = static_cast<uint8_t*>(dst);
  std::vector<uint8_t> in;  // the sources are read first: dst may overlap them
  for (uint32_t r = 0; r < repeat; ++r) {
    const uint8_t* src[4] = {};
    uint64_t len[4] = {};
    in.clear();
    for (int i = 0; i < nlists; ++i) len[i] = info.elementLengths[i];
    uint64_t at = 0;
    for (int i = 0; i < nlists; ++i) {
      const uint8_t* from = repeat > 1 ? static_cast<const uint8_t*>(lists[0]) + (uint64_t{r} * 4 + i) * len[0] * 8
                                       : static_cast<const uint8_t*>(lists[i]);
      if (len[i]) in.insert(in.end(), from, from + len[i] * 8);
      at += len[i];
    }
    at = 0;
    for (int i = 0; i < nlists; ++i) {
      src[i] = in.data() + at * 8;
      at += len[i];
    }
    uint8_t* o = out + uint64_t{r} * total * 8;
    uint64_t pos[4] = {0, 0, 0, 0};
    uint64_t written = 0;
    for (;;) {
      int best = -1;
      float best_key = 0;
      bool exhausted = false;
      for (int i = 0; i < nlists; ++i) {
        if (pos[i] == len[i]) {
          exhausted = true;
          continue;
        }
        const float k = record_key(dtype, src[i] + pos[i] * 8);
        if (best < 0 || key_before(k, best_key)) {
          best = i;
          best_key = k;
        }
      }
      if (best < 0 || (exhausted && info.ifExhaustedSuspension)) break;
      std::memcpy(o + written * 8, src[best] + pos[best] * 8, 8);
      ++pos[best];
      ++written;
    }
    for (int i = 0; i < 4; ++i) g_mrg_taken[i] = static_cast<uint16_t>(pos[i]);
  }
}

// ---------------------------------------------------------------- Transpose (TransposeParamsExt)

void transpose_ext(uint32_t esize, void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes,
                   const AscendC::TransposeParamsExt& p) {
  const char* op = "Transpose";
  using AscendC::TransposeType;
  if (p.transposeType == TransposeType::TRANSPOSE_ND2ND_B16) {
    if (esize != 2) {
      fail(ErrorCode::kInvalidDtype, op,
           "TRANSPOSE_ND2ND_B16 takes 2-byte elements, got " + std::to_string(esize) + "-byte ones");
    }
    if (dst_bytes < 512) fail_size(op, "bytes of dst (16x16)", 512, dst_bytes);
    if (src_bytes < 512) fail_size(op, "bytes of src (16x16)", 512, src_bytes);
    transpose16(dst, src);
    return;
  }
  const bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
  if (!to_nhwc && p.transposeType != TransposeType::TRANSPOSE_NHWC2NCHW) {
    fail(ErrorCode::kFeatureUnsupported, op,
         "transposeType " + std::to_string(static_cast<int>(p.transposeType)) +
             " is not supported (TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW)");
  }
  const uint64_t n = p.nSize, c = p.cSize, hw = uint64_t{p.hSize} * p.wSize;
  const uint64_t bytes = n * c * hw * esize;
  if (bytes == 0) return;
  if (bytes > src_bytes) fail_size(op, "bytes of src (nSize*cSize*hSize*wSize elements)", bytes, src_bytes);
  if (bytes > dst_bytes) fail_size(op, "bytes of dst (nSize*cSize*hSize*wSize elements)", bytes, dst_bytes);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  uint8_t* d = static_cast<uint8_t*>(dst);
  if (d < s + bytes && s < d + bytes) fail(ErrorCode::kInvalidParam, op, "dst overlaps src");
  // NCHW -> NHWC moves element (ci, x) of a C x HW matrix to (x, ci); the
  // reverse is the transpose of an HW x C matrix.
  const uint64_t rows = to_nhwc ? c : hw, cols = to_nhwc ? hw : c;
  for (uint64_t b = 0; b < n; ++b) {
    const uint8_t* sb = s + b * rows * cols * esize;
    uint8_t* db = d + b * rows * cols * esize;
    for (uint64_t i = 0; i < rows; ++i) {
      for (uint64_t j = 0; j < cols; ++j) std::memcpy(db + (j * rows + i) * esize, sb + (i * cols + j) * esize, esize);
    }
  }
}

// ---------------------------------------------------------------- TransDataTo5HD

void trans_data_to_5hd(uint32_t esize, void* const dst[16], const void* const src[16],
                       const AscendC::TransDataTo5HDParams& p) {
  const char* op = "TransDataTo5HD";
  if (esize != 1 && esize != 2 && esize != 4) {
    fail(ErrorCode::kInvalidDtype, op, "elements must be 1, 2 or 4 bytes, got " + std::to_string(esize));
  }
  for (int i = 0; i < 16; ++i) {
    if (dst[i] == nullptr || src[i] == nullptr) {
      fail(ErrorCode::kInvalidParam, op, std::string(dst[i] ? "src" : "dst") + " list entry " + std::to_string(i) +
                                             " has no buffer");
    }
  }
  uint8_t in[16][32];
  for (uint32_t r = 0; r < p.repeatTimes; ++r) {
    // All 16 source blocks are read before any destination block is written.
    for (int i = 0; i < 16; ++i) {
      std::memcpy(in[i], static_cast<const uint8_t*>(src[i]) + uint64_t{r} * p.srcRepStride * 32, 32);
    }
    uint8_t* out[16];
    for (int j = 0; j < 16; ++j) out[j] = static_cast<uint8_t*>(dst[j]) + uint64_t{r} * p.dstRepStride * 32;
    if (esize == 2) {
      for (int j = 0; j < 16; ++j) {
        uint8_t blk[32];
        for (int i = 0; i < 16; ++i) std::memcpy(blk + 2 * i, in[i] + 2 * j, 2);
        std::memcpy(out[j], blk, 32);
      }
    } else if (esize == 4) {
      for (int c = 0; c < 8; ++c) {
        uint8_t lo[32], hi[32];
        for (int t = 0; t < 8; ++t) {
          std::memcpy(lo + 4 * t, in[t] + 4 * c, 4);
          std::memcpy(hi + 4 * t, in[8 + t] + 4 * c, 4);
        }
        std::memcpy(out[2 * c], lo, 32);
        std::memcpy(out[2 * c + 1], hi, 32);
      }
    } else {
      const int sh = p.srcHighHalf ? 16 : 0, dh = p.dstHighHalf ? 16 : 0;
      for (int j = 0; j < 16; ++j) {
        for (int i = 0; i < 16; ++i) out[j][dh + i] = in[i][sh + j];
      }
    }
  }
}

}  // namespace asc::kernel
