// Counting sort of 1-byte types (bool, int8, uint8): rows of every length
// class, compared with std::stable_sort. Issue 20, item 14: the counting sort
// turned every one of the 256 keys into a value, and a bool made from the
// bytes 2..255 is undefined (UBSan "load of value 2 ... type 'bool'" under
// make test-sanitize-python, tests/python/array); only keys that occur are
// turned into values now.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"

using namespace asc;

namespace {

template <typename T>
void check_sorts(const std::vector<T>& v, int64_t rows) {
  const int64_t cols = static_cast<int64_t>(v.size()) / rows;
  Tensor t = Tensor::empty({rows, cols}, dtype_of<T>());
  if (!v.empty()) std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
  ops::Attrs a;
  a.all_axes = false;
  a.axes = {-1};
  const Tensor s = ops::call("sort", {t}, a).contiguous();
  ASSERT_EQ(s.shape(), t.shape());
  ASSERT_EQ(s.dtype(), dtype_of<T>());
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<T> want(v.begin() + r * cols, v.begin() + (r + 1) * cols);
    std::stable_sort(want.begin(), want.end());
    for (int64_t c = 0; c < cols; ++c) {
      T got;
      std::memcpy(&got, s.data() + (r * cols + c) * static_cast<int64_t>(sizeof(T)), sizeof(T));
      ASSERT_EQ(got, want[size_t(c)]) << "row " << r << " col " << c << " of " << rows << "x" << cols;
    }
  }
}

}  // namespace

TEST(SortSmallTypes, BoolRowsMatchStableSort) {
  std::mt19937 rng(11);
  for (int64_t cols : {1, 2, 7, 64, 1000}) {
    std::vector<uint8_t> raw(size_t(3 * cols));  // 0/1 bytes: the bool values
    for (auto& b : raw) b = uint8_t(rng() & 1u);
    check_sorts(std::vector<uint8_t>(raw), 3);  // the same bytes as uint8
    Tensor t = Tensor::empty({3, cols}, DType::kBool);
    std::memcpy(t.data(), raw.data(), raw.size());
    ops::Attrs a;
    a.all_axes = false;
    a.axes = {-1};
    const Tensor s = ops::call("sort", {t}, a).contiguous();
    for (int64_t r = 0; r < 3; ++r) {
      int64_t ones = 0;
      for (int64_t c = 0; c < cols; ++c) ones += raw[size_t(r * cols + c)];
      for (int64_t c = 0; c < cols; ++c) {
        const uint8_t got = s.data()[r * cols + c];
        ASSERT_EQ(got, c >= cols - ones ? 1 : 0) << "row " << r << " col " << c << " of " << cols;
      }
    }
  }
}

TEST(SortSmallTypes, Int8AndUint8RowsMatchStableSort) {
  std::mt19937 rng(5);
  for (int64_t cols : {1, 3, 255, 256, 4097}) {
    std::vector<int8_t> s8(size_t(2 * cols));
    std::vector<uint8_t> u8(size_t(2 * cols));
    for (auto& x : s8) x = static_cast<int8_t>(rng());
    for (auto& x : u8) x = static_cast<uint8_t>(rng());
    s8[0] = INT8_MIN;
    u8[0] = 255;
    check_sorts(s8, 2);
    check_sorts(u8, 2);
  }
}
