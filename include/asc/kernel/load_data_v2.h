// The Ascend 950's (dav-3510) forms of the cube path.
//
// LoadData with LoadData2DParamsV2 (L1 -> L0A / L0B, the Ascend 950's 2D
// load, CANN's "LoadData（2D矩阵搬运V2）"), in 512-byte fractals (b8: 16 x 32,
// b16: 16 x 16, b32: 16 x 8 elements; rows of C0 = 32 bytes).
//
// The source region is mStep x kStep fractals of an M x K matrix stored NZ in
// L1: fractal (r, c) (row block r, column block c) at fractal index
// (kStartPosition + c) * srcStride + mStartPosition + r (CANN's start address
// (kStartPosition * srcStride + mStartPosition) * 512 B). Without ifTranspose
// fractal (r, c) is copied to dst fractal c * dstStride + r (NZ kept). With
// ifTranspose the region, as one (16 mStep) x (C0 kStep) matrix, is transposed
// and written NZ in the same fractal shape: the result has C0 kStep rows and
// 16 mStep columns, its fractal (r', c') at c' * dstStride + r'. That is one
// fractal transposed in place for b16; for b8 two fractals stacked in M form a
// 32 x 32 square (mStep even), for b32 two side by side in K form a 16 x 16
// square (kStep even), as CANN requires. mStep or kStep 0 is a NOP; sid is
// ignored. int4 (b4) and the MX formats are not supported here.
//
// LoadDataWithStride(dst, src, LoadData3DParamsV2) (Ascend 950): the img2col
// of LoadData3DParamsV2 (asc/kernel/cube.h) written NZ with the dstStride of
// SetLoadDataRepeatWithStride(LoadDataRepeatParamWithStride) (fractals between
// the starts of consecutive column blocks; the block's register, reset when
// another block starts). Into L0A the img2col matrix X (mExtension x
// kExtension) itself, or with enTranspose X^T (kExtension rows, a multiple of
// 16); into L0B always B = X in L0B's Zn order (the NZ of X^T), as CANN
// documents ("the L1 -> L0B path transposes, enTranspose has no effect").
// repeatTime > 1 is not supported.
//
// Fixpipe(dst, src, FixpipeParamsArch3510<format>) (GM or UB/L1 dst,
// optionally with the per-column table): the same data path as
// FixpipeParamsV220 (asc/kernel/cube.h); ROW_MAJOR takes ndNum / srcNdStride /
// dstNdStride from `params` (Nz2NdParams), NZ has none; COLUMN_MAJOR (NZ2DN),
// dual destinations (dualDstCtl) and the scalar / vector ReLU modes are not
// supported (kFeatureUnsupported); preReluMode NORMAL_RELU is reluEn.
//
// On the Ascend 950 (__NPU_ARCH__ 3510) the cube unit reads A from L0A in
// this NZ layout (row block i of k column j at fractal j * ceil(m/16) + i), so
// Mmad compiled for dav-3510 reads A as NZ (asc/kernel/cube.h).
#pragma once

#include <cstdint>
#include <type_traits>

#include "asc/kernel/cube.h"

namespace AscendC {

struct LoadData2DParamsV2 {
  uint32_t mStartPosition = 0;
  uint32_t kStartPosition = 0;
  uint16_t mStep = 0;
  uint16_t kStep = 0;
  int32_t srcStride = 0;
  uint16_t dstStride = 0;
  bool ifTranspose = false;
  uint8_t sid = 0;

  LoadData2DParamsV2() = default;
  LoadData2DParamsV2(uint32_t mStartPositionIn, uint32_t kStartPositionIn, uint16_t mStepIn, uint16_t kStepIn,
                     int32_t srcStrideIn, uint16_t dstStrideIn, bool ifTransposeIn, uint8_t sidIn)
      : mStartPosition(mStartPositionIn),
        kStartPosition(kStartPositionIn),
        mStep(mStepIn),
        kStep(kStepIn),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        ifTranspose(ifTransposeIn),
        sid(sidIn) {}
};

enum class ReluMode : uint8_t { NO_RELU = 0, NORMAL_RELU, SCALAR_RELU, VECTOR_RELU };
enum class ClipReluMode : uint8_t { NOCLIP_RELU = 0, SCALAR_CLIP_RELU };
inline constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR};

