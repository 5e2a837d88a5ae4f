// Lazy graph recording, the storage hooks and materialisation (flush: plan
// and complete here; a batch's execution is in execute.cc).
//
// Graphs are per stream. A flush plans a batch (liveness, CSE, schedule) on
// the host and enqueues its execution on the graph's stream; a small batch
// that is observed at once on an idle stream runs inline instead (no
// hand-off). Storage flags stay set while a batch is in flight; observation
// waits for exactly the batches producing or reading the storage.
//
// Locking: one process-wide recursive mutex guards every graph, every node's
// graph/batch fields and the lazy fields of storages. Recording holds it for
// a few hundred nanoseconds; planning a flush holds it; execution does not
// (the executor touches only its own batch), and the host never waits for a
// stream while holding it: the in-flight bound of an automatic flush is
// waited for when the outermost lock is released (a Python callback queued
// on that stream may need the lock or the GIL). Nodes, batches and leaf tensors are destroyed
// after the outermost lock is released: dropping a leaf may release a NumPy
// array (which takes the GIL), and the GIL must never be requested under our
// lock; for the same reason executors never release nodes or leaves.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>

#include "asc/core/log.h"
#include "asc/runtime/device.h"
#include "asc/runtime/profiler.h"
#include "asc/runtime/stream.h"
#include "graph/internal.h"

