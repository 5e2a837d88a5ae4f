// Lazy graphs and kernel fusion (asc::graph).
//
// The op executor (asc::ops::call) records operations here instead of running
// them: shape and dtype inference and every error happen at the call, the
// result is a pending tensor whose storage has no memory yet. Work runs when a
// value is observed -- Tensor::data() on a pending storage, or on a storage
// that pending nodes read (core's LazyHooks), eval(), flush_all(), stream
// synchronisation -- or when a stream's pending graph reaches max_nodes().
//
// Materialising a graph: dead nodes (no live tensor needs them) are dropped;
// the scheduler groups chains of elementwise nodes (broadcasts, casts, scalar
// constants and strided inputs resolved while tiles are copied in) with
// reductions at a group's end (or, for reductions over trailing axes whose
// rows fit the Unified Buffer, in the middle: a row-fused group such as a
// whole softmax); each group runs as one tile program on all cores: per tile,
// inputs are gathered into the core's UB (contiguous inputs are read in
// place), the ops' inner loops run on UB-resident tiles (a register machine
// over tiles), results are written out. Intermediates that never leave a
// group use no pool memory. Compiled programs are cached by structure (ops,
// dtypes, layout classes, shapes), never by array identity.
//
// The graph layer knows nothing of the op registry: an op is described by
// its name (static storage), its CPU inner loop (the NumPy-ufunc-style
// `void(char** ptrs, const int64_t* strides, int64_t n)` of the ops layer;
// a reduction passes its combine loop, called with ptrs[0] == ptrs[1] and
// strides 0, NumPy's reduce convention) and its output dtype.
//
// Ordering: nodes read their inputs' values as of the recording call. Any
// raw access to a storage (Tensor::data(): setitem, in-place operators,
// out=, copies, opaque ops, NumPy views) first runs every pending graph that
// writes or reads that storage. Memory that may change without pyasc seeing
// it (Storage::volatile_bytes(): writable NumPy/DLPack memory, storages a
// NumPy view or capsule points into) is never read by a node later than its
// recording call: asc::ops::call runs such nodes at the call, or snapshots
// those operands when the node also reads pending values.
//
// Streams: graphs are per stream -- ops record into the graph of the calling
// thread's current stream (asc::runtime::current_stream(), `with
// asc.Stream():`). A flush enqueues the batch on that stream (it runs on the
// stream's worker, asynchronously); a small batch observed at once on an idle
// stream runs inline on the observing thread instead. Observation waits for
// exactly the batches producing (or, before a raw write, reading) a storage.
// A node on stream B reading a value pending on stream A flushes A's graph and
// makes B's batch wait for A's (and fail with its error). Memory a batch uses
// stays alive until it finished (the batch owns its operands and outputs).
//
// Thread-safety: all functions may be called from any thread; one
// process-wide lock serialises recording and planning, never execution;
// threads sharing a stream share its graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asc/core/dtype.h"
#include "asc/core/tensor.h"

namespace asc::runtime {
class Stream;
}

namespace asc::graph {

/// The ops layer's CPU inner loop (asc::ops::InnerLoop).
using InnerLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n);

/// Whether ops record lazily (false: run op by op, as `PYASC_EAGER=1` or
/// set_eager(true) ask). Thread-safe (one relaxed load).
bool lazy_enabled() noexcept;
/// Switches eager mode on or off for the whole process; turning it on first
/// materialises every pending graph.
void set_eager(bool eager);
bool is_eager() noexcept;

/// Records `out = loop(inputs...)` over `shape`: the inputs broadcast to
/// `shape` and already have the loop's dtypes; the result is a new pending
/// C-contiguous tensor of `out_dtype`. `name` must have static storage
/// duration (the registry's op names do). Precondition: shape_numel(shape) > 0.
Tensor record_elementwise(const char* name, InnerLoop loop, DType out_dtype, const Shape& shape,
                          const Tensor* inputs, int n);

/// Records an in-place update or `out=` result: `out = loop(inputs...)` where
/// `out` is the whole pending value of a node of the calling thread's graph
/// (offset 0, C-contiguous, its producer's shape and dtype == `out_dtype`,
/// `shape` == out's shape). The storage then holds the new node's value;
/// operands (views of `out` included) and nodes recorded earlier read the
/// old value. Also records into a materialised storage the graph wrote that
/// no raw pointer was handed out for since (Storage::kUnexposed, no pending
/// reader or writer), when `out` is the whole storage (offset 0,
/// C-contiguous, same bytes) and operands sharing it are that same view: the
/// node then writes the storage's memory in place when it runs. Returns false
/// (nothing recorded) when those conditions do not hold: the caller runs the
/// op eagerly. Thread-safety: as record_elementwise.
bool record_elementwise_into(const char* name, InnerLoop loop, DType out_dtype, const Shape& shape,
                             const Tensor* inputs, int n, const Tensor& out);

