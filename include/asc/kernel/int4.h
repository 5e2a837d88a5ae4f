// AscendC::int4b_t: CANN's signed 4-bit integer ("S4", values -8..7).
//
// CANN stores int4b_t packed, two elements per byte: element 2i in the low
// nibble and element 2i+1 in the high nibble of byte i (the samples'
// gen_data.py pack `(x[2i+1] << 4) | (x[2i] & 0xF)`). sizeof(int4b_t) is 1 (a
// sample notes "sizeof(int4b_t) = 1 Byte"), but a tensor of int4b_t holds
// two elements per byte: element counts (GetSize, operator[], the tileSize of
// a LocalTensor, Cast/Mmad counts) are in 4-bit elements and byte sizes are
// half of them (CANN's Cast doc: "an int4b_t takes half a byte").
//
// The traits below are what tensor views use for that arithmetic:
// bits_of<T> (4 for int4b_t, 8 * sizeof(T) otherwise), bytes_for<T>(n) and
// elems_in<T>(bytes), and offset_ptr(p, n), the address of element n.
//
// A value of int4b_t (GetValue / SetValue of one element) is an object that
// holds the 4-bit value sign-extended in a byte; it converts to and from int.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <type_traits>

namespace AscendC {

struct int4b_t {
  int8_t value = 0;  // -8..7 (the low nibble, sign-extended)

  constexpr int4b_t() = default;
  /// The low 4 bits of `v`, as the hardware keeps them (wraps, no saturation).
  constexpr int4b_t(int v) : value(static_cast<int8_t>(static_cast<int8_t>((v & 0xF) << 4) >> 4)) {}
  constexpr operator int() const { return value; }
  /// The nibble (0..15).
  constexpr uint8_t bits() const { return static_cast<uint8_t>(value) & 0xF; }
};

}  // namespace AscendC

namespace asc::kernel {

template <typename T>
inline constexpr bool is_int4_v = std::is_same_v<std::remove_cv_t<T>, ::AscendC::int4b_t>;

/// Bits of one element in memory.
template <typename T>
inline constexpr uint64_t bits_of = is_int4_v<T> ? 4 : 8 * sizeof(T);

/// Bytes that `n` elements of T take (an odd int4 count rounds up).
template <typename T>
constexpr uint64_t bytes_for(uint64_t n) {
  return (n * bits_of<T> + 7) / 8;
}
/// Elements of T in `bytes` bytes.
template <typename T>
constexpr uint64_t elems_in(uint64_t bytes) {
  return bytes * 8 / bits_of<T>;
}
/// The address of element `n` after `p` (int4: byte n / 2; an odd n points
/// at the byte holding that element's low-nibble neighbour, as an instruction
/// address must be byte aligned anyway).
template <typename T, typename I>
constexpr T* offset_ptr(T* p, I n) {
  if constexpr (is_int4_v<T>) {
    using B = std::conditional_t<std::is_const_v<T>, const uint8_t, uint8_t>;
    return reinterpret_cast<T*>(reinterpret_cast<B*>(p) + static_cast<uint64_t>(n) / 2);
  } else {
    return p + n;
  }
}

/// Element `i` of a packed int4 array.
inline int8_t int4_get(const void* base, uint64_t i) {
  const uint8_t b = static_cast<const uint8_t*>(base)[i / 2];
  const uint8_t nib = (i & 1) ? (b >> 4) : (b & 0xF);
  return static_cast<int8_t>(static_cast<int8_t>(nib << 4) >> 4);
}
/// Sets element `i` of a packed int4 array to the low 4 bits of `v`.
inline void int4_set(void* base, uint64_t i, int v) {
  uint8_t& b = static_cast<uint8_t*>(base)[i / 2];
  const uint8_t nib = static_cast<uint8_t>(v) & 0xF;
  b = (i & 1) ? static_cast<uint8_t>((b & 0x0F) | (nib << 4)) : static_cast<uint8_t>((b & 0xF0) | nib);
}

}  // namespace asc::kernel
