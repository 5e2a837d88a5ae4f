// LocalMemAllocator: bump allocation of LocalTensors in one of the running
// core's memories without TPipe/TQue (Ascend C's static-allocation style).
//
//   AscendC::LocalMemAllocator<AscendC::Hardware::UB> ub;
//   auto x = ub.Alloc<float, 1024>();                       // VECCALC position
//   auto y = ub.Alloc<AscendC::TPosition::VECIN, half, 512>();
//   auto z = ub.Alloc<float>(n);                            // runtime count
//   auto w = l1.Alloc<AscendC::TPosition::B1, half>(n);     // position + runtime count
//
// Each allocator starts at offset 0 of its memory (UB, L1, L0A, L0B, L0C) and
// hands out 32-byte aligned, consecutive buffers; it does not coordinate with a
// TPipe or another allocator (their buffers would overlap, as on the NPU).
// Memory is never freed: a new allocator starts over. Exceeding the memory is
// asc::Error(kStorageOverLimit) naming kernel, block, bytes requested and left;
// allocating outside a kernel is kInvalidParam. GetCurAddr() is the next
// offset in bytes.
//
// Thread-safety: an allocator belongs to one block (one thread).
#pragma once

#include <cstdint>

#include "asc/kernel/context.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace asc::kernel {

/// Reserves `bytes` (rounded up to 32) at *cursor in the running core's memory
/// `hw`, advances the cursor and returns the address (src/kernel/local_mem.cc).
uint8_t* local_mem_alloc(AscendC::Hardware hw, uint32_t* cursor, uint64_t bytes);

/// The TPosition a LocalTensor from memory `hw` reports.
constexpr AscendC::TPosition default_position(AscendC::Hardware hw) {
  switch (hw) {
    case AscendC::Hardware::L1: return AscendC::TPosition::A1;
    case AscendC::Hardware::L0A: return AscendC::TPosition::A2;
    case AscendC::Hardware::L0B: return AscendC::TPosition::B2;
    case AscendC::Hardware::L0C: return AscendC::TPosition::CO1;
    default: return AscendC::TPosition::VECCALC;
  }
}

}  // namespace asc::kernel

namespace AscendC {

template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
 public:
  LocalMemAllocator() = default;

  /// `tileSize` elements of T at position `pos`.
  template <TPosition pos, class T, uint32_t tileSize>
  LocalTensor<T> Alloc() {
    return LocalTensor<T>(take<T>(tileSize), tileSize, pos);
  }
  /// `tileSize` elements of T (position VECCALC for UB, A1 for L1, ...).
  template <class T, uint32_t tileSize>
  LocalTensor<T> Alloc() {
    return LocalTensor<T>(take<T>(tileSize), tileSize, ::asc::kernel::default_position(hard));
  }
  /// `tileSize` elements of T at position `pos`, count known at run time
  /// (CANN's Alloc<TPosition::A1, half>(n) of the matmul samples).
  template <TPosition pos, class T>
  LocalTensor<T> Alloc(uint32_t tileSize) {
    return LocalTensor<T>(take<T>(tileSize), tileSize, pos);
  }
  /// `tileSize` elements of T, count known at run time.
  template <class T>
  LocalTensor<T> Alloc(uint32_t tileSize) {
    return LocalTensor<T>(take<T>(tileSize), tileSize, ::asc::kernel::default_position(hard));
  }

  /// Offset in bytes of the next allocation.
  uint32_t GetCurAddr() const { return cursor_; }

 private:
  template <class T>
  T* take(uint32_t count) {
    return reinterpret_cast<T*>(::asc::kernel::local_mem_alloc(hard, &cursor_, ::asc::kernel::bytes_for<T>(count)));
  }

  uint32_t cursor_ = 0;
};

}  // namespace AscendC
