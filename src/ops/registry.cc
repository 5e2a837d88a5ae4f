// The op registry, dtype promotion and the (eager) executor.
#include "asc/ops/registry.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>

#include <sys/sysinfo.h>

#include "asc/graph/graph.h"
#include "asc/ops/iterator.h"
#include "asc/ops/reuse_buffer.h"
#include "asc/runtime/device.h"
#include "asc/runtime/memory_pool.h"
#include "asc/runtime/profiler.h"
#include "ops/loops.h"

namespace asc::ops {

// ------------------------------------------------------------------ registry

namespace {
std::unordered_map<std::string, std::unique_ptr<OpDef>>& registry() {
  static auto* r = new std::unordered_map<std::string, std::unique_ptr<OpDef>>();
  return *r;
}
}  // namespace

void register_op(OpDef def) {
  auto& r = registry();
  if (r.count(def.name)) throw Error(Status::Invalid(def.name, "operator registered twice"));
  if (!def.combine.empty()) def.combine_op = find_op(def.combine);  // else resolved on first use
  std::string name = def.name;
  r.emplace(std::move(name), std::make_unique<OpDef>(std::move(def)));
}

const OpDef* find_op(const std::string& name) noexcept {
  auto& r = registry();
  auto it = r.find(name);
  return it == r.end() ? nullptr : it->second.get();
}

const OpDef& get_op(const std::string& name) {
  const OpDef* op = find_op(name);
  if (!op) throw Error(Status::Invalid(name, "unknown operator"));
  return *op;
}

bool can_cast_same_kind(DType from, DType to) noexcept {
  auto rank = [](DType d) {
    switch (dtype_traits(d).kind) {
      case DTypeKind::kBool: return 0;
      case DTypeKind::kUnsignedInt: return 1;
      case DTypeKind::kSignedInt: return 2;
      case DTypeKind::kFloat: return 3;
      case DTypeKind::kComplex: return 4;
    }
    return 3;
  };
  return rank(from) <= rank(to);
}

OpDef elementwise_op(const char* name, int arity, DTypeRule rule, LoopSelector sel, const char* doc) {
  OpDef d;
  d.name = name;
  d.arity = arity;
  d.fusion = FusionClass::kElementwise;
  d.dtype_rule = rule;
  d.cpu_loop = sel;
  d.doc = doc;
  return d;
}

OpDef opaque_op(const char* name, int arity, OpaqueFn run, const char* doc) {
  OpDef d;
  d.name = name;
  d.arity = arity;
  d.fusion = FusionClass::kOpaque;
  d.run = run;
  d.doc = doc;
  return d;
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const auto& kv : registry()) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

// ------------------------------------------------------------------ promotion

namespace {
int kind_rank(DType d) {
  switch (dtype_traits(d).kind) {
    case DTypeKind::kBool: return 0;
    case DTypeKind::kSignedInt:
    case DTypeKind::kUnsignedInt: return 1;
    case DTypeKind::kFloat: return 2;
    case DTypeKind::kComplex: return 3;
  }
  return 2;
}
DType signed_of_size(size_t bytes) {
  switch (bytes) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}
}  // namespace

DType float_for(DType d) {
  switch (d) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8: return DType::kFloat16;
    case DType::kInt16:
    case DType::kUInt16: return DType::kFloat32;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kInt64:
    case DType::kUInt64: return DType::kFloat64;
    default: return d;
  }
}

Result<DType> promote_types(DType a, DType b) {
  if (a == b) return a;
  if (kind_rank(a) > kind_rank(b)) std::swap(a, b);  // a is the "lower" kind
  const auto ka = dtype_traits(a).kind, kb = dtype_traits(b).kind;
  if (ka == DTypeKind::kBool) return b;
  if (kb == DTypeKind::kComplex) {
    // complex64 holds float32 parts: with anything promoting to float64 (or
    // with complex128) the result is complex128.
    if (ka == DTypeKind::kComplex || b == DType::kComplex128) return DType::kComplex128;
    const DType fa = a == DType::kBFloat16 ? DType::kFloat32 : float_for(a);
    return dtype_size(fa) > 4 ? DType::kComplex128 : DType::kComplex64;
  }
  if (kb == DTypeKind::kFloat) {
    // ml_dtypes' bfloat16 (its ufunc loops, which is what users see): exact with
    // bool/int8/uint8, else the operation happens in float32 or wider.
    if (b == DType::kBFloat16 || a == DType::kBFloat16) {
      const DType other = b == DType::kBFloat16 ? a : b;
      if (other == DType::kBool || other == DType::kInt8 || other == DType::kUInt8) return DType::kBFloat16;
      const DType fo = float_for(other);
      return dtype_size(fo) > 4 ? fo : DType::kFloat32;
    }
    const DType fa = float_for(a);  // a int or float
    return dtype_size(fa) >= dtype_size(b) ? fa : b;
  }
  // both integers
  const size_t sa = dtype_size(a), sb = dtype_size(b);
  if (ka == kb) return sa >= sb ? a : b;
  const DType u = ka == DTypeKind::kUnsignedInt ? a : b, s = ka == DTypeKind::kUnsignedInt ? b : a;
  if (dtype_size(s) > dtype_size(u)) return s;
  if (dtype_size(u) == 8) return DType::kFloat64;
  return signed_of_size(dtype_size(u) * 2);
}

DType promote_or_throw(DType a, DType b, const std::string& op) {
  auto r = promote_types(a, b);
  if (!r.ok())
    throw Error(Status::TypeError(op, std::string("no common dtype for ") + dtype_name(a) + " and " + dtype_name(b)));
  return r.value();
}

DType default_scalar_dtype(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kBool: return DType::kBool;
    case ScalarKind::kInt: return DType::kInt64;
    case ScalarKind::kFloat: return DType::kFloat64;
    case ScalarKind::kComplex: return DType::kComplex128;
  }
  return DType::kFloat64;
}

