// Internal structures of the lazy graph: nodes, groups, tile programs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "asc/core/status.h"
#include "asc/core/tensor.h"
#include "asc/graph/graph.h"

namespace asc::runtime {
class Stream;
}

namespace asc::graph::detail {

struct Batch;
struct Graph;
struct Node;

/// One operand of a node: a materialised tensor (leaf) or the value of a
/// pending node of the same graph seen through a view (shape/strides/offset
/// relative to the producer's C-contiguous output).
struct Input {
  Node* node = nullptr;
  Tensor leaf;  // node == nullptr
  Shape shape;
  Strides strides;
  int64_t offset = 0;
  DType dtype = DType::kFloat32;  // of the view
  bool natural = false;  // node != nullptr and the view is the producer's own layout
  bool fused = false;    // set by the scheduler: the value comes from a register of the same group
};

enum class Kind : uint8_t { kElementwise, kReduce };

struct Node {
  // User-provided: allocate_shared value-initialises, which would zero all
  // ~1.4 KB before the member initialisers run (a per-op cost of tiny graphs).
  Node() noexcept {}  // NOLINT(modernize-use-equals-default)

  int32_t id = 0;  // record order within its graph
  Kind kind = Kind::kElementwise;
  const char* name = "";
  InnerLoop loop = nullptr;
  DType dtype = DType::kFloat32;
  Shape shape;  // output shape (C-contiguous)
  int nin = 0;
  Input in[3];
  // Reductions: mask over the input's axes, keepdims, identity bytes of dtype.
  DimVector mask;
  bool keepdims = false;
  // Arg reductions: 1 argmax, 2 argmin (first occurrence, the first NaN
  // wins); the output is the int64 index along the reduced axes (C order),
  // the compared values have in[0].dtype; `loop` and `identity` are unused.
  uint8_t arg = 0;
  alignas(16) uint8_t identity[16] = {};
  std::weak_ptr<Storage> out;  // the pending storage; expired = nobody needs the value outside the graph
  Graph* graph = nullptr;      // while pending
  Batch* batch = nullptr;      // while in flight: flushed, not yet completed on the host
  Status error{};              // set when its graph failed to run ({}: Status's code has no initialiser)
  // Graph passes (passes.cc): the pass that rewrote this node ("gelu") and the
  // ids of the nodes it replaced (dumps, profiler); null when none.
  static constexpr int kMaxReplaced = 16;
  const char* pass = nullptr;
  uint8_t nreplaced = 0;
  int32_t replaced[kMaxReplaced];

