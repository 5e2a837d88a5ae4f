// Executing a planned batch, without the graph lock: buffers from the pool,
// the small-graph fast path, one tile program per group, failures recorded on
// the nodes. Runs on the stream's worker (or inline) and touches only its own
// batch; graph.cc plans and completes batches.
#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "asc/runtime/device.h"
#include "asc/runtime/profiler.h"
#include "asc/runtime/stream.h"
#include "graph/internal.h"
#include "kernel/simd/gelu_loop.h"
#include "kernel/simd/tables.h"

namespace asc::graph::detail {
namespace {

bool c_contiguous(const Shape& shape, const Strides& strides, int64_t item) {
  int64_t acc = item;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != acc) return false;
    acc *= shape[d];
  }
  return true;
}

}  // namespace

/// The small-graph fast path: a group of one elementwise node (or one
/// whole-array reduction of one tile) over contiguous or single-element
/// operands calls the op's inner loop directly -- no program analysis, cache
/// look-up or tile state. Same loop calls (and, for reductions, the same
/// single identity) as the tile program, so results are identical. Not taken
/// while profiling or dumping (those report the program's spans and tiles).
bool run_direct_node(const Node& n, const Shape& domain, Mode mode, uint8_t* out_bytes) {
  if (n.bcast || n.row_value || n.arg || !n.loop || !out_bytes) return false;
  int64_t total = 1;
  for (int64_t d : domain) total *= d;
  const bool reduce = n.kind == Kind::kReduce;
  if (reduce ? (mode != Mode::kReduceAll || total > 4096) : (mode != Mode::kMap || total >= kInlineMaxElements))
    return false;
  if (!reduce && n.shape != domain) return false;
  char* ptr[4];
  int64_t str[4];
  for (int i = 0; i < n.nin; ++i) {
    const Input& in = n.in[i];
    const Node* p = resolve(in.node);
    const uint8_t* base;
    if (p) {
      if (in.fused || !p->buffer) return false;
      base = p->buffer->raw_data();
    } else {
      base = in.leaf.storage()->raw_data();
    }
    if (!base) return false;
    const int64_t item = static_cast<int64_t>(dtype_size(in.dtype));
    int64_t numel = 1;
    for (int64_t d : in.shape) numel *= d;
    if (numel == 1) str[i + 1] = 0;
    else if (numel == total && in.shape.size() <= domain.size() && c_contiguous(in.shape, in.strides, item))
      str[i + 1] = item;
    else return false;
    ptr[i + 1] = const_cast<char*>(reinterpret_cast<const char*>(base + in.offset));
  }
  const int64_t item = static_cast<int64_t>(dtype_size(n.dtype));
  char* out = reinterpret_cast<char*>(out_bytes);
  if (!reduce) {
    ptr[0] = out;
    str[0] = item;
    n.loop(ptr, str, total);
    return true;
  }
  // reduce_all in one tile: out = id (+) x, the identity applied once as the
  // tile program's first folds copy (program.cc fold_first): NumPy's value.
  alignas(16) uint8_t part[16];
  std::memcpy(part, n.identity, 16);
  char* rp[3] = {reinterpret_cast<char*>(part), reinterpret_cast<char*>(part), ptr[1]};
  int64_t rs[3] = {0, 0, str[1]};
  n.loop(rp, rs, total);
  std::memcpy(out, part, static_cast<size_t>(item));
  return true;
}

