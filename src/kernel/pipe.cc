// TPipe allocation in the core arenas and the queue misuse errors.
#include "asc/kernel/pipe.h"

#include <cstdio>

#include "asc/kernel/checker.h"
#include <string>

namespace asc::kernel {

namespace {
thread_local AscendC::TPipe* t_pipe = nullptr;

std::string queue_desc(AscendC::TPosition pos, int num, uint32_t bytes) {
  return std::string("this ") + position_name(pos) + " queue (" + std::to_string(num) + " buffers of " +
         std::to_string(bytes) + " bytes)";
}
}  // namespace

AscendC::TPipe* current_pipe() noexcept { return t_pipe; }

void QueueState::init(uint8_t* base, uint32_t bytes, uint32_t stride, int num, int depth, AscendC::TPosition pos) {
  base_ = base;
  bytes_init_ = bytes;
  stride_ = stride;
  num_ = static_cast<uint8_t>(num);
  depth_ = depth;
  pos_ = pos;
  free_mask_ = num >= 32 ? 0xFFFFFFFFu : ((1u << num) - 1u);
  head_ = count_ = next_ = 0;
  for (int i = 0; i < kMaxBuffers; ++i) {
    state_[i] = kFree;
    bytes_[i] = 0;
  }
}

void QueueState::fail_uninit(const char* op) const {
  fail(ErrorCode::kInvalidParam, op, "the queue has no buffers: call TPipe::InitBuffer(queue, num, len) first");
}

void QueueState::fail_alloc() const {
  if (num_ == 0) fail_uninit("TQue::AllocTensor");
  const std::string detail = "no free buffer in " + queue_desc(pos_, num_, bytes_init_) + ": " +
                             std::to_string(num_ - count_) + " allocated and " + std::to_string(count_) +
                             " enqueued; FreeTensor one first (on the NPU this AllocTensor would wait forever)";
  check::fatal_if_checking(check::Finding::kAllocBeyondDepth, "TQue::AllocTensor", detail);
  fail(ErrorCode::kInvalidParam, "TQue::AllocTensor", detail);
}

void QueueState::fail_full() const {
  const std::string detail = "the queue is full: depth " + std::to_string(depth_) + " and " +
                             std::to_string(count_) +
                             " tensors already enqueued; DeQue one first or declare the TQue with a larger depth";
  check::fatal_if_checking(check::Finding::kEnqueBeyondDepth, "TQue::EnQue", detail);
  fail(ErrorCode::kInvalidParam, "TQue::EnQue", detail);
}

void QueueState::fail_empty() const {
  if (num_ == 0) fail_uninit("TQue::DeQue");
  const std::string detail = "DeQue on an empty queue: no tensor is enqueued in " +
                             queue_desc(pos_, num_, bytes_init_) + " (on the NPU this would hang)";
  check::fatal_if_checking(check::Finding::kDequeEmpty, "TQue::DeQue", detail);
  fail(ErrorCode::kInvalidParam, "TQue::DeQue", detail);
}

void QueueState::fail_state(const char* op, int i) const {
  const std::string which = "buffer " + std::to_string(i) + " of " + queue_desc(pos_, num_, bytes_init_);
  std::string detail;
  if (state_[i] == kFree) {
    detail = which + " is not allocated" +
             (std::string(op) == "FreeTensor" ? " (FreeTensor twice?)" : " (EnQue after FreeTensor?)");
  } else {
    detail = which + " is still enqueued" +
             (std::string(op) == "FreeTensor" ? ": DeQue it before FreeTensor" : ": EnQue twice?");
  }
  const std::string name = std::string("TQue::") + op;
  const bool is_free = std::string(op) == "FreeTensor";
  check::fatal_if_checking(state_[i] == kFree ? (is_free ? check::Finding::kDoubleFree : check::Finding::kUseAfterFree)
                                              : check::Finding::kQueueMisuse,
                           name.c_str(), detail);
  fail(ErrorCode::kInvalidParam, name.c_str(), detail);
}

void QueueState::fail_foreign(const char* op, const void* addr) const {
  if (num_ == 0) fail_uninit((std::string("TQue::") + op).c_str());
  char buf[160];
  std::snprintf(buf, sizeof buf, "the tensor at %p is not a buffer of ", addr);
  check::fatal_if_checking(check::Finding::kQueueMisuse, (std::string("TQue::") + op).c_str(),
                           std::string("the tensor is not a buffer of ") + queue_desc(pos_, num_, bytes_init_) +
                               " (it was not allocated by this queue's AllocTensor)");
  fail(ErrorCode::kInvalidParam, (std::string("TQue::") + op).c_str(),
       buf + queue_desc(pos_, num_, bytes_init_) + " (it was not allocated by this queue's AllocTensor)");
}

}  // namespace asc::kernel

