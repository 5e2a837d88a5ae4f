// Strided and padded copies behind DataCopy / DataCopyPad.
#include "asc/kernel/data_copy.h"

#include <cstring>

namespace asc::kernel {

void copy_bursts(void* dst, const void* src, uint32_t count, uint64_t burst, uint64_t src_pitch,
                 uint64_t dst_pitch) {
  if (count == 0 || burst == 0) return;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  if (src_pitch == burst && dst_pitch == burst) {
    std::memmove(d, s, uint64_t{count} * burst);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) std::memmove(d + i * dst_pitch, s + i * src_pitch, burst);
}

namespace {
void fill(uint8_t* d, uint32_t n, uint32_t elem_size, const void* value) {
  for (uint32_t k = 0; k < n; ++k) std::memcpy(d + uint64_t{k} * elem_size, value, elem_size);
}
}  // namespace

void copy_pad_in(void* dst, const void* src, uint32_t elem_size, const AscendC::DataCopyExtParams& p,
                 uint32_t left, uint32_t right, const void* pad_value) {
  const uint64_t left_bytes = uint64_t{left} * elem_size;
  const uint64_t row = left_bytes + p.blockLen + uint64_t{right} * elem_size;
  const uint64_t dst_pitch = detail::align32(row) + uint64_t{p.dstStride} * 32;
  const uint64_t src_pitch = uint64_t{p.blockLen} + p.srcStride;
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    uint8_t* r = d + i * dst_pitch;
    if (pad_value) fill(r, left, elem_size, pad_value);
    std::memcpy(r + left_bytes, s + i * src_pitch, p.blockLen);
    if (pad_value) fill(r + left_bytes + p.blockLen, right, elem_size, pad_value);
  }
}

void copy_pad_out(void* dst, const void* src, const AscendC::DataCopyExtParams& p) {
  const uint64_t src_pitch = detail::align32(p.blockLen) + uint64_t{p.srcStride} * 32;
  const uint64_t dst_pitch = uint64_t{p.blockLen} + p.dstStride;
  if (atomic::maybe_active() && atomic::store("DataCopyPad", dst, src, p.blockCount, p.blockLen, src_pitch, dst_pitch)) {
    return;
  }
  copy_bursts(dst, src, p.blockCount, p.blockLen, src_pitch, dst_pitch);
}

}  // namespace asc::kernel
