// pyasc._C random draws (src/ops/random.cc): one function per distribution,
// taking the output shape, dtype name, the generator's key (key0: Philox key,
// key1: stream id), the counter block to start at and the parameters.
// python/pyasc/random.py keeps the generator state and validates arguments.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::Tensor;
namespace ops = asc::ops;

ops::Attrs draw_attrs(const std::vector<int64_t>& shape, const std::string& dtype, uint64_t key0, uint64_t key1,
                      uint64_t counter) {
  ops::Attrs a;
  a.shape = shape;
  a.dtype = asc::dtype_from_name(dtype).ValueOrThrow();
  a.key[0] = key0;
  a.key[1] = key1;
  a.counter = counter;
  return a;
}

/// A Python shape (any int or sequence of __index__ objects): NumPy's errors (a dimension
/// past int64 is ValueError 'Maximum allowed dimension exceeded', not pybind11's
/// 'incompatible function arguments').
ops::Attrs draw_attrs(py::handle shape, const std::string& dtype, uint64_t key0, uint64_t key1, uint64_t counter) {
  return draw_attrs(index_list_from_py(shape, "shape", /*dim=*/true), dtype, key0, key1, counter);
}

}  // namespace

void init_random(py::module_& m) {
  m.def(
      "random_uniform",
      [](py::handle shape, const std::string& dtype, uint64_t key0, uint64_t key1, uint64_t counter,
         double low, double high) {
        ops::Attrs a = draw_attrs(shape, dtype, key0, key1, counter);
        a.param[0] = low;
        a.param[1] = high;
        return ops::call("random_uniform", std::vector<Tensor>{}, a);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("key0"), py::arg("key1"), py::arg("counter"), py::arg("low") = 0.0,
      py::arg("high") = 1.0, "Uniform floats in [low, high) from the Philox stream (key0, key1) at counter.");
  m.def(
      "random_normal",
      [](py::handle shape, const std::string& dtype, uint64_t key0, uint64_t key1, uint64_t counter,
         double loc, double scale) {
        ops::Attrs a = draw_attrs(shape, dtype, key0, key1, counter);
        a.param[0] = loc;
        a.param[1] = scale;
        return ops::call("random_normal", std::vector<Tensor>{}, a);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("key0"), py::arg("key1"), py::arg("counter"), py::arg("loc") = 0.0,
      py::arg("scale") = 1.0, "Normal floats from the Philox stream.");
  m.def(
      "random_exponential",
      [](py::handle shape, const std::string& dtype, uint64_t key0, uint64_t key1, uint64_t counter,
         double scale) {
        ops::Attrs a = draw_attrs(shape, dtype, key0, key1, counter);
        a.param[0] = scale;
        return ops::call("random_exponential", std::vector<Tensor>{}, a);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("key0"), py::arg("key1"), py::arg("counter"), py::arg("scale") = 1.0,
      "Exponential floats from the Philox stream.");
  m.def(
      "random_integers",
      [](py::handle shape, const std::string& dtype, uint64_t key0, uint64_t key1, uint64_t counter,
         uint64_t low, uint64_t range_minus_1) {
        ops::Attrs a = draw_attrs(shape, dtype, key0, key1, counter);
        a.ilow = low;
        a.irange = range_minus_1;
        return ops::call("random_integers", std::vector<Tensor>{}, a);
      },
      py::arg("shape"), py::arg("dtype"), py::arg("key0"), py::arg("key1"), py::arg("counter"), py::arg("low"),
      py::arg("range_minus_1"),
      "Integers low + [0, range_minus_1] (low as a two's-complement uint64) from the Philox stream.");
  m.def(
      "random_raw",
      [](py::handle shape, uint64_t key0, uint64_t key1, uint64_t counter) {
        return ops::call("random_raw", std::vector<Tensor>{}, draw_attrs(shape, "uint32", key0, key1, counter));
      },
      py::arg("shape"), py::arg("key0"), py::arg("key1"), py::arg("counter"), "Raw uint32 words of the Philox stream.");
  m.def(
      "random_permutation",
      [](int64_t n, uint64_t key0, uint64_t key1, uint64_t counter) {
        return ops::call("random_permutation", std::vector<Tensor>{},
                         draw_attrs(std::vector<int64_t>{n}, "int64", key0, key1, counter));
      },
      py::arg("n"), py::arg("key0"), py::arg("key1"), py::arg("counter"),
      "A random permutation of range(n) (int64) from the Philox stream.");
}

}  // namespace pyasc
