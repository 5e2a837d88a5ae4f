// Cube (matrix) instructions of the CPU device: DataCopy GM -> L1 with ND -> NZ
// conversion, LoadData (L1/GM -> L0A/L0B), Mmad (L0A x L0B -> L0C) and
// Fixpipe (L0C -> GM/UB with NZ -> ND conversion and quantisation).
//
// Fractal layouts (the element order the hardware uses). C0 = 32 bytes /
// sizeof(T): 16 for half/bfloat16, 8 for float/int32, 32 for int8. A fractal of
// an A or B operand is 16 rows of C0 elements = 512 bytes; an L0C fractal is
// 16 x 16 float/int32 elements = 1 KiB. With M1 = ceil(m/16), K1 = ceil(k/C0),
// N1 = ceil(n/16) and Mpad = 16*M1:
// * NZ (L1, "big N small z"): fractals in column-major order, row-major inside.
//   Element (r, c) of an R x C matrix with row stride (in rows) Rpad:
//   (c / C0) * Rpad * C0 + r * C0 + c % C0.                     (nz_offset)
// * Zz (L0A, A is m x k): fractals row-major, row-major inside.
//   (i, kk) -> ((i/16) * K1 + kk/C0) * 16*C0 + (i%16) * C0 + kk%C0. (zz_offset)
// * Zn (L0B, B is k x n): fractals row-major over the (K1, N1) grid,
//   column-major inside (16 rows of C0 k-values, one row per n).
//   (kk, j) -> ((kk/C0) * N1 + j/16) * 16*C0 + (j%16) * C0 + kk%C0. (zn_offset)
// * Nz (L0C, C is m x n, float/int32, fractal 16 x 16):
//   (i, j) -> (j/16) * Mpad*16 + i*16 + j%16.                     (l0c_offset)
// LoadData2D without transpose copies 512-byte fractals unchanged; L1 NZ A
// fractals become L0A Zz fractals by choosing the order (srcStride). With
// ifTranspose (16-bit types) each 16 x 16 fractal is transposed, which turns L1
// NZ fractals of B (k rows, n columns) into L0B Zn fractals.
//
// Mmad(c, a, b, MmadParams{m, n, k, ...}) computes, for i < Mpad and j < 16*N1
// (whole output fractals, as the cube unit writes them),
//   C[i][j] = init[i][j] + sum_{kk < k} A[i][kk] * B[kk][j]
// with init = 0 (cmatrixInitVal, the default), the current L0C contents
// (cmatrixInitVal = false) or bias[j] (the bias overload with cmatrixSource or
// isBias). Elements of the last k-fractal beyond k are not read. half x half ->
// float, bfloat16 x bfloat16 -> float and float x float -> float accumulate in
// float32 (16-bit products are exact in float32, so each step is one fused
// multiply-add); int8 x int8 -> int32 is exact (wrapping on overflow). m, n, k
// must be <= 4095. The implementation is a blocked Highway micro-kernel
// (src/kernel/simd/mmad.cc), not a triple loop.
//
// Errors (asc::Error, message "[Op] kernel 'name' block i of n: ..."):
// kInvalidDtype for an unsupported type combination, kInvalidParam for
// parameters out of range, kIndexOutOfRange when an operand's fractals do not
// fit in its tensor, kFeatureUnsupported for documented unimplemented modes.
//
// Copy elision (asc/kernel/elide.h): the local ranges these instructions read
// are materialised first and the ranges they write are made real.
//
// Atomic mode (asc/kernel/atomic.h): Fixpipe and DataCopy L0C -> GM combine
// into GM under SetAtomicAdd/Max/Min<T>() like DataCopy does (the converted
// values, laid out as the plain write would place them).
//
// Kernel checker (asc/kernel/checker.h): the GM side of DataCopy with
// Nd2NzParams, LoadData from GM, Fixpipe and DataCopy L0C -> GM is checked
// (gm-out-of-bounds / host-pointer against the GlobalTensor's SetGlobalBuffer
// bound and allocation, Fixpipe writes in the gm-write-race check unless
// atomic), and local operands of LoadData / Mmad / Fixpipe for use-after-free.
//
// Thread-safety: per-block data; the Mmad scratch buffers are thread-local.
#pragma once

#include <cstdint>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace AscendC {

// ---------------------------------------------------------------- parameters

/// LoadData 2D: `repeatTimes` fractals (512 bytes each); the first is fractal
/// `startIndex` of the source, consecutive source fractals start `srcStride`
/// fractals apart, and `dstGap` fractals are skipped between destination
/// fractals. `ifTranspose` transposes each 16 x 16 fractal (16-bit types).
struct LoadData2DParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint8_t sid = 0;
  uint16_t dstGap = 0;
  bool ifTranspose = false;
  uint8_t addrMode = 0;

  LoadData2DParams() = default;
  LoadData2DParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint8_t sidIn,
                   uint16_t dstGapIn, bool ifTransposeIn, uint8_t addrModeIn)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        sid(sidIn),
        dstGap(dstGapIn),
        ifTranspose(ifTransposeIn),
        addrMode(addrModeIn) {}
};