  // Flush scratch.
  std::shared_ptr<Storage> buffer;  // output memory while the flush runs
  Node* alias = nullptr;            // CSE: computes the same value as this earlier node
  int group = -1;
  bool live = false, needed = false, needs_buffer = false, row_value = false;
  // Recomputed over the group's domain although its own shape broadcasts to
  // it (casts of broadcast inputs, scalar constants): "resolved in the copy-in".
  bool bcast = false;
  int last_group = -1;  // last group reading the buffer
  bool done_ok = false;  // set by the executor: the value was computed
  double exec_ms = 0;   // its group's execution time (dumps)
};

/// The pending nodes of one stream.
struct Graph {
  std::vector<std::shared_ptr<Node>> nodes;
  int64_t dump_seq = 0;
  uint64_t stream_id = 0;
  std::weak_ptr<runtime::Stream> stream;
  std::shared_ptr<runtime::Stream> hold;  // while nodes are pending: keeps the stream alive
  struct Dep {
    std::shared_ptr<Batch> batch;  // in-flight work producing a value the nodes read
    std::shared_ptr<void> node;    // that value's producer
  };
  std::vector<Dep> deps;
  std::thread::id creator;  // flushed when this thread exits
};

enum class Mode : uint8_t { kMap, kReduceAll, kReduceRows, kReduceCols, kRowFused, kReduceGeneral };
const char* mode_name(Mode m);

/// Nodes fused into one tile program, executed in creation order.
struct Group {
  Mode mode = Mode::kMap;
  Shape domain;                       // iteration space
  int64_t K1 = 1, R = 1, K2 = 1;      // reduction geometry: domain = K1 x R x K2 in C order
  DimVector mask;                     // reduced axes of the domain (reduce modes)
  bool has_reduce = false;
  std::vector<Node*> nodes;
  int64_t full_bytes = 0;             // row-fused budget: bytes per element of full registers
  double ms = 0;
  int64_t ub_bytes = 0, tile = 0;     // reported by the program (dumps)
  std::string program_key_hash;
  std::string chains;                 // set by the program: its register-level chains, "(op+op)(op+op)" (dumps)
  int64_t graph_seq = -1;             // profiler: the flush this group belongs to
  int index = -1, of = 0;             // profiler: position among the flush's groups
};

/// Canonical reduction geometry of `shape` reduced over `mask`: K1 x R x K2
/// (kept, reduced, kept) or false when the reduced axes are not one run.
bool reduce_geometry(const Shape& shape, const DimVector& mask, int64_t* K1, int64_t* R, int64_t* K2);

/// `shape` reduced over `mask` as alternating runs of kept and reduced axes
/// (size-1 axes dropped, adjacent axes of one kind merged), outermost first.
struct ReduceRun {
  int64_t size;
  bool reduced;
};
std::vector<ReduceRun> reduce_runs(const Shape& shape, const DimVector& mask);

/// Compiles (or takes from the cache) and runs `g`'s tile program. Node
/// buffers of group outputs and of inputs from earlier groups are set.
void run_group(Group& g, bool timing);

/// JSON/DOT dumps of a flush (dump.cc).
void dump_graph(const std::vector<Node*>& nodes, const std::vector<Group>* groups, bool after, int64_t seq);

/// Graph passes over a flush's nodes after liveness, before common
/// subexpressions and dead code (passes.cc; ASC_GRAPH_PASSES): rewritten
/// nodes keep their identity, replaced ones become dead. Leaf storages
/// the rewrites drop go to `displaced` (released after the lock). Locked.
void run_passes(std::vector<std::shared_ptr<Node>>& nodes, std::vector<std::shared_ptr<void>>* displaced);

/// Process-wide counters (graph.cc); executors update them without the lock.
struct AtomicStats {
  std::atomic<int64_t> nodes_recorded{0}, graphs_run{0}, nodes_run{0}, nodes_dead{0}, groups_run{0},
      program_cache_hits{0}, program_cache_misses{0}, auto_flushes{0}, passes_fired{0},
      passes_fired_gelu{0};
};
AtomicStats& mutable_stats();

/// The UB budget of one core (bytes).
int64_t ub_budget();

/// Batches whose work touches at most this many elements per group run inline
/// when observed on an idle stream (they would run on one thread anyway).
constexpr int64_t kInlineMaxElements = int64_t(1) << 16;

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The node whose value `n` stands for (CSE aliases followed).
inline Node* resolve(Node* n) {
  while (n && n->alias) n = n->alias;
  return n;
}

/// What a flush hands to its stream: the nodes, the schedule, the buffers.
/// Planned on the host under the lock; executed by the stream's worker (or
/// inline) without the lock; completed (storage flags cleared, nodes
/// released) on a host thread under the lock once `done` is set ("reaped").
/// While in flight nobody but the executor touches its nodes' flush scratch;
/// the host only reads Node::batch / graph (its own fields).
struct Batch : std::enable_shared_from_this<Batch> {
  using Dep = Graph::Dep;  // a failed producer fails this batch
  std::vector<std::shared_ptr<Node>> nodes;
  std::vector<std::shared_ptr<Storage>> outs;  // by node id: live outputs, kept until reaped
  std::vector<Node*> order;                    // scheduled nodes
  std::vector<Group> groups;
  std::vector<const Storage*> reads;           // distinct leaf storages (kPendingRead)
  std::vector<Dep> deps;
  std::weak_ptr<runtime::Stream> stream;
  uint64_t stream_id = 0;
  uint64_t seq = 0;  // its task on the stream (0: ran inline)
  int64_t dump_seq = 0;
  bool dumping = false;
  Status error;                 // first failure (written by the executor before `done`)
  std::atomic<bool> done{false};
};

/// The small-graph fast path (execute.cc): runs one node's inner loop over
/// contiguous or single-element operands; false when it does not apply.
bool run_direct_node(const Node& n, const Shape& domain, Mode mode, uint8_t* out_bytes);

/// Runs a planned batch (execute.cc; on its stream's worker, or inline):
/// waits for the in-flight work it reads, computes, records failures, then
/// publishes `done`. Never throws.
void execute(Batch& b) noexcept;

}  // namespace asc::graph::detail
