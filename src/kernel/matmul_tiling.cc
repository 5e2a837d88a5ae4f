// Host-side Matmul tiling (include/asc/kernel/matmul_tiling.h).
#include "asc/kernel/matmul_tiling.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "asc/core/log.h"

namespace matmul_tiling {

namespace {

// The CPU device's per-core buffers (ASCENDC_API.md, 910B).
constexpr int64_t kL1Bytes = 512 * 1024;
constexpr int64_t kL0ABytes = 64 * 1024;
constexpr int64_t kL0BBytes = 64 * 1024;
constexpr int64_t kL0CBytes = 128 * 1024;

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t input_size(DataType t) {
  switch (t) {
    case DataType::DT_FLOAT16:
    case DataType::DT_BF16: return 2;
    case DataType::DT_FLOAT: return 4;
    case DataType::DT_INT8: return 1;
    default: return 0;
  }
}

bool output_ok(DataType in, DataType out) {
  if (in == DataType::DT_INT8) return out == DataType::DT_INT32;
  return out == DataType::DT_FLOAT || out == DataType::DT_FLOAT16 || out == DataType::DT_BF16;
}

}  // namespace

int64_t MatmulApiTiling::GetTiling(::TCubeTiling& t) {
  auto reject = [&](const std::string& why) -> int64_t {
    ASC_LOG_WARNING("matmul", "[" << api_name() << "] " << why);
    return -1;
  };
  if (!a_.set || !b_.set || !c_.set) return reject("call SetAType, SetBType and SetCType first");
  const int64_t es = input_size(a_.type);
  if (es == 0 || a_.type != b_.type || !output_ok(a_.type, c_.type)) {
    return reject("unsupported types A " + std::to_string(static_cast<int>(a_.type)) + ", B " +
                  std::to_string(static_cast<int>(b_.type)) + ", C " + std::to_string(static_cast<int>(c_.type)) +
                  " (supported: half/bfloat16/float x same -> float/half/bfloat16, int8 x int8 -> int32)");
  }
  if (a_.format != CubeFormat::ND || b_.format != CubeFormat::ND ||
      (c_.format != CubeFormat::ND && c_.format != CubeFormat::ND_ALIGN)) {
    return reject("only the ND format is supported for A, B and C on the CPU device");
  }
  if (m_ <= 0 || n_ <= 0 || k_ <= 0) {
    return reject("SetShape needs m, n, k > 0, got " + std::to_string(m_) + ", " + std::to_string(n_) + ", " +
                  std::to_string(k_));
  }
  const int64_t M = m_, N = n_, K = k_;
  const int64_t org_m = org_m_ > 0 ? org_m_ : M;
  const int64_t org_n = org_n_ > 0 ? org_n_ : N;
  const int64_t org_ka = org_ka_ > 0 ? org_ka_ : K;
  const int64_t org_kb = org_kb_ > 0 ? org_kb_ : K;
  if (org_m < M || org_n < N || org_ka < K || org_kb < K) {
    return reject("SetOrgShape (" + std::to_string(org_m) + ", " + std::to_string(org_n) + ", " +
                  std::to_string(org_ka) + ", " + std::to_string(org_kb) + ") is smaller than SetShape (" +
                  std::to_string(M) + ", " + std::to_string(N) + ", " + std::to_string(K) + ")");
  }

  // ---- split over cores: the least work per core, then the least traffic.
  const int64_t cores = std::max<int32_t>(1, this->cores());
  int64_t single_m = single_m_ > 0 ? single_m_ : 0;
  int64_t single_n = single_n_ > 0 ? single_n_ : 0;
  if (single_m == 0 || single_n == 0) {
    int64_t best_work = INT64_MAX, best_edge = INT64_MAX, best_m = 0, best_n = 0;
    for (int64_t md = 1; md <= cores; ++md) {
      for (int64_t nd = 1; md * nd <= cores; ++nd) {
        const int64_t sm = single_m ? single_m : std::min(align_up(ceil_div(M, md), 16), align_up(M, 16));
        const int64_t sn = single_n ? single_n : std::min(align_up(ceil_div(N, nd), 16), align_up(N, 16));
        const int64_t work = sm * sn;
        const int64_t edge = sm + sn;
        if (work < best_work || (work == best_work && edge < best_edge)) {
          best_work = work;
          best_edge = edge;
          best_m = sm;
          best_n = sn;
        }
      }
    }
    single_m = best_m;
    single_n = best_n;
  }
  const int64_t single_k = single_k_ > 0 ? single_k_ : K;
  const int64_t m_dim = ceil_div(M, single_m);
  const int64_t n_dim = ceil_div(N, single_n);

  // ---- base block: baseM x baseN float32 in L0C, baseK from L0A / L0B.
  const int64_t l0c = l0c_ > 0 ? std::min<int64_t>(l0c_, kL0CBytes) : kL0CBytes;
  const int64_t l1 = l1_ > 0 ? std::min<int64_t>(l1_, kL1Bytes) : kL1Bytes;
  int64_t base_m = fix_m_ > 0 ? fix_m_ : std::min<int64_t>(align_up(single_m, 16), 128);
  int64_t base_n = fix_n_ > 0 ? fix_n_ : std::min<int64_t>(align_up(single_n, 16), 256);
  while (base_m * base_n * 4 > l0c && fix_n_ <= 0 && base_n > 16) base_n -= 16;
  while (base_m * base_n * 4 > l0c && fix_m_ <= 0 && base_m > 16) base_m -= 16;
  if (base_m * base_n * 4 > l0c) {
    return reject("baseM x baseN = " + std::to_string(base_m) + " x " + std::to_string(base_n) +
                  " float32 does not fit the L0C budget of " + std::to_string(l0c) + " bytes");
  }
  const int64_t c0 = 32 / es;
  int64_t base_k = fix_k_;
  if (base_k <= 0) {
    // Double-buffered L0A / L0B tiles.
    base_k = std::min(kL0ABytes / 2 / (base_m * es), kL0BBytes / 2 / (base_n * es));
    base_k = std::max<int64_t>(c0, base_k / c0 * c0);
    base_k = std::min(base_k, align_up(single_k, c0));
  } else if (base_m * base_k * es > kL0ABytes || base_k * base_n * es > kL0BBytes) {
    return reject("baseK " + std::to_string(base_k) + " makes the L0A/L0B tiles exceed 64 KiB");
  }
  const int64_t k_steps = ceil_div(single_k, base_k);
  const int64_t step_ka = std::max<int64_t>(1, std::min(k_steps, l1 / 2 / (base_m * base_k * es)));
  const int64_t step_kb = std::max<int64_t>(1, std::min(k_steps, l1 / 2 / (base_n * base_k * es)));

  ::TCubeTiling r;
  r.usedCoreNum = static_cast<int32_t>(m_dim * n_dim);
  r.M = static_cast<int32_t>(org_m);
  r.N = static_cast<int32_t>(org_n);
  r.Ka = static_cast<int32_t>(org_ka);
  r.Kb = static_cast<int32_t>(org_kb);
  r.singleCoreM = static_cast<int32_t>(single_m);
  r.singleCoreN = static_cast<int32_t>(single_n);
  r.singleCoreK = static_cast<int32_t>(single_k);
  r.baseM = static_cast<int32_t>(base_m);
  r.baseN = static_cast<int32_t>(base_n);
  r.baseK = static_cast<int32_t>(base_k);
  r.depthA1 = static_cast<int32_t>(step_ka);
  r.depthB1 = static_cast<int32_t>(step_kb);
  r.stepM = 1;
  r.stepN = 1;
  r.isBias = bias_on_ ? 1 : 0;
  r.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
  r.shareL1Size = static_cast<int32_t>((step_ka * base_m + step_kb * base_n) * base_k * es);
  r.shareL0CSize = static_cast<int32_t>(base_m * base_n * 4);
  r.shareUbSize = 0;
  r.batchM = r.batchN = r.singleBatchM = r.singleBatchN = 1;
  r.stepKa = static_cast<int32_t>(step_ka);
  r.stepKb = static_cast<int32_t>(step_kb);
  r.dbL0A = r.dbL0B = 2;
  r.dbL0C = 1;
  (void)ub_;
  result_ = r;
  m_dim_ = static_cast<int32_t>(m_dim);
  n_dim_ = static_cast<int32_t>(n_dim);
  t = r;
  return 0;
}

}  // namespace matmul_tiling