Scalar weak_scalar_value(const Scalar& s, DType d) {
  if (d != DType::kBFloat16 || s.kind != ScalarKind::kFloat) return s;
  return Scalar::from_float(static_cast<double>(static_cast<float>(s.f)));
}

DType weak_scalar_dtype(DType array_dtype, ScalarKind kind) {
  const int rank = kind_rank(array_dtype);
  const int srank = kind == ScalarKind::kBool ? 0 : kind == ScalarKind::kInt ? 1 : kind == ScalarKind::kFloat ? 2 : 3;
  // A Python complex next to a real float array takes that float's precision
  // (float16/bfloat16/float32 -> complex64); next to integers complex128.
  if (kind == ScalarKind::kComplex && rank == 2)
    return array_dtype == DType::kFloat64 ? DType::kComplex128 : DType::kComplex64;
  // bfloat16 is an ordinary float here: NumPy 2.4 with ml_dtypes 0.7 keeps
  // bfloat16_array * 2.5 bfloat16 (ml_dtypes 0.5 computed it in float32).
  return srank <= rank ? array_dtype : default_scalar_dtype(kind);
}

// ------------------------------------------------------------------ dtype rules

namespace detail {

std::string dtypes_str(const DType* in, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += dtype_name(in[i]);
  }
  return s + ")";
}

namespace {
Status promote_all(const OpDef& op, const DType* in, DType* r) {
  DType d = in[0];
  for (int i = 1; i < op.arity; ++i) {
    auto p = promote_types(d, in[i]);
    if (!p.ok())
      return Status::TypeError(op.name, "no common dtype for the operand dtypes " + dtypes_str(in, op.arity));
    d = p.value();
  }
  *r = d;
  return Status::OK();
}
}  // namespace

Status rule_promote(const OpDef& op, const DType* in, const Attrs&, LoopTypes* t) {
  DType d;
  ASC_RETURN_IF_ERROR(promote_all(op, in, &d));
  for (int i = 0; i < op.arity; ++i) t->in[i] = d;
  t->out = d;
  return Status::OK();
}

Status rule_compare(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  t->out = DType::kBool;
  return Status::OK();
}

Status rule_float(const OpDef& op, const DType* in, const Attrs&, LoopTypes* t) {
  DType d;
  ASC_RETURN_IF_ERROR(promote_all(op, in, &d));
  // NumPy's true_divide has no small-int loops: any integer pair divides in float64.
  if (op.arity == 2 && !is_inexact(d)) d = DType::kFloat64;
  d = float_for(d);
  for (int i = 0; i < op.arity; ++i) t->in[i] = d;
  t->out = d;
  return Status::OK();
}

Status rule_logical(const OpDef& op, const DType*, const Attrs&, LoopTypes* t) {
  for (int i = 0; i < op.arity; ++i) t->in[i] = DType::kBool;
  t->out = DType::kBool;
  return Status::OK();
}

}  // namespace detail

// ------------------------------------------------------------------ executor

namespace {

// Below this many elements an op runs on the calling thread: a launch costs
// more than the work.
constexpr int64_t kParallelMinElements = 1 << 16;
constexpr int64_t kElementsPerBlock = 1 << 15;

/// Resolves every reduction's combine op once (after static initialisation).
bool resolve_combine_ops() {
  for (auto& kv : registry()) {
    OpDef& d = *kv.second;
    if (!d.combine.empty()) d.combine_op = find_op(d.combine);
  }
  return true;
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage()) return false;
  return !(a.offset() == b.offset() && a.strides() == b.strides() && a.shape() == b.shape());
}

int num_cores() { return runtime::current_device().properties().num_cores; }

/// Launches `body(block)` on `blocks` blocks of the current device (all cores).
template <typename Body>
void launch_blocks(const std::string& name, int64_t blocks, Body&& body) {
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(blocks);
  inv.body = [&body](const runtime::BlockContext& ctx) { body(static_cast<int64_t>(ctx.block_idx)); };
  runtime::current_device().run_kernel(inv).ThrowIfError();
}

