// Lazy graphs: evaluation, eager mode, the pending-size bound, dumps and
// counters (asc/graph/graph.h), plus ndarray.eval().
#include <pybind11/stl.h>

#include <vector>

#include "asc/core/tensor.h"
#include "asc/graph/graph.h"
#include "bindings.h"

namespace pyasc {

namespace {

// asc.eval(x) on one small pending array is most of the per-op cost of a
// tiny lazy graph next to the op itself; pybind11's *args dispatch and type
// look-ups cost more than the graph work. So `lazy_eval` is a METH_FASTCALL
// function: one exact ndarray that is final, or whose graph finishes on this
// thread (try_eval), is returned at once; everything else (several
// arguments, waiting for a stream without the GIL, raising the work's
// error) goes to the pybind11 function `_lazy_eval`.
PyTypeObject* g_ndarray_type = nullptr;
PyObject* g_eval_general = nullptr;

PyObject* eval_fastcall(PyObject*, PyObject* const* args, Py_ssize_t nargs) noexcept {
  if (nargs == 1 && Py_TYPE(args[0]) == g_ndarray_type) {
    // The exact type: the C++ value is the instance's first value holder (no
    // registry look-up, which pybind11's cast does).
    auto* inst = reinterpret_cast<py::detail::instance*>(args[0]);
    const py::detail::value_and_holder vh = inst->get_value_and_holder();
    if (!vh.holder_constructed()) {  // ndarray.__new__(ndarray) without __init__
      PyErr_SetString(PyExc_TypeError, "[eval] the ndarray was never initialised");
      return nullptr;
    }
    const auto* t = static_cast<const asc::Tensor*>(vh.value_ptr());
    if (t) {
      try {
        if (!t->is_pending() || asc::graph::try_eval(t, 1)) return py::handle(args[0]).inc_ref().ptr();
      } catch (...) {  // failed work: the general entry raises its error
      }
    }
  }
  return PyObject_Vectorcall(g_eval_general, args, static_cast<size_t>(nargs), nullptr);
}

constexpr const char* kEvalDoc = R"doc(eval(*arrays)

Materialises ``arrays`` (runs their pending graphs and waits for them);
returns them: ``asc.eval(x)`` returns ``x``, ``asc.eval(x, y)`` returns
``(x, y)``; non-array arguments are passed through. Errors of the pending
work are raised here.)doc";

PyMethodDef g_eval_def = {"lazy_eval", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&eval_fastcall)),
                          METH_FASTCALL, kEvalDoc};

}  // namespace