/// LoadDataWithTranspose (L1 -> L0A/L0B): each repeat transposes one square of
/// 512-byte fractals, as CANN documents: int4b_t 4 fractals of 16 x 64 (a
/// 64 x 64 square), int8 2 of 16 x 32 (32 x 32), 16-bit 1 of 16 x 16, 32-bit
/// 2 of 16 x 8 (a 16 x 16 square whose fractals are its column halves).
/// startIndex and srcStride count squares; dstGap (512 B) lies between the
/// first fractals of consecutive repeats, dstFracGap (512 B) between the
/// fractals of one repeat (8-, 4- and 32-bit); addrMode 1 walks the source
/// backwards.
struct LoadData2dTransposeParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint16_t dstGap = 0;
  uint16_t dstFracGap = 0;
  uint8_t addrMode = 0;

  LoadData2dTransposeParams() = default;
  LoadData2dTransposeParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint16_t dstGapIn,
                            uint16_t dstFracGapIn, uint8_t addrModeIn = 0)
      : startIndex(startIndexIn),
        repeatTimes(repeatTimesIn),
        srcStride(srcStrideIn),
        dstGap(dstGapIn),
        dstFracGap(dstFracGapIn),
        addrMode(addrModeIn) {}
};

/// Mmad: C (m x n) = init + A (m x k) * B (k x n); see the header comment.
/// unitFlag, fmOffset, enSsparse and enWinogradA/B are accepted and have no
/// effect on the CPU device. kDirectionAlign (float A only, as CANN documents):
/// each 16-row block of A in L0A holds 2*ceil(k/16) fractals of 16 x 8 (the
/// layout a transposing LoadData leaves) and the padding fractal is skipped;
/// false: ceil(k/8) fractals per row block.
struct MmadParams {
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;
  /// m = 1 reads A as a 1 x k ND vector (GEMV) unless this is set (CANN:
  /// settable on the Ascend 950 only; always GEMV at m = 1 elsewhere).
  bool disableGemv = false;
  uint8_t fixShiftVal = 0;  // accepted; no effect on the CPU device

  MmadParams() = default;
  MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool isBiasIn, int32_t fmOffsetIn, bool enSsparseIn,
             bool enWinogradAIn, bool enWinogradBIn)
      : m(mIn),
        n(nIn),
        k(kIn),
        isBias(isBiasIn),
        fmOffset(fmOffsetIn),
        enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn),
        enWinogradB(enWinogradBIn) {}
  MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unitFlagIn, bool cmatrixSourceIn,
             bool cmatrixInitValIn)
      : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn), cmatrixInitVal(cmatrixInitValIn) {}
};

/// DataCopy GM -> L1 with ND -> NZ conversion. ndNum matrices of nValue rows x
/// dValue elements; source rows srcDValue elements apart, matrices
/// srcNdMatrixStride elements apart. Destination element (r, c) of matrix i:
/// i * dstNzMatrixStride + (c / C0) * dstNzC0Stride * C0 + r * dstNzNStride * C0
/// + c % C0 (C0Stride and NStride count 32-byte blocks, MatrixStride elements).
/// The unused tail of a row's last C0 block is filled with zeros.
struct Nd2NzParams {
  uint16_t ndNum = 0;
  uint16_t nValue = 0;
  uint16_t dValue = 0;
  uint16_t srcNdMatrixStride = 0;
  uint16_t srcDValue = 0;
  uint16_t dstNzC0Stride = 0;
  uint16_t dstNzNStride = 0;
  uint16_t dstNzMatrixStride = 0;

  Nd2NzParams() = default;
  Nd2NzParams(uint16_t ndNumIn, uint16_t nValueIn, uint16_t dValueIn, uint16_t srcNdMatrixStrideIn,
              uint16_t srcDValueIn, uint16_t dstNzC0StrideIn, uint16_t dstNzNStrideIn, uint16_t dstNzMatrixStrideIn)
      : ndNum(ndNumIn),
        nValue(nValueIn),
        dValue(dValueIn),
        srcNdMatrixStride(srcNdMatrixStrideIn),
        srcDValue(srcDValueIn),
        dstNzC0Stride(dstNzC0StrideIn),
        dstNzNStride(dstNzNStrideIn),
        dstNzMatrixStride(dstNzMatrixStrideIn) {}
};

/// Fixpipe quantisation (applied while L0C data is written out):
/// NoQuant (float -> float, int32 -> int32), F322F16 / F322BF16 (float ->
/// half / bfloat16, round to nearest even), DEQF16 (int32 -> half, times the
/// scalar scale), VDEQF16 (int32 -> half, times a per-column scale),
/// QF322B8_PRE / VQF322B8_PRE (float -> int8), REQ8 / VREQ8 (int32 -> int8):
/// scaled, rounded to nearest even, saturated.
enum class QuantMode_t : uint8_t {
  NoQuant = 0,
  F322F16,
  F322BF16,
  DEQF16,
  VDEQF16,
  QF322B8_PRE,
  VQF322B8_PRE,
  REQ8,
  VREQ8,
};

/// Layout Fixpipe writes: ND rows (ROW_MAJOR, CFG_ROW_MAJOR) or NZ fractals
/// (CFG_NZ, described at the end of this header). COLUMN_MAJOR is not supported.
enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
  // dav-3510's second field (L0C -> UB); the destination tensor's type picks
  // the path here, so it is informational.
  bool isToUB = false;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

/// Fixpipe L0C -> GM/UB: mSize rows x nSize columns of the NZ source whose
/// fractal columns are srcStride * 16 elements apart (srcStride counts rows,
/// normally Mpad); destination rows are dstStride elements apart. deqScalar's
/// low 32 bits hold the float scale of DEQF16 / QF322B8_PRE / REQ8. reluEn
/// applies ReLU before quantisation. ndNum > 1 is not supported.
struct FixpipeParamsV220 {
  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint16_t srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  bool isChannelSplit = false;

