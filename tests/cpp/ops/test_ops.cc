// Tensor views, promotion, broadcasting and every op vs a scalar reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"

using namespace asc;
using ops::Scalar;

namespace {

template <typename T>
Tensor make(const Shape& shape, std::function<T(int64_t)> f) {
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = f(i);
  return t;
}

/// Element `i` (C order) of any tensor, as double.
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
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
    else return static_cast<double>(v);
  });
}

}  // namespace

TEST(Tensor, ViewsShareStorage) {
  Tensor a = make<float>({3, 4}, [](int64_t i) { return float(i); });
  EXPECT_TRUE(a.is_contiguous());
  Tensor t = a.transpose();
  EXPECT_EQ(t.shape(), (Shape{4, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(at(t, 1), 4.0);
  Tensor r = a.slice(1, 3, -1, -2);  // a[:, 3::-2]
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(at(r, 0), 3.0);
  EXPECT_EQ(at(r, 1), 1.0);
  EXPECT_EQ(at(r, 2), 7.0);
  Tensor d = a.diagonal();
  EXPECT_EQ(d.shape(), (Shape{3}));
  EXPECT_EQ(at(d, 2), 10.0);
  Tensor b = a.reshape({2, 6}, false);
  EXPECT_EQ(b.storage(), a.storage());
  EXPECT_THROW(t.reshape({12}, false), Error);
  Tensor c = t.reshape({12});
  EXPECT_EQ(at(c, 1), 4.0);
  Tensor bc = make<float>({3}, [](int64_t i) { return float(i); }).broadcast_to({2, 3});
  EXPECT_EQ(bc.strides()[0], 0);
  EXPECT_EQ(at(bc, 4), 1.0);
  // Writes through a view are visible in the base.
  a.select(0, 1).data_as<float>()[0] = 42;
  EXPECT_EQ(at(a, 4), 42.0);
}

TEST(Tensor, IndexErrors) {
  Tensor a = Tensor::empty({3, 4}, DType::kInt32);
  try {
    a.select(1, 4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIndexOutOfRange);
    EXPECT_NE(e.message().find("axis 1 with size 4"), std::string::npos);
  }
  std::vector<IndexItem> idx = {IndexItem::ellipsis(), IndexItem::new_axis(), IndexItem::integer(-1)};
  Tensor v = a.index(idx);
  EXPECT_EQ(v.shape(), (Shape{3, 1}));
}

TEST(Tensor, NoCopyReshapeOfSlices) {
  Tensor a = make<int32_t>({4, 6}, [](int64_t i) { return int32_t(i); });
  Tensor s = a.slice(1, 0, 6, 2);  // (4, 3), strides (24, 8)
  Tensor r = s.reshape({2, 2, 3}, false);
  EXPECT_EQ(r.storage(), a.storage());
  EXPECT_EQ(at(r, 4), 8.0);
}

TEST(Promotion, NumPyTable) {
  auto p = [](DType a, DType b) { return ops::promote_types(a, b).value(); };
  EXPECT_EQ(p(DType::kInt8, DType::kUInt8), DType::kInt16);
  EXPECT_EQ(p(DType::kInt64, DType::kUInt64), DType::kFloat64);
  EXPECT_EQ(p(DType::kUInt32, DType::kInt8), DType::kInt64);
  EXPECT_EQ(p(DType::kInt16, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(p(DType::kInt8, DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(p(DType::kInt32, DType::kFloat32), DType::kFloat64);
  EXPECT_EQ(p(DType::kBool, DType::kBFloat16), DType::kBFloat16);
  EXPECT_EQ(p(DType::kUInt8, DType::kBFloat16), DType::kBFloat16);
  EXPECT_EQ(p(DType::kBFloat16, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(p(DType::kBFloat16, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(p(DType::kInt16, DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(p(DType::kInt32, DType::kBFloat16), DType::kFloat64);
  EXPECT_EQ(ops::weak_scalar_dtype(DType::kInt8, ops::ScalarKind::kInt), DType::kInt8);
  EXPECT_EQ(ops::weak_scalar_dtype(DType::kInt8, ops::ScalarKind::kFloat), DType::kFloat64);
  EXPECT_EQ(ops::weak_scalar_dtype(DType::kFloat16, ops::ScalarKind::kFloat), DType::kFloat16);
  EXPECT_EQ(ops::weak_scalar_dtype(DType::kBool, ops::ScalarKind::kInt), DType::kInt64);
}

TEST(Ops, BroadcastAndErrors) {
  Tensor a = make<float>({2, 1, 3}, [](int64_t i) { return float(i); });
  Tensor b = make<float>({4, 1}, [](int64_t i) { return float(10 * i); });
  Tensor c = ops::call("add", {a, b});
  EXPECT_EQ(c.shape(), (Shape{2, 4, 3}));
  EXPECT_EQ(at(c, 3 * 1 + 2), 10.0 + 2.0);
  try {
    ops::call("add", {Tensor::empty({2, 3}, DType::kFloat32), Tensor::empty({4}, DType::kFloat32)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidShape);
    EXPECT_NE(e.message().find("[add]"), std::string::npos);
    EXPECT_NE(e.message().find("(2, 3) (4,)"), std::string::npos);
  }
  try {
    ops::call("subtract", {Tensor::empty({2}, DType::kBool), Tensor::empty({2}, DType::kBool)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidDtype);
    EXPECT_NE(e.message().find("[subtract]"), std::string::npos);
  }
  try {
    ops::call("exp", {Tensor::empty({2}, DType::kFloat16), Tensor::empty({2}, DType::kBFloat16)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidParam);
  }
}

TEST(Ops, IntegerDivisionSemantics) {
  Tensor x = make<int8_t>({4}, [](int64_t i) { return int8_t(std::array<int, 4>{5, -5, 0, -128}[i]); });
  Tensor y = make<int8_t>({4}, [](int64_t i) { return int8_t(std::array<int, 4>{0, 3, -3, -1}[i]); });
  Tensor q = ops::call("floor_divide", {x, y});
  Tensor r = ops::call("remainder", {x, y});
  const double eq[] = {0, -2, 0, -128}, er[] = {0, 1, 0, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(at(q, i), eq[i]) << i;
    EXPECT_EQ(at(r, i), er[i]) << i;
  }
  Tensor d = ops::call("true_divide", {x, y});
  EXPECT_EQ(d.dtype(), DType::kFloat64);
  EXPECT_TRUE(std::isinf(at(d, 0)));
}

// Every binary op on every dtype it supports, lengths around the SIMD width,
// contiguous and negative-stride operands, vs a double reference.
TEST(Ops, BinaryVsReference) {
  struct Case {
    const char* name;
    std::function<double(double, double)> ref;
  };
  const Case cases[] = {
      {"add", [](double a, double b) { return a + b; }},
      {"subtract", [](double a, double b) { return a - b; }},
      {"multiply", [](double a, double b) { return a * b; }},
      {"maximum", [](double a, double b) { return std::max(a, b); }},
      {"minimum", [](double a, double b) { return std::min(a, b); }},
      {"less", [](double a, double b) { return double(a < b); }},
      {"equal", [](double a, double b) { return double(a == b); }},
  };
  const DType dtypes[] = {DType::kInt8,  DType::kInt16,   DType::kInt32,    DType::kInt64,   DType::kUInt8,
                          DType::kUInt16, DType::kUInt32, DType::kUInt64,   DType::kFloat16, DType::kBFloat16,
                          DType::kFloat32, DType::kFloat64};
  for (DType dt : dtypes)
    for (int64_t n : {1, 7, 15, 16, 17, 31, 33, 65, 130}) {
      Tensor a = ops::cast(make<int32_t>({n}, [](int64_t i) { return int32_t(i % 11 + 1); }), dt);
      Tensor b0 = ops::cast(make<int32_t>({n}, [](int64_t i) { return int32_t((i * 7) % 5 + 1); }), dt);
      Tensor b = b0.slice(0, n - 1, -1, -1);  // reversed view
      for (const auto& c : cases) {
        Tensor r = ops::call(c.name, {a, b});
        ASSERT_EQ(r.numel(), n);
        for (int64_t i = 0; i < n; ++i) {
          double want = c.ref(at(a, i), at(b, i));
          if (dtype_traits(dt).kind == DTypeKind::kUnsignedInt && want < 0)
            want += std::ldexp(1.0, 8 * static_cast<int>(dtype_size(dt)));
          ASSERT_EQ(at(r, i), want) << c.name << " " << dtype_name(dt) << " n=" << n << " i=" << i;
        }
      }
    }
}

TEST(Ops, UnaryFloat) {
  for (DType dt : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64})
    for (int64_t n : {1, 9, 16, 33}) {
      Tensor a = ops::cast(make<float>({n}, [](int64_t i) { return 0.25f + float(i) / 8; }), dt);
      for (auto [name, ref] : std::vector<std::pair<const char*, double (*)(double)>>{
               {"exp", [](double v) { return std::exp(v); }}, {"log", [](double v) { return std::log(v); }},
               {"sqrt", [](double v) { return std::sqrt(v); }}, {"sin", [](double v) { return std::sin(v); }},
               {"tanh", [](double v) { return std::tanh(v); }}}) {
        Tensor r = ops::call(name, {a});
        const double tol = dt == DType::kBFloat16 ? 1e-2 : dt == DType::kFloat16 ? 2e-3 : 1e-6;
        for (int64_t i = 0; i < n; ++i)
          EXPECT_NEAR(at(r, i), ref(at(a, i)), tol * std::max(1.0, std::fabs(ref(at(a, i))))) << name;
      }
    }
}

TEST(Ops, Reductions) {
  Tensor a = make<int8_t>({3, 4}, [](int64_t i) { return int8_t(100 + i); });
  Tensor s = ops::call("sum", {a});
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(at(s, 0), 12 * 100 + 66);
  ops::Attrs ax;
  ax.all_axes = false;
  ax.axes = {0};
  Tensor s0 = ops::call("sum", {a}, ax);
  EXPECT_EQ(s0.shape(), (Shape{4}));
  EXPECT_EQ(at(s0, 1), 300 + 1 + 5 + 9);
  ax.axes = {-1};
  ax.keepdims = true;
  Tensor m = ops::call("max", {a.transpose()}, ax);
  EXPECT_EQ(m.shape(), (Shape{4, 1}));
  EXPECT_EQ(at(m, 0), 108);
  Tensor mean = ops::call("mean", {a});
  EXPECT_EQ(mean.dtype(), DType::kFloat64);
  EXPECT_DOUBLE_EQ(at(mean, 0), 105.5);
  EXPECT_THROW(ops::call("max", {Tensor::empty({0}, DType::kFloat32)}), Error);
  // Big float32 sum goes through the SIMD path.
  Tensor big = make<float>({100003}, [](int64_t) { return 0.5f; });
  EXPECT_NEAR(at(ops::call("sum", {big}), 0), 50001.5, 1e-3);
}

TEST(Ops, CastSpecialValues) {
  Tensor f = make<float>({5}, [](int64_t i) {
    const float v[] = {std::nanf(""), INFINITY, -INFINITY, 3.7f, -3.7f};
    return v[i];
  });
  Tensor i8 = ops::cast(f, DType::kInt8);
  EXPECT_EQ(at(i8, 0), 0);
  EXPECT_EQ(at(i8, 3), 3);
  EXPECT_EQ(at(i8, 4), -3);
  Tensor i32 = ops::cast(f, DType::kInt32);
  EXPECT_EQ(at(i32, 0), -2147483648.0);
  Tensor b = ops::cast(f, DType::kBool);
  EXPECT_EQ(at(b, 0), 1);
  Tensor h = ops::cast(f, DType::kFloat16);
  EXPECT_TRUE(std::isnan(at(h, 0)));
  EXPECT_TRUE(std::isinf(at(h, 1)));
}

TEST(Ops, LargeParallelElementwise) {
  const int64_t n = (1 << 20) + 3;
  Tensor a = make<float>({n}, [](int64_t i) { return float(i % 1000); });
  Tensor r = ops::call("multiply", {a, ops::scalar_tensor(Scalar::from_float(2.0), DType::kFloat32)});
  for (int64_t i : {int64_t(0), int64_t(12345), n - 1}) EXPECT_EQ(at(r, i), 2.0 * (i % 1000));
  Tensor t = make<double>({1024, 1025}, [](int64_t i) { return double(i); }).transpose();
  Tensor c = t.contiguous();
  EXPECT_EQ(at(c, 1), 1025.0);
  Tensor w = ops::call("where", {ops::call("greater", {a, ops::scalar_tensor(Scalar::from_int(500), DType::kFloat32)}),
                                 a, ops::scalar_tensor(Scalar::from_int(-1), DType::kFloat32)});
  EXPECT_EQ(at(w, 501), 501.0);
  EXPECT_EQ(at(w, 5), -1.0);
}

TEST(Tensor, DimVectorInlineAndHeap) {
  Shape s{1, 2, 3};
  EXPECT_EQ(s.size(), 3u);
  for (int64_t i = 0; i < 10; ++i) s.push_back(i);  // spills to the heap
  EXPECT_EQ(s.size(), 13u);
  EXPECT_EQ(s[12], 9);
  Shape c = s;
  EXPECT_EQ(c, s);
  s.erase(s.begin());
  s.insert(s.begin() + 1, 42);
  EXPECT_EQ(s[0], 2);
  EXPECT_EQ(s[1], 42);
  Shape m = std::move(c);
  EXPECT_EQ(m.size(), 13u);
  std::vector<int64_t> v = Shape{4, 5};
  EXPECT_EQ(v.size(), 2u);
  // 7-d tensors work too (heap shapes).
  Tensor t = Tensor::empty({1, 2, 1, 2, 1, 2, 2}, DType::kInt32);
  EXPECT_EQ(ops::call("add", {t, t}).shape(), t.shape());
}

TEST(Ops, ScalarConstantsAreInline) {
  Tensor s = ops::scalar_tensor(Scalar::from_float(2.5), DType::kFloat16);
  EXPECT_TRUE(s.storage()->is_inline());
  EXPECT_EQ(at(s, 0), 2.5);
  EXPECT_EQ(at(ops::scalar_constant(Scalar::from_int(-1), DType::kUInt8), 0), 255);
  EXPECT_THROW(ops::scalar_tensor(Scalar::from_int(300), DType::kInt8), Error);
}

// Parallel reductions (split along a kept axis or into per-block partials) vs a
// double reference, for every axis of a large 2-d array.
TEST(Ops, ParallelReductionsMatchReference) {
  const int64_t r = 513, c = 1031;
  Tensor a = make<float>({r, c}, [](int64_t i) { return float((i * 37) % 101) - 50.0f; });
  for (int axis : {-1, 0, 1}) {
    ops::Attrs at_;
    if (axis >= 0) {
      at_.all_axes = false;
      at_.axes = {axis};
    }
    Tensor s = ops::call("sum", {a}, at_);
    Tensor mx = ops::call("max", {a}, at_);
    const int64_t outer = axis == 0 ? c : axis == 1 ? r : 1;
    ASSERT_EQ(s.numel(), outer);
    for (int64_t o = 0; o < outer; o += 97) {
      double want = 0, best = -1e30;
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j) {
          if ((axis == 0 && j != o) || (axis == 1 && i != o)) continue;
          const double v = at(a, i * c + j);
          want += v;
          best = std::max(best, v);
        }
      EXPECT_NEAR(at(s, o), want, 1e-3 * std::max(1.0, std::fabs(want))) << axis << " " << o;
      EXPECT_EQ(at(mx, o), best) << axis << " " << o;
    }
  }
}

TEST(Ops, ArgAndScans) {
  Tensor a = make<double>({2, 3}, [](int64_t i) { return std::array<double, 6>{3, 9, 1, 4, 4, NAN}[i]; });
  Tensor am = ops::call("argmax", {a});
  EXPECT_EQ(am.dtype(), DType::kInt64);
  EXPECT_EQ(at(am, 0), 5);  // the NaN
  ops::Attrs ax;
  ax.all_axes = false;
  ax.axes = {1};
  Tensor amin = ops::call("argmin", {a}, ax);
  EXPECT_EQ(at(amin, 0), 2);
  EXPECT_EQ(at(amin, 1), 2);
  Tensor c = ops::call("cumsum", {make<int8_t>({4}, [](int64_t) { return int8_t(100); })});
  EXPECT_EQ(c.dtype(), DType::kInt64);
  EXPECT_EQ(at(c, 3), 400);
  EXPECT_THROW(ops::call("argmax", {Tensor::empty({0}, DType::kFloat32)}), Error);
  try {
    ops::call("power", {make<int32_t>({1}, [](int64_t) { return 2; }), make<int32_t>({1}, [](int64_t) { return -1; })});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("[power]"), std::string::npos);
  }
}
