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
  const uint32_t repeat = counter_mode ? (mask + lanes - 1) / lanes : p.repeatTimes;
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
    const uint32_t n = counter_mode ? std::min(lanes, mask - r * lanes) : lanes;
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

}  // namespace asc::kernel
