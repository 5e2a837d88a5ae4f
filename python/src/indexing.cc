// Indexing and data-moving manipulation functions: ndarray.__getitem__ /
// __setitem__ (called from array.cc), take, take_along_axis, put_along_axis,
// put, concatenate, repeat and the nan-reductions that take ddof.
//
// Only argument conversion happens here: a Python index key becomes a list of
// asc::ops::Index items (ints, slices, None, Ellipsis, integer/boolean arrays
// from pyasc arrays, NumPy arrays and lists); the work is in src/ops.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "asc/ops/indexing.h"
#include "asc/ops/manipulation.h"
#include "asc/ops/registry.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::DType;
using asc::Error;
using asc::IndexItem;
using asc::Status;
using asc::Tensor;
namespace ops = asc::ops;

[[noreturn]] void invalid_index(const char* op) {
  throw Error(Status::IndexError(op, "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                                     "integer or boolean arrays are valid indices"));
}

/// An integer index (a Python int or any __index__ object), never wrapped to
/// another index. Out of the int64 range NumPy answers by width: a value that
/// fits 64 unsigned bits (a[2**63], a[np.uint64(2**64-1)]) is its OverflowError
/// "too large to convert to C long"; anything wider (a[2**64]) or below -2**63 is
/// not an index at all to NumPy: its IndexError "only integers, slices ...".
int64_t index_int(py::handle h) {
  py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!v) throw py::error_already_set();
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow > 0) {
    PyLong_AsUnsignedLongLong(v.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      invalid_index("index");
    }
    throw Error(Status::Make(asc::ErrorCode::kOverflow, "index",
                             "index " + py::str(v).cast<std::string>() + " is too large to convert to C long"));
  }
  if (overflow < 0) invalid_index("index");
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(x);
}

