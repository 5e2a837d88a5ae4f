// Helpers for the kernel API tests: run a lambda as a kernel, random data.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "asc/runtime/launch.h"
#include "asc/runtime/stream.h"
#include "kernel_operator.h"

namespace kt {

inline asc::runtime::Stream* test_stream() {
  static std::shared_ptr<asc::runtime::Stream> s = asc::runtime::Stream::create();
  return s.get();
}

/// Launches `fn` (callable with no arguments) on `block_dim` blocks, waits, and
/// returns the launch's status (errors inside the kernel included).
template <typename Fn>
asc::Status run(const std::string& name, uint32_t block_dim, Fn fn) {
  asc::launch(name, fn, block_dim, test_stream());
  return test_stream()->synchronize();
}

/// As run(), throwing asc::Error on failure.
template <typename Fn>
void run_or_throw(const std::string& name, uint32_t block_dim, Fn fn) {
  run(name, block_dim, std::move(fn)).ThrowIfError();
}

inline const std::vector<size_t>& tail_lengths() {
  static const std::vector<size_t> v = {0,   1,   7,   8,   15,  16,  17,   63,      64,
                                        65,  127, 128, 129, 255, 256, 257,  1000,    4096 + 3};
  return v;
}

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace kt