  FixpipeParamsV220() = default;
  FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn)
      : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
  FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn,
                    QuantMode_t quantPreIn, uint64_t deqScalarIn)
      : nSize(nSizeIn),
        mSize(mSizeIn),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        quantPre(quantPreIn),
        deqScalar(deqScalarIn),
        reluEn(reluEnIn) {}
  /// The full form of CANN's samples: {nSize, mSize, srcStride, dstStride,
  /// reluEn, quantPre, deqScalar, ndNum, srcNdStride, dstNdStride, unitFlag}.
  FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn,
                    QuantMode_t quantPreIn, uint64_t deqScalarIn, uint16_t ndNumIn, uint16_t srcNdStrideIn,
                    uint16_t dstNdStrideIn, uint8_t unitFlagIn)
      : nSize(nSizeIn),
        mSize(mSizeIn),
        srcStride(srcStrideIn),
        dstStride(dstStrideIn),
        quantPre(quantPreIn),
        deqScalar(deqScalarIn),
        ndNum(ndNumIn),
        srcNdStride(srcNdStrideIn),
        dstNdStride(dstNdStrideIn),
        reluEn(reluEnIn),
        unitFlag(unitFlagIn) {}
};

}  // namespace AscendC

namespace asc::kernel::cube {

/// C0 of a dtype: elements per 32-byte row of a fractal.
constexpr int64_t c0_of(size_t elem_size) { return 32 / static_cast<int64_t>(elem_size); }
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Offsets (in elements) of the layouts in the header comment.
constexpr int64_t nz_offset(int64_t r, int64_t c, int64_t rpad, int64_t c0) {
  return (c / c0) * rpad * c0 + r * c0 + c % c0;
}
constexpr int64_t zz_offset(int64_t i, int64_t kk, int64_t k1, int64_t c0) {
  return ((i / 16) * k1 + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0;
}
constexpr int64_t zn_offset(int64_t kk, int64_t j, int64_t n1, int64_t c0) {
  return ((kk / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + kk % c0;
}
constexpr int64_t l0c_offset(int64_t i, int64_t j, int64_t mpad) { return (j / 16) * mpad * 16 + i * 16 + j % 16; }

/// Storage order of a GEMM operand (see gemm()).
enum class Layout : uint8_t {
  kFractal,   // A: Zz with `ld` = K1; B: Zn with `ld` = N1 (C0 from the dtype)
  kRowMajor,  // A: a[i*ld + kk]; B: b[kk*ld + j]
  kColMajor,  // A: a[kk*ld + i]; B: b[j*ld + kk]  (transposed ND)
};

/// One GEMM operand. For the ND layouts `valid` is the number of rows of A
/// (columns of B) that exist: the padding up to a multiple of 16 reads as 0.
struct Operand {
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  Layout layout = Layout::kFractal;
  int64_t ld = 0;
  int64_t valid = 0;
};

/// The engine behind Mmad and Matmul. C is float32 (A, B float16 / bfloat16 /
/// float32, both the same) or int32 (int8 x int8), NZ: element (i, j) at
/// (j/16) * c_col_stride + i*16 + j%16. Computes every element of the padded
/// 16*ceil(m/16) x 16*ceil(n/16) output: C = (accumulate ? C : 0) + A * B over
/// exactly k terms. Single-threaded (it runs on the calling core); throws
/// kInvalidDtype for other dtype combinations.
void gemm(int64_t m, int64_t n, int64_t k, const Operand& a, const Operand& b, void* c, DType c_dtype,
          int64_t c_col_stride, bool accumulate);

/// The Highway target gemm() runs on, and its register block (rows x columns).
const char* gemm_target() noexcept;

// ---- non-template implementations of the instructions (src/kernel/cube.cc);
// sizes are in bytes of the tensors the templates were given.

// gm_bound / gm_bound_bytes: the GlobalTensor's SetGlobalBuffer address and
// size (bytes, 0 = none) for the kernel checker (asc/kernel/checker.h), which
// checks the GM side of these instructions when active().
void load_data_2d(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, bool src_is_gm,
                  size_t elem_size, const AscendC::LoadData2DParams& p, const char* op,
                  const void* gm_bound = nullptr, uint64_t gm_bound_bytes = 0);
void nd2nz(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t elem_size,
           const AscendC::Nd2NzParams& p, const void* gm_bound = nullptr, uint64_t gm_bound_bytes = 0);
/// a_nz: A is in L0A as NZ (the Ascend 950's layout: row block i of k column
/// j at fractal j * ceil(m/16) + i) instead of Zz (i * ceil(k/C0) + j).
void mmad(void* c, uint64_t c_bytes, DType c_dtype, const void* a, uint64_t a_bytes, DType a_dtype, const void* b,
          uint64_t b_bytes, DType b_dtype, const void* bias, uint64_t bias_bytes, const AscendC::MmadParams& p,
          bool a_nz = false);
/// True where the kernel is compiled for dav-3510 (Ascend 950), whose cube
/// unit reads L0A as NZ (see load_data_v2.h).
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
inline constexpr bool kL0ANz = true;
#else
inline constexpr bool kL0ANz = false;
#endif
/// `scales` (may be null) holds per-column uint64 quant parameters (VDEQF16 /
/// VQF322B8_PRE / VREQ8). dst_bytes = 0: unknown GM size. check_op (null:
/// none) names the instruction for the kernel checker's GM write check.
void fixpipe(void* dst, uint64_t dst_bytes, DType dst_dtype, bool dst_is_gm, const void* src, uint64_t src_bytes,
             DType src_dtype, const AscendC::FixpipeParamsV220& p, AscendC::CO2Layout layout, const uint64_t* scales,
             uint64_t scales_count, const char* check_op = nullptr, const void* gm_bound = nullptr,
             uint64_t gm_bound_bytes = 0);

/// Mmad of int4b_t x int4b_t -> int32 (fractals of 16 x 64 int4b_t, 512
/// bytes): the operands are widened to int8 Zz / Zn and run through mmad().
/// Sizes are bytes; bias (may be null) is n int32 values.
void mmad_s4(void* c, uint64_t c_bytes, const void* a, uint64_t a_bytes, const void* b, uint64_t b_bytes,
             const void* bias, uint64_t bias_bytes, const AscendC::MmadParams& p);
/// The transposing 2D loads of int4b_t (64 x 64 squares) are not implemented:
/// kFeatureUnsupported when `transpose`.
void int4_no_transpose(const char* op, bool transpose);
/// LoadDataWithTranspose of elements of elem_bits (4, 8, 16 or 32) bits; the
/// sizes are bytes.
void load_data_2d_transpose(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, int elem_bits,
                            const AscendC::LoadData2dTransposeParams& p, const char* op);

template <typename T>
constexpr DType cube_dtype() {
  return asc::dtype_of<T>();
}

}  // namespace asc::kernel::cube

namespace AscendC {

// ---------------------------------------------------------------- DataCopy ND -> NZ

/// GM -> L1 (A1/B1/C1) with ND -> NZ conversion.
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& intriParams) {
  if constexpr (::asc::kernel::is_int4_v<T>) {
    // CANN moves int4b_t as pairs in int8_t units: the parameters count bytes.
    GlobalTensor<int8_t> src8;
    src8.SetGlobalBuffer(reinterpret_cast<int8_t*>(src.raw()), (src.GetSize() + 1) / 2);
    return DataCopy(dst.template ReinterpretCast<int8_t>(), src8, intriParams);
  }
  ::asc::kernel::cube::nd2nz(dst.raw(), uint64_t{dst.GetSize()} * sizeof(T), src.raw(), src.GetSize() * sizeof(T),
                             sizeof(T), intriParams, src.bound(), src.bound_bytes());
}

// ---------------------------------------------------------------- LoadData

/// L1 -> L0A/L0B (or L1 -> L1): 512-byte fractals, see LoadData2DParams.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& loadDataParams) {
  if constexpr (::asc::kernel::is_int4_v<T>) {  // 512-byte fractals of 16 x 64 int4b_t
    ::asc::kernel::cube::int4_no_transpose("LoadData", loadDataParams.ifTranspose);
    return LoadData(dst.template ReinterpretCast<int8_t>(), src.template ReinterpretCast<int8_t>(), loadDataParams);
  }
  ::asc::kernel::cube::load_data_2d(dst.raw(), uint64_t{dst.GetSize()} * sizeof(T), src.raw(),
                                    uint64_t{src.GetSize()} * sizeof(T), false, sizeof(T), loadDataParams, "LoadData");
}
/// GM -> L1/L0A/L0B.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& loadDataParams) {
  if constexpr (::asc::kernel::is_int4_v<T>) {
    ::asc::kernel::cube::int4_no_transpose("LoadData", loadDataParams.ifTranspose);
    GlobalTensor<int8_t> src8;
    src8.SetGlobalBuffer(reinterpret_cast<int8_t*>(src.raw()), (src.GetSize() + 1) / 2);
    return LoadData(dst.template ReinterpretCast<int8_t>(), src8, loadDataParams);
  }
  ::asc::kernel::cube::load_data_2d(dst.raw(), uint64_t{dst.GetSize()} * sizeof(T), src.raw(),
                                    src.GetSize() * sizeof(T), true, sizeof(T), loadDataParams, "LoadData",
                                    src.bound(), src.bound_bytes());
}
/// Transposing load L1 -> L0A/L0B (see LoadData2dTransposeParams).
template <typename T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LoadData2dTransposeParams& loadDataParams) {
  constexpr int bits = ::asc::kernel::is_int4_v<T> ? 4 : static_cast<int>(sizeof(T) * 8);
  static_assert(bits == 4 || bits == 8 || bits == 16 || bits == 32,
                "LoadDataWithTranspose takes int4b_t, 8-, 16- or 32-bit elements");
  ::asc::kernel::cube::load_data_2d_transpose(dst.raw(), uint64_t{dst.GetSize()} * bits / 8, src.raw(),
                                              uint64_t{src.GetSize()} * bits / 8, bits, loadDataParams,
                                              "LoadDataWithTranspose");
}