/// Runs `loop` over out and the `n_in` inputs (all already of the loop dtypes,
/// broadcast to out's shape).
void run_loop(InnerLoop loop, const Tensor& out, const Tensor* inputs, int n_in, const std::string& name,
              int order_by = -1, bool parallel_ok = true) {
  const int nops = n_in + 1;
  const int64_t* strides[kMaxIterOperands];
  char* base[kMaxIterOperands];
  strides[0] = out.strides().data();
  base[0] = reinterpret_cast<char*>(out.data());
  for (int i = 0; i < n_in; ++i) {
    strides[i + 1] = inputs[i].strides().data();
    base[i + 1] = reinterpret_cast<char*>(inputs[i].data());
  }
  StridedIter it(nops, static_cast<int>(out.ndim()), out.shape().data(), strides, order_by);
  const int64_t total = it.size();
  if (total == 0) return;
  // An input broadcast along the inner run (stride 0: a column or a scalar against a matrix)
  // would send every run down the loops' per-element strided path (20-50x slower than their
  // contiguous/SIMD path). Such runs are cut into chunks whose broadcast inputs are replicated
  // into a small per-thread buffer, so the contiguous path runs; the value read is the same.
  int64_t isz[kMaxIterOperands];
  isz[0] = static_cast<int64_t>(out.itemsize());
  for (int i = 0; i < n_in; ++i) isz[i + 1] = static_cast<int64_t>(inputs[i].itemsize());
  bool any_bcast = false;
  for (int k = 1; k < nops; ++k) any_bcast |= it.inner_stride(k) == 0;
  auto chunked = [&](char** p, const int64_t* s, int64_t n) {
    bool dense = n >= 32 && s[0] == isz[0];
    bool bc = false;
    for (int k = 1; k < nops && dense; ++k) {
      if (s[k] == 0) bc = true;
      else if (s[k] != isz[k]) dense = false;
    }
    if (!dense || !bc) {
      loop(p, s, n);
      return;
    }
    constexpr int64_t kChunk = 512;
    alignas(64) thread_local unsigned char buf[kMaxIterOperands][kChunk * 16];
    char* q[kMaxIterOperands];
    int64_t cs[kMaxIterOperands];
    for (int k = 0; k < nops; ++k) {
      cs[k] = isz[k];
      q[k] = p[k];
      if (k > 0 && s[k] == 0) {
        const int64_t m = std::min(n, kChunk);
        for (int64_t j = 0; j < m; ++j) std::memcpy(buf[k] + j * isz[k], p[k], static_cast<size_t>(isz[k]));
        q[k] = reinterpret_cast<char*>(buf[k]);
      }
    }
    for (int64_t done = 0; done < n; done += kChunk) {
      const int64_t m = std::min(kChunk, n - done);
      char* r[kMaxIterOperands];
      for (int k = 0; k < nops; ++k) r[k] = (k > 0 && s[k] == 0) ? q[k] : q[k] + done * isz[k];
      loop(r, cs, m);
    }
  };
  if (any_bcast && it.inner_size() >= 32) {
    if (!parallel_ok || total < kParallelMinElements || num_cores() <= 1) {
      it.for_range(base, 0, total, chunked);
      return;
    }
    const int cores = num_cores();
    const int64_t blocks = std::min<int64_t>(cores, (total + kElementsPerBlock - 1) / kElementsPerBlock);
    const int64_t chunk = (total + blocks - 1) / blocks;
    launch_blocks(name, blocks, [&](int64_t b) {
      const int64_t lo = b * chunk;
      it.for_range(base, lo, std::min(total, lo + chunk), chunked);
    });
    return;
  }
  if (!parallel_ok || total < kParallelMinElements) {
    it.for_range(base, 0, total, loop);
    return;
  }
  const int cores = num_cores();
  if (cores <= 1) {
    it.for_range(base, 0, total, loop);
    return;
  }
  const int64_t blocks = std::min<int64_t>(cores, (total + kElementsPerBlock - 1) / kElementsPerBlock);
  const int64_t chunk = (total + blocks - 1) / blocks;
  launch_blocks(name, blocks, [&](int64_t b) {
    const int64_t lo = b * chunk;
    it.for_range(base, lo, std::min(total, lo + chunk), loop);
  });
}

[[noreturn]] void throw_broadcast(const OpDef& op, const Tensor* inputs, int n) {
  std::string shapes;  // every operand's shape, NumPy-style
  for (int i = 0; i < n; ++i) shapes += " " + Tensor::shape_str(inputs[i].shape());
  throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                           "operands could not be broadcast together with shapes" + shapes));
}

/// Operands whose bytes may change without pyasc seeing it (writable NumPy
/// or DLPack memory, pool memory a NumPy view or capsule points into:
/// Storage::volatile_bytes()) must be read by the recording call, not when a
/// lazy node runs later (NumPy's semantics: `y = x * 2; n[:] = 100` leaves y).
/// Bit i is set for operand i.
unsigned volatile_operands(const Tensor* ins, int n) {
  unsigned m = 0;
  for (int i = 0; i < n; ++i)
    if (ins[i].storage()->volatile_bytes()) m |= 1u << i;
  return m;
}

/// Whether a node with the volatile operands in `vol` may still be recorded:
/// those operands are then snapshotted (copied now) so the node fuses with
/// the pending operands it also reads. Without a pending operand the node
/// runs at once instead (one pass, no snapshot: the same bytes moved).
bool snapshot_volatile(unsigned vol, const Tensor* ins, int n) {
  if (vol == 0) return true;
  for (int i = 0; i < n; ++i)
    if (!(vol & (1u << i)) && ins[i].is_pending()) return true;
  return false;
}

namespace {
// The largest single allocation the host grants: the pool's limit when one is
// set, else RAM + swap (Linux's heuristic overcommit refuses one malloc beyond
// that, so NumPy's own allocation of such a result fails at once).
uint64_t host_commit_limit() {
  const size_t lim = runtime::device_pool().limit();
  if (lim) return lim;
  static const uint64_t ram_swap = [] {
    struct sysinfo si {};
    if (sysinfo(&si) != 0) return uint64_t(1) << 60;
    return (static_cast<uint64_t>(si.totalram) + si.totalswap) * si.mem_unit;
  }();
  return ram_swap;
}

/// NumPy's ufunc allocates its output (the iterator's temporary) before any
/// input is cast -- inputs are cast in buffered chunks, never whole -- so a
/// result too big for the address space is its ValueError, one the host cannot
/// hold its MemoryError, raised at the call: never the error of casting a huge
/// broadcast input first (not_equal(uint32 (1,1,1), <2**63-1-element int8 view>)
/// cast the view to int64 before broadcasting).
void check_result_alloc(const Shape& shape, DType dt, const char* op) {
  const uint64_t itemsize = dtype_size(dt);
  // npyiter_new_temp_array lays the C-order strides out with wrapping int
  // arithmetic and takes a stride equal to NPY_MAX_INTP as "unset": a bool
  // result of shape (1, 1, 2**63 - 1) is that ValueError, before its size check.
  uint64_t stride = itemsize;
  int gap = -1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (stride == static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) gap = static_cast<int>(i);
    stride *= static_cast<uint64_t>(std::max<int64_t>(shape[i], 0));
  }
  if (gap >= 0)
    throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                             "automatically allocated output array specified with an inconsistent axis mapping; "
                             "the axis mapping is missing an entry for dimension " + std::to_string(gap) +
                                 ". (NumPy's error for a result of shape " + Tensor::shape_str(shape) + ")"));
  const uint64_t nbytes = static_cast<uint64_t>(checked_nbytes(shape, itemsize, op));
  // Only where the result is allocated now: a lazily recorded result allocates
  // nothing until it is evaluated (the pool's MemoryError then), and tracing a
  // body over zero-memory placeholders of any size (custom ops' abstract
  // infer) must stay free.
  if (nbytes > (uint64_t(1) << 32) && !graph::lazy_enabled() && nbytes > host_commit_limit())
    throw Error(Status::OutOfMemory(op, "Unable to allocate " + std::to_string(nbytes) +
                                            " bytes for an array with shape " + Tensor::shape_str(shape) +
                                            " and data type " + dtype_name(dt)));
}
}  // namespace

