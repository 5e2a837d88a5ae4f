// Advanced indexing, take/put, concatenate/repeat, nan-reductions and the
// reuse-buffer hook against hand-checked values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/indexing.h"
#include "asc/ops/manipulation.h"
#include "asc/ops/registry.h"
#include "asc/ops/reuse_buffer.h"

using namespace asc;
using ops::Index;

namespace {

template <typename T>
Tensor make(const Shape& shape, const std::vector<T>& v) {
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  for (size_t i = 0; i < v.size(); ++i) t.data_as<T>()[i] = v[i];
  return t;
}

template <typename T>
Tensor iota(const Shape& shape) {
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = static_cast<T>(i);
  return t;
}

/// The elements of `t` in C order (any strides) as T.
template <typename T>
std::vector<T> values(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::vector<T>(c.data_as<T>(), c.data_as<T>() + c.numel());
}

Index arr(const Tensor& t) { return Index::from_array(t); }
Index all() { return Index::from_basic(IndexItem::full()); }
Index at(int64_t i) { return Index::from_basic(IndexItem::integer(i)); }

}  // namespace

TEST(Indexing, IntegerArrayGather) {
  const Tensor x = iota<float>({5});
  const Tensor r = ops::getitem(x, {arr(make<int64_t>({4}, {4, -1, 0, 2}))});
  EXPECT_EQ(r.shape(), Shape({4}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{4, 4, 0, 2}));
  const Tensor r8 = ops::getitem(x, {arr(make<int8_t>({2, 1}, {1, 3}))});
  EXPECT_EQ(r8.shape(), Shape({2, 1}));
  EXPECT_EQ(values<float>(r8), (std::vector<float>{1, 3}));
}

TEST(Indexing, AdjacentAndSeparatedPlacement) {
  const Tensor x = iota<int32_t>({2, 3, 4});
  // x[:, [0, 2], [1, 3]] -> (2, 2): adjacent advanced axes stay in place.
  Tensor r = ops::getitem(x, {all(), arr(make<int64_t>({2}, {0, 2})), arr(make<int64_t>({2}, {1, 3}))});
  EXPECT_EQ(r.shape(), Shape({2, 2}));
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{1, 11, 13, 23}));
  // x[[1, 0], :, [3, 0]] -> B (2,) first, then the slice axis (3): (2, 3).
  r = ops::getitem(x, {arr(make<int64_t>({2}, {1, 0})), all(), arr(make<int64_t>({2}, {3, 0}))});
  EXPECT_EQ(r.shape(), Shape({2, 3}));
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{15, 19, 23, 0, 4, 8}));
  // x[0, :, [1, 2]]: the integer is an advanced index too (separated) -> (2, 3).
  r = ops::getitem(x, {at(0), all(), arr(make<int64_t>({2}, {1, 2}))});
  EXPECT_EQ(r.shape(), Shape({2, 3}));
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{1, 5, 9, 2, 6, 10}));
}

TEST(Indexing, BooleanMasks) {
  const Tensor x = iota<double>({2, 3});
  const Tensor m = make<bool>({2, 3}, {true, false, true, false, false, true});
  Tensor r = ops::getitem(x, {arr(m)});
  EXPECT_EQ(values<double>(r), (std::vector<double>{0, 2, 5}));
  Tensor t = Tensor::constant(DType::kBool);
  *t.data_as<bool>() = true;
  r = ops::getitem(x, {arr(t)});
  EXPECT_EQ(r.shape(), Shape({1, 2, 3}));
  *t.data_as<bool>() = false;
  r = ops::getitem(x, {arr(t)});
  EXPECT_EQ(r.shape(), Shape({0, 2, 3}));
  const auto pos = ops::nonzero_positions(m);
  ASSERT_EQ(pos.size(), 2u);
  EXPECT_EQ(values<int64_t>(pos[0]), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(values<int64_t>(pos[1]), (std::vector<int64_t>{0, 2, 2}));
}

TEST(Indexing, Errors) {
  const Tensor x = iota<float>({3});
  try {
    ops::getitem(x, {arr(make<int64_t>({1}, {5}))});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIndexOutOfRange);
    EXPECT_NE(std::string(e.what()).find("[getitem] index 5 is out of bounds for axis 0 with size 3"),
              std::string::npos);
  }
  EXPECT_THROW(ops::getitem(x, {arr(make<float>({1}, {1.0f}))}), Error);
  EXPECT_THROW(ops::getitem(x, {arr(make<bool>({2}, {true, false}))}), Error);
  EXPECT_THROW(ops::getitem(iota<float>({2, 2}), {arr(make<int64_t>({2}, {0, 1})), arr(make<int64_t>({3}, {0, 1, 0}))}),
               Error);
}

