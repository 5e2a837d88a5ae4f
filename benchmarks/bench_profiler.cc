// Profiler overhead, measured in one run:
//   * off: the guard every hook executes (one relaxed load + branch), and the
//     empty-kernel launch cost with the profiler off vs never started;
//   * on: cost per recorded event (goal <= 1 us), and the launch cost with the
//     profiler on (a launch records ~2 + blockDim events).
#include <cstdio>

#include "asc/runtime/launch.h"
#include "asc/runtime/profiler.h"
#include "bench_util.h"

using namespace asc::runtime;
namespace prof = asc::runtime::profiler;

extern "C" void prof_empty_kernel() {}

static double pipelined_launch_us(Stream* s, uint32_t dim) {
  return bench::median_time(15, [&] {
           for (int i = 0; i < 1000; ++i) asc::launch(prof_empty_kernel, dim, s);
           s->synchronize_or_throw();
         }) / 1000 * 1e6;
}

int main() {
  auto stream = Stream::create();
  Stream* s = stream.get();
  const uint32_t cores = static_cast<uint32_t>(current_device().properties().num_cores);
  pipelined_launch_us(s, cores);  // warm-up

  // Guard cost with the profiler off.
  volatile long sink = 0;
  const long n = 100'000'000;
  double t_guard = bench::best_time(3, [&] {
    for (long i = 0; i < n; ++i)
      if (prof::enabled()) sink = sink + 1;
  });
  double off_never = pipelined_launch_us(s, cores);
  prof::start(1 << 16);
  prof::stop();
  double off_after = pipelined_launch_us(s, cores);

  // Per-event cost with the profiler on (Span: two clock reads + ring insert).
  prof::start(1 << 20);
  const int m = 1'000'000;
  double t_events = bench::best_time(3, [&] {
    for (int i = 0; i < m; ++i) {
      prof::Span span(prof::EventKind::kRange, "bench_span");
    }
  });
  double on = pipelined_launch_us(s, cores);
  prof::stop();
  uint64_t per_launch_events = 2 + cores;

  std::printf("profiler overhead (%u cores)\n", cores);
  std::printf("  off: guard (load + branch): %.2f ns per hook\n", t_guard / n * 1e9);
  std::printf("  off: empty-kernel launch, never started: %.2f us; after start/stop: %.2f us (ratio %.3f)\n",
              off_never, off_after, off_after / off_never);
  std::printf("  on : %.0f ns per recorded event (goal <= 1000 ns)\n", t_events / m * 1e9);
  std::printf("  on : empty-kernel launch %.2f us (%llu events each; +%.2f us vs off)\n", on,
              static_cast<unsigned long long>(per_launch_events), on - off_after);
  return 0;
}