Tensor run_elementwise(const OpDef& op, const Tensor* inputs, const Attrs& attrs, const Tensor* out) {
  DType in_dtypes[3];
  for (int i = 0; i < op.arity; ++i) in_dtypes[i] = inputs[i].dtype();
  LoopTypes lt;
  op.dtype_rule(op, in_dtypes, attrs, &lt).ThrowIfError();
  InnerLoop loop = op.cpu_loop(lt);
  if (!loop)
    throw Error(Status::TypeError(op.name, "no kernel for the operand dtypes " +
                                               detail::dtypes_str(in_dtypes, op.arity)));
  // NumPy's default casting for outputs is 'same_kind' (no float -> int, no
  // int -> bool), checked with the loop, before any shape (as NumPy does).
  if (out && !can_cast_same_kind(lt.out, out->dtype()))
    throw Error(Status::TypeError(op.name, std::string("Cannot cast ufunc '") + op.name + "' output from dtype('" +
                                               dtype_name(lt.out) + "') to dtype('" + dtype_name(out->dtype()) +
                                               "') with casting rule 'same_kind'"));
  const Shape* shape_ptr = &inputs[0].shape();
  Shape bshape;
  for (int i = 1; i < op.arity; ++i) {
    if (inputs[i].shape() == *shape_ptr) continue;
    if (inputs[i].ndim() == 0) continue;  // 0-d (e.g. a Python scalar) broadcasts to anything
    try {
      bshape = broadcast_shapes(*shape_ptr, inputs[i].shape(), op.name.c_str());
    } catch (const Error&) {
      throw_broadcast(op, inputs, op.arity);
    }
    shape_ptr = &bshape;
  }
  if (out && out->shape() != *shape_ptr) {
    // NumPy broadcasts the inputs up to a larger out (np.add(1, x, out=o2d));
    // out itself never broadcasts.
    Shape oshape;
    bool compatible = true;
    try {
      oshape = broadcast_shapes(*shape_ptr, out->shape(), op.name.c_str());
    } catch (const Error&) {
      compatible = false;
    }
    if (!compatible) {
      std::string shapes;
      for (int i = 0; i < op.arity; ++i) shapes += " " + Tensor::shape_str(inputs[i].shape());
      throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                               "operands could not be broadcast together with shapes" + shapes + " " +
                                   Tensor::shape_str(out->shape()) + " (the last is out)"));
    }
    if (oshape != out->shape())
      throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                               "non-broadcastable output operand with shape " + Tensor::shape_str(out->shape()) +
                                   " doesn't match the broadcast shape " + Tensor::shape_str(oshape)));
    bshape = out->shape();
    shape_ptr = &bshape;
  }
  const Shape& shape = *shape_ptr;
  if (!out) check_result_alloc(shape, lt.out, op.name.c_str());
  const unsigned vol = volatile_operands(inputs, op.arity);
  if (!out && graph::lazy_enabled() && !reuse_buffer_active() && !(op.value_errors && !is_inexact(lt.out)) &&
      shape_numel(shape, op.name.c_str()) > 0 && snapshot_volatile(vol, inputs, op.arity)) {
    // Lazy: a graph node (inputs cast by astype nodes); the work runs when a
    // value is observed, fused with its neighbours (asc/graph/graph.h).
    // Operands of the loop's dtypes are passed as they are (no tensor copies:
    // this is the per-op cost of small lazy graphs).
    bool need_cast = vol != 0;
    for (int i = 0; i < op.arity; ++i) need_cast |= inputs[i].dtype() != lt.in[i];
    if (!need_cast) return graph::record_elementwise(op.name.c_str(), loop, lt.out, shape, inputs, op.arity);
    Tensor ins[3];
    for (int i = 0; i < op.arity; ++i) {
      if (vol & (1u << i)) ins[i] = inputs[i].dtype() == lt.in[i] ? inputs[i].clone() : cast(inputs[i], lt.in[i]);
      else ins[i] = inputs[i].dtype() == lt.in[i] ? inputs[i] : cast(inputs[i], lt.in[i]);
    }
    return graph::record_elementwise(op.name.c_str(), loop, lt.out, shape, ins, op.arity);
  }
  Tensor result;
  if (out) {
    // In-place update of a pending value (c = a + b; c *= 2), or of a value
    // the graph computed and nobody got a pointer to: recorded, so that it
    // fuses with its neighbours (graph::record_elementwise_into).
    if ((out->storage()->lazy_flags() & (Storage::kPendingWrite | Storage::kUnexposed)) && out->dtype() == lt.out &&
        graph::lazy_enabled() && !reuse_buffer_active() && vol == 0 &&
        !(op.value_errors && !is_inexact(lt.out)) && shape_numel(shape, op.name.c_str()) > 0) {
      Tensor ins[3];
      for (int i = 0; i < op.arity; ++i) ins[i] = inputs[i].dtype() == lt.in[i] ? inputs[i] : cast(inputs[i], lt.in[i]);
      if (graph::record_elementwise_into(op.name.c_str(), loop, lt.out, shape, ins, op.arity, *out)) return *out;
      // Still computing (e.g. on its stream after an automatic flush): wait
      // for the value without exposing it -- the eager path below would wait
      // anyway -- and record into the materialised value if that applies.
      if (out->is_pending()) {
        graph::eval({*out});
        if (graph::record_elementwise_into(op.name.c_str(), loop, lt.out, shape, ins, op.arity, *out)) return *out;
      }
    }
    result = out->dtype() == lt.out ? *out : Tensor::empty(shape, lt.out);
  } else {
    result = allocate_output(shape, lt.out, inputs, op.arity);  // asc.reuse_buffer's hook
  }
  Tensor ins[3];
  for (int i = 0; i < op.arity; ++i) {
    Tensor t = inputs[i].dtype() == lt.in[i] ? inputs[i] : cast(inputs[i], lt.in[i]);
    if (may_overlap(result, t)) t = t.clone();  // a += a.T must read the old values
    ins[i] = t.shape() == shape ? std::move(t) : t.broadcast_to(shape);
  }
  run_loop(loop, result, ins, op.arity, op.name);
  if (out && out->dtype() != lt.out) {
    out->copy_from(cast(result, out->dtype()));
    return *out;
  }
  return result;
}

