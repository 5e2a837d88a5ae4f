// Lazy graph recording, the storage hooks and materialisation (flush).
//
// Locking: one process-wide recursive mutex guards every graph, every node
// and the lazy fields of storages. Recording holds it for a few hundred
// nanoseconds; a flush holds it while its tile programs run (they use all
// cores anyway). Nodes and leaf tensors a flush releases are destroyed after
// the outermost lock is released: dropping a leaf may release a NumPy array
// (which takes the GIL), and the GIL must never be requested under our lock.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "asc/core/log.h"
#include "asc/runtime/device.h"
#include "asc/runtime/profiler.h"
#include "asc/runtime/stream.h"
#include "graph/internal.h"

namespace asc::graph {
namespace detail {
namespace {

std::recursive_mutex& mu() {
  static auto* m = new std::recursive_mutex();  // leaked: usable during static destruction
  return *m;
}
std::vector<Graph*>& registry() {
  static auto* r = new std::vector<Graph*>();
  return *r;
}

// Objects released by flushes, destroyed once the outermost lock is dropped.
thread_local int t_depth = 0;
thread_local std::vector<std::shared_ptr<Node>>* t_garbage = nullptr;

/// The lock plus deferred destruction of what flushes released.
class Locked {
 public:
  Locked() {
    mu().lock();
    ++t_depth;
  }
  ~Locked() {
    std::vector<std::shared_ptr<Node>> garbage;
    if (--t_depth == 0 && t_garbage) garbage.swap(*t_garbage);
    mu().unlock();
    // `garbage` (nodes and the leaf tensors they hold) dies here, unlocked.
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

void add_garbage(std::vector<std::shared_ptr<Node>>&& nodes) {
  if (!t_garbage) t_garbage = new std::vector<std::shared_ptr<Node>>();  // per thread, reused
  for (auto& n : nodes) t_garbage->push_back(std::move(n));
}

std::atomic<bool> g_eager{[] {
  const char* e = std::getenv("PYASC_EAGER");
  return e && *e && std::strcmp(e, "0") != 0;
}()};
std::atomic<int64_t> g_max_nodes{[] {
  const char* e = std::getenv("ASC_GRAPH_MAX_NODES");
  const long long v = e ? std::atoll(e) : 0;
  return static_cast<int64_t>(v > 0 ? v : 1024);
}()};

void flush_graph(Graph& g);

/// The calling thread's graph; at thread exit whatever is still pending runs
/// (other threads may hold its tensors).
struct ThreadGraph {
  Graph* g = nullptr;
  ~ThreadGraph() {
    if (!g) return;
    try {
      Locked lock;
      flush_graph(*g);
      auto& r = registry();
      r.erase(std::remove(r.begin(), r.end(), g), r.end());
      delete g;
    } catch (...) {  // errors stay with the failed tensors
    }
  }
};
thread_local ThreadGraph t_graph;

Graph& thread_graph() {
  if (!t_graph.g) {
    t_graph.g = new Graph();
    registry().push_back(t_graph.g);
  }
  return *t_graph.g;
}

bool graph_reads(const Graph& g, const Storage* s) {
  for (const auto& n : g.nodes)
    for (int i = 0; i < n->nin; ++i)
      if (!n->in[i].node && n->in[i].leaf.storage().get() == s) return true;
  return false;
}

bool other_graph_reads(const Graph* self, const Storage* s) {
  for (Graph* g : registry())
    if (g != self && !g->nodes.empty() && graph_reads(*g, s)) return true;
  return false;
}

[[noreturn]] void throw_failed(const Node& n) { throw Error(n.error); }

Node* producer_of(const Storage& s) { return static_cast<Node*>(s.producer().get()); }

/// A pending tensor of another graph is materialised before use (graphs never
/// share nodes). Done for all operands before any is added, so that such a
/// flush cannot clear the read marks of this node's leaves.
void materialise_foreign(Graph& g, const Tensor& t) {
  const Storage* s = t.storage().get();
  if (!(s->lazy_flags() & Storage::kPendingWrite)) return;
  std::shared_ptr<void> keep = s->producer();
  Node* p = static_cast<Node*>(keep.get());
  if (!p->error.ok()) throw_failed(*p);
  if (p->graph && p->graph != &g) flush_graph(*p->graph);
  if (!p->error.ok()) throw_failed(*p);
}

/// Fills `in` from `t`: a leaf, or an edge to a pending node of `g`.
void add_input(Graph& g, Input& in, const Tensor& t) {
  const Storage* s = t.storage().get();
  if (s->lazy_flags() & Storage::kPendingWrite) {
    Node* p = producer_of(*s);
    if (!p->error.ok()) throw_failed(*p);
    if (p->graph == &g) {
      in.node = p;
      in.shape = t.shape();
      in.strides = t.strides();
      in.offset = t.offset();
      in.dtype = t.dtype();
      in.natural = t.offset() == 0 && t.dtype() == p->dtype && t.shape() == p->shape && t.is_contiguous();
      return;
    }
  }
  in.leaf = t;
  in.shape = t.shape();
  in.strides = t.strides();
  in.offset = t.offset();
  in.dtype = t.dtype();
  s->set_lazy_flags(static_cast<uint8_t>(s->lazy_flags() | Storage::kPendingRead));
}

Tensor finish_node(Graph& g, std::shared_ptr<Node> node) {
  const int64_t item = static_cast<int64_t>(dtype_size(node->dtype));
  const int64_t n = shape_numel(node->shape, node->name);
  auto st = Storage::deferred(static_cast<size_t>(n * item));
  node->graph = &g;
  node->id = static_cast<int32_t>(g.nodes.size());
  node->out = st;
  st->set_producer(node);
  st->set_lazy_flags(Storage::kPendingWrite);
  Tensor t = Tensor::view_of(st, node->dtype, node->shape, contiguous_strides(node->shape, item), 0);
  g.nodes.push_back(std::move(node));
  ++mutable_stats().nodes_recorded;
  if (static_cast<int64_t>(g.nodes.size()) >= g_max_nodes.load(std::memory_order_relaxed)) {
    ++mutable_stats().auto_flushes;
    flush_graph(g);
  }
  return t;
}

// ------------------------------------------------------------------ flush

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Node* resolve(Node* n) {
  while (n && n->alias) n = n->alias;
  return n;
}

/// Common-subexpression key of a node (inputs by identity: producer node or
/// leaf view; inline scalar constants by value).
std::string cse_key(const Node& n) {
  std::string k;
  auto put = [&k](const void* p, size_t len) { k.append(static_cast<const char*>(p), len); };
  auto put_i = [&put](int64_t v) { put(&v, sizeof v); };
  put(&n.kind, 1);
  put(&n.loop, sizeof n.loop);
  put(&n.dtype, 1);
  for (int64_t d : n.shape) put_i(d);
  put_i(-1);
  if (n.kind == Kind::kReduce) {
    for (int64_t m : n.mask) put_i(m);
    put(&n.keepdims, 1);
    put(n.identity, sizeof n.identity);
  }
  for (int i = 0; i < n.nin; ++i) {
    const Input& in = n.in[i];
    const Storage* st = in.node ? nullptr : in.leaf.storage().get();
    if (in.node) {
      const Node* p = resolve(in.node);
      put(&p, sizeof p);
    } else if (st->is_inline()) {
      const DType d = in.leaf.dtype();
      put(&d, 1);
      put(st->raw_data(), in.leaf.itemsize());
    } else {
      put(&st, sizeof st);
      const DType d = in.leaf.dtype();
      put(&d, 1);
    }
    for (int64_t d : in.shape) put_i(d);
    for (int64_t d : in.strides) put_i(d);
    put_i(in.offset);
  }
  return k;
}

bool is_scalar_view(const Input& in) {
  for (int64_t d : in.shape)
    if (d != 1) return false;
  return true;
}

/// Whether the value of producer `p` (in group `g`) can reach node `n`'s input
/// `in` inside the tile program (a register), given `n` would be a full node
/// (shape == domain) or a row node of `g`.
bool fusable_edge(const Group& g, const Node& /*n*/, bool n_is_row, const Input& in, const Node& p) {
  if (in.leaf.defined() && !in.node) return false;
  if (p.row_value) {
    if (g.mode != Mode::kRowFused) return false;
    if (n_is_row) return in.natural;
    // A full node reads a row value broadcast along the reduced axes: the view
    // is the keepdims shape (left-padded) of the row value's C-contiguous data.
    if (in.offset != 0) return false;
    const size_t nd = g.domain.size();
    if (in.shape.size() > nd) return false;
    const size_t pad = nd - in.shape.size();
    int64_t numel = 1;
    for (size_t d = 0; d < nd; ++d) {
      const int64_t s = d < pad ? 1 : in.shape[d - pad];
      const int64_t want = g.mask[d] ? 1 : g.domain[d];
      if (s != want) return false;
      numel *= s;
    }
    if (numel != g.K1) return false;
    // contiguous (strides of size-1 axes do not matter)
    int64_t acc = static_cast<int64_t>(dtype_size(p.dtype));
    for (size_t d = in.shape.size(); d-- > 0;) {
      if (in.shape[d] != 1 && in.strides[d] != acc) return false;
      acc *= in.shape[d];
    }
    return true;
  }
  if (p.kind == Kind::kReduce) return false;  // accumulators of reduce modes are complete only at the end
  if (n_is_row) return false;
  if (p.bcast) return in.natural;  // the consumer broadcasts it to the domain the same way
  return in.natural && p.shape == g.domain;
}

int64_t max_full_bytes_for_row(int64_t R) { return R > 0 ? ub_budget() / 2 / R : 0; }

Shape row_keep_shape(const Group& g) {
  Shape s = g.domain;
  for (size_t d = 0; d < s.size(); ++d)
    if (g.mask[d]) s[d] = 1;
  return s;
}
Shape row_drop_shape(const Group& g) {
  Shape s;
  for (size_t d = 0; d < g.domain.size(); ++d)
    if (!g.mask[d]) s.push_back(g.domain[d]);
  return s;
}

constexpr size_t kMaxGroupNodes = 64;

bool broadcasts_to(const Shape& s, const Shape& domain) {
  if (s.size() > domain.size()) return false;
  const size_t pad = domain.size() - s.size();
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != 1 && s[d] != domain[d + pad]) return false;
  return true;
}

/// A cast (or any op on a single element) whose result the group reads
/// broadcast: cheaper to recompute per tile element than to run as a group of
/// its own. Its operands must come from outside the group.
bool broadcast_recompute_ok(const Group& g, int gi, const Node& n) {
  if (n.live || !broadcasts_to(n.shape, g.domain)) return false;
  int64_t numel = 1;
  for (int64_t d : n.shape) numel *= d;
  if (std::strcmp(n.name, "astype") != 0 && numel != 1) return false;
  for (int i = 0; i < n.nin; ++i) {
    const Node* p = n.in[i].node;
    while (p && p->alias) p = p->alias;
    if (p && p->group >= gi) return false;
  }
  return true;
}

/// Tries to put `n` into group `gi`.
bool try_join(std::vector<Group>& groups, int gi, Node& n) {
  Group& g = groups[static_cast<size_t>(gi)];
  if (g.nodes.size() >= kMaxGroupNodes) return false;
  const int64_t item = static_cast<int64_t>(dtype_size(n.dtype));
  bool is_row = false;
  int64_t add_bytes = 0;
  if (n.kind == Kind::kElementwise) {
    if (n.shape == g.domain) {
      add_bytes = item;
    } else if (g.mode == Mode::kRowFused && (n.shape == row_keep_shape(g) || n.shape == row_drop_shape(g))) {
      is_row = true;
    } else if (broadcast_recompute_ok(g, gi, n)) {
      n.bcast = true;
      add_bytes = item;
    } else {
      return false;
    }
  } else {
    if (n.in[0].shape != g.domain) return false;
    int64_t K1, R, K2;
    reduce_geometry(g.domain, n.mask, &K1, &R, &K2);
    if (g.has_reduce) {
      if (K1 != g.K1 || R != g.R || K2 != g.K2) return false;
      // same reduced axes (size-1 axes aside)
      for (size_t d = 0; d < g.domain.size(); ++d)
        if (g.domain[d] != 1 && (n.mask[d] != 0) != (g.mask[d] != 0)) return false;
    }
    is_row = g.has_reduce ? g.mode == Mode::kRowFused : (K2 == 1 && !(K1 == 1));
  }
  for (int i = 0; i < n.nin; ++i) {
    const Input& in = n.in[i];
    Node* p = resolve(in.node);
    if (!p) {
      if (is_row && n.kind == Kind::kElementwise && !is_scalar_view(in)) return false;
      if ((!is_row || n.kind == Kind::kReduce) && !is_scalar_view(in))
        add_bytes += static_cast<int64_t>(in.leaf.itemsize());
      continue;
    }
    if (p->group > gi) return false;
    if (p->group == gi) {
      bool row_n = is_row && n.kind == Kind::kElementwise;
      if (n.kind == Kind::kReduce) {
        if (p->row_value || !fusable_edge(g, n, false, in, *p)) return false;
      } else if (!fusable_edge(g, n, row_n, in, *p)) {
        return false;
      }
    } else if (is_row && n.kind == Kind::kElementwise && !is_scalar_view(in)) {
      return false;
    } else if ((!is_row || n.kind == Kind::kReduce) && !is_scalar_view(in)) {
      add_bytes += static_cast<int64_t>(dtype_size(p->dtype));
    }
  }
  // Mode transitions and the row-fused UB budget.
  if (n.kind == Kind::kReduce && !g.has_reduce) {
    int64_t K1, R, K2;
    reduce_geometry(g.domain, n.mask, &K1, &R, &K2);
    Mode m;
    if (K1 == 1 && K2 == 1) m = Mode::kReduceAll;
    else if (K2 == 1) m = (g.full_bytes + add_bytes) <= max_full_bytes_for_row(R) ? Mode::kRowFused : Mode::kReduceRows;
    else m = Mode::kReduceCols;
    g.mode = m;
    g.K1 = K1;
    g.R = R;
    g.K2 = K2;
    g.mask = n.mask;
    g.has_reduce = true;
    is_row = m == Mode::kRowFused;
  } else if (g.mode == Mode::kRowFused && !is_row) {
    if (g.full_bytes + add_bytes > max_full_bytes_for_row(g.R)) return false;
  }
  g.full_bytes += add_bytes;
  n.row_value = is_row;
  n.group = gi;
  g.nodes.push_back(&n);
  return true;
}

/// Casts and single-element ops are placed with their first consumer, so that
/// a cast of a broadcast input is recomputed inside the consumer's tile
/// program instead of running as a small group of its own.
bool deferrable(const Node& n) {
  if (n.kind != Kind::kElementwise || n.live) return false;
  int64_t numel = 1;
  for (int64_t d : n.shape) numel *= d;
  if (std::strcmp(n.name, "astype") != 0 && numel != 1) return false;
  for (int i = 0; i < n.nin; ++i) {
    const Node* p = resolve(n.in[i].node);
    if (p && p->group < 0) return false;
  }
  return true;
}

/// Puts the not yet placed producers of `n` and then `n` into group `gi`, or
/// nothing at all.
bool place(std::vector<Group>& groups, int gi, Node& n) {
  Group& g = groups[static_cast<size_t>(gi)];
  const size_t mark = g.nodes.size();
  const int64_t bytes = g.full_bytes;
  auto rollback = [&] {
    for (size_t i = mark; i < g.nodes.size(); ++i) {
      g.nodes[i]->group = -2;
      g.nodes[i]->bcast = false;
      g.nodes[i]->row_value = false;
    }
    g.nodes.resize(mark);
    g.full_bytes = bytes;
  };
  for (int i = 0; i < n.nin; ++i) {
    Node* p = resolve(n.in[i].node);
    if (p && p->group == -2 && !try_join(groups, gi, *p)) {
      rollback();
      return false;
    }
  }
  if (!try_join(groups, gi, n)) {
    rollback();
    return false;
  }
  return true;
}

int add_group(std::vector<Group>& groups, const Node& n) {
  Group g;
  g.domain = n.kind == Kind::kElementwise ? n.shape : n.in[0].shape;
  groups.push_back(std::move(g));
  return static_cast<int>(groups.size()) - 1;
}

void schedule(std::vector<Node*>& order, std::vector<Group>& groups) {
  for (Node* n : order) {
    if (deferrable(*n)) {
      n->group = -2;  // placed with its first consumer
      continue;
    }
    int cand = -1;
    for (int i = 0; i < n->nin; ++i)
      if (Node* p = resolve(n->in[i].node)) cand = std::max(cand, p->group);
    if (cand >= 0 && place(groups, cand, *n)) continue;
    const int last = static_cast<int>(groups.size()) - 1;
    if (last >= 0 && last != cand && place(groups, last, *n)) continue;
    if (place(groups, add_group(groups, *n), *n)) continue;
    // Producers that cannot be recomputed here run first, on their own.
    for (int i = 0; i < n->nin; ++i) {
      Node* p = resolve(n->in[i].node);
      if (p && p->group == -2) {
        const bool ok = try_join(groups, add_group(groups, *p), *p);
        (void)ok;
      }
    }
    const bool ok = try_join(groups, add_group(groups, *n), *n);
    (void)ok;  // a fresh group accepts a node whose operands all come from earlier groups
  }
  for (Node* n : order)
    if (n->group == -2) {
      const bool ok = try_join(groups, add_group(groups, *n), *n);
      (void)ok;
    }
}

void run_nodes(std::vector<std::shared_ptr<Node>>& nodes, int64_t seq) {
  Stats& st = mutable_stats();
  std::vector<std::shared_ptr<Storage>> outs(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    outs[i] = nodes[i]->out.lock();
    nodes[i]->live = outs[i] != nullptr;
  }
  // Common subexpressions: a value nobody outside needs is taken from its first computation.
  {
    std::unordered_map<std::string, Node*> seen;
    for (auto& sp : nodes) {
      Node* n = sp.get();
      auto key = cse_key(*n);
      auto it = seen.find(key);
      if (it == seen.end()) seen.emplace(std::move(key), n);
      else if (!n->live) n->alias = it->second;
    }
  }
  // Dead-code elimination.
  for (size_t i = nodes.size(); i-- > 0;) {
    Node* n = nodes[i].get();
    if (n->live) n->needed = true;
    if (!n->needed) continue;
    if (n->alias) {
      resolve(n)->needed = true;
      continue;
    }
    for (int k = 0; k < n->nin; ++k)
      if (Node* p = resolve(n->in[k].node)) p->needed = true;
  }
  std::vector<Node*> order;
  for (auto& sp : nodes) {
    if (sp->needed && !sp->alias) order.push_back(sp.get());
    else if (!sp->needed) ++st.nodes_dead;
  }
  const bool dumping = dump_enabled();
  if (dumping) {
    std::vector<Node*> all;
    for (auto& sp : nodes) all.push_back(sp.get());
    dump_graph(all, nullptr, false, seq);
  }
  std::vector<Group> groups;
  schedule(order, groups);
  // Buffers: live values, values read by later groups or through views.
  for (Node* n : order) {
    if (n->live) n->needs_buffer = true;
    const Group& g = groups[static_cast<size_t>(n->group)];
    if (n->kind == Kind::kReduce && g.mode != Mode::kRowFused) n->needs_buffer = true;
    for (int k = 0; k < n->nin; ++k) {
      Node* p = resolve(n->in[k].node);
      if (!p) continue;
      const bool fused = p->group == n->group && fusable_edge(g, *n, n->row_value && n->kind == Kind::kElementwise,
                                                              n->in[k], *p);
      n->in[k].fused = fused;
      if (!fused) {
        p->needs_buffer = true;
        p->last_group = std::max(p->last_group, n->group);
      }
    }
  }
  ++st.graphs_run;
  std::vector<Node*> release;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    Group& g = groups[gi];
    for (Node* n : g.nodes) {
      if (!n->needs_buffer) continue;
      if (n->live) {
        std::shared_ptr<Storage> s = outs[static_cast<size_t>(n->id)];
        s->allocate_deferred();
        n->buffer = std::move(s);
      } else {
        const int64_t bytes = shape_numel(n->shape) * static_cast<int64_t>(dtype_size(n->dtype));
        n->buffer = Storage::allocate(static_cast<size_t>(bytes));
      }
    }
    const double t0 = dumping ? now_ms() : 0;
    for (Node* n : g.nodes) {
      if (!n->bcast || !n->needs_buffer) continue;
      // Also needed in memory (by a later group): computed over its own shape first.
      Group own;
      own.domain = n->shape;
      own.nodes.push_back(n);
      n->bcast = false;
      run_group(own, false);
      n->bcast = true;
    }
    run_group(g, dumping);
    if (dumping) g.ms = now_ms() - t0;
    ++st.groups_run;
    st.nodes_run += static_cast<int64_t>(g.nodes.size());
    for (Node* n : g.nodes) {
      if (n->live) {  // done: readers see plain memory from now on
        const Storage* s = n->buffer.get();
        s->set_lazy_flags(static_cast<uint8_t>(s->lazy_flags() & ~Storage::kPendingWrite));
        s->set_producer(nullptr);
        n->graph = nullptr;
      }
    }
    // Temporaries whose last reader ran go back to the pool (reused by the next group).
    for (Node* n : order)
      if (!n->live && n->buffer && n->last_group <= static_cast<int>(gi) && n->group <= static_cast<int>(gi))
        n->buffer.reset();
  }
  if (dumping) dump_graph(order, &groups, true, seq);
}

void flush_graph(Graph& g) {
  if (g.nodes.empty()) return;
  std::vector<std::shared_ptr<Node>> nodes;
  nodes.swap(g.nodes);
  static std::atomic<int64_t> next_seq{0};
  const int64_t seq = next_seq.fetch_add(1, std::memory_order_relaxed);
  try {
    run_nodes(nodes, seq);
  } catch (const Error& e) {
    for (auto& n : nodes) {
      if (n->graph) n->error = e.status();
      n->graph = nullptr;
    }
    for (auto& n : nodes) n->buffer.reset();
    // Readers of the leaves are gone with this graph.
  } catch (const std::exception& e) {
    for (auto& n : nodes) {
      if (n->graph) n->error = Status::Make(ErrorCode::kFailure, "graph", e.what());
      n->graph = nullptr;
    }
  }
  for (auto& n : nodes) {
    n->graph = nullptr;
    n->buffer.reset();
    for (int i = 0; i < n->nin; ++i) {
      const Tensor& leaf = n->in[i].leaf;
      if (n->in[i].node || !leaf.defined()) continue;
      const Storage* s = leaf.storage().get();
      if ((s->lazy_flags() & Storage::kPendingRead) && !other_graph_reads(&g, s))
        s->set_lazy_flags(static_cast<uint8_t>(s->lazy_flags() & ~Storage::kPendingRead));
    }
    // Edges into other nodes are not needed any more (and would keep nothing alive).
  }
  add_garbage(std::move(nodes));
}

class Hooks final : public LazyHooks {
 public:
  void sync(const Storage& s) override {
    Locked lock;
    const uint8_t f = s.lazy_flags();
    if (f & Storage::kPendingWrite) {
      std::shared_ptr<void> keep = s.producer();
      Node* p = static_cast<Node*>(keep.get());
      if (p->error.ok() && p->graph) flush_graph(*p->graph);
      if (!p->error.ok()) throw Error(p->error);
    }
    if (s.lazy_flags() & Storage::kPendingRead) {
      for (size_t i = 0; i < registry().size(); ++i) {
        Graph* g = registry()[i];
        if (!g->nodes.empty() && graph_reads(*g, &s)) flush_graph(*g);
      }
      s.set_lazy_flags(static_cast<uint8_t>(s.lazy_flags() & ~Storage::kPendingRead));
    }
  }
};

void sync_hook() { flush_all(); }

const bool g_registered = [] {
  static Hooks hooks;
  set_lazy_hooks(&hooks);
  runtime::set_synchronize_hook(&sync_hook);
  return true;
}();

}  // namespace

Stats& mutable_stats() {
  static Stats s;
  return s;
}

bool reduce_geometry(const Shape& shape, const DimVector& mask, int64_t* K1, int64_t* R, int64_t* K2) {
  // Runs of kept (0) and reduced (1) axes, size-1 axes dropped: K? R? K?.
  int64_t part[3] = {1, 1, 1};
  int stage = 0;  // 0: leading kept, 1: reduced, 2: trailing kept
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    const bool red = mask[d] != 0;
    if (stage == 0 && red) stage = 1;
    else if (stage == 1 && !red) stage = 2;
    else if (stage == 2 && red) return false;
    part[stage] *= shape[d];
  }
  *K1 = part[0];
  *R = part[1];
  *K2 = part[2];
  return true;
}

}  // namespace detail

