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
}