/// The reduction identity as a 0-d constant of dtype `d`.
Tensor identity_value(Identity id, DType d) {
  Scalar s = Scalar::from_int(0);
  if (is_complex(d) && (id == Identity::kLowest || id == Identity::kHighest)) {
    // Lexicographic extremes: (-inf, -inf) is <= every complex value.
    const double inf = std::numeric_limits<double>::infinity();
    const double v = id == Identity::kLowest ? -inf : inf;
    return scalar_constant(Scalar::from_complex(v, v), d);
  }
  switch (id) {
    case Identity::kOne: s = Scalar::from_int(1); break;
    case Identity::kLowest:
      if (is_floating(d)) s = Scalar::from_float(-std::numeric_limits<double>::infinity());
      // -(2^(bits-1) - 1) - 1: negating 2^63 itself overflows int64 (UBSan: make test-sanitize-python).
      else if (dtype_traits(d).kind == DTypeKind::kSignedInt)
        s = Scalar::from_int(-static_cast<int64_t>((uint64_t(1) << (dtype_size(d) * 8 - 1)) - 1) - 1);
      break;
    case Identity::kHighest:
      if (is_floating(d)) s = Scalar::from_float(std::numeric_limits<double>::infinity());
      else if (d == DType::kBool) s = Scalar::from_bool(true);
      else if (dtype_traits(d).kind == DTypeKind::kSignedInt)
        s = Scalar::from_int(static_cast<int64_t>((uint64_t(1) << (dtype_size(d) * 8 - 1)) - 1));
      else s = Scalar::from_int(-1);  // all ones after the wrap-around conversion
      break;
    default: break;
  }
  return scalar_constant(s, d);
}

/// Writes the reduction identity into every element of `acc`.
void fill_identity(const Tensor& acc, Identity id) { acc.copy_from(identity_value(id, acc.dtype())); }

/// acc (viewed with x's shape: stride 0 on reduced axes) folded with x by the
/// combine loop. Large reductions use all cores: split along a kept axis when
/// it is long enough (each block owns its outputs), else along a reduced axis
/// into per-block partial accumulators combined in block order (deterministic).
void reduce_into(InnerLoop loop, const Tensor& acc, const Tensor& accv, const Tensor& x, const DimVector& red,
                 Identity identity, const std::string& name) {
  const Tensor ops3[2] = {accv, x};
  const int64_t total = x.numel();
  const int cores = total >= kParallelMinElements ? num_cores() : 1;
  // A block must never wait for a stream: Hooks::sync inside a core worker
  // deadlocks against an in-flight batch that needs the cores (an eager max/min
  // of a value still being read or computed by a batch). The raw accesses the
  // blocks make are made here first, on the calling thread, so they return at once there.
  if (cores > 1) {
    (void)x.data();
    (void)accv.data();
  }
  if (cores <= 1) {
    run_loop(loop, accv, ops3, 2, name, /*order_by=*/2, /*parallel_ok=*/false);
    return;
  }
  const int64_t blocks = std::min<int64_t>(cores, (total + kElementsPerBlock - 1) / kElementsPerBlock);
  int kept_axis = -1, red_axis = -1;
  for (size_t i = 0; i < red.size(); ++i) {
    const int64_t n = x.shape()[i];
    if (red[i] && (red_axis < 0 || n > x.shape()[static_cast<size_t>(red_axis)])) red_axis = static_cast<int>(i);
    if (!red[i] && (kept_axis < 0 || n > x.shape()[static_cast<size_t>(kept_axis)])) kept_axis = static_cast<int>(i);
  }
  const int64_t kept_n = kept_axis >= 0 ? x.shape()[static_cast<size_t>(kept_axis)] : 0;
  const int64_t red_n = red_axis >= 0 ? x.shape()[static_cast<size_t>(red_axis)] : 0;
  auto part = [](int64_t n, int64_t b, int64_t nb) { return n * b / nb; };
  if (kept_n >= 4 * blocks || (kept_n >= blocks && red_n < blocks)) {
    launch_blocks(name, blocks, [&](int64_t b) {
      const int64_t lo = part(kept_n, b, blocks), hi = part(kept_n, b + 1, blocks);
      const Tensor av = accv.slice(kept_axis, lo, hi, 1);
      const Tensor in[2] = {av, x.slice(kept_axis, lo, hi, 1)};
      run_loop(loop, av, in, 2, name, 2, false);
    });
    return;
  }
  if (red_n < blocks) {
    run_loop(loop, accv, ops3, 2, name, 2, false);
    return;
  }
  std::vector<Tensor> partial(static_cast<size_t>(blocks));
  for (auto& p : partial) {
    p = Tensor::empty(acc.shape(), acc.dtype());
    fill_identity(p, identity);
  }
  launch_blocks(name, blocks, [&](int64_t b) {
    const int64_t lo = part(red_n, b, blocks), hi = part(red_n, b + 1, blocks);
    const Tensor& p = partial[static_cast<size_t>(b)];
    const Tensor pv = Tensor::view_of(p.storage(), p.dtype(), x.shape(), accv.strides(), p.offset())
                          .slice(red_axis, lo, hi, 1);
    const Tensor in[2] = {pv, x.slice(red_axis, lo, hi, 1)};
    run_loop(loop, pv, in, 2, name, 2, false);
  });
  for (const Tensor& p : partial) {
    const Tensor in[2] = {acc, p};
    run_loop(loop, acc, in, 2, name, -1, false);
  }
}

