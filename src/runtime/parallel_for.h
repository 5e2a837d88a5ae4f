// parallel_for: a host loop split into one contiguous range per AI core (internal to src/).
#pragma once

#include <algorithm>
#include <cstdint>

#include "asc/runtime/device.h"

namespace asc::runtime {

/// Runs fn(lo, hi) over [0, total): inline on the calling thread when the device has one core,
/// total < 2 or work < min_work (a launch costs more than it saves), else as one kernel launch
/// of min(cores, total) blocks of the current device, each taking one contiguous range.
/// Errors: a block's failure is rethrown (asc::Error) on the calling thread. fn must be safe to
/// call concurrently on disjoint ranges.
template <typename Fn>
void parallel_for(const char* name, int64_t total, int64_t work, int64_t min_work, Fn&& fn) {
  const int c = current_device().properties().num_cores;
  if (c <= 1 || work < min_work || total < 2) {
    fn(int64_t{0}, total);
    return;
  }
  const int64_t blocks = std::min<int64_t>(c, total);
  KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(blocks);
  inv.body = [&](const BlockContext& ctx) {
    const int64_t b = ctx.block_idx;
    fn(total * b / blocks, total * (b + 1) / blocks);
  };
  current_device().run_kernel(inv).ThrowIfError();
}

}  // namespace asc::runtime