/// A slice bound: clamped to the int64 range as Python's slices are (a[2**63:]
/// is empty, a[:2**64] is everything), never an error or a wrapped value.
int64_t slice_bound(PyObject* o) {
  const Py_ssize_t v = PyNumber_AsSsize_t(o, nullptr);  // nullptr: clamp on overflow
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

IndexItem slice_item(PyObject* o) {
  auto* sl = reinterpret_cast<PySliceObject*>(o);
  IndexItem it;
  it.kind = IndexItem::kSlice;
  if (sl->step != Py_None) it.step = std::max<int64_t>(slice_bound(sl->step), -std::numeric_limits<int64_t>::max());
  if (it.step == 0) throw Error(Status::Invalid("getitem", "slice step cannot be zero"));
  if (sl->start != Py_None) {
    it.has_start = true;
    it.start = slice_bound(sl->start);
  }
  if (sl->stop != Py_None) {
    it.has_stop = true;
    it.stop = slice_bound(sl->stop);
  }
  return it;
}

/// A pyasc/NumPy array or a list used as an index -> tensor (lists through
/// numpy.asarray; an empty list is an empty integer index, as in NumPy).
Tensor index_array(py::handle k) {
  if (py::isinstance<Tensor>(k)) return k.cast<Tensor>();
  Tensor t = tensor_from_py(k);
  // An empty sequence (numpy.asarray makes it float64) is an empty integer index, as in NumPy.
  if ((PyList_Check(k.ptr()) || PyTuple_Check(k.ptr())) && t.numel() == 0 && asc::is_floating(t.dtype()))
    return Tensor::empty(t.shape(), DType::kInt64);
  return t;
}

/// One item of a key. Returns false (and fills `arr`) for an array item.
bool basic_item(py::handle k, IndexItem* item, Tensor* arr, const char* op) {
  PyObject* o = k.ptr();
  if (o == Py_None) {
    *item = IndexItem::new_axis();
    return true;
  }
  if (o == Py_Ellipsis) {
    *item = IndexItem::ellipsis();
    return true;
  }
  if (PySlice_Check(o)) {
    *item = slice_item(o);
    return true;
  }
  if (PyLong_CheckExact(o)) {
    *item = IndexItem::integer(index_int(k));
    return true;
  }
  if (PyBool_Check(o)) {
    Tensor t = Tensor::constant(DType::kBool);
    *t.data_as<bool>() = o == Py_True;
    *arr = t;
    return false;
  }
  const bool is_array = py::isinstance<Tensor>(k) || py::isinstance<py::array>(k) || PyList_Check(o) ||
                        PyTuple_Check(o) || PyObject_HasAttrString(o, "__array__") ||
                        PyObject_HasAttrString(o, "__array_interface__");
  if (!is_array) {
    // NumPy integer scalars and other __index__ objects (np.bool_ has no __index__).
    if (PyObject_HasAttrString(o, "dtype") && py::str(k.attr("dtype")).cast<std::string>() == "bool") {
      Tensor t = Tensor::constant(DType::kBool);
      *t.data_as<bool>() = k.cast<bool>();
      *arr = t;
      return false;
    }
    if (PyIndex_Check(o)) {
      *item = IndexItem::integer(index_int(k));
      return true;
    }
    invalid_index(op);
  }
  Tensor t = index_array(k);
  if (t.ndim() == 0 && asc::is_integer(t.dtype())) {  // a 0-d integer array is an integer
    if (t.dtype() == DType::kUInt64) {  // as NumPy: OverflowError, not a wrapped negative index
      const uint64_t u = ops::cast(t, DType::kUInt64).contiguous().data_as<uint64_t>()[0];
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw Error(Status::Make(asc::ErrorCode::kOverflow, op,
                                 "index " + std::to_string(u) + " is too large to convert to C long"));
    }
    *item = IndexItem::integer(ops::cast(t, DType::kInt64).data_as<int64_t>()[0]);
    return true;
  }
  if (!asc::is_integer(t.dtype()) && t.dtype() != DType::kBool) invalid_index(op);
  *arr = t;
  return false;
}

/// Parses `key`. Returns true with `basic` filled when every item is basic;
/// else fills `full`.
bool parse_key(py::handle key, std::vector<IndexItem>* basic, std::vector<ops::Index>* full, const char* op) {
  auto add = [&](py::handle k) {
    IndexItem it;
    Tensor arr;
    if (basic_item(k, &it, &arr, op)) {
      basic->push_back(it);
      full->push_back(ops::Index::from_basic(it));
      return true;
    }
    full->push_back(ops::Index::from_array(std::move(arr)));
    return false;
  };
  bool all_basic = true;
  if (PyTuple_Check(key.ptr())) {
    for (auto k : key) all_basic &= add(k);
  } else {
    all_basic = add(key);
  }
  return all_basic;
}

// ------------------------------------------------------------------ setitem values

[[noreturn]] void overflow(const std::string& what, DType d) {
  throw Error(Status::Make(asc::ErrorCode::kOverflow, "setitem",
                           "Python integer " + what + " out of bounds for " + asc::dtype_name(d)));
}

/// A Python int/float/bool assigned into an array of dtype `d`, as NumPy 2
/// converts it: integers must fit (OverflowError), floats into integer arrays
/// truncate and must fit (NaN: ValueError, Inf: OverflowError); everything
/// else converts as astype does.
bool scalar_value(py::handle v, DType d, Tensor* out) {
  PyObject* o = v.ptr();
  const bool is_int_dtype = asc::is_integer(d);
  if (PyBool_Check(o)) {
    *out = ops::scalar_constant(ops::Scalar::from_bool(o == Py_True), d);
    return true;
  }
  const bool py_int = PyLong_Check(o) && !PyObject_HasAttrString(o, "dtype");
  const bool py_float = PyFloat_Check(o) && !PyObject_HasAttrString(o, "dtype");
  if (!py_int && !py_float) return false;
  py::object iv = py::reinterpret_borrow<py::object>(v);
  if (py_float) {
    const double f = PyFloat_AsDouble(o);
    if (!is_int_dtype) {
      *out = ops::scalar_constant(ops::Scalar::from_float(f), d);
      return true;
    }
    if (std::isnan(f)) throw Error(Status::Invalid("setitem", "cannot convert float NaN to integer"));
    if (std::isinf(f)) throw Error(Status::Make(asc::ErrorCode::kOverflow, "setitem", "cannot convert float infinity to integer"));
    iv = py::reinterpret_steal<py::object>(PyNumber_Long(o));
  }
  if (!is_int_dtype) {
    if (d == DType::kBool) {
      *out = ops::scalar_constant(ops::Scalar::from_bool(PyObject_IsTrue(iv.ptr()) == 1), d);
    } else {
      *out = ops::scalar_constant(ops::Scalar::from_float(PyLong_AsDouble(iv.ptr())), d);
    }
    return true;
  }
  int of = 0;
  const long long x = PyLong_AsLongLongAndOverflow(iv.ptr(), &of);
  if (of > 0 && d == DType::kUInt64) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(iv.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      overflow(py::str(iv).cast<std::string>(), d);
    }
    Tensor t = Tensor::constant(d);
    *t.data_as<uint64_t>() = u;
    *out = t;
    return true;
  }
  if (of) overflow(py::str(iv).cast<std::string>(), d);
  try {
    *out = ops::scalar_tensor(ops::Scalar::from_int(x), d, "setitem");
  } catch (const Error&) {
    overflow(std::to_string(x), d);
  }
  return true;
}

