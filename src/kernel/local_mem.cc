// LocalMemAllocator's allocation in the core arenas (include/asc/kernel/local_mem_allocator.h).
#include "asc/kernel/local_mem_allocator.h"

#include <string>

#include "asc/kernel/checker.h"

namespace asc::kernel {

uint8_t* local_mem_alloc(AscendC::Hardware hw, uint32_t* cursor, uint64_t bytes) {
  const auto* b = ::asc::runtime::current_block();
  if (!b || !b->arenas) {
    fail(ErrorCode::kInvalidParam, "LocalMemAllocator::Alloc", "called outside a kernel (no core memory)");
  }
  const auto& a = *b->arenas;
  uint8_t* base = nullptr;
  size_t size = 0;
  switch (hw) {
    case AscendC::Hardware::UB: base = a.ub; size = a.ub_size; break;
    case AscendC::Hardware::L1: base = a.l1; size = a.l1_size; break;
    case AscendC::Hardware::L0A: base = a.l0a; size = a.l0a_size; break;
    case AscendC::Hardware::L0B: base = a.l0b; size = a.l0b_size; break;
    case AscendC::Hardware::L0C: base = a.l0c; size = a.l0c_size; break;
    default:
      fail(ErrorCode::kInvalidParam, "LocalMemAllocator::Alloc",
           std::string("memory ") + hardware_name(hw) + " cannot be allocated from");
  }
  const uint64_t rounded = (bytes + 31) & ~uint64_t{31};
  const uint64_t at = *cursor;
  if (at + rounded > size) {
    check::fatal_if_checking(check::Finding::kLocalOverflow, "LocalMemAllocator::Alloc",
                             std::to_string(bytes) + " bytes requested in the " + hardware_name(hw) + " at offset " +
                                 std::to_string(at) + ", but only " + std::to_string(size - at) + " of " +
                                 std::to_string(size) + " bytes are left");
    fail(ErrorCode::kStorageOverLimit, "LocalMemAllocator::Alloc",
         std::string(hardware_name(hw)) + ": " + std::to_string(bytes) + " bytes requested but only " +
             std::to_string(size - at) + " of " + std::to_string(size) + " bytes are left");
  }
  *cursor = static_cast<uint32_t>(at + rounded);
  return base + at;
}

}  // namespace asc::kernel