TEST(Indexing, ScatterDuplicatesLastWinsAndBroadcast) {
  Tensor x = Tensor::empty({5}, DType::kInt32);
  ops::fill(x, ops::Scalar::from_int(0));
  ops::setitem(x, {arr(make<int64_t>({4}, {1, 1, 3, 1}))}, make<int32_t>({4}, {7, 8, 9, 10}));
  EXPECT_EQ(values<int32_t>(x), (std::vector<int32_t>{0, 10, 0, 9, 0}));
  Tensor y = Tensor::empty({2, 3}, DType::kFloat32);
  ops::fill(y, ops::Scalar::from_int(0));
  ops::setitem(y, {all(), arr(make<int64_t>({2}, {2, 0}))}, make<double>({2}, {1.5, -2.5}));  // cast + broadcast
  EXPECT_EQ(values<float>(y), (std::vector<float>{-2.5f, 0, 1.5f, -2.5f, 0, 1.5f}));
  EXPECT_THROW(ops::setitem(y, {arr(make<int64_t>({2}, {0, 1}))}, make<float>({2}, {1, 2})), Error);
}

TEST(Take, ModesAndAlongAxis) {
  const Tensor x = iota<int64_t>({2, 3});
  const Tensor idx = make<int64_t>({3}, {-1, 3, 4});
  EXPECT_THROW(ops::take(x, idx, 1, false, ops::IndexMode::kRaise), Error);
  EXPECT_EQ(values<int64_t>(ops::take(x, idx, 1, false, ops::IndexMode::kWrap)),
            (std::vector<int64_t>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(values<int64_t>(ops::take(x, idx, 1, false, ops::IndexMode::kClip)),
            (std::vector<int64_t>{0, 2, 2, 3, 5, 5}));
  const Tensor ta = ops::take_along_axis(x, make<int64_t>({2, 1}, {2, 0}), 1);
  EXPECT_EQ(values<int64_t>(ta), (std::vector<int64_t>{2, 3}));
  Tensor y = x.clone();
  ops::put_along_axis(y, make<int64_t>({1, 3}, {1, 0, 1}), make<int64_t>({1}, {-7}), 0);
  EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{0, -7, 2, -7, 4, -7}));
  ops::put(y, make<int64_t>({3}, {0, -1, 2}), make<int64_t>({2}, {10, 20}));
  EXPECT_EQ(values<int64_t>(y), (std::vector<int64_t>{10, -7, 10, -7, 4, 20}));
}

TEST(Manipulation, ConcatenateAndRepeat) {
  const Tensor a = iota<int8_t>({2, 2});
  const Tensor b = make<float>({2, 1}, {0.5f, 1.5f});
  const Tensor c = ops::concatenate({a, b}, 1);
  EXPECT_EQ(c.dtype(), DType::kFloat32);
  EXPECT_EQ(values<float>(c), (std::vector<float>{0, 1, 0.5f, 2, 3, 1.5f}));
  EXPECT_THROW(ops::concatenate({a, iota<int8_t>({3})}, 0), Error);
  const DType u8 = DType::kUInt8;
  EXPECT_THROW(ops::concatenate({a}, 0, false, &u8), Error);  // int8 -> uint8 breaks 'same_kind'
  const Tensor r = ops::repeat(iota<int16_t>({3}), make<int64_t>({3}, {2, 0, 1}), 0, false);
  EXPECT_EQ(values<int16_t>(r), (std::vector<int16_t>{0, 0, 2}));
  EXPECT_THROW(ops::repeat(iota<int16_t>({3}), make<int64_t>({1}, {-1}), 0, false), Error);
}

