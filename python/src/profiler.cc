// The profiler's event recording (asc/runtime/profiler.h) as pyasc._C.profiler.
#include "asc/runtime/profiler.h"

#include "asc/runtime/launch.h"

#include <pybind11/stl.h>

#include <string>

#include "bindings.h"

namespace pyasc {

namespace prof = asc::runtime::profiler;

void init_profiler(py::module_& m) {
  py::module_ p = m.def_submodule("profiler", "Runtime trace events (use pyasc.profiler).");

  py::enum_<prof::EventKind>(p, "EventKind", "Kinds of recorded events.")
      .value("launch", prof::EventKind::kLaunch)
      .value("kernel", prof::EventKind::kKernel)
      .value("block", prof::EventKind::kBlock)
      .value("memcpy", prof::EventKind::kMemcpy)
      .value("alloc", prof::EventKind::kAlloc)
      .value("free", prof::EventKind::kFree)
      .value("stream_wait", prof::EventKind::kStreamWait)
      .value("event_record", prof::EventKind::kEventRecord)
      .value("callback", prof::EventKind::kCallback)
      .value("range", prof::EventKind::kRange)
      .value("op", prof::EventKind::kOpCall)
      .value("synchronize", prof::EventKind::kSync);

  p.def("start", &prof::start, py::arg("capacity") = size_t(1) << 20,
        "Starts recording into a fresh ring buffer of `capacity` events.");
  p.def("stop", &prof::stop, "Stops recording; events stay readable until the next start().");
  p.def("enabled", &prof::enabled, "True while recording.");
  p.def("dropped", &prof::dropped, "Events overwritten because the ring buffer was full.");
  p.def("recorded", &prof::recorded, "Events recorded since start(), including dropped ones.");
  p.def("now_ns", &prof::now_ns, "Nanoseconds since the profiler epoch (the clock of event timestamps).");
  p.def(
      "events",
      [] {
        std::vector<prof::TraceEvent> ev;
        {
          py::gil_scoped_release nogil;
          ev = prof::events();
        }
        py::list out;
        for (const auto& e : ev) {
          py::dict d;
          d["kind"] = prof::event_kind_name(e.kind);
          d["name"] = e.name;
          d["ts_ns"] = e.ts_ns;
          d["dur_ns"] = e.dur_ns;
          d["stream_id"] = e.stream_id;
          d["core"] = e.core;
          d["thread_id"] = e.thread_id;
          d["bytes"] = e.bytes;
          d["flow_id"] = e.flow_id;
          d["block_dim"] = e.block_dim;
          d["block_idx"] = e.block_idx;
          d["value"] = e.value;
          d["detail"] = e.detail;
          out.append(std::move(d));
        }
        return out;
      },
      "The recorded events, oldest first, as dicts (kind, name, ts_ns, dur_ns, stream_id, core, "
      "thread_id, bytes, flow_id, block_dim, block_idx, value, detail).");
  p.def(
      "record",
      [](prof::EventKind kind, std::string name, int64_t ts_ns, int64_t dur_ns, std::string detail,
         uint64_t bytes) {
        if (!prof::enabled()) return;
        prof::TraceEvent e;
        e.kind = kind;
        e.name = std::move(name);
        e.ts_ns = ts_ns;
        e.dur_ns = dur_ns;
        e.detail = std::move(detail);
        e.bytes = bytes;
        prof::record(std::move(e));
      },
      py::arg("kind"), py::arg("name"), py::arg("ts_ns"), py::arg("dur_ns") = 0, py::arg("detail") = "",
      py::arg("bytes") = 0, "Records an event from Python (user ranges, operator calls); no-op when off.");

  // Testing API (not public): launch a kernel that does nothing, or fails, on
  // the current stream, so the Python tests can trace kernels without an
  // operator library.
  m.def(
      "_testing_launch",
      [](const std::string& name, uint32_t block_dim, bool fail) {
        asc::launch(
            name,
            [fail] {
              if (fail) throw asc::Error(asc::ErrorCode::kInvalidParam, "[_testing_launch] requested failure");
            },
            block_dim, nullptr);
      },
      py::arg("name"), py::arg("block_dim"), py::arg("fail") = false,
      "TESTING ONLY: enqueue an empty (or failing) kernel on the current stream.");
}

}  // namespace pyasc
