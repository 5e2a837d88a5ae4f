// Shared declarations of the pyasc._C bindings.
//
// Each python/src/<area>.cc defines one `init_<area>(py::module_&)` that binds
// the C++ API of that area: names, argument names, defaults, docstrings, GIL
// handling -- and no logic (that lives in C++ core or in python/pyasc).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/runtime/stream.h"

namespace pyasc {

namespace py = pybind11;

void init_errors(py::module_& m);
void init_log(py::module_& m);
void init_device(py::module_& m);
void init_stream(py::module_& m);
void init_memory(py::module_& m);
void init_profiler(py::module_& m);
void init_array(py::module_& m);
void init_sort(py::module_& m);
void init_random(py::module_& m);
void init_linalg(py::module_& m);
void init_indexing(py::module_& m);
void init_interop(py::module_& m);
void init_graph(py::module_& m);
void init_debug(py::module_& m);
// NN operators (asc.ops): convolution/dense in nn_conv.cc, pooling and normalisation in nn_norm_pool.cc.
void init_nn_conv(py::module_& m);
void init_nn_norm_pool(py::module_& m);
void init_nn_softmax(py::module_& m);
void init_nn_activation(py::module_& m);
// asc.image: JPEG/PNG decoding and preprocessing (image.cc).
void init_image(py::module_& m);

// Conversions shared by the binding files (defined in array.cc).
/// Any array-like (pyasc array, NumPy array shared without a copy, Python
/// scalar, nested list) -> tensor.
asc::Tensor tensor_from_py(py::handle h);
/// Any dtype-like -> DType (TypeError for unsupported ones).
asc::DType dtype_from_py(py::handle h);
/// The numpy.dtype object of `d`.
py::object dtype_to_py(asc::DType d);
/// A zero-copy NumPy view of `t` whose base keeps `owner` alive.
py::object numpy_view(const asc::Tensor& t, py::handle owner);
/// operator.index(h) as an int64 with NumPy's errors (defined in convert.cc):
/// AscendTypeError "'str' object cannot be interpreted as an integer" for a
/// non-integer; beyond int64 AscendOverflowError "Python int too large to
/// convert to C long", or with `dim` NumPy's ValueError "Maximum allowed
/// dimension exceeded". `what` names the argument/operation in the message.
int64_t index_from_py(py::handle h, const char* what = "axis", bool dim = false);
/// An integer or a sequence of integers (axis tuples, shapes, reps), each
/// through index_from_py.
std::vector<int64_t> index_list_from_py(py::handle h, const char* what = "axis", bool dim = false);
/// Raises the error for array data pyasc cannot hold (str, bytes, object,
/// datetime: pyasc.errors._unsupported_input builds it, a TypeError that is
/// also a ValueError as NumPy raises either for such input).
[[noreturn]] void unsupported_input(py::handle arr);
// Indexing entries of ndarray (defined in indexing.cc).
asc::Tensor getitem_py(const asc::Tensor& t, py::handle key);
void setitem_py(const asc::Tensor& t, py::handle key, py::handle value);

/// True while Python objects may be touched (interpreter up, not finalizing).
bool interpreter_alive() noexcept;

/// The Python-visible handle of a stream (`pyasc.Stream`). Several handles may
/// share one stream (e.g. every `asc.current_stream()` call returns a new
/// handle); they compare equal by stream id. Dropping the last reference to a
/// stream drains its queue, which may run Python callbacks that need the GIL,
/// so the destructor releases the GIL around it.
struct PyStream {
  explicit PyStream(std::shared_ptr<asc::runtime::Stream> s) : stream(std::move(s)) {}
  PyStream(const PyStream&) = delete;
  PyStream& operator=(const PyStream&) = delete;
  ~PyStream();

  asc::runtime::Stream* get() const noexcept { return stream.get(); }

  std::shared_ptr<asc::runtime::Stream> stream;
};

/// Releases a stream reference with the GIL released when the caller holds it.
void release_stream_without_gil(std::shared_ptr<asc::runtime::Stream>& s) noexcept;

}  // namespace pyasc
