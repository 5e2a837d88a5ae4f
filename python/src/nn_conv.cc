// Bindings of src/nn for asc.ops (see python/pyasc/ops). Thin: no logic.
#include "bindings.h"

namespace pyasc {

void init_nn_conv(py::module_& m) {
  (void)m;
}

}  // namespace pyasc