namespace asc::graph {
namespace detail {
namespace {

std::recursive_mutex& mu();
// fork(): a thread of the parent may hold the registry lock at fork() and does
// not exist in the child, where the lock would stay held forever: the child
// re-creates it. (Not taken in a prepare handler: it is held across whole
// evaluations, under which stream locks are taken, and the handlers' order
// against the stream registry's is not fixed, so that could deadlock fork().)
void graph_fork_child() noexcept { new (&mu()) std::recursive_mutex(); }

std::recursive_mutex& mu() {
  static auto* m = [] {
    auto* p = new std::recursive_mutex();  // leaked: usable during static destruction
    ::pthread_atfork(nullptr, nullptr, &graph_fork_child);
    return p;
  }();
  return *m;
}
std::vector<Graph*>& registry() {
  static auto* r = new std::vector<Graph*>();
  return *r;
}

struct GraphCache {
  uint64_t stream_id = 0;
  uint64_t epoch = 0;
  Graph* g = nullptr;
};

constexpr int kNodeCacheMax = 64;

/// This file's per-thread state, in one constant-initialised, trivially
/// destructible object: a thread_local of a shared library is reached through
/// a call (__tls_get_addr), so hot functions take its address once instead of
/// once per variable.
struct ThreadState {
  int depth = 0;  // Locked nesting
  // Objects released by flushes, destroyed once the outermost lock is dropped.
  std::vector<std::shared_ptr<void>>* garbage = nullptr;
  // In-flight batches an automatic flush must wait for (the per-stream
  // bound), waited for once the outermost lock is dropped: a task queued
  // ahead of them on their stream (a Python host callback) may need the graph
  // lock or the GIL, so the wait may hold neither (wait_batch releases the
  // GIL through the hook).
  std::vector<std::shared_ptr<Batch>>* bound_waits = nullptr;
  GraphCache cache;       // the graph of the thread's current stream
  bool exiting = false;   // thread-local destructors are running
  // Recycled node memory (NodeAllocator): freed blocks of node_bytes bytes.
  int node_n = 0;
  size_t node_bytes = 0;
  void* node_blocks[kNodeCacheMax] = {};
  bool release_armed = false;  // ThreadRelease registered for this thread
  bool released = false;       // ThreadRelease ran: nothing more is cached
};
thread_local ThreadState t_state;

/// Frees what ThreadState caches (the garbage list, node blocks) when the
/// thread exits. A thread_local with a destructor is registered on first use,
/// so it is touched only when something gets cached (arm_thread_release).
struct ThreadRelease {
  volatile bool armed = false;
  ~ThreadRelease() {
    ThreadState& t = t_state;
    t.released = true;
    delete t.garbage;  // empty: the outermost lock was released
    t.garbage = nullptr;
    while (t.node_n > 0) ::operator delete(t.node_blocks[--t.node_n]);
  }
};
thread_local ThreadRelease t_release;

void arm_thread_release(ThreadState& t) {
  if (t.release_armed) return;
  t.release_armed = true;
  t_release.armed = true;
}

void wait_bound(std::vector<std::shared_ptr<Batch>>* batches) noexcept;

/// The lock plus deferred destruction of what flushes released.
class Locked {
 public:
  Locked() {
    mu().lock();
    ++t_state.depth;
  }
  ~Locked() {
    ThreadState& t = t_state;
    std::vector<std::shared_ptr<void>>* garbage = nullptr;
    std::vector<std::shared_ptr<Batch>>* bound = nullptr;
    if (--t.depth == 0) {
      if (t.garbage && !t.garbage->empty()) {
        garbage = t.garbage;
        t.garbage = nullptr;  // a destructor below may record or flush: it gets a fresh list
      }
      bound = t.bound_waits;
      t.bound_waits = nullptr;
    }
    mu().unlock();
    // The garbage (nodes, batches, the leaf tensors they hold) dies here, unlocked.
    if (garbage) {
      garbage->clear();
      if (!t.garbage && !t.released) t.garbage = garbage;  // keep its capacity
      else delete garbage;
    }
    if (bound) wait_bound(bound);
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

void add_garbage(std::shared_ptr<void> p) {
  if (!p) return;
  ThreadState& t = t_state;
  if (!t.garbage) {  // per thread, reused
    t.garbage = new std::vector<std::shared_ptr<void>>();
    arm_thread_release(t);
  }
  t.garbage->push_back(std::move(p));
}

// ------------------------------------------------------------------ node memory

/// Recycled node memory. A node (with its shared_ptr control block) is about
/// 1.4 KB -- above malloc's per-thread cache -- and tiny graphs allocate and
/// free one per op: each thread keeps up to kNodeCacheMax freed blocks
/// (ThreadState) and reuses them (no lock: a block may be freed on another
/// thread than it was allocated on, it is plain operator-new memory). A
/// thread's blocks are released when it exits (ThreadRelease); frees after
/// that go back to operator delete.
template <typename T>
struct NodeAllocator {
  using value_type = T;
  NodeAllocator() noexcept = default;
  template <typename U>
  NodeAllocator(const NodeAllocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    ThreadState& t = t_state;
    if (n == 1 && t.node_n > 0 && t.node_bytes == sizeof(T)) return static_cast<T*>(t.node_blocks[--t.node_n]);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    ThreadState& t = t_state;
    if (n == 1 && !t.released) {
      arm_thread_release(t);
      if (t.node_n == 0) t.node_bytes = sizeof(T);
      if (t.node_bytes == sizeof(T) && t.node_n < kNodeCacheMax) {
        t.node_blocks[t.node_n++] = p;
        return;
      }
    }
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const NodeAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const NodeAllocator<U>&) const noexcept { return false; }
};

std::shared_ptr<Node> new_node() { return std::allocate_shared<Node>(NodeAllocator<Node>()); }

/// Counters changed only under the graph lock: a relaxed load and store, not
/// a locked read-modify-write (a few per recorded op on the small-graph path).
/// Executors (program.cc) touch only the program-cache counters.
inline void bump(std::atomic<int64_t>& c, int64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
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

/// Materialises `g`'s pending nodes as one batch. `observe`: the caller waits
/// for the result right away, so a small batch on an idle stream runs inline
/// on the calling thread (no hand-off); otherwise the batch is enqueued on the
/// graph's stream and runs asynchronously.
void flush_graph(Graph& g, bool observe = false);

std::vector<std::shared_ptr<Batch>>& inflight() {
  static auto* v = new std::vector<std::shared_ptr<Batch>>();
  return *v;
}

/// Bound on batches in flight per stream: an asynchronous flush beyond it waits
/// for the oldest (a Python loop recording faster than the device computes
/// must not grow memory without limit).
constexpr size_t kMaxInflightPerStream = 4;


// ------------------------------------------------------------------ graphs per stream

/// Graphs are per stream; the registry holds every graph (few: one per stream
/// that recorded work). A graph whose stream is gone and which is empty is
/// deleted by the next graph creation; `g_epoch` invalidates the per-thread
/// lookup cache then.
uint64_t g_epoch = 1;

/// At thread exit the graphs this thread created are flushed (enqueued on
/// their streams, never run inline: the thread's locals are being destroyed),
/// so that a thread's default stream, held by its pending graph, can finish.
const std::thread::id g_main_thread = std::this_thread::get_id();  // loads the library

struct ThreadExit {
  bool armed = false;
  ~ThreadExit() {
    t_state.exiting = true;
    // The main thread exits with the process: its streams' workers may not
    // run any more (pyasc synchronizes everything at interpreter exit).
    if (!armed || std::this_thread::get_id() == g_main_thread) return;
    try {
      Locked lock;
      const std::thread::id me = std::this_thread::get_id();
      for (size_t i = 0; i < registry().size(); ++i) {
        Graph* g = registry()[i];
        if (g->creator == me && !g->nodes.empty()) flush_graph(*g);
      }
    } catch (...) {  // errors stay with the failed tensors
    }
  }
};
thread_local ThreadExit t_exit;

void sweep_graphs() {
  auto& r = registry();
  bool removed = false;
  for (size_t i = 0; i < r.size();) {
    Graph* g = r[i];
    if (g->nodes.empty() && g->deps.empty() && g->stream.expired()) {
      r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
      delete g;
      removed = true;
    } else {
      ++i;
    }
  }
  if (removed) ++g_epoch;
}

/// The graph of the calling thread's current stream (created on first use).
/// Locked.
Graph& thread_graph() {
  runtime::Stream* s = runtime::current_stream_ptr();
  const uint64_t id = s->id();
  GraphCache& cache = t_state.cache;
  if (cache.g && cache.stream_id == id && cache.epoch == g_epoch) return *cache.g;
  Graph* found = nullptr;
  for (Graph* g : registry())
    if (g->stream_id == id) {
      found = g;
      break;
    }
  if (!found) {
    sweep_graphs();
    found = new Graph();
    found->stream_id = id;
    found->stream = s->weak_from_this();
    found->creator = std::this_thread::get_id();
    t_exit.armed = true;
    registry().push_back(found);
  }
  cache.g = found;
  cache.stream_id = id;
  cache.epoch = g_epoch;
  return *found;
}

bool graph_reads(const Graph& g, const Storage* s) {
  for (const auto& n : g.nodes)
    for (int i = 0; i < n->nin; ++i)
      if (!n->in[i].node && n->in[i].leaf.storage().get() == s) return true;
  return false;
}

bool batch_reads(const Batch& b, const Storage* s) {
  for (const Storage* r : b.reads)
    if (r == s) return true;
  return false;
}


[[noreturn]] void throw_failed(const Node& n) { throw Error(n.error); }

Node* producer_of(const Storage& s) { return static_cast<Node*>(s.producer().get()); }

/// Records that `g` reads the value of `p`, a node of an in-flight batch: the
/// batch executing `g` waits for it (another stream) and fails with p's error.
void add_dep(Graph& g, Node* p, const std::shared_ptr<void>& keep) {
  for (const auto& d : g.deps)
    if (d.node.get() == p) return;
  g.deps.push_back({p->batch->shared_from_this(), keep});
}

/// A pending tensor of another graph (another stream) is flushed before use:
/// graphs never share nodes; its batch becomes a dependency (add_input). Done
/// for all operands before any is added.
void materialise_foreign(Graph& g, const Tensor& t) {
  const Storage* s = t.storage().get();
  if (!(s->lazy_flags() & Storage::kPendingWrite)) return;
  std::shared_ptr<void> keep = s->producer();
  Node* p = static_cast<Node*>(keep.get());
  if (!p) return;
  if (p->graph && p->graph != &g) flush_graph(*p->graph);
  if (!p->graph && !p->batch && !p->error.ok()) throw_failed(*p);
}

/// Fills `in` from `t`: a leaf, or an edge to a pending node of `g`. A value
/// still being computed by an in-flight batch is a leaf plus a dependency.
void add_input(Graph& g, Input& in, const Tensor& t) {
  const Storage* s = t.storage().get();
  if (s->lazy_flags() & Storage::kPendingWrite) {
    const std::shared_ptr<void>& keep = s->producer();
    Node* p = static_cast<Node*>(keep.get());
    if (p && p->graph == &g) {
      in.node = p;
      in.shape = t.shape();
      in.strides = t.strides();
      in.offset = t.offset();
      in.dtype = t.dtype();
      in.natural = t.offset() == 0 && t.dtype() == p->dtype && t.shape() == p->shape && t.is_contiguous();
      return;
    }
    if (p && p->batch) add_dep(g, p, keep);
    else if (p && !p->error.ok()) throw_failed(*p);
  }
  in.leaf = t;
  in.shape = t.shape();
  in.strides = t.strides();
  in.offset = t.offset();
  in.dtype = t.dtype();
  s->set_lazy_flags(static_cast<uint8_t>(s->lazy_flags() | Storage::kPendingRead));
}

void reap();

/// The first node of an empty graph: completes finished batches, holds the stream.
void begin_graph(Graph& g) {
  if (!g.nodes.empty()) return;
  if (!inflight().empty()) reap();
  g.hold = g.stream.lock();  // pending work keeps its stream alive
}

/// Appends `node` to g as the producer of `st` (whose lazy flags become
/// `flags`); flushes when the graph reached its bound. Locked.
void append_producer(Graph& g, std::shared_ptr<Node> node, const std::shared_ptr<Storage>& st, uint8_t flags) {
  begin_graph(g);
  node->graph = &g;
  node->id = static_cast<int32_t>(g.nodes.size());
  node->out = st;
  st->set_producer(node);
  st->set_lazy_flags(flags);
  g.nodes.push_back(std::move(node));
  bump(mutable_stats().nodes_recorded);
  if (static_cast<int64_t>(g.nodes.size()) >= g_max_nodes.load(std::memory_order_relaxed)) {
    bump(mutable_stats().auto_flushes);
    flush_graph(g);
  }
}

Tensor finish_node(Graph& g, std::shared_ptr<Node> node) {
  const int64_t item = static_cast<int64_t>(dtype_size(node->dtype));
  auto st = Storage::deferred(static_cast<size_t>(checked_nbytes(node->shape, static_cast<size_t>(item), node->name)));
  const DType dtype = node->dtype;
  const Shape shape = node->shape;
  append_producer(g, std::move(node), st, Storage::kPendingWrite);
  // (st moved, not copied: every reference count change shows on tiny graphs)
  return Tensor::view_of(std::move(st), dtype, shape, contiguous_strides(shape, item), 0);
}

// ------------------------------------------------------------------ flush

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
    put(&n.arg, 1);  // argmax and argmin share the (null) loop
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
    int64_t K1 = 1, R = 1, K2 = 1;
    const bool one_run = reduce_geometry(g.domain, n.mask, &K1, &R, &K2);
    if (g.has_reduce) {
      if (one_run != (g.mode != Mode::kReduceGeneral)) return false;
      if (K1 != g.K1 || R != g.R || K2 != g.K2) return false;
      // same reduced axes (size-1 axes aside)
      for (size_t d = 0; d < g.domain.size(); ++d)
        if (g.domain[d] != 1 && (n.mask[d] != 0) != (g.mask[d] != 0)) return false;
      // Arg accumulators are (value, index) pairs: never per-row register values.
      if (n.arg && g.mode == Mode::kRowFused) return false;
    }
    is_row = g.has_reduce ? g.mode == Mode::kRowFused : (one_run && K2 == 1 && !(K1 == 1) && !n.arg);
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
    int64_t K1 = 1, R = 1, K2 = 1;
    Mode m;
    if (!reduce_geometry(g.domain, n.mask, &K1, &R, &K2)) m = Mode::kReduceGeneral;
    else if (K1 == 1 && K2 == 1) m = Mode::kReduceAll;
    else if (K2 == 1)
      m = !n.arg && (g.full_bytes + add_bytes) <= max_full_bytes_for_row(R) ? Mode::kRowFused : Mode::kReduceRows;
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

// ------------------------------------------------------------------ plan (host, locked)

/// Liveness, common subexpressions, dead code, schedule and buffer needs of
/// `b.nodes`; collects the leaves `b` reads.
/// PYASC_DEBUG=1: the scheduler's decisions for one flush (one line per group).
void log_plan(const Batch& b) {
  ASC_LOG_DEBUG("graph", "flush graph=" << b.dump_seq << " stream=" << b.stream_id << ": " << b.nodes.size()
                                         << " nodes recorded, " << b.order.size() << " scheduled, "
                                         << b.groups.size() << " groups");
  for (size_t gi = 0; gi < b.groups.size(); ++gi) {
    const Group& g = b.groups[gi];
    std::ostringstream ops;
    for (size_t i = 0; i < g.nodes.size(); ++i) ops << (i ? "+" : "") << g.nodes[i]->name;
    std::ostringstream dom;
    for (size_t i = 0; i < g.domain.size(); ++i) dom << (i ? "," : "") << g.domain[i];
    ASC_LOG_DEBUG("graph", "  group " << gi << "/" << b.groups.size() << " mode=" << mode_name(g.mode) << " domain=("
                                      << dom.str() << ") ops=" << ops.str());
  }
}

void plan(Batch& b) {
  auto& nodes = b.nodes;
  auto& st = mutable_stats();
  b.outs.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    b.outs[i] = nodes[i]->out.lock();
    nodes[i]->live = b.outs[i] != nullptr;
  }
  if (nodes.size() >= 4) {  // graph passes (passes.cc): the smallest pattern has four nodes
    std::vector<std::shared_ptr<void>> displaced;
    run_passes(nodes, &displaced);
    for (auto& p : displaced) add_garbage(std::move(p));
  }
  // Common subexpressions: a value nobody outside needs is taken from its first computation.
  if (nodes.size() > 1) {
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
  b.order.reserve(nodes.size());
  b.reads.reserve(2 * nodes.size());
  for (auto& sp : nodes) {
    if (sp->needed && !sp->alias) b.order.push_back(sp.get());
    else if (!sp->needed) bump(st.nodes_dead);
    for (int i = 0; i < sp->nin; ++i) {
      const Input& in = sp->in[i];
      if (!in.node && in.leaf.defined()) b.reads.push_back(in.leaf.storage().get());
    }
  }
  if (b.reads.size() > 1) {
    std::sort(b.reads.begin(), b.reads.end());
    b.reads.erase(std::unique(b.reads.begin(), b.reads.end()), b.reads.end());
  }
  b.dumping = dump_enabled();
  if (b.dumping) {
    std::vector<Node*> all;
    for (auto& sp : nodes) all.push_back(sp.get());
    dump_graph(all, nullptr, false, b.dump_seq);
  }
  auto& groups = b.groups;
  schedule(b.order, groups);
  for (size_t gi = 0; gi < groups.size(); ++gi) {  // profiler: the flush each group belongs to
    groups[gi].graph_seq = b.dump_seq;
    groups[gi].index = static_cast<int>(gi);
    groups[gi].of = static_cast<int>(groups.size());
  }
  if (log_enabled(LogLevel::kDebug)) log_plan(b);
  // Buffers: live values, values read by later groups or through views.
  for (Node* n : b.order) {
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
  bump(st.graphs_run);
  bump(st.groups_run, static_cast<int64_t>(groups.size()));
  bump(st.nodes_run, static_cast<int64_t>(b.order.size()));
}

// ------------------------------------------------------------------ complete (host, locked)

/// Publishes a finished batch: computed outputs become plain memory (failed
/// ones keep their producer, whose error is raised when read), leaves nobody
/// else reads lose their read mark; the nodes go to the garbage.
void complete(std::shared_ptr<Batch> bp) {
  Batch& b = *bp;
  for (auto& sp : b.nodes) {
    Node* n = sp.get();
    n->batch = nullptr;
    n->graph = nullptr;
    if (!n->live || !n->done_ok) continue;
    const Storage* s = b.outs[static_cast<size_t>(n->id)].get();
    if (s && s->producer().get() == n) {
      // Written by the graph, no pointer handed out yet: deferred writes allowed.
      s->set_lazy_flags(static_cast<uint8_t>((s->lazy_flags() & ~Storage::kPendingWrite) | Storage::kUnexposed));
      add_garbage(s->producer());
      s->set_producer(nullptr);
    }
  }
  if (!b.reads.empty()) {
    // Storages other pending or in-flight work reads keep their mark: one
    // pass over that work (a pipelined loop may have a large graph pending).
    std::vector<const Storage*> busy;
    for (Graph* g : registry())
      for (const auto& n : g->nodes)
        for (int i = 0; i < n->nin; ++i)
          if (!n->in[i].node && n->in[i].leaf.defined()) busy.push_back(n->in[i].leaf.storage().get());
    for (const auto& o : inflight())
      if (o.get() != &b) busy.insert(busy.end(), o->reads.begin(), o->reads.end());
    std::sort(busy.begin(), busy.end());
    for (const Storage* s : b.reads)
      if ((s->lazy_flags() & Storage::kPendingRead) && !std::binary_search(busy.begin(), busy.end(), s))
        s->set_lazy_flags(static_cast<uint8_t>(s->lazy_flags() & ~Storage::kPendingRead));
  }
  add_garbage(std::shared_ptr<void>(std::move(bp)));
}

/// Completes every finished in-flight batch (in enqueue order). Locked.
void reap() {
  auto& v = inflight();
  for (size_t i = 0; i < v.size();) {
    if (v[i]->done.load(std::memory_order_acquire)) {
      std::shared_ptr<Batch> b = std::move(v[i]);
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
      complete(std::move(b));
    } else {
      ++i;
    }
  }
}

std::atomic<void (*)(void (*)(void*), void*)> g_wait_hook{nullptr};

void wait_batch_now(void* arg) {
  const Batch& b = *static_cast<const Batch*>(arg);
  if (b.seq) {
    if (auto s = b.stream.lock()) s->wait_until(b.seq);
  }
  while (!b.done.load(std::memory_order_acquire)) std::this_thread::yield();
}

/// Host wait for `b` (the executor never takes the graph lock). Without the
/// lock held, through the wait hook (the bindings drop the GIL).
void wait_batch(const Batch& b) {
  if (b.done.load(std::memory_order_acquire)) return;
  auto hook = g_wait_hook.load(std::memory_order_acquire);
  if (hook && t_state.depth == 0) hook(&wait_batch_now, const_cast<Batch*>(&b));
  else wait_batch_now(const_cast<Batch*>(&b));
}

void wait_bound(std::vector<std::shared_ptr<Batch>>* batches) noexcept {
  try {
    for (const auto& b : *batches) wait_batch(*b);
  } catch (...) {  // waiting is best effort: errors stay with the batches' tensors
  }
  delete batches;  // may release the last reference to a reaped batch: unlocked here
}

bool can_inline(const Batch& b, runtime::Stream& s) {
  if (t_state.exiting || !s.query()) return false;
  for (const auto& d : b.deps)
    if (!d.batch->done.load(std::memory_order_acquire)) return false;
  for (const Group& g : b.groups) {
    int64_t total = 1;
    for (int64_t d : g.domain) total *= d;
    if (total > kInlineMaxElements) return false;
  }
  return true;
}

/// Whether storage `s` is read by pending graphs or in-flight batches.
bool read_elsewhere(const Storage* s) {
  for (Graph* g : registry())
    if (!g->nodes.empty() && graph_reads(*g, s)) return true;
  for (const auto& b : inflight())
    if (batch_reads(*b, s)) return true;
  return false;
}

/// The one-node graph observed at once on an idle stream (`asc.eval(a + b)`
/// on tiny arrays): no batch, no schedule, no program -- the node's inner
/// loop runs here (run_direct_node). Same results and counters as the
/// general path, which handles everything this declines.
bool flush_single(Graph& g, runtime::Stream* s) {
  Node& n = *g.nodes[0];
  if (!g.deps.empty() || !s || t_state.exiting || !s->query() || dump_enabled() || runtime::profiler::enabled())
    return false;
  Mode mode = Mode::kMap;
  const Shape* domain = &n.shape;
  if (n.kind == Kind::kReduce) {
    int64_t K1, R, K2;
    domain = &n.in[0].shape;
    if (!reduce_geometry(*domain, n.mask, &K1, &R, &K2) || K1 != 1 || K2 != 1) return false;
    mode = Mode::kReduceAll;
  }
  std::shared_ptr<Storage> out = n.out.lock();
  if (!out || out->producer().get() != &n) return false;
  try {
    out->allocate_deferred();
  } catch (...) {
    return false;  // the general path records the error
  }
  if (!run_direct_node(n, *domain, mode, out->raw_data())) return false;
  auto& st = mutable_stats();
  bump(st.graphs_run);
  bump(st.groups_run);
  bump(st.nodes_run);
  n.graph = nullptr;
  out->set_lazy_flags(static_cast<uint8_t>((out->lazy_flags() & ~Storage::kPendingWrite) | Storage::kUnexposed));
  // `node` keeps the node alive (it dies with the garbage, unlocked), so the
  // storage's reference is dropped here.
  std::shared_ptr<Node> node = std::move(g.nodes[0]);
  g.nodes.clear();
  out->set_producer(nullptr);
  for (int i = 0; i < n.nin; ++i) {
    const Input& in = n.in[i];
    if (in.node || !in.leaf.defined()) continue;
    const Storage* ls = in.leaf.storage().get();
    if ((ls->lazy_flags() & Storage::kPendingRead) && !read_elsewhere(ls))
      ls->set_lazy_flags(static_cast<uint8_t>(ls->lazy_flags() & ~Storage::kPendingRead));
  }
  add_garbage(std::shared_ptr<void>(std::move(node)));
  add_garbage(std::shared_ptr<void>(std::move(g.hold)));
  return true;
}

void flush_graph(Graph& g, bool observe) {
  if (g.nodes.empty()) return;
  if (observe && g.nodes.size() == 1 && flush_single(g, g.hold.get())) {
    ASC_LOG_DEBUG("graph", "one-node graph ran directly (no schedule)");
    return;
  }
  auto bp = std::make_shared<Batch>();
  Batch& b = *bp;
  b.nodes.swap(g.nodes);
  b.deps.swap(g.deps);
  std::shared_ptr<runtime::Stream> stream = std::move(g.hold);
  if (!stream) stream = g.stream.lock();
  static std::atomic<int64_t> next_seq{0};
  b.dump_seq = next_seq.fetch_add(1, std::memory_order_relaxed);
  b.stream = g.stream;
  b.stream_id = g.stream_id;
  for (auto& n : b.nodes) {
    n->graph = nullptr;
    n->batch = &b;
  }
  try {
    plan(b);
  } catch (...) {  // planning failed (out of host memory): the nodes carry the error
    Status err = StatusFromCurrentException("graph");
    b.error = err;
    for (auto& n : b.nodes) n->error = err;
    b.done.store(true, std::memory_order_release);
    complete(std::move(bp));
    add_garbage(std::move(stream));
    return;
  }
  if (!stream || (observe && can_inline(b, *stream))) {
    // Nothing queued ahead on the stream (or the stream is gone): run here.
    ASC_LOG_DEBUG("graph", "graph=" << b.dump_seq << " runs inline on the observing thread");
    execute(b);
    complete(std::move(bp));
    add_garbage(std::move(stream));
    return;
  }
  // Asynchronous: the task owns a stream reference, dropped by the stream's
  // own worker (a stream may be released by its own task; the host could be
  // holding the GIL that the stream's earlier callbacks need).
  auto& v = inflight();
  size_t on_stream = 0;
  const Batch* oldest = nullptr;
  for (const auto& o : v)
    if (o->stream_id == b.stream_id && !o->done.load(std::memory_order_acquire) && on_stream++ == 0) oldest = o.get();
  v.push_back(bp);
  runtime::Stream* s = stream.get();
  ASC_LOG_DEBUG("graph", "graph=" << b.dump_seq << " enqueued on stream " << b.stream_id << " (" << on_stream
                                  << " batches of this stream in flight)");
  b.seq = s->enqueue("graph", [bp, keep = std::move(stream)]() mutable {
    runtime::StreamGuard guard(keep);  // pool allocations of the batch are ordered on this stream
    execute(*bp);
  });
  if (oldest && on_stream >= kMaxInflightPerStream) {
    // Waited for after the outermost lock is released (Locked, wait_bound).
    ThreadState& t = t_state;
    if (!t.bound_waits) t.bound_waits = new std::vector<std::shared_ptr<Batch>>();
    t.bound_waits->push_back(const_cast<Batch*>(oldest)->shared_from_this());
  }
}

class Hooks final : public LazyHooks {
 public:
  // Runs (or waits for) the work producing `s` and the work reading it. The
  // waits happen without the lock; the loop ends when no work is left.
  void sync(const Storage& s) override {
    for (;;) {
      std::vector<std::shared_ptr<Batch>> wait;
      {
        Locked lock;
        reap();
        if (s.lazy_flags() & Storage::kPendingWrite) {
          // No reference taken: a node a flush releases stays alive in the
          // garbage until the outermost lock is dropped.
          Node* p = producer_of(s);
          if (p && p->graph) flush_graph(*p->graph, true);
          if (p && p->batch) wait.push_back(p->batch->shared_from_this());
          else if (p && !p->error.ok()) throw Error(p->error);
          else if (s.producer().get() == p)  // no work left (stale mark)
            s.set_lazy_flags(static_cast<uint8_t>(s.lazy_flags() & ~Storage::kPendingWrite));
        }
        if (s.lazy_flags() & Storage::kPendingRead) {
          for (size_t i = 0; i < registry().size(); ++i) {
            Graph* g = registry()[i];
            if (!g->nodes.empty() && graph_reads(*g, &s)) flush_graph(*g, true);
          }
          for (const auto& b : inflight())
            if (batch_reads(*b, &s)) wait.push_back(b);
          if (wait.empty()) s.set_lazy_flags(static_cast<uint8_t>(s.lazy_flags() & ~Storage::kPendingRead));
        }
        if (wait.empty() && (s.lazy_flags() & ~Storage::kUnexposed) == 0) {
          // The caller gets a raw pointer: the bytes are exposed from now on
          // (no deferred writes any more, see record_elementwise_into).
          s.set_lazy_flags(0);
          return;
        }
      }
      for (const auto& b : wait) wait_batch(*b);
    }
  }
};

/// Stream::synchronize (`s`) and synchronize_device (null): flushes the
/// graphs of `s` (all graphs), waits for their batches and completes them, so
/// that afterwards nothing of that stream is pending.
void sync_hook(runtime::Stream* s) {
  try {
    std::vector<std::shared_ptr<Batch>> wait;
    {
      Locked lock;
      reap();
      for (size_t i = 0; i < registry().size(); ++i) {
        Graph* g = registry()[i];
        if (!s || g->stream_id == s->id()) flush_graph(*g, true);
      }
      for (const auto& b : inflight())
        if (!s || b->stream_id == s->id()) wait.push_back(b);
    }
    if (wait.empty()) return;
    for (const auto& b : wait) wait_batch(*b);
    Locked lock;
    reap();
  } catch (...) {  // errors stay with the failed tensors
  }
}

const bool g_registered = [] {
  static Hooks hooks;
  set_lazy_hooks(&hooks);
  runtime::set_synchronize_hook(&sync_hook);
  return true;
}();

}  // namespace

AtomicStats& mutable_stats() {
  static AtomicStats s;
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

std::vector<ReduceRun> reduce_runs(const Shape& shape, const DimVector& mask) {
  std::vector<ReduceRun> runs;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    const bool red = mask[d] != 0;
    if (!runs.empty() && runs.back().reduced == red) runs.back().size *= shape[d];
    else runs.push_back({shape[d], red});
  }
  return runs;
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
  const AtomicStats& a = mutable_stats();
  Stats s;
  s.nodes_recorded = a.nodes_recorded.load();
  s.graphs_run = a.graphs_run.load();
  s.nodes_run = a.nodes_run.load();
  s.nodes_dead = a.nodes_dead.load();
  s.groups_run = a.groups_run.load();
  s.program_cache_hits = a.program_cache_hits.load();
  s.program_cache_misses = a.program_cache_misses.load();
  s.auto_flushes = a.auto_flushes.load();
  s.passes_fired = a.passes_fired.load();
  s.passes_fired_gelu = a.passes_fired_gelu.load();
  return s;
}

namespace {
/// An elementwise node over `inputs` (edges recorded in `g`); the caller
/// links it into the graph. Locked.
std::shared_ptr<Node> elementwise_node(Graph& g, const char* name, InnerLoop loop, DType out_dtype,
                                       const Shape& shape, const Tensor* inputs, int n) {
  auto node = new_node();
  node->kind = Kind::kElementwise;
  node->name = name;
  node->loop = loop;
  node->dtype = out_dtype;
  node->shape = shape;
  node->nin = n;
  for (int i = 0; i < n; ++i) add_input(g, node->in[i], inputs[i]);
  return node;
}
}  // namespace

Tensor record_elementwise(const char* name, InnerLoop loop, DType out_dtype, const Shape& shape, const Tensor* inputs,
                          int n) {
  if (n < 1 || n > 3) throw Error(Status::Invalid(name, "fused ops take 1 to 3 operands"));
  Locked lock;
  Graph& g = thread_graph();
  for (int i = 0; i < n; ++i) materialise_foreign(g, inputs[i]);
  return finish_node(g, elementwise_node(g, name, loop, out_dtype, shape, inputs, n));
}

namespace {
/// record_elementwise_into for a materialised storage the graph wrote and
/// nobody got a pointer to (kUnexposed, and no pending reader or writer):
/// `out` must be the whole storage in its natural layout, and operands that
/// share the storage must be that same view (an elementwise update in place
/// reads each element before writing it; other overlaps run eagerly, as
/// NumPy buffers them). The node writes the storage's memory when it runs
/// (in record order: no earlier reader exists), later readers get edges to
/// it, and observation (data()) waits for it. Locked.
bool record_into_materialised(Graph& g, const char* name, InnerLoop loop, DType out_dtype, const Shape& shape,
                              const Tensor* inputs, int n, const Tensor& out) {
  const std::shared_ptr<Storage>& st = out.storage();
  if (st->lazy_flags() != Storage::kUnexposed || !st->raw_data() || st->is_external() || st->is_inline())
    return false;
  const int64_t item = static_cast<int64_t>(dtype_size(out_dtype));
  if (out.offset() != 0 || out.dtype() != out_dtype || shape != out.shape() || !out.is_contiguous() ||
      shape_numel(shape) * item != static_cast<int64_t>(st->nbytes()))
    return false;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = inputs[i];
    if (t.storage() != st) continue;
    if (t.offset() != 0 || t.dtype() != out_dtype || t.shape() != shape || t.strides() != out.strides()) return false;
  }
  for (int i = 0; i < n; ++i) materialise_foreign(g, inputs[i]);
  if (st->lazy_flags() != Storage::kUnexposed) return false;
  append_producer(g, elementwise_node(g, name, loop, out_dtype, shape, inputs, n), st,
                  static_cast<uint8_t>((st->lazy_flags() & ~Storage::kUnexposed) | Storage::kPendingWrite));
  return true;
}
}  // namespace

bool record_elementwise_into(const char* name, InnerLoop loop, DType out_dtype, const Shape& shape,
                             const Tensor* inputs, int n, const Tensor& out) {
  if (n < 1 || n > 3) return false;
  Locked lock;
  Graph& g = thread_graph();
  const std::shared_ptr<Storage>& st = out.storage();
  if (!(st->lazy_flags() & Storage::kPendingWrite))
    return record_into_materialised(g, name, loop, out_dtype, shape, inputs, n, out);
  Node* p = producer_of(*st);
  if (!p->error.ok() || p->graph != &g || p->out.lock() != st) return false;
  // The whole value of the pending storage, in its producer's layout.
  if (out.offset() != 0 || out.dtype() != p->dtype || out.shape() != p->shape || !out.is_contiguous() ||
      out_dtype != out.dtype() || shape != out.shape())
    return false;
  for (int i = 0; i < n; ++i) materialise_foreign(g, inputs[i]);
  if (!(st->lazy_flags() & Storage::kPendingWrite) || producer_of(*st) != p) return false;
  // Operands read the storage's old value (edges to p, whatever their view):
  // NumPy's buffering of overlapping operands (x += x[::-1]) for free.
  auto node = elementwise_node(g, name, loop, out_dtype, shape, inputs, n);
  // The storage now holds the new node's value; p's value stays reachable
  // through the edges recorded so far (write-after-read) and becomes an
  // intermediate. Views of the storage taken earlier see the new value.
  p->out.reset();
  append_producer(g, std::move(node), st, st->lazy_flags());
  return true;
}

bool reduction_fusable(const Shape& shape, const DimVector& mask) {
  if (mask.size() != shape.size()) return false;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return false;
  int64_t K1, R, K2;
  if (!reduce_geometry(shape, mask, &K1, &R, &K2)) {
    // Several runs of reduced axes (reduce_general): tiles are chunks of lines
    // of the last run, so the lines must be long for per-tile overhead to
    // stay small (measured: shorter lines are faster eagerly).
    const auto runs = reduce_runs(shape, mask);
    return runs.back().size >= 256;
  }
  return K2 == 1 || K2 >= 16;
}

bool arg_reduction_fusable(const Shape& shape, DType dtype, const DimVector& mask) {
  return !is_complex(dtype) && reduction_fusable(shape, mask);
}

Tensor record_reduce(const char* name, InnerLoop combine, DType dtype, const Tensor& input, const DimVector& mask,
                     bool keepdims, const Tensor& identity) {
  if (!reduction_fusable(input.shape(), mask))
    throw Error(Status::Invalid(name, "reduction geometry cannot be fused"));
  auto node = new_node();
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

Tensor record_arg_reduce(const char* name, bool is_max, const Tensor& input, const DimVector& mask, bool keepdims) {
  if (!arg_reduction_fusable(input.shape(), input.dtype(), mask))
    throw Error(Status::Invalid(name, "arg reduction of shape " + Tensor::shape_str(input.shape()) + " and dtype " +
                                          dtype_name(input.dtype()) + " cannot be fused"));
  auto node = new_node();
  node->kind = Kind::kReduce;
  node->name = name;
  node->arg = is_max ? 1 : 2;
  node->dtype = DType::kInt64;
  node->nin = 1;
  node->mask = mask;
  node->keepdims = keepdims;
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

namespace {
/// Flushes the graphs producing `ts` (inline when small and their stream is
/// idle); the in-flight batches still producing them go to `wait`. Locked.
void start_eval(const Tensor* ts, size_t n, std::vector<std::shared_ptr<Batch>>* wait) {
  reap();
  for (size_t i = 0; i < n; ++i) {
    if (!ts[i].defined()) continue;
    const Storage& s = *ts[i].storage();
    if (!(s.lazy_flags() & Storage::kPendingWrite)) continue;
    Node* p = producer_of(s);  // alive until the lock is dropped (garbage), no reference needed
    if (!p) continue;
    if (p->graph) flush_graph(*p->graph, true);
    if (p->batch) wait->push_back(p->batch->shared_from_this());
    else if (!p->error.ok()) throw Error(p->error);
  }
}
}  // namespace

bool try_eval(const Tensor* tensors, size_t n) {
  std::vector<std::shared_ptr<Batch>> wait;
  Locked lock;
  start_eval(tensors, n, &wait);
  return wait.empty();
}

void eval(const std::vector<Tensor>& tensors) {
  std::vector<std::shared_ptr<Batch>> wait;
  {
    Locked lock;
    start_eval(tensors.data(), tensors.size(), &wait);
  }
  if (wait.empty()) return;
  for (const auto& b : wait) wait_batch(*b);
  wait.clear();
  Locked lock;
  start_eval(tensors.data(), tensors.size(), &wait);  // completes them; raises their errors
}

void flush_all() noexcept { sync_hook(nullptr); }

void set_wait_hook(void (*hook)(void (*wait)(void*), void* arg)) noexcept {
  g_wait_hook.store(hook, std::memory_order_release);
}

void flush(runtime::Stream* stream) {
  Locked lock;
  reap();
  const uint64_t id = stream ? stream->id() : runtime::current_stream_ptr()->id();
  for (size_t i = 0; i < registry().size(); ++i)
    if (registry()[i]->stream_id == id) flush_graph(*registry()[i]);
}

int64_t pending_nodes() {
  Locked lock;
  return static_cast<int64_t>(thread_graph().nodes.size());
}

}  // namespace asc::graph