ops::IndexMode to_mode(const std::string& mode, const char* op) {
  if (mode == "raise") return ops::IndexMode::kRaise;
  if (mode == "wrap") return ops::IndexMode::kWrap;
  if (mode == "clip") return ops::IndexMode::kClip;
  throw Error(Status::Invalid(op, "clipmode must be one of 'clip', 'raise', or 'wrap' (got '" + mode + "')"));
}

std::vector<int64_t> axes_of(py::handle axis) {
  std::vector<int64_t> a;
  if (PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr())) {
    for (auto v : axis) a.push_back(index_from_py(v));
  } else {
    a.push_back(index_from_py(axis));
  }
  return a;
}

}  // namespace

Tensor getitem_py(const Tensor& t, py::handle key) {
  std::vector<IndexItem> basic;
  std::vector<ops::Index> full;
  if (parse_key(key, &basic, &full, "getitem")) return t.index(basic);
  return ops::getitem(t, full);
}

void setitem_py(const Tensor& t, py::handle key, py::handle value) {
  std::vector<IndexItem> basic;
  std::vector<ops::Index> full;
  parse_key(key, &basic, &full, "setitem");
  Tensor v;
  if (!scalar_value(value, t.dtype(), &v)) v = tensor_from_py(value);
  ops::setitem(t, full, v);
}

