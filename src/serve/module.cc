// pyasc._serve_native: bindings of the native gRPC front end (native_server.h) and the lean
// benchmark client (bench_client.h). Thin: the Python side is python/pyasc/serve/native.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bench_client.h"
#include "native_server.h"

namespace py = pybind11;
using pyasc_serve::NativeServer;

namespace {

// Keeps the Python callables alive as long as the server, and stops it without the GIL (its
// threads take the GIL to finish their calls). A server whose stop abandoned threads inside
// model calls is never freed, nor are the callables those threads may still call: the leak
// of one server object is the price of a stop that does not wait for a call that never ends.
struct Server {
  py::object infer, dispatch;
  std::unique_ptr<NativeServer> impl;
  ~Server() {
    if (impl && impl->running()) {
      py::gil_scoped_release nogil;
      impl->Stop(0.0);
    }
    if (impl && impl->abandoned() > 0) {
      (void)impl.release();
      (void)infer.release();
      (void)dispatch.release();
    }
  }
};

}  // namespace

PYBIND11_MODULE(_serve_native, m) {
  m.doc() = "pyasc-serve's native gRPC front end (gRPC C++); used by pyasc.serve.native";
  py::class_<Server>(m, "NativeServer")
      .def(py::init([](py::object infer, py::object dispatch, std::string address, int max_message_bytes,
                       int threads, bool empty_infer, int spin_us,
                       std::vector<std::pair<std::string, int>> channel_args, int queues,
                       int offload_threads, int inline_us, bool trace) {
             auto s = std::make_unique<Server>();
             s->infer = std::move(infer);
             s->dispatch = std::move(dispatch);
             pyasc_serve::NativeOptions o{std::move(address), max_message_bytes, threads, empty_infer, spin_us,
                                          std::move(channel_args), queues, offload_threads, inline_us, trace};
             s->impl = std::make_unique<NativeServer>(s->infer.ptr(), s->dispatch.ptr(), std::move(o));
             return s;
           }),
           py::arg("infer"), py::arg("dispatch"), py::arg("address"), py::arg("max_message_bytes"),
           py::arg("threads"), py::arg("empty_infer") = false, py::arg("spin_us") = 0,
           py::arg("channel_args") = std::vector<std::pair<std::string, int>>{}, py::arg("queues") = 0,
           py::arg("offload_threads") = 0, py::arg("inline_us") = 200, py::arg("trace") = false)
      .def("start", [](Server& s) { return s.impl->Start(); }, py::call_guard<py::gil_scoped_release>(),
           "Binds and starts; returns the bound port (0: the address could not be bound).")
      .def("stop", [](Server& s, double grace, double abandon) { return s.impl->Stop(grace, abandon); },
           py::arg("grace") = 2.0, py::arg("abandon") = 1.0, py::call_guard<py::gil_scoped_release>(),
           "Stops (idempotent); calls still running after `grace` seconds are cancelled, and threads still "
           "inside a model call `abandon` seconds later are left running, detached. Returns how many "
           "threads were abandoned (0: all joined).")
      .def_property_readonly("abandoned", [](Server& s) { return s.impl->abandoned(); })
      .def("take_traces", [](Server& s) { return s.impl->TakeTraces(); },
           "trace=True: per unary ModelInfer since the last call, the ns between its stages: read -> parsed -> "
           "GIL held -> inputs converted -> Python returned -> response built -> serialised -> write issued "
           "-> write completed (8 values)")
      .def_property_readonly("running", [](Server& s) { return s.impl->running(); });
  m.def(
      "bench_unary",
      [](const std::string& target, const std::string& method, py::bytes payload, int concurrency, int requests,
         int warmup, int max_message_bytes, std::vector<std::pair<std::string, int>> channel_args) {
        std::string body = payload;
        pyasc_serve::BenchResult r;
        {
          py::gil_scoped_release nogil;
          r = pyasc_serve::BenchUnary(target, method, body, concurrency, requests, warmup, max_message_bytes,
                                      channel_args);
        }
        return py::make_tuple(r.latencies_ns, r.wall_ns, r.errors, r.first_error);
      },
      py::arg("target"), py::arg("method"), py::arg("payload"), py::arg("concurrency") = 1, py::arg("requests") = 1000,
      py::arg("warmup") = 50, py::arg("max_message_bytes") = 64 << 20,
      py::arg("channel_args") = std::vector<std::pair<std::string, int>>{},
      "Lean benchmark client: `concurrency` threads send the pre-serialised `payload` to `method` "
      "`requests` times each; returns (latencies_ns, wall_ns, errors, first_error). `channel_args`: "
      "[(name, int)] extra client channel arguments.");
}
