// Logging. Off (warnings and errors only) by default; `PYASC_DEBUG=1` turns on
// debug logs, `ASC_LOG_LEVEL` = debug|info|warning|error|off (or 0..4) sets the
// level, `PYASC_LOG_FILE` sends lines to a file instead of stderr.
//
// A line: "[pyasc 2026-11-29T10:41:02.123456Z D tid=1234 component] message".
// The macros test the level before building the message, so a disabled log
// costs one relaxed atomic load and a branch.
//
// Thread-safety: all functions may be called from any thread; lines are written
// whole.
#pragma once

#include <atomic>
#include <sstream>
#include <string>

namespace asc {

enum class LogLevel : int { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

namespace detail {
extern std::atomic<int> g_log_level;
}

/// Current level (read from the environment at load time).
inline LogLevel log_level() noexcept {
  return static_cast<LogLevel>(detail::g_log_level.load(std::memory_order_relaxed));
}
void set_log_level(LogLevel level) noexcept;
inline bool log_enabled(LogLevel level) noexcept {
  return static_cast<int>(level) >= detail::g_log_level.load(std::memory_order_relaxed);
}
/// Writes one line (use the ASC_LOG macro instead).
void log_write(LogLevel level, const char* component, const std::string& message);

}  // namespace asc

#define ASC_LOG(level, component, stream_expr)                             \
  do {                                                                     \
    if (::asc::log_enabled(level)) {                                       \
      std::ostringstream _asc_os;                                          \
      _asc_os << stream_expr;                                              \
      ::asc::log_write(level, component, _asc_os.str());                   \
    }                                                                      \
  } while (0)
#define ASC_LOG_DEBUG(component, x) ASC_LOG(::asc::LogLevel::kDebug, component, x)
#define ASC_LOG_INFO(component, x) ASC_LOG(::asc::LogLevel::kInfo, component, x)
#define ASC_LOG_WARNING(component, x) ASC_LOG(::asc::LogLevel::kWarning, component, x)
#define ASC_LOG_ERROR(component, x) ASC_LOG(::asc::LogLevel::kError, component, x)
