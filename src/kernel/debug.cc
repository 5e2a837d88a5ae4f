// Kernel debug output: printf formatting, line prefixes, DumpTensor, assert.
#include "asc/kernel/debug.h"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "asc/core/half.h"

namespace asc::kernel::debug {
namespace {

// One lock for all debug output: a call's lines go out together. Never
// destroyed, so kernels still running during static destruction can print.
std::mutex& output_mutex() {
  static std::mutex* m = new std::mutex();
  return *m;
}
PrintSink& sink_slot() {
  static PrintSink* s = new PrintSink();
  return *s;
}

// Appends one conversion. `spec` is "%[flags][width][.prec]" (no length, no
// conversion letter); `conv` the conversion letter.
void format_one(std::string& out, const std::string& spec, char conv, const PrintArg* arg) {
  if (!arg) {
    out += "<missing>";
    return;
  }
  char buf[512];
  std::string f = spec;
  int n = 0;
  switch (conv) {
    case 'd':
    case 'i': {
      long long v = arg->kind == PrintArg::kSigned     ? arg->i
                    : arg->kind == PrintArg::kUnsigned ? static_cast<long long>(arg->u)
                    : arg->kind == PrintArg::kFloat    ? static_cast<long long>(arg->f)
                                                       : static_cast<long long>(reinterpret_cast<uintptr_t>(arg->p));
      f += "lld";
      n = std::snprintf(buf, sizeof buf, f.c_str(), v);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      unsigned long long v = arg->kind == PrintArg::kSigned     ? static_cast<unsigned long long>(arg->i)
                             : arg->kind == PrintArg::kUnsigned ? arg->u
                             : arg->kind == PrintArg::kFloat    ? static_cast<unsigned long long>(
                                                                   static_cast<long long>(arg->f))
                                                                : reinterpret_cast<uintptr_t>(arg->p);
      f += "ll";
      f += conv;
      n = std::snprintf(buf, sizeof buf, f.c_str(), v);
      break;
    }
    case 'c': {
      const int v = arg->kind == PrintArg::kSigned ? static_cast<int>(arg->i) : static_cast<int>(arg->u);
      f += 'c';
      n = std::snprintf(buf, sizeof buf, f.c_str(), v);
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      const double v = arg->kind == PrintArg::kFloat      ? arg->f
                       : arg->kind == PrintArg::kSigned   ? static_cast<double>(arg->i)
                       : arg->kind == PrintArg::kUnsigned ? static_cast<double>(arg->u)
                                                          : 0.0;
      f += conv;
      n = std::snprintf(buf, sizeof buf, f.c_str(), v);
      break;
    }
    case 's': {
      const char* s = arg->kind == PrintArg::kString ? (arg->s ? arg->s : "(null)") : nullptr;
      std::string tmp;
      if (!s) {  // a number for %s: print it plainly
        format_one(tmp, "%", arg->kind == PrintArg::kFloat ? 'g' : (arg->kind == PrintArg::kUnsigned ? 'u' : 'd'),
                   arg);
        s = tmp.c_str();
      }
      f += 's';
      // Strings may be longer than buf: measure first.
      const int len = std::snprintf(nullptr, 0, f.c_str(), s);
      if (len > 0) {
        std::string big(static_cast<size_t>(len) + 1, '\0');
        std::snprintf(&big[0], big.size(), f.c_str(), s);
        big.resize(static_cast<size_t>(len));
        out += big;
      }
      return;
    }
    case 'p': {
      const void* p = arg->kind == PrintArg::kPointer  ? arg->p
                      : arg->kind == PrintArg::kString ? static_cast<const void*>(arg->s)
                      : arg->kind == PrintArg::kUnsigned
                          ? reinterpret_cast<const void*>(static_cast<uintptr_t>(arg->u))
                          : reinterpret_cast<const void*>(static_cast<uintptr_t>(arg->i));
      f += 'p';
      n = std::snprintf(buf, sizeof buf, f.c_str(), p);
      break;
    }
    default:
      return;
  }
  if (n > 0) out.append(buf, static_cast<size_t>(n < static_cast<int>(sizeof buf) ? n : sizeof buf - 1));
}

std::string block_prefix(const runtime::BlockContext* b) {
  if (!b) return "[Host] ";
  return "[Block " + std::to_string(b->block_idx) + "/" + std::to_string(b->block_num) + "] ";
}

// Prefixes every line of `text`; the last line always ends in '\n'.
std::string prefixed(const std::string& prefix, const std::string& text) {
  std::string out;
  out.reserve(text.size() + prefix.size() * 2 + 1);
  size_t pos = 0;
  do {
    const size_t nl = text.find('\n', pos);
    out += prefix;
    if (nl == std::string::npos) {
      out.append(text, pos, std::string::npos);
      out += '\n';
      break;
    }
    out.append(text, pos, nl - pos + 1);
    pos = nl + 1;
  } while (pos < text.size());
  return out;
}

void write_out(const std::string& s) {
  std::lock_guard<std::mutex> lock(output_mutex());
  const PrintSink& sink = sink_slot();
  if (sink) {
    sink(s);
    return;
  }
  std::fwrite(s.data(), 1, s.size(), stdout);
  // Kernel output shows up at once and in order with the host's own stdio.
  std::fflush(stdout);
}

template <typename T>
void append_float(std::string& out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_value(std::string& out, const uint8_t* p, DType dt) {
  switch (dt) {
    case DType::kBool: out += (*p ? "true" : "false"); return;
    case DType::kInt8: out += std::to_string(static_cast<int>(*reinterpret_cast<const int8_t*>(p))); return;
    case DType::kUInt8: out += std::to_string(static_cast<unsigned>(*p)); return;
    default: break;
  }
  switch (dt) {
#define ASC_DUMP_INT_(CODE, TYPE)         \
  case DType::CODE: {                     \
    TYPE v;                               \
    std::memcpy(&v, p, sizeof v);         \
    out += std::to_string(v);             \
    return;                               \
  }
    ASC_DUMP_INT_(kInt16, int16_t)
    ASC_DUMP_INT_(kInt32, int32_t)
    ASC_DUMP_INT_(kInt64, int64_t)
    ASC_DUMP_INT_(kUInt16, uint16_t)
    ASC_DUMP_INT_(kUInt32, uint32_t)
    ASC_DUMP_INT_(kUInt64, uint64_t)
#undef ASC_DUMP_INT_
    case DType::kFloat16: {
      float16 v;
      std::memcpy(&v, p, 2);
      append_float(out, static_cast<float>(v));
      return;
    }
    case DType::kBFloat16: {
      bfloat16 v;
      std::memcpy(&v, p, 2);
      append_float(out, static_cast<float>(v));
      return;
    }
    case DType::kFloat32: {
      float v;
      std::memcpy(&v, p, 4);
      append_float(out, v);
      return;
    }
    case DType::kFloat64: {
      double v;
      std::memcpy(&v, p, 8);
      append_float(out, v);
      return;
    }
    default: out += "?"; return;
  }
}

}  // namespace

std::string format(const char* fmt, const PrintArg* args, size_t num_args) {
  std::string out;
  if (!fmt) return out;
  size_t next = 0;
  auto take = [&]() -> const PrintArg* { return next < num_args ? &args[next++] : (++next, nullptr); };
  for (const char* c = fmt; *c;) {
    if (*c != '%') {
      const char* e = std::strchr(c, '%');
      if (!e) e = c + std::strlen(c);
      out.append(c, e);
      c = e;
      continue;
    }
    const char* start = c++;
    if (*c == '%') {
      out += '%';
      ++c;
      continue;
    }
    std::string spec = "%";
    while (*c && std::strchr("-+ #0'", *c)) spec += *c++;
    if (*c == '*') {  // width from an argument
      const PrintArg* w = take();
      spec += std::to_string(w ? (w->kind == PrintArg::kUnsigned ? static_cast<long long>(w->u) : w->i) : 0);
      ++c;
    } else {
      while (*c >= '0' && *c <= '9') spec += *c++;
    }
    if (*c == '.') {
      spec += *c++;
      if (*c == '*') {
        const PrintArg* p = take();
        spec += std::to_string(p ? (p->kind == PrintArg::kUnsigned ? static_cast<long long>(p->u) : p->i) : 0);
        ++c;
      } else {
        while (*c >= '0' && *c <= '9') spec += *c++;
      }
    }
    while (*c && std::strchr("hlLqjzt", *c)) ++c;  // the argument's type decides
    const char conv = *c;
    if (conv == '\0') {  // a lone '%' at the end: print as written
      out.append(start);
      break;
    }
    ++c;
    if (conv == 'n') {
      (void)take();
      continue;
    }
    if (!std::strchr("diuoxXcsfFeEgGaAp", conv)) {  // unknown: print as written
      out.append(start, c);
      continue;
    }
    format_one(out, spec, conv, take());
  }
  return out;
}

std::string line_prefix() { return block_prefix(runtime::current_block()); }

void emit(const std::string& text) { write_out(prefixed(line_prefix(), text)); }

PrintSink set_print_sink(PrintSink sink) {
  std::lock_guard<std::mutex> lock(output_mutex());
  PrintSink old = std::move(sink_slot());
  sink_slot() = std::move(sink);
  return old;
}

void printf_impl(const char* fmt, const PrintArg* args, size_t num_args) { emit(format(fmt, args, num_args)); }

uint64_t local_offset(const void* p, AscendC::TPosition pos) {
  const runtime::BlockContext* b = runtime::current_block();
  const auto addr = reinterpret_cast<uint64_t>(p);
  if (!b || !b->arenas) return addr;
  const runtime::CoreArenas& a = *b->arenas;
  const uint8_t* base = nullptr;
  size_t size = 0;
  switch (hardware_of(pos)) {
    case AscendC::Hardware::UB: base = a.ub, size = a.ub_size; break;
    case AscendC::Hardware::L1: base = a.l1, size = a.l1_size; break;
    case AscendC::Hardware::L0A: base = a.l0a, size = a.l0a_size; break;
    case AscendC::Hardware::L0B: base = a.l0b, size = a.l0b_size; break;
    case AscendC::Hardware::L0C: base = a.l0c, size = a.l0c_size; break;
    default: return addr;
  }
  const auto b0 = reinterpret_cast<uint64_t>(base);
  return (base && addr >= b0 && addr < b0 + size) ? addr - b0 : addr;
}

void dump_impl(const void* data, DType dtype, uint64_t size_known, uint32_t dump_size, uint32_t desc, uint64_t addr,
               const char* position) {
  uint64_t n = dump_size;
  std::string text = "DumpTensor: desc=" + std::to_string(desc) + ", addr=";
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr));
  text += hex;
  text += ", data_type=";
  text += dtype_name(dtype);
  text += ", position=";
  text += position;
  text += ", dump_size=";
  if (size_known != 0 && n > size_known) {
    n = size_known;
    text += std::to_string(n) + " (clamped from " + std::to_string(dump_size) + ")";
  } else {
    text += std::to_string(n);
  }
  text += '\n';
  const size_t esize = dtype_size(dtype);
  const auto* p = static_cast<const uint8_t*>(data);
  constexpr uint64_t kPerRow = 16;
  for (uint64_t row = 0; row < n; row += kPerRow) {
    text += "[" + std::to_string(row) + "] ";
    const uint64_t end = row + kPerRow < n ? row + kPerRow : n;
    for (uint64_t i = row; i < end; ++i) {
      if (i != row) text += ", ";
      append_value(text, p + i * esize, dtype);
    }
    text += '\n';
  }
  emit(text);
}

