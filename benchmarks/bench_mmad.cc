// Kernel-API matmul (DataCopy ND -> NZ into L1, LoadData into L0A/L0B, Mmad
// into L0C, Fixpipe NZ -> ND into GM) of M x N x K over all cores, against
// OpenBLAS cblas_sgemm on the same data in the same run. float and half
// inputs (OpenBLAS has no half GEMM: it gets the same values as float), and
// the high-level Matmul API. Prints GFLOP/s and the ratio to OpenBLAS.
//
// Usage: [OPENBLAS_CORETYPE=SkylakeX] bench_mmad [reps=7] [size=1024]
//
// B is given transposed (N x K, "B^T" in ND): its ND -> NZ copy then lands
// directly in L0B's Zn order for every element size, as fp32 kernels do on
// the NPU; sgemm is called with CblasTrans for the same data.
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "asc/kernel/cube.h"
#include "asc/runtime/device.h"
#include "asc/runtime/launch.h"
#include "asc/runtime/stream.h"
#include "bench_util.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"

extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename(void);

namespace {

using AscendC::TPosition;

// Each block computes a run of BM x BN tiles of C, accumulated over K in
// steps of BK. L0A (BM x BK) and L0B (BN x BK) hold 64 KiB each, L0C (BM x BN
// float) 128 KiB. On the CPU each Mmad's B tile is copied three times (ND -> NZ,
// L1 -> L0B, panel packing) and A's twice, so the tiles favour a tall BM: the
// data moved per multiply-add is ~ 1/BN + 1.5/BM.
template <typename T, int BM_ = 256, int BN_ = 128, int BK_ = 64>
struct MmadKernel {
  static constexpr int BM = BM_;
  static constexpr int BN = BN_;
  static constexpr int BK = BK_;
  static constexpr int C0 = 32 / sizeof(T);
  static_assert(BM * BK * sizeof(T) <= 65536 && BN * BK * sizeof(T) <= 65536 && BM * BN * 4 <= 131072,
                "the tiles must fit L0A, L0B and L0C");

  static void run(const T* a, const T* bt, float* c, int M, int N, int K) {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B1> b1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a1, BM * BK * sizeof(T));
    pipe.InitBuffer(b1, BN * BK * sizeof(T));
    pipe.InitBuffer(a2, BM * BK * sizeof(T));
    pipe.InitBuffer(b2, BN * BK * sizeof(T));
    pipe.InitBuffer(c1, BM * BN * sizeof(float));
    AscendC::GlobalTensor<T> ga, gb;
    AscendC::GlobalTensor<float> gc;
    ga.SetGlobalBuffer(const_cast<T*>(a), int64_t{M} * K);
    gb.SetGlobalBuffer(const_cast<T*>(bt), int64_t{N} * K);
    gc.SetGlobalBuffer(c, int64_t{M} * N);
    auto la1 = a1.Get<T>();
    auto lb1 = b1.Get<T>();
    auto la2 = a2.Get<T>();
    auto lb2 = b2.Get<T>();
    auto lc = c1.Get<float>();
    // Each block takes a contiguous run of tiles, n moving fastest: its A rows
    // (BM x K) stay in cache while it walks along N.
    const int tiles_m = M / BM, tiles_n = N / BN, tiles = tiles_m * tiles_n;
    const int blk = static_cast<int>(AscendC::GetBlockIdx()), nblk = static_cast<int>(AscendC::GetBlockNum());
    for (int tile = tiles * blk / nblk; tile < tiles * (blk + 1) / nblk; ++tile) {
      const int m0 = (tile / tiles_n) * BM, n0 = (tile % tiles_n) * BN;
      for (int k0 = 0; k0 < K; k0 += BK) {
        // GM -> L1 (NZ): A rows m0.., B^T rows n0.., columns k0..
        AscendC::DataCopy(la1, ga[int64_t{m0} * K + k0], AscendC::Nd2NzParams(1, BM, BK, 0, K, BM, 1, 0));
        AscendC::DataCopy(lb1, gb[int64_t{n0} * K + k0], AscendC::Nd2NzParams(1, BN, BK, 0, K, BN, 1, 0));
        // L1 -> L0A (Zz): fractal row i gathers the i-th fractal of each column block.
        for (int i = 0; i < BM / 16; ++i) {
          AscendC::LoadData(la2[i * BK * 16], la1[i * 16 * C0],
                            AscendC::LoadData2DParams(0, BK / C0, BM / 16, 0, 0, false, 0));
        }
        // L1 -> L0B (Zn): B^T's NZ order already is Zn's.
        const int fractals = BN / 16 * (BK / C0);
        for (int f = 0; f < fractals; f += 255) {
          AscendC::LoadData(lb2[f * 16 * C0], lb1,
                            AscendC::LoadData2DParams(f, std::min(255, fractals - f), 1, 0, 0, false, 0));
        }
        AscendC::Mmad(lc, la2, lb2, AscendC::MmadParams(BM, BN, BK, 0, false, k0 == 0));
      }
      AscendC::Fixpipe(gc[int64_t{m0} * N + n0], lc, AscendC::FixpipeParamsV220(BN, BM, BM, N, false));
    }
  }
};