struct Nz2NdParams {
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint32_t dstNdStride = 0;
};
struct Nz2DnParams {
  uint16_t dnNum = 1;
  uint16_t srcNzMatrixStride = 0;
  uint32_t dstDnMatrixStride = 0;
  uint16_t srcNzC0Stride = 0;
};
template <CO2Layout format>
struct TransformParams {};
template <>
struct TransformParams<CO2Layout::NZ> {
  using PARAMS = uint8_t;
};
template <>
struct TransformParams<CO2Layout::ROW_MAJOR> {
  using PARAMS = Nz2NdParams;
};
template <>
struct TransformParams<CO2Layout::COLUMN_MAJOR> {
  using PARAMS = Nz2DnParams;
};

template <CO2Layout format = CO2Layout::ROW_MAJOR>
struct FixpipeParamsArch3510 {
  FixpipeParamsArch3510() = default;
  FixpipeParamsArch3510(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn)
      : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  ReluMode preReluMode = ReluMode::NO_RELU;
  ClipReluMode preClipReluMode = ClipReluMode::NOCLIP_RELU;
  uint64_t reluScalar = 0;
  uint64_t vectorRelu = 0;
  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint16_t srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  uint8_t dualDstCtl = 0;
  bool subBlockId = false;
  typename TransformParams<format>::PARAMS params{};
  bool isChannelSplit = false;
  uint8_t fixShiftVal = 0;
};
template <CO2Layout format = CO2Layout::ROW_MAJOR>
using FixpipeParamsC310 = FixpipeParamsArch3510<format>;

struct LoadDataRepeatParamWithStride {
  LoadDataRepeatParamWithStride() = default;
  LoadDataRepeatParamWithStride(uint16_t repeatStrideIn, uint8_t repeatTimeIn, uint8_t repeatModeIn,
                                uint16_t dstStrideIn)
      : repeatStride(repeatStrideIn), repeatTime(repeatTimeIn), repeatMode(repeatModeIn), dstStride(dstStrideIn) {}
  uint16_t repeatStride = 0;
  uint8_t repeatTime = 1;
  uint8_t repeatMode = 0;
  uint16_t dstStride = 0;
};

}  // namespace AscendC

namespace asc::kernel::cube {
/// Sizes in bytes of the tensors the template was given.
void load_data_2d_v2(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t elem_size,
                     const AscendC::LoadData2DParamsV2& p);
/// The running block's SetLoadDataRepeatWithStride register.
AscendC::LoadDataRepeatParamWithStride& load3d_stride_reg() noexcept;
/// LoadDataWithStride: img2col (load_data_3d's parameters) written NZ as
/// described above; dst_b2: the destination is L0B.
void load_data_3d_stride(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t elem_size,
                         const Img2ColParams& p, const void* pad_value, bool dst_b2);
}  // namespace asc::kernel::cube

namespace AscendC {

/// L1 (A1/B1) -> L0A (A2) / L0B (B2), see above.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParamsV2& loadDataParams) {
  static_assert(!::asc::kernel::is_int4_v<T>, "LoadData2DParamsV2 of int4b_t (b4) is not supported on the CPU device");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadData2DParamsV2 takes 8-, 16- or 32-bit types");
  ::asc::kernel::cube::load_data_2d_v2(dst.raw(), uint64_t{dst.GetSize()} * sizeof(T), src.raw(),
                                       uint64_t{src.GetSize()} * sizeof(T), sizeof(T), loadDataParams);
}