// ---------------------------------------------------------------- Mmad

/// dst (CO1, float or int32) = A (A2, Zz) x B (B2, Zn); see the header comment.
template <typename T, typename U, typename S>
void Mmad(const LocalTensor<T>& dstLocal, const LocalTensor<U>& fmLocal, const LocalTensor<S>& filterLocal,
          const MmadParams& mmadParams) {
  namespace cb = ::asc::kernel::cube;
  if constexpr (::asc::kernel::is_int4_v<U> || ::asc::kernel::is_int4_v<S>) {
    static_assert(::asc::kernel::is_int4_v<U> && ::asc::kernel::is_int4_v<S> && std::is_same_v<T, int32_t>,
                  "Mmad with int4b_t takes int4b_t x int4b_t -> int32_t");
    return cb::mmad_s4(dstLocal.raw(), dstLocal.GetLength(), fmLocal.raw(), fmLocal.GetLength(), filterLocal.raw(),
                       filterLocal.GetLength(), nullptr, 0, mmadParams);
  } else {
    // cmatrixSource without a bias operand: the initial C comes from the
    // BiasTable (C2) at address 0, where the hardware's bias address points
    // when none is given (the mmad sample's scenario 1 puts its bias there).
    // cmatrixInitVal = true zeroes C whatever cmatrixSource says; the
    // deprecated isBias without a bias operand is C += A * B (CANN's words).
    MmadParams p = mmadParams;
    const void* bt = nullptr;
    uint64_t bt_bytes = 0;
    if (p.isBias) {
      p.isBias = false;
      p.cmatrixInitVal = false;
      p.cmatrixSource = false;
    } else if (p.cmatrixSource && p.cmatrixInitVal) {
      p.cmatrixSource = false;
    } else if (p.cmatrixSource) {
      bt_bytes = uint64_t{p.n} * sizeof(T);
      bt = ::asc::kernel::local_at(TPosition::C2, 0, bt_bytes);
    }
    cb::mmad(dstLocal.raw(), uint64_t{dstLocal.GetSize()} * sizeof(T), cb::cube_dtype<T>(), fmLocal.raw(),
             uint64_t{fmLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), filterLocal.raw(),
             uint64_t{filterLocal.GetSize()} * sizeof(S), cb::cube_dtype<S>(), bt, bt_bytes, p, cb::kL0ANz);
  }
}
/// With a bias row (n elements of dst's type, C2/CO1/UB): used as the initial C
/// when cmatrixSource or isBias is set; a bias in C2 (the BiasTable) always
/// is, as CANN documents ("with a bias operand cmatrixSource has no effect:
/// the bias's position decides").
template <typename T, typename U, typename S, typename V>
void Mmad(const LocalTensor<T>& dstLocal, const LocalTensor<U>& fmLocal, const LocalTensor<S>& filterLocal,
          const LocalTensor<V>& biasLocal, const MmadParams& mmadParams) {
  namespace cb = ::asc::kernel::cube;
  static_assert(std::is_same_v<T, V>, "Mmad: the bias must have the destination's type (float or int32_t)");
  if constexpr (::asc::kernel::is_int4_v<U> || ::asc::kernel::is_int4_v<S>) {
    static_assert(::asc::kernel::is_int4_v<U> && ::asc::kernel::is_int4_v<S> && std::is_same_v<T, int32_t>,
                  "Mmad with int4b_t takes int4b_t x int4b_t -> int32_t");
    return cb::mmad_s4(dstLocal.raw(), dstLocal.GetLength(), fmLocal.raw(), fmLocal.GetLength(), filterLocal.raw(),
                       filterLocal.GetLength(), biasLocal.raw(), biasLocal.GetLength(), mmadParams);
  } else {
    MmadParams p = mmadParams;
    if (biasLocal.position() == TPosition::C2) p.cmatrixSource = true;
    cb::mmad(dstLocal.raw(), uint64_t{dstLocal.GetSize()} * sizeof(T), cb::cube_dtype<T>(), fmLocal.raw(),
             uint64_t{fmLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), filterLocal.raw(),
             uint64_t{filterLocal.GetSize()} * sizeof(S), cb::cube_dtype<S>(), biasLocal.raw(),
             uint64_t{biasLocal.GetSize()} * sizeof(V), p, cb::kL0ANz);
  }
}

