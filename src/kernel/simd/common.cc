// Names of the vector operations and round modes (error messages, logs), and
// the ASC_SIMD_TARGET override of Highway's target choice.
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <string>

#include <hwy/targets.h>

#include "asc/core/log.h"
#include "asc/core/status.h"
#include "kernel/simd/tables.h"

namespace asc::kernel {

const char* round_mode_name(RoundMode m) noexcept {
  switch (m) {
    case RoundMode::CAST_NONE: return "CAST_NONE";
    case RoundMode::CAST_RINT: return "CAST_RINT";
    case RoundMode::CAST_FLOOR: return "CAST_FLOOR";
    case RoundMode::CAST_CEIL: return "CAST_CEIL";
    case RoundMode::CAST_ROUND: return "CAST_ROUND";
    case RoundMode::CAST_TRUNC: return "CAST_TRUNC";
    case RoundMode::CAST_ODD: return "CAST_ODD";
  }
  return "CAST_UNKNOWN";
}

namespace simd {

const char* op_name(BinaryOp op) noexcept {
  static const char* const kNames[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumBinaryOps, "one name per BinaryOp");
  return idx(op) < kNumBinaryOps ? kNames[idx(op)] : "BinaryOp?";
}

const char* op_name(ScalarOp op) noexcept {
  static const char* const kNames[] = {"Adds", "Muls", "Maxs", "Mins"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumScalarOps, "one name per ScalarOp");
  return idx(op) < kNumScalarOps ? kNames[idx(op)] : "ScalarOp?";
}

const char* op_name(UnaryOp op) noexcept {
  static const char* const kNames[] = {"Exp", "Ln", "Abs", "Relu", "Sqrt"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumUnaryOps, "one name per UnaryOp");
  return idx(op) < kNumUnaryOps ? kNames[idx(op)] : "UnaryOp?";
}

const char* op_name(ReduceOp op) noexcept {
  static const char* const kNames[] = {"ReduceSum", "ReduceMax", "ReduceMin"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumReduceOps, "one name per ReduceOp");
  return idx(op) < kNumReduceOps ? kNames[idx(op)] : "ReduceOp?";
}

void apply_target_override() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("ASC_SIMD_TARGET");
    if (!env || !*env) return;
    std::string want(env);
    for (auto& c : want) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    int64_t target = 0;
    for (int64_t t : {int64_t{HWY_AVX3}, int64_t{HWY_AVX2}, int64_t{HWY_SSE4}, int64_t{HWY_SCALAR},
                      int64_t{HWY_EMU128}}) {
      if (want == hwy::TargetName(t)) target = t;
    }
    if (target == 0) {
      ASC_LOG_WARNING("simd", "ASC_SIMD_TARGET='" << env << "' is not one of AVX3, AVX2, SSE4, SCALAR; ignored");
      return;
    }
    // Targets with lower bits are the better ones on every architecture.
    hwy::DisableTargets(target - 1);
  });
}

[[noreturn]] void throw_unsupported(const char* op, DType dtype) {
  throw Error(ErrorCode::kInvalidDtype,
              std::string("[") + op + "] dtype " + dtype_name(dtype) + " is not supported by this instruction");
}

const char* compiled_targets() noexcept {
  // HWY_TARGETS is this translation unit's view, which is libasc's: the same
  // flags and HWY_DISABLED_TARGETS as the per-target code.
  static const std::string names = [] {
    std::string out;
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t target = int64_t{1} << bit;
      if (HWY_TARGETS & target) {
        if (!out.empty()) out += ' ';
        out += hwy::TargetName(target);
      }
    }
    return out;
  }();
  return names.c_str();
}

}  // namespace simd
}  // namespace asc::kernel