// The high-level API with a multi-core tiling (B not transposed).
template <typename T>
void matmul_api(const T* a, const T* b, float* c, const TCubeTiling& tiling) {
  using AT = AscendC::MatmulType<TPosition::GM, AscendC::CubeFormat::ND, T>;
  using CT = AscendC::MatmulType<TPosition::GM, AscendC::CubeFormat::ND, float>;
  AscendC::TPipe pipe;
  AscendC::Matmul<AT, AT, CT> mm;
  REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &tiling);
  const int block = static_cast<int>(AscendC::GetBlockIdx());
  const int mb = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  const int mi = block % mb, ni = block / mb;
  AscendC::GlobalTensor<T> ga, gb;
  AscendC::GlobalTensor<float> gc;
  ga.SetGlobalBuffer(const_cast<T*>(a) + int64_t{mi} * tiling.singleCoreM * tiling.Ka);
  gb.SetGlobalBuffer(const_cast<T*>(b) + int64_t{ni} * tiling.singleCoreN);
  gc.SetGlobalBuffer(c + int64_t{mi} * tiling.singleCoreM * tiling.N + int64_t{ni} * tiling.singleCoreN);
  mm.SetTail(std::min(tiling.M - mi * tiling.singleCoreM, tiling.singleCoreM),
             std::min(tiling.N - ni * tiling.singleCoreN, tiling.singleCoreN));
  mm.SetTensorA(ga);
  mm.SetTensorB(gb);
  mm.IterateAll(gc);
  mm.End();
}

