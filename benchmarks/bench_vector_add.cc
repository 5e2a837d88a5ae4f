// vector_add written with the Ascend C kernel API (GlobalTensor/TQue/DataCopy/Add)
// against, in the same run:
//   * the same computation as a plain C++ loop launched on the same cores
//     (kernel-API overhead; goal >= 0.95 of the loop's throughput at 2^24), and
//   * the machine's memory bandwidth measured by native streaming kernels
//     (copy, add, triad; all cores; goal: vector_add >= 80% at 2^25).
// Bandwidth counts the bytes a kernel must move: 12 B/element for add.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "asc/runtime/launch.h"
#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"
#include "bench_util.h"
#include "host/vector_add_host.h"

using namespace asc::runtime;

namespace {

struct Buffers {
  float* x;
  float* y;
  float* z;
  uint64_t n;
};

// A native kernel body: each block handles a contiguous, 64-byte aligned share.
template <typename Body>
void launch_native(const char* name, Stream* s, uint64_t n, Body body) {
  const uint32_t blocks = static_cast<uint32_t>(current_device().properties().num_cores);
  asc::launch(name, [=] {
    const BlockContext* b = current_block();
    uint64_t per = (n / blocks) / 16 * 16;
    uint64_t begin = per * b->block_idx;
    uint64_t end = b->block_idx + 1 == blocks ? n : begin + per;
    body(begin, end);
  }, blocks, s);
}

double run(Stream* s, int reps, const std::function<void()>& enqueue) {
  enqueue();  // warm-up (page faults, caches)
  s->synchronize_or_throw();
  return bench::median_time(reps, [&] {
    enqueue();
    s->synchronize_or_throw();
  });
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  auto stream = Stream::create();
  Stream* s = stream.get();
  MemoryPool& pool = device_pool();
  std::printf("vector_add benchmark: %d cores, median of %d runs\n", current_device().properties().num_cores, reps);

  for (uint64_t n : {uint64_t(1) << 24, uint64_t(1) << 25}) {
    Buffers b{static_cast<float*>(pool.allocate_or_throw(n * 4, s)), static_cast<float*>(pool.allocate_or_throw(n * 4, s)),
              static_cast<float*>(pool.allocate_or_throw(n * 4, s)), n};
    for (uint64_t i = 0; i < n; ++i) {
      b.x[i] = static_cast<float>(i % 1000);
      b.y[i] = 0.5f;
    }
    std::memset(b.z, 0, n * 4);

    double t_api = run(s, reps, [&] { vector_add_host::launch(b.x, b.y, b.z, n, s); });
    bool ok = true;
    for (uint64_t i = 0; i < n; i += 4099) ok &= b.z[i] == b.x[i] + b.y[i];

    float *x = b.x, *y = b.y, *z = b.z;
    double t_loop = run(s, reps, [&] {
      launch_native("native_add", s, n, [x, y, z](uint64_t lo, uint64_t hi) {
        for (uint64_t i = lo; i < hi; ++i) z[i] = x[i] + y[i];
      });
    });
    double t_copy = run(s, reps, [&] {
      launch_native("native_copy", s, n, [x, z](uint64_t lo, uint64_t hi) {
        std::memcpy(z + lo, x + lo, (hi - lo) * 4);
      });
    });
    double t_triad = run(s, reps, [&] {
      launch_native("native_triad", s, n, [x, y, z](uint64_t lo, uint64_t hi) {
        for (uint64_t i = lo; i < hi; ++i) z[i] = x[i] + 3.0f * y[i];
      });
    });

    const double gb = 1e9;
    double bw_api = 12.0 * n / t_api / gb;
    double bw_loop = 12.0 * n / t_loop / gb;
    double bw_copy = 8.0 * n / t_copy / gb;
    double bw_triad = 12.0 * n / t_triad / gb;
    double bw_peak = std::max({bw_loop, bw_copy, bw_triad});
    std::printf("\nn = 2^%d float32 (%s)\n", n == (uint64_t(1) << 24) ? 24 : 25, ok ? "result checked" : "RESULT WRONG");
    std::printf("  kernel-API vector_add : %8.3f ms  %6.1f GB/s\n", t_api * 1e3, bw_api);
    std::printf("  native add loop       : %8.3f ms  %6.1f GB/s\n", t_loop * 1e3, bw_loop);
    std::printf("  native copy (memcpy)  : %8.3f ms  %6.1f GB/s\n", t_copy * 1e3, bw_copy);
    std::printf("  native triad          : %8.3f ms  %6.1f GB/s\n", t_triad * 1e3, bw_triad);
    std::printf("  memory bandwidth (best native streaming kernel): %.1f GB/s\n", bw_peak);
    std::printf("  ratio kernel-API / native loop throughput: %.3f (goal >= 0.95)\n", t_loop / t_api);
    std::printf("  ratio kernel-API / memory bandwidth:       %.3f (goal >= 0.80)\n", bw_api / bw_peak);
    (void)pool.free(b.x);
    (void)pool.free(b.y);
    (void)pool.free(b.z);
  }
  return 0;
}
