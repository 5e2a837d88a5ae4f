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
#define ASC_CPU_RELAX() asm volatile("" ::: "memory")
#elif defined(__aarch64__)
#define ASC_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define ASC_CPU_RELAX() std::this_thread::yield()
#endif

namespace asc::runtime::detail {

/// Spins until pred() is true or `budget` elapsed; returns pred()'s last value.
/// After a short busy phase the spinner yields the CPU on every round: when the
/// runtime's threads outnumber the hardware threads, the thread we wait for
/// may need this very CPU.
template <typename Pred>
bool spin_until(Pred&& pred, std::chrono::microseconds budget) {
  if (pred()) return true;
  if (budget.count() <= 0) return false;
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (int round = 0;; ++round) {
    for (int i = 0; i < 32; ++i) {
      if (pred()) return true;
      ASC_CPU_RELAX();
    }
    if (round >= 4) std::this_thread::yield();
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

/// Spin budget in microseconds (ASC_SPIN_US overrides; 0 disables spinning).
std::chrono::microseconds spin_budget();

}  // namespace asc::runtime::detail