// ---------------------------------------------------------------- Fixpipe

/// L0C (CO1) -> GM, NZ -> ND (config CFG_ROW_MAJOR, the default).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dstGlobal, const LocalTensor<U>& srcLocal, const FixpipeParamsV220& intriParams) {
  namespace cb = ::asc::kernel::cube;
  cb::fixpipe(dstGlobal.raw(), dstGlobal.GetSize() * sizeof(T), cb::cube_dtype<T>(), true, srcLocal.raw(),
              uint64_t{srcLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), intriParams, config.format, nullptr, 0,
              "Fixpipe", dstGlobal.bound(), dstGlobal.bound_bytes());
}
/// With per-column quantisation parameters (VDEQF16 / VQF322B8_PRE / VREQ8).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const GlobalTensor<T>& dstGlobal, const LocalTensor<U>& srcLocal,
             const LocalTensor<uint64_t>& cbufWorkspace, const FixpipeParamsV220& intriParams) {
  namespace cb = ::asc::kernel::cube;
  cb::fixpipe(dstGlobal.raw(), dstGlobal.GetSize() * sizeof(T), cb::cube_dtype<T>(), true, srcLocal.raw(),
              uint64_t{srcLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), intriParams, config.format,
              cbufWorkspace.raw(), cbufWorkspace.GetSize(), "Fixpipe", dstGlobal.bound(), dstGlobal.bound_bytes());
}
/// L0C (CO1) -> UB / L1 (a LocalTensor), NZ -> ND.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dstLocal, const LocalTensor<U>& srcLocal, const FixpipeParamsV220& intriParams) {
  namespace cb = ::asc::kernel::cube;
  cb::fixpipe(dstLocal.raw(), uint64_t{dstLocal.GetSize()} * sizeof(T), cb::cube_dtype<T>(), false, srcLocal.raw(),
              uint64_t{srcLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), intriParams, config.format, nullptr, 0);
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
void Fixpipe(const LocalTensor<T>& dstLocal, const LocalTensor<U>& srcLocal,
             const LocalTensor<uint64_t>& cbufWorkspace, const FixpipeParamsV220& intriParams) {
  namespace cb = ::asc::kernel::cube;
  cb::fixpipe(dstLocal.raw(), uint64_t{dstLocal.GetSize()} * sizeof(T), cb::cube_dtype<T>(), false, srcLocal.raw(),
              uint64_t{srcLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), intriParams, config.format,
              cbufWorkspace.raw(), cbufWorkspace.GetSize());
}

}  // namespace AscendC

