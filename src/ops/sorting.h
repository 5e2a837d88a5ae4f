// Shared pieces of the sorting, searching and set ops (src/ops/sort.cc,
// search.cc, sets.cc): order-preserving integer keys of every dtype, the
// multi-core launch helper, and the row sorters that sort.cc implements.
//
// Keys: `SortKey<T>::key(v)` maps a value to an unsigned integer of the same
// width whose unsigned order is NumPy's sort order: integers in value order,
// floats with -0.0 == +0.0 (both map to the key of +0.0) and every NaN equal
// and greater than +Inf (NaN sorts last). Two values compare equal under
// NumPy's sort iff their keys are equal, except NaN, which the set ops treat
// separately (NaN != NaN).
//
// Thread-safety: the functions work on caller-owned buffers and may run
// concurrently on disjoint buffers.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/core/tensor.h"
#include "asc/ops/registry.h"
#include "asc/runtime/device.h"

namespace asc::ops::sorting {

template <size_t N>
struct UIntOf;
template <> struct UIntOf<1> { using type = uint8_t; };
template <> struct UIntOf<2> { using type = uint16_t; };
template <> struct UIntOf<4> { using type = uint32_t; };
template <> struct UIntOf<8> { using type = uint64_t; };

template <typename T>
struct SortKey {
  using U = typename UIntOf<sizeof(T)>::type;
  static constexpr U kSign = static_cast<U>(U(1) << (sizeof(U) * 8 - 1));
  static constexpr bool kFloat =
      std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

  static U bits(T v) noexcept {
    U u;
    std::memcpy(&u, &v, sizeof(U));
    return u;
  }
  static T from_bits(U u) noexcept {
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      return T::from_bits(u);
    } else {
      T v;
      std::memcpy(&v, &u, sizeof(U));
      return v;
    }
  }
  static bool is_nan(T v) noexcept {
    if constexpr (std::is_same_v<T, float16>) return (bits(v) & 0x7FFFu) > 0x7C00u;
    else if constexpr (std::is_same_v<T, bfloat16>) return (bits(v) & 0x7FFFu) > 0x7F80u;
    else if constexpr (std::is_floating_point_v<T>) return v != v;
    else return false;
  }
  static bool is_zero(T v) noexcept {
    if constexpr (kFloat) return (bits(v) & static_cast<U>(~kSign)) == 0;
    else return v == T(0);
  }
  /// Bijective order-preserving map of the bits (-0.0 < +0.0, NaNs by payload).
  /// Branch-free (a sign mask), so loops over it vectorise.
  static U raw_key(U b) noexcept {
    if constexpr (kFloat) {
      const U neg = static_cast<U>(U(0) - static_cast<U>(b >> (sizeof(U) * 8 - 1)));  // all ones if sign set
      return static_cast<U>(b ^ static_cast<U>(neg | kSign));
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<U>(b ^ kSign);
    } else {
      return b;
    }
  }
  static U raw_unkey(U k) noexcept {
    if constexpr (kFloat) {
      const U pos = static_cast<U>(static_cast<U>(k >> (sizeof(U) * 8 - 1)) - U(1));  // all ones if top bit clear
      return static_cast<U>(k ^ static_cast<U>(pos | kSign));
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<U>(k ^ kSign);
    } else {
      return k;
    }
  }
  /// Bits of +Inf (floats only): |bits| above it is NaN.
  static constexpr U inf_bits() noexcept {
    if constexpr (sizeof(U) == 2) return std::is_same_v<T, float16> ? U(0x7C00) : U(0x7F80);
    else if constexpr (sizeof(U) == 4) return U(0x7F800000u);
    else return U(0x7FF0000000000000ull);
  }
  /// NumPy's order: -0.0 and +0.0 one key, every NaN the largest key.
  static U key(T v) noexcept {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? 1 : 0;
    } else if constexpr (kFloat) {
      if (is_nan(v)) return static_cast<U>(~U(0));
      const U b = bits(v);
      if ((b & static_cast<U>(~kSign)) == 0) return kSign;  // +-0
      return raw_key(b);
    } else {
      return raw_key(bits(v));
    }
  }
};

template <typename T>
struct is_std_complex : std::false_type {};
template <typename R>
struct is_std_complex<std::complex<R>> : std::true_type {};

/// An opaque op that accepts complex operands (OpDef::complex_ok).
inline OpDef with_complex(OpDef d) {
  d.complex_ok = true;
  return d;
}

