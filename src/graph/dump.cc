// Graph dumps (ASCEND_DUMP_GRAPH=1): JSON and Graphviz DOT of every
// materialised graph, before and after fusion. Format: docs/graph_dump.md.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>

#include "asc/core/log.h"
#include "graph/internal.h"

namespace asc::graph {
namespace detail {
namespace {

struct DumpConfig {
  std::mutex mu;                   // guards path
  std::atomic<bool> enabled{false};  // read on every flush (one load, no lock)
  std::string path = "./graph_dump";
};

DumpConfig& config() {
  static auto* c = [] {
    auto* cfg = new DumpConfig();
    const char* e = std::getenv("ASCEND_DUMP_GRAPH");
    cfg->enabled = e && *e && std::strcmp(e, "0") != 0;
    if (const char* p = std::getenv("ASCEND_DUMP_GRAPH_PATH"); p && *p) cfg->path = p;
    return cfg;
  }();
  return *c;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string json_dims(const DimVector& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) o += (i ? "," : "") + std::to_string(v[i]);
  return o + "]";
}

std::string dims_text(const DimVector& v) {
  std::string o = "(";
  for (size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + std::to_string(v[i]);
  return o + (v.size() == 1 ? ",)" : ")");
}

bool make_dirs(const std::string& path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

const char* buffer_kind(const Node& n, const std::vector<Group>* groups) {
  if (!groups) return "pending";
  if (n.live) return "pool:output";
  if (n.needs_buffer) return "pool:temporary";
  (void)groups;
  return "ub";
}

}  // namespace

void dump_graph(const std::vector<Node*>& nodes, const std::vector<Group>* groups, bool after, int64_t seq) {
  DumpConfig& cfg = config();
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(cfg.mu);
    dir = cfg.path;
  }
  if (!make_dirs(dir)) {
    ASC_LOG_WARNING("graph", "cannot create graph dump directory " << dir);
    return;
  }
  const std::string stem = dir + "/graph_" + std::to_string(::getpid()) + "_" + std::to_string(seq) +
                           (after ? ".after" : ".before");
  // Leaves: one id per distinct storage view.
  std::unordered_map<const Storage*, int> leaf_id;
  std::ostringstream leaves;
  auto leaf_of = [&](const Input& in) {
    const Storage* s = in.leaf.storage().get();
    auto it = leaf_id.find(s);
    if (it != leaf_id.end()) return it->second;
    const int id = static_cast<int>(leaf_id.size());
    leaf_id.emplace(s, id);
    leaves << (id ? ",\n    " : "\n    ") << "{\"id\":" << id << ",\"bytes\":" << s->nbytes()
           << ",\"kind\":" << json_str(s->is_inline() ? "constant" : s->is_external() ? "external" : "pool") << "}";
    return id;
  };
  std::ostringstream js, dot;
  js << "{\n  \"graph\": " << seq << ",\n  \"stage\": \"" << (after ? "after" : "before") << "\",\n  \"nodes\": [";
  dot << "digraph graph_" << seq << " {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  bool first = true;
  std::ostringstream edges;
  for (const Node* n : nodes) {
    js << (first ? "\n    " : ",\n    ");
    first = false;
    js << "{\"id\":" << n->id << ",\"op\":" << json_str(n->name) << ",\"kind\":\""
       << (n->kind == Kind::kReduce ? "reduce" : "elementwise") << "\",\"shape\":" << json_dims(n->shape)
       << ",\"dtype\":\"" << dtype_name(n->dtype) << "\"";
    if (n->kind == Kind::kReduce) {
      DimVector axes;
      for (size_t d = 0; d < n->mask.size(); ++d)
        if (n->mask[d]) axes.push_back(static_cast<int64_t>(d));
      js << ",\"params\":{\"axes\":" << json_dims(axes) << ",\"keepdims\":" << (n->keepdims ? "true" : "false");
      if (n->arg) js << ",\"arg\":\"" << (n->arg == 1 ? "max" : "min") << "\"";  // argmax/argmin: int64 index
      js << "}";
    } else {
      js << ",\"params\":{}";
    }
    js << ",\"live\":" << (n->live ? "true" : "false");
    if (!after) js << ",\"needed\":" << (n->needed ? "true" : "false");
    if (n->alias) js << ",\"alias_of\":" << n->alias->id;
    if (n->pass) {  // rewritten by a graph pass (passes.cc): which, and the nodes it replaced
      js << ",\"pass\":" << json_str(n->pass) << ",\"replaces\":[";
      for (int k = 0; k < n->nreplaced; ++k) js << (k ? "," : "") << n->replaced[k];
      js << "]";
    }
    js << ",\"inputs\":[";
    for (int i = 0; i < n->nin; ++i) {
      const Input& in = n->in[i];
      js << (i ? "," : "");
      if (in.node) {
        js << "{\"node\":" << in.node->id;
        edges << "  n" << in.node->id << " -> n" << n->id;
        if (after && !in.fused) edges << " [style=dashed]";
        edges << ";\n";
      } else {
        const int lid = leaf_of(in);
        js << "{\"leaf\":" << lid;
        edges << "  l" << lid << " -> n" << n->id << ";\n";
      }
      js << ",\"shape\":" << json_dims(in.shape) << ",\"strides\":" << json_dims(in.strides)
         << ",\"offset\":" << in.offset << ",\"dtype\":\"" << dtype_name(in.dtype) << "\"";
      if (after && in.node) js << ",\"fused\":" << (in.fused ? "true" : "false");
      js << "}";
    }
    js << "]";
    const int64_t bytes = shape_numel(n->shape) * static_cast<int64_t>(dtype_size(n->dtype));
    if (after) {
      js << ",\"group\":" << n->group << ",\"buffer\":{\"kind\":\"" << buffer_kind(*n, groups)
         << "\",\"bytes\":" << (n->needs_buffer ? bytes : 0) << "}";
    }
    js << "}";
  }
  js << "\n  ],\n  \"leaves\": [" << leaves.str() << "\n  ]";
  // DOT nodes (clusters per group after fusion).
  auto dot_node = [&](const Node* n) {
    dot << "    n" << n->id << " [label=\"" << n->id << ": " << n->name << (n->pass ? " (pass " : "")
        << (n->pass ? n->pass : "") << (n->pass ? ")" : "") << "\\n" << dims_text(n->shape) << " "
        << dtype_name(n->dtype) << "\"" << (n->live ? ", penwidth=2" : "") << (!after && !n->needed ? ", style=dotted" : "")
        << "];\n";
  };
  if (after && groups) {
    js << ",\n  \"groups\": [";
    for (size_t gi = 0; gi < groups->size(); ++gi) {
      const Group& g = (*groups)[gi];
      js << (gi ? ",\n    " : "\n    ") << "{\"id\":" << gi << ",\"mode\":\"" << mode_name(g.mode)
         << "\",\"domain\":" << json_dims(g.domain) << ",\"nodes\":[";
      for (size_t i = 0; i < g.nodes.size(); ++i) js << (i ? "," : "") << g.nodes[i]->id;
      js << "],\"tile\":" << g.tile << ",\"ub_bytes\":" << g.ub_bytes << ",\"chains\":\"" << g.chains
         << "\",\"time_ms\":" << g.ms << "}";
      dot << "  subgraph cluster_" << gi << " {\n    label=\"group " << gi << " (" << mode_name(g.mode) << ", "
          << g.ms << " ms)\";\n";
      for (const Node* n : g.nodes) dot_node(n);
      dot << "  }\n";
    }
    js << "\n  ]";
  } else {
    for (const Node* n : nodes) dot_node(n);
  }
  for (const auto& kv : leaf_id)
    dot << "  l" << kv.second << " [shape=ellipse, label=\"leaf " << kv.second << "\"];\n";
  dot << edges.str() << "}\n";
  js << "\n}\n";
  std::ofstream(stem + ".json") << js.str();
  std::ofstream(stem + ".dot") << dot.str();
}

}  // namespace detail

void set_dump(bool enabled, const std::string& path) {
  detail::DumpConfig& c = detail::config();
  std::lock_guard<std::mutex> lock(c.mu);
  if (!path.empty()) c.path = path;
  c.enabled.store(enabled, std::memory_order_release);
}

bool dump_enabled() noexcept { return detail::config().enabled.load(std::memory_order_acquire); }

std::string dump_path() {
  detail::DumpConfig& c = detail::config();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.path;
}

}  // namespace asc::graph
