// pyasc.ndarray (asc::Tensor) and the op functions of the array namespace.
//
// Argument conversion (NEP 50 weak Python scalars, NumPy arrays shared without
// copies, dtype objects) happens here in C++; the op registry
// (asc/ops/registry.h) does promotion, broadcasting and the work. NumPy's own
// formatting (repr, tolist, item) is reused through a zero-copy NumPy view.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <array>
#include <string>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::DType;
using asc::Error;
using asc::Status;
using asc::Tensor;
namespace ops = asc::ops;

// ------------------------------------------------------------------ dtypes

struct DTypeTable {
  std::array<py::object, asc::kNumDTypes> np;  // numpy.dtype objects
};

const DTypeTable& dtypes() {
  static DTypeTable* t = [] {
    auto* tab = new DTypeTable();
    py::module_ np = py::module_::import("numpy");
    py::object bf16 = py::module_::import("ml_dtypes").attr("bfloat16");
    for (int i = 0; i < asc::kNumDTypes; ++i) {
      const DType d = static_cast<DType>(i);
      tab->np[static_cast<size_t>(i)] =
          d == DType::kBFloat16 ? np.attr("dtype")(bf16) : np.attr("dtype")(asc::dtype_name(d));
    }
    return tab;
  }();
  return *t;
}

py::object np_dtype(DType d) { return dtypes().np[static_cast<size_t>(d)]; }

/// Any dtype-like (numpy.dtype, a scalar type such as numpy.float32 or
/// ml_dtypes.bfloat16, or a name) -> DType; TypeError (kInvalidDtype) otherwise.
DType to_dtype(py::handle obj) {
  const auto& t = dtypes();
  for (int i = 0; i < asc::kNumDTypes; ++i)
    if (obj.ptr() == t.np[static_cast<size_t>(i)].ptr()) return static_cast<DType>(i);
  // numpy.dtype() takes any object's .dtype attribute, but refuses arrays
  // (np.dtype(np.ones(2))): so must a pyasc array (x.astype(y) is an error).
  if (py::isinstance<Tensor>(obj))
    throw Error(Status::TypeError("dtype", "Cannot construct a dtype from an array"));
  py::object d;
  try {
    d = py::module_::import("numpy").attr("dtype")(obj);
  } catch (py::error_already_set&) {
    throw Error(Status::TypeError("dtype", "data type '" + std::string(py::str(obj)) + "' not understood"));
  }
  for (int i = 0; i < asc::kNumDTypes; ++i)
    if (d.equal(t.np[static_cast<size_t>(i)])) return static_cast<DType>(i);
  throw Error(Status::TypeError("dtype", "unsupported dtype " + std::string(py::str(d))));
}

// ------------------------------------------------------------------ conversion

/// Keeps a Python object alive from C++; released with the GIL held.
std::shared_ptr<void> keep_alive(py::object o) {
  return std::shared_ptr<void>(new py::object(std::move(o)), [](void* p) {
    auto* obj = static_cast<py::object*>(p);
    if (!interpreter_alive()) {  // the interpreter is gone: leak rather than crash
      obj->release();
      delete obj;
      return;
    }
    py::gil_scoped_acquire gil;
    delete obj;
  });
}

/// Who may change a NumPy array's bytes (Storage::AccessFlag): read-only when
/// the array is not WRITEABLE; immutable when, besides, every base is a
/// read-only ndarray and the memory belongs to a bytes object (directly or
/// through a read-only memoryview): nothing in Python can write it. Read-only
/// memory owned by an ndarray or a mmap is not immutable: NumPy may make the
/// owner writeable again, a file may be rewritten through another handle.
uint8_t numpy_access(const py::array& arr) {
  namespace npd = py::detail;
  if (npd::array_proxy(arr.ptr())->flags & npd::npy_api::NPY_ARRAY_WRITEABLE_) return 0;
  uint8_t a = asc::Storage::kReadOnly;
  PyObject* base = npd::array_proxy(arr.ptr())->base;
  while (base && npd::npy_api::get().PyArray_Check_(base)) {
    if (npd::array_proxy(base)->flags & npd::npy_api::NPY_ARRAY_WRITEABLE_) return a;
    base = npd::array_proxy(base)->base;
  }
  if (base && PyMemoryView_Check(base)) {
    const Py_buffer* b = PyMemoryView_GET_BUFFER(base);
    if (!b->readonly) return a;
    base = b->obj;
  }
  if (base && PyBytes_CheckExact(base)) a |= asc::Storage::kImmutable;
  return a;
}

/// A NumPy array's memory as a tensor (no copy; the array is kept alive).
/// `private_copy`: the array was made by the conversion itself and nothing
/// else refers to it (Storage::kPrivate: lazy nodes may read it later).
Tensor from_numpy(py::array arr, bool private_copy = false) {
  DType dt;
  try {
    dt = to_dtype(arr.dtype());
  } catch (const Error&) {
    unsupported_input(arr);  // str/bytes/object/datetime data: pyasc.errors decides the class
  }
  if (!arr.dtype().attr("isnative").cast<bool>())
    throw Error(Status::TypeError("from_numpy", "non-native byte order is not supported"));
  const int64_t nd = arr.ndim();
  asc::Shape shape(static_cast<size_t>(nd));
  asc::Strides strides(static_cast<size_t>(nd));
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (int64_t i = 0; i < nd; ++i) {
    shape[static_cast<size_t>(i)] = arr.shape(i);
    strides[static_cast<size_t>(i)] = arr.strides(i);
    if (arr.shape(i) == 0) empty = true;
    const int64_t span = (arr.shape(i) - 1) * arr.strides(i);
    if (span < 0) lo += span;
    else hi += span;
  }
  if (empty) lo = hi = 0;
  auto* data = static_cast<uint8_t*>(const_cast<void*>(arr.data()));
  const size_t extent = empty ? 0 : static_cast<size_t>(hi - lo) + asc::dtype_size(dt);
  const uint8_t access = static_cast<uint8_t>(numpy_access(arr) | (private_copy ? asc::Storage::kPrivate : 0));
  auto storage = asc::Storage::external(data + lo, extent, keep_alive(arr));
  storage->set_access(access);
  return Tensor::view_of(std::move(storage), dt, std::move(shape), std::move(strides), -lo);
}

/// What a NumPy view's base holds: the owner (kept alive) and one export of
/// the storage (Storage::add_export) for as long as the view lives.
struct ExportHold {
  ExportHold(py::object o, std::shared_ptr<asc::Storage> s) : owner(std::move(o)), storage(std::move(s)) {
    storage->add_export();
  }
  ~ExportHold() { storage->release_export(); }
  py::object owner;
  std::shared_ptr<asc::Storage> storage;
};

/// A zero-copy NumPy view of `t` whose base keeps `owner` alive; read-only
/// when t is. While it lives, the storage counts as exported (lazy nodes
/// read it at their recording call: the user may write through the view).
py::array to_numpy(const Tensor& t, py::handle owner) {
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  std::vector<py::ssize_t> strides(t.strides().begin(), t.strides().end());
  void* ptr = t.data();
  py::capsule base(new ExportHold(py::reinterpret_borrow<py::object>(owner), t.storage()),
                   [](void* p) { delete static_cast<ExportHold*>(p); });
  py::array a(py::dtype::from_args(np_dtype(t.dtype())), shape, strides, ptr, base);
  if (!t.writeable()) py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// ------------------------------------------------------------------ buffer protocol
//
// Own bf_getbuffer/bf_releasebuffer slots (instead of pybind11's def_buffer):
// the buffer carries NumPy's read-only flag and counts as an export of the
// storage until it is released.

struct BufferHold {
  Tensor t;
  std::vector<Py_ssize_t> shape, strides;
  std::string format;
  ~BufferHold() { t.storage()->release_export(); }
};

std::string buffer_format(DType d);

int tensor_getbuffer(PyObject* self, Py_buffer* view, int flags) noexcept {
  view->obj = nullptr;
  try {
    const Tensor& t = py::handle(self).cast<const Tensor&>();
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && !t.writeable()) {
      PyErr_SetString(PyExc_BufferError, "[buffer] writable buffer requested for a read-only array");
      return -1;
    }
    const bool c = t.is_contiguous(), f = t.is_f_contiguous();
    if (((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c) ||
        ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !f) ||
        ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c && !f) ||
        ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c)) {
      PyErr_SetString(PyExc_BufferError, "[buffer] the array is not contiguous in the requested order");
      return -1;
    }
    auto hold = std::make_unique<BufferHold>();
    hold->t = t;
    hold->format = buffer_format(t.dtype());
    hold->shape.assign(t.shape().begin(), t.shape().end());
    hold->strides.assign(t.strides().begin(), t.strides().end());
    view->buf = t.data();
    t.storage()->add_export();
    view->len = static_cast<Py_ssize_t>(t.nbytes());
    view->itemsize = static_cast<Py_ssize_t>(t.itemsize());
    view->readonly = t.writeable() ? 0 : 1;
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? const_cast<char*>(hold->format.c_str()) : nullptr;
    view->ndim = static_cast<int>(t.ndim());
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? hold->shape.data() : nullptr;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? hold->strides.data() : nullptr;
    view->suboffsets = nullptr;
    view->internal = hold.release();
    view->obj = self;
    Py_INCREF(self);
    return 0;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return -1;
}

