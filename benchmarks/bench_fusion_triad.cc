// Native streaming reference for benchmarks/bench_fusion.py: out = a * b + c
// over float32 arrays with one thread per core (ASC_NUM_CORES or all
// hardware threads), each thread owning a contiguous slice that it also
// first-touched. Prints the best-of-N effective bandwidth (16 bytes per
// element: three reads and one write) as "triad_gbs <value>".
//
//   bench_fusion_triad [log2n=25] [repeat=10]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace {

void triad(float* __restrict out, const float* __restrict a, const float* __restrict b,
           const float* __restrict c, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; ++i) out[i] = a[i] * b[i] + c[i];
}

template <typename Fn>
void parallel(int threads, size_t n, Fn fn) {
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([=] { fn(n * t / threads, n * (t + 1) / threads); });
  for (auto& t : ts) t.join();
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 25;
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 10;
  const size_t n = size_t(1) << log2n;
  const char* env = std::getenv("ASC_NUM_CORES");
  const int threads = env && std::atoi(env) > 0 ? std::atoi(env) : std::max(1u, std::thread::hardware_concurrency());
  auto alloc = [n] { return std::unique_ptr<float[]>(new float[n]); };
  auto a = alloc(), b = alloc(), c = alloc(), out = alloc();
  parallel(threads, n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      a[i] = float(i % 7);
      b[i] = 0.5f;
      c[i] = 1.0f;
      out[i] = 0.0f;
    }
  });
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    parallel(threads, n, [&](size_t lo, size_t hi) { triad(out.get(), a.get(), b.get(), c.get(), lo, hi); });
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (out[n - 1] != float((n - 1) % 7) * 0.5f + 1.0f) {
    std::fprintf(stderr, "triad: wrong result\n");
    return 1;
  }
  std::printf("triad_gbs %.3f\nthreads %d\nbest_ms %.3f\n", 16.0 * double(n) / best / 1e9, threads, best * 1e3);
  return 0;
}
