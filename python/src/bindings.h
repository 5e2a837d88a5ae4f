// Shared declarations of the pyasc._C bindings.
//
// Each python/src/<area>.cc defines one `init_<area>(py::module_&)` that binds
// the C++ API of that area: names, argument names, defaults, docstrings, GIL
// handling -- and no logic (that lives in C++ core or in python/pyasc).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

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
