// Bindings of src/nn convolution (pyasc._C.nn.conv) for asc.ops (python/pyasc/ops/_conv.py).
// Thin: argument conversion only; the Python layer normalises torch-style arguments.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/nn/conv.h"
#include "bindings.h"

namespace pyasc {

void init_nn_conv(py::module_& m) {
  py::module_ nnm = m.def_submodule("nn");
  nnm.def(
      "conv",
      [](py::handle x, py::handle w, py::handle b, py::handle r, std::vector<int64_t> stride,
         std::vector<int64_t> pad_l, std::vector<int64_t> pad_r, std::vector<int64_t> dilation,
         std::vector<int64_t> output_padding, int64_t groups, bool transposed, bool channels_last,
         std::string act, double alpha, std::string engine, std::string op, int src_block, int dst_block,
         bool residual_inplace, py::handle out) {
        namespace nn = asc::nn;
        nn::ConvAttrs a;
        a.spatial_ndim = static_cast<int>(stride.size());
        a.stride = std::move(stride);
        a.pad_l = std::move(pad_l);
        a.pad_r = std::move(pad_r);
        a.dilation = std::move(dilation);
        a.output_padding = std::move(output_padding);
        a.groups = groups;
        a.transposed = transposed;
        a.channels_last = channels_last;
        a.act = nn::activation_of(act, op);
        a.alpha = static_cast<float>(alpha);
        a.engine = engine == "ascendc" ? nn::ConvEngine::kAscendC : nn::ConvEngine::kOneDnn;
        a.op = std::move(op);
        a.src_block = src_block;
        a.dst_block = dst_block;
        a.residual_inplace = residual_inplace;
        const asc::Tensor xt = tensor_from_py(x), wt = tensor_from_py(w);
        std::optional<asc::Tensor> bt, rt, ot;
        if (!b.is_none()) bt = tensor_from_py(b);
        if (!r.is_none()) rt = tensor_from_py(r);
        if (!out.is_none()) {
          // Only a pyasc array is a buffer the result can be written into (anything else
          // converts to a temporary).
          if (!py::isinstance<asc::Tensor>(out)) {
            throw asc::Error(asc::Status::TypeError(a.op, std::string("out must be a pyasc.ndarray, got ") +
                                                          py::str(py::type::of(out).attr("__name__")).cast<std::string>()));
          }
          ot = out.cast<asc::Tensor>();
        }
        py::gil_scoped_release nogil;
        return nn::conv(xt, wt, bt ? &*bt : nullptr, rt ? &*rt : nullptr, a, ot ? &*ot : nullptr);
      },
      py::arg("x"), py::arg("w"), py::arg("b"), py::arg("residual"), py::arg("stride"), py::arg("pad_l"),
      py::arg("pad_r"), py::arg("dilation"), py::arg("output_padding"), py::arg("groups"), py::arg("transposed"),
      py::arg("channels_last"), py::arg("act"), py::arg("alpha"), py::arg("engine"), py::arg("op"),
      py::arg("src_block") = 0, py::arg("dst_block") = 0, py::arg("residual_inplace") = false,
      py::arg("out") = py::none());
  nnm.def("preferred_block", &asc::nn::preferred_block,
          "C0 of the channel-blocked (NC1HWC0) layout oneDNN's float32 convolutions prefer here (0: plain)");
  nnm.def("cache_stats", [] {
    const auto s = asc::nn::conv_cache_stats();
    return py::make_tuple(s.first, s.second);
  });
  nnm.def(
      "winograd_stats",
      [] {
        const auto s = asc::nn::conv_winograd_stats();
        return py::make_tuple(std::get<0>(s), std::get<1>(s), std::get<2>(s));
      },
      "(calls, transformed-weight cache hits, misses) of the Winograd F(2x2, 3x3) convolution path");
  nnm.def("depthwise_calls", &asc::nn::conv_depthwise_calls,
          "calls that took the NCHW depthwise 3x3 convolution path (src/nn/conv_depthwise.cc)");
  nnm.def("direct_calls", &asc::nn::conv_direct_calls,
          "calls that took the direct NCHW stride-2 convolution path (src/nn/conv_direct.cc)");
}

}  // namespace pyasc
