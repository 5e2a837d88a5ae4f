// Lazy graphs: evaluation, eager mode, the pending-size bound, dumps and
// counters (asc/graph/graph.h), plus ndarray.eval().
#include <pybind11/stl.h>

#include <vector>

#include "asc/core/tensor.h"
#include "asc/graph/graph.h"
#include "bindings.h"

namespace pyasc {

void init_graph(py::module_& m) {
  namespace g = asc::graph;
  m.def(
      "graph_eval",
      [](const std::vector<asc::Tensor>& ts) {
        py::gil_scoped_release nogil;  // the work may take long; other Python threads keep running
        g::eval(ts);
      },
      py::arg("arrays"), "Materialises the given arrays (and their pending graphs).");
  m.def(
      "graph_flush_all", [] {
        py::gil_scoped_release nogil;
        g::flush_all();
      },
      "Materialises every pending graph of every thread.");
  m.def("set_eager", &g::set_eager, py::arg("eager"),
        "Runs ops one by one (True) or records and fuses them (False, the default).");
  m.def("is_eager", &g::is_eager, "Whether ops run one by one.");
  m.def("graph_pending_nodes", &g::pending_nodes, "Nodes pending in the calling thread's graph.");
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
        return d;
      },
      "Counters of the lazy graph since process start.");
  py::object cls = m.attr("ndarray");
  cls.attr("eval") = py::cpp_function(
      [](py::object self) {
        asc::Tensor t = self.cast<asc::Tensor>();
        {
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
