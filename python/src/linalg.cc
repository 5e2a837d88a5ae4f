// Linear algebra bindings (pyasc._C._linalg) and the `@` operator of ndarray.
//
// Thin: argument names, defaults and docstrings; the work is asc::ops
// (asc/ops/linalg.h). Array-likes become tensors through tensor_from_py
// (NumPy arrays are shared, not copied). Large calls release
// the GIL while BLAS/LAPACK run.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/linalg.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::Tensor;
namespace ops = asc::ops;

Tensor arg(py::handle h) { return tensor_from_py(h); }

/// Big enough that releasing the GIL around the call pays off.
bool heavy(const Tensor& a, const Tensor* b = nullptr) {
  return a.numel() + (b ? b->numel() : 0) > 4096;
}

py::tuple as_tuple(const std::vector<Tensor>& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return t;
}

py::object matmul_py(py::handle x1, py::handle x2, py::handle out) {
  const Tensor a = arg(x1), b = arg(x2);
  std::optional<py::gil_scoped_release> nogil;
  if (heavy(a, &b)) nogil.emplace();
  if (out.is_none()) {
    Tensor r = ops::matmul(a, b);
    nogil.reset();
    return py::cast(std::move(r));
  }
  if (!py::isinstance<Tensor>(out)) {
    nogil.reset();
    throw asc::Error(asc::Status::TypeError("matmul", "out must be a pyasc.ndarray"));
  }
  const Tensor o = out.cast<Tensor>();
  ops::matmul(a, b, &o);
  nogil.reset();
  return py::reinterpret_borrow<py::object>(out);
}

/// Operands `@` accepts (anything else: NotImplemented, so Python tries the other side).
bool matmul_operand(py::handle h) {
  PyObject* o = h.ptr();
  return py::isinstance<Tensor>(h) || PyList_Check(o) || PyTuple_Check(o) || PyLong_Check(o) || PyFloat_Check(o) ||
         PyObject_HasAttrString(o, "__array_interface__") || PyObject_HasAttrString(o, "__array__");
}

template <typename Fn>
Tensor unary(py::handle x, Fn&& fn) {
  const Tensor a = arg(x);
  std::optional<py::gil_scoped_release> nogil;
  if (heavy(a)) nogil.emplace();
  return fn(a);
}

template <typename Fn>
py::tuple unary_multi(py::handle x, Fn&& fn) {
  const Tensor a = arg(x);
  std::vector<Tensor> r;
  {
    std::optional<py::gil_scoped_release> nogil;
    if (heavy(a)) nogil.emplace();
    r = fn(a);
  }
  return as_tuple(r);
}

}  // namespace

