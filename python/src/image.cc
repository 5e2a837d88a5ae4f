// Bindings of asc::image (include/asc/image/image.h) as pyasc._C.image, for
// python/pyasc/image.py. Thin: bytes objects are pinned (kept referenced) and
// read in place while the GIL is released for the decode.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "asc/image/image.h"
#include "bindings.h"

namespace pyasc {
namespace {

using asc::image::Source;

// Sources over the bytes objects in `items` (each must be bytes; names[i] labels image i).
std::vector<Source> sources(const std::vector<py::bytes>& items, const std::vector<std::string>& names) {
  std::vector<Source> out(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    char* p = nullptr;
    Py_ssize_t n = 0;
    if (PyBytes_AsStringAndSize(items[i].ptr(), &p, &n) != 0) throw py::error_already_set();
    out[i].data = reinterpret_cast<const uint8_t*>(p);
    out[i].size = size_t(n);
    out[i].name = i < names.size() ? names[i] : "image " + std::to_string(i);
  }
  return out;
}

}  // namespace

void init_image(py::module_& m) {
  py::module_ im = m.def_submodule("image");
  im.def("sniff", [](const py::bytes& b) {
    const std::string s = b;
    return asc::image::sniff(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  });
  im.def(
      "decode",
      [](const std::vector<py::bytes>& items, const std::vector<std::string>& names, int mode, bool exif,
         int64_t min_short_side, int threads) {
        const auto srcs = sources(items, names);
        asc::image::DecodeOptions o;
        o.mode = static_cast<asc::image::ColorMode>(mode);
        o.apply_exif = exif;
        o.min_short_side = min_short_side;
        std::vector<asc::Tensor> out;
        {
          py::gil_scoped_release nogil;
          out = asc::image::decode_batch(srcs, o, threads);
        }
        return out;
      },
      py::arg("items"), py::arg("names"), py::arg("mode") = 0, py::arg("exif") = true,
      py::arg("min_short_side") = 0, py::arg("threads") = 0);
  im.def(
      "preprocess",
      [](const std::vector<py::bytes>& items, const std::vector<std::string>& names, int64_t resize_short,
         int64_t crop_h, int64_t crop_w, std::vector<float> mean, std::vector<float> stdv, float scale, int mode,
         bool exif, bool dct_scaling, int threads) {
        const auto srcs = sources(items, names);
        asc::image::PreprocessOptions o;
        o.resize_short = resize_short;
        o.crop_h = crop_h;
        o.crop_w = crop_w;
        for (int k = 0; k < 3; ++k) {
          o.mean[k] = mean.at(size_t(k));
          o.std[k] = stdv.at(size_t(k));
        }
        o.scale = scale;
        o.mode = static_cast<asc::image::ColorMode>(mode);
        o.dct_scaling = dct_scaling;
        asc::Tensor out;
        {
          py::gil_scoped_release nogil;
          out = asc::image::preprocess_batch(srcs, o, exif, threads);
        }
        return out;
      },
      py::arg("items"), py::arg("names"), py::arg("resize_short"), py::arg("crop_h"), py::arg("crop_w"),
      py::arg("mean"), py::arg("std"), py::arg("scale"), py::arg("mode"), py::arg("exif"), py::arg("dct_scaling"),
      py::arg("threads"));
  im.def(
      "preprocess_decoded",
      [](py::handle img, int64_t resize_short, int64_t crop_h, int64_t crop_w, std::vector<float> mean,
         std::vector<float> stdv, float scale) {
        const asc::Tensor t = tensor_from_py(img);
        asc::image::PreprocessOptions o;
        o.resize_short = resize_short;
        o.crop_h = crop_h;
        o.crop_w = crop_w;
        for (int k = 0; k < 3; ++k) {
          o.mean[k] = mean.at(size_t(k));
          o.std[k] = stdv.at(size_t(k));
        }
        o.scale = scale;
        asc::Tensor out = asc::Tensor::empty(asc::Shape{3, crop_h, crop_w}, asc::DType::kFloat32);
        {
          py::gil_scoped_release nogil;
          asc::image::resize_crop_normalize(t, o, out.data_as<float>());
        }
        return out;
      },
      py::arg("img"), py::arg("resize_short"), py::arg("crop_h"), py::arg("crop_w"), py::arg("mean"),
      py::arg("std"), py::arg("scale"));
  im.def(
      "resize",
      [](py::handle img, int64_t h, int64_t w, bool bilinear) {
        const asc::Tensor t = tensor_from_py(img);
        py::gil_scoped_release nogil;
        return asc::image::resize(t, h, w, bilinear);
      },
      py::arg("img"), py::arg("h"), py::arg("w"), py::arg("bilinear") = true);
  im.def(
      "resample",
      [](py::handle img, int64_t h, int64_t w, int mode, bool antialias, int threads) {
        const asc::Tensor t = tensor_from_py(img);
        py::gil_scoped_release nogil;
        return asc::image::resample(t, h, w, static_cast<asc::image::Interp>(mode), antialias, threads);
      },
      py::arg("img"), py::arg("h"), py::arg("w"), py::arg("mode"), py::arg("antialias") = false,
      py::arg("threads") = 0);
  im.def(
      "encode_jpeg",
      [](py::handle img, int quality) {
        const asc::Tensor t = tensor_from_py(img);
        std::vector<uint8_t> b;
        {
          py::gil_scoped_release nogil;
          b = asc::image::encode_jpeg(t, quality);
        }
        return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
      },
      py::arg("img"), py::arg("quality") = 75);
  im.def(
      "encode_png",
      [](py::handle img) {
        const asc::Tensor t = tensor_from_py(img);
        std::vector<uint8_t> b;
        {
          py::gil_scoped_release nogil;
          b = asc::image::encode_png(t);
        }
        return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
      },
      py::arg("img"));
}

}  // namespace pyasc