void tensor_releasebuffer(PyObject*, Py_buffer* view) noexcept { delete static_cast<BufferHold*>(view->internal); }

bool is_tensor(py::handle h) {
  // Exact-type fast path: pybind11's isinstance looks the type up in a registry.
  static PyTypeObject* exact = reinterpret_cast<PyTypeObject*>(py::type::of<Tensor>().ptr());
  return Py_TYPE(h.ptr()) == exact || py::isinstance<Tensor>(h);
}

/// Python scalars are "weak" (NEP 50). NumPy scalars (np.float32(1)) are not.
/// A Python int outside int64 sets *big (s is then a placeholder int) where
/// the caller can place it (operands: next to uint64 or a float dtype);
/// without `big` it raises OverflowError.
bool weak_scalar(py::handle h, ops::Scalar* s, bool* big = nullptr) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) {
    *s = ops::Scalar::from_bool(o == Py_True);
    return true;
  }
  if (PyLong_CheckExact(o) || (PyLong_Check(o) && !PyObject_HasAttrString(o, "dtype"))) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow && !big)
      throw Error(Status::Make(asc::ErrorCode::kOverflow, "asarray",
                               "Python integer " + std::string(py::str(h)) + " out of bounds for int64"));
    if (overflow) *big = true;
    *s = ops::Scalar::from_int(overflow ? 0 : v);
    return true;
  }
  if (PyFloat_CheckExact(o) || (PyFloat_Check(o) && !PyObject_HasAttrString(o, "dtype"))) {
    *s = ops::Scalar::from_float(PyFloat_AsDouble(o));
    return true;
  }
  if (PyComplex_CheckExact(o) || (PyComplex_Check(o) && !PyObject_HasAttrString(o, "dtype"))) {
    *s = ops::Scalar::from_complex(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
    return true;
  }
  return false;
}

/// Any array-like -> tensor (NumPy arrays shared, everything else through numpy.asarray).
Tensor to_tensor(py::handle h) {
  if (is_tensor(h)) return h.cast<Tensor>();
  ops::Scalar s;
  bool big = false;  // a Python int outside int64: NumPy's asarray makes it uint64 (or refuses)
  if (weak_scalar(h, &s, &big) && !big) return ops::scalar_tensor(s, ops::default_scalar_dtype(s.kind));
  if (py::isinstance<py::array>(h)) return from_numpy(py::reinterpret_borrow<py::array>(h));
  py::object a;
  try {
    a = py::module_::import("numpy").attr("asarray")(h);
  } catch (py::error_already_set& e) {
    // NumPy's ValueError (a ragged list: "setting an array element with a sequence...") keeps its
    // class and text but is raised as pyasc's error (AscendValueError, a ValueError), as every
    // other conversion failure is
    if (!e.matches(PyExc_ValueError)) throw;
    const std::string msg = py::str(e.value()).cast<std::string>();
    throw Error(Status::Make(asc::ErrorCode::kInvalidParam, "asarray", msg));
  }
  // A new array only this conversion refers to (a list's values): private.
  const bool mine = Py_REFCNT(a.ptr()) == 1 && py::detail::array_proxy(a.ptr())->base == nullptr;
  return from_numpy(a.cast<py::array>(), mine);
}

/// A Python int outside int64 as a weak operand of dtype `d`, as NumPy 2:
/// a float/complex dtype takes its value (float16 + 2**70 is inf), uint64
/// takes [2^63, 2^64), anything else is OverflowError.
Tensor big_int_operand(py::handle h, DType d, const std::string& op) {
  if (asc::is_inexact(d)) {
    const double v = PyLong_AsDouble(h.ptr());  // OverflowError past DBL_MAX, as NumPy
    if (v == -1.0 && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();
      PyErr_Clear();  // (as pyasc's OverflowError, naming the operation)
      throw Error(Status::Make(asc::ErrorCode::kOverflow, op,
                               "int too large to convert to float (a Python int of " +
                                   std::to_string(py::str(h).cast<std::string>().size()) + " digits for " +
                                   asc::dtype_name(d) + ")"));
    }
    return ops::scalar_tensor(ops::Scalar::from_float(v), d, op);
  }
  if (d == DType::kUInt64) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(h.ptr());
    if (!PyErr_Occurred()) return ops::scalar_constant(ops::Scalar::from_int(static_cast<int64_t>(u)), d);
    PyErr_Clear();
  }
  throw Error(Status::Make(asc::ErrorCode::kOverflow, op,
                           "Python integer " + std::string(py::str(h)) + " out of bounds for " + asc::dtype_name(d)));
}

/// The float input dtype of `op`'s loop for operand i (a weak int whose NEP 50
/// dtype, next to `strong`, cannot hold it), or kBool when the loop is not a
/// float one (then the int's OverflowError stands) or there is no `op`.
DType float_loop_dtype(const ops::OpDef* op, const bool* weak, const ops::Scalar* scal, DType strong,
                       const Tensor* ts, int n, int i) {
  if (!op || op->fusion != ops::FusionClass::kElementwise || !op->dtype_rule || scal[i].kind != ops::ScalarKind::kInt ||
      n != op->arity)
    return DType::kBool;
  DType in[3];
  for (int j = 0; j < n; ++j) in[j] = weak[j] ? ops::weak_scalar_dtype(strong, scal[j].kind) : ts[j].dtype();
  ops::LoopTypes lt;
  if (!op->dtype_rule(*op, in, {}, &lt).ok() || !asc::is_inexact(lt.in[i])) return DType::kBool;
  return lt.in[i];
}

/// Operands of an op: tensors as they are, weak scalars take the dtype NEP 50
/// gives them next to the strongest tensor dtype among the operands (0-d
/// constants held by value, no pool memory). Fills ts[0..n).
/// With `loop_op`: a weak Python int that does not fit the integer dtype NEP 50
/// gives it is converted to the loop's input dtype instead when that loop is a
/// float one, as NumPy's ufuncs convert it (np.arctan2(int8_array, 300): the
/// float16 loop takes 300; np.add(int8_array, 300) still overflows).
void operands(const py::handle* args, int n, Tensor* ts, const std::string& op, const ops::OpDef* loop_op = nullptr) {
  ops::Scalar scal[3];
  bool weak[3] = {false, false, false};
  bool big[3] = {false, false, false};
  bool have_strong = false;
  DType strong = DType::kBool;
  for (int i = 0; i < n; ++i) {
    if (is_tensor(args[i])) {
      ts[i] = py::reinterpret_borrow<py::object>(args[i]).cast<const Tensor&>();
    } else {
      weak[i] = weak_scalar(args[i], &scal[i], &big[i]);
      if (weak[i]) continue;
      ts[i] = to_tensor(args[i]);
    }
    strong = have_strong ? ops::promote_or_throw(strong, ts[i].dtype(), op) : ts[i].dtype();
    have_strong = true;
  }
  // where() is no ufunc: NumPy converts its Python float as asarray does
  // (rounded once), not through weak_scalar_value's float32 step.
  const bool ufunc = op != "where";
  for (int i = 0; i < n; ++i)
    if (weak[i]) {
      const DType d =
          have_strong ? ops::weak_scalar_dtype(strong, scal[i].kind) : ops::default_scalar_dtype(scal[i].kind);
      try {
        ts[i] = big[i] ? big_int_operand(args[i], d, op)
                       : ops::scalar_tensor(ufunc ? ops::weak_scalar_value(scal[i], d) : scal[i], d, op);
      } catch (const Error&) {
        const DType ld = float_loop_dtype(loop_op, weak, scal, have_strong ? strong : d, ts, n, i);
        if (ld == DType::kBool) throw;
        ts[i] = big[i] ? big_int_operand(args[i], ld, op) : ops::scalar_tensor(scal[i], ld, op);
      }
    }
}

