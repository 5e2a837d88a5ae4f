// include/asc/nn/norm.h: C++ API of the normalisation operators.
#include "asc/nn/norm.h"

#include <gtest/gtest.h>

#include <cmath>

namespace asc::nn {
namespace {

Tensor vals(const Shape& s, DType d, double scale = 1.0, double shift = 0.0) {
  Tensor t = Tensor::empty(s, DType::kFloat64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<double>()[i] = std::sin(double(i) * 1.3) * scale + shift;
  if (d == DType::kFloat64) return t;
  Tensor o = Tensor::empty(s, d);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.data_as<double>()[i];
    if (d == DType::kFloat32) o.data_as<float>()[i] = float(v);
  }
  return o;
}

double at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat64 ? t.data_as<double>()[i] : double(t.data_as<float>()[i]);
}

TEST(Norm, LayerNormRowsHaveZeroMeanUnitVariance) {
  for (DType d : {DType::kFloat32, DType::kFloat64}) {  // oneDNN and own kernel
    Tensor x = vals({3, 64}, d, 5.0, 100.0);
    NormAttrs a;
    Tensor y = layer_norm(x, nullptr, nullptr, a);
    for (int64_t r = 0; r < 3; ++r) {
      double m = 0, q = 0;
      for (int64_t i = 0; i < 64; ++i) m += at(y, r * 64 + i);
      m /= 64;
      for (int64_t i = 0; i < 64; ++i) q += (at(y, r * 64 + i) - m) * (at(y, r * 64 + i) - m);
      EXPECT_NEAR(m, 0.0, 1e-4);
      EXPECT_NEAR(q / 64, 1.0, 1e-3);
    }
  }
}

TEST(Norm, BatchNormTrainingUpdatesRunningStats) {
  Tensor x = vals({4, 2, 3}, DType::kFloat64, 2.0, 1.0);
  Tensor rm = Tensor::empty({2}, DType::kFloat32), rv = Tensor::empty({2}, DType::kFloat32);
  rm.data_as<float>()[0] = rm.data_as<float>()[1] = 0.0f;
  rv.data_as<float>()[0] = rv.data_as<float>()[1] = 1.0f;
  NormAttrs a;
  a.training = true;
  a.momentum = 0.5;
  batch_norm(x, &rm, &rv, nullptr, nullptr, a);
  double m = 0, q = 0;
  for (int n = 0; n < 4; ++n) {
    for (int s = 0; s < 3; ++s) m += x.data_as<double>()[(n * 2 + 1) * 3 + s];
  }
  m /= 12;
  for (int n = 0; n < 4; ++n) {
    for (int s = 0; s < 3; ++s) {
      const double e = x.data_as<double>()[(n * 2 + 1) * 3 + s] - m;
      q += e * e;
    }
  }
  EXPECT_NEAR(rm.data_as<float>()[1], 0.5 * m, 1e-6);
  EXPECT_NEAR(rv.data_as<float>()[1], 0.5 + 0.5 * q / 11, 1e-6);
}

TEST(Norm, BatchNormInferenceMatchesFormula) {
  Tensor x = vals({2, 3, 5}, DType::kFloat32);
  Tensor rm = vals({3}, DType::kFloat32, 0.5), rv = vals({3}, DType::kFloat32, 0.2, 1.0);
  NormAttrs a;
  Tensor y = batch_norm(x, &rm, &rv, nullptr, nullptr, a);
  for (int64_t i = 0; i < 30; ++i) {
    const int64_t c = (i / 5) % 3;
    const double ref = (at(x, i) - at(rm, c)) / std::sqrt(at(rv, c) + 1e-5);
    EXPECT_NEAR(at(y, i), ref, 1e-5) << i;
  }
}

TEST(Norm, ErrorsNameOp) {
  Tensor x = vals({2, 6, 2}, DType::kFloat32);
  NormAttrs a;
  a.num_groups = 4;
  try {
    group_norm(x, nullptr, nullptr, a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidParam);
    EXPECT_NE(e.message().find("[group_norm]"), std::string::npos) << e.message();
  }
  Tensor rm = vals({5}, DType::kFloat32);
  try {
    batch_norm(x, &rm, &rm, nullptr, nullptr, NormAttrs{});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidShape);
    EXPECT_NE(e.message().find("(6,)"), std::string::npos) << e.message();
  }
  try {
    normalize_image(x, {0.5}, {0.5}, "NCHW", "NCHW", DType::kFloat32, 1.0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidShape);
  }
}

TEST(Norm, NormalizeImageUint8HwcToChw) {
  Tensor img = Tensor::empty({2, 2, 3}, DType::kUInt8);
  for (int i = 0; i < 12; ++i) img.data_as<uint8_t>()[i] = uint8_t(i * 20);
  Tensor y = normalize_image(img, {0.0, 0.5, 1.0}, {1.0, 0.5, 2.0}, "HWC", "CHW", DType::kFloat32, 1.0 / 255);
  ASSERT_EQ(y.shape(), (Shape{3, 2, 2}));
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < 4; ++p) {
      const double v = (p * 3 + c) * 20 / 255.0;
      const double m[3] = {0.0, 0.5, 1.0}, s[3] = {1.0, 0.5, 2.0};
      EXPECT_NEAR(at(y, c * 4 + p), (v - m[c]) / s[c], 1e-6);
    }
  }
}

}  // namespace
}  // namespace asc::nn
