// Debug output from kernels: AscendC::printf / PRINTF, DumpTensor, and
// assert / ascendc_assert.
//
// Output format (stdout unless a sink is installed, see set_print_sink):
//
//   * Every line a kernel prints starts with "[Block <idx>/<num>] ", the
//     block index and blockDim of the running block ("[Host] " outside a
//     kernel). One printf call writes whole lines under one lock, so lines of
//     blocks running at the same time never interleave mid-line; a call whose
//     text does not end in '\n' still ends its line (each call is one record,
//     as the device's printf buffer keeps it).
//   * printf formats like C printf: flags, width, precision, `*`, the length
//     modifiers (hh h l ll z j t L, ignored: the argument's own type decides),
//     conversions d i u o x X c s p f F e E g G a A and %%. half and
//     bfloat16_t arguments print as floating values; a conversion whose
//     argument has another kind is converted (an integer for %f, ...), a
//     missing argument prints "<missing>", %n prints nothing.
//   * DumpTensor(tensor, desc, dumpSize) prints a header and rows of 16
//     values, each row starting with the index of its first element:
//       [Block 0/8] DumpTensor: desc=5, addr=0x100, data_type=float32, position=VECIN, dump_size=20
//       [Block 0/8] [0] 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
//       [Block 0/8] [16] 17, 18, 19, 20
//     addr is the byte offset in the tensor's memory (UB/L1/L0) for a
//     LocalTensor and the address for a GlobalTensor; position is the
//     TPosition name ("GM" for GlobalTensor). Floating values print in the
//     shortest form that reads back as the same float (half and bfloat16_t
//     via float): "1.5", "-0", "nan", "inf"; integers in decimal. dumpSize
//     counts elements; a dumpSize above a known tensor size is clamped to it
//     and the header then says "dump_size=<n> (clamped from <dumpSize>)".
//   * assert(expr) / assert(expr, fmt, args...) / ascendc_assert(...): inside
//     a kernel, a false expr prints
//       [Block 3/8] [ASSERT] <file>:<line>: Assertion `expr' failed. <message>
//     and throws asc::Error(ACL_ERROR_RT_AICORE_EXCEPTION 507015,
//     "[assert] kernel '<name>' block 3 of 8: <file>:<line>: Assertion `expr'
//     failed. <message>"): the launch fails with that code (the stream's
//     synchronize(), aclrtSynchronizeStream, ICPU_RUN_KF return it) and the
//     process goes on. Kernel asserts are active whatever NDEBUG says (as on
//     the device); -DASCENDC_DUMP=0 removes them together with printf and
//     DumpTensor. Outside a kernel assert behaves like the C one: disabled by
//     NDEBUG, otherwise a failure prints to stderr and aborts.
//
// Thread-safety: every call may run concurrently from any number of blocks.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace asc::kernel::debug {

/// One printf argument, reduced to the kinds a conversion can print.
struct PrintArg {
  enum Kind : uint8_t { kSigned, kUnsigned, kFloat, kString, kPointer };
  Kind kind = kSigned;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0.0;
  const char* s = nullptr;
  const void* p = nullptr;
};

template <typename T>
PrintArg make_print_arg(const T& v) {
  using D = std::decay_t<T>;
  PrintArg a;
  if constexpr (std::is_same_v<D, ::asc::float16> || std::is_same_v<D, ::asc::bfloat16>) {
    a.kind = PrintArg::kFloat;
    a.f = static_cast<double>(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<D>) {
    a.kind = PrintArg::kFloat;
    a.f = static_cast<double>(v);
  } else if constexpr (std::is_same_v<D, bool>) {
    a.kind = PrintArg::kSigned;
    a.i = v ? 1 : 0;
  } else if constexpr (std::is_enum_v<D>) {
    a.kind = PrintArg::kSigned;
    a.i = static_cast<int64_t>(v);
  } else if constexpr (std::is_integral_v<D> && std::is_signed_v<D>) {
    a.kind = PrintArg::kSigned;
    a.i = static_cast<int64_t>(v);
  } else if constexpr (std::is_integral_v<D>) {
    a.kind = PrintArg::kUnsigned;
    a.u = static_cast<uint64_t>(v);
  } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
    a.kind = PrintArg::kString;
    a.s = v;
  } else if constexpr (std::is_pointer_v<D>) {
    a.kind = PrintArg::kPointer;
    a.p = reinterpret_cast<const void*>(v);
  } else if constexpr (std::is_same_v<D, std::string>) {
    a.kind = PrintArg::kString;
    a.s = v.c_str();
  } else {
    static_assert(std::is_arithmetic_v<D>, "AscendC::printf: unsupported argument type");
  }
  return a;
}

