// CANN's kernel log and assert macros of its CPU-debug build:
//   KERNEL_LOG(KERNEL_ERROR, "fmt", args...)   -> "[ERROR] ... fmt" on stderr
//   ASCENDC_ASSERT(cond, { behaviour; })       -> runs behaviour, then fails
// CANN's CPU build raises SIGABRT on a failed ASCENDC_ASSERT; pyasc fails the
// running kernel (or throws asc::Error outside one) with the condition's text
// instead, so a host process (Python included) is not killed.
#pragma once

#include <cstdio>

#include "asc/kernel/context.h"

#ifndef KERNEL_DEBUG
#define KERNEL_DEBUG 0
#define KERNEL_INFO 1
#define KERNEL_WARN 2
#define KERNEL_ERROR 3
#endif

namespace asc::kernel {
inline const char* kernel_log_level(int level) {
  switch (level) {
    case 0: return "DEBUG";
    case 1: return "INFO";
    case 2: return "WARN";
    default: return "ERROR";
  }
}
}  // namespace asc::kernel

#ifndef KERNEL_LOG
#define KERNEL_LOG(level, format, ...)                                                               \
  std::fprintf(stderr, "[%s] %s:%d " format "\n", ::asc::kernel::kernel_log_level(level), __FILE__, \
               __LINE__, ##__VA_ARGS__)
#endif

#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, behavior)                                                                  \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      behavior;                                                                                         \
      ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "ASCENDC_ASSERT", "assertion failed: " #cond); \
    }                                                                                                   \
  } while (0)
#endif
