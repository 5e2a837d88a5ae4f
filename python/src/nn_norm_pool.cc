// Bindings of src/nn pooling and normalisation (pyasc._C.nn) for asc.ops
// (python/pyasc/ops/_pool.py, _norm.py). Thin: argument conversion only; the
// Python layer normalises torch-style arguments (ints/tuples, defaults).
// Large calls release the GIL while the kernels run.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/nn/norm.h"
#include "asc/nn/pool.h"
#include "bindings.h"

namespace pyasc {

namespace {

using asc::Tensor;
namespace nn = asc::nn;

/// An optional tensor argument (None -> absent).
struct OptT {
  std::optional<Tensor> t;
  explicit OptT(py::handle h) {
    if (!h.is_none()) t = tensor_from_py(h);
  }
  const Tensor* get() const { return t ? &*t : nullptr; }
};

/// A blocked pool's out= argument: None, or a pyasc array the result is written into (anything
/// else would convert to a temporary the caller never sees: refused, as nn.conv's out=).
std::optional<Tensor> pool_out_from_py(py::handle out, const std::string& op) {
  if (out.is_none()) return std::nullopt;
  if (!py::isinstance<Tensor>(out)) {
    throw asc::Error(asc::Status::TypeError(op, std::string("out must be a pyasc.ndarray, got ") +
                                                    py::str(py::type::of(out).attr("__name__")).cast<std::string>()));
  }
  return out.cast<Tensor>();
}

py::object pool_result(nn::PoolResult r, bool with_indices) {
  if (with_indices) return py::make_tuple(py::cast(std::move(r.out)), py::cast(std::move(r.indices)));
  return py::cast(std::move(r.out));
}

}  // namespace

void init_nn_norm_pool(py::module_& m) {
  py::module_ nnm = m.def_submodule("nn");
  nnm.def(
      "pool",
      [](py::handle x, bool is_max, std::vector<int64_t> kernel, std::vector<int64_t> stride,
         std::vector<int64_t> padding, std::vector<int64_t> dilation, bool ceil_mode, bool count_include_pad,
         int64_t divisor_override, bool return_indices, std::string op) {
        nn::PoolAttrs a;
        a.kind = is_max ? nn::PoolKind::kMax : nn::PoolKind::kAvg;
        a.spatial_ndim = static_cast<int>(kernel.size());
        a.kernel = std::move(kernel);
        a.stride = std::move(stride);
        a.padding = std::move(padding);
        a.dilation = std::move(dilation);
        a.ceil_mode = ceil_mode;
        a.count_include_pad = count_include_pad;
        a.divisor_override = divisor_override;
        a.return_indices = return_indices;
        a.op = std::move(op);
        const Tensor t = tensor_from_py(x);
        nn::PoolResult r;
        {
          py::gil_scoped_release nogil;
          r = nn::pool(t, a);
        }
        return pool_result(std::move(r), return_indices);
      },
      py::arg("x"), py::arg("is_max"), py::arg("kernel"), py::arg("stride"), py::arg("padding"),
      py::arg("dilation"), py::arg("ceil_mode"), py::arg("count_include_pad"), py::arg("divisor_override"),
      py::arg("return_indices"), py::arg("op"));
  nnm.def(
      "max_pool_blocked",
      [](py::handle x, std::vector<int64_t> kernel, std::vector<int64_t> stride, std::vector<int64_t> pad_l,
         std::vector<int64_t> pad_r, std::vector<int64_t> dilation, std::string op, py::handle out) {
        const Tensor t = tensor_from_py(x);
        const std::optional<Tensor> o = pool_out_from_py(out, op);
        py::gil_scoped_release nogil;
        return nn::max_pool_blocked(t, kernel, stride, pad_l, pad_r, dilation, op, o ? &*o : nullptr);
      },
      py::arg("x"), py::arg("kernel"), py::arg("stride"), py::arg("pad_l"), py::arg("pad_r"), py::arg("dilation"),
      py::arg("op"), py::arg("out") = py::none());
  nnm.def(
      "avg_pool_blocked",
      [](py::handle x, std::vector<int64_t> kernel, std::vector<int64_t> stride, std::vector<int64_t> pad_l,
         std::vector<int64_t> pad_r, bool count_include_pad, std::string op, py::handle out) {
        const Tensor t = tensor_from_py(x);
        const std::optional<Tensor> o = pool_out_from_py(out, op);
        py::gil_scoped_release nogil;
        return nn::avg_pool_blocked(t, kernel, stride, pad_l, pad_r, count_include_pad, op, o ? &*o : nullptr);
      },
      py::arg("x"), py::arg("kernel"), py::arg("stride"), py::arg("pad_l"), py::arg("pad_r"),
      py::arg("count_include_pad"), py::arg("op"), py::arg("out") = py::none());
  nnm.def(
      "adaptive_pool",
      [](py::handle x, bool is_max, std::vector<int64_t> output_size, bool return_indices, std::string op) {
        const Tensor t = tensor_from_py(x);
        nn::PoolResult r;
        {
          py::gil_scoped_release nogil;
          r = nn::adaptive_pool(t, is_max ? nn::PoolKind::kMax : nn::PoolKind::kAvg, output_size, return_indices, op);
        }
        return pool_result(std::move(r), is_max && return_indices);
      },
      py::arg("x"), py::arg("is_max"), py::arg("output_size"), py::arg("return_indices"), py::arg("op"));
  nnm.def(
      "batch_norm",
      [](py::handle x, py::handle rm, py::handle rv, py::handle w, py::handle b, bool training, double momentum,
         double eps) {
        const Tensor t = tensor_from_py(x);
        const OptT m(rm), v(rv), wt(w), bt(b);
        nn::NormAttrs a;
        a.training = training;
        a.momentum = momentum;
        a.eps = eps;
        py::gil_scoped_release nogil;
        return nn::batch_norm(t, m.get(), v.get(), wt.get(), bt.get(), a);
      },
      py::arg("x"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight"), py::arg("bias"),
      py::arg("training"), py::arg("momentum"), py::arg("eps"));
  nnm.def(
      "instance_norm",
      [](py::handle x, py::handle rm, py::handle rv, py::handle w, py::handle b, bool use_input_stats,
         double momentum, double eps) {
        const Tensor t = tensor_from_py(x);
        const OptT m(rm), v(rv), wt(w), bt(b);
        nn::NormAttrs a;
        a.training = use_input_stats;
        a.momentum = momentum;
        a.eps = eps;
        py::gil_scoped_release nogil;
        return nn::instance_norm(t, m.get(), v.get(), wt.get(), bt.get(), a);
      },
      py::arg("x"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight"), py::arg("bias"),
      py::arg("use_input_stats"), py::arg("momentum"), py::arg("eps"));
  nnm.def(
      "layer_norm",
      [](py::handle x, int64_t normalized_ndim, py::handle w, py::handle b, double eps) {
        const Tensor t = tensor_from_py(x);
        const OptT wt(w), bt(b);
        nn::NormAttrs a;
        a.normalized_ndim = normalized_ndim;
        a.eps = eps;
        py::gil_scoped_release nogil;
        return nn::layer_norm(t, wt.get(), bt.get(), a);
      },
      py::arg("x"), py::arg("normalized_ndim"), py::arg("weight"), py::arg("bias"), py::arg("eps"));
  nnm.def(
      "rms_norm",
      [](py::handle x, int64_t normalized_ndim, py::handle w, double eps) {
        const Tensor t = tensor_from_py(x);
        const OptT wt(w);
        nn::NormAttrs a;
        a.normalized_ndim = normalized_ndim;
        a.eps = eps;
        py::gil_scoped_release nogil;
        return nn::rms_norm(t, wt.get(), a);
      },
      py::arg("x"), py::arg("normalized_ndim"), py::arg("weight"), py::arg("eps"));
  nnm.def(
      "group_norm",
      [](py::handle x, int64_t num_groups, py::handle w, py::handle b, double eps) {
        const Tensor t = tensor_from_py(x);
        const OptT wt(w), bt(b);
        nn::NormAttrs a;
        a.num_groups = num_groups;
        a.eps = eps;
        py::gil_scoped_release nogil;
        return nn::group_norm(t, wt.get(), bt.get(), a);
      },
      py::arg("x"), py::arg("num_groups"), py::arg("weight"), py::arg("bias"), py::arg("eps"));
  nnm.def(
      "local_response_norm",
      [](py::handle x, int64_t size, double alpha, double beta, double k) {
        const Tensor t = tensor_from_py(x);
        py::gil_scoped_release nogil;
        return nn::local_response_norm(t, size, alpha, beta, k);
      },
      py::arg("x"), py::arg("size"), py::arg("alpha"), py::arg("beta"), py::arg("k"));
  nnm.def(
      "normalize_image",
      [](py::handle x, std::vector<double> mean, std::vector<double> std, std::string layout,
         std::string out_layout, py::handle dtype, double scale) {
        const Tensor t = tensor_from_py(x);
        const asc::DType d = dtype_from_py(dtype);
        py::gil_scoped_release nogil;
        return nn::normalize_image(t, mean, std, layout, out_layout, d, scale);
      },
      py::arg("x"), py::arg("mean"), py::arg("std"), py::arg("layout"), py::arg("out_layout"), py::arg("dtype"),
      py::arg("scale"));
}

}  // namespace pyasc