void init_graph(py::module_& m) {
  namespace g = asc::graph;
  // Observing a value that a stream still computes waits for the stream, whose
  // queue may hold a Python callback first: wait without the GIL.
  g::set_wait_hook([](void (*wait)(void*), void* arg) {
    if (Py_IsInitialized() && PyGILState_Check()) {
      py::gil_scoped_release nogil;
      wait(arg);
    } else {
      wait(arg);
    }
  });
  m.def(
      "graph_eval",
      [](const std::vector<asc::Tensor>& ts) {
        py::gil_scoped_release nogil;  // the work may take long; other Python threads keep running
        g::eval(ts);
      },
      py::arg("arrays"), "Materialises the given arrays (and their pending graphs).");
  m.def(
      "_lazy_eval",
      [](py::args args) -> py::object {
        if (args.size() == 1) {  // the common case, without a vector
          py::handle h = args[0];
          if (py::isinstance<asc::Tensor>(h)) {
            const asc::Tensor& t = h.cast<const asc::Tensor&>();
            if (!g::try_eval(&t, 1)) {
              py::gil_scoped_release nogil;
              g::eval({t});
            }
          }
          return args[0];
        }
        std::vector<asc::Tensor> ts;
        ts.reserve(args.size());
        for (py::handle h : args)
          if (py::isinstance<asc::Tensor>(h)) ts.push_back(h.cast<const asc::Tensor&>());
        // Small work on idle streams finishes here without giving up the GIL;
        // waiting for a stream releases it (stream callbacks may need it).
        if (!ts.empty() && !g::try_eval(ts.data(), ts.size())) {
          py::gil_scoped_release nogil;
          g::eval(ts);
        }
        if (args.size() == 1) return args[0];
        return std::move(args);
      },
      "asc.eval's general entry (see lazy_eval).");
  g_ndarray_type = reinterpret_cast<PyTypeObject*>(m.attr("ndarray").ptr());
  g_eval_general = py::object(m.attr("_lazy_eval")).release().ptr();  // held for the module's lifetime
  PyObject* eval_fn = PyCFunction_NewEx(&g_eval_def, nullptr, m.attr("__name__").ptr());
  if (!eval_fn) throw py::error_already_set();
  m.attr("lazy_eval") = py::reinterpret_steal<py::object>(eval_fn);
  m.def(
      "graph_flush",
      [](PyStream* s) {
        asc::runtime::Stream* st = s ? s->get() : nullptr;
        g::flush(st);  // enqueues only: never waits for a stream
      },
      py::arg("stream") = py::none(),
      "Starts the pending graph of `stream` (current stream if None) asynchronously on that stream.");
  m.def(
      "graph_flush_all", [] {
        py::gil_scoped_release nogil;
        g::flush_all();
      },
      "Materialises every pending graph of every stream and waits for it.");
  m.def("set_eager", &g::set_eager, py::arg("eager"),
        "Runs ops one by one (True) or records and fuses them (False, the default).");
  m.def("is_eager", &g::is_eager, "Whether ops run one by one.");
  m.def("graph_pending_nodes", &g::pending_nodes, "Nodes pending in the graph of the calling thread's current stream.");
  m.def("graph_max_nodes", &g::max_nodes, "The pending graph size bound (nodes).");
  m.def("graph_set_max_nodes", &g::set_max_nodes, py::arg("n"), "Sets the pending graph size bound (nodes).");
  m.def("graph_set_dump", &g::set_dump, py::arg("enabled"), py::arg("path") = "",
        "Turns graph dumps on or off (path: directory; empty keeps the current one).");
  m.def("graph_dump_enabled", &g::dump_enabled);
  m.def("graph_dump_path", &g::dump_path);
  m.def(
      "graph_stats",
      [] {
        const g::Stats s = g::stats();
        py::dict d;
        d["nodes_recorded"] = s.nodes_recorded;
        d["graphs_run"] = s.graphs_run;
        d["nodes_run"] = s.nodes_run;
        d["nodes_dead"] = s.nodes_dead;
        d["groups_run"] = s.groups_run;
        d["program_cache_hits"] = s.program_cache_hits;
        d["program_cache_misses"] = s.program_cache_misses;
        d["auto_flushes"] = s.auto_flushes;
        d["passes_fired"] = s.passes_fired;
        py::dict per_pass;
        per_pass["gelu"] = s.passes_fired_gelu;
        d["passes_fired_by_pass"] = per_pass;
        return d;
      },
      "Counters of the lazy graph since process start (passes_fired: subgraphs rewritten by graph passes).");
  py::object cls = m.attr("ndarray");
  cls.attr("eval") = py::cpp_function(
      [](py::object self) {
        const asc::Tensor& t = self.cast<const asc::Tensor&>();
        if (!g::try_eval(&t, 1)) {
          py::gil_scoped_release nogil;
          g::eval({t});
        }
        return self;
      },
      py::is_method(cls), py::name("eval"), "Materialises this array (runs its pending graph); returns self.");
  cls.attr("is_pending") = py::cpp_function([](const asc::Tensor& t) { return t.is_pending(); }, py::is_method(cls),
                                            py::name("is_pending"),
                                            "Whether the value is still pending (recorded, not computed).");
}

}  // namespace pyasc