using namespace detail;

bool lazy_enabled() noexcept { return !g_eager.load(std::memory_order_relaxed); }
bool is_eager() noexcept { return g_eager.load(std::memory_order_relaxed); }

void set_eager(bool eager) {
  if (eager) flush_all();
  g_eager.store(eager, std::memory_order_relaxed);
}

int64_t max_nodes() noexcept { return g_max_nodes.load(std::memory_order_relaxed); }
void set_max_nodes(int64_t n) {
  if (n < 1) throw Error(Status::Invalid("set_max_nodes", "the bound must be >= 1, got " + std::to_string(n)));
  g_max_nodes.store(n, std::memory_order_relaxed);
}

Stats stats() {
  Locked lock;
  return mutable_stats();
}

Tensor record_elementwise(const char* name, InnerLoop loop, DType out_dtype, const Shape& shape, const Tensor* inputs,
                          int n) {
  if (n < 1 || n > 3) throw Error(Status::Invalid(name, "fused ops take 1 to 3 operands"));
  auto node = std::make_shared<Node>();
  node->kind = Kind::kElementwise;
  node->name = name;
  node->loop = loop;
  node->dtype = out_dtype;
  node->shape = shape;
  node->nin = n;
  Locked lock;
  Graph& g = thread_graph();
  for (int i = 0; i < n; ++i) materialise_foreign(g, inputs[i]);
  for (int i = 0; i < n; ++i) add_input(g, node->in[i], inputs[i]);
  return finish_node(g, std::move(node));
}


