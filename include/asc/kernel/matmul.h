// The high-level Matmul API (SDK header "lib/matmul_intf.h"):
//
//   Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>,      // A
//          MatmulType<TPosition::GM, CubeFormat::ND, half>,      // B
//          MatmulType<TPosition::GM, CubeFormat::ND, float>,     // C
//          MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; // bias
//   REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
//   mm.SetTensorA(aGm); mm.SetTensorB(bGm); mm.SetBias(biasGm);
//   mm.IterateAll(cGm);          // or: while (mm.Iterate()) mm.GetTensorC(cGm);
//   mm.End();
//
// One Matmul computes this block's singleCoreM x singleCoreN piece of C (from
// the TCubeTiling, narrowed by SetTail / SetSingleShape) over singleCoreK, as
// baseM x baseN pieces: Iterate() computes the next piece into an L0C buffer
// (allocated from the TPipe at Init: baseM*baseN*4 bytes of CO1) and
// GetTensorC writes it out (NZ -> ND, float -> C's type with round to nearest
// even), to GM at its place in C (row stride N from the tiling / SetOrgShape)
// or to a LocalTensor as a baseM x baseN ND tile (row stride baseN).
// IterateAll does both for every piece. A and B are ND in GM or local memory:
// A is M x Ka (row stride Ka) or, with SetTensorA(a, true), Ka x M (row stride
// M); B is Kb x N (row stride N) or, transposed, N x Kb (row stride Kb). The
// arithmetic is Mmad's (asc/kernel/cube.h): float32 accumulation, exact for
// int8 -> int32; with a bias (SetBias, tiling.isBias) C = A*B + bias[n].
// enAtomic (1 add, 2 max, 3 min) combines the result with C's current
// contents under a process-wide lock.
//
// Supported: A, B of half / bfloat16_t / float (same type) with C float, half
// or bfloat16_t; int8_t with C int32_t; bias float (or C's type), int32_t for
// int8. Formats: ND (and ND_ALIGN for C). Errors are asc::Error naming
// "[Matmul::<call>]", kernel and block: unsupported types (kInvalidDtype),
// missing SetTensorA/B, a tiling that does not fit L0C or is inconsistent
// (kInvalidParam), operands smaller than the tiling says (kIndexOutOfRange).
//
// Kernel checker (asc/kernel/checker.h): each piece's reads of GM A, B and
// bias ("Matmul::Iterate") and GetTensorC / IterateAll writes to GM C
// ("Matmul::GetTensorC") are bounds-checked against SetGlobalBuffer's bound
// and the allocation; the writes join the gm-write-race check unless enAtomic
// (or the block's SetAtomicAdd/Max/Min) makes them combine.
//
// Thread-safety: a Matmul object belongs to one block.
#pragma once

#include <cstdint>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/cube.h"
#include "asc/kernel/matmul_tiling.h"
#include "asc/kernel/pipe.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace AscendC {

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class IterateOrder : uint8_t { ORDER_M = 0, ORDER_N, UNDEF };

/// Describes one operand of a Matmul: where it lives, its format and type,
/// and whether it may be transposed.
template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
  constexpr static TPosition pos = POSITION;
  constexpr static CubeFormat format = FORMAT;
  using T = TYPE;
  constexpr static bool isTrans = ISTRANS;
  constexpr static LayoutMode layout = LAYOUT;
  constexpr static bool ibShare = IBSHARE;
};

/// Matmul configurations (the CPU device runs every one the same way).
struct MatmulConfig {
  bool doNorm = true;
  bool doBasicBlock = false;
  bool doMultiDataLoad = false;
  uint32_t basicM = 0;
  uint32_t basicN = 0;
  uint32_t basicK = 0;
  bool intrinsicsCheck = false;
  bool isNBatch = false;
  bool enVecND2NZ = false;
  bool doSpecialBasicBlock = false;
};
inline constexpr MatmulConfig CFG_NORM{};
inline constexpr MatmulConfig CFG_MDL{false, false, true};
inline constexpr MatmulConfig CFG_IBSHARE_NORM{};
/// CANN's config builders take scheduling switches (intrinsicsLimit,
/// batchLoop, doMTE2Preload, isVecND2NZ, enUnitFlag, ...) that only tune the
/// NPU's pipelines; the CPU device computes every config the same way, so
/// they are accepted (any count, as CANN's defaulted parameters) and unused.
template <typename... Switches>
constexpr MatmulConfig GetNormalConfig(Switches...) { return CFG_NORM; }
template <typename... Switches>
constexpr MatmulConfig GetMDLConfig(Switches...) { return CFG_MDL; }

