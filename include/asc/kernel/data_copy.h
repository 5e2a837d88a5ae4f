// DataCopy / DataCopyPad: moving data between global memory and local buffers.
//
// * Count form DataCopy(dst, src, count): copies count * sizeof(T) bytes rounded
//   DOWN to a multiple of 32 bytes, as the NPU's DMA does (an unaligned count
//   silently loses its tail there too; use DataCopyPad for unaligned lengths).
//   It is a plain memcpy (memmove for UB -> UB).
// * DataCopyParams form: blockCount bursts of blockLen 32-byte blocks; the
//   source / destination strides are gaps in 32-byte blocks between bursts.
//   From L1 to the BiasTable (C2) blockLen and dstStride count 64-byte units
//   (32 on dav-3510), to the Fixpipe Buffer (C2PIPE2GM) 128-byte units, as
//   CANN documents those two paths.
// * DataCopyPad GM -> local: blockCount bursts of blockLen BYTES; GM bursts
//   are srcStride bytes apart (gap), local rows are
//   align32(leftPadding + blockLen + rightPadding) bytes plus dstStride
//   blocks; with isPad the left/right padding elements get paddingValue,
//   without it the value of the block's SetPadValue if it set one
//   (otherwise they are left as they were). Local -> GM: local rows of
//   align32(blockLen) bytes plus srcStride blocks, GM gaps of dstStride bytes.
// * A count or extent larger than a LocalTensor (or a GlobalTensor of known
//   size) is an asc::Error(kIndexOutOfRange) naming the kernel and block.
// * Copy elision (asc/kernel/elide.h): contiguous copies (count form,
//   DataCopyParams without gaps or with one burst, single-burst DataCopyPad
//   without written padding) GM -> local are recorded instead of performed,
//   and copies local -> GM of a recorded range run the pending work straight
//   into GM. Other forms make the ranges they touch real first.
// * Atomic mode (SetAtomicAdd<T>() and friends, asc/kernel/atomic.h): every
//   local -> GM form combines into GM instead of overwriting, and is never
//   elided.
//
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "asc/kernel/atomic.h"
#include "asc/kernel/checker.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/runtime/block_serial.h"
#include "asc/runtime/device.h"
#include "asc/runtime/profiler.h"

