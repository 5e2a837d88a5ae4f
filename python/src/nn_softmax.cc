// Binding of src/nn softmax (pyasc._C.nn.softmax) for asc.ops.softmax / log_softmax /
// softmin (python/pyasc/ops/_activation.py). Thin: argument conversion only; the
// Python layer applies torch's dim/dtype rules. Releases the GIL while the kernel runs.
#include "asc/core/tensor.h"
#include "asc/nn/softmax.h"
#include "bindings.h"

namespace pyasc {

void init_nn_softmax(py::module_& m) {
  py::module_ nnm = m.def_submodule("nn");
  nnm.def(
      "softmax",
      [](py::handle x, int64_t axis, bool log, bool negate) {
        const asc::Tensor t = tensor_from_py(x);
        asc::Tensor r;
        {
          py::gil_scoped_release nogil;
          r = asc::nn::softmax(t, axis, log, negate);
        }
        return r;
      },
      py::arg("x"), py::arg("axis"), py::arg("log") = false, py::arg("negate") = false);
}

}  // namespace pyasc
