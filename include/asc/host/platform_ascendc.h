// CANN's host-side platform information (`platform_ascendc::PlatformAscendC`,
// `PlatformAscendCManager`; SDK header "tiling/platform/platform_ascendc.h"),
// answered by pyasc's CPU device.
//
// Tiling code asks it for the core counts and on-chip buffer sizes it cuts
// the work by. The answers are what a kernel launched on this machine really
// gets, so tiling computed from them fits:
//   - core counts: the CPU device's cores (ASC_NUM_CORES overrides). A pyasc
//     block runs the cube and the vector part of a kernel on one core
//     (GetSubBlockNum() == 1), so GetCoreNum == GetCoreNumAic ==
//     GetCoreNumAiv; GetCoreNumVector is 0 (only CANN's inference products
//     have separate vector cores);
//   - UB / L1 / L0A / L0B / L0C: the chosen product's size (Ascend910B* is
//     dav-2201, Ascend950* is dav-3510; sizes of CANN's utils/base tables)
//     capped by the CPU device's per-core arena (UB 192 KiB or ASC_UB_SIZE,
//     L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB), minus ReserveLocalMemory's
//     UB reservation;
//   - BT (bias table): the product's (1 KiB dav-2201, 4 KiB dav-3510); FB
//     (fixpipe buffer): 4 KiB on dav-3510, 0 where CANN does not publish it;
//     HBM: the device's memory; L2: the host's last-level cache.
// The SoC is the one GetInstance(customSocVersion) names on its first call
// (the manager is a singleton, as CANN's: later arguments are ignored), or,
// with no argument, the product of the architecture this translation unit is
// compiled for (__NPU_ARCH__ 2201 -> "Ascend910B1", 3510 ->
// "Ascend950PR_9589"; dav-2201 when none). A SoC pyasc does not model gives
// nullptr and a message on stderr naming it, as CANN's does for an unknown one.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "asc/kernel/kernel_log.h"  // ASCENDC_ASSERT, as CANN's header defines it
#include "asc/runtime/device.h"

/// The architecture numbers of CANN's platform/soc_spec.h (GetCurNpuArch).
enum class NpuArch : uint32_t {
  DAV_1001 = 1001,
  DAV_2002 = 2002,
  DAV_2201 = 2201,
  DAV_3002 = 3002,
  DAV_3510 = 3510,
  DAV_RESV = 0xFFFFFFFFu,
};

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

// The enumerator values are CANN's (binary compatible with its tiling data).
enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND310P,
  ASCEND310B,
  ASCEND950,
  ASCEND910_55,
  ASCEND910_95 = ASCEND950,
  AS31XM1,
  ASCEND031,
  ASCEND035,
  ASCEND310,
  ASCEND610,
  ASCEND610Lite,
  ASCEND910_93,
  BS9SX1A,
  BS9SX2A,
  HI3796CV300CS,
  HI3796CV300ES,
  MC61AM21A,
  MC62,
  SD3403,
  KIRINX90,
  KIRIN9030,
  MC32DM11A,
  ASCEND350,
  RESERVED_VERSION = 99999
};

enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

}  // namespace platform_ascendc

namespace fe {
/// What CANN's framework hands a tiling function (context->GetPlatformInfo()).
/// In pyasc it is the product's description; PlatFormInfos::ForSoc makes one.
class PlatFormInfos {
 public:
  std::string soc_name;
  platform_ascendc::SocVersion soc_version = platform_ascendc::SocVersion::RESERVED_VERSION;
  NpuArch arch = NpuArch::DAV_RESV;

  /// The description of `soc` (e.g. "Ascend910B1", "Ascend950PR_9589"); false
  /// when pyasc does not model that product (only dav-2201 and dav-3510 parts).
  static bool ForSoc(const char* soc, PlatFormInfos& out) {
    if (soc == nullptr) return false;
    const std::string s(soc);
    auto starts = [&](const char* p) { return s.compare(0, std::strlen(p), p) == 0; };
    if (starts("Ascend910B") || starts("Ascend910_93")) {
      // CANN reports the A3 (910_93) as ASCEND910B too, for binary reuse.
      out.soc_version = platform_ascendc::SocVersion::ASCEND910B;
      out.arch = NpuArch::DAV_2201;
    } else if (starts("Ascend950")) {
      out.soc_version = platform_ascendc::SocVersion::ASCEND950;
      out.arch = NpuArch::DAV_3510;
    } else {
      return false;
    }
    out.soc_name = s;
    return true;
  }
};
}  // namespace fe

namespace platform_ascendc {

/// The SoC a translation unit compiled for `__NPU_ARCH__` stands for.
inline const char* DefaultSocVersionName() {
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3510)
  return "Ascend950PR_9589";
#else
  return "Ascend910B1";
#endif
}

class PlatformAscendC {
 public:
  PlatformAscendC() = delete;
  ~PlatformAscendC() = default;
  /// A null `platformInfo` stands for the default SoC of this translation unit.
  explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : platformInfo_(platformInfo) {}

  /// Vector cores of a separated-mode part (= the CPU device's cores).
  uint32_t GetCoreNum() const { return DeviceCores(); }
  uint32_t GetCoreNumAic() const { return DeviceCores(); }
  uint32_t GetCoreNumAiv() const { return DeviceCores(); }
  /// Separate vector cores exist only on CANN's inference products: 0.
  uint32_t GetCoreNumVector() const { return 0; }

