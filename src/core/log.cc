#include "asc/core/log.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>

namespace asc {
namespace detail {

static int initial_level() {
  const char* lvl = std::getenv("ASC_LOG_LEVEL");
  if (lvl && *lvl) {
    if (!std::strcmp(lvl, "debug") || !std::strcmp(lvl, "0")) return 0;
    if (!std::strcmp(lvl, "info") || !std::strcmp(lvl, "1")) return 1;
    if (!std::strcmp(lvl, "warning") || !std::strcmp(lvl, "2")) return 2;
    if (!std::strcmp(lvl, "error") || !std::strcmp(lvl, "3")) return 3;
    if (!std::strcmp(lvl, "off") || !std::strcmp(lvl, "4")) return 4;
  }
  const char* dbg = std::getenv("PYASC_DEBUG");
  if (dbg && *dbg && std::strcmp(dbg, "0") != 0) return 0;
  return 2;
}

std::atomic<int> g_log_level{initial_level()};

}  // namespace detail

void set_log_level(LogLevel level) noexcept {
  detail::g_log_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

namespace {
// fork(): the forking thread holds the log lock across fork() (a leaf lock),
// so no half-written line is in flight and the child's lock is re-created.
std::mutex& log_mu();
void log_fork_prepare() noexcept { log_mu().lock(); }
void log_fork_parent() noexcept { log_mu().unlock(); }
void log_fork_child() noexcept { new (&log_mu()) std::mutex(); }
std::mutex& log_mu() {
  static auto* m = [] {
    auto* p = new std::mutex();  // leaked: logging may run during shutdown
    ::pthread_atfork(&log_fork_prepare, &log_fork_parent, &log_fork_child);
    return p;
  }();
  return *m;
}
}  // namespace

void log_write(LogLevel level, const char* component, const std::string& message) {
  std::mutex& mu = log_mu();
  static FILE* out = [] {
    const char* path = std::getenv("PYASC_LOG_FILE");
    if (path && *path) {
      if (FILE* f = std::fopen(path, "a")) return f;
    }
    return stderr;
  }();
  static const char kLetters[] = {'D', 'I', 'W', 'E', 'O'};
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  long tid = static_cast<long>(::syscall(SYS_gettid));
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(out, "[pyasc %s.%06lldZ %c tid=%ld %s] %s\n", ts, static_cast<long long>(us % 1000000),
               kLetters[static_cast<int>(level)], tid, component, message.c_str());
  std::fflush(out);
}

}  // namespace asc