/// NumPy 2's comparison of an integer array with a Python int outside its
/// dtype's range (int8_array == 300, uint8_array < -1): no error, the answer
/// is known from the sign alone. Sets *r and returns true when that applies.
bool compare_out_of_range(const ops::OpDef& op, const py::handle* args, Tensor* r) {
  static const ops::OpDef* const kCmp[6] = {ops::find_op("equal"), ops::find_op("not_equal"), ops::find_op("less"),
                                            ops::find_op("less_equal"), ops::find_op("greater"),
                                            ops::find_op("greater_equal")};
  int which = -1;
  for (int k = 0; k < 6; ++k)
    if (&op == kCmp[k]) which = k;
  if (which < 0) return false;
  const int ti = is_tensor(args[0]) ? 0 : 1;  // the array operand; the other must be a Python int
  const py::handle a = args[ti], b = args[1 - ti];
  if (!is_tensor(a) || is_tensor(b) || PyBool_Check(b.ptr()) || !PyLong_Check(b.ptr()) ||
      PyObject_HasAttrString(b.ptr(), "dtype"))
    return false;
  const Tensor& t = py::reinterpret_borrow<py::object>(a).cast<const Tensor&>();
  if (!asc::is_integer(t.dtype())) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(b.ptr(), &overflow);
  const bool is_signed = asc::dtype_traits(t.dtype()).kind == asc::DTypeKind::kSignedInt;
  const int bits = static_cast<int>(asc::dtype_size(t.dtype())) * 8;
  int side = 0;  // +1: the int is above the dtype's range, -1: below
  if (overflow) {
    side = overflow;
    if (overflow > 0 && t.dtype() == DType::kUInt64) {
      PyLong_AsUnsignedLongLong(b.ptr());
      if (!PyErr_Occurred()) side = 0;
      PyErr_Clear();
    }
  } else if (is_signed) {
    if (bits < 64 && v >= (1LL << (bits - 1))) side = 1;
    if (bits < 64 && v < -(1LL << (bits - 1))) side = -1;
  } else {
    if (v < 0) side = -1;
    else if (bits < 64 && v >= (1LL << bits)) side = 1;
  }
  if (side == 0) return false;
  // array OP int with the int above every element: <, <=, != true. Mirrored
  // for an int below, and again when the int is the left operand.
  if (ti == 1) side = -side;
  bool value;
  switch (which) {
    case 0: value = false; break;
    case 1: value = true; break;
    case 2: case 3: value = side > 0; break;
    default: value = side < 0; break;
  }
  *r = ops::full(t.shape(), ops::Scalar::from_bool(value), DType::kBool);
  return true;
}

std::vector<Tensor> operands(const std::vector<py::handle>& args, const std::string& op) {
  if (args.size() > 3) throw Error(Status::Invalid(op, "at most 3 operands"));
  std::vector<Tensor> ts(args.size());
  operands(args.data(), static_cast<int>(args.size()), ts.data(), op);
  return ts;
}

/// Whether `h` can be an operand of an operator (else NotImplemented).
bool operand_like(py::handle h) {
  PyObject* o = h.ptr();
  return is_tensor(h) || PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) ||
         py::isinstance<py::array>(h) ||
         PyList_Check(o) || PyTuple_Check(o) || PyObject_HasAttrString(o, "__array_interface__");
}

// ------------------------------------------------------------------ op calls

/// A lone Python int outside int64 as the operand of a unary ufunc: NumPy's
/// asarray makes it uint64 when it fits (np.sin(2**63)), else an object
/// array, which has no loop: NumPy's TypeError. Returns false for any other
/// operand (the usual NEP 50 conversion applies).
bool unary_big_int(const ops::OpDef& op, py::handle h, Tensor* t) {
  PyObject* o = h.ptr();
  if (!PyLong_Check(o) || PyBool_Check(o) || PyObject_HasAttrString(o, "dtype")) return false;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o, &overflow);
  if (!overflow) return false;
  const unsigned long long u = PyLong_AsUnsignedLongLong(o);
  if (!PyErr_Occurred()) {
    *t = ops::scalar_constant(ops::Scalar::from_int(static_cast<int64_t>(u)), DType::kUInt64);
    return true;
  }
  PyErr_Clear();
  throw Error(Status::TypeError(op.name, "loop of ufunc does not support argument 0 of type int which has no "
                                         "callable " + op.name + " method (" + std::string(py::str(h)) +
                                         " is outside int64 and uint64: NumPy makes it an object array)"));
}

py::object ufunc_keywords(const ops::OpDef& op, py::tuple args, py::dict kwargs);

py::object call_op(const ops::OpDef& op, std::initializer_list<py::handle> args, py::handle out) {
  Tensor ts[3];
  const int n = static_cast<int>(args.size());
  // ldexp with a Python scalar mantissa: NumPy picks the loop from its table by the exponent's
  // dtype (a weak int with an int64 exponent runs 'el->e', float16; a uint64 exponent has no
  // loop: TypeError before the int is converted), which pyasc._ufunc.call reproduces with
  // NumPy's own resolve_dtypes
  static const ops::OpDef* const kLdexpOp = ops::find_op("ldexp");
  auto big_int = [](py::handle h) {  // a Python int outside int64
    if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) return false;
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    return overflow != 0;
  };
  // (an exponent outside int64: NumPy finds the loop first -- complex x1 has none, its TypeError --
  // then converts it to a C long, OverflowError)
  if (&op == kLdexpOp && n == 2 && ((!is_tensor(args.begin()[0]) && is_tensor(args.begin()[1])) ||
                                    big_int(args.begin()[1]))) {
    py::dict kw;
    if (!out.is_none()) kw["out"] = out;
    return ufunc_keywords(op, py::make_tuple(args.begin()[0], args.begin()[1]), kw);
  }
  if (n == 1 && op.fusion == ops::FusionClass::kElementwise && unary_big_int(op, *args.begin(), &ts[0])) {
    if (out.is_none()) return py::cast(ops::call(op, ts, 1));
    if (!is_tensor(out)) throw Error(Status::TypeError(op.name, "out must be a pyasc.ndarray"));
    Tensor o = out.cast<Tensor>();
    ops::call(op, ts, 1, {}, &o);
    return py::reinterpret_borrow<py::object>(out);
  }
  if (n == 2 && compare_out_of_range(op, args.begin(), &ts[0])) {
    if (out.is_none()) return py::cast(ts[0]);
    if (!is_tensor(out)) throw Error(Status::TypeError(op.name, "out must be a pyasc.ndarray"));
    Tensor o = out.cast<Tensor>();
    o.copy_from(ops::cast(ts[0], o.dtype()));
    return py::reinterpret_borrow<py::object>(out);
  }
  operands(args.begin(), n, ts, op.name, &op);
  // ldexp's exponent is an integer operand: a Python int there stays int64
  // (NumPy's 'el->e' loops) instead of taking x1's float dtype.
  static const ops::OpDef* const kLdexp = ops::find_op("ldexp");
  if (&op == kLdexp && n == 2 && !is_tensor(args.begin()[1]) && PyLong_Check(args.begin()[1].ptr())) {
    int overflow = 0;  // NumPy converts the exponent to a C long
    PyLong_AsLongLongAndOverflow(args.begin()[1].ptr(), &overflow);
    if (overflow)
      throw Error(Status::Make(asc::ErrorCode::kOverflow, op.name,
                               "Python int too large to convert to C long (" +
                                   std::string(py::str(args.begin()[1])) + " as the exponent)"));
    ts[1] = to_tensor(args.begin()[1]);
  }
  if (!out.is_none()) {
    if (!is_tensor(out)) throw Error(Status::TypeError(op.name, "out must be a pyasc.ndarray"));
    Tensor o = out.cast<Tensor>();
    ops::call(op, ts, n, {}, &o);
    return py::reinterpret_borrow<py::object>(out);
  }
  return py::cast(ops::call(op, ts, n));
}

/// A ufunc call the fast bindings do not take (NumPy's keywords, out= as a
/// tuple or positional): pyasc._ufunc.call(name, nin, args, kwargs), the one
/// implementation of NumPy's ufunc keyword semantics.
py::object ufunc_keywords(const ops::OpDef& op, py::tuple args, py::dict kwargs) {
  // Leaked on purpose: no Python object is destroyed after the interpreter.
  static py::object* const impl = new py::object(py::module_::import("pyasc._ufunc").attr("call"));
  return (*impl)(op.name, op.arity, args, kwargs);
}

