// assert / ascendc_assert for kernels (rules in asc/kernel/debug.h).
//
// No include guard on purpose: <assert.h> redefines `assert` each time it is
// included, so kernel_operator.h includes this again after its other headers
// and the kernel form wins whatever a source included before.
#include "asc/kernel/debug.h"

// assert(expr) / assert(expr, fmt, args...): see the file comment. The extra
// "" makes the message optional in standard C++17 (it is never printed: it is
// an argument beyond the format's conversions).
#undef ASC_DEBUG_ASSERT_ACTIVE_
#undef ASC_DEBUG_ASSERT_
#if !defined(ASCENDC_DUMP) || ASCENDC_DUMP
#ifdef NDEBUG
#define ASC_DEBUG_ASSERT_ACTIVE_() ::asc::kernel::debug::in_kernel()
#else
#define ASC_DEBUG_ASSERT_ACTIVE_() true
#endif
#define ASC_DEBUG_ASSERT_(expr, ...)                                                                              \
  ((ASC_DEBUG_ASSERT_ACTIVE_() && !static_cast<bool>(expr))                                                      \
       ? ::asc::kernel::debug::assert_fail_fmt(#expr, __FILE__, __LINE__, __func__, __VA_ARGS__)                 \
       : static_cast<void>(0))
#else
#define ASC_DEBUG_ASSERT_(expr, ...) static_cast<void>(0)
#endif
#ifdef assert
#undef assert
#endif
#undef ascendc_assert
#define assert(...) ASC_DEBUG_ASSERT_(__VA_ARGS__, "")
#define ascendc_assert(...) ASC_DEBUG_ASSERT_(__VA_ARGS__, "")
// ASSERT(expr): the kernel headers' upper-case spelling (the advanced-API
// samples call it); the same kernel assert. Left alone if a source defines it.
#ifndef ASSERT
#define ASSERT(...) ASC_DEBUG_ASSERT_(__VA_ARGS__, "")
#endif
