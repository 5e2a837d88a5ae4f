// ascend_ops: a thin pybind11 module over the vector_add operator.
//
// vector_add(a, b) accepts any array-likes, checks they are 1-D with equal
// lengths, converts to C-contiguous float32 (no copy when they already are),
// computes on the calling thread's current stream into pool memory and returns
// a NumPy array that owns that memory (freed back to the pool).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "asc/core/status.h"
#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"
#include "host/vector_add_host.h"

namespace py = pybind11;
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

namespace {

FloatArray to_float_vector(const py::handle& obj, const char* arg) {
  py::array arr = py::array::ensure(obj);
  if (!arr) {
    throw asc::Error(asc::ErrorCode::kInvalidDtype,
                     std::string("[vector_add] argument '") + arg + "' is not array-like (got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))) + ")");
  }
  const char kind = arr.dtype().kind();
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
    throw asc::Error(asc::ErrorCode::kInvalidDtype,
                     std::string("[vector_add] argument '") + arg + "' has dtype " +
                         std::string(py::str(arr.dtype())) + "; expected a real numeric dtype (cast to float32)");
  }
  if (arr.ndim() != 1) {
    throw asc::Error(asc::ErrorCode::kInvalidShape,
                     std::string("[vector_add] argument '") + arg + "' must be 1-D, got shape " +
                         std::string(py::str(py::tuple(arr.attr("shape")))));
  }
  return FloatArray::ensure(arr);  // no copy for contiguous float32
}

py::array py_vector_add(const py::object& a, const py::object& b) {
  FloatArray x = to_float_vector(a, "a");
  FloatArray y = to_float_vector(b, "b");
  if (x.shape(0) != y.shape(0)) {
    throw asc::Error(asc::ErrorCode::kInvalidShape, "[vector_add] lengths differ: a has " +
                                                        std::to_string(x.shape(0)) + " elements, b has " +
                                                        std::to_string(y.shape(0)));
  }
  const auto n = static_cast<uint64_t>(x.shape(0));
  auto stream = asc::runtime::current_stream();
  asc::runtime::MemoryPool& pool = asc::runtime::device_pool();
  float* z = static_cast<float*>(pool.allocate_or_throw(n * sizeof(float), stream.get()));
  // From here the capsule owns z, so any exception below frees it.
  py::capsule owner(z, [](void* p) { (void)asc::runtime::device_pool().free(p); });
  asc::Status st;
  {
    py::gil_scoped_release release;
    vector_add_host::launch(x.data(), y.data(), z, n, stream.get());
    st = stream->synchronize();  // x and y are borrowed until the kernel is done
  }
  st.ThrowIfError();
  return py::array_t<float>({static_cast<py::ssize_t>(n)}, {static_cast<py::ssize_t>(sizeof(float))}, z, owner);
}

}  // namespace

PYBIND11_MODULE(ascend_ops, m) {
  m.doc() = "Example pyasc operator module: vector_add written in the Ascend C model.";
  // pyasc registers the translation of asc::Error to pyasc.AscendError subclasses.
  py::module_::import("pyasc");
  m.def("vector_add", &py_vector_add, py::arg("a"), py::arg("b"),
        R"doc(Element-wise a + b as float32.

a, b: 1-D array-likes of equal length (any real dtype; converted to float32).
Returns a new float32 NumPy array backed by pyasc device-pool memory.
Raises pyasc.AscendTypeError for non-numeric inputs and pyasc.AscendValueError
for non-1-D inputs or different lengths.)doc");
}