// ============================================================================
// More of the cube path: LoadData 3D (img2col, LoadData3DParamsV2), Fixpipe
// to NZ (CFG_NZ), DataCopy L0C -> GM/UB (DataCopyCO12DstParams) and
// InitConstValue.
//
// * LoadData(dst, src, LoadData3DParamsV2<T>): img2col of a feature map in L1
//   laid out [C1][l1H][l1W][C0] (C1 = channelSize / C0). With padList = {left,
//   right, top, bottom}, the effective filter FH = filterH (+256 when
//   filterSizeH) and FW likewise, dilation dH / dW and strides sH / sW, the
//   output width is Wo = (l1W + left + right - dW (FW - 1) - 1) / sW + 1. Row
//   m of the img2col matrix is output position (m / Wo, m % Wo); column
//   k = ((c1 * FH + kh) * FW + kw) * C0 + c0 (the FRACTAL_Z weight order)
//   holds the input at h = (m / Wo) sH - top + kh dH, w = (m % Wo) sW - left +
//   kw dW, channel c1 * C0 + c0, or padValue outside the input. The block
//   rows [mStartPt, +mExtension) x columns [kStartPt, +kExtension) is written
//   in L0A's Zz order (16 x C0 fractals, row-major) or, for a B2 destination,
//   in L0B's Zn order with m as the n dimension (the img2col rows become B's
//   columns). mExtension must be a multiple of 16, kExtension of C0 and
//   channelSize of C0. enTranspose (16- and 32-bit types, as CANN documents)
//   writes the transpose: into L0A the Zz A = X^T (kExtension rows; for
//   16-bit a multiple of 16, mExtension of C0), into L0B the Zn B = X (k =
//   the mExtension rows, n = the kExtension columns; 32-bit kExtension is
//   padded to 16 columns there, the padding not written). enSmallK is not supported
//   (kFeatureUnsupported). SetFmatrix / SetLoadDataPaddingValue /
//   SetLoadDataRepeat / SetLoadDataBoundary are accepted: the parameters
//   struct carries everything on the CPU device.
// * Fixpipe<T, U, CFG_NZ>(dst, srcCO1, FixpipeParamsV220): writes NZ instead
//   of ND: element (i, j) (i < mSize, j < nSize) goes to (j / c) * dstStride *
//   (32 / sizeof(T)) + i * c + j % c with c = 16 columns per fractal column
//   (c = 8 for float with isChannelSplit, c = 32 for int8: CANN's "Int8
//   Channel Merge", two 16-column fractals merged into one of 16 x 32, the
//   last one left 16 wide when nSize / 16 is odd); dstStride counts 32-byte
//   units between fractal columns and must leave room for mSize rows. nSize
//   must be a multiple of c (of 16 for int8).
// * DataCopy(dst GlobalTensor / LocalTensor, srcCO1, DataCopyCO12DstParams{
//   nSize, mSize, dstStride, srcStride, unitFlag, quantPre, reluPre,
//   channelSplit, nz2ndEn}): the same data path as Fixpipe (ND with nz2ndEn,
//   else NZ; reluPre 1 = ReLU). The quantisation value and table come from
//   the block's Fixpipe registers: SetFixpipePreQuantFlag(scalar) for
//   DEQF16 / QF322B8_PRE / REQ8, SetFixPipeConfig(table in C2PIPE2GM) for the
//   V* modes (DataCopy L1 -> C2PIPE2GM counts blockLen in 128-byte units);
//   SetFixpipeNz2ndFlag sets ndNum and its strides.
// * InitConstValue(dst, InitConstValueParams<T>{repeatTimes, blockNum, dstGap,
//   initValue}) (L1 / L0A / L0B): repeat r fills blockNum 512-byte blocks
//   starting (blockNum + dstGap) * r blocks into dst with initValue.
// ============================================================================

