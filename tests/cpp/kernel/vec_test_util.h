// Helpers for the vector-instruction tests: run a body on UB copies of host
// buffers (loaded and stored with DataCopy, so copy elision is exercised), with
// elision on and off, plus random data and a scalar model of the mask/repeat
// lane layout written from the Ascend C semantics.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "kernel_test_util.h"

namespace vt {

using Bytes = std::vector<uint8_t>;

/// Elision settings to run every kernel under.
inline const std::vector<bool>& elision_modes() {
  static const std::vector<bool> v = {true, false};
  return v;
}

/// Restores the process-wide elision switch at scope exit.
struct ElisionGuard {
  bool old = asc::kernel::elision_enabled();
  explicit ElisionGuard(bool on) { asc::kernel::set_elision_enabled(on); }
  ~ElisionGuard() { asc::kernel::set_elision_enabled(old); }
};

inline size_t pad32(size_t n) { return (n + 31) & ~size_t{31}; }

/// Copies each buffer (sizes are padded to 32 bytes) into the UB with
/// DataCopy, runs body(views) and copies every buffer back with DataCopy.
inline asc::Status run_ub(std::vector<Bytes*> bufs, const std::function<void(std::vector<AscendC::LocalTensor<uint8_t>>&)>& body,
                          bool elide) {
  ElisionGuard g(elide);
  for (Bytes* b : bufs) b->resize(pad32(b->size()));
  return kt::run("vec_test", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tb;
    uint32_t total = 0;
    for (Bytes* b : bufs) total += static_cast<uint32_t>(b->size());
    pipe.InitBuffer(tb, total ? total : 32);
    std::vector<AscendC::LocalTensor<uint8_t>> views;
    uint32_t off = 0;
    for (Bytes* b : bufs) {
      auto v = tb.GetWithOffset<uint8_t>(static_cast<uint32_t>(b->size()), off);
      AscendC::GlobalTensor<uint8_t> gm;
      gm.SetGlobalBuffer(b->data(), b->size());
      AscendC::DataCopy(v, gm, static_cast<uint32_t>(b->size()));
      views.push_back(v);
      off += static_cast<uint32_t>(b->size());
    }
    body(views);
    for (size_t i = 0; i < bufs.size(); ++i) {
      AscendC::GlobalTensor<uint8_t> gm;
      gm.SetGlobalBuffer(bufs[i]->data(), bufs[i]->size());
      AscendC::DataCopy(gm, views[i], static_cast<uint32_t>(bufs[i]->size()));
    }
  });
}

template <typename T>
Bytes to_bytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> from_bytes(const Bytes& b, size_t n) {
  std::vector<T> v(n);
  if (n) std::memcpy(v.data(), b.data(), n * sizeof(T));
  return v;
}

/// Random values of T: floats in [-lo, hi] with a few specials; integers over
/// their whole range.
template <typename T>
std::vector<T> random_vec(size_t n, uint32_t seed, double lo = -100, double hi = 100, bool specials = true) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int64_t> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    for (auto& x : v) x = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = static_cast<T>(static_cast<float>(d(rng)));
    if (specials && n > 8) {
      v[1] = static_cast<T>(0.0f);
      v[2] = static_cast<T>(-0.0f);
      v[3] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
      v[5] = static_cast<T>(std::numeric_limits<float>::infinity());
      v[7] = static_cast<T>(-std::numeric_limits<float>::infinity());
    }
  }
  return v;
}

/// Bitwise comparison with a readable first difference.
template <typename T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      double g, w;
      if constexpr (std::is_integral_v<T>) {
        g = static_cast<double>(got[i]);
        w = static_cast<double>(want[i]);
      } else {
        g = static_cast<float>(got[i]);
        w = static_cast<float>(want[i]);
      }
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << " want " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

/// The mask/repeat layout, modelled independently of the library: element
/// index (not byte) of lane `lane` of repeat r for block stride blk and repeat
/// stride rep (both in 32-byte blocks).
template <typename T>
size_t lane_index(uint32_t r, uint32_t lane, uint32_t blk, uint32_t rep) {
  const uint32_t lpb = 32 / sizeof(T);
  return (size_t{r} * rep + size_t{lane / lpb} * blk) * lpb + lane % lpb;
}
template <typename T>
bool lane_on(const uint64_t mask[2], uint32_t lane) {
  if (sizeof(T) == 4 && lane >= 64) return false;
  return (mask[lane / 64] >> (lane % 64)) & 1u;
}
/// Elements an operand needs for the layout (last selected lane + 1).
template <typename T>
size_t needed(const uint64_t mask[2], uint32_t repeat, uint32_t blk, uint32_t rep) {
  size_t n = 0;
  for (uint32_t r = 0; r < repeat; ++r) {
    for (uint32_t l = 0; l < 256 / sizeof(T); ++l) {
      if (lane_on<T>(mask, l)) n = std::max(n, lane_index<T>(r, l, blk, rep) + 1);
    }
  }
  return n;
}

}  // namespace vt