bool reduction_fusable(const Shape& shape, const DimVector& mask) {
  if (mask.size() != shape.size()) return false;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return false;
  int64_t K1, R, K2;
  if (!reduce_geometry(shape, mask, &K1, &R, &K2)) return false;
  return K2 == 1 || K2 >= 16;
}

Tensor record_reduce(const char* name, InnerLoop combine, DType dtype, const Tensor& input, const DimVector& mask,
                     bool keepdims, const Tensor& identity) {
  if (!reduction_fusable(input.shape(), mask))
    throw Error(Status::Invalid(name, "reduction geometry cannot be fused"));
  auto node = std::make_shared<Node>();
  node->kind = Kind::kReduce;
  node->name = name;
  node->loop = combine;
  node->dtype = dtype;
  node->nin = 1;
  node->mask = mask;
  node->keepdims = keepdims;
  std::memcpy(node->identity, identity.storage()->raw_data() + identity.offset(), dtype_size(dtype));
  for (size_t d = 0; d < mask.size(); ++d) {
    if (!mask[d]) node->shape.push_back(input.shape()[d]);
    else if (keepdims) node->shape.push_back(1);
  }
  Locked lock;
  Graph& g = thread_graph();
  materialise_foreign(g, input);
  add_input(g, node->in[0], input);
  return finish_node(g, std::move(node));
}

void eval(const std::vector<Tensor>& tensors) {
  Locked lock;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    const Storage& s = *t.storage();
    if (s.lazy_flags() & Storage::kPendingWrite) {
      std::shared_ptr<void> keep = s.producer();
      Node* p = static_cast<Node*>(keep.get());
      if (p->error.ok() && p->graph) flush_graph(*p->graph);
      if (!p->error.ok()) throw Error(p->error);
    }
  }
}

void flush_all() noexcept {
  try {
    Locked lock;
    for (size_t i = 0; i < registry().size(); ++i) flush_graph(*registry()[i]);
  } catch (...) {  // failures stay with their tensors
  }
}

int64_t pending_nodes() {
  Locked lock;
  return t_graph.g ? static_cast<int64_t>(t_graph.g->nodes.size()) : 0;
}

}  // namespace asc::graph