void assert_fail(const char* expr, const char* file, int line, const char* func, const std::string& message) {
  (void)func;
  std::string what = std::string(file ? file : "?") + ":" + std::to_string(line) + ": Assertion `" +
                     (expr ? expr : "") + "' failed.";
  if (!message.empty()) {
    what += ' ';
    // One line in the error message; the printed form keeps the user's text.
    std::string m = message;
    while (!m.empty() && m.back() == '\n') m.pop_back();
    what += m;
  }
  if (!in_kernel()) {
    std::fprintf(stderr, "%s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
  }
  emit("[ASSERT] " + what + "\n");
  fail(ErrorCode::kRtAicoreException, "assert", what);
}

namespace {
std::atomic<int> g_check_request{-1};  // -1: not decided yet (read ASCEND_DEBUG)
}

bool kernel_checks_requested() noexcept {
  int v = g_check_request.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* e = std::getenv("ASCEND_DEBUG");
    int from_env = (e && *e && std::strcmp(e, "0") != 0) ? 1 : 0;
    // A request made meanwhile wins over the environment.
    g_check_request.compare_exchange_strong(v, from_env, std::memory_order_relaxed);
    v = g_check_request.load(std::memory_order_relaxed);
  }
  return v > 0;
}

void request_kernel_checks(bool on) noexcept { g_check_request.store(on ? 1 : 0, std::memory_order_relaxed); }

}  // namespace asc::kernel::debug