namespace AscendC {

constexpr int32_t PAD_SIZE = 4;

enum class FmatrixMode : uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

template <typename T>
struct LoadData3DParamsV2 {
  LoadData3DParamsV2() = default;
  LoadData3DParamsV2(const uint8_t padListIn[PAD_SIZE], const uint16_t l1HIn, const uint16_t l1WIn,
                     const uint16_t channelSizeIn, const uint16_t kExtensionIn, const uint16_t mExtensionIn,
                     const uint16_t kStartPtIn, const uint16_t mStartPtIn, const uint8_t strideWIn,
                     const uint8_t strideHIn, const uint8_t filterWIn, const uint8_t filterHIn,
                     const uint8_t dilationFilterWIn, const uint8_t dilationFilterHIn, const bool enTransposeIn,
                     const bool enSmallKIn, const T padValueIn, const bool filterSizeWIn = false,
                     const bool filterSizeHIn = false, const bool fMatrixCtrlIn = false)
      : l1H(l1HIn),
        l1W(l1WIn),
        channelSize(channelSizeIn),
        kExtension(kExtensionIn),
        mExtension(mExtensionIn),
        kStartPt(kStartPtIn),
        mStartPt(mStartPtIn),
        strideW(strideWIn),
        strideH(strideHIn),
        filterW(filterWIn),
        filterH(filterHIn),
        dilationFilterW(dilationFilterWIn),
        dilationFilterH(dilationFilterHIn),
        enTranspose(enTransposeIn),
        enSmallK(enSmallKIn),
        padValue(padValueIn),
        filterSizeW(filterSizeWIn),
        filterSizeH(filterSizeHIn),
        fMatrixCtrl(fMatrixCtrlIn) {
    for (int i = 0; i < PAD_SIZE; ++i) padList[i] = padListIn[i];
  }
  uint8_t padList[PAD_SIZE] = {0, 0, 0, 0};
  uint16_t l1H = 0;
  uint16_t l1W = 0;
  uint16_t channelSize = 0;
  uint16_t kExtension = 0;
  uint16_t mExtension = 0;
  uint16_t kStartPt = 0;
  uint16_t mStartPt = 0;
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  bool enTranspose = false;
  bool enSmallK = false;
  T padValue = T(0);
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
};

struct DataCopyCO12DstParams {
  DataCopyCO12DstParams() = default;
  DataCopyCO12DstParams(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint32_t dstStrideIn,
                        const uint16_t srcStrideIn, const QuantMode_t quantPreIn, const uint8_t reluPreIn,
                        const bool channelSplitIn, const bool nz2ndEnIn)
      : nSize(nSizeIn),
        mSize(mSizeIn),
        dstStride(dstStrideIn),
        srcStride(srcStrideIn),
        quantPre(quantPreIn),
        reluPre(reluPreIn),
        channelSplit(channelSplitIn),
        nz2ndEn(nz2ndEnIn) {}
  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint32_t dstStride = 0;
  uint16_t srcStride = 0;
  uint8_t unitFlag = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint8_t reluPre = 0;
  bool channelSplit = false;
  bool nz2ndEn = false;
};

template <typename T>
struct InitConstValueParams {
  InitConstValueParams() = default;
  InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn, const uint16_t dstGapIn,
                       const T initValueIn)
      : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
  uint16_t repeatTimes = 0;
  uint16_t blockNum = 0;
  uint16_t dstGap = 0;
  T initValue = T(0);
};

}  // namespace AscendC

namespace asc::kernel::cube {

/// The fields of LoadData3DParamsV2 without the pad value's type.
struct Img2ColParams {
  uint32_t pad[4];
  uint32_t l1h, l1w, channels, k_ext, m_ext, k_start, m_start;
  uint32_t stride_w, stride_h, filter_w, filter_h, dil_w, dil_h;
  bool transpose, small_k;
};
/// `pad_value` points to one element; dst_zn: write L0B's Zn order.
void load_data_3d(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, size_t elem_size,
                  const Img2ColParams& p, const void* pad_value, bool dst_zn);
void init_const_value(void* dst, uint64_t dst_bytes, size_t elem_size, uint32_t repeat, uint32_t blocks,
                      uint32_t gap, const void* value);
/// DataCopyCO12DstParams as Fixpipe parameters (and the layout it asks for),
/// with the block's Fixpipe registers (scalar quant value, NZ2ND strides).
AscendC::FixpipeParamsV220 co12dst_params(const AscendC::DataCopyCO12DstParams& p, AscendC::CO2Layout* layout);

/// The Fixpipe configuration registers of the running block (per thread,
/// reset when another block starts on it): SetFixpipePreQuantFlag's scalar,
/// SetFixPipeConfig's per-column table (in the Fixpipe Buffer) and
/// SetFixpipeNz2ndFlag's strides, read by DataCopy L0C -> GM/L1/UB.
struct FixpipeRegs {
  uint64_t serial = 0;
  uint64_t quant_scalar = 0;
  const uint64_t* quant_table = nullptr;
  uint64_t quant_count = 0;  // uint64 entries
  uint16_t nd_num = 1, src_nd_stride = 0, dst_nd_stride = 0;
};
FixpipeRegs& fixpipe_regs() noexcept;

template <typename T>
Img2ColParams img2col_params(const AscendC::LoadData3DParamsV2<T>& p) {
  Img2ColParams q{};
  for (int i = 0; i < 4; ++i) q.pad[i] = p.padList[i];
  q.l1h = p.l1H;
  q.l1w = p.l1W;
  q.channels = p.channelSize;
  q.k_ext = p.kExtension;
  q.m_ext = p.mExtension;
  q.k_start = p.kStartPt;
  q.m_start = p.mStartPt;
  q.stride_w = p.strideW;
  q.stride_h = p.strideH;
  q.filter_w = p.filterW + (p.filterSizeW ? 256u : 0u);
  q.filter_h = p.filterH + (p.filterSizeH ? 256u : 0u);
  q.dil_w = p.dilationFilterW;
  q.dil_h = p.dilationFilterH;
  q.transpose = p.enTranspose;
  q.small_k = p.enSmallK;
  return q;
}

}  // namespace asc::kernel::cube

namespace AscendC {

/// img2col L1 -> L0A / L0B (see above).
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& loadDataParams) {
  static_assert(sizeof(T) <= 4, "LoadData 3D takes 8-, 16- or 32-bit elements");
  if constexpr (::asc::kernel::is_int4_v<T>) {
    ::asc::kernel::fail(::asc::ErrorCode::kFeatureUnsupported, "LoadData",
                        "img2col (LoadData3DParamsV2) of int4b_t is not implemented on the CPU device");
  }
  namespace cb = ::asc::kernel::cube;
  const T pad = loadDataParams.padValue;
  cb::load_data_3d(dst.raw(), uint64_t{dst.GetSize()} * sizeof(T), src.raw(), uint64_t{src.GetSize()} * sizeof(T),
                   sizeof(T), cb::img2col_params(loadDataParams), &pad, dst.position() == TPosition::B2);
}