namespace AscendC {

TPipe::TPipe() {
  if (const auto* b = ::asc::runtime::current_block()) {
    arenas_ = b->arenas;
    block_idx_ = b->block_idx;
  }
  previous_ = ::asc::kernel::t_pipe;
  ::asc::kernel::t_pipe = this;
  elide_token_ = ::asc::kernel::elide::pipe_enter();
}

TPipe::~TPipe() {
  if (::asc::kernel::check::active()) ::asc::kernel::check::pipe_end(this);
  ::asc::kernel::elide::pipe_leave(elide_token_);
  if (::asc::kernel::t_pipe == this) ::asc::kernel::t_pipe = previous_;
}

void TPipe::Reset() {
  if (::asc::kernel::check::active()) ::asc::kernel::check::pipe_reset(this);
  for (auto& u : used_) u = 0;
}

uint64_t TPipe::capacity_bytes(Hardware hw) const {
  if (!arenas_) return 0;
  switch (hw) {
    case Hardware::UB: return arenas_->ub_size;
    case Hardware::L1: return arenas_->l1_size;
    case Hardware::L0A: return arenas_->l0a_size;
    case Hardware::L0B: return arenas_->l0b_size;
    case Hardware::L0C: return arenas_->l0c_size;
    default: return 0;
  }
}

uint8_t* TPipe::allocate(TPosition pos, uint32_t num, uint32_t len, uint32_t stride) {
  using ::asc::ErrorCode;
  using ::asc::kernel::fail;
  const char* op = "TPipe::InitBuffer";
  const auto* b = ::asc::runtime::current_block();
  if (!b || !b->arenas) {
    fail(ErrorCode::kInvalidParam, op,
         "TPipe buffers live in an AI core's local memory, so InitBuffer must run inside a kernel "
         "(launch it with asc::launch or ACLRT_LAUNCH_KERNEL)");
  }
  if (arenas_ != b->arenas || block_idx_ != b->block_idx) {
    // A TPipe that outlived its block (e.g. a static one): start afresh.
    arenas_ = b->arenas;
    block_idx_ = b->block_idx;
    Reset();
    ::asc::kernel::elide::block_changed();
  }
  if (num == 0 || num > static_cast<uint32_t>(::asc::kernel::QueueState::kMaxBuffers)) {
    fail(ErrorCode::kInvalidParam, op,
         "num must be in [1, " + std::to_string(::asc::kernel::QueueState::kMaxBuffers) + "], got " +
             std::to_string(num));
  }
  const Hardware hw = ::asc::kernel::hardware_of(pos);
  uint8_t* base = nullptr;
  switch (hw) {
    case Hardware::UB: base = arenas_->ub; break;
    case Hardware::L1: base = arenas_->l1; break;
    case Hardware::L0A: base = arenas_->l0a; break;
    case Hardware::L0B: base = arenas_->l0b; break;
    case Hardware::L0C: base = arenas_->l0c; break;
    default:
      fail(ErrorCode::kInvalidParam, op,
           std::string("position ") + ::asc::kernel::position_name(pos) + " has no local buffer memory");
  }
  const uint64_t cap = capacity_bytes(hw);
  uint64_t& used = used_[static_cast<int>(hw)];
  const uint64_t need = uint64_t{num} * stride;
  if (need > cap - used) {
    ::asc::kernel::check::fatal_if_checking(
        ::asc::kernel::check::Finding::kLocalOverflow, op,
        std::to_string(num) + " x " + std::to_string(len) + " bytes (" + std::to_string(need) +
            " with 32-byte alignment) for a " + ::asc::kernel::position_name(pos) + " buffer exceed the " +
            ::asc::kernel::hardware_name(hw) + ": " + std::to_string(used) + " of " + std::to_string(cap) +
            " bytes already allocated by this TPipe, " + std::to_string(cap - used) + " left");
    fail(ErrorCode::kStorageOverLimit, op,
         std::string("cannot allocate ") + std::to_string(num) + " x " + std::to_string(len) + " bytes (" +
             std::to_string(need) + " bytes with 32-byte alignment) for a " + ::asc::kernel::position_name(pos) +
             " buffer: the " + ::asc::kernel::hardware_name(hw) + " holds " + std::to_string(cap) +
             " bytes per core, " + std::to_string(used) + " are already allocated by this TPipe, " +
             std::to_string(cap - used) + " bytes remaining");
  }
  uint8_t* p = base + used;
  used += need;
  return p;
}

}  // namespace AscendC