namespace asc::kernel {

/// Copies `count` bursts of `burst` bytes; burst i starts at src + i *
/// src_pitch and lands at dst + i * dst_pitch.
void copy_bursts(void* dst, const void* src, uint32_t count, uint64_t burst, uint64_t src_pitch,
                 uint64_t dst_pitch);
/// DataCopyPad GM -> local (see the header comment); `pad_value` points to one
/// element of `elem_size` bytes, or is null when not padding.
void copy_pad_in(void* dst, const void* src, uint32_t elem_size, const AscendC::DataCopyExtParams& p,
                 uint32_t left, uint32_t right, const void* pad_value);
/// DataCopyPad local -> GM.
void copy_pad_out(void* dst, const void* src, const AscendC::DataCopyExtParams& p);

namespace detail {
inline uint64_t copy_bytes(uint32_t count, size_t elem) { return (uint64_t{count} * elem) & ~uint64_t{31}; }
inline uint64_t align32(uint64_t n) { return (n + 31) & ~uint64_t{31}; }
// Extent in bytes of `count` bursts of `burst` with `pitch` between starts.
inline uint64_t extent(uint32_t count, uint64_t burst, uint64_t pitch) {
  return count == 0 ? 0 : uint64_t{count - 1} * pitch + burst;
}
// DataCopyPad: local rows of `row` bytes (data plus padding) padded to 32
// bytes plus `gap_blocks` blocks; GM bursts of blockLen plus `gap` bytes.
inline uint64_t pad_local_extent(uint32_t count, uint64_t row, uint64_t gap_blocks) {
  return extent(count, row, align32(row) + gap_blocks * 32);
}
inline uint64_t pad_gm_extent(uint32_t count, uint64_t len, uint64_t gap) { return extent(count, len, len + gap); }
// GM bytes moved by the running block, for the profiler's kernel and block spans.
inline void count_gm_bytes(uint64_t bytes) {
  if (::asc::runtime::profiler::enabled()) {
    if (const auto* b = ::asc::runtime::current_block()) b->gm_bytes += bytes;
  }
}
// Contiguous copies with copy elision.
// Zero-byte copies return first: a zero-length view may carry a null pointer,
// and memcpy with a null pointer is undefined even for size 0 (UBSan flags it).
inline void copy_in(void* ub, const void* gm, uint64_t bytes) {
  if (bytes == 0) return;
  count_gm_bytes(bytes);
  if (elide::State* s = elide::active_state()) {
    elide::load(*s, ub, gm, bytes);
  } else {
    std::memcpy(ub, gm, bytes);
  }
}
inline void copy_out(void* gm, const void* ub, uint64_t bytes, const char* op = "DataCopy") {
  if (bytes == 0) return;
  count_gm_bytes(bytes);
  if (atomic::maybe_active() && atomic::store(op, gm, ub, 1, bytes, bytes, bytes)) return;
  if (elide::State* s = elide::pending_state()) {
    elide::store(*s, gm, ub, bytes);
  } else {
    std::memcpy(gm, ub, bytes);
  }
}
inline void copy_local(void* dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  if (elide::State* s = elide::pending_state()) {
    elide::copy_local(*s, dst, src, bytes);
  } else {
    std::memmove(dst, src, bytes);
  }
}
template <typename T>
inline void check_local(const char* op, const AscendC::LocalTensor<T>& t, uint64_t bytes) {
  if (bytes > uint64_t{t.GetSize()} * sizeof(T)) fail_size(op, "bytes of the LocalTensor", bytes, uint64_t{t.GetSize()} * sizeof(T));
}
// The kernel checker's view of a GM side: `count` bursts of `burst` bytes, `pitch` apart.
template <typename T>
inline void check_gm(const char* op, const AscendC::GlobalTensor<T>& g, uint32_t count, uint64_t burst,
                     uint64_t pitch, bool write) {
  check::gm_access(op, g.bound(), g.bound_bytes(), g.raw(), count, burst, pitch, write);
}
template <typename T>
inline void check_global(const char* op, const AscendC::GlobalTensor<T>& t, uint64_t bytes) {
  if (t.GetSize() != 0 && bytes > t.GetSize() * sizeof(T)) {
    fail_size(op, "bytes of the GlobalTensor", bytes, t.GetSize() * sizeof(T));
  }
}
}  // namespace detail

}  // namespace asc::kernel

namespace AscendC {

// ---------------------------------------------------------------- count form

/// GM -> local: calCount elements (bytes rounded down to 32).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t calCount) {
  const uint64_t bytes = ::asc::kernel::detail::copy_bytes(calCount, sizeof(T));
  if (::asc::kernel::check::active()) {
    ::asc::kernel::check::copy_length("DataCopy", calCount, sizeof(T));
    ::asc::kernel::check::local_operand("DataCopy", "dst", dst.raw(), bytes);
    ::asc::kernel::detail::check_gm("DataCopy", src, 1, bytes, bytes, false);
  }
  ::asc::kernel::detail::check_local("DataCopy", dst, bytes);
  ::asc::kernel::detail::check_global("DataCopy", src, bytes);
  ::asc::kernel::detail::copy_in(dst.raw(), src.raw(), bytes);
}
/// Local -> GM.
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {
  const uint64_t bytes = ::asc::kernel::detail::copy_bytes(calCount, sizeof(T));
  if (::asc::kernel::check::active()) {
    ::asc::kernel::check::copy_length("DataCopy", calCount, sizeof(T));
    ::asc::kernel::check::local_operand("DataCopy", "src", src.raw(), bytes);
    ::asc::kernel::detail::check_gm("DataCopy", dst, 1, bytes, bytes, true);
  }
  ::asc::kernel::detail::check_local("DataCopy", src, bytes);
  ::asc::kernel::detail::check_global("DataCopy", dst, bytes);
  ::asc::kernel::detail::copy_out(dst.raw(), src.raw(), bytes);
}
/// Local -> local.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {
  const uint64_t bytes = ::asc::kernel::detail::copy_bytes(calCount, sizeof(T));
  if (::asc::kernel::check::active()) {
    ::asc::kernel::check::copy_length("DataCopy", calCount, sizeof(T));
    ::asc::kernel::check::local_operand("DataCopy", "src", src.raw(), bytes);
    ::asc::kernel::check::local_operand("DataCopy", "dst", dst.raw(), bytes);
  }
  ::asc::kernel::detail::check_local("DataCopy", src, bytes);
  ::asc::kernel::detail::check_local("DataCopy", dst, bytes);
  ::asc::kernel::detail::copy_local(dst.raw(), src.raw(), bytes);
}

