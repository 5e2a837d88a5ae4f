// pyasc._C: the extension module. Calls one init_<area>() per binding file.
#include "bindings.h"

#ifndef ASC_VERSION_STRING
#error "ASC_VERSION_STRING must be defined by the build (CMake target asc)"
#endif

PYBIND11_MODULE(_C, m) {
  m.doc() = "pyasc native core (C++ runtime bindings). Use the `pyasc` package instead.";
  m.attr("__version__") = ASC_VERSION_STRING;
  pyasc::init_errors(m);
  pyasc::init_log(m);
  pyasc::init_device(m);
  pyasc::init_stream(m);
  pyasc::init_memory(m);
  pyasc::init_profiler(m);
  pyasc::init_array(m);
  pyasc::init_sort(m);  // after init_array: replaces the generic bindings of its op names
  pyasc::init_random(m);
  pyasc::init_linalg(m);  // after init_array: binds ndarray's @ operators
  pyasc::init_indexing(m);
  pyasc::init_interop(m);
  pyasc::init_graph(m);  // after init_array: adds ndarray.eval
  pyasc::init_debug(m);
  pyasc::init_nn_conv(m);
  pyasc::init_nn_norm_pool(m);
  pyasc::init_nn_softmax(m);
  pyasc::init_nn_activation(m);
  pyasc::init_image(m);
}
