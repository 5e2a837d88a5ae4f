// A per-thread count of kernel blocks started, so that per-block state kept in
// thread-locals by the kernel layer (the atomic mode of SetAtomicAdd and
// friends) can tell that a new block began on the thread without a hook: a
// core's worker reuses one BlockContext object for all its blocks, so its
// address cannot serve.
//
// Thread-safety: reads the calling thread's counter.
#pragma once

#include <cstdint>

namespace asc::runtime {

/// Number of blocks the CPU device started on the calling thread so far
/// (incremented before each block's body runs; unchanged outside kernels).
uint64_t block_serial() noexcept;

}  // namespace asc::runtime
