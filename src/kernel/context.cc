#include "asc/kernel/context.h"

#include <string>

#include "asc/kernel/types.h"

namespace asc::kernel {

std::string where() {
  const runtime::BlockContext* b = runtime::current_block();
  if (!b) return "outside a kernel";
  return std::string("kernel '") + (b->kernel_name ? b->kernel_name : "") + "' block " +
         std::to_string(b->block_idx) + " of " + std::to_string(b->block_num);
}

void fail(ErrorCode code, const char* op, const std::string& detail) {
  throw Error(code, std::string("[") + op + "] " + where() + ": " + detail);
}

void fail_size(const char* op, const char* what, uint64_t needed, uint64_t size) {
  fail(ErrorCode::kIndexOutOfRange, op,
       "the operation needs " + std::to_string(needed) + " " + what + " but it has only " + std::to_string(size));
}

void fail_negative_count(const char* op, int64_t count) {
  fail(ErrorCode::kInvalidParam, op, "count must be >= 0, got " + std::to_string(count));
}

const char* position_name(AscendC::TPosition pos) noexcept {
  using AscendC::TPosition;
  switch (pos) {
    case TPosition::GM: return "GM";
    case TPosition::A1: return "A1";
    case TPosition::A2: return "A2";
    case TPosition::B1: return "B1";
    case TPosition::B2: return "B2";
    case TPosition::C1: return "C1";
    case TPosition::C2: return "C2";
    case TPosition::CO1: return "CO1";
    case TPosition::CO2: return "CO2";
    case TPosition::VECIN: return "VECIN";
    case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC";
    case TPosition::SPM: return "SPM";
    case TPosition::TSCM: return "TSCM";
    case TPosition::C2PIPE2GM: return "C2PIPE2GM";
    case TPosition::C2PIPE2LOCAL: return "C2PIPE2LOCAL";
    case TPosition::MAX: break;
  }
  return "TPosition?";
}

const char* hardware_name(AscendC::Hardware hw) noexcept {
  using AscendC::Hardware;
  switch (hw) {
    case Hardware::GM: return "global memory (GM)";
    case Hardware::UB: return "Unified Buffer (UB)";
    case Hardware::L1: return "L1 buffer";
    case Hardware::L0A: return "L0A buffer";
    case Hardware::L0B: return "L0B buffer";
    case Hardware::L0C: return "L0C buffer";
    case Hardware::BIAS: return "bias table";
    case Hardware::FIXBUF: return "fixpipe buffer";
    case Hardware::MAX: break;
  }
  return "memory?";
}

}  // namespace asc::kernel
