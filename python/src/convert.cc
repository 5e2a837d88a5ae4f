// Integer arguments of pyasc._C (axis, shapes, repeats, reps, offsets) taken
// from Python objects the way NumPy takes them: operator.index semantics, so a
// str/float gives NumPy's TypeError ("'float' object cannot be interpreted as
// an integer") and an int beyond int64 NumPy's OverflowError ("Python int too
// large to convert to C long") or, for a dimension, ValueError ("Maximum
// allowed dimension exceeded") -- never pybind11's "Unable to cast ... to C++
// type '?'" RuntimeError. Every binding converts through these.
#include <string>
#include <vector>

#include "asc/core/status.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::Error;
using asc::ErrorCode;
using asc::Status;

std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

}  // namespace

int64_t index_from_py(py::handle h, const char* what, bool dim) {
  PyObject* o = h.ptr();
  if (!PyLong_Check(o)) {
    if (!PyObject_HasAttrString(o, "__index__"))
      throw Error(Status::Make(ErrorCode::kInvalidDtype, what,
                               "'" + type_name(h) + "' object cannot be interpreted as an integer"));
  }
  py::object v = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!v) throw py::error_already_set();
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow) {
    if (dim)
      throw Error(Status::Make(ErrorCode::kInvalidShape, what,
                               "Maximum allowed dimension exceeded (" + std::string(py::str(v)) + ")"));
    throw Error(Status::Make(ErrorCode::kOverflow, what,
                             "Python int too large to convert to C long (" + std::string(py::str(v)) + ")"));
  }
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(x);
}

std::vector<int64_t> index_list_from_py(py::handle h, const char* what, bool dim) {
  std::vector<int64_t> out;
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    for (auto v : h) out.push_back(index_from_py(v, what, dim));
    return out;
  }
  if (PyLong_Check(h.ptr()) || PyObject_HasAttrString(h.ptr(), "__index__")) {
    out.push_back(index_from_py(h, what, dim));
    return out;
  }
  py::object it = py::reinterpret_steal<py::object>(PyObject_GetIter(h.ptr()));
  if (!it) {
    PyErr_Clear();
    throw Error(Status::Make(ErrorCode::kInvalidDtype, what,
                             "'" + type_name(h) + "' object cannot be interpreted as an integer"));
  }
  for (auto v : h) out.push_back(index_from_py(v, what, dim));
  return out;
}

[[noreturn]] void unsupported_input(py::handle arr) {
  py::object exc = py::module_::import("pyasc.errors").attr("_unsupported_input")(arr);
  py::set_error(py::type::handle_of(exc), exc);
  throw py::error_already_set();
}

}  // namespace pyasc
