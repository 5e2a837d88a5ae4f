// The kernel built-in variables of CANN's Ascend C: `block_idx` and
// `block_num` (the running block's index and the launch's blockDim, the
// values of AscendC::GetBlockIdx() / GetBlockNum()), and get_block_idx() /
// get_block_num().
//
// Each is a constant object that converts to int64_t when read, so it is
// read per block at the point of use (blocks run concurrently on host
// threads) and works in every arithmetic context the samples use:
// `x + block_idx * blockLength`, `block_idx >= n`, static_cast<float>(...).
// A local variable of the same name shadows it, as any global does.
// Pass it to printf-style varargs as (int64_t)block_idx.
#pragma once

#include <cstdint>

#include "asc/kernel/context.h"
#include "asc/kernel/cube.h"

namespace asc::kernel {
struct BlockIdxVar {
  operator int64_t() const { return ::AscendC::GetBlockIdx(); }
};
struct BlockNumVar {
  operator int64_t() const { return ::AscendC::GetBlockNum(); }
};
}  // namespace asc::kernel

inline constexpr ::asc::kernel::BlockIdxVar block_idx{};
inline constexpr ::asc::kernel::BlockNumVar block_num{};
inline int64_t get_block_idx() { return ::AscendC::GetBlockIdx(); }
inline int64_t get_block_num() { return ::AscendC::GetBlockNum(); }

// Enumerations CANN's compiler declares at global scope (the samples write
// them unqualified, e.g. FixpipeParamsV220{..., QuantMode_t::F322F16, ...}).
using ::AscendC::QuantMode_t;
