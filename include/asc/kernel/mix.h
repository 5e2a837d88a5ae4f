// MIX launches of `.asc` kernels: a kernel declared `__global__ __mix__(c, v)`
// (CANN: c cube cores (AIC) and v vector cores (AIV) per logical AI core,
// __mix__(1, 2) / (1, 1) / (1, 0) / (0, 1)) launched with <<<numBlocks, ...>>>
// runs numBlocks groups, each of c AIC and v AIV instances, as the hardware
// does. pyasc-cc sees the `__mix__(c, v)` declarations of the source and the
// headers it includes from its own folder and translates the launches of
// those kernels to chevron_launch_mix<c, v> (asc/kernel/debug_launch.h);
// other launches look the kernel's address up in the linker sections
// asc_mix_<c>_<v> that `__mix__(c, v)` places a non-template kernel's code in
// (asc/kernel/qualifiers.h; GCC ignores the attribute on function templates;
// mix_ratio_of: two compares per section that exists). A MIX launch starts
// numBlocks * (c + v) blocks and gives block p the role below (group
// p / (c + v); the first c of a group are its AIC instances, the rest its AIV
// sub-blocks 0 .. v-1). The sections' bounds are the linker's __start_/__stop_
// symbols of the module (executable or shared library) that includes this
// header, so a launch finds the MIX kernels of its own module.
//
// In a MIX instance, as CANN documents (GetBlockIdx / GetBlockNum /
// GetSubBlockIdx / GetSubBlockNum / GetTaskRatio):
//   - ASCEND_IS_AIC is true only on AIC instances, ASCEND_IS_AIV only on AIV;
//   - GetBlockIdx(): the group on an AIC, group * v + sub-block on an AIV
//     (so [0, v * numBlocks) on the AIVs of __mix__(1, 2));
//   - GetBlockNum(): numBlocks; GetSubBlockIdx(): the AIV's sub-block (0 on
//     an AIC); GetSubBlockNum() / GetTaskRatio(): c on an AIC, v on an AIV.
// Outside a MIX launch nothing changes: one block runs both the AIC and the
// AIV parts of a kernel in program order (both tests true), one sub-block.
//
// Thread-safety: the role is per thread, set for the duration of one block
// (a block runs on one thread) by the launch body and cleared after it.
#pragma once

#include <cstdint>

namespace asc::kernel::mix {

struct Role {
  uint8_t aic = 0;    // the launch's AIC per group; aic + aiv == 0: not a MIX block
  uint8_t aiv = 0;    // the launch's AIV per group
  bool is_aic = true;
  bool is_aiv = true;
  uint32_t group = 0;   // logical AI core
  uint32_t sub = 0;     // AIV sub-block (0 on an AIC) / AIC index in the group
  uint32_t groups = 0;  // numBlocks
};

inline thread_local Role current_role;

inline bool active() { return current_role.aic + current_role.aiv != 0; }
inline bool is_aic() { return current_role.is_aic; }
inline bool is_aiv() { return current_role.is_aiv; }

/// The role of physical block `p` of a MIX launch of `groups` groups.
inline Role role_of(uint8_t aic, uint8_t aiv, uint32_t p, uint32_t groups) {
  Role r;
  r.aic = aic;
  r.aiv = aiv;
  const uint32_t per = static_cast<uint32_t>(aic) + aiv;
  r.group = p / per;
  const uint32_t k = p % per;
  r.is_aic = k < aic;
  r.is_aiv = !r.is_aic;
  r.sub = r.is_aic ? k : k - aic;
  r.groups = groups;
  return r;
}

/// Sets the calling block's role for its lifetime (the MIX launch body).
class RoleScope {
 public:
  RoleScope(uint8_t aic, uint8_t aiv, uint32_t physical, uint32_t groups) {
    current_role = role_of(aic, aiv, physical, groups);
  }
  ~RoleScope() { current_role = Role{}; }
  RoleScope(const RoleScope&) = delete;
  RoleScope& operator=(const RoleScope&) = delete;
};

struct Ratio {
  uint8_t aic = 0;
  uint8_t aiv = 0;
};

}  // namespace asc::kernel::mix

// The bounds of the sections __mix__ uses (weak: 0 when the module has none).
#define ASC_MIX_SECTION_BOUNDS(c, v)                                                                  \
  extern "C" const char __start_asc_mix_##c##_##v[] __attribute__((weak, visibility("hidden")));      \
  extern "C" const char __stop_asc_mix_##c##_##v[] __attribute__((weak, visibility("hidden")));
ASC_MIX_SECTION_BOUNDS(1, 2)
ASC_MIX_SECTION_BOUNDS(1, 1)
ASC_MIX_SECTION_BOUNDS(1, 0)
ASC_MIX_SECTION_BOUNDS(0, 1)
#undef ASC_MIX_SECTION_BOUNDS

namespace asc::kernel::mix {

/// (c, v) of a kernel declared __mix__(c, v) in this module; {0, 0} otherwise.
inline Ratio mix_ratio_of(const void* fn) {
  const char* p = static_cast<const char*>(fn);
  auto in = [p](const char* b, const char* e) { return b != nullptr && e != nullptr && p >= b && p < e; };
  if (in(__start_asc_mix_1_2, __stop_asc_mix_1_2)) return {1, 2};
  if (in(__start_asc_mix_1_1, __stop_asc_mix_1_1)) return {1, 1};
  if (in(__start_asc_mix_1_0, __stop_asc_mix_1_0)) return {1, 0};
  if (in(__start_asc_mix_0_1, __stop_asc_mix_0_1)) return {0, 1};
  return {};
}

}  // namespace asc::kernel::mix