// ---------------------------------------------------------------- DataCopyParams

namespace detail {
// The unit of blockLen / dstStride for a local -> local copy, as CANN
// documents it: L1 -> BiasTable (C2) counts 64-byte units (32 on dav-3510),
// L1 -> Fixpipe Buffer (C2PIPE2GM) 128-byte units; everything else 32 bytes.
template <typename D, typename S>
inline uint64_t copy_unit(const D& dst, const S& src) {
  if constexpr (std::is_same_v<D, LocalTensor<typename D::PrimType>> &&
                std::is_same_v<S, LocalTensor<typename S::PrimType>>) {
    if (::asc::kernel::hardware_of(src.position()) == Hardware::L1) {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
      if (dst.position() == TPosition::C2) return 32;
#else
      if (dst.position() == TPosition::C2) return 64;
#endif
      if (dst.position() == TPosition::C2PIPE2GM) return 128;
    }
  }
  return ONE_BLK_SIZE;
}

template <typename D, typename S>
inline void data_copy_params(const D& dst, const S& src, const DataCopyParams& p) {
  const uint64_t unit = copy_unit(dst, src);
  const uint64_t burst = uint64_t{p.blockLen} * unit;
  const uint64_t src_pitch = uint64_t{p.blockLen} * unit + uint64_t{p.srcStride} * ONE_BLK_SIZE;
  const uint64_t dst_pitch = (uint64_t{p.blockLen} + p.dstStride) * unit;
  const uint64_t src_extent = ::asc::kernel::detail::extent(p.blockCount, burst, src_pitch);
  const uint64_t dst_extent = ::asc::kernel::detail::extent(p.blockCount, burst, dst_pitch);
  if (::asc::kernel::check::active()) {
    if constexpr (std::is_same_v<D, GlobalTensor<typename D::PrimType>>) {
      ::asc::kernel::detail::check_gm("DataCopy", dst, p.blockCount, burst, dst_pitch, true);
    } else {
      ::asc::kernel::check::local_operand("DataCopy", "dst", dst.raw(), dst_extent);
    }
    if constexpr (std::is_same_v<S, GlobalTensor<typename S::PrimType>>) {
      ::asc::kernel::detail::check_gm("DataCopy", src, p.blockCount, burst, src_pitch, false);
    } else {
      ::asc::kernel::check::local_operand("DataCopy", "src", src.raw(), src_extent);
    }
  }
  if constexpr (std::is_same_v<D, GlobalTensor<typename D::PrimType>>) {
    ::asc::kernel::detail::check_global("DataCopy", dst, dst_extent);
  } else {
    ::asc::kernel::detail::check_local("DataCopy", dst, dst_extent);
  }
  if constexpr (std::is_same_v<S, GlobalTensor<typename S::PrimType>>) {
    ::asc::kernel::detail::check_global("DataCopy", src, src_extent);
  } else {
    ::asc::kernel::detail::check_local("DataCopy", src, src_extent);
  }
  namespace ek = ::asc::kernel;
  constexpr bool kDstGm = std::is_same_v<D, GlobalTensor<typename D::PrimType>>;
  constexpr bool kSrcGm = std::is_same_v<S, GlobalTensor<typename S::PrimType>>;
  if (p.blockCount == 1 || (src_pitch == burst && dst_pitch == burst)) {
    // Contiguous: the count form's path.
    const uint64_t bytes = uint64_t{p.blockCount} * burst;
    if constexpr (kDstGm) {
      ek::detail::copy_out(dst.raw(), src.raw(), bytes);
    } else if constexpr (kSrcGm) {
      ek::detail::copy_in(dst.raw(), src.raw(), bytes);
    } else {
      ek::detail::copy_local(dst.raw(), src.raw(), bytes);
    }
    return;
  }
  if constexpr (kSrcGm || kDstGm) ek::detail::count_gm_bytes(uint64_t{p.blockCount} * burst);
  if constexpr (kSrcGm) {
    ek::elide::access(dst.raw(), dst_extent);
  } else if constexpr (kDstGm) {
    ek::elide::read(src.raw(), src_extent);
    ek::elide::gm_write(dst.raw(), dst_extent);
    if (ek::atomic::maybe_active() &&
        ek::atomic::store("DataCopy", dst.raw(), src.raw(), p.blockCount, burst, src_pitch, dst_pitch)) {
      return;
    }
  } else {
    ek::elide::read(src.raw(), src_extent);
    ek::elide::access(dst.raw(), dst_extent);
  }
  ek::copy_bursts(dst.raw(), src.raw(), p.blockCount, burst, src_pitch, dst_pitch);
}
}  // namespace detail

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& repeatParams) {
  detail::data_copy_params(dst, src, repeatParams);
}
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& repeatParams) {
  detail::data_copy_params(dst, src, repeatParams);
}
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& repeatParams) {
  detail::data_copy_params(dst, src, repeatParams);
}