/// Accepted for source compatibility: LoadData3DParamsV2 carries these values.
inline void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[PAD_SIZE], const FmatrixMode& fmatrixMode) {
  (void)l1H;
  (void)l1W;
  (void)padList;
  (void)fmatrixMode;
}
template <typename T>
inline void SetLoadDataPaddingValue(const T padValue) {
  (void)padValue;
}
inline void SetLoadDataBoundary(uint32_t boundaryValue) { (void)boundaryValue; }
inline void SetLoadDataRepeat(const uint16_t repeatTime, const uint16_t repeatStride = 0, const uint8_t repeatMode = 0) {
  (void)repeatTime;
  (void)repeatStride;
  (void)repeatMode;
}

/// Fixpipe registers for DataCopy L0C -> GM/L1/UB (DataCopyCO12DstParams):
/// the scalar quantisation value of DEQF16 / QF322B8_PRE / REQ8 (bits 0..31
/// the float scale, bit 46 the int8 sign flag, as CANN's Fixpipe takes it).
inline void SetFixpipePreQuantFlag(uint64_t config) {
  ::asc::kernel::cube::fixpipe_regs().quant_scalar = config;
}
/// The per-column quantisation table (uint64 entries in the Fixpipe Buffer,
/// TPosition::C2PIPE2GM) of VDEQF16 / VQF322B8_PRE / VREQ8. reluPre is
/// reserved (CANN: pass an empty tensor); isUnitFlag has no effect here.
template <typename T>
inline void SetFixPipeConfig(const LocalTensor<T>& reluPre, const LocalTensor<T>& quantPre, bool isUnitFlag = false) {
  (void)reluPre;
  (void)isUnitFlag;
  auto& r = ::asc::kernel::cube::fixpipe_regs();
  r.quant_table = reinterpret_cast<const uint64_t*>(quantPre.raw());
  r.quant_count = uint64_t{quantPre.GetSize()} * sizeof(T) / 8;
}
/// setRelu must be false (CANN: only the quantPre table is set this way).
/// A CO1 tensor (the unit-flag clearing form some samples use) sets no table.
template <typename T, bool setRelu = false>
inline void SetFixPipeConfig(const LocalTensor<T>& preData, bool isUnitFlag = false) {
  static_assert(!setRelu, "SetFixPipeConfig<T, true> (a ReLU table) is not supported, as in CANN");
  (void)isUnitFlag;
  if (preData.position() == TPosition::CO1) return;
  auto& r = ::asc::kernel::cube::fixpipe_regs();
  r.quant_table = reinterpret_cast<const uint64_t*>(preData.raw());
  r.quant_count = uint64_t{preData.GetSize()} * sizeof(T) / 8;
}
/// NZ -> ND of DataCopy L0C -> GM: ndNum matrices, srcNdStride / dstNdStride
/// apart (only ndNum = 1 is supported by the data path, as in Fixpipe).
inline void SetFixpipeNz2ndFlag(uint16_t ndNum, uint16_t srcNdStride, uint16_t dstNdStride) {
  auto& r = ::asc::kernel::cube::fixpipe_regs();
  r.nd_num = ndNum;
  r.src_nd_stride = srcNdStride;
  r.dst_nd_stride = dstNdStride;
}

/// L0C -> GM through the Fixpipe data path (see above).
template <typename T, typename U>
void DataCopy(const GlobalTensor<T>& dstGlobal, const LocalTensor<U>& srcLocal,
              const DataCopyCO12DstParams& intriParams) {
  namespace cb = ::asc::kernel::cube;
  CO2Layout layout;
  const FixpipeParamsV220 p = cb::co12dst_params(intriParams, &layout);
  const auto& r = cb::fixpipe_regs();
  cb::fixpipe(dstGlobal.raw(), dstGlobal.GetSize() * sizeof(T), cb::cube_dtype<T>(), true, srcLocal.raw(),
              uint64_t{srcLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), p, layout, r.quant_table, r.quant_count,
              "DataCopy", dstGlobal.bound(), dstGlobal.bound_bytes());
}
/// L0C -> UB / L1.
template <typename T, typename U>
void DataCopy(const LocalTensor<T>& dstLocal, const LocalTensor<U>& srcLocal,
              const DataCopyCO12DstParams& intriParams) {
  namespace cb = ::asc::kernel::cube;
  CO2Layout layout;
  const FixpipeParamsV220 p = cb::co12dst_params(intriParams, &layout);
  const auto& r = cb::fixpipe_regs();
  cb::fixpipe(dstLocal.raw(), uint64_t{dstLocal.GetSize()} * sizeof(T), cb::cube_dtype<T>(), false, srcLocal.raw(),
              uint64_t{srcLocal.GetSize()} * sizeof(U), cb::cube_dtype<U>(), p, layout, r.quant_table, r.quant_count);
}

/// Fills 512-byte blocks of L1 / L0A / L0B with a constant (see above).
template <typename T>
void InitConstValue(const LocalTensor<T>& dstLocal, const InitConstValueParams<T>& initConstValueParams) {
  namespace cb = ::asc::kernel::cube;
  const T v = initConstValueParams.initValue;
  cb::init_const_value(dstLocal.raw(), uint64_t{dstLocal.GetSize()} * sizeof(T), sizeof(T),
                       initConstValueParams.repeatTimes, initConstValueParams.blockNum, initConstValueParams.dstGap,
                       &v);
}

}  // namespace AscendC