/// The vector width in bytes of NumPy's max/min reduction loop (loops_minmax) on this CPU:
/// 64 where it dispatches AVX512_SKX, 32 for AVX2, else 16 (its SSE / NEON baseline).
int numpy_minmax_vector_bytes() {
#if defined(__x86_64__) || defined(__i386__)
  static const int bytes = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
      return 64;
    return __builtin_cpu_supports("avx2") ? 32 : 16;
  }();
  return bytes;
#else
  return 16;
#endif
}

/// NumPy's sign of a zero max/min of a contiguous float32/float64 array. Its
/// reduction (loops_minmax: vectors of numpy_minmax_vector_bytes(), the accumulator
/// seeded with element 0, eight vectors a step combined pairwise, then one vector a
/// step, a horizontal reduction, then a scalar tail) gives the second operand on a
/// +0/-0 tie (maxps/minps), so which zero survives depends on that order. Replayed
/// here over the values, only when the result is a zero (no NaN then: NaN propagates).
/// The horizontal reduction is GCC's _mm512_reduce_max/min tree for AVX-512 and
/// NumPy's own halving for AVX2 / 128-bit (op(low half, high half) down to 128 bits,
/// then op(v, v[2, 3, ...]) and op(v, v[1, ...])); both checked against NumPy 2.4
/// on machines of each kind.
template <typename T>
bool numpy_zero_sign(const T* p, int64_t n, bool is_max) {
  const int L = numpy_minmax_vector_bytes() / static_cast<int>(sizeof(T));
  auto V = [is_max](T a, T b) { return (is_max ? a > b : a < b) ? a : b; };
  T acc[16], v[8][16];
  for (int i = 0; i < L; ++i) acc[i] = p[0];
  const T* ip = p + 1;
  int64_t len = n - 1;
  for (; len >= 8 * L; len -= 8 * L, ip += 8 * L) {
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < L; ++i) v[k][i] = ip[k * L + i];
    for (int i = 0; i < L; ++i)
      acc[i] = V(acc[i], V(V(V(v[0][i], v[1][i]), V(v[2][i], v[3][i])), V(V(v[4][i], v[5][i]), V(v[6][i], v[7][i]))));
  }
  for (; len >= L; len -= L, ip += L)
    for (int i = 0; i < L; ++i) acc[i] = V(acc[i], ip[i]);
  T r;
  if (L * sizeof(T) == 64) {
    const int H = L / 2;  // GCC's _mm512_reduce tree
    T t3[8], t6[4];
    for (int i = 0; i < H; ++i) t3[i] = V(acc[H + i], acc[i]);
    for (int i = 0; i < H / 2; ++i) t6[i] = V(t3[H / 2 + i], t3[i]);
    if constexpr (sizeof(T) == 4) {
      T t8[4];
      const int s1[4] = {2, 3, 0, 1};
      for (int i = 0; i < 4; ++i) t8[i] = V(t6[i], t6[s1[i]]);
      r = V(t8[0], t8[1]);  // lane 0 of op(T8, shuffle(T8, {1, 0, 1, 0}))
    } else {
      r = V(t6[0], t6[1]);
    }
  } else {
    int m = L;
    for (; m * static_cast<int>(sizeof(T)) > 16; m /= 2)
      for (int i = 0; i < m / 2; ++i) acc[i] = V(acc[i], acc[m / 2 + i]);
    if (m == 4) {
      acc[0] = V(acc[0], acc[2]);
      acc[1] = V(acc[1], acc[3]);
    }
    r = V(acc[0], acc[1]);
  }
  for (; len > 0; --len, ++ip) r = V(r, *ip);
  return std::signbit(r);
}

/// Gives a zero max/min over every axis of a contiguous float32/float64 `x`
/// NumPy's sign (numpy_zero_sign); `acc` is the 0-d result.
void fix_zero_sign(const Tensor& x, const Tensor& acc, bool is_max) {
  if (x.dtype() == DType::kFloat32) {
    float* r = acc.data_as<float>();
    if (*r == 0) *r = numpy_zero_sign(x.data_as<const float>(), x.numel(), is_max) ? -0.0f : 0.0f;
  } else {
    double* r = acc.data_as<double>();
    if (*r == 0) *r = numpy_zero_sign(x.data_as<const double>(), x.numel(), is_max) ? -0.0 : 0.0;
  }
}

/// NumPy's rule for a reduction's out=: exactly the result's shape (no
/// broadcasting into a larger out, no empty out for a 0-d result), else ValueError.
void check_reduction_out(const OpDef& op, const Shape& result, const Tensor& out, bool keepdims) {
  if (out.shape() == result) return;
  if (out.ndim() != static_cast<int64_t>(result.size()))
    throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                             "output parameter for reduction operation " + op.name +
                                 " has the wrong number of dimensions: Found " + std::to_string(out.ndim()) +
                                 " but expected " + std::to_string(result.size()) +
                                 (keepdims ? " (must match the operand's when keepdims=True)" : "")));
  throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                           "output array of shape " + Tensor::shape_str(out.shape()) +
                               " does not match the result shape " + Tensor::shape_str(result)));
}