double max_rel_err(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0, scale = 1e-30;
  for (float w : want) scale = std::max(scale, static_cast<double>(std::fabs(w)));
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]) / scale);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  const int S = argc > 2 ? std::atoi(argv[2]) : 1024;
  const int M = S, N = S, K = S;
  if (S % 256 != 0) {
    std::fprintf(stderr, "size must be a multiple of 256\n");
    return 2;
  }
  const int cores = asc::runtime::current_device().properties().num_cores;
  auto stream = asc::runtime::Stream::create();
  asc::runtime::Stream* s = stream.get();
  std::printf("mmad benchmark: %d x %d x %d, %d cores, gemm engine %s, OpenBLAS kernels %s, median of %d runs\n", M,
              N, K, cores, asc::kernel::cube::gemm_target(), openblas_get_corename(), reps);
  // A DYNAMIC_ARCH OpenBLAS that cannot identify a VM's CPU falls back to its
  // SSE3 ("Prescott") kernels; OPENBLAS_CORETYPE=SkylakeX (or Haswell) gives
  // the fair comparison.

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(int64_t{M} * K), b(int64_t{K} * N), bt(int64_t{N} * K);
  std::vector<half> ah(a.size()), bth(bt.size()), bh(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ah[i] = half(dist(rng));
    a[i] = static_cast<float>(ah[i]);  // the same values for every path
  }
  for (int64_t kk = 0; kk < K; ++kk) {
    for (int64_t j = 0; j < N; ++j) {
      const half v = half(dist(rng));
      bh[kk * N + j] = v;
      bth[j * K + kk] = v;
      b[kk * N + j] = bt[j * K + kk] = static_cast<float>(v);
    }
  }
  std::vector<float> c_ref(int64_t{M} * N), c(int64_t{M} * N);
  const double flops = 2.0 * M * N * K;

  // Every variant runs once per round, rounds repeat `reps` times and each
  // variant reports its median: on a busy machine all of them see the same load.
  auto blas = [&](int threads) {
    openblas_set_num_threads(threads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, a.data(), K, bt.data(), K, 0.0f,
                c_ref.data(), N);
  };
  auto kernel = [&](uint32_t blocks, auto body) {
    return [=] {
      asc::launch("mmad_bench", body, blocks, s);
      s->synchronize_or_throw();
    };
  };
  const uint32_t tiles = static_cast<uint32_t>((M / MmadKernel<float>::BM) * (N / MmadKernel<float>::BN));
  const uint32_t blocks = std::min<uint32_t>(tiles, static_cast<uint32_t>(cores));
  matmul_tiling::MultiCoreMatmulTiling mt;
  mt.SetDim(cores);
  mt.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  mt.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  mt.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  mt.SetShape(M, N, K);
  TCubeTiling tiling;
  if (mt.GetTiling(tiling) != 0) return 1;
  std::vector<float> c_f32(c.size()), c_f16(c.size()), c_api(c.size()), c_sq(c.size());
  const std::vector<std::function<void()>> variants = {
      [&] { blas(cores); },
      [&] { blas(1); },
      kernel(blocks, [&] { MmadKernel<float>::run(a.data(), bt.data(), c_f32.data(), M, N, K); }),
      kernel(1, [&] { MmadKernel<float>::run(a.data(), bt.data(), c.data(), M, N, K); }),
      kernel(blocks, [&] { MmadKernel<half, 256, 128, 128>::run(ah.data(), bth.data(), c_f16.data(), M, N, K); }),
      kernel(blocks, [&] { MmadKernel<float, 128, 128, 128>::run(a.data(), bt.data(), c_sq.data(), M, N, K); }),
      kernel(static_cast<uint32_t>(tiling.usedCoreNum),
             [&] { matmul_api<half>(ah.data(), bh.data(), c_api.data(), tiling); }),
  };
  std::vector<std::vector<double>> times(variants.size());
  for (int r = -1; r < reps; ++r) {  // round -1 warms up
    for (size_t v = 0; v < variants.size(); ++v) {
      const double t0 = bench::now_s();
      variants[v]();
      if (r >= 0) times[v].push_back(bench::now_s() - t0);
    }
  }
  auto median = [&](size_t v) {
    std::sort(times[v].begin(), times[v].end());
    return times[v][times[v].size() / 2];
  };
  const double t_blas = median(0), t_blas1 = median(1), t_f32 = median(2), t_f32_1 = median(3), t_f16 = median(4),
               t_sq = median(5), t_api = median(6);
  const double err_f32 = max_rel_err(c_f32, c_ref), err_f16 = max_rel_err(c_f16, c_ref), err_sq = max_rel_err(c_sq, c_ref),
               err_api = max_rel_err(c_api, c_ref);
  openblas_set_num_threads(cores);
  std::printf("  OpenBLAS sgemm, %d threads:       %8.2f ms  %7.1f GFLOP/s\n", cores, t_blas * 1e3,
              flops / t_blas * 1e-9);
  std::printf("  OpenBLAS sgemm, 1 thread:         %8.2f ms  %7.1f GFLOP/s\n", t_blas1 * 1e3, flops / t_blas1 * 1e-9);
  std::printf("  Mmad kernel, float, %u blocks:     %8.2f ms  %7.1f GFLOP/s  ratio to OpenBLAS %.2f  (max err %.1e)\n",
              blocks, t_f32 * 1e3, flops / t_f32 * 1e-9, t_blas / t_f32, err_f32);
  std::printf("  Mmad kernel, float, 128^3 tiles:  %8.2f ms  %7.1f GFLOP/s  ratio to OpenBLAS %.2f  (max err %.1e)\n",
              t_sq * 1e3, flops / t_sq * 1e-9, t_blas / t_sq, err_sq);
  std::printf("  Mmad kernel, float, 1 block:      %8.2f ms  %7.1f GFLOP/s  ratio to 1-thread OpenBLAS %.2f\n",
              t_f32_1 * 1e3, flops / t_f32_1 * 1e-9, t_blas1 / t_f32_1);
  std::printf("  Mmad kernel, half in, %u blocks:   %8.2f ms  %7.1f GFLOP/s  ratio to OpenBLAS %.2f  (max err %.1e)\n",
              blocks, t_f16 * 1e3, flops / t_f16 * 1e-9, t_blas / t_f16, err_f16);
  std::printf("  Matmul API, half in, %d blocks:    %8.2f ms  %7.1f GFLOP/s  ratio to OpenBLAS %.2f  (max err %.1e)\n",
              tiling.usedCoreNum, t_api * 1e3, flops / t_api * 1e-9, t_blas / t_api, err_api);
  std::printf("ratio (Mmad float / OpenBLAS sgemm): %.2f\n", t_blas / t_f32);
  return 0;
}
