// Internal: bounded spinning before blocking.
//
// Thread hand-offs (stream worker <-> core workers <-> host) cost a futex wake
// (several microseconds) when the other side sleeps. Spinning a short, bounded
// time first keeps back-to-back launches cheap without burning a core when idle.
#pragma once

#include <chrono>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ASC_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define ASC_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define ASC_CPU_RELAX() std::this_thread::yield()
#endif

namespace asc::runtime::detail {

/// Spins until pred() is true or `budget` elapsed; returns pred()'s last value.
template <typename Pred>
bool spin_until(Pred&& pred, std::chrono::microseconds budget) {
  if (pred()) return true;
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      ASC_CPU_RELAX();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

/// Spin budget in microseconds (ASC_SPIN_US overrides; 0 disables spinning).
std::chrono::microseconds spin_budget();

}  // namespace asc::runtime::detail
