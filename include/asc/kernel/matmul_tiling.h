// Matmul tiling: the kernel-side TCubeTiling, the host-side
// optiling::TCubeTiling and the tiling generators matmul_tiling::MatmulApiTiling
// (one core) and matmul_tiling::MultiCoreMatmulTiling (split over cores), with
// the SDK's names (SDK headers: "tiling/tiling_api.h" on the host,
// "kernel_tiling/kernel_tiling.h" in kernels; both include this file).
//
// A tiling says how an M x N x K product is cut: each of usedCoreNum blocks
// computes a singleCoreM x singleCoreN piece of C over singleCoreK, block index
// b taking m-piece b % ceil(M / singleCoreM) and n-piece b / ceil(M /
// singleCoreM) (the convention of the SDK samples' CalcGMOffset); inside a
// block, Iterate() produces baseM x baseN pieces of C over K (iterateOrder 0:
// m moves first). baseM x baseN float32 must fit L0C; baseK is chosen so that
// double-buffered baseM x baseK and baseK x baseN tiles fit L0A / L0B.
//
// GetTiling returns 0, or -1 when the inputs are unusable (unset types, shapes
// <= 0, an unsupported type pair, a fixed split over the buffer budget); the
// reason is logged as a warning "[MultiCoreMatmulTiling::GetTiling] ...".
//
// Thread-safety: tiling objects are plain values; use one per thread.
#pragma once

#include <cstdint>
#include <cstring>

/// Kernel-side tiling (plain int32 fields in the SDK's order, copied from GM
/// by the kernel, e.g. with a loop over its words).
struct TCubeTiling {
  int32_t usedCoreNum = 0;
  int32_t M = 0;
  int32_t N = 0;
  int32_t Ka = 0;
  int32_t Kb = 0;
  int32_t singleCoreM = 0;
  int32_t singleCoreN = 0;
  int32_t singleCoreK = 0;
  int32_t baseM = 0;
  int32_t baseN = 0;
  int32_t baseK = 0;
  int32_t depthA1 = 0;
  int32_t depthB1 = 0;
  int32_t stepM = 0;
  int32_t stepN = 0;
  int32_t isBias = 0;
  int32_t transLength = 0;
  int32_t iterateOrder = 0;
  int32_t shareMode = 0;
  int32_t shareL1Size = 0;
  int32_t shareL0CSize = 0;
  int32_t shareUbSize = 0;
  int32_t batchM = 0;
  int32_t batchN = 0;
  int32_t singleBatchM = 0;
  int32_t singleBatchN = 0;
  int32_t stepKa = 0;
  int32_t stepKb = 0;
  int32_t depthAL1CacheUB = 0;
  int32_t depthBL1CacheUB = 0;
  int32_t dbL0A = 0;
  int32_t dbL0B = 0;
  int32_t dbL0C = 0;
  int32_t reserved = 0;
};

// CANN's kernel-side name of the struct (kernel_tiling/kernel_tiling.h).
namespace AscendC::tiling {
using TCubeTiling = ::TCubeTiling;
}  // namespace AscendC::tiling

namespace optiling {

/// Host-side tiling data: the same fields with set_x / get_x accessors and the
/// serialisation the SDK's tiling structs offer (GetDataSize / SaveToBuffer).
class TCubeTiling {
 public:
#define ASC_TILING_FIELD(name)                          \
  void set_##name(int32_t v) { data_.name = v; }        \
  int32_t get_##name() const { return data_.name; }
  ASC_TILING_FIELD(usedCoreNum)
  ASC_TILING_FIELD(M)
  ASC_TILING_FIELD(N)
  ASC_TILING_FIELD(Ka)
  ASC_TILING_FIELD(Kb)
  ASC_TILING_FIELD(singleCoreM)
  ASC_TILING_FIELD(singleCoreN)
  ASC_TILING_FIELD(singleCoreK)
  ASC_TILING_FIELD(baseM)
  ASC_TILING_FIELD(baseN)
  ASC_TILING_FIELD(baseK)
  ASC_TILING_FIELD(depthA1)
  ASC_TILING_FIELD(depthB1)
  ASC_TILING_FIELD(stepM)
  ASC_TILING_FIELD(stepN)
  ASC_TILING_FIELD(isBias)
  ASC_TILING_FIELD(transLength)
  ASC_TILING_FIELD(iterateOrder)
  ASC_TILING_FIELD(shareMode)
  ASC_TILING_FIELD(shareL1Size)
  ASC_TILING_FIELD(shareL0CSize)
  ASC_TILING_FIELD(shareUbSize)
  ASC_TILING_FIELD(batchM)
  ASC_TILING_FIELD(batchN)
  ASC_TILING_FIELD(singleBatchM)
  ASC_TILING_FIELD(singleBatchN)
  ASC_TILING_FIELD(stepKa)
  ASC_TILING_FIELD(stepKb)
  ASC_TILING_FIELD(depthAL1CacheUB)
  ASC_TILING_FIELD(depthBL1CacheUB)
  ASC_TILING_FIELD(dbL0A)
  ASC_TILING_FIELD(dbL0B)
  ASC_TILING_FIELD(dbL0C)
#undef ASC_TILING_FIELD

  /// Bytes of the kernel-side struct.
  size_t GetDataSize() const { return sizeof(::TCubeTiling); }
  /// Copies the kernel-side struct to `buf` (capacity `cap` bytes; nothing is
  /// written when it is too small).
  void SaveToBuffer(void* buf, size_t cap) const {
    if (buf != nullptr && cap >= sizeof(::TCubeTiling)) std::memcpy(buf, &data_, sizeof(::TCubeTiling));
  }
  /// pyasc: the kernel-side struct.
  const ::TCubeTiling& data() const { return data_; }
  ::TCubeTiling& data() { return data_; }