/// User callbacks of the SDK's Matmul (accepted, not called).
template <auto DataCopyOut = nullptr, auto CopyA1 = nullptr, auto CopyB1 = nullptr>
struct MatmulCallBackFunc {};

/// The system workspace some SDK kernels pass to REGIST_MATMUL_OBJ; the CPU
/// Matmul needs none.
inline __gm__ uint8_t* GetSysWorkSpacePtr() { return nullptr; }

}  // namespace AscendC
// CANN declares these at global scope (samples call GetSysWorkSpacePtr and
// write `MatmulType<..., CubeFormat::ND, ...>, CFG_NORM>` unqualified).
using ::AscendC::GetSysWorkSpacePtr;
using ::AscendC::CubeFormat;
using ::AscendC::CFG_NORM;
using ::AscendC::CFG_MDL;
using ::AscendC::MatmulConfig;
using ::AscendC::GetNormalConfig;
using ::AscendC::GetMDLConfig;

namespace asc::kernel {

/// The non-template part of AscendC::Matmul (src/kernel/matmul.cc).
class MatmulCore {
 public:
  void init(const ::TCubeTiling* tiling, AscendC::TPipe* pipe, DType a, DType b, DType c, DType bias);
  void set_org_shape(int32_t m, int32_t n, int32_t ka, int32_t kb);
  void set_single_shape(int32_t m, int32_t n, int32_t k);
  void set_tail(int32_t m, int32_t n, int32_t k);
  /// size = elements (0: unknown). A GM operand also gives its
  /// SetGlobalBuffer address and bytes (bound, 0 = none) for the kernel checker.
  void set_a(const void* p, uint64_t size, bool trans, bool gm = false, const void* bound = nullptr,
             uint64_t bound_bytes = 0);
  void set_b(const void* p, uint64_t size, bool trans, bool gm = false, const void* bound = nullptr,
             uint64_t bound_bytes = 0);
  void set_bias(const void* p, uint64_t size, bool gm = false, const void* bound = nullptr, uint64_t bound_bytes = 0);
  void disable_bias() { bias_on_ = false; }
  bool iterate(bool partial_sum);
  /// Writes the current piece: to GM at its place in C, or to a local tile.
  void get_tensor_c(void* dst, uint64_t size, bool gm, uint8_t atomic, bool sequential, const void* bound = nullptr,
                    uint64_t bound_bytes = 0);
  void iterate_all(void* dst, uint64_t size, uint8_t atomic, const void* bound = nullptr, uint64_t bound_bytes = 0);
  void end();

 private:
  void require_init(const char* op) const;
  void compute(int64_t mi, int64_t ni, bool partial_sum);

  ::TCubeTiling t_{};
  bool inited_ = false;
  DType a_dtype_ = DType::kFloat16, b_dtype_ = DType::kFloat16, c_dtype_ = DType::kFloat32,
        bias_dtype_ = DType::kFloat32;
  int64_t org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0;
  int64_t single_m_ = 0, single_n_ = 0, single_k_ = 0;
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  const void* bias_ = nullptr;
  uint64_t a_size_ = 0, b_size_ = 0, bias_size_ = 0;
  bool a_trans_ = false, b_trans_ = false, bias_on_ = false;
  // GM operands: their SetGlobalBuffer bounds, for the kernel checker.
  bool a_gm_ = false, b_gm_ = false, bias_gm_ = false;
  const void* a_bound_ = nullptr;
  const void* b_bound_ = nullptr;
  const void* bias_bound_ = nullptr;
  uint64_t a_bound_bytes_ = 0, b_bound_bytes_ = 0, bias_bound_bytes_ = 0;
  float* co1_ = nullptr;  // baseM x baseN float32 / int32, NZ
  int64_t co1_elems_ = 0;
  int64_t cur_ = -1;  // index of the current piece, -1 before the first Iterate
  int64_t cur_m0_ = 0, cur_n0_ = 0, cur_mb_ = 0, cur_nb_ = 0;
};

}  // namespace asc::kernel

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const MatmulConfig& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>>
class Matmul {
  using SrcAT = typename A_TYPE::T;
  using SrcBT = typename B_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;

 public:
  /// Binds the tiling and allocates the L0C buffer from `tpipe` (default: the
  /// block's current TPipe).
  void Init(const TCubeTiling* cubeTiling, TPipe* tpipe = nullptr) {
    core_.init(cubeTiling, tpipe ? tpipe : GetTPipePtr(), ::asc::dtype_of<SrcAT>(), ::asc::dtype_of<SrcBT>(),
               ::asc::dtype_of<DstT>(), ::asc::dtype_of<BiasT>());
  }
  void SetSubBlockIdx(uint8_t) {}
  void SetWorkspace(__gm__ const uint8_t*, int) {}
  template <typename T>
  void SetLocalWorkspace(const LocalTensor<T>&) {}