void init_linalg(py::module_& m) {
  py::module_ la = m.def_submodule("_linalg", "Linear algebra kernels (BLAS/LAPACK); use pyasc.linalg.");

  la.def("matmul", &matmul_py, py::arg("x1"), py::arg("x2"), py::arg("out") = py::none(),
         "numpy.matmul: batched, broadcasting matrix product; 1-d operands promoted and the added dims removed.");
  la.def("inv", [](py::handle a) { return unary(a, [](const Tensor& t) { return ops::inv(t); }); }, py::arg("a"),
         "Inverse of each square matrix; LinAlgError when singular.");
  la.def("solve",
         [](py::handle a, py::handle b) {
           const Tensor ta = arg(a), tb = arg(b);
           std::optional<py::gil_scoped_release> nogil;
           if (heavy(ta, &tb)) nogil.emplace();
           return ops::solve(ta, tb);
         },
         py::arg("a"), py::arg("b"), "x with a @ x = b (b a vector when 1-d, else a stack of matrices).");
  la.def("det", [](py::handle a) { return unary(a, [](const Tensor& t) { return ops::det(t); }); }, py::arg("a"),
         "Determinant of each square matrix.");
  la.def("slogdet", [](py::handle a) { return unary_multi(a, [](const Tensor& t) { return ops::slogdet(t); }); },
         py::arg("a"), "(sign, logabsdet) of each square matrix.");
  la.def("cholesky",
         [](py::handle a, bool upper) {
           return unary(a, [upper](const Tensor& t) { return ops::cholesky(t, upper); });
         },
         py::arg("a"), py::arg("upper") = false, "Cholesky factor (lower, or upper with upper=True).");
  la.def("qr",
         [](py::handle a, const std::string& mode) {
           return unary_multi(a, [&mode](const Tensor& t) { return ops::qr(t, mode); });
         },
         py::arg("a"), py::arg("mode") = "reduced", "QR factorisation: (Q, R), (R,) or (h, tau) by mode.");
  la.def("svd",
         [](py::handle a, bool full_matrices, bool compute_uv) {
           return unary_multi(a, [=](const Tensor& t) { return ops::svd(t, full_matrices, compute_uv); });
         },
         py::arg("a"), py::arg("full_matrices") = true, py::arg("compute_uv") = true,
         "Singular value decomposition: (U, S (real), Vh), or (S,) without compute_uv.");
  la.def("eigh",
         [](py::handle a, const std::string& uplo, bool compute_v) {
           if (uplo != "L" && uplo != "U")
             throw asc::Error(asc::Status::Invalid(compute_v ? "eigh" : "eigvalsh",
                                                   "UPLO argument must be 'L' or 'U'"));
           return unary_multi(a, [&](const Tensor& t) { return ops::eigh(t, uplo[0], compute_v); });
         },
         py::arg("a"), py::arg("UPLO") = "L", py::arg("compute_v") = true,
         "Eigen decomposition of symmetric/Hermitian matrices: (eigenvalues (real), eigenvectors) or "
         "(eigenvalues,).");
  la.def("lstsq",
         [](py::handle a, py::handle b, double rcond) {
           const Tensor ta = arg(a), tb = arg(b);
           std::vector<Tensor> r;
           {
             std::optional<py::gil_scoped_release> nogil;
             if (heavy(ta, &tb)) nogil.emplace();
             r = ops::lstsq(ta, tb, rcond);
           }
           return as_tuple(r);
         },
         py::arg("a"), py::arg("b"), py::arg("rcond") = -1.0,
         "Least-squares solution: (x, residuals, rank, s); rcond < 0 means eps * max(M, N).");
  la.def("einsum",
         [](const std::string& subscripts, py::sequence operands) {
           std::vector<Tensor> ts;
           ts.reserve(py::len(operands));
           size_t total = 0;
           for (py::handle h : operands) {
             ts.push_back(arg(h));
             total += static_cast<size_t>(ts.back().numel());
           }
           std::optional<py::gil_scoped_release> nogil;
           if (total > 4096) nogil.emplace();
           return ops::einsum(subscripts, ts);
         },
         py::arg("subscripts"), py::arg("operands"),
         "numpy.einsum(subscripts, *operands) for a subscripts string (parsed once and cached).");
  la.def("blas_num_threads", &ops::blas_num_threads, "Threads OpenBLAS uses for one call.");
  la.def("blas_config", &ops::blas_config, "OpenBLAS build description.");

  // The `@` operators of ndarray (NumPy semantics; a @= b writes into a).
  py::object cls = m.attr("ndarray");
  auto method = [&cls](const char* name, auto fn) {
    cls.attr(name) = py::cpp_function(fn, py::name(name), py::is_method(cls), py::sibling(py::none()));
  };
  method("__matmul__", [](py::object self, py::object other) -> py::object {
    if (!matmul_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return matmul_py(self, other, py::none());
  });
  method("__rmatmul__", [](py::object self, py::object other) -> py::object {
    if (!matmul_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return matmul_py(other, self, py::none());
  });
  method("__imatmul__", [](py::object self, py::object other) -> py::object {
    if (!matmul_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return matmul_py(self, other, self);
  });
}

}  // namespace pyasc
