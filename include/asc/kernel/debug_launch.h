// The `kernel<<<blockDim, l2ctrl, stream>>>(args...)` launch syntax.
//
// `pyasc-cc` (and the CMake functions asc_add_executable / asc_add_library)
// translate each launch in an Ascend C source into
//
//   ::asc::detail::chevron_launch("kernel", kernel, blockDim, l2ctrl, stream)(args...)
//
// keeping every line where it was (diagnostics and __FILE__/__LINE__ point at
// the user's file), and include this header first. The launch is
// asynchronous on `stream` (nullptr / 0: the calling thread's current
// stream); `l2ctrl` is accepted and ignored, as it is on the CPU device.
// Arguments convert implicitly to the kernel's parameter types (a `void*`
// for a GM_ADDR parameter is a compile error, as with the Ascend compiler).
//
// Errors: like the device, the expression has no value. A launch that cannot
// be enqueued (blockDim 0, a handle that is not a stream) prints
// "[pyasc] kernel<<<...>>>: <message>" to stderr, leaves the message for
// aclGetRecentErrMsg() and, when the stream is valid, fails the stream's next
// synchronize (aclrtSynchronizeStream returns the code). Errors inside the
// kernel (an assert, an out-of-range access) fail the stream's next
// synchronize with the kernel name and block index.
//
// A kernel declared `__mix__(c, v)` launches as CANN's MIX mode: blockDim
// groups of c AIC and v AIV instances (asc/kernel/mix.h).
//
// Compiling with -DASC_KERNEL_CHECK=1 (`pyasc-cc --check`) requests the
// kernel checker for the whole program (as ASCEND_DEBUG=1 does at run time).
//
// Thread-safety: any thread may launch on any stream.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "asc/core/status.h"
#include "asc/kernel/mix.h"
#include "asc/runtime/launch.h"

namespace asc::kernel::debug {
void request_kernel_checks(bool on) noexcept;  // asc/kernel/debug.h
}  // namespace asc::kernel::debug

namespace asc::detail {

/// Reports a launch that could not be enqueued (see the file comment).
void chevron_launch_failed(const char* name, void* stream, const Error& e) noexcept;

template <typename D>
inline D chevron_arg(D v) {  // implicit conversion only, as a call would do
  return v;
}

template <typename R, typename... P>
struct ChevronLaunch {
  const char* name;
  R (*kernel)(P...);
  uint32_t block_dim;
  void* stream;
  ::asc::kernel::mix::Ratio mix_ratio{};  // from pyasc-cc's scan of __mix__(c, v); else the section lookup

  template <typename... Args>
  void operator()(Args&&... args) const {
    static_assert(sizeof...(Args) == sizeof...(P),
                  "kernel<<<...>>>(args...): the number of arguments differs from the kernel's parameters");
    try {
      const auto mix = mix_ratio.aic + mix_ratio.aiv != 0
                           ? mix_ratio
                           : ::asc::kernel::mix::mix_ratio_of(reinterpret_cast<const void*>(kernel));
      if (mix.aic + mix.aiv != 0) {
        launch_mix(mix, chevron_arg<std::decay_t<P>>(std::forward<Args>(args))...);
        return;
      }
      launch(std::string(name), kernel, block_dim, runtime::resolve_stream(stream),
             chevron_arg<std::decay_t<P>>(std::forward<Args>(args))...);
    } catch (const Error& e) {
      chevron_launch_failed(name, stream, e);
    }
  }

  // A __mix__(c, v) kernel: block_dim groups of c AIC and v AIV blocks
  // (asc/kernel/mix.h), each block's role set around the kernel call.
  template <typename... A>
  void launch_mix(::asc::kernel::mix::Ratio mix, A&&... args) const {
    const uint32_t per = static_cast<uint32_t>(mix.aic) + mix.aiv;
    if (block_dim > 65535u / per)
      throw Error(ErrorCode::kInvalidParam,
                  std::string("[") + name + "] blockDim " + std::to_string(block_dim) + " of a __mix__(" +
                      std::to_string(mix.aic) + ", " + std::to_string(mix.aiv) + ") kernel starts " +
                      std::to_string(uint64_t(block_dim) * per) + " cores, more than 65535");
    runtime::KernelInvocation inv;
    inv.name = name;
    inv.block_dim = block_dim * per;
    inv.body = [k = kernel, tup = std::make_tuple(std::forward<A>(args)...), mix,
                groups = block_dim](const runtime::BlockContext& ctx) mutable {
      ::asc::kernel::mix::RoleScope role(mix.aic, mix.aiv, ctx.block_idx, groups);
      std::apply(k, tup);
    };
    runtime::launch_invocation(std::move(inv), runtime::resolve_stream(stream));
  }
};

inline void* chevron_stream(void* s) { return s; }
inline void* chevron_stream(std::nullptr_t) { return nullptr; }
inline void* chevron_stream(int s) { return reinterpret_cast<void*>(static_cast<intptr_t>(s)); }
inline void* chevron_stream(long s) { return reinterpret_cast<void*>(static_cast<intptr_t>(s)); }

/// `name<<<blockDim, l2ctrl, stream>>>` (the stream may be left out).
/// Kernels return void: matching `void (*)(P...)` also picks the kernel out of
/// an overload set its name shares with C library functions (a sample's
/// kernel named `abs` or `select` next to ::abs(int) / ::select(...), which
/// return int), where deducing `R (*)(P...)` would be ambiguous.
template <typename... P, typename L2 = std::nullptr_t, typename S = std::nullptr_t>
inline ChevronLaunch<void, P...> chevron_launch(const char* name, void (*kernel)(P...), uint32_t block_dim,
                                                L2&& /*l2ctrl*/ = nullptr, S&& stream = nullptr) {
  return ChevronLaunch<void, P...>{name, kernel, block_dim, chevron_stream(stream)};
}

/// The launch of a kernel pyasc-cc saw declared `__mix__(C, V)`: GCC drops the
/// section attribute of function templates, so the driver passes the ratio.
template <uint8_t C, uint8_t V, typename... P, typename L2 = std::nullptr_t, typename S = std::nullptr_t>
inline ChevronLaunch<void, P...> chevron_launch_mix(const char* name, void (*kernel)(P...), uint32_t block_dim,
                                                    L2&& /*l2ctrl*/ = nullptr, S&& stream = nullptr) {
  static_assert(C + V > 0 && C <= 1 && V <= 2, "__mix__(c, v): CANN's ratios are (1, 2), (1, 1), (1, 0), (0, 1)");
  return ChevronLaunch<void, P...>{name, kernel, block_dim, chevron_stream(stream), {C, V}};
}

}  // namespace asc::detail

#if defined(ASC_KERNEL_CHECK) && ASC_KERNEL_CHECK
namespace asc::detail {
inline const bool kernel_check_requested_by_build = (::asc::kernel::debug::request_kernel_checks(true), true);
}
#endif
