"""The C++ prologue of every translated kernel: helpers with Python semantics
(floor division, modulo), the local-memory placement of ``asc.LocalTensor``
and ``LocalTensorAuto``, and the kernel's assert."""

PRELUDE = r'''
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "asc/kernel/local_mem_allocator.h"
#include "asc/runtime/launch.h"

namespace asc_jit {
// Python's // and % (floor, sign of the divisor) on integers.
inline int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t pymod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T>
inline T pyfmod(T a, T b) {
  T r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t ipow(int64_t a, int64_t e) {
  int64_t r = 1;
  for (; e > 0; --e) r *= a;
  return r;
}
inline int64_t ceildiv(int64_t a, int64_t b) { return floordiv(a + b - 1, b); }
inline int64_t clz64(uint64_t v) { return v ? __builtin_clzll(v) : 64; }

// asc.LocalTensor(dtype, pos, addr, len): `len` elements at byte `addr` of the memory of `pos`.
template <typename T>
inline AscendC::LocalTensor<T> local_at(AscendC::Hardware hw, AscendC::TPosition pos, uint32_t addr, uint32_t len) {
  uint32_t cursor = addr;
  return AscendC::LocalTensor<T>(
      reinterpret_cast<T*>(::asc::kernel::local_mem_alloc(hw, &cursor, uint64_t{len} * sizeof(T))), len, pos);
}

// asc.LocalTensorAuto: each site's space is reserved the first time it runs, from the top of the UB down.
template <typename T>
inline AscendC::LocalTensor<T> local_auto(uint32_t* site, uint32_t* top, uint32_t len) {
  const uint32_t bytes = static_cast<uint32_t>((uint64_t{len} * sizeof(T) + 31) & ~uint64_t{31});
  const auto* b = ::asc::runtime::current_block();
  const uint32_t ub = b && b->arenas ? static_cast<uint32_t>(b->arenas->ub_size) : 0;
  if (*site == UINT32_MAX) {
    if (*top + bytes > ub) {
      ::asc::kernel::fail(::asc::ErrorCode::kStorageOverLimit, "LocalTensorAuto",
                          std::to_string(bytes) + " bytes requested but only " + std::to_string(ub - *top) +
                              " of the UB's " + std::to_string(ub) + " bytes are left");
    }
    *top += bytes;
    *site = ub - *top;
  }
  uint32_t cursor = *site;
  return AscendC::LocalTensor<T>(
      reinterpret_cast<T*>(::asc::kernel::local_mem_alloc(AscendC::Hardware::UB, &cursor, bytes)), len,
      AscendC::TPosition::VECCALC);
}

[[noreturn]] inline void assert_fail(const char* what, const char* file, int line) {
  ::asc::kernel::fail(::asc::ErrorCode::kFailure, "assert",
                      std::string(file) + ":" + std::to_string(line) + ": " + what);
}
}  // namespace asc_jit
'''