  /// numBlocks of a mixed cube/vector kernel: blocks are (1 AIC + aiv/aic AIV)
  /// groups, so sliceNum vector slices need ceil(sliceNum / ratio) groups.
  uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    if (aicCoreNum == 0 || aivCoreNum == 0 || aivCoreNum <= aicCoreNum) return sliceNum;
    const uint32_t ratio = aivCoreNum / aicCoreNum;
    return (sliceNum + ratio - 1) / ratio;
  }
  uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    return CalcTschNumBlocks(sliceNum, aicCoreNum, aivCoreNum);
  }

  /// The system workspace CANN reserves for its library APIs (16 MiB). pyasc's
  /// library APIs use none of it, but samples add it to what they allocate.
  uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024u * 1024u; }
  /// CANN's cube group / group barrier workspaces: pyasc keeps that state on
  /// the host, so none is needed.
  uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
  uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }

  void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
    const auto& p = ::asc::runtime::current_device().properties();
    const bool v3510 = Info().arch == NpuArch::DAV_3510;
    constexpr uint64_t K = 1024;
    switch (memType) {
      case CoreMemType::UB: {
        const uint64_t ub = Min(v3510 ? 248 * K : 192 * K, p.ub_size);
        size = ub > reservedMemSize_ ? ub - reservedMemSize_ : 0;
        return;
      }
      case CoreMemType::L1: size = Min(512 * K, p.l1_size); return;
      case CoreMemType::L0_A: size = Min(64 * K, p.l0a_size); return;
      case CoreMemType::L0_B: size = Min(64 * K, p.l0b_size); return;
      case CoreMemType::L0_C: size = Min(v3510 ? 256 * K : 128 * K, p.l0c_size); return;
      case CoreMemType::BT: size = v3510 ? 4 * K : 1 * K; return;
      case CoreMemType::FB: size = v3510 ? 4 * K : 0; return;
      case CoreMemType::HBM: size = p.total_memory; return;
      case CoreMemType::L2: {
        const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
        const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        size = llc > 0 ? static_cast<uint64_t>(llc) : (l2 > 0 ? static_cast<uint64_t>(l2) : 0);
        return;
      }
      default: size = 0; return;
    }
  }

  /// Bandwidths in bytes per cycle: CANN publishes them for L2 and HBM of its
  /// parts only; a CPU has no such fixed figure, so pyasc reports 0 (unknown).
  void GetCoreMemBw(const CoreMemType& /*memType*/, uint64_t& bwSize) const { bwSize = 0; }

  /// Keeps `size` bytes of UB back from GetCoreMemSize(UB); the last call wins.
  void ReserveLocalMemory(ReservedSize size) {
    switch (size) {
      case ReservedSize::RESERVED_SIZE_8K: reservedMemSize_ = 8 * 1024; break;
      case ReservedSize::RESERVED_SIZE_16K: reservedMemSize_ = 16 * 1024; break;
      case ReservedSize::RESERVED_SIZE_32K: reservedMemSize_ = 32 * 1024; break;
    }
  }

  SocVersion GetSocVersion() const { return Info().soc_version; }
  NpuArch GetCurNpuArch() const { return Info().arch; }
  /// Vector register width in bytes of a RegBase part (dav-3510: 256); 0 else.
  uint32_t GetVecRegLen() const { return Info().arch == NpuArch::DAV_3510 ? 256u : 0u; }
  /// The product name the platform stands for (pyasc extension).
  const std::string& GetSocName() const { return Info().soc_name; }

 private:
  fe::PlatFormInfos* platformInfo_;
  uint32_t reservedMemSize_ = 0;

  static uint64_t Min(uint64_t a, uint64_t b) { return a < b ? a : b; }
  static uint32_t DeviceCores() {
    const int n = ::asc::runtime::current_device().properties().num_cores;
    return n > 0 ? static_cast<uint32_t>(n) : 1u;
  }
  const fe::PlatFormInfos& Info() const {
    if (platformInfo_ != nullptr) return *platformInfo_;
    static const fe::PlatFormInfos fallback = [] {
      fe::PlatFormInfos f;
      fe::PlatFormInfos::ForSoc(DefaultSocVersionName(), f);
      return f;
    }();
    return fallback;
  }
};

class PlatformAscendCManager {
 public:
  /// The platform of the SoC this translation unit is compiled for.
  static PlatformAscendC* GetInstance() { return Init(nullptr); }
  /// The platform of `customSocVersion` (only the first call's value counts).
  static PlatformAscendC* GetInstance(const char* customSocVersion) { return Init(customSocVersion); }

 private:
  PlatformAscendCManager() = delete;

  static PlatformAscendC* Init(const char* soc) {
    static std::mutex mu;
    static fe::PlatFormInfos info;
    static PlatformAscendC* instance = nullptr;
    const std::lock_guard<std::mutex> lock(mu);
    if (instance == nullptr) {
      const char* name = soc != nullptr ? soc : DefaultSocVersionName();
      if (!fe::PlatFormInfos::ForSoc(name, info)) {
        std::fprintf(stderr,
                     "[ERROR] platform_ascendc::PlatformAscendCManager::GetInstance: SoC version '%s' is not "
                     "supported by pyasc's CPU device (use an Ascend910B*/Ascend910_93* part for dav-2201 or an "
                     "Ascend950* part for dav-3510)\n",
                     name);
        return nullptr;
      }
      static PlatformAscendC platform(&info);
      instance = &platform;
    }
    return instance;
  }
};

}  // namespace platform_ascendc
