// An operator library for asc.load_op_library (tests/python/custom_ops/test_op_library.py).
//   ScaledAdd(x, y; alpha: float) -> z = x + alpha * y      (float32 / float64, same shapes)
//   RowMax(x) -> m                                          (float32, max over the last axis)
//   Fail(x) -> y                                            (its kernel throws)
#include <algorithm>
#include <stdexcept>
#include <string>

#include "asc/op_library.h"

#ifndef MY_OPS_VERSION
#define MY_OPS_VERSION 1
#endif

using asc::oplib::InferContext;
using asc::oplib::KernelContext;

ASC_REGISTER_OP("ScaledAdd")
    .Input("x")
    .Input("y")
    .Output("z")
    .Attr("alpha: float")
    .Doc("z = x + alpha * y")
    .InferShape([](InferContext& c) {
      if (c.input_shape(0) != c.input_shape(1)) throw std::invalid_argument("x and y shapes differ");
      if (c.input_dtype(0) != c.input_dtype(1)) throw std::invalid_argument("x and y dtypes differ");
      if (c.input_dtype(0) != ASC_OP_FLOAT32 && c.input_dtype(0) != ASC_OP_FLOAT64)
        throw std::invalid_argument("float32 or float64 inputs only");
      c.set_output(0, c.input_shape(0), c.input_dtype(0));
    })
    .Kernel([](KernelContext& c) {
      const double a = c.get_float("alpha") * MY_OPS_VERSION;
      auto x = c.input(0), y = c.input(1), z = c.output(0);
      const int64_t n = x.numel();
      if (x.dtype() == ASC_OP_FLOAT32) {
        for (int64_t i = 0; i < n; ++i) z.data<float>()[i] = x.data<float>()[i] + float(a) * y.data<float>()[i];
      } else {
        for (int64_t i = 0; i < n; ++i) z.data<double>()[i] = x.data<double>()[i] + a * y.data<double>()[i];
      }
    });

ASC_REGISTER_OP("RowMax")
    .Input("x")
    .Output("m")
    .InferShape([](InferContext& c) {
      auto s = c.input_shape(0);
      if (s.empty() || s.back() == 0) throw std::invalid_argument("needs a non-empty last axis");
      if (c.input_dtype(0) != ASC_OP_FLOAT32) throw std::invalid_argument("float32 only");
      s.pop_back();
      c.set_output(0, s, ASC_OP_FLOAT32);
    })
    .Kernel([](KernelContext& c) {
      auto x = c.input(0), m = c.output(0);
      const int64_t k = x.dim(-1), rows = x.numel() / k;
      for (int64_t r = 0; r < rows; ++r)
        m.data<float>()[r] = *std::max_element(x.data<float>() + r * k, x.data<float>() + (r + 1) * k);
    });

ASC_REGISTER_OP("Fail")
    .Input("x")
    .Output("y")
    .InferShape([](InferContext& c) { c.set_output(0, c.input_shape(0), c.input_dtype(0)); })
    .Kernel([](KernelContext&) { throw std::runtime_error("deliberate failure in Fail's kernel"); });