namespace {

/// The gelu pass's node (passes.cc) alone in its group over large contiguous float32 memory --
/// a registered CustomGeLU, also under asc.torch.op -- runs as asc.ops.gelu runs its kernel: the
/// per-range entry over one contiguous range per block, outputs of >= 4 MiB written with
/// streaming stores straight to the destination. The tile program would cut the range into
/// 4096-element tiles and, for long outputs, stage each tile in UB and copy it out
/// non-temporally: one more pass through L1 per element, for a kernel that keeps everything in
/// registers anyway. Same vectors as the tile program whenever the ranges start at multiples of
/// 64 elements (they do: blocks are whole 64-element chunks), so the same bits as asc.ops.gelu.
bool run_direct_gelu(const Node& n, const Shape& domain, Mode mode, uint8_t* out_bytes) {
  if (mode != Mode::kMap || n.nin != 1 || n.bcast || n.row_value || n.arg || !out_bytes || n.shape != domain ||
      n.dtype != DType::kFloat32 || n.in[0].dtype != DType::kFloat32)
    return false;
  bool tanh_form;
  if (std::strcmp(n.name, "Gelu") == 0) tanh_form = false;
  else if (std::strcmp(n.name, "GeluTanh") == 0) tanh_form = true;
  else return false;
  const kernel::simd::GeluRangeFn range = kernel::simd::registered_gelu_range();
  if (!range || n.loop != kernel::simd::native_gelu_loop(tanh_form)) return false;
  const int64_t total = shape_numel(domain);
  if (total < kInlineMaxElements) return false;  // small: the existing paths (no launch)
  const Input& in = n.in[0];
  if (in.shape != domain || !c_contiguous(in.shape, in.strides, 4)) return false;
  const Node* p = resolve(in.node);
  const uint8_t* base;
  if (p) {
    if (in.fused || !p->buffer) return false;
    base = p->buffer->raw_data();
  } else {
    base = in.leaf.storage()->raw_data();
  }
  if (!base) return false;
  const uint8_t* x = base + in.offset;
  // in place or apart; a partial overlap is left to the tile program's staging
  const int64_t bytes = total * 4;
  if (x != out_bytes && x < out_bytes + bytes && out_bytes < x + bytes) return false;
  const bool stream = bytes >= (int64_t(4) << 20);
  // 64-element units; one block per core at least, else one per 2^18 elements, so that a core
  // slowed down by another process takes fewer blocks (the tile program's chunked launches)
  const int64_t units = (total + 63) / 64;
  const int64_t cores = runtime::current_device().properties().num_cores;
  const int64_t nb = std::min<int64_t>(units, std::max<int64_t>(cores, total >> 18));
  auto body = [&](int64_t b) {
    const int64_t lo = units * b / nb * 64, hi = std::min(total, units * (b + 1) / nb * 64);
    range(0, tanh_form, x, out_bytes, lo, hi, stream);
    if (stream) kernel::simd::stream_fence();  // visible before the launch completes
  };
  if (cores <= 1 || nb <= 1 || runtime::current_block() != nullptr) {
    for (int64_t b = 0; b < nb; ++b) body(b);
    return true;
  }
  runtime::KernelInvocation inv;
  inv.name = tanh_form ? "GeluTanh" : "Gelu";
  inv.block_dim = static_cast<uint32_t>(nb);
  inv.body = [&body](const runtime::BlockContext& ctx) { body(static_cast<int64_t>(ctx.block_idx)); };
  runtime::current_device().run_kernel(inv).ThrowIfError();
  return true;
}

bool run_direct(const Group& g) {
  if (g.nodes.size() != 1) return false;
  const Node& n = *g.nodes[0];
  if (!n.buffer) return false;
  return run_direct_node(n, g.domain, g.mode, n.buffer->raw_data()) ||
         run_direct_gelu(n, g.domain, g.mode, n.buffer->raw_data());
}

/// Allocates buffers and runs the groups of `b` in order. Throws on failure.
void run_batch(Batch& b) {
  // Profiler: one "materialize" span per flush around its group spans.
  runtime::profiler::Span flush_span(runtime::profiler::EventKind::kGraph, "materialize");
  if (flush_span.active())
    flush_span.event().detail = "graph=" + std::to_string(b.dump_seq) + " nodes=" + std::to_string(b.nodes.size()) +
                                " scheduled=" + std::to_string(b.order.size()) +
                                " groups=" + std::to_string(b.groups.size());
  const bool fast = !b.dumping && !runtime::profiler::enabled();
  for (size_t gi = 0; gi < b.groups.size(); ++gi) {
    Group& g = b.groups[gi];
    for (Node* n : g.nodes) {
      if (!n->needs_buffer) continue;
      if (n->live) {
        std::shared_ptr<Storage> s = b.outs[static_cast<size_t>(n->id)];
        s->allocate_deferred();
        n->buffer = std::move(s);
      } else {
        const int64_t bytes = shape_numel(n->shape) * static_cast<int64_t>(dtype_size(n->dtype));
        n->buffer = Storage::allocate(static_cast<size_t>(bytes));
      }
    }
    const double t0 = b.dumping ? now_ms() : 0;
    if (!(fast && run_direct(g))) {
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
      run_group(g, b.dumping);
    }
    if (b.dumping) g.ms = now_ms() - t0;
    for (Node* n : g.nodes) n->done_ok = true;
    // Temporaries whose last reader ran go back to the pool (reused by the next group).
    for (Node* n : b.order)
      if (!n->live && n->buffer && n->last_group <= static_cast<int>(gi) && n->group <= static_cast<int>(gi))
        n->buffer.reset();
  }
  if (b.dumping) dump_graph(b.order, &b.groups, true, b.dump_seq);
}

}  // namespace

/// Runs `b` (on its stream's worker, or inline): waits for the in-flight work
/// it reads, computes, records failures, then publishes `done`. Never throws.
void execute(Batch& b) noexcept {
  try {
    for (const auto& d : b.deps) {
      Batch& o = *d.batch;
      if (!o.done.load(std::memory_order_acquire)) {
        if (auto s = o.stream.lock()) s->wait_until(o.seq);
        while (!o.done.load(std::memory_order_acquire)) std::this_thread::yield();
      }
      const Node* p = static_cast<const Node*>(d.node.get());
      if (!p->done_ok) throw Error(p->error.ok() ? o.error : p->error);
    }
    run_batch(b);
  } catch (...) {
    Status err = StatusFromCurrentException("graph");
    b.error = err;
    for (auto& n : b.nodes)
      if (!n->done_ok) n->error = err;
  }
  for (auto& n : b.nodes) n->buffer.reset();
  b.done.store(true, std::memory_order_release);
}

}  // namespace asc::graph::detail