void init_indexing(py::module_& m) {
  m.def("take",
        [](py::object x, py::object indices, py::object axis, const std::string& mode) {
          const Tensor t = tensor_from_py(x);
          const bool flat = axis.is_none();
          return ops::take(t, tensor_from_py(indices), flat ? 0 : index_from_py(axis), flat, to_mode(mode, "take"));
        },
        py::arg("x"), py::arg("indices"), py::arg("axis") = py::none(), py::arg("mode") = "raise",
        "Elements of x at indices along axis (of the flattened x when axis is None); mode 'raise', 'wrap' or "
        "'clip'.");
  m.def("take_along_axis",
        [](py::object x, py::object indices, py::object axis) {
          const bool flat = axis.is_none();
          return ops::take_along_axis(tensor_from_py(x), tensor_from_py(indices), flat ? 0 : index_from_py(axis),
                                      flat);
        },
        py::arg("arr"), py::arg("indices"), py::arg("axis"),
        "Values of arr at indices along axis (indices broadcast with arr on the other axes).");
  m.def("put_along_axis",
        [](const Tensor& x, py::object indices, py::object values, py::object axis) {
          const bool flat = axis.is_none();
          Tensor v;
          if (!scalar_value(values, x.dtype(), &v)) v = tensor_from_py(values);
          ops::put_along_axis(x, tensor_from_py(indices), v, flat ? 0 : index_from_py(axis), flat);
        },
        py::arg("arr"), py::arg("indices"), py::arg("values"), py::arg("axis"),
        "Writes values into arr at indices along axis (in place).");
  m.def("put",
        [](const Tensor& x, py::object indices, py::object values, const std::string& mode) {
          Tensor v;
          if (!scalar_value(values, x.dtype(), &v)) v = tensor_from_py(values);
          ops::put(x, tensor_from_py(indices), v, to_mode(mode, "put"));
        },
        py::arg("a"), py::arg("ind"), py::arg("v"), py::arg("mode") = "raise",
        "Writes v (repeated cyclically) into the flattened a at ind (in place).");
  m.def("concatenate",
        [](py::iterable arrays, py::object axis, py::object out, py::object dtype, const std::string& casting) {
          std::vector<Tensor> xs;
          for (auto a : arrays) xs.push_back(tensor_from_py(a));
          if (casting != "same_kind")
            throw Error(Status::NotSupported("concatenate", "only casting='same_kind' is supported"));
          DType d{};
          const DType* dp = nullptr;
          if (!dtype.is_none()) {
            d = dtype_from_py(dtype);
            dp = &d;
          }
          const bool flat = axis.is_none();
          const int64_t ax = flat ? 0 : index_from_py(axis);
          if (!out.is_none()) {
            Tensor o = out.cast<Tensor>();
            return ops::concatenate(xs, ax, flat, dp, &o);
          }
          return ops::concatenate(xs, ax, flat, dp);
        },
        py::arg("arrays"), py::arg("axis") = 0, py::arg("out") = py::none(), py::kw_only(),
        py::arg("dtype") = py::none(), py::arg("casting") = "same_kind",
        "Joins arrays along an existing axis (of the flattened arrays when axis is None).");
  m.def("repeat",
        [](py::object x, py::object repeats, py::object axis) {
          // A Python int count outside int64 is NumPy's OverflowError (2**63 used to wrap to a
          // negative count); sequences and arrays are checked by ops::repeat.
          if (PyLong_Check(repeats.ptr())) (void)index_from_py(repeats, "repeat");
          const bool flat = axis.is_none();
          return ops::repeat(tensor_from_py(x), tensor_from_py(repeats), flat ? 0 : index_from_py(axis), flat);
        },
        py::arg("a"), py::arg("repeats"), py::arg("axis") = py::none(),
        "Each element repeated `repeats` times along axis (flattened when axis is None).");
  m.def("_nonzero",
        [](py::object x) {
          py::list out;
          for (const Tensor& t : ops::nonzero_positions(tensor_from_py(x))) out.append(py::cast(t));
          return py::tuple(out);
        },
        py::arg("x"), "Positions of the nonzero elements, one int64 array per axis.");
  m.def("_copy_into", [](const Tensor& dst, py::object src) { ops::copy_into(dst, tensor_from_py(src)); },
        py::arg("dst"), py::arg("src"), "Copies src (broadcast, cast) into dst on all cores.");
  m.def("_nanvar",
        [](py::object x, py::object axis, py::object dtype, py::object out, double ddof, bool keepdims, bool is_std) {
          ops::Attrs a;
          a.keepdims = keepdims;
          a.ddof = ddof;
          if (!axis.is_none()) {
            a.all_axes = false;
            a.axes = axes_of(axis);
          }
          if (!dtype.is_none()) {
            a.has_dtype = true;
            a.dtype = dtype_from_py(dtype);
          }
          const Tensor t = tensor_from_py(x);
          const ops::OpDef& op = ops::get_op(is_std ? "nanstd" : "nanvar");
          if (!out.is_none()) {
            Tensor o = out.cast<Tensor>();
            ops::call(op, &t, 1, a, &o);
            return o;
          }
          return ops::call(op, &t, 1, a);
        },
        py::arg("x"), py::arg("axis"), py::arg("dtype"), py::arg("out"), py::arg("ddof"), py::arg("keepdims"),
        py::arg("is_std"), "nanvar / nanstd with ddof.");
}

}  // namespace pyasc
