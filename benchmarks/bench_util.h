// Small timing helpers shared by the C++ benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Runs fn() `reps` times and returns the median time per call in seconds.
template <typename Fn>
double median_time(int reps, Fn&& fn) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    double t0 = now_s();
    fn();
    t.push_back(now_s() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Best (minimum) time per call in seconds.
template <typename Fn>
double best_time(int reps, Fn&& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    double t0 = now_s();
    fn();
    best = std::min(best, now_s() - t0);
  }
  return best;
}

}  // namespace bench