/// In-place operator: the result is cast back to self's dtype (same_kind rule).
py::object inplace_op(const ops::OpDef& op, py::object self, py::handle other) {
  if (!operand_like(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  Tensor t = self.cast<Tensor>();
  Tensor ts[2];
  const py::handle args[2] = {self, other};
  operands(args, 2, ts, op.name);
  ts[0] = t;
  ops::call(op, ts, 2, {}, &t);
  return self;
}

// ------------------------------------------------------------------ fast slots
//
// The binary operators and comparisons are also installed directly in the
// type's number/richcompare slots: `a + b` then calls straight into C++
// instead of looking up `__add__`/`__radd__` and going through pybind11's
// argument dispatcher (the per-op overhead of small arrays). The dunder
// methods stay defined for explicit calls.

enum FastBinary {
  kFastAdd, kFastSub, kFastMul, kFastDiv, kFastFloorDiv, kFastMod, kFastPow,
  kFastAnd, kFastOr, kFastXor, kFastLshift, kFastRshift, kNumFastBinary
};
const ops::OpDef* g_fast_binary[kNumFastBinary];
const ops::OpDef* g_fast_compare[6];  // indexed by Py_LT, Py_LE, Py_EQ, Py_NE, Py_GT, Py_GE

PyObject* translate_current_exception() {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();
  }
  return nullptr;
}

template <int kWhich>
PyObject* fast_binary(PyObject* a, PyObject* b) noexcept {
  try {
    // Python calls this for `a op b` when either operand is an ndarray (the
    // reflected case with a first): the operands are already in order.
    if (!operand_like(a) || !operand_like(b)) Py_RETURN_NOTIMPLEMENTED;
    return call_op(*g_fast_binary[kWhich], {a, b}, py::none()).release().ptr();
  } catch (...) {
    return translate_current_exception();
  }
}

PyObject* fast_power(PyObject* a, PyObject* b, PyObject* mod) noexcept {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return fast_binary<kFastPow>(a, b);
}

/// Whether `other` is a NumPy array of strings (kind 'U'/'S'), or a list/tuple NumPy converts to
/// one; its shape then goes to `shape`. A conversion NumPy itself refuses is not one (false).
bool string_array(py::handle other, asc::Shape* shape) {
  py::object a;
  try {
    a = py::isinstance<py::array>(other) ? py::reinterpret_borrow<py::object>(other)
                                         : py::module_::import("numpy").attr("asarray")(other);
  } catch (py::error_already_set&) {
    return false;
  }
  const char kind = py::cast<py::array>(a).dtype().kind();
  if (kind != 'U' && kind != 'S') return false;
  shape->clear();
  for (auto d : a.attr("shape")) shape->push_back(py::cast<int64_t>(d));
  return true;
}

PyObject* fast_richcompare(PyObject* self, PyObject* other, int cmp) noexcept {
  try {
    const bool eq_ne = cmp == Py_EQ || cmp == Py_NE;
    // NumPy compares numbers elementwise with None (an object) and with strings (no number equals a
    // str/bytes, or an element of an array or list of them): all False for ==, all True for !=,
    // in the broadcast shape (an incompatible shape is its ValueError)
    auto unequal = [&](const asc::Shape& other_shape) {
      const Tensor& t = py::handle(self).cast<const Tensor&>();
      // ml_dtypes' bfloat16 has no equal/not_equal loop with a str or bytes array (NumPy refuses the
      // comparison; None and dtype objects are still all-unequal there)
      if (t.dtype() == DType::kBFloat16 && other != Py_None && !py::isinstance<py::dtype>(py::handle(other)))
        throw Error(Status::TypeError(g_fast_compare[cmp]->name,
                                      "ufunc '" + g_fast_compare[cmp]->name + "' not supported for the input "
                                      "types (bfloat16 and a str/bytes operand), and the inputs could not be safely "
                                      "coerced to any supported types according to the casting rule ''safe''"));
      Tensor r = Tensor::empty(asc::broadcast_shapes(t.shape(), other_shape, g_fast_compare[cmp]->name.c_str()),
                               DType::kBool);
      ops::fill(r, ops::Scalar::from_bool(cmp == Py_NE));
      return py::cast(r).release().ptr();
    };
    if (eq_ne && (other == Py_None || PyUnicode_Check(other) || PyBytes_Check(other))) return unequal(asc::Shape{});
    // a dtype object too (NumPy compares it elementwise as an object: all False); returning
    // NotImplemented let np.dtype.__eq__ read our .dtype attribute (`a == np.dtype(a.dtype)` was True)
    if (eq_ne && py::isinstance<py::dtype>(py::handle(other))) return unequal(asc::Shape{});
    if (!operand_like(other)) Py_RETURN_NOTIMPLEMENTED;
    asc::Shape sshape;
    if (eq_ne && py::isinstance<py::array>(other) && string_array(other, &sshape)) return unequal(sshape);
    try {
      return call_op(*g_fast_compare[cmp], {self, other}, py::none()).release().ptr();
    } catch (...) {
      // a list or tuple of strings (or mixed with numbers: NumPy's str array) -- tried only after the
      // numeric conversion failed, so the common call pays nothing
      if (!eq_ne || !(PyList_Check(other) || PyTuple_Check(other)) || !string_array(other, &sshape)) throw;
    }
    return unequal(sshape);
  } catch (...) {
    return translate_current_exception();
  }
}

void install_fast_slots(py::handle cls) {
  g_fast_binary[kFastAdd] = &ops::get_op("add");
  g_fast_binary[kFastSub] = &ops::get_op("subtract");
  g_fast_binary[kFastMul] = &ops::get_op("multiply");
  g_fast_binary[kFastDiv] = &ops::get_op("true_divide");
  g_fast_binary[kFastFloorDiv] = &ops::get_op("floor_divide");
  g_fast_binary[kFastMod] = &ops::get_op("remainder");
  g_fast_binary[kFastPow] = &ops::get_op("power");
  g_fast_binary[kFastAnd] = &ops::get_op("bitwise_and");
  g_fast_binary[kFastOr] = &ops::get_op("bitwise_or");
  g_fast_binary[kFastXor] = &ops::get_op("bitwise_xor");
  g_fast_binary[kFastLshift] = &ops::get_op("left_shift");
  g_fast_binary[kFastRshift] = &ops::get_op("right_shift");
  g_fast_compare[Py_LT] = &ops::get_op("less");
  g_fast_compare[Py_LE] = &ops::get_op("less_equal");
  g_fast_compare[Py_EQ] = &ops::get_op("equal");
  g_fast_compare[Py_NE] = &ops::get_op("not_equal");
  g_fast_compare[Py_GT] = &ops::get_op("greater");
  g_fast_compare[Py_GE] = &ops::get_op("greater_equal");
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  PyNumberMethods* nb = type->tp_as_number;
  nb->nb_add = &fast_binary<kFastAdd>;
  nb->nb_subtract = &fast_binary<kFastSub>;
  nb->nb_multiply = &fast_binary<kFastMul>;
  nb->nb_true_divide = &fast_binary<kFastDiv>;
  nb->nb_floor_divide = &fast_binary<kFastFloorDiv>;
  nb->nb_remainder = &fast_binary<kFastMod>;
  nb->nb_power = &fast_power;
  nb->nb_and = &fast_binary<kFastAnd>;
  nb->nb_or = &fast_binary<kFastOr>;
  nb->nb_xor = &fast_binary<kFastXor>;
  nb->nb_lshift = &fast_binary<kFastLshift>;
  nb->nb_rshift = &fast_binary<kFastRshift>;
  type->tp_richcompare = &fast_richcompare;
  PyType_Modified(type);
}

/// keepdims= as NumPy reads it: a bool or anything with __index__ (an int, an
/// integer 0-d array); TypeError otherwise (keepdims=nan, keepdims=[1]).
bool keepdims_from_py(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return o == Py_True;
  if (PyFloat_Check(o)) throw Error(Status::TypeError("keepdims", "integer argument expected, got float"));
  PyObject* i = PyNumber_Index(o);
  if (!i) {
    PyErr_Clear();
    throw Error(Status::TypeError("keepdims", std::string("'") + Py_TYPE(o)->tp_name +
                                                  "' object cannot be interpreted as an integer"));
  }
  const int r = PyObject_IsTrue(i);
  Py_DECREF(i);
  return r == 1;
}

ops::Attrs reduce_attrs(py::handle axis, bool keepdims, py::handle dtype) {
  ops::Attrs a;
  a.keepdims = keepdims;
  if (!axis.is_none()) {
    a.all_axes = false;
    // NumPy's reduction axis converter (PyArray_AxisConverter) refuses bools,
    // though swapaxes/expand_dims/moveaxis take them as 0/1.
    auto one = [](py::handle v) {
      if (PyBool_Check(v.ptr()))
        throw Error(Status::Make(asc::ErrorCode::kInvalidDtype, "axis", "an integer is required for the axis"));
      return index_from_py(v);
    };
    if (PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr())) {
      for (auto v : axis) a.axes.push_back(one(v));
    } else {
      a.axes.push_back(one(axis));
    }
  }
  if (!dtype.is_none()) {
    a.has_dtype = true;
    a.dtype = to_dtype(dtype);
  }
  return a;
}

