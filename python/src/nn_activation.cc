// Binding of src/nn/activation.cc (pyasc._C.nn.gelu, gelu_backward) for asc.ops.gelu
// (python/pyasc/ops/_activation.py). Thin: argument conversion only. Releases the GIL
// while the kernel runs.
#include "asc/core/tensor.h"
#include "asc/nn/activation.h"
#include "bindings.h"

namespace pyasc {

void init_nn_activation(py::module_& m) {
  py::module_ nnm = m.def_submodule("nn");
  nnm.def(
      "gelu",
      [](py::handle x, bool tanh_approx) {
        const asc::Tensor t = tensor_from_py(x);
        asc::Tensor r;
        {
          py::gil_scoped_release nogil;
          r = asc::nn::gelu(t, tanh_approx);
        }
        return r;
      },
      py::arg("x"), py::arg("tanh") = false);
  nnm.def(
      "gelu_backward",
      [](py::handle dy, py::handle x, bool tanh_approx) {
        const asc::Tensor g = tensor_from_py(dy);
        const asc::Tensor t = tensor_from_py(x);
        asc::Tensor r;
        {
          py::gil_scoped_release nogil;
          r = asc::nn::gelu_backward(g, t, tanh_approx);
        }
        return r;
      },
      py::arg("grad_output"), py::arg("x"), py::arg("tanh") = false);
}

}  // namespace pyasc
