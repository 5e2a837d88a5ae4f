// Fused reductions beyond one run of axes: argmax/argmin at a group's end
// (first occurrence, the first NaN wins) and reductions over non-adjacent
// axis sets. Results against scalar references; group counts from stats().
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/graph/graph.h"
#include "asc/ops/registry.h"

using namespace asc;
using ops::Scalar;

namespace {

double at(const Tensor& t, int64_t i) {
  int64_t off = 0, rem = i;
  for (int64_t d = t.ndim() - 1; d >= 0; --d) {
    off += (rem % t.shape()[d]) * t.strides()[d];
    rem /= t.shape()[d];
  }
  const uint8_t* p = t.data() + off;
  return visit_dtype(t.dtype(), [&](auto z) -> double {
    using T = decltype(z);
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) return v.real();
    else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
    else return static_cast<double>(v);
  });
}

/// Values with many ties (i * 7 mod 23), of dtype dt; NaN at the given flat positions.
Tensor ties(const Shape& shape, DType dt, const std::vector<int64_t>& nans = {}) {
  Tensor t = Tensor::empty(shape, dt);
  visit_dtype(dt, [&](auto z) {
    using T = decltype(z);
    if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    } else {
      T* p = t.data_as<T>();
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(static_cast<float>((i * 7) % 23));
      if constexpr (!std::is_integral_v<T>)
        for (int64_t k : nans) p[k] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
    }
  });
  return t;
}

Tensor call(const char* op, std::vector<Tensor> in, ops::Attrs a = {}) { return ops::call(op, in, a); }
Tensor scalar(double v, DType d) { return ops::scalar_tensor(Scalar::from_float(v), d); }

ops::Attrs axes(std::vector<int64_t> ax, bool keepdims = false) {
  ops::Attrs a;
  a.all_axes = false;
  a.axes = std::move(ax);
  a.keepdims = keepdims;
  return a;
}

/// NumPy's argmax/argmin of a C-contiguous reference along `axis` (-1: flattened).
std::vector<int64_t> arg_ref(const Tensor& x, int axis, bool is_max) {
  const Shape& s = x.shape();
  int64_t outer = 1, n = x.numel(), inner = 1;
  if (axis >= 0) {
    n = s[static_cast<size_t>(axis)];
    for (int d = 0; d < axis; ++d) outer *= s[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
  }
  std::vector<int64_t> r;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t best = 0;
      double bv = at(x, o * n * inner + in);
      for (int64_t i = 0; i < n && !std::isnan(bv); ++i) {
        const double v = at(x, (o * n + i) * inner + in);
        if (std::isnan(v)) {
          best = i;
          break;
        }
        if (is_max ? v > bv : v < bv) {
          bv = v;
          best = i;
        }
      }
      r.push_back(best);
    }
  return r;
}

struct FusionReduce : ::testing::Test {
  void SetUp() override {
    graph::set_eager(false);
    graph::flush_all();
  }
  void TearDown() override { graph::flush_all(); }
};

TEST_F(FusionReduce, ArgmaxArgminOfAllAxesFuseWithTheirProducer) {
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt32, DType::kUInt8,
                   DType::kInt64, DType::kBool}) {
    for (int64_t n : {int64_t(1), int64_t(17), int64_t(4097), int64_t(200003)}) {
      Tensor x = ties({n}, dt);
      for (const char* op : {"argmax", "argmin"}) {
        const auto before = graph::stats();
        Tensor y = dt == DType::kBool ? call("logical_not", {x}) : call("negative", {x});
        Tensor r = call(op, {y});
        EXPECT_TRUE(r.is_pending());
        const int64_t got = static_cast<int64_t>(at(r, 0));
        EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1) << op << " " << dtype_name(dt) << " " << n;
        EXPECT_EQ(r.dtype(), DType::kInt64);
        EXPECT_EQ(r.ndim(), 0);
        EXPECT_EQ(got, arg_ref(y, -1, std::strcmp(op, "argmax") == 0)[0]) << op << " " << dtype_name(dt) << " " << n;
      }
    }
  }
}

TEST_F(FusionReduce, FirstNanWinsAcrossTilesAndBlocks) {
  const int64_t n = 300007;
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
    for (std::vector<int64_t> nans : {std::vector<int64_t>{299999}, std::vector<int64_t>{150001, 5000},
                                      std::vector<int64_t>{0, 7}, std::vector<int64_t>{4096}}) {
      Tensor x = ties({n}, dt, nans);
      for (const char* op : {"argmax", "argmin"}) {
        Tensor r = call(op, {call("multiply", {x, scalar(2.0, dt)})});
        int64_t first = n;
        for (int64_t k : nans) first = std::min(first, k);
        EXPECT_EQ(static_cast<int64_t>(at(r, 0)), first) << op << " " << dtype_name(dt);
      }
    }
  }
}

TEST_F(FusionReduce, ArgmaxAlongEachAxisIsOneGroup) {
  const Shape shape = {6, 37, 50};
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt16}) {
    Tensor x = ties(shape, dt, {5, 3000, 3001, 9000});
    for (int axis = 0; axis < 3; ++axis) {
      for (bool keep : {false, true}) {
        for (const char* op : {"argmax", "argmin"}) {
          const auto before = graph::stats();
          Tensor y = call("subtract", {x, scalar(1.0, dt)});
          Tensor r = call(op, {y}, axes({axis - 3 * (axis == 2)}, keep));  // axis 2 as -1
          const auto ref = arg_ref(y, axis, std::strcmp(op, "argmax") == 0);
          Shape want = shape;
          if (keep) want[static_cast<size_t>(axis)] = 1;
          else want.erase(want.begin() + axis);
          ASSERT_EQ(r.shape(), want);
          for (int64_t i = 0; i < r.numel(); ++i)
            ASSERT_EQ(static_cast<int64_t>(at(r, i)), ref[static_cast<size_t>(i)])
                << op << " axis " << axis << " " << dtype_name(dt) << " at " << i;
          // subtract + arg reduction: one tile program (the reference's own
          // evaluation of y ran in the same flush).
          EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1) << op << " axis " << axis;
        }
      }
    }
  }
}

