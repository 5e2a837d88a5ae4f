// Streams and events (asc/runtime/stream.h).
//
// GIL rules: everything that may block (synchronize, event synchronize, dropping
// the last reference to a stream, which drains it) runs with the GIL released;
// host callbacks re-acquire it on the stream's worker thread. A Python exception
// in a callback becomes an asc::Error stored on the stream and raised by the
// next synchronize().
#include "asc/runtime/stream.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "asc/core/status.h"
#include "bindings.h"

namespace pyasc {

namespace rt = asc::runtime;

bool interpreter_alive() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

void release_stream_without_gil(std::shared_ptr<rt::Stream>& s) noexcept {
  // Dropping the last reference drains the stream, whose callbacks may need the
  // GIL. (Dropped from the stream's own worker, ~Stream does not wait.)
  if (s && Py_IsInitialized() && PyGILState_Check()) {
    py::gil_scoped_release nogil;
    s.reset();
  } else {
    s.reset();
  }
}

PyStream::~PyStream() { release_stream_without_gil(stream); }

namespace {

/// A Python object that may be copied and destroyed on threads without the GIL
/// (the std::function of a stream task is). Destruction takes the GIL; after
/// interpreter shutdown the object is leaked instead.
std::shared_ptr<py::object> hold_python_object(py::object obj) {
  return std::shared_ptr<py::object>(new py::object(std::move(obj)), [](py::object* p) {
    if (interpreter_alive()) {
      py::gil_scoped_acquire gil;
      delete p;
    } else {
      p->release();
      delete p;
    }
  });
}

/// Runs a Python callable on a stream worker; a Python exception becomes
/// asc::Error (code and message from pyasc.errors._callback_failure).
void run_python_callback(const std::shared_ptr<py::object>& fn) {
  if (!interpreter_alive()) {
    throw asc::Error(asc::ErrorCode::kFailure,
                     "[host_callback] skipped: the Python interpreter is shutting down");
  }
  py::gil_scoped_acquire gil;
  try {
    (*fn)();
  } catch (py::error_already_set& err) {
    int code = static_cast<int>(asc::ErrorCode::kFailure);
    std::string message = std::string("[host_callback] ") + err.what();
    try {
      py::tuple info = py::module_::import("pyasc.errors").attr("_callback_failure")(err.value());
      code = info[0].cast<int>();
      message = info[1].cast<std::string>();
    } catch (py::error_already_set&) {
      // Keep the generic description built above.
    }
    throw asc::Error(static_cast<asc::ErrorCode>(code), message);
  }
}

/// Per-thread stack of the streams that `with stream:` blocks replaced.
struct EnteredStream {
  rt::Stream* entered;
  std::shared_ptr<rt::Stream> previous;
};
thread_local std::vector<EnteredStream> t_entered;

std::unique_ptr<PyStream> wrap(std::shared_ptr<rt::Stream> s) {
  return std::make_unique<PyStream>(std::move(s));
}

uintptr_t address_of(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

void init_stream(py::module_& m) {
  py::class_<rt::Event> event(m, "Event",
                              "A marker in a stream: record() captures the work enqueued on a "
                              "stream so far; synchronize()/query() wait for or test it; "
                              "elapsed_time() measures between two events (milliseconds).");
  py::class_<PyStream> stream(m, "Stream",
                              "An in-order asynchronous queue of device work with its own "
                              "worker. `with stream:` makes it the calling thread's current "
                              "stream (nestable; the previous one is restored on exit).");

  event
      .def(py::init<bool>(), py::arg("enable_timing") = true,
           "Creates an event; with enable_timing it records timestamps for elapsed_time().")
      .def(
          "record",
          [](rt::Event& e, PyStream* s) { e.record(s ? s->get() : nullptr); },
          py::arg("stream") = py::none(),
          "Records the event on `stream` (the current stream when None).")
      .def(
          "synchronize",
          [](const rt::Event& e) {
            asc::Status st;
            {
              py::gil_scoped_release nogil;
              st = e.synchronize();
            }
            st.ThrowIfError();
          },
          "Blocks until the recorded work has finished (returns at once if never recorded).")
      .def("query", &rt::Event::query,
           "True when the recorded work has finished (or the event was never recorded).")
      .def(
          "elapsed_time",
          [](const rt::Event& e, const rt::Event& end) { return e.elapsed_time(end).ValueOrThrow(); },
          py::arg("end_event"),
          "Milliseconds from this event to `end_event` (both recorded with timing and complete).")
      .def(
          "wait",
          [](const rt::Event& e, PyStream* s) {
            rt::Stream* target = s ? s->get() : nullptr;
            if (target) {
              target->wait_event(e);
            } else {
              rt::current_stream()->wait_event(e);
            }
          },
          py::arg("stream") = py::none(),
          "Makes `stream` (the current stream when None) wait for this event before later work.")
      .def_property_readonly("enable_timing", &rt::Event::timing_enabled,
                             "Whether the event records timestamps.")
      .def("__repr__", [](const rt::Event& e) {
        return std::string("<pyasc.Event enable_timing=") + (e.timing_enabled() ? "True" : "False") +
               ">";
      });

  stream
      .def(py::init([] { return wrap(rt::Stream::create()); }),
           "Creates a new stream on the current device.")
      .def_property_readonly(
          "id", [](const PyStream& s) { return s.get()->id(); }, "Unique id of the stream.")
      .def_property_readonly(
          "handle", [](const PyStream& s) { return address_of(s.get()); },
          "Address of the C++ asc::runtime::Stream (an aclrtStream for ACL host code and "
          "ACLRT_LAUNCH_KERNEL).")
      .def(
          "synchronize",
          [](const PyStream& s) {
            asc::Status st;
            {
              py::gil_scoped_release nogil;
              st = s.get()->synchronize();
            }
            st.ThrowIfError();
          },
          "Waits for all work enqueued so far; raises the first error stored by that work "
          "(a failed kernel, a raising callback) and clears it, so the stream stays usable.")
      .def(
          "query", [](const PyStream& s) { return s.get()->query(); },
          "True when all enqueued work has finished.")
      .def(
          "wait_event", [](const PyStream& s, const rt::Event& e) { s.get()->wait_event(e); },
          py::arg("event"), "Later work on this stream waits until `event`'s recorded work is done.")
      .def(
          "record_event",
          [](const PyStream& s, rt::Event* event) -> py::object {
            if (event) {
              event->record(s.get());
              return py::cast(event, py::return_value_policy::reference);
            }
            py::object fresh = py::cast(rt::Event(true));
            fresh.cast<rt::Event&>().record(s.get());
            return fresh;
          },
          py::arg("event") = py::none(),
          "Records `event` (a new timing Event when None) on this stream and returns it.")
      .def(
          "add_callback",
          [](const PyStream& s, py::function fn) {
            auto held = hold_python_object(std::move(fn));
            s.get()->add_callback([held] {
              run_python_callback(held);
            });
          },
          py::arg("fn"),
          "Runs `fn()` on the stream's worker after the work enqueued before it (in order). "
          "An exception in `fn` is raised by the next synchronize(). Waiting for this stream "
          "from `fn` (its synchronize(), pyasc.synchronize(), an event recorded behind `fn`) "
          "raises AscendRuntimeError instead of waiting for `fn` itself forever.")
      .def(
          "__enter__",
          [](py::object self) {
            PyStream& s = self.cast<PyStream&>();
            t_entered.push_back({s.get(), rt::current_stream()});
            rt::set_current_stream(s.stream);
            return self;
          },
          "Makes this stream current for the calling thread.")
      .def(
          "__exit__",
          [](PyStream& s, py::args) {
            if (t_entered.empty() || t_entered.back().entered != s.get()) {
              throw asc::Error(asc::ErrorCode::kInvalidParam,
                               "[Stream.__exit__] stream contexts exited out of order");
            }
            std::shared_ptr<rt::Stream> previous = std::move(t_entered.back().previous);
            t_entered.pop_back();
            py::gil_scoped_release nogil;
            rt::set_current_stream(std::move(previous));
          },
          "Restores the stream that was current before the matching __enter__.")
      .def(
          "__eq__",
          [](const PyStream& a, py::object b) {
            return py::isinstance<PyStream>(b) && a.get()->id() == b.cast<const PyStream&>().get()->id();
          },
          py::arg("other"))
      .def("__hash__", [](const PyStream& s) { return std::hash<uint64_t>()(s.get()->id()); })
      .def("__repr__", [](const PyStream& s) {
        return "<pyasc.Stream id=" + std::to_string(s.get()->id()) + ">";
      });

  m.def(
      "current_stream", [] { return wrap(rt::current_stream()); },
      "The calling thread's current stream (its own default stream unless another is set).");
  m.def(
      "default_stream", [] { return wrap(rt::default_stream()); },
      "The calling thread's default stream (each thread has its own).");
  m.def(
      "set_current_stream",
      [](PyStream* s) {
        std::shared_ptr<rt::Stream> next = s ? s->stream : nullptr;
        py::gil_scoped_release nogil;
        rt::set_current_stream(std::move(next));
      },
      py::arg("stream"),
      "Makes `stream` current for the calling thread (None restores the thread's default).");
  m.def(
      "synchronize",
      [] {
        asc::Status st;
        {
          py::gil_scoped_release nogil;
          st = rt::synchronize_device();
        }
        st.ThrowIfError();
      },
      "Waits for all work on every stream; raises the first error found.");
}

}  // namespace pyasc