  void SetOrgShape(int orgM, int orgN, int orgK) { core_.set_org_shape(orgM, orgN, orgK, orgK); }
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
    (void)orgKc;
    core_.set_org_shape(orgM, orgN, orgKa, orgKb);
  }
  void SetSingleShape(int singleM, int singleN, int singleK) { core_.set_single_shape(singleM, singleN, singleK); }
  /// This block's piece when it is smaller than singleCoreM/N/K (-1: keep).
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) { core_.set_tail(tailM, tailN, tailK); }

  void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) {
    core_.set_a(gm.raw(), gm.GetSize(), isTransposeA, true, gm.bound(), gm.bound_bytes());
  }
  void SetTensorA(const LocalTensor<SrcAT>& local, bool isTransposeA = false) {
    ::asc::kernel::elide::read(local.raw(), local.GetLength());
    core_.set_a(local.raw(), local.GetSize(), isTransposeA);
  }
  void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
    core_.set_b(gm.raw(), gm.GetSize(), isTransposeB, true, gm.bound(), gm.bound_bytes());
  }
  void SetTensorB(const LocalTensor<SrcBT>& local, bool isTransposeB = false) {
    ::asc::kernel::elide::read(local.raw(), local.GetLength());
    core_.set_b(local.raw(), local.GetSize(), isTransposeB);
  }
  void SetBias(const GlobalTensor<BiasT>& biasGlobal) {
    core_.set_bias(biasGlobal.raw(), biasGlobal.GetSize(), true, biasGlobal.bound(), biasGlobal.bound_bytes());
  }
  void SetBias(const LocalTensor<BiasT>& biasLocal) {
    ::asc::kernel::elide::read(biasLocal.raw(), biasLocal.GetLength());
    core_.set_bias(biasLocal.raw(), biasLocal.GetSize());
  }
  void DisableBias() { core_.disable_bias(); }
  void ClearBias() { core_.disable_bias(); }

  /// Computes the next baseM x baseN piece; false when all are done (the next
  /// call starts over). enPartialSum adds to the piece already in L0C.
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false) {
    return core_.iterate(enPartialSum);
  }
  /// Writes the current piece to its place in C (GM).
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
    core_.get_tensor_c(gm.raw(), gm.GetSize(), true, enAtomic, enSequentialWrite, gm.bound(), gm.bound_bytes());
  }
  /// Writes the current piece to a local baseM x baseN ND tile.
  template <bool sync = true>
  void GetTensorC(const LocalTensor<DstT>& local, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
    ::asc::kernel::elide::access(local.raw(), local.GetLength());
    core_.get_tensor_c(local.raw(), local.GetSize(), false, enAtomic, enSequentialWrite);
  }
  template <bool sync = true>
  void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  bool waitIterateAll = false, bool fakeMsg = false) {
    (void)enSequentialWrite;
    (void)waitIterateAll;
    (void)fakeMsg;
    core_.iterate_all(gm.raw(), gm.GetSize(), enAtomic, gm.bound(), gm.bound_bytes());
  }
  void WaitIterateAll() {}
  void End() { core_.end(); }

 private:
  ::asc::kernel::MatmulCore core_;
};

namespace detail {
template <class MM>
inline void regist_matmul(TPipe* pipe, MM& mm) {
  (void)pipe;
  mm.SetSubBlockIdx(0);
}
template <class MM, class... Rest>
inline void regist_matmul(TPipe* pipe, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
  mm.SetSubBlockIdx(0);
  if (tiling != nullptr) mm.Init(tiling, pipe);
  if constexpr (sizeof...(Rest) > 0) regist_matmul(pipe, rest...);
}
}  // namespace detail

}  // namespace AscendC

/// REGIST_MATMUL_OBJ(tpipe, workspace, mm1[, &tiling1[, mm2, &tiling2 ...]]):
/// binds each Matmul to its tiling and the TPipe its buffers come from.
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                 \
  do {                                                           \
    (void)(workspace);                                           \
    ::AscendC::detail::regist_matmul((tpipe), __VA_ARGS__);      \
  } while (0)

// CANN: `namespace matmul = AscendC;`, so `using namespace matmul;` (as the
// samples write) makes every AscendC name visible (GetBlockIdx, ...): the
// using-directive below does the same for pyasc's namespace matmul.
namespace matmul {
using namespace ::AscendC;
using AscendC::CubeFormat;
using AscendC::Matmul;
using AscendC::MatmulCallBackFunc;
using AscendC::MatmulConfig;
using AscendC::MatmulType;
using AscendC::CFG_MDL;
using AscendC::CFG_NORM;
}  // namespace matmul