// ---------------------------------------------------------------- DataCopyPad

namespace detail {
// The block's padding register (SetPadValue): the value DataCopyPad GM ->
// local writes into the padding when isPad is false. Per thread, reset when
// another block starts on it (asc/runtime/block_serial.h).
struct PadRegister {
  uint64_t serial = 0;  // asc::runtime::block_serial() of the block that set it
  bool set = false;
  uint32_t size = 0;
  uint64_t bits = 0;
};
inline PadRegister& pad_register() {
  thread_local PadRegister r;
  const uint64_t serial = ::asc::runtime::block_serial();
  if (r.serial != serial) r = PadRegister{serial};
  return r;
}
/// The register's value as a T, if SetPadValue<T> (a type of T's size) set it in this block.
template <typename T>
inline bool pad_register_value(T* out) {
  const PadRegister& r = pad_register();
  if (!r.set || r.size != sizeof(T)) return false;
  std::memcpy(static_cast<void*>(out), &r.bits, sizeof(T));
  return true;
}
}  // namespace detail

/// Sets the value DataCopyPad (GM -> VECIN/VECOUT) writes into the padding
/// when its DataCopyPadExtParams::isPad is false (isPad true writes
/// paddingValue). Lasts for the rest of the block.
template <typename T, TPosition pos = TPosition::MAX>
inline void SetPadValue(T paddingValue) {
  static_assert(sizeof(T) <= 8, "SetPadValue: the padding value type must be at most 8 bytes");
  static_assert(pos == TPosition::MAX || pos == TPosition::VECIN || pos == TPosition::VECOUT,
                "SetPadValue: pos must be TPosition::VECIN, VECOUT or MAX");
  auto& r = detail::pad_register();
  r.set = true;
  r.size = sizeof(T);
  r.bits = 0;
  std::memcpy(&r.bits, &paddingValue, sizeof(T));
}

