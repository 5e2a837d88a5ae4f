// GlobalTensor (global memory) and LocalTensor (a core's UB / L1 / L0 buffers).
//
// Both are small non-owning views: an address, an element count and (for
// LocalTensor) a position. Copying one copies the view, not the data.
// operator[](offset) gives a view starting `offset` elements later.
//
// Copy elision (asc/kernel/elide.h): element access (GetValue/SetValue) first
// makes the touched bytes real; an address or reference handed out
// (GetPhyAddr, data(), operator()) ends elision for that range for the rest of
// the block (LocalTensor) or writes pending copies of that GM (GlobalTensor).
// raw() is the unguarded pointer for instruction implementations that call the
// elision hooks themselves.
//
// Thread-safety: views are values; the memory they point to is not guarded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "asc/kernel/checker.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/int4.h"
#include "asc/kernel/types.h"

namespace asc::kernel {
/// The address `addr` bytes into the running core's memory of `pos`, checked:
/// CANN's LocalTensor(pos, addr, tileSize) (addr 32-byte aligned, the tile
/// inside the physical memory).
inline uint8_t* local_at(AscendC::TPosition pos, uint32_t addr, uint64_t bytes) {
  const char* op = "LocalTensor(pos, addr, tileSize)";
  const auto* b = ::asc::runtime::current_block();
  if (!b || !b->arenas) fail(ErrorCode::kInvalidParam, op, "called outside a kernel (no core memory)");
  const auto& a = *b->arenas;
  uint8_t* base = nullptr;
  size_t size = 0;
  switch (hardware_of(pos)) {
    case AscendC::Hardware::UB: base = a.ub; size = a.ub_size; break;
    case AscendC::Hardware::L1: base = a.l1; size = a.l1_size; break;
    case AscendC::Hardware::L0A: base = a.l0a; size = a.l0a_size; break;
    case AscendC::Hardware::L0B: base = a.l0b; size = a.l0b_size; break;
    case AscendC::Hardware::L0C: base = a.l0c; size = a.l0c_size; break;
    default: fail(ErrorCode::kInvalidParam, op, "the position is not a local memory (GM)");
  }
  if (addr % 32 != 0)
    fail(ErrorCode::kMemoryAddressUnaligned, op, "addr " + std::to_string(addr) + " is not 32-byte aligned");
  if (uint64_t{addr} + bytes > size)
    fail(ErrorCode::kStorageOverLimit, op,
         "addr " + std::to_string(addr) + " + " + std::to_string(bytes) + " bytes exceeds the " +
             std::to_string(size) + "-byte " + hardware_name(hardware_of(pos)));
  return base + addr;
}
/// int4b_t views start on a byte: an odd element offset is an error.
template <typename T>
inline void check_view_offset(const char* op, uint64_t offset) {
  if constexpr (is_int4_v<T>) {
    if (offset % 2 != 0)
      fail(ErrorCode::kMemoryAddressUnaligned, op,
           "an int4b_t view must start on a byte (even element offset), got offset " + std::to_string(offset));
  } else {
    (void)op;
    (void)offset;
  }
}
}  // namespace asc::kernel

namespace AscendC {

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;

  GlobalTensor() = default;

