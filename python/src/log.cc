// Logging level and log lines (asc/core/log.h).
#include "asc/core/log.h"

#include <string>

#include "asc/core/status.h"
#include "bindings.h"

namespace pyasc {

namespace {

asc::LogLevel to_level(int level) {
  if (level < static_cast<int>(asc::LogLevel::kDebug) || level > static_cast<int>(asc::LogLevel::kOff)) {
    throw asc::Error(asc::ErrorCode::kInvalidParam,
                     "[set_log_level] level must be 0 (debug) .. 4 (off), got " + std::to_string(level));
  }
  return static_cast<asc::LogLevel>(level);
}

}  // namespace

void init_log(py::module_& m) {
  m.def(
      "set_log_level", [](int level) { asc::set_log_level(to_level(level)); }, py::arg("level"),
      "Sets the log level: 0 debug, 1 info, 2 warning, 3 error, 4 off.");
  m.def(
      "get_log_level", [] { return static_cast<int>(asc::log_level()); },
      "The log level (0 debug .. 4 off); initially from ASC_LOG_LEVEL / PYASC_DEBUG.");
  m.def(
      "log",
      [](int level, const std::string& component, const std::string& message) {
        asc::LogLevel l = to_level(level);
        if (asc::log_enabled(l)) asc::log_write(l, component.c_str(), message);
      },
      py::arg("level"), py::arg("component"), py::arg("message"),
      "Writes one log line through the C++ logger when `level` is enabled.");
}

}  // namespace pyasc