/// GM -> local with per-burst padding to 32 bytes.
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& dataCopyParams,
                 const DataCopyPadExtParams<T>& padParams) {
  namespace d = ::asc::kernel::detail;
  const DataCopyExtParams& p = dataCopyParams;
  T register_pad{};
  const T* pad_value = padParams.isPad ? &padParams.paddingValue
                                       : (detail::pad_register_value(&register_pad) ? &register_pad : nullptr);
  const uint64_t row = (uint64_t{padParams.leftPadding} + padParams.rightPadding) * sizeof(T) + p.blockLen;
  if (::asc::kernel::check::active()) {
    ::asc::kernel::check::local_operand("DataCopyPad", "dst", dst.raw(), d::pad_local_extent(p.blockCount, row, p.dstStride));
    d::check_gm("DataCopyPad", src, p.blockCount, p.blockLen, uint64_t{p.blockLen} + p.srcStride, false);
  }
  d::check_local("DataCopyPad", dst, d::pad_local_extent(p.blockCount, row, p.dstStride));
  d::check_global("DataCopyPad", src, d::pad_gm_extent(p.blockCount, p.blockLen, p.srcStride));
  const bool writes_padding = pad_value != nullptr && (padParams.leftPadding != 0 || padParams.rightPadding != 0);
  if (p.blockCount == 1 && !writes_padding) {
    // One burst and nothing written around it: the bytes land at leftPadding.
    d::copy_in(dst.raw() + padParams.leftPadding, src.raw(), p.blockLen);
    return;
  }
  d::count_gm_bytes(uint64_t{p.blockCount} * p.blockLen);
  ::asc::kernel::elide::access(dst.raw(), d::pad_local_extent(p.blockCount, row, p.dstStride));
  ::asc::kernel::copy_pad_in(dst.raw(), src.raw(), sizeof(T), p, padParams.leftPadding, padParams.rightPadding,
                             pad_value);
}
/// Local -> GM, blockLen bytes per burst.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& dataCopyParams) {
  namespace d = ::asc::kernel::detail;
  const DataCopyExtParams& p = dataCopyParams;
  if (::asc::kernel::check::active()) {
    ::asc::kernel::check::local_operand("DataCopyPad", "src", src.raw(), d::pad_local_extent(p.blockCount, p.blockLen, p.srcStride));
    d::check_gm("DataCopyPad", dst, p.blockCount, p.blockLen, uint64_t{p.blockLen} + p.dstStride, true);
  }
  d::check_local("DataCopyPad", src, d::pad_local_extent(p.blockCount, p.blockLen, p.srcStride));
  d::check_global("DataCopyPad", dst, d::pad_gm_extent(p.blockCount, p.blockLen, p.dstStride));
  if (p.blockCount == 1) {
    d::copy_out(dst.raw(), src.raw(), p.blockLen, "DataCopyPad");
    return;
  }
  d::count_gm_bytes(uint64_t{p.blockCount} * p.blockLen);
  ::asc::kernel::elide::read(src.raw(), d::pad_local_extent(p.blockCount, p.blockLen, p.srcStride));
  ::asc::kernel::elide::gm_write(dst.raw(), d::pad_gm_extent(p.blockCount, p.blockLen, p.dstStride));
  ::asc::kernel::copy_pad_out(dst.raw(), src.raw(), p);
}
/// Older parameter structs (blockLen in bytes as well).
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& dataCopyParams,
                 const DataCopyPadParams& padParams) {
  T pad{};
  std::memcpy(&pad, &padParams.paddingValue, sizeof(T) < 8 ? sizeof(T) : 8);
  DataCopyPad(dst, src,
              DataCopyExtParams(dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                                dataCopyParams.dstStride),
              DataCopyPadExtParams<T>(padParams.isPad, padParams.leftPadding, padParams.rightPadding, pad));
}
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& dataCopyParams) {
  DataCopyPad(dst, src,
              DataCopyExtParams(dataCopyParams.blockCount, dataCopyParams.blockLen, dataCopyParams.srcStride,
                                dataCopyParams.dstStride));
}

}  // namespace AscendC