/// Formats `fmt` with `args` (rules in the file comment); never throws for a
/// bad format (an unknown conversion prints as written).
std::string format(const char* fmt, const PrintArg* args, size_t num_args);

/// Writes `text` as whole lines, each prefixed with the calling block's
/// "[Block i/n] " (or "[Host] "), atomically with respect to other calls.
void emit(const std::string& text);

/// The line prefix of the calling thread: "[Block i/n] " or "[Host] ".
std::string line_prefix();

/// Redirects debug output (printf, DumpTensor, assert messages): `sink`
/// receives each call's complete, prefixed text (one or more lines ending in
/// '\n'), called under the output lock. An empty function restores stdout.
/// Returns the previous sink (empty = stdout).
using PrintSink = std::function<void(const std::string&)>;
PrintSink set_print_sink(PrintSink sink);

void printf_impl(const char* fmt, const PrintArg* args, size_t num_args);

/// DumpTensor's non-template part. `addr` is printed as given (hex).
void dump_impl(const void* data, ::asc::DType dtype, uint64_t size_known, uint32_t dump_size, uint32_t desc,
               uint64_t addr, const char* position);

/// Byte offset of `p` in the running core's arena for `pos` (or the address
/// itself when it is not inside that arena).
uint64_t local_offset(const void* p, AscendC::TPosition pos);

/// Reports a failed assert (see the file comment); throws inside a kernel,
/// aborts outside.
[[noreturn]] void assert_fail(const char* expr, const char* file, int line, const char* func,
                              const std::string& message);

inline bool in_kernel() noexcept { return ::asc::runtime::current_block() != nullptr; }

template <typename... Args>
[[noreturn]] void assert_fail_fmt(const char* expr, const char* file, int line, const char* func, const char* fmt,
                                  const Args&... args) {
  const PrintArg a[sizeof...(Args) + 1] = {make_print_arg(args)..., PrintArg{}};
  assert_fail(expr, file, line, func, format(fmt ? fmt : "", a, sizeof...(Args)));
}

/// The kernel checker (ASCEND_DEBUG=1 at run time, `pyasc-cc --check`, which
/// compiles with -DASC_KERNEL_CHECK=1, or request_kernel_checks()) asks this
/// whether it should check. Reads ASCEND_DEBUG once.
bool kernel_checks_requested() noexcept;
/// Turns the request on or off for the whole process.
void request_kernel_checks(bool on = true) noexcept;

}  // namespace asc::kernel::debug

namespace AscendC {

/// printf from a kernel; every output line starts with "[Block i/n] ".
template <typename... Args>
inline void printf(const char* fmt, const Args&... args) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP
  const ::asc::kernel::debug::PrintArg a[sizeof...(Args) + 1] = {::asc::kernel::debug::make_print_arg(args)...,
                                                                 ::asc::kernel::debug::PrintArg{}};
  ::asc::kernel::debug::printf_impl(fmt, a, sizeof...(Args));
#else
  (void)fmt;
  ((void)args, ...);
#endif
}

/// Prints `dumpSize` elements of a local tensor (format in asc/kernel/debug.h).
template <typename T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP
  const uint32_t n = dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize();
  // Pending (elided) copies into these bytes become real before we read them.
  ::asc::kernel::elide::read(tensor.raw(), uint64_t{n} * sizeof(T));
  ::asc::kernel::debug::dump_impl(tensor.raw(), ::asc::dtype_of<T>(), tensor.GetSize(), dumpSize, desc,
                                  ::asc::kernel::debug::local_offset(tensor.raw(), tensor.position()),
                                  ::asc::kernel::position_name(tensor.position()));
#else
  (void)tensor, (void)desc, (void)dumpSize;
#endif
}

/// Prints `dumpSize` elements of a global tensor (size 0 = unknown: not clamped).
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP
  // Pending copy-outs into this GM are written first (GetPhyAddr does it).
  const T* p = tensor.GetPhyAddr();
  ::asc::kernel::debug::dump_impl(p, ::asc::dtype_of<T>(), tensor.GetSize(), dumpSize, desc,
                                  reinterpret_cast<uint64_t>(p), "GM");
#else
  (void)tensor, (void)desc, (void)dumpSize;
#endif
}

}  // namespace AscendC

#ifndef PRINTF
#define PRINTF AscendC::printf
#endif

#include "asc/kernel/debug_assert.h"
