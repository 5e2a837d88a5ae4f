// Lazy graphs and kernel fusion (asc::graph).
//
// The op executor (asc::ops::call) records operations here instead of running
// them: shape and dtype inference and every error happen at the call, the
// result is a pending tensor whose storage has no memory yet. Work runs when a
// value is observed -- Tensor::data() on a pending storage, or on a storage
// that pending nodes read (core's LazyHooks), eval(), flush_all(), stream
// synchronisation -- or when a thread's pending graph reaches max_nodes().
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
// writes or reads that storage. Memory shared with NumPy and written through
// NumPy while pyasc work that reads it is pending is the one case pyasc
// cannot see: evaluate first (eval(), asc.synchronize()).
//
// Thread-safety: each thread records into its own graph; one process-wide
// lock serialises recording and materialisation, so tensors may be shared
// between threads (a pending tensor of another thread's graph is
// materialised before use).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asc/core/dtype.h"
#include "asc/core/tensor.h"

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

/// Whether a reduction of an input of `shape` over the axes marked in `mask`
/// (one entry per axis, nonzero = reduced) can be fused: a nonempty input and
/// reduced axes forming one run after size-1 axes are dropped (all axes,
/// trailing, leading or a middle run; a leading or middle run needs at least
/// 16 kept trailing elements). Others run eagerly.
bool reduction_fusable(const Shape& shape, const DimVector& mask);

/// Records the reduction of `input` (already of dtype `dtype`) over the axes
/// marked in `mask` with the combine loop `combine`, starting from the 0-d
/// `identity` of `dtype`; keepdims keeps the reduced axes with size 1.
/// Precondition: reduction_fusable(input.shape(), mask).
Tensor record_reduce(const char* name, InnerLoop combine, DType dtype, const Tensor& input, const DimVector& mask,
                     bool keepdims, const Tensor& identity);

/// Materialises the given tensors (and everything pending in their graphs).
/// Throws the error of failed work.
void eval(const std::vector<Tensor>& tensors);
/// Materialises every pending graph of every thread. Never throws: errors
/// stay with the failed tensors (raised when they are read).
void flush_all() noexcept;
/// Nodes pending in the calling thread's graph.
int64_t pending_nodes();

/// Pending graph size bound: a thread's graph materialises when it holds this
/// many nodes (default 1024; `ASC_GRAPH_MAX_NODES`).
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
};
Stats stats();

/// Graph dumps: with ASCEND_DUMP_GRAPH=1 (read once; set_dump overrides)
/// every materialised graph writes graph_<pid>_<n>.{before,after}.{json,dot}
/// into ASCEND_DUMP_GRAPH_PATH (default ./graph_dump). Format: docs/graph_dump.md.
void set_dump(bool enabled, const std::string& path);
bool dump_enabled() noexcept;
std::string dump_path();

}  // namespace asc::graph
