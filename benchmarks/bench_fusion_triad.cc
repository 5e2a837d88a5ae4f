// Native streaming reference for benchmarks/bench_fusion.py: out = a * b + c
// over float32 arrays with one thread per core (ASC_NUM_CORES or all
// hardware threads), each thread owning a contiguous slice that it also
// first-touched. Prints the best-of-N effective bandwidth (16 bytes per
// element: three reads and one write) as "triad_gbs <value>".
//
//   bench_fusion_triad [log2n=25] [repeat=10]
//
// Built with -shared -DASC_TRIAD_LIBRARY it is a library instead:
// asc_triad_best_s(log2n, repeat, threads) runs the same kernel on arrays
// allocated (and first-touched) on the first call and kept, and returns the
// best time in seconds, so that bench_fusion.py can alternate it with the
// pyasc kernel in one process (both see the same machine load).
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

#ifdef ASC_TRIAD_LIBRARY
extern "C" double asc_triad_best_s(int log2n, int repeat, int threads) {
  struct Arrays {
    size_t n = 0;
    std::unique_ptr<float[]> a, b, c, out;
  };
  static Arrays arr;
  const size_t n = size_t(1) << log2n;
  if (arr.n != n) {
    arr.n = n;
    arr.a.reset(new float[n]);
    arr.b.reset(new float[n]);
    arr.c.reset(new float[n]);
    arr.out.reset(new float[n]);
    parallel(threads, n, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) {
        arr.a[i] = float(i % 7);
        arr.b[i] = 0.5f;
        arr.c[i] = 1.0f;
        arr.out[i] = 0.0f;
      }
    });
  }
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    parallel(threads, n, [&](size_t lo, size_t hi) { triad(arr.out.get(), arr.a.get(), arr.b.get(), arr.c.get(), lo, hi); });
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (arr.out[n - 1] != float((n - 1) % 7) * 0.5f + 1.0f) return -1.0;
  return best;
}
#else
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
#endif  // ASC_TRIAD_LIBRARY