py::object reduce_op(const ops::OpDef& op, py::handle x, py::handle axis, bool keepdims, py::handle dtype,
                     py::handle out) {
  // argmax/argmin/cumsum/cumprod take one axis: NumPy refuses a tuple, even (1,).
  if ((PyTuple_Check(axis.ptr()) || PyList_Check(axis.ptr())) &&
      (op.name == "argmax" || op.name == "argmin" || op.name == "cumsum" || op.name == "cumprod"))
    throw Error(Status::TypeError(op.name, std::string("'") + Py_TYPE(axis.ptr())->tp_name +
                                               "' object cannot be interpreted as an integer"));
  Tensor t = to_tensor(x);
  ops::Attrs a = reduce_attrs(axis, keepdims, dtype);
  // NumPy's PyArray_CheckAxis reads a 0-d array as 1-d for these (argmin(5.0, axis=0) is 0,
  // cumsum(5.0, axis=-1) is [5.0]); an argmax/argmin keeps the 0-d shape with keepdims
  const bool one_axis = op.name == "argmax" || op.name == "argmin" || op.name == "cumsum" || op.name == "cumprod";
  if (one_axis && t.ndim() == 0 && !axis.is_none()) {
    t = t.reshape(asc::Shape{1});
    if (keepdims && (op.name == "argmax" || op.name == "argmin") && out.is_none()) {
      a.keepdims = false;
      return py::cast(ops::call(op, &t, 1, a));
    }
  }
  if (!out.is_none()) {
    Tensor o = out.cast<Tensor>();
    ops::call(op, &t, 1, a, &o);
    return py::reinterpret_borrow<py::object>(out);
  }
  return py::cast(ops::call(op, &t, 1, a));
}

// ------------------------------------------------------------------ shapes, indices

/// One dimension: a Python int beyond int64 is NumPy's ValueError ("Maximum
/// allowed dimension exceeded"), not pybind11's cast error.
int64_t to_dim(py::handle v) { return index_from_py(v, "shape", /*dim=*/true); }

/// True for a Python bool or a numpy.bool_: NumPy refuses both as a shape
/// (np.ones(True) is its TypeError, not the shape (1,)).
bool is_bool_like(py::handle h) {
  if (PyBool_Check(h.ptr())) return true;
  static PyObject* np_bool = py::object(py::module_::import("numpy").attr("bool_")).release().ptr();
  return PyObject_TypeCheck(h.ptr(), reinterpret_cast<PyTypeObject*>(np_bool)) != 0;
}

asc::Shape to_shape(py::handle h) {
  asc::Shape s;
  if (is_bool_like(h))
    throw Error(Status::TypeError("shape", "expected a sequence of integers or a single integer, got '" +
                                               std::string(py::str(h)) + "'"));
  if (PyLong_Check(h.ptr()) || PyObject_HasAttrString(h.ptr(), "__index__")) {
    if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr())) {
      s.push_back(to_dim(h));
      return s;
    }
  }
  // An array or a sequence longer than NumPy's 64 dimensions is refused before it is
  // iterated (a huge broadcast view as the shape); a non-integer array is a TypeError.
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    if (!asc::is_integer(t.dtype()))
      throw Error(Status::TypeError("shape", std::string("expected a sequence of integers or a single integer, got an "
                                                         "array of dtype ") + asc::dtype_name(t.dtype())));
  }
  if (PySequence_Check(h.ptr())) {
    const Py_ssize_t n = PySequence_Size(h.ptr());
    if (n < 0) PyErr_Clear();
    if (n > 64)
      throw Error(Status::Invalid("shape", "maximum supported dimension for an ndarray is currently 64, found " +
                                               std::to_string(n)));
  }
  for (auto v : h) {
    if (is_bool_like(v)) throw Error(Status::TypeError("shape", "an integer is required (got a bool in the shape)"));
    s.push_back(to_dim(v));
  }
  return s;
}

py::tuple to_tuple(const asc::DimVector& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = py::int_(v[i]);
  return t;
}

/// A ComplexWarning, as NumPy's complex -> real casts give (none for bool;
/// ml_dtypes 0.7 warns for bfloat16 too).
void warn_complex_to(DType d) {
  if (asc::is_complex(d) || d == DType::kBool) return;
  py::object w = py::module_::import("numpy").attr("exceptions").attr("ComplexWarning");
  if (PyErr_WarnEx(w.ptr(), "Casting complex values to real discards the imaginary part", 1) < 0)
    throw py::error_already_set();
}

/// A complex value of any form: Python/NumPy complex scalar, complex array.
bool is_complex_value(py::handle v) {
  if (is_tensor(v)) return asc::is_complex(v.cast<const Tensor&>().dtype());
  if (PyObject_HasAttrString(v.ptr(), "dtype")) {  // NumPy arrays and scalars (others: no kind, not complex)
    py::object dt = py::getattr(v, "dtype");
    return py::hasattr(dt, "kind") && py::str(dt.attr("kind")).cast<std::string>() == "c";
  }
  return PyComplex_Check(v.ptr());
}

/// NumPy's rules for complex values converted to real dtype `d` (x[k] = v,
/// asarray(v, dtype=d)): a Python complex (alone or inside a list/tuple)
/// raises TypeError, a complex array or NumPy scalar is cast with
/// ComplexWarning. Complex and bool targets take anything.
void check_complex_to_real(DType d, py::handle v, const char* op) {
  PyObject* o = v.ptr();
  if (asc::is_complex(d) || d == DType::kBool || PyFloat_CheckExact(o) || PyLong_CheckExact(o)) return;
  const bool has_dtype = PyObject_HasAttrString(o, "dtype");
  bool py_complex = PyComplex_Check(o) && !has_dtype;
  if (!py_complex && !has_dtype && (PyList_Check(o) || PyTuple_Check(o))) {  // only sequences pay for the probe
    try {
      py_complex = py::str(py::module_::import("numpy").attr("asarray")(v).attr("dtype").attr("kind"))
                       .cast<std::string>() == "c";
    } catch (py::error_already_set&) {  // ragged etc.: the conversion itself reports it
    }
  }
  if (py_complex)
    throw Error(Status::TypeError(op, std::string(asc::is_integer(d) ? "int()" : "float()") +
                                          " argument must be a real number, not 'complex' (converting to " +
                                          asc::dtype_name(d) + ")"));
  if (has_dtype && is_complex_value(v)) warn_complex_to(d);
}

/// asarray/array of a Python object (scalar, nested list, buffer) with an
/// explicit dtype: converted by numpy.asarray(obj, dtype) so Python values that
/// do not fit raise as NumPy 2 does (asarray([300], dtype='int8') and
/// array(-1, dtype='uint8'): OverflowError; a float NaN into an integer dtype:
/// ValueError) instead of wrapping through an int64/float64 intermediate.
/// Tensors and NumPy arrays are cast (NumPy's astype rules) by the caller.
bool python_values_as(py::handle obj, DType d, const char* op, Tensor* out) {
  if (is_tensor(obj) || py::isinstance<py::array>(obj)) return false;
  py::object a;
  try {
    a = py::module_::import("numpy").attr("asarray")(obj, np_dtype(d));
  } catch (py::error_already_set& e) {
    const bool of = e.matches(PyExc_OverflowError), val = e.matches(PyExc_ValueError);
    if (!of && !val) throw;
    const std::string msg = py::str(e.value()).cast<std::string>();
    throw Error(Status::Make(of ? asc::ErrorCode::kOverflow : asc::ErrorCode::kInvalidParam, op,
                             msg + " (converting to " + asc::dtype_name(d) + ")"));
  }
  const bool mine = Py_REFCNT(a.ptr()) == 1 && py::detail::array_proxy(a.ptr())->base == nullptr;
  *out = from_numpy(a.cast<py::array>(), mine);
  return true;
}

// Creation helpers.
Tensor full_like_value(const asc::Shape& shape, py::handle value, py::handle dtype) {
  ops::Scalar s;
  bool big = false;
  if (!dtype.is_none() && is_complex_value(value)) warn_complex_to(to_dtype(dtype));  // NumPy 2: cast, warn
  if (weak_scalar(value, &s, &big)) {
    const DType d = dtype.is_none() ? ops::default_scalar_dtype(s.kind) : to_dtype(dtype);
    Tensor t = Tensor::empty(shape, d);
    if (big) t.copy_from(big_int_operand(value, d, "full"));  // full(2, 2**64 - 1, uint64)
    else ops::fill(t, s);
    return t;
  }
  Tensor v = to_tensor(value);
  const DType d = dtype.is_none() ? v.dtype() : to_dtype(dtype);
  // NumPy's full/full_like copyto: the fill is broadcast to the result's shape before it is cast
  // (a 2**62-element view into shape (0,) is the broadcast ValueError, not the cast's allocation)
  (void)v.broadcast_to(shape);
  Tensor t = Tensor::empty(shape, d);
  t.copy_from(ops::cast(v, d));
  return t;
}

// ------------------------------------------------------------------ complex


/// astype with NumPy's ComplexWarning when a complex -> real cast drops the
/// imaginary part.
Tensor astype_warn(const Tensor& t, DType d, bool copy) {
  if (asc::is_complex(t.dtype())) warn_complex_to(d);  // (NumPy does not warn for bool)
  return ops::cast(t, d, copy);
}