  /// Binds the tensor to `buffer` holding `bufferSize` elements (0 = unknown
  /// size: no bounds are checked against it).
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize = 0) {
    addr_ = buffer;
    size_ = bufferSize;
    bound_ = buffer;
    bound_size_ = bufferSize;
    if (::asc::kernel::check::active())
      ::asc::kernel::check::bind_global(buffer, ::asc::kernel::bytes_for<T>(bufferSize));
  }

  /// The address may be used to write GM: pending copies of the tensor's GM
  /// are made real first (writes through it later are not seen by elision).
  __gm__ T* GetPhyAddr() const {
    ::asc::kernel::elide::gm_write(addr_, extent(0));
    return addr_;
  }
  __gm__ T* GetPhyAddr(uint64_t offset) const {
    ::asc::kernel::elide::gm_write(at(offset), extent(offset));
    return at(offset);
  }
  uint64_t GetSize() const { return size_; }

  /// CANN's L2 cache hint for this tensor's GM. A hint only (results are the
  /// same in every mode): recorded and otherwise a no-op on the CPU device.
  template <CacheRwMode rwMode = CacheRwMode::RW>
  void SetL2CacheHint(CacheMode mode) {
    (void)rwMode;
    cache_mode_ = mode;
  }
  /// pyasc: the mode SetL2CacheHint set (CACHE_MODE_NORMAL by default).
  CacheMode l2_cache_mode() const { return cache_mode_; }

  T GetValue(uint64_t offset) const {
    if (::asc::kernel::check::active()) check_access("GlobalTensor::GetValue", offset, false);
    if constexpr (::asc::kernel::is_int4_v<T>) {
      return T(::asc::kernel::int4_get(addr_, offset));
    } else {
      return addr_[offset];
    }
  }
  void SetValue(uint64_t offset, T value) const {
    if (::asc::kernel::check::active()) check_access("GlobalTensor::SetValue", offset, true);
    ::asc::kernel::elide::gm_write(at(offset), ::asc::kernel::bytes_for<T>(1));
    if constexpr (::asc::kernel::is_int4_v<T>) {
      ::asc::kernel::int4_set(addr_, offset, value);
    } else {
      addr_[offset] = value;
    }
  }
  __gm__ T& operator()(uint64_t offset) const {
    static_assert(!::asc::kernel::is_int4_v<T>, "an int4b_t element has no address: use GetValue/SetValue");
    if (::asc::kernel::check::active()) check_access("GlobalTensor::operator()", offset, true);
    ::asc::kernel::elide::gm_write(addr_ + offset, sizeof(T));
    return addr_[offset];
  }

  /// View starting `offset` elements later (size shrinks accordingly).
  GlobalTensor operator[](uint64_t offset) const {
    ::asc::kernel::check_view_offset<T>("GlobalTensor::operator[]", offset);
    GlobalTensor t = *this;
    t.addr_ = at(offset);
    t.size_ = size_ > offset ? size_ - offset : 0;
    return t;
  }

  /// pyasc extension: the element pointer (as GetPhyAddr()).
  T* data() const { return GetPhyAddr(); }
  /// pyasc: the element pointer without elision bookkeeping (instruction code).
  T* raw() const { return addr_; }
  /// pyasc: what SetGlobalBuffer bound (views keep it), for the kernel checker.
  const T* bound() const { return bound_; }
  uint64_t bound_bytes() const { return ::asc::kernel::bytes_for<T>(bound_size_); }

 private:
  T* at(uint64_t offset) const { return ::asc::kernel::offset_ptr(addr_, offset); }
  void check_access(const char* op, uint64_t offset, bool write) const {
    ::asc::kernel::check::gm_access(op, bound_, bound_bytes(), at(offset), 1, sizeof(T), sizeof(T), write);
  }
  // Bytes from element `offset` to the end (unknown size: to the end of memory).
  uint64_t extent(uint64_t offset) const {
    return size_ == 0 ? UINT64_MAX
                      : (size_ > offset ? ::asc::kernel::bytes_for<T>(size_ - offset) : uint64_t{sizeof(T)});
  }

  T* addr_ = nullptr;
  uint64_t size_ = 0;
  T* bound_ = nullptr;  // SetGlobalBuffer's address and size (elements, 0 = none)
  uint64_t bound_size_ = 0;
  CacheMode cache_mode_ = CacheMode::CACHE_MODE_NORMAL;
};

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;

  LocalTensor() = default;
  /// pyasc: a view of `size` elements at `addr` in `pos` (TPipe/TQue/TBuf make
  /// these; kernels normally never call it).
  LocalTensor(T* addr, uint32_t size, TPosition pos) : addr_(addr), size_(size), pos_(pos) {}
  /// CANN's form: `tileSize` elements at byte address `addr` (32-byte aligned)
  /// of the running core's memory of `pos` (UB, L1, L0A/B/C).
  LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize)
      : addr_(reinterpret_cast<T*>(::asc::kernel::local_at(pos, addr, ::asc::kernel::bytes_for<T>(tileSize)))),
        size_(tileSize),
        pos_(pos) {}

  T GetValue(uint32_t index) const {
    if (::asc::kernel::check::active()) ::asc::kernel::check::local_element("LocalTensor::GetValue", at(index), sizeof(T));
    ::asc::kernel::elide::read(at(index), sizeof(T));
    if constexpr (::asc::kernel::is_int4_v<T>) {
      return T(::asc::kernel::int4_get(addr_, index));
    } else {
      return addr_[index];
    }
  }
  template <typename U>
  void SetValue(uint32_t index, U value) const {
    if (::asc::kernel::check::active()) ::asc::kernel::check::local_element("LocalTensor::SetValue", at(index), sizeof(T));
    if constexpr (::asc::kernel::is_int4_v<T>) {
      ::asc::kernel::elide::access(at(index), 1);  // the other nibble of the byte stays
      ::asc::kernel::int4_set(addr_, index, static_cast<int>(value));
    } else {
      ::asc::kernel::elide::write(addr_ + index, sizeof(T));
      addr_[index] = static_cast<T>(value);
    }
  }
  /// A reference escapes: the element is no longer elided in this block.
  T& operator()(uint32_t index) const {
    static_assert(!::asc::kernel::is_int4_v<T>, "an int4b_t element has no address: use GetValue/SetValue");
    ::asc::kernel::elide::escape(addr_ + index, sizeof(T));
    return addr_[index];
  }

  /// `dst = a + b` (and - * / & |, asc/kernel/vector_mask.h): runs the
  /// instruction over GetSize() elements of this tensor.
  template <class Expr, bool = Expr::kAscVecExpr>
  LocalTensor& operator=(const Expr& expr) {
    expr.EvalInto(*this);
    return *this;
  }

  /// View starting `offset` elements later.
  LocalTensor operator[](uint32_t offset) const {
    ::asc::kernel::check_view_offset<T>("LocalTensor::operator[]", offset);
    return LocalTensor(at(offset), size_ > offset ? size_ - offset : 0, pos_);
  }

  /// Element count.
  uint32_t GetSize() const { return size_; }
  void SetSize(uint32_t size) { size_ = size; }
  /// Bytes.
  uint32_t GetLength() const { return static_cast<uint32_t>(::asc::kernel::bytes_for<T>(size_)); }

  /// The same bytes as elements of U (size scaled by the element widths; an
  /// int8_t tensor of n elements is an int4b_t tensor of 2n).
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(reinterpret_cast<U*>(addr_),
                          static_cast<uint32_t>(uint64_t{size_} * ::asc::kernel::bits_of<T> / ::asc::kernel::bits_of<U>),
                          pos_);
  }

  /// The TPosition as an integer (as Ascend C returns it).
  int32_t GetPosition() const { return static_cast<int32_t>(pos_); }
  /// Address of the first element (on the CPU device: the host address). The
  /// tensor's bytes are no longer elided in this block (see elide.h).
  uint64_t GetPhyAddr() const {
    ::asc::kernel::elide::escape(addr_, view_bytes());
    return reinterpret_cast<uint64_t>(addr_);
  }
  uint64_t GetPhyAddr(uint32_t offset) const {
    ::asc::kernel::elide::escape(at(offset), ::asc::kernel::bytes_for<T>(size_ > offset ? size_ - offset : 1));
    return reinterpret_cast<uint64_t>(at(offset));
  }

  /// pyasc extensions. data() is GetPhyAddr() as a pointer; raw() is the
  /// pointer without elision bookkeeping, for instruction implementations that
  /// call the asc::kernel::elide hooks themselves.
  T* data() const {
    ::asc::kernel::elide::escape(addr_, view_bytes());
    return addr_;
  }
  T* raw() const { return addr_; }
  TPosition position() const { return pos_; }

 private:
  uint64_t view_bytes() const { return ::asc::kernel::bytes_for<T>(size_ ? uint64_t{size_} : 1); }
  T* at(uint64_t offset) const { return ::asc::kernel::offset_ptr(addr_, offset); }

  T* addr_ = nullptr;
  uint32_t size_ = 0;
  TPosition pos_ = TPosition::VECCALC;
};

}  // namespace AscendC