 private:
  ::TCubeTiling data_;
};

}  // namespace optiling

namespace matmul_tiling {

enum class TPosition : int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM,
                                 SHM = SPM, TSCM, MAX };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
/// ge::DataType's numbering.
enum class DataType : int32_t {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
};
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };

/// Tiling for one core (usedCoreNum = 1, singleCore = the whole shape).
class MatmulApiTiling {
 public:
  MatmulApiTiling() = default;
  /// Accepts a platform object (platform_ascendc::PlatformAscendC) for
  /// source compatibility; the CPU device's sizes are the 910B constants.
  template <class Platform>
  explicit MatmulApiTiling(const Platform&) {}
  virtual ~MatmulApiTiling() = default;

  int32_t SetAType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false) {
    a_ = {pos, format, type, isTrans, true};
    return 0;
  }
  int32_t SetBType(TPosition pos, CubeFormat format, DataType type, bool isTrans = false) {
    b_ = {pos, format, type, isTrans, true};
    return 0;
  }
  int32_t SetCType(TPosition pos, CubeFormat format, DataType type) {
    c_ = {pos, format, type, false, true};
    return 0;
  }
  int32_t SetBiasType(TPosition pos, CubeFormat format, DataType type) {
    bias_ = {pos, format, type, false, true};
    return 0;
  }
  /// The problem (this core's part for MatmulApiTiling).
  int32_t SetShape(int32_t m, int32_t n, int32_t k) {
    m_ = m;
    n_ = n;
    k_ = k;
    return 0;
  }
  /// The full matrices in GM (row strides); defaults to SetShape's values.
  int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) { return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn); }
  int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn) {
    org_m_ = orgMIn;
    org_n_ = orgNIn;
    org_ka_ = orgKaIn;
    org_kb_ = orgKbIn;
    return 0;
  }
  /// Fixes baseM / baseN / baseK (-1: choose).
  int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1) {
    fix_m_ = baseMIn;
    fix_n_ = baseNIn;
    fix_k_ = baseKIn;
    return 0;
  }
  int32_t SetBias(bool isBiasIn = false) {
    bias_on_ = isBiasIn;
    return 0;
  }
  /// CANN's newer name of SetBias.
  int32_t EnableBias(bool isBiasIn = false) { return SetBias(isBiasIn); }

  /// Budgets in bytes (-1: the whole L1 / L0C / UB of a core).
  int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1) {
    l1_ = l1Size;
    l0c_ = l0CSize;
    ub_ = ubSize;
    (void)btSize;
    return 0;
  }
  int32_t SetTraverse(MatrixTraverse traverse) {
    traverse_ = traverse;
    return 0;
  }
  /// Fills `tiling`; 0 on success, -1 on failure (reason logged).
  int64_t GetTiling(optiling::TCubeTiling& tiling) { return GetTiling(tiling.data()); }
  int64_t GetTiling(::TCubeTiling& tiling);

  int32_t GetBaseM() const { return result_.baseM; }
  int32_t GetBaseN() const { return result_.baseN; }
  int32_t GetBaseK() const { return result_.baseK; }

 protected:
  struct Operand {
    TPosition pos = TPosition::GM;
    CubeFormat format = CubeFormat::ND;
    DataType type = DataType::DT_UNDEFINED;
    bool trans = false;
    bool set = false;
  };
  /// The cores to split over (1 here).
  virtual int32_t cores() const { return 1; }
  virtual const char* api_name() const { return "MatmulApiTiling::GetTiling"; }

  Operand a_, b_, c_, bias_;
  int32_t m_ = -1, n_ = -1, k_ = -1;
  int32_t org_m_ = -1, org_n_ = -1, org_ka_ = -1, org_kb_ = -1;
  int32_t single_m_ = -1, single_n_ = -1, single_k_ = -1;
  int32_t fix_m_ = -1, fix_n_ = -1, fix_k_ = -1;
  int32_t l1_ = -1, l0c_ = -1, ub_ = -1;
  bool bias_on_ = false;
  MatrixTraverse traverse_ = MatrixTraverse::NOSET;
  int32_t m_dim_ = 0, n_dim_ = 0;
  ::TCubeTiling result_;
};

/// Tiling split over `SetDim` cores: M and N are cut into usedCoreNum <= dim
/// pieces (multiples of 16, the split with the least work per core).
class MultiCoreMatmulTiling : public MatmulApiTiling {
 public:
  MultiCoreMatmulTiling() = default;
  template <class Platform>
  explicit MultiCoreMatmulTiling(const Platform& p) : MatmulApiTiling(p) {}

  /// Number of cores (blockDim) the product may use.
  int32_t SetDim(int32_t dim) {
    dim_ = dim;
    return 0;
  }
  /// Fixes the per-core piece (-1: choose).
  int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1) {
    single_m_ = singleMIn;
    single_n_ = singleNIn;
    single_k_ = singleKIn;
    return 0;
  }
  /// After GetTiling: cores used and the split of M and N.
  int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim) const {
    dim = result_.usedCoreNum;
    mDim = m_dim_;
    nDim = n_dim_;
    return 0;
  }
  int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK) const {
    shapeM = result_.singleCoreM;
    shapeN = result_.singleCoreN;
    shapeK = result_.singleCoreK;
    return 0;
  }
  using MatmulApiTiling::GetTiling;

 protected:
  int32_t cores() const override { return dim_; }
  const char* api_name() const override { return "MultiCoreMatmulTiling::GetTiling"; }

 private:
  int32_t dim_ = 1;
};

}  // namespace matmul_tiling