/// NumPy's order of complex values (npysort's CFLOAT_LT): lexicographic on
/// (real, imag) with -0.0 == +0.0, then the NaN classes last in the order
/// [R + Rj, R + nanj, nan + Rj, nan + nanj]; inside a class the parts that
/// are numbers order the values (R + nanj by real, nan + Rj by imag; all
/// nan + nanj are equal). An element is `(cls, k1, k2)` and compares as that
/// tuple; k1/k2 are the part's SortKey (0 where the part does not count).
template <typename R>
struct ComplexKey {
  using C = std::complex<R>;
  using SK = SortKey<R>;
  using U = typename SK::U;
  static bool has_nan(const C& v) noexcept { return SK::is_nan(v.real()) || SK::is_nan(v.imag()); }
  /// 0: both parts numbers, 1: imag NaN, 2: real NaN, 3: both NaN.
  static unsigned cls(const C& v) noexcept {
    return (SK::is_nan(v.real()) ? 2u : 0u) | (SK::is_nan(v.imag()) ? 1u : 0u);
  }
  static U k1(const C& v, unsigned c) noexcept {
    return c <= 1 ? SK::key(v.real()) : c == 2 ? SK::key(v.imag()) : U(0);
  }
  static U k2(const C& v, unsigned c) noexcept { return c == 0 ? SK::key(v.imag()) : U(0); }
  static bool less(const C& a, const C& b) noexcept {
    const unsigned ca = cls(a), cb = cls(b);
    if (ca != cb) return ca < cb;
    const U a1 = k1(a, ca), b1 = k1(b, cb);
    if (a1 != b1) return a1 < b1;
    return k2(a, ca) < k2(b, cb);
  }
  /// NumPy's ==: no NaN part and equal parts (-0.0 == +0.0).
  static bool equal(const C& a, const C& b) noexcept { return !has_nan(a) && !has_nan(b) && !less(a, b) && !less(b, a); }
};

/// NumPy's sort order as a strict weak order on any dtype (keys for reals,
/// ComplexKey for complex).
template <typename T>
inline bool order_less(const T& a, const T& b) noexcept {
  return SortKey<T>::key(a) < SortKey<T>::key(b);
}
template <typename R>
inline bool order_less(const std::complex<R>& a, const std::complex<R>& b) noexcept {
  return ComplexKey<R>::less(a, b);
}
/// Whether the value has a NaN (in either part for complex).
template <typename T>
inline bool value_has_nan(const T& v) noexcept {
  return SortKey<T>::is_nan(v);
}
template <typename R>
inline bool value_has_nan(const std::complex<R>& v) noexcept {
  return ComplexKey<R>::has_nan(v);
}

/// Number of cores of the current device.
inline int num_cores() { return runtime::current_device().properties().num_cores; }

/// Runs body(block) for block in [0, blocks) on the cores of the current
/// device (one launch); blocks == 1 runs on the calling thread.
template <typename Body>
void launch(const std::string& name, int64_t blocks, Body&& body) {
  if (blocks <= 1) {
    if (blocks == 1) body(int64_t{0});
    return;
  }
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(blocks);
  inv.body = [&body](const runtime::BlockContext& ctx) { body(static_cast<int64_t>(ctx.block_idx)); };
  runtime::current_device().run_kernel(inv).ThrowIfError();
}

/// Below this many elements work stays on the calling thread.
constexpr int64_t kParallelMin = int64_t(1) << 16;

/// Sorts each row of `rows` (a C-contiguous (R, n) tensor, modified in place)
/// in NumPy's order (NaN last; complex: ComplexKey's order); equal elements (+-0.0, NaNs) keep their input
/// order. `descending`: largest first, NaNs first, equal elements still in
/// input order (the array API's stable descending sort). Rows are split over
/// the cores; a long single row is sorted in parallel chunks and merged.
/// `src` (optional, C-contiguous, rows' shape and dtype): sort src's rows into
/// `rows` instead (src is not modified; the copy is fused into the first pass).
void sort_rows(const Tensor& rows, bool descending, const std::string& op, const Tensor* src = nullptr);

/// out (C-contiguous int64 (R, n)) = the stable argsort of each row of `rows`
/// (C-contiguous (R, n)); descending: keys descending, NaNs first, ties in
/// ascending index order.
void argsort_rows(const Tensor& rows, const Tensor& out, bool descending, const std::string& op);

/// Moves axis `axis` of `x` last (a view).
Tensor axis_last(const Tensor& x, int64_t axis);
/// The inverse permutation of axis_last: a view of `y` (axis last) with the
/// axis back at position `axis`.
Tensor axis_back(const Tensor& y, int64_t axis);

}  // namespace asc::ops::sorting
