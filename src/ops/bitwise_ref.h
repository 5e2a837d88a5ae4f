// Scalar definitions of the bitwise ops (NumPy 2.4's npy_lshift/npy_rshift,
// bitwise_count of |x|): the strided loops of src/ops/bitwise.cc and the
// tails of the SIMD kernels (src/ops/bitwise_simd.cc) use them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/bitwise_simd.h"

namespace asc::ops::bitwise::ref {

/// a op b for an integer T (shift counts compared as the unsigned type).
template <typename T>
inline T binary(BinOp op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr U kBits = static_cast<U>(sizeof(T) * 8);
  switch (op) {
    case BinOp::kAnd: return static_cast<T>(a & b);
    case BinOp::kOr: return static_cast<T>(a | b);
    case BinOp::kXor: return static_cast<T>(a ^ b);
    case BinOp::kLeftShift:
      return static_cast<U>(b) < kBits ? static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<U>(b))) : T(0);
    case BinOp::kRightShift:
      if (static_cast<U>(b) < kBits) return static_cast<T>(a >> static_cast<U>(b));
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      return T(0);
  }
  return T(0);
}

/// Logical and/or/xor of two bool bytes (any nonzero byte is true) as 0/1.
inline uint8_t bool_binary(BinOp op, uint8_t a, uint8_t b) {
  const bool x = a != 0, y = b != 0;
  switch (op) {
    case BinOp::kAnd: return x && y;
    case BinOp::kOr: return x || y;
    case BinOp::kXor: return x != y;
    default: return 0;
  }
}

/// Number of one bits of |a| (NumPy's bitwise_count), for an integer T.
template <typename T>
inline uint8_t count(T a) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(a);
  if constexpr (std::is_signed_v<T>) {
    if (a < 0) u = static_cast<U>(U(0) - u);
  }
  return static_cast<uint8_t>(__builtin_popcountll(static_cast<unsigned long long>(u)));
}

}  // namespace asc::ops::bitwise::ref
