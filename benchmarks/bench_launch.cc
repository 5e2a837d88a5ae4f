// Launch latency of an empty kernel with blockDim = number of cores:
//   * round trip: launch + stream synchronize, one at a time (median);
//   * pipelined: 1000 launches enqueued back to back, then one synchronize.
// The goal is <= 10 us. Compared in the same run with a plain std::thread
// create+join of the same number of threads (what a naive runtime would pay).
// Then a kernel that calls SyncAll once (its blocks wait for each other, so the
// runtime makes them resident: asc/runtime/block_sync.h), with blockDim =
// cores and 4 x cores, against the empty kernel's round trip of the same run.
//
//   bench_launch [--quick]   --quick: fewer SyncAll launches at 4 x cores
//                            (each parks helper threads: ~30 ms on 2 cores)
// The round trip is printed as the median of 5 batches of 1000 and their
// spread (min .. max batch median): on a shared machine one batch can land
// on a busy moment. A/B runs of two runtimes: the same binary with
// LD_LIBRARY_PATH pointing at each libasc.so.0 (the RUNPATH comes after it),
// alternated; ASC_SPIN_US changes the spinning of the same runtime.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "asc/runtime/launch.h"
#include "kernel_operator.h"
#include "bench_util.h"

using namespace asc::runtime;

extern "C" void empty_kernel() {}
extern "C" void sync_all_kernel() { AscendC::SyncAll(); }

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) quick = quick || std::strcmp(argv[i], "--quick") == 0;
  auto stream = Stream::create();
  Stream* s = stream.get();
  const uint32_t cores = static_cast<uint32_t>(current_device().properties().num_cores);
  for (int i = 0; i < 1000; ++i) asc::launch(empty_kernel, cores, s);  // warm-up
  s->synchronize_or_throw();

  std::vector<double> batches;
  for (int b = 0; b < 5; ++b) {
    batches.push_back(bench::median_time(1000, [&] {
      asc::launch(empty_kernel, cores, s);
      s->synchronize_or_throw();
    }));
  }
  std::sort(batches.begin(), batches.end());
  const double rt = batches[2];
  double pipe = bench::median_time(20, [&] {
    for (int i = 0; i < 1000; ++i) asc::launch(empty_kernel, cores, s);
    s->synchronize_or_throw();
  }) / 1000;
  double threads = bench::median_time(200, [&] {
    std::vector<std::thread> t;
    for (uint32_t i = 0; i < cores; ++i) t.emplace_back([] {});
    for (auto& th : t) th.join();
  });
  std::printf("empty kernel, blockDim = %u (cores)\n", cores);
  std::printf("  launch + synchronize round trip: %7.2f us (goal <= 10 us; batch medians %.2f .. %.2f)\n", rt * 1e6,
              batches.front() * 1e6, batches.back() * 1e6);
  std::printf("  pipelined launch (1000 then sync): %5.2f us per launch\n", pipe * 1e6);
  std::printf("  peer: spawn+join %u std::threads: %7.2f us (ratio %.1fx)\n", cores, threads * 1e6, threads / rt);

  // Cross-block barrier kernels: with blockDim <= cores the blocks are all
  // running already; beyond, the waiting blocks' launch starts helper threads.
  for (uint32_t dim : {cores, 4 * cores}) {
    for (int i = 0; i < 50; ++i) asc::launch(sync_all_kernel, dim, s);
    s->synchronize_or_throw();
    double sync_rt = bench::median_time(dim > cores ? (quick ? 20 : 300) : (quick ? 500 : 2000), [&] {
      asc::launch(sync_all_kernel, dim, s);
      s->synchronize_or_throw();
    });
    std::printf("SyncAll kernel, blockDim = %u: round trip %7.2f us (%.1fx the empty kernel's)\n", dim,
                sync_rt * 1e6, sync_rt / rt);
  }
  return 0;
}