TEST_F(FusionReduce, ArgmaxSharesAPassWithOtherReductions) {
  Tensor x = ties({200, 300}, DType::kFloat32, {61 * 300 + 7});
  const auto before = graph::stats();
  Tensor y = call("multiply", {x, scalar(3.0, DType::kFloat32)});
  Tensor i = call("argmax", {y}, axes({1}));
  Tensor m = call("max", {y}, axes({1}));
  Tensor s = call("sum", {y}, axes({1}));
  graph::eval({i, m, s});
  EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1);
  Tensor yr = call("multiply", {x, scalar(3.0, DType::kFloat32)});
  const auto ref = arg_ref(yr, 1, true);
  for (int64_t r = 0; r < 200; ++r) {
    ASSERT_EQ(static_cast<int64_t>(at(i, r)), ref[static_cast<size_t>(r)]) << r;
    double mx = -INFINITY, sm = 0;
    bool nan = false;
    for (int64_t c = 0; c < 300; ++c) {
      const double v = at(yr, r * 300 + c);
      nan |= std::isnan(v);
      mx = std::max(mx, v);
      sm += v;
    }
    if (nan) {
      EXPECT_TRUE(std::isnan(at(m, r)));
    } else {
      EXPECT_EQ(at(m, r), mx);
      EXPECT_NEAR(at(s, r), sm, 1e-3);
    }
  }
}

TEST_F(FusionReduce, ArgOfViewsAndEagerAgree) {
  Tensor base = ties({40, 64}, DType::kFloat64, {100});
  Tensor v = base.slice(1, 63, -1, -2);  // reversed, strided columns
  for (int axis : {-1, 0, 1}) {
    ops::Attrs a = axis < 0 ? ops::Attrs{} : axes({axis});
    Tensor lazy = call("argmin", {v}, a);
    graph::set_eager(true);
    Tensor eager = call("argmin", {v}, a);
    graph::set_eager(false);
    ASSERT_EQ(lazy.shape(), eager.shape());
    for (int64_t i = 0; i < eager.numel(); ++i) ASSERT_EQ(at(lazy, i), at(eager, i)) << axis << " " << i;
  }
}

TEST_F(FusionReduce, NonAdjacentAxisSetsAreOneGroup) {
  Tensor x = ties({9, 5, 7, 260}, DType::kFloat64, {11, 700});
  const std::vector<std::vector<int64_t>> sets = {{0, 2}, {1, 3}, {0, 2, 3}, {0, 1, 3}, {-4, -2}};
  for (const auto& set : sets) {
    for (const char* op : {"sum", "max", "min"}) {
      for (bool keep : {false, true}) {
        const auto before = graph::stats();
        Tensor lazy = call(op, {call("subtract", {x, scalar(3.0, DType::kFloat64)})}, axes(set, keep));
        graph::eval({lazy});
        EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1) << op << " set " << set[0] << "," << set[1];
        graph::set_eager(true);
        Tensor eager = call(op, {call("subtract", {x, scalar(3.0, DType::kFloat64)})}, axes(set, keep));
        graph::set_eager(false);
        ASSERT_EQ(lazy.shape(), eager.shape());
        for (int64_t i = 0; i < eager.numel(); ++i) {
          const double l = at(lazy, i), e = at(eager, i);
          if (std::isnan(e)) ASSERT_TRUE(std::isnan(l)) << op << " " << i;
          else ASSERT_NEAR(l, e, 1e-9 * (1 + std::abs(e))) << op << " " << i;
        }
      }
    }
  }
}

TEST_F(FusionReduce, InPlaceUpdatesOfPendingValuesAreRecorded) {
  const int64_t n = 5003;
  Tensor a = ties({n}, DType::kFloat64), b = ties({n}, DType::kFloat64, {});
  const ops::OpDef& add = ops::get_op("add");
  const ops::OpDef& mul = ops::get_op("multiply");
  const auto before = graph::stats();
  Tensor c = call("add", {a, b});
  Tensor e = call("multiply", {c, scalar(2.0, DType::kFloat64)});  // reads the old value
  Tensor v = c.slice(0, 1, n, 2);                                   // a view taken before the writes
  Tensor three = scalar(3.0, DType::kFloat64);
  ops::call(mul, {c, three}, {}, &c);
  ops::call(add, {c, a}, {}, &c);
  EXPECT_TRUE(c.is_pending());
  graph::eval({c, e});
  EXPECT_EQ(graph::stats().groups_run - before.groups_run, 1);
  for (int64_t i = 0; i < n; ++i) {
    const double old = at(a, i) + at(b, i);
    ASSERT_EQ(at(e, i), old * 2) << i;
    ASSERT_EQ(at(c, i), old * 3 + at(a, i)) << i;
  }
  for (int64_t i = 0; i < v.numel(); ++i) ASSERT_EQ(at(v, i), at(c, 1 + 2 * i)) << i;
  // Overlapping operands read the old value (NumPy buffers them).
  Tensor d = call("multiply", {a, scalar(1.0, DType::kFloat64)});
  ops::call(add, {d, d.slice(0, n - 1, -1, -1)}, {}, &d);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(at(d, i), at(a, i) + at(a, n - 1 - i)) << i;
}

}  // namespace