/// Whether a reduction of an input of `shape` over the axes marked in `mask`
/// (one entry per axis, nonzero = reduced) can be fused: a nonempty input and
/// reduced axes forming one run after size-1 axes are dropped (all axes,
/// trailing, leading or a middle run; a leading or middle run needs at least
/// 16 kept trailing elements), or several runs (e.g. axes (0, 2) of a 3-D
/// array) whose last run (reduced or kept) has at least 256 elements. Others
/// run eagerly.
bool reduction_fusable(const Shape& shape, const DimVector& mask);

/// Records the reduction of `input` (already of dtype `dtype`) over the axes
/// marked in `mask` with the combine loop `combine`, starting from the 0-d
/// `identity` of `dtype`; keepdims keeps the reduced axes with size 1.
/// Precondition: reduction_fusable(input.shape(), mask).
Tensor record_reduce(const char* name, InnerLoop combine, DType dtype, const Tensor& input, const DimVector& mask,
                     bool keepdims, const Tensor& identity);

/// Whether argmax/argmin of an input of `shape` and `dtype` over the axes in
/// `mask` (all axes, or one) can be fused: reduction_fusable() and a real
/// (not complex) dtype.
bool arg_reduction_fusable(const Shape& shape, DType dtype, const DimVector& mask);

/// Records argmax (`is_max`) or argmin of `input` over the axes marked in
/// `mask`: the int64 index of the first extreme element along the reduced
/// axes (their C-order flattened index when all axes are reduced); the first
/// NaN wins, as in NumPy. keepdims keeps the reduced axes with size 1.
/// Precondition: arg_reduction_fusable(input.shape(), input.dtype(), mask).
/// Thread-safety: as record_reduce.
Tensor record_arg_reduce(const char* name, bool is_max, const Tensor& input, const DimVector& mask, bool keepdims);

/// Materialises the given tensors (and everything pending in their graphs)
/// and waits for them. Throws the error of failed work. Releases the graph
/// lock while waiting (call it without the GIL: stream callbacks may need it).
void eval(const std::vector<Tensor>& tensors);
/// eval() without waiting: flushes the tensors' graphs (small ones on idle
/// streams run here) and returns whether all of them are final (true; their
/// errors are thrown) or still computing on a stream (false: call eval()).
bool try_eval(const Tensor* tensors, size_t n);
/// Enqueues the pending graph of `stream` (the calling thread's current
/// stream if null) on that stream and returns without waiting: the work
/// starts now and runs asynchronously; observing a result waits for it.
void flush(runtime::Stream* stream = nullptr);
/// Blocking waits for stream work (observing a value still computing on a
/// stream) run as hook(wait, arg) when a hook is set -- the Python bindings
/// set one that releases the GIL around wait(arg), since the stream may first
/// have to run a Python callback. Not used while the graph lock is held.
void set_wait_hook(void (*hook)(void (*wait)(void*), void* arg)) noexcept;
/// Materialises every pending graph of every stream and waits for it. Never
/// throws: errors stay with the failed tensors (raised when they are read).
void flush_all() noexcept;
/// Nodes pending in the graph of the calling thread's current stream.
int64_t pending_nodes();

/// Pending graph size bound: a stream's graph is flushed (asynchronously)
/// when it holds this many nodes (default 1024; `ASC_GRAPH_MAX_NODES`). At
/// most 4 flushed batches per stream are in flight; the call that flushes a
/// fifth waits for the oldest before it returns, holding no graph lock and
/// (through the wait hook) not the GIL: work queued ahead on the stream, such
/// as a Python host callback, may need either.
int64_t max_nodes() noexcept;
void set_max_nodes(int64_t n);

/// Counters since process start (for tests and benchmarks).
struct Stats {
  int64_t nodes_recorded = 0;
  int64_t graphs_run = 0;        // materialisations (flushes with work)
  int64_t nodes_run = 0;         // nodes computed (dead ones are dropped)
  int64_t nodes_dead = 0;        // nodes dropped because nothing needed them
  int64_t groups_run = 0;        // tile programs executed
  int64_t program_cache_hits = 0;
  int64_t program_cache_misses = 0;
  int64_t auto_flushes = 0;      // flushes caused by max_nodes()
  int64_t passes_fired = 0;      // subgraphs rewritten by graph passes (passes.cc), all passes
  int64_t passes_fired_gelu = 0; // of those, by the gelu pass (erf and tanh forms)
};
Stats stats();

/// Graph dumps: with ASCEND_DUMP_GRAPH=1 (read once; set_dump overrides)
/// every materialised graph writes graph_<pid>_<n>.{before,after}.{json,dot}
/// into ASCEND_DUMP_GRAPH_PATH (default ./graph_dump). Format: docs/graph_dump.md.
void set_dump(bool enabled, const std::string& path);
bool dump_enabled() noexcept;
std::string dump_path();

}  // namespace asc::graph