Tensor run_reduction(const OpDef& op, const Tensor& x, const Attrs& attrs, const Tensor* out) {
  static const bool resolved = resolve_combine_ops();
  (void)resolved;
  LoopTypes lt;
  DType in_dtype = x.dtype();
  op.dtype_rule(op, &in_dtype, attrs, &lt).ThrowIfError();
  if (!op.combine_op) throw Error(Status::Invalid(op.name, "unknown combine operator '" + op.combine + "'"));
  const OpDef& combine = *op.combine_op;
  LoopTypes clt;
  clt.in[0] = clt.in[1] = clt.out = lt.out;
  InnerLoop loop = combine.cpu_loop(clt);
  if (!loop) throw Error(Status::TypeError(op.name, std::string("no kernel for dtype ") + dtype_name(lt.out)));
  const int64_t nd = x.ndim();
  DimVector red(static_cast<size_t>(nd), attrs.all_axes ? 1 : 0);
  if (!attrs.all_axes) {
    for (int64_t a : attrs.axes) {
      const size_t ax = static_cast<size_t>(normalize_axis(a, nd, op.name.c_str()));
      if (red[ax]) throw Error(Status::Invalid(op.name, "duplicate value in 'axis'"));
      red[ax] = 1;
    }
  }
  Shape kept, keep_shape;
  int64_t reduced_count = 1;
  for (size_t i = 0; i < red.size(); ++i) {
    if (red[i]) {
      reduced_count *= x.shape()[i];
      keep_shape.push_back(1);
    } else {
      kept.push_back(x.shape()[i]);
      keep_shape.push_back(x.shape()[i]);
    }
  }
  if (out) check_reduction_out(op, attrs.keepdims ? keep_shape : kept, *out, attrs.keepdims);
  if (reduced_count == 0 && (op.identity == Identity::kLowest || op.identity == Identity::kHighest))
    throw Error(Status::Invalid(op.name, "zero-size array to reduction operation " + combine.name +
                                             " which has no identity"));
  // max/min of a whole contiguous float32/float64 array: NumPy's sign of a zero
  // result (fix_zero_sign) needs the input's bytes; an input already computed
  // gains nothing from a lazy node, so such a reduction runs now.
  const bool zero_sign = (combine.name == "maximum" || combine.name == "minimum") && kept.empty() &&
                         x.numel() >= 2 && (lt.out == DType::kFloat32 || lt.out == DType::kFloat64) &&
                         x.dtype() == lt.out && x.is_contiguous();
  if (!out && graph::lazy_enabled() && !reuse_buffer_active() && x.numel() > 0 &&
      !(zero_sign && !x.is_pending()) &&
      !x.storage()->volatile_bytes() && graph::reduction_fusable(x.shape(), red)) {
    Tensor xin = x.dtype() == lt.in[0] ? x : cast(x, lt.in[0]);
    return graph::record_reduce(op.name.c_str(), loop, lt.out, xin, red, attrs.keepdims,
                                identity_value(op.identity, lt.out));
  }
  Tensor acc = allocate_output(kept, lt.out, &x, 1);  // asc.reuse_buffer's hook
  fill_identity(acc, op.identity);
  if (x.numel() > 0) {
    Tensor xin = x.dtype() == lt.in[0] ? x : cast(x, lt.in[0]);
    // The accumulator viewed with x's shape: stride 0 along reduced axes.
    Strides st(red.size(), 0);
    for (size_t i = 0, k = 0; i < red.size(); ++i)
      if (!red[i]) st[i] = acc.strides()[k++];
    Tensor accv = Tensor::view_of(acc.storage(), acc.dtype(), x.shape(), st, acc.offset());
    reduce_into(loop, acc, accv, xin, red, op.identity, op.name);
    if (zero_sign) fix_zero_sign(xin, acc, combine.name == "maximum");
  }
  Tensor result = attrs.keepdims ? acc.reshape(keep_shape) : acc;
  if (out) {
    out->copy_from(result.dtype() == out->dtype() ? result : cast(result, out->dtype()));
    return *out;
  }
  return result;
}

}  // namespace

namespace {
/// Lazy argmax/argmin (all axes or one): a fused arg-reduction node. False
/// when the call must run eagerly (its errors are raised there).
bool record_arg(const OpDef& op, const Tensor& x, const Attrs& attrs, Tensor* r) {
  if (!graph::lazy_enabled() || reuse_buffer_active() || x.ndim() == 0 || x.numel() == 0 ||
      x.storage()->volatile_bytes())
    return false;
  DimVector mask(static_cast<size_t>(x.ndim()), attrs.all_axes ? 1 : 0);
  if (!attrs.all_axes) {
    if (attrs.axes.size() != 1) return false;
    mask[static_cast<size_t>(normalize_axis(attrs.axes[0], x.ndim(), op.name.c_str()))] = 1;
  }
  if (!graph::arg_reduction_fusable(x.shape(), x.dtype(), mask)) return false;
  *r = graph::record_arg_reduce(op.name.c_str(), op.name == "argmax", x, mask, attrs.keepdims);
  return true;
}

/// For the idempotent reductions (max, min, all, any: combining a value with
/// itself changes nothing) x with each reduced broadcast (stride-0) axis cut
/// to length 1: the same result, from one element along it, so that a huge
/// broadcast view (broadcast_to(x, (2**62,)).any()) is no 2**62-step loop.
Tensor cut_idempotent(const OpDef& op, const Tensor& x, const Attrs& attrs) {
  if (x.numel() == 0 ||
      !(op.combine == "maximum" || op.combine == "minimum" || op.combine == "logical_or" || op.combine == "logical_and"))
    return x;
  const int64_t nd = x.ndim();
  std::vector<bool> red(static_cast<size_t>(nd), attrs.all_axes);
  if (!attrs.all_axes)
    for (int64_t a : attrs.axes) {
      if (a < -nd || a >= nd) return x;  // run_reduction reports it
      red[static_cast<size_t>(a < 0 ? a + nd : a)] = true;
    }
  Tensor y = x;
  for (int64_t i = 0; i < nd; ++i) {
    const size_t k = static_cast<size_t>(i);
    if (red[k] && x.strides()[k] == 0 && x.shape()[k] > 1) y = y.slice(i, 0, 1, 1);
  }
  return y;
}

Tensor call_unprofiled(const OpDef& op, const Tensor* inputs, int n, const Attrs& attrs, const Tensor* out) {
  if (n != op.arity)
    throw Error(Status::Invalid(op.name, "expected " + std::to_string(op.arity) + " operands, got " +
                                             std::to_string(n)));
  for (int i = 0; i < n; ++i)
    if (!inputs[i].defined()) throw Error(Status::Invalid(op.name, "undefined tensor operand"));
  if (out) out->check_writeable(op.name.c_str(), "output array is read-only");
  static const OpDef* const kArgmax = find_op("argmax");
  static const OpDef* const kArgmin = find_op("argmin");
  if (!out && (&op == kArgmax || &op == kArgmin)) {
    Tensor r;
    if (record_arg(op, inputs[0], attrs, &r)) return r;
  }
  if (op.run) {
    if (!op.complex_ok)
      for (int i = 0; i < n; ++i)
        if (is_complex(inputs[i].dtype()))
          throw Error(Status::TypeError(op.name, std::string("not supported for complex input (operand ") +
                                                     std::to_string(i) + " has dtype " +
                                                     dtype_name(inputs[i].dtype()) + ")"));
    Tensor r = op.run(op, std::vector<Tensor>(inputs, inputs + n), attrs);
    if (!out) return r;
    if (op.fusion == FusionClass::kReduction) check_reduction_out(op, r.shape(), *out, attrs.keepdims);
    out->copy_from(r.dtype() == out->dtype() ? r : cast(r, out->dtype()));
    return *out;
  }
  if (op.fusion == FusionClass::kReduction) return run_reduction(op, cut_idempotent(op, inputs[0], attrs), attrs, out);
  return run_elementwise(op, inputs, attrs, out);
}

// "(2, 3):float32, ():int64" for the profiler's op-call events.
std::string describe_operands(const Tensor* inputs, int n) {
  std::string d;
  for (int i = 0; i < n; ++i) {
    if (i) d += ", ";
    d += "(";
    const auto& sh = inputs[i].shape();
    for (size_t k = 0; k < sh.size(); ++k) d += (k ? ", " : "") + std::to_string(sh[k]);
    d += sh.size() == 1 ? ",)" : ")";
    d += std::string(":") + dtype_name(inputs[i].dtype());
  }
  return d;
}
}  // namespace