inline void SetLoadDataRepeatWithStride(const LoadDataRepeatParamWithStride& repeatParams) {
  ::asc::kernel::cube::load3d_stride_reg() = repeatParams;
}

/// img2col L1 -> L0A / L0B written NZ with SetLoadDataRepeatWithStride's
/// dstStride (see above).
template <typename T, typename U>
void LoadDataWithStride(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& loadDataParams) {
  static_assert(std::is_same_v<T, U>, "LoadDataWithStride: the pad value has the tensors' type");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "LoadDataWithStride takes 8-, 16- or 32-bit types");
  namespace cb = ::asc::kernel::cube;
  const T pad = loadDataParams.padValue;
  cb::load_data_3d_stride(dst.raw(), uint64_t{dst.GetSize()} * sizeof(T), src.raw(),
                          uint64_t{src.GetSize()} * sizeof(T), sizeof(T), cb::img2col_params(loadDataParams), &pad,
                          dst.position() == TPosition::B2);
}

namespace detail {
template <CO2Layout format>
FixpipeParamsV220 fixpipe_v220(const FixpipeParamsArch3510<format>& p) {
  namespace k = ::asc::kernel;
  if (p.preReluMode == ReluMode::SCALAR_RELU || p.preReluMode == ReluMode::VECTOR_RELU ||
      p.preClipReluMode != ClipReluMode::NOCLIP_RELU) {
    k::fail(::asc::ErrorCode::kFeatureUnsupported, "Fixpipe",
            "FixpipeParamsArch3510: the scalar / vector / clip ReLU modes are not supported on the CPU device");
  }
  if (p.dualDstCtl != 0) {
    k::fail(::asc::ErrorCode::kFeatureUnsupported, "Fixpipe",
            "FixpipeParamsArch3510: dualDstCtl (L0C -> two UBs) is not supported on the CPU device");
  }
  FixpipeParamsV220 q(p.nSize, p.mSize, p.srcStride, p.dstStride,
                      p.reluEn || p.preReluMode == ReluMode::NORMAL_RELU, p.quantPre, p.deqScalar);
  q.unitFlag = p.unitFlag;
  q.isChannelSplit = p.isChannelSplit;
  if constexpr (format == CO2Layout::ROW_MAJOR) {
    if (p.params.ndNum == 0) q.mSize = 0;  // CANN: a NOP
    q.ndNum = p.params.ndNum == 0 ? 1 : p.params.ndNum;
    q.srcNdStride = p.params.srcNdStride;
    q.dstNdStride = static_cast<uint16_t>(p.params.dstNdStride);
  }
  return q;
}
}  // namespace detail

/// L0C -> GM / UB / L1 with the Ascend 950's parameters (see above).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dstGlobal, const LocalTensor<U>& srcLocal,
             const FixpipeParamsArch3510<config.format>& intriParams) {
  Fixpipe<T, U, config>(dstGlobal, srcLocal, detail::fixpipe_v220(intriParams));
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dstGlobal, const LocalTensor<U>& srcLocal,
             const LocalTensor<uint64_t>& cbufWorkspace, const FixpipeParamsArch3510<config.format>& intriParams) {
  Fixpipe<T, U, config>(dstGlobal, srcLocal, cbufWorkspace, detail::fixpipe_v220(intriParams));
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dstLocal, const LocalTensor<U>& srcLocal,
             const FixpipeParamsArch3510<config.format>& intriParams) {
  Fixpipe<T, U, config>(dstLocal, srcLocal, detail::fixpipe_v220(intriParams));
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dstLocal, const LocalTensor<U>& srcLocal,
             const LocalTensor<uint64_t>& cbufWorkspace, const FixpipeParamsArch3510<config.format>& intriParams) {
  Fixpipe<T, U, config>(dstLocal, srcLocal, cbufWorkspace, detail::fixpipe_v220(intriParams));
}

}  // namespace AscendC