/// x.real / x.imag: strided views of a complex array's parts (writes show in
/// x); of a real array, x itself and a new read-only-by-convention zero array.
// axis=None squeezes every length-1 axis and an empty tuple none, as NumPy;
// Tensor::squeeze reads an empty list as "all", so () returns a plain view here.
Tensor squeeze_axes(const Tensor& t, py::handle axis) {
  if (axis.is_none()) return t.squeeze();
  // NumPy takes an int or a tuple of ints; a list is its TypeError.
  if (PyList_Check(axis.ptr()))
    throw Error(Status::TypeError("squeeze", "'list' object cannot be interpreted as an integer"));
  const std::vector<int64_t> axes = index_list_from_py(axis);
  return axes.empty() ? Tensor(t) : t.squeeze(axes);
}

Tensor complex_part(const Tensor& t, bool imag) {
  if (!asc::is_complex(t.dtype())) {
    if (!imag) return t;
    Tensor z = Tensor::empty(t.shape(), t.dtype());
    ops::fill(z, ops::Scalar::from_int(0));
    z.set_writeable(false);  // as NumPy's imag of a real array
    return z;
  }
  const DType part = asc::complex_part_dtype(t.dtype());
  Tensor v = Tensor::view_of(t.storage(), part, t.shape(), t.strides(),
                             t.offset() + (imag ? static_cast<int64_t>(asc::dtype_size(part)) : 0));
  if (!t.writeable()) v.set_writeable(false);
  return v;
}

/// PEP 3118 format of a dtype (complex: "Zf"/"Zd"); bfloat16 has none.
std::string buffer_format(DType d) {
  switch (d) {
    case DType::kBool: return "?";
    case DType::kInt8: return "b";
    case DType::kInt16: return "h";
    case DType::kInt32: return "i";
    // NumPy's int64/uint64 are C long on LP64 platforms: 'q' would come back as
    // numpy.longlong, an equal dtype with a different repr.
    case DType::kInt64: return sizeof(long) == 8 ? "l" : "q";
    case DType::kUInt8: return "B";
    case DType::kUInt16: return "H";
    case DType::kUInt32: return "I";
    case DType::kUInt64: return sizeof(long) == 8 ? "L" : "Q";
    case DType::kFloat16: return "e";
    case DType::kFloat32: return "f";
    case DType::kFloat64: return "d";
    case DType::kComplex64: return "Zf";
    case DType::kComplex128: return "Zd";
    default: break;
  }
  throw py::buffer_error(std::string("[buffer] ") + asc::dtype_name(d) + " has no PEP 3118 format");
}

}  // namespace

asc::Tensor tensor_from_py(py::handle h) { return to_tensor(h); }
asc::DType dtype_from_py(py::handle h) { return to_dtype(h); }
py::object dtype_to_py(asc::DType d) { return np_dtype(d); }
py::object numpy_view(const asc::Tensor& t, py::handle owner) { return to_numpy(t, owner); }