Tensor call(const OpDef& op, const Tensor* inputs, int n, const Attrs& attrs, const Tensor* out) {
  if (!runtime::profiler::enabled()) return call_unprofiled(op, inputs, n, attrs, out);
  runtime::profiler::Span span(runtime::profiler::EventKind::kOpCall, op.name);
  if (span.active()) span.event().detail = describe_operands(inputs, n);
  return call_unprofiled(op, inputs, n, attrs, out);
}

Tensor call(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor* out) {
  return call(op, inputs.data(), static_cast<int>(inputs.size()), attrs, out);
}

Tensor call(const std::string& name, const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor* out) {
  return call(get_op(name), inputs, attrs, out);
}

Tensor cast(const Tensor& t, DType dtype, bool copy) {
  if (t.dtype() == dtype) return copy ? t.clone() : t;
  static const OpDef& astype = get_op("astype");
  Attrs a;
  a.has_dtype = true;
  a.dtype = dtype;
  return call(astype, &t, 1, a);
}

// ------------------------------------------------------------------ scalars

Tensor scalar_constant(const Scalar& s, DType dtype) {
  Tensor t = Tensor::constant(dtype);
  const double re = s.kind == ScalarKind::kFloat || s.kind == ScalarKind::kComplex ? s.f : static_cast<double>(s.i);
  if (is_complex(dtype)) {
    const double im = s.kind == ScalarKind::kComplex ? s.im : 0.0;
    if (dtype == DType::kComplex64) {
      const complex64 v(static_cast<float>(re), static_cast<float>(im));
      std::memcpy(t.data(), &v, sizeof v);
    } else {
      const complex128 v(re, im);
      std::memcpy(t.data(), &v, sizeof v);
    }
    return t;
  }
  if (s.kind == ScalarKind::kComplex) {  // astype: the real part (bool: either part nonzero)
    Scalar r = dtype == DType::kBool ? Scalar::from_bool(s.f != 0 || s.im != 0) : Scalar::from_float(s.f);
    return scalar_constant(r, dtype);
  }
  visit_dtype(dtype, [&](auto z) {
    using T = decltype(z);
    T v;
    switch (s.kind) {
      case ScalarKind::kBool: v = detail::convert<T>(s.i != 0); break;
      case ScalarKind::kInt: v = detail::convert<T>(s.i); break;
      default: v = detail::convert<T>(s.f); break;
    }
    std::memcpy(t.data(), &v, sizeof(T));
  });
  return t;
}

Tensor scalar_tensor(const Scalar& s, DType dtype, const std::string& op) {
  if (s.kind == ScalarKind::kInt && is_integer(dtype)) {
    const bool is_signed = dtype_traits(dtype).kind == DTypeKind::kSignedInt;
    const int bits = static_cast<int>(dtype_size(dtype)) * 8;
    bool ok;
    if (is_signed) {
      ok = bits == 64 || (s.i >= -(int64_t(1) << (bits - 1)) && s.i < (int64_t(1) << (bits - 1)));
    } else {
      ok = s.i >= 0 && (bits == 64 || s.i < (int64_t(1) << bits));
    }
    if (!ok)
      throw Error(Status::Make(ErrorCode::kOverflow, op,  // NumPy: OverflowError
                               "Python integer " + std::to_string(s.i) + " out of bounds for " + dtype_name(dtype)));
  }
  return scalar_constant(s, dtype);
}

void fill(const Tensor& t, const Scalar& s) {
  if (t.numel() == 0) return;
  // NumPy 2 (NEP 50): an int outside the dtype's range is OverflowError, also
  // -1 into unsigned (np.full(2, -1, np.uint8)); no wrap-around.
  t.copy_from(scalar_tensor(weak_scalar_value(s, t.dtype()), t.dtype(), "full"));
}

Tensor full(const Shape& shape, const Scalar& s, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  fill(t, s);
  return t;
}

}  // namespace asc::ops
