// Sorting, searching and set functions of pyasc._C (src/ops/sort.cc,
// search.cc, sets.cc): argument names, defaults and docstrings over the
// registry ops. These replace the generic (x1, x2, out) bindings that
// init_array made for the same op names, so init_sort runs after init_array.
// Arrays arrive as pyasc.ndarray (python/pyasc/_sorting.py converts first).
#include <pybind11/stl.h>

#include <string>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"
#include "asc/ops/sets.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::Tensor;
namespace ops = asc::ops;

/// Binds `fn` as m.<name>, replacing an existing attribute (no overload chain).
template <typename Fn, typename... Extra>
void def_replace(py::module_& m, const char* name, Fn&& fn, const Extra&... extra) {
  m.attr(name) = py::cpp_function(std::forward<Fn>(fn), py::name(name), py::scope(m), extra...);
}

ops::Attrs axis_attrs(py::handle axis) {
  ops::Attrs a;
  if (!axis.is_none()) {
    a.all_axes = false;
    a.axes.push_back(index_from_py(axis));
  }
  return a;
}

Tensor call1(const char* op, const Tensor& x, const ops::Attrs& a) { return ops::call(op, {x}, a); }

}  // namespace

void init_sort(py::module_& m) {
  def_replace(
      m, "sort",
      [](const Tensor& x, py::object axis, bool descending) {
        ops::Attrs a = axis_attrs(axis);
        a.descending = descending;
        a.stable = true;
        return call1("sort", x, a);
      },
      py::arg("x"), py::arg("axis") = -1, py::arg("descending") = false,
      "Sorted copy along axis (flattened when None); NaN last; stable.");
  def_replace(
      m, "argsort",
      [](const Tensor& x, py::object axis, bool descending) {
        ops::Attrs a = axis_attrs(axis);
        a.descending = descending;
        a.stable = true;
        return call1("argsort", x, a);
      },
      py::arg("x"), py::arg("axis") = -1, py::arg("descending") = false,
      "Indices that sort x along axis (flattened when None); stable; NaN last.");
  def_replace(
      m, "searchsorted",
      [](const Tensor& a, const Tensor& v, bool right, py::object sorter) {
        ops::Attrs at;
        at.flags = right ? 1 : 0;
        if (sorter.is_none()) return ops::call("searchsorted", {a, v}, at);
        return ops::call("searchsorted_sorter", {a, v, sorter.cast<Tensor>()}, at);
      },
      py::arg("a"), py::arg("v"), py::arg("right") = false, py::arg("sorter") = py::none(),
      "Insertion indices of v into the sorted 1-d a (right: after equal elements).");
  def_replace(
      m, "nonzero",
      [](const Tensor& x) {
        const Tensor c = call1("nonzero", x, {});
        py::tuple t(static_cast<size_t>(c.shape()[0]));
        for (int64_t d = 0; d < c.shape()[0]; ++d) t[static_cast<size_t>(d)] = py::cast(c.select(0, d));
        return t;
      },
      py::arg("x"), "Indices of the nonzero elements, one int64 array per axis.");
  def_replace(m, "argwhere", [](const Tensor& x) { return call1("argwhere", x, {}); }, py::arg("x"),
              "Coordinates of the nonzero elements, an (nnz, ndim) int64 array.");
  def_replace(
      m, "count_nonzero",
      [](const Tensor& x, py::object axis, bool keepdims) {
        ops::Attrs a;
        a.keepdims = keepdims;
        if (!axis.is_none()) {
          a.all_axes = false;
          if (py::isinstance<py::tuple>(axis) || py::isinstance<py::list>(axis)) {
            for (auto v : axis) a.axes.push_back(index_from_py(v));
          } else {
            a.axes.push_back(index_from_py(axis));
          }
        }
        return call1("count_nonzero", x, a);
      },
      py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false,
      "Number of nonzero elements over axis (all when None), int64.");
  def_replace(
      m, "unique_values",
      [](const Tensor& x, bool equal_nan) {
        ops::Attrs a;
        a.flags = equal_nan ? 1 : 0;
        return call1("unique_values", x, a);
      },
      py::arg("x"), py::arg("equal_nan") = true, "Sorted unique values of the flattened x.");
  def_replace(
      m, "unique_info",
      [](const Tensor& x, bool equal_nan) {
        ops::Attrs a;
        a.flags = equal_nan ? 1 : 0;
        return call1("unique_info", x, a);
      },
      py::arg("x"), py::arg("equal_nan") = true,
      "int64 [first index (U) | counts (U) | inverse (x.size)] of the unique values of x.");
  def_replace(
      m, "unique_values_counts",
      [](const Tensor& x, bool equal_nan) {
        auto r = ops::unique_values_counts(x, equal_nan);
        return py::make_tuple(r.first, r.second);
      },
      py::arg("x"), py::arg("equal_nan") = true,
      "(sorted unique values of the flattened x, int64 counts) from one sort.");
  def_replace(
      m, "isin",
      [](const Tensor& element, const Tensor& test, bool invert) {
        ops::Attrs a;
        a.flags = invert ? 1 : 0;
        return ops::call("isin", {element, test}, a);
      },
      py::arg("element"), py::arg("test_elements"), py::arg("invert") = false,
      "Whether each element occurs in test_elements (bool array of element's shape).");
  def_replace(
      m, "bincount",
      [](const Tensor& x, py::object weights, py::handle minlength) {
        ops::Attrs a;
        a.flags = index_from_py(minlength, "bincount");
        if (weights.is_none()) return call1("bincount", x, a);
        return ops::call("bincount_weighted", {x, weights.cast<Tensor>()}, a);
      },
      py::arg("x"), py::arg("weights") = py::none(), py::arg("minlength") = 0,
      "Number of occurrences (or summed weights, float64) of each value of a non-negative int array.");
}

}  // namespace pyasc