void init_array(py::module_& m) {
  py::class_<Tensor> cls(m, "ndarray", py::buffer_protocol(),
                         "An N-dimensional array on a pyasc device (NumPy semantics). Also pyasc.AscendTensor.");
  // Zero-copy export (memoryview, numpy.asarray): PEP 3118 buffer and
  // __array_interface__. bfloat16 has no typestr/format: both refuse it and
  // NumPy falls back to __array__ (an ml_dtypes array).
  {
    auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
    type->tp_as_buffer->bf_getbuffer = &tensor_getbuffer;
    type->tp_as_buffer->bf_releasebuffer = &tensor_releasebuffer;
  }
  cls.def_property_readonly("__array_interface__", [](py::object self) -> py::object {
    const Tensor& t = self.cast<const Tensor&>();
    if (t.dtype() == DType::kBFloat16) throw py::attribute_error("__array_interface__ (bfloat16 has no typestr)");
    // The consumer keeps the address with no end we could see: exported for good.
    t.storage()->add_export();
    return to_numpy(t, self).attr("__array_interface__");
  });
  cls.def_property("real", [](const Tensor& t) { return complex_part(t, false); },
                   [](const Tensor& t, py::object v) {
                     Tensor dst = complex_part(t, false);
                     Tensor src = to_tensor(v);
                     dst.copy_from(src.dtype() == dst.dtype() ? src : astype_warn(src, dst.dtype(), false));
                   },
                   "The real part (a view for complex arrays, the array itself otherwise).");
  cls.def_property("imag", [](const Tensor& t) { return complex_part(t, true); },
                   [](const Tensor& t, py::object v) {
                     if (!asc::is_complex(t.dtype()))
                       throw Error(Status::TypeError("imag", "array does not have imaginary part to set"));
                     Tensor dst = complex_part(t, true);
                     Tensor src = to_tensor(v);
                     dst.copy_from(src.dtype() == dst.dtype() ? src : astype_warn(src, dst.dtype(), false));
                   },
                   "The imaginary part (a view for complex arrays, zeros otherwise).");
  cls.def("__complex__", [](py::object self) {
    return to_numpy(self.cast<const Tensor&>(), self).attr("__complex__")();
  });
  for (const char* name : {"conj", "conjugate"})
    cls.def(name, [](py::object self, py::object out) {
      // NumPy: a real array's conj() without out is the array itself (no copy).
      if (out.is_none() && !asc::is_complex(self.cast<const Tensor&>().dtype())) return self;
      static const ops::OpDef* const conj = &ops::get_op("conjugate");
      return call_op(*conj, {self}, out);
    }, py::arg("out") = py::none(), py::pos_only(),
    "The complex conjugate, elementwise; a real array itself (NumPy). out: NumPy's positional out.");
  cls.def_property_readonly("shape", [](const Tensor& t) { return to_tuple(t.shape()); })
      .def_property_readonly("dtype", [](const Tensor& t) { return np_dtype(t.dtype()); })
      .def_property_readonly("ndim", &Tensor::ndim)
      .def_property_readonly("size", &Tensor::numel)
      .def_property_readonly("itemsize", &Tensor::itemsize)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def_property_readonly("strides", [](const Tensor& t) { return to_tuple(t.strides()); })
      .def_property_readonly("T", &Tensor::transpose)
      .def_property_readonly("mT", [](const Tensor& t) {
        if (t.ndim() < 2) throw Error(Status::Invalid("mT", "matrix transpose with ndim < 2 is undefined"));
        return t.swapaxes(-1, -2);
      })
      .def_property_readonly("device", [](const Tensor&) { return "cpu"; })
      .def_property_readonly(
          "base",
          [](py::object self) -> py::object {
            const Tensor& t = self.cast<const Tensor&>();
            if (t.storage()->is_external()) return py::none();
            if (t.offset() == 0 && t.is_contiguous() && t.nbytes() == t.storage()->nbytes()) return py::none();
            const int64_t n = static_cast<int64_t>(t.storage()->nbytes() / t.itemsize());
            return py::cast(Tensor::view_of(t.storage(), t.dtype(), {n}, {static_cast<int64_t>(t.itemsize())}, 0));
          },
          "The array whose memory this view uses (a flat view of the whole buffer), or None.")
      .def("__array__",
           [](py::object self, py::object dtype, py::object copy) -> py::object {
             py::array a = to_numpy(self.cast<const Tensor&>(), self);
             if (!dtype.is_none()) return a.attr("astype")(dtype, py::arg("copy") = !copy.is_none() && copy.cast<bool>());
             if (!copy.is_none() && copy.cast<bool>()) return a.attr("copy")();
             return std::move(a);
           },
           py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("numpy", [](py::object self) { return to_numpy(self.cast<const Tensor&>(), self); },
           "A NumPy array sharing this array's memory.")
      .def_static("from_numpy", [](py::array a) { return from_numpy(a); }, py::arg("array"),
                  "Wraps a NumPy array's memory (shared, no copy).")
      .def("__repr__", [](py::object self) { return py::repr(to_numpy(self.cast<const Tensor&>(), self)); })
      .def("__str__", [](py::object self) { return py::str(to_numpy(self.cast<const Tensor&>(), self)); })
      .def("__len__",
           [](const Tensor& t) {
             if (t.ndim() == 0) throw py::type_error("len() of unsized object");
             return t.shape()[0];
           })
      .def("__iter__",
           [](const Tensor& t) {
             if (t.ndim() == 0) throw py::type_error("iteration over a 0-d array");
             py::list items;
             for (int64_t i = 0; i < t.shape()[0]; ++i) items.append(py::cast(t.select(0, i)));
             return py::iter(items);
           })
      .def("tolist", [](py::object self) { return to_numpy(self.cast<const Tensor&>(), self).attr("tolist")(); })
      .def("item", [](py::object self, py::args args) {
        return to_numpy(self.cast<const Tensor&>(), self).attr("item")(*args);
      })
      .def("__bool__", [](py::object self) { return to_numpy(self.cast<const Tensor&>(), self).attr("__bool__")(); })
      .def("__int__", [](py::object self) { return to_numpy(self.cast<const Tensor&>(), self).attr("__int__")(); })
      .def("__float__",
           [](py::object self) { return to_numpy(self.cast<const Tensor&>(), self).attr("__float__")(); })
      .def("__index__",
           [](py::object self) {
             // Only a 0-d array is an index (NumPy): refuse others before converting them
             // (a huge broadcast view would be materialised first).
             if (self.cast<const Tensor&>().ndim() != 0)
               throw Error(Status::TypeError("index", "only integer scalar arrays can be converted to a scalar index"));
             return to_numpy(self.cast<const Tensor&>(), self).attr("__index__")();
           })
      .def("__getitem__", &getitem_py)
      .def("__setitem__",
           [](const Tensor& t, py::handle key, py::handle value) {
             check_complex_to_real(t.dtype(), value, "setitem");
             setitem_py(t, key, value);
           })
      .def("copy", [](const Tensor& t) { return t.clone(); })
      .def("astype", [](const Tensor& t, py::handle dtype, bool copy) { return astype_warn(t, to_dtype(dtype), copy); },
           py::arg("dtype"), py::arg("copy") = true)
      .def("reshape",
           [](const Tensor& t, py::args shape) {
             if (shape.size() == 0) throw Error(Status::TypeError("reshape", "reshape() takes exactly 1 argument (0 given)"));
             return t.reshape(shape.size() == 1 ? to_shape(shape[0]) : to_shape(shape));
           })
      .def("transpose",
           [](const Tensor& t, py::args axes) {
             if (axes.size() == 0) return t.transpose();
             if (axes.size() == 1 && axes[0].is_none()) return t.transpose();
             return t.permute(axes.size() == 1 ? to_shape(axes[0]) : to_shape(axes));
           })
      .def("swapaxes", [](const Tensor& t, py::handle a1, py::handle a2) {
        return t.swapaxes(index_from_py(a1), index_from_py(a2));
      })
      .def("ravel", [](const Tensor& t) { return t.reshape({-1}); })
      .def("flatten", [](const Tensor& t) { return t.clone().reshape({-1}); })
      .def("squeeze", [](const Tensor& t, py::handle axis) { return squeeze_axes(t, axis); },
           py::arg("axis") = py::none())
      .def("diagonal", [](const Tensor& t, py::handle offset, py::handle a1, py::handle a2) {
        return t.diagonal(index_from_py(offset, "diagonal"), index_from_py(a1), index_from_py(a2));
      }, py::arg("offset") = 0, py::arg("axis1") = 0, py::arg("axis2") = 1)
      .def("is_contiguous", &Tensor::is_contiguous);
  cls.attr("__hash__") = py::none();
  cls.attr("__array_ufunc__") = py::none();  // NumPy operators defer to ours (reflected forms)
  cls.attr("__array_priority__") = 100;

  // Operators: (dunder, op name, reflected?)
  struct Dunder {
    const char* name;
    const char* op;
    bool reflected;
  };
  static const Dunder kBinary[] = {
      {"__add__", "add", false},          {"__radd__", "add", true},
      {"__sub__", "subtract", false},     {"__rsub__", "subtract", true},
      {"__mul__", "multiply", false},     {"__rmul__", "multiply", true},
      {"__truediv__", "true_divide", false}, {"__rtruediv__", "true_divide", true},
      {"__floordiv__", "floor_divide", false}, {"__rfloordiv__", "floor_divide", true},
      {"__mod__", "remainder", false},    {"__rmod__", "remainder", true},
      {"__eq__", "equal", false},         {"__ne__", "not_equal", false},
      {"__lt__", "less", false},          {"__le__", "less_equal", false},
      {"__gt__", "greater", false},       {"__ge__", "greater_equal", false},
      {"__and__", "bitwise_and", false},  {"__rand__", "bitwise_and", true},
      {"__or__", "bitwise_or", false},    {"__ror__", "bitwise_or", true},
      {"__xor__", "bitwise_xor", false},  {"__rxor__", "bitwise_xor", true},
      {"__lshift__", "left_shift", false}, {"__rlshift__", "left_shift", true},
      {"__rshift__", "right_shift", false}, {"__rrshift__", "right_shift", true},
  };
  for (const auto& d : kBinary) {
    const ops::OpDef* op = &ops::get_op(d.op);
    const bool refl = d.reflected;
    cls.def(d.name, [op, refl](py::object self, py::object other) -> py::object {
      if (!operand_like(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      return refl ? call_op(*op, {other, self}, py::none()) : call_op(*op, {self, other}, py::none());
    });
  }
  static const Dunder kPower[] = {{"__pow__", "power", false}, {"__rpow__", "power", true}};
  for (const auto& d : kPower) {
    const ops::OpDef* op = &ops::get_op(d.op);
    const bool refl = d.reflected;
    cls.def(d.name, [op, refl](py::object self, py::object other, py::object mod) -> py::object {
      if (!mod.is_none() || !operand_like(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      return refl ? call_op(*op, {other, self}, py::none()) : call_op(*op, {self, other}, py::none());
    }, py::arg("other"), py::arg("mod") = py::none());
  }
  static const Dunder kInplace[] = {
      {"__iadd__", "add", false},         {"__isub__", "subtract", false},
      {"__imul__", "multiply", false},    {"__itruediv__", "true_divide", false},
      {"__ifloordiv__", "floor_divide", false}, {"__imod__", "remainder", false},
      {"__ipow__", "power", false},
      {"__iand__", "bitwise_and", false}, {"__ior__", "bitwise_or", false},
      {"__ixor__", "bitwise_xor", false}, {"__ilshift__", "left_shift", false},
      {"__irshift__", "right_shift", false},
  };
  for (const auto& d : kInplace) {
    const ops::OpDef* op = &ops::get_op(d.op);
    cls.def(d.name, [op](py::object self, py::object other) { return inplace_op(*op, self, other); });
  }
  static const Dunder kUnary[] = {
      {"__neg__", "negative", false}, {"__pos__", "positive", false}, {"__abs__", "absolute", false},
      {"__invert__", "invert", false}};
  for (const auto& d : kUnary) {
    const ops::OpDef* op = &ops::get_op(d.op);
    cls.def(d.name, [op](const Tensor& t) { return ops::call(*op, {t}); });
  }
  install_fast_slots(cls);
  static const char* kReductions[] = {"sum", "prod", "max", "min", "mean", "all", "any",
                                      "argmax", "argmin", "cumsum", "cumprod"};
  for (const char* name : kReductions) {
    const ops::OpDef* op = &ops::get_op(name);
    cls.def(name,
            [op](py::object self, py::object axis, py::object dtype, py::object out, py::object keepdims) {
              return reduce_op(*op, self, axis, keepdims_from_py(keepdims), dtype, out);
            },
            py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
            py::arg("keepdims") = false, op->doc.c_str());
  }
  auto var_like = [](const ops::OpDef* op, py::handle x, py::handle axis, py::handle dtype, py::handle out,
                     py::handle ddof, py::handle keepdims, py::handle correction) {
    Tensor t = to_tensor(x);
    ops::Attrs a = reduce_attrs(axis, keepdims_from_py(keepdims), dtype);
    // NumPy: ddof is a number (ddof=None is its TypeError); correction may
    // replace only the default ddof=0.
    if (ddof.is_none() || PyBool_Check(ddof.ptr()) || !PyNumber_Check(ddof.ptr()))
      throw Error(Status::TypeError(op->name, std::string("ddof must be a number, not ") + Py_TYPE(ddof.ptr())->tp_name));
    const double dd = ddof.cast<double>();
    if (!correction.is_none() && dd != 0)
      throw Error(Status::Invalid(op->name, "ddof and correction can't be provided simultaneously."));
    a.ddof = !correction.is_none() ? correction.cast<double>() : dd;
    if (!out.is_none()) {
      Tensor o = out.cast<Tensor>();
      ops::call(*op, &t, 1, a, &o);
      return py::reinterpret_borrow<py::object>(out);
    }
    return py::cast(ops::call(*op, &t, 1, a));
  };
  for (const char* name : {"var", "std"}) {
    const ops::OpDef* op = &ops::get_op(name);
    cls.def(name,
            [op, var_like](py::object self, py::object axis, py::object dtype, py::object out, py::object ddof,
                           py::object keepdims, py::object correction) {
              return var_like(op, self, axis, dtype, out, ddof, keepdims, correction);
            },
            py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
            py::arg("ddof") = 0, py::arg("keepdims") = false, py::kw_only(),
            py::arg("correction") = py::none(), op->doc.c_str());
    m.def(name,
          [op, var_like](py::object x, py::object axis, py::object dtype, py::object out, py::object ddof,
                         py::object keepdims, py::object correction) {
            return var_like(op, x, axis, dtype, out, ddof, keepdims, correction);
          },
          py::arg("x"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
          py::arg("ddof") = 0, py::arg("keepdims") = false, py::kw_only(),
          py::arg("correction") = py::none(), op->doc.c_str());
  }

  // Module functions: every registered op, by name, with its docstring.
  for (const std::string& name : ops::op_names()) {
    const ops::OpDef* op = &ops::get_op(name);
    const char* doc = op->doc.c_str();
    if (name == "var" || name == "std") continue;
    if (op->fusion == ops::FusionClass::kReduction) {
      m.def(name.c_str(),
            [op](py::object x, py::object axis, py::object dtype, py::object out, py::object keepdims) {
              return reduce_op(*op, x, axis, keepdims_from_py(keepdims), dtype, out);
            },
            py::arg("x"), py::arg("axis") = py::none(), py::arg("dtype") = py::none(), py::arg("out") = py::none(),
            py::arg("keepdims") = false, doc);
    } else if (name == "astype") {
      m.def("astype",
            [](py::object x, py::object dtype, bool copy) { return astype_warn(to_tensor(x), to_dtype(dtype), copy); },
            py::arg("x"), py::arg("dtype"), py::arg("copy") = true, "x converted to dtype (NumPy casting).");
    } else if (op->arity == 1 || op->arity == 2) {
      // Ufuncs: the fast overload takes the operands and out= (a pyasc array
      // or None); any other call (NumPy's ufunc keywords dtype=, where=,
      // casting=, order=, subok=, signature=, out as a tuple or positional)
      // falls through to the second overload, pyasc._ufunc.call (Python).
      const bool elementwise = op->fusion == ops::FusionClass::kElementwise;
      if (op->arity == 1) {
        m.def(name.c_str(), [op, elementwise](py::object x, py::object out) {
          if (elementwise && !out.is_none() && !is_tensor(out)) return ufunc_keywords(*op, py::make_tuple(x), py::dict(py::arg("out") = out));
          return call_op(*op, {x}, out);
        }, py::arg("x"), py::kw_only(), py::arg("out") = py::none(), doc);
      } else {
        m.def(name.c_str(), [op, elementwise](py::object a, py::object b, py::object out) {
          if (elementwise && !out.is_none() && !is_tensor(out)) return ufunc_keywords(*op, py::make_tuple(a, b), py::dict(py::arg("out") = out));
          return call_op(*op, {a, b}, out);
        }, py::arg("x1"), py::arg("x2"), py::kw_only(), py::arg("out") = py::none(), doc);
      }
      if (elementwise)
        m.def(name.c_str(), [op](py::args args, py::kwargs kwargs) { return ufunc_keywords(*op, args, kwargs); },
              doc);
    } else if (op->arity == 3) {
      m.def(name.c_str(),
            [op](py::object a, py::object b, py::object c) { return call_op(*op, {a, b, c}, py::none()); }, doc);
    }
  }

  // Creation and conversion. device= (the array API's, NumPy 2's): None or
  // 'cpu', pyasc's one device.
  auto check_device = [](const char* op, py::handle device) {
    if (device.is_none() || (py::isinstance<py::str>(device) && device.cast<std::string>() == "cpu")) return;
    throw Error(Status::Make(asc::ErrorCode::kInvalidDevice, op,
                             "unsupported device " + std::string(py::repr(device)) + "; pyasc arrays live on 'cpu'"));
  };
  m.def("empty", [check_device](py::object shape, py::object dtype, py::object device) {
    check_device("empty", device);
    return Tensor::empty(to_shape(shape), dtype.is_none() ? DType::kFloat64 : to_dtype(dtype));
  }, py::arg("shape"), py::arg("dtype") = py::none(), py::kw_only(), py::arg("device") = py::none());
  m.def("full", [check_device](py::object shape, py::object value, py::object dtype, py::object device) {
    check_device("full", device);
    return full_like_value(to_shape(shape), value, dtype);
  }, py::arg("shape"), py::arg("fill_value"), py::arg("dtype") = py::none(), py::kw_only(),
     py::arg("device") = py::none());
  m.def("from_numpy", [](py::array a) { return from_numpy(a); }, py::arg("array"),
        "Wraps a NumPy array's memory (shared, no copy).");
  m.def("asarray", [check_device](py::object obj, py::object dtype, py::object copy, py::object device) -> Tensor {
    check_device("asarray", device);
    if (!dtype.is_none()) check_complex_to_real(to_dtype(dtype), obj, "asarray");
    Tensor t;
    if (dtype.is_none() || (!copy.is_none() && !copy.cast<bool>()) ||
        !python_values_as(obj, to_dtype(dtype), "asarray", &t))
      t = to_tensor(obj);
    const bool want_copy = !copy.is_none() && copy.cast<bool>();
    if (!dtype.is_none()) {
      const DType d = to_dtype(dtype);
      if (d != t.dtype()) {
        if (!copy.is_none() && !copy.cast<bool>())
          throw Error(Status::Invalid("asarray", "a copy is needed to convert to the requested dtype"));
        return ops::cast(t, d);
      }
    }
    return want_copy ? t.clone() : t;
  }, py::arg("obj"), py::arg("dtype") = py::none(), py::arg("copy") = py::none(), py::kw_only(),
     py::arg("device") = py::none());
  m.def("array", [](py::object obj, py::object dtype, bool copy) -> Tensor {
    if (!dtype.is_none()) check_complex_to_real(to_dtype(dtype), obj, "array");
    Tensor t;
    if (dtype.is_none() || !python_values_as(obj, to_dtype(dtype), "array", &t)) t = to_tensor(obj);
    if (!dtype.is_none() && to_dtype(dtype) != t.dtype()) return ops::cast(t, to_dtype(dtype));
    // Value semantics: memory the caller can still write to is copied now
    // (NumPy has no write hook, so a later copy could see later writes).
    // Memory nothing can change (a bytes object's, Storage::kImmutable) is
    // copied by a lazy node instead: the copy fuses with the first op that
    // reads it and costs nothing when only such ops use the value.
    const bool shared = is_tensor(obj) || py::isinstance<py::array>(obj);
    if (!copy || !shared) return t;
    if (!is_tensor(obj) && (t.storage()->access() & asc::Storage::kImmutable)) {
      static const ops::OpDef& astype = ops::get_op("astype");
      ops::Attrs a;
      a.has_dtype = true;
      a.dtype = t.dtype();
      return ops::call(astype, &t, 1, a);
    }
    return t.clone();
  }, py::arg("obj"), py::arg("dtype") = py::none(), py::arg("copy") = true);
  m.def("broadcast_to", [](py::object x, py::object shape) {
    Tensor v = to_tensor(x).broadcast_to(to_shape(shape));
    v.set_writeable(false);  // NumPy: a read-only view (elements repeat)
    return v;
  }, py::arg("array"), py::arg("shape"));
  // copy (NumPy 2.1, the array API): None a view when the strides allow,
  // True always a copy, False a view or a ValueError.
  m.def("reshape", [](py::object x, py::object shape, py::object copy) {
    const Tensor t = to_tensor(x);
    if (copy.is_none()) return t.reshape(to_shape(shape));
    if (copy.cast<bool>()) return t.reshape(to_shape(shape)).clone();
    return t.reshape(to_shape(shape), /*allow_copy=*/false);
  }, py::arg("a"), py::arg("shape"), py::kw_only(), py::arg("copy") = py::none());
  m.def("transpose", [](py::object x, py::object axes) {
    Tensor t = to_tensor(x);
    return axes.is_none() ? t.transpose() : t.permute(to_shape(axes));
  }, py::arg("x"), py::arg("axes") = py::none());
  m.def("expand_dims", [](py::object x, py::handle axis) { return to_tensor(x).expand_dims(index_from_py(axis)); });
  m.def("squeeze", [](py::object x, py::object axis) { return squeeze_axes(to_tensor(x), axis); },
        py::arg("x"), py::arg("axis") = py::none());
  m.def("diagonal", [](py::object x, py::handle offset, py::handle a1, py::handle a2) {
    return to_tensor(x).diagonal(index_from_py(offset, "diagonal"), index_from_py(a1), index_from_py(a2));
  }, py::arg("x"), py::arg("offset") = 0, py::arg("axis1") = 0, py::arg("axis2") = 1);
  m.def("result_type_of", [](py::args args) {
    std::vector<py::handle> hs(args.begin(), args.end());
    if (hs.size() > 3) throw Error(Status::Invalid("result_type", "at most 3 operands"));
    std::vector<Tensor> ts = operands(hs, "result_type");
    DType d = ts[0].dtype();
    for (size_t i = 1; i < ts.size(); ++i) d = ops::promote_or_throw(d, ts[i].dtype(), "result_type");
    return np_dtype(d);
  });
  m.def("op_names", &ops::op_names, "Names of the registered operators.");
}

}  // namespace pyasc