// Sizes past int64 are kInvalidShape errors, never wrapped totals (issue 20:
// repeat(arange(4.), 2**62) summed to 0 and wrote 2**64 indices into an empty
// buffer; 4 x 2**62 concatenated to a 0-length result).
TEST(Manipulation, OverflowingSizesAreErrors) {
  const int64_t big = int64_t{1} << 62;
  auto code_of = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.status().code();
    }
    return ErrorCode::kSuccess;
  };
  const Tensor x4 = iota<double>({4});
  EXPECT_EQ(code_of([&] { ops::repeat(x4, make<int64_t>({}, {big}), 0, false); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { ops::repeat(iota<double>({4, 3}), make<int64_t>({}, {big}), 0, false); }),
            ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { ops::repeat(iota<double>({8}), make<int64_t>({}, {big / 2}), 0, false); }),
            ErrorCode::kInvalidShape);
  const Tensor h = make<int8_t>({1}, {1}).broadcast_to({big});
  EXPECT_EQ(h.numel(), big);
  EXPECT_EQ(code_of([&] { ops::concatenate({h, h, h, h}, 0); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { ops::concatenate({h, h}, 0); }), ErrorCode::kInvalidShape);
  // broadcast_to: element count or byte size past int64, negative dims.
  const Tensor one = make<double>({1}, {1.0});
  EXPECT_EQ(code_of([&] { one.broadcast_to({int64_t{1} << 32, int64_t{1} << 32}); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { one.broadcast_to({big, 2}); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { one.broadcast_to({big}); }), ErrorCode::kInvalidShape);  // 2**65 bytes
  EXPECT_EQ(code_of([&] { one.broadcast_to({-1}); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { Tensor::empty({big, 2}, DType::kInt8); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { broadcast_shapes({int64_t{1} << 32, 1}, {1, int64_t{1} << 32}, "add"); }),
            ErrorCode::kInvalidShape);
  EXPECT_EQ(checked_nbytes({big - 1}, 1, "t"), big - 1);
  EXPECT_EQ(checked_nbytes({big, 0}, 1, "t"), 0);
  EXPECT_EQ(code_of([&] { checked_nbytes({big, 0}, 8, "t"); }), ErrorCode::kInvalidShape);  // NumPy's rule
  EXPECT_EQ(code_of([&] { checked_nbytes({big}, 2, "t"); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(checked_add(big, big - 1, "t"), 2 * (big - 1) + 1);
  EXPECT_EQ(code_of([&] { checked_add(big, big, "t"); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { checked_mul(big, 2, "t"); }), ErrorCode::kInvalidShape);
  // Representable sizes still work.
  const Tensor r = ops::repeat(iota<int8_t>({3}), make<int64_t>({}, {2}), 0, false);
  EXPECT_EQ(values<int8_t>(r), (std::vector<int8_t>{0, 0, 1, 1, 2, 2}));
}

TEST(NanReduce, IgnoresNaN) {
  const double nan = std::nan("");
  const Tensor x = make<double>({2, 3}, {1, nan, 3, nan, nan, nan});
  ops::Attrs ax1;
  ax1.all_axes = false;
  ax1.axes = {1};
  EXPECT_EQ(values<double>(ops::call("nansum", {x}, ax1)), (std::vector<double>{4, 0}));
  const auto mx = values<double>(ops::call("nanmax", {x}, ax1));
  EXPECT_EQ(mx[0], 3);
  EXPECT_TRUE(std::isnan(mx[1]));
  const auto mean = values<double>(ops::call("nanmean", {x}, ax1));
  EXPECT_EQ(mean[0], 2);
  EXPECT_TRUE(std::isnan(mean[1]));
  EXPECT_THROW(ops::call("nanargmax", {x}, ax1), Error);
  EXPECT_EQ(values<int64_t>(ops::call("nanargmin", {x}))[0], 0);
  EXPECT_EQ(values<double>(ops::call("nancumsum", {x})), (std::vector<double>{1, 1, 4, 4, 4, 4}));
}

TEST(ReuseBuffer, MatchingResultsUseTheBuffer) {
  const Tensor a = iota<float>({8});
  Tensor buf = Tensor::empty({8}, DType::kFloat32);
  ops::reuse_buffer_push(buf);
  const Tensor r = ops::call("add", {a, a});
  const Tensor other = ops::call("add", {iota<float>({4}), iota<float>({4})});
  ops::reuse_buffer_pop();
  EXPECT_EQ(r.storage(), buf.storage());
  EXPECT_NE(other.storage(), buf.storage());
  EXPECT_EQ(values<float>(buf)[7], 14.0f);
  EXPECT_NE(ops::call("add", {a, a}).storage(), buf.storage());
  EXPECT_THROW(ops::reuse_buffer_push(iota<float>({4, 4}).slice(1, 0, 4, 2)), Error);
}
