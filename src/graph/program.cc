// Tile programs: compile a fused group into a register machine over tiles and
// run it on all cores.
//
// Registers are tiles: inputs (leaves or buffers of earlier groups, read in
// place when a tile of them is one contiguous or constant run, else gathered
// into the core's Unified Buffer -- strides and broadcasts resolved during
// the copy-in), temporaries in UB slots (allocated by liveness), outputs
// written straight to their pool buffers, and reduction accumulators. Each
// instruction is one call of an op's inner loop over the tile; in a
// row-fused group (whole rows per tile) instructions that read per-row
// values (a row's max, sum...) run row by row with those values as stride-0
// operands. Programs are cached by structure: ops (their loops), dtypes,
// register kinds and how values flow, never by array identity.
#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "asc/runtime/device.h"
#include "asc/runtime/profiler.h"
#include "graph/internal.h"
#include "kernel/simd/tables.h"

namespace asc::graph::detail {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kMap: return "map";
    case Mode::kReduceAll: return "reduce_all";
    case Mode::kReduceRows: return "reduce_rows";
    case Mode::kReduceCols: return "reduce_cols";
    case Mode::kRowFused: return "row_fused";
    case Mode::kReduceGeneral: return "reduce_general";
  }
  return "?";
}

int64_t ub_budget() {
  static const int64_t b = [] {
    const int64_t ub = static_cast<int64_t>(runtime::current_device().properties().ub_size);
    return std::max<int64_t>(ub - 1024, 4096);  // a little room for accumulators
  }();
  return b;
}

namespace {

constexpr int64_t kMaxTile = 4096;             // elements per tile (L1-sized for float32)
constexpr int64_t kParallelMin = 1 << 16;      // below: run on the calling thread
constexpr int64_t kMinPerBlock = 1 << 14;      // elements per block at least
constexpr int kFoldEvery = 16;                 // tiles per partial before it folds into the total
constexpr int kMaxDims = 64;
constexpr int64_t kStreamBytes = int64_t(8) << 20;  // outputs above this bypass the caches
constexpr int64_t kSubTile = 384;              // map mode: elements per sub-tile
constexpr int64_t kMinLine = 512;              // map mode: tiles within one line from this line length
constexpr int64_t kChunk = int64_t(1) << 18;   // elements per block at most (chunked launches)

enum class RegKind : uint8_t { kIn, kTemp, kOut, kAcc };

struct Reg {
  RegKind kind = RegKind::kTemp;
  DType dtype = DType::kFloat32;
  int64_t item = 4;
  bool row = false;   // one value per row (row-fused groups)
  int64_t slot = -1;  // UB offset in units (bytes per element, or per row for row registers)
  int first = 1 << 30, last = -1;  // instruction range using it
};

// Arg reductions (argmax/argmin): the accumulator is a 16-byte pair, the
// value's raw bytes then the int64 index (-1: nothing seen yet). Values
// reach an accumulator in increasing index order in every mode (tiles in
// order, partials folded earlier-first), so "strictly better replaces" keeps
// NumPy's first occurrence, and a NaN, once taken, is never replaced.
using ArgScan = void (*)(char* acc, int64_t acc_stride, const char* x, int64_t xs, int64_t n, int64_t idx0,
                         int64_t idx_step);
using ArgFold = void (*)(char* acc, const char* other);
constexpr int64_t kArgItem = 16;

template <typename T>
using ArgCalc = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

template <typename C>
inline bool arg_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}

/// Offers (v, idx) to the pair at `acc`; idx is later than the pair's index.
template <typename T, bool kMax>
inline void arg_offer(char* acc, const char* vp, int64_t idx) {
  int64_t ai;
  std::memcpy(&ai, acc + 8, 8);
  if (ai >= 0) {
    T cur, v;
    std::memcpy(&cur, acc, sizeof(T));
    std::memcpy(&v, vp, sizeof(T));
    const ArgCalc<T> c = static_cast<ArgCalc<T>>(cur), x = static_cast<ArgCalc<T>>(v);
    if (arg_nan(c)) return;
    if (!arg_nan(x) && !(kMax ? x > c : x < c)) return;
  }
  std::memcpy(acc, vp, sizeof(T));
  std::memcpy(acc + 8, &idx, 8);
}

template <typename T, bool kMax>
void arg_scan(char* acc, int64_t as, const char* x, int64_t xs, int64_t n, int64_t idx0, int64_t step) {
  if (as != 0) {  // one accumulator per element (column reductions)
    for (int64_t i = 0; i < n; ++i) arg_offer<T, kMax>(acc + i * as, x + i * xs, idx0 + i * step);
    return;
  }
  using C = ArgCalc<T>;
  int64_t ai;
  std::memcpy(&ai, acc + 8, 8);
  T bt;
  std::memcpy(&bt, acc, sizeof(T));
  C best = static_cast<C>(bt);
  if (ai >= 0 && arg_nan(best)) return;
  int64_t at = -1;
  for (int64_t i = 0; i < n; ++i, x += xs) {
    T vt;
    std::memcpy(&vt, x, sizeof(T));
    const C v = static_cast<C>(vt);
    if (arg_nan(v)) {  // the first NaN wins
      at = i;
      bt = vt;
      break;
    }
    if ((ai < 0 && at < 0) || (kMax ? v > best : v < best)) {
      best = v;
      bt = vt;
      at = i;
    }
  }
  if (at < 0) return;
  const int64_t idx = idx0 + at * step;
  std::memcpy(acc, &bt, sizeof(T));
  std::memcpy(acc + 8, &idx, 8);
}

template <typename T, bool kMax>
void arg_fold(char* acc, const char* other) {
  int64_t oi;
  std::memcpy(&oi, other + 8, 8);
  if (oi >= 0) arg_offer<T, kMax>(acc, other, oi);
}

template <typename T>
void arg_loops(bool is_max, ArgScan* scan, ArgFold* fold) {
  *scan = is_max ? &arg_scan<T, true> : &arg_scan<T, false>;
  *fold = is_max ? &arg_fold<T, true> : &arg_fold<T, false>;
}

void choose_arg(DType d, bool is_max, ArgScan* scan, ArgFold* fold) {
  switch (d) {
    case DType::kBool: return arg_loops<bool>(is_max, scan, fold);
    case DType::kInt8: return arg_loops<int8_t>(is_max, scan, fold);
    case DType::kInt16: return arg_loops<int16_t>(is_max, scan, fold);
    case DType::kInt32: return arg_loops<int32_t>(is_max, scan, fold);
    case DType::kInt64: return arg_loops<int64_t>(is_max, scan, fold);
    case DType::kUInt8: return arg_loops<uint8_t>(is_max, scan, fold);
    case DType::kUInt16: return arg_loops<uint16_t>(is_max, scan, fold);
    case DType::kUInt32: return arg_loops<uint32_t>(is_max, scan, fold);
    case DType::kUInt64: return arg_loops<uint64_t>(is_max, scan, fold);
    case DType::kFloat16: return arg_loops<float16>(is_max, scan, fold);
    case DType::kBFloat16: return arg_loops<bfloat16>(is_max, scan, fold);
    case DType::kFloat32: return arg_loops<float>(is_max, scan, fold);
    case DType::kFloat64: return arg_loops<double>(is_max, scan, fold);
    default:
      throw Error(Status::Make(ErrorCode::kInvalidDtype, is_max ? "argmax" : "argmin",
                               std::string("no fused kernel for dtype ") + dtype_name(d)));
  }
}

struct Inst {
  bool reduce = false;
  InnerLoop loop = nullptr;
  ArgScan arg_scan = nullptr;  // arg reductions (loop is null)
  ArgFold arg_fold = nullptr;
  int dst = -1;
  int nsrc = 0;
  int src[3] = {-1, -1, -1};
  bool row_src = false;  // a full instruction reading a row register
  int identity = -1;     // index into Program::identities
};

// A maximal run of float32 elementwise instructions evaluated at register level
// (kernel/simd/chain-inl.h) in the sub-tiled map mode: insts [first, end).
struct Chain {
  int first = 0, end = 0;
  kernel::simd::ChainCode code;
  kernel::simd::ChainFn fn = nullptr;
  std::vector<int> in_regs;   // program register of chain input k
  std::vector<int> out_regs;  // program register of chain output k (live after the chain, or a result)
};

struct Program {
  Mode mode = Mode::kMap;
  std::vector<Reg> regs;
  std::vector<Inst> insts;
  std::vector<Chain> chains;
  std::vector<int> chain_at;  // per instruction: the chain starting there, or -1
  std::vector<std::array<uint8_t, 16>> identities;
  int64_t full_units = 0;  // UB bytes per tile element
  int64_t row_units = 0;   // UB bytes per tile row
  std::string ops;         // "add+multiply" for traces and dumps
};

/// The part of a group that a program depends on, in a fixed order: node
/// registers, then the distinct memory inputs.
struct Analysis {
  std::string key;
  std::vector<const Input*> inputs;       // distinct memory inputs, by register order after the nodes
  std::vector<const Node*> input_nodes;   // producer of each memory input (null: leaf)
  std::vector<int> node_reg;              // per group node
  std::vector<std::array<int, 3>> node_src;
};

void put(std::string& k, const void* p, size_t n) { k.append(static_cast<const char*>(p), n); }
template <typename T>
void put_v(std::string& k, T v) { put(k, &v, sizeof v); }

const uint8_t* input_base(const Input& in, const Node* p) {
  if (p) return p->buffer->raw_data() + in.offset;
  return in.leaf.storage()->raw_data() + in.offset;
}

bool same_view(const Input& a, const Node* pa, const Input& b, const Node* pb) {
  if (pa != pb) return false;
  if (!pa && a.leaf.storage() != b.leaf.storage()) return false;
  return a.offset == b.offset && a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides;
}

Node* resolve_node(Node* n) {
  while (n && n->alias) n = n->alias;
  return n;
}

Analysis analyze(const Group& g) {
  Analysis a;
  std::string& k = a.key;
  put_v(k, g.mode);
  const size_t nn = g.nodes.size();
  a.node_reg.resize(nn);
  a.node_src.resize(nn);
  std::unordered_map<const Node*, int> index;
  for (size_t i = 0; i < nn; ++i) {
    index[g.nodes[i]] = static_cast<int>(i);
    a.node_reg[i] = static_cast<int>(i);
  }
  for (size_t i = 0; i < nn; ++i) {
    const Node& n = *g.nodes[i];
    put_v(k, n.kind);
    put_v(k, n.loop);
    put_v(k, n.dtype);
    put_v(k, static_cast<uint8_t>(n.row_value));
    put_v(k, static_cast<uint8_t>(n.needs_buffer && !n.bcast));
    put_v(k, static_cast<uint8_t>(n.bcast));
    if (n.kind == Kind::kReduce) put(k, n.identity, sizeof n.identity);
    if (n.arg) {
      put_v(k, n.arg);
      put_v(k, n.in[0].dtype);
    }
    put_v(k, static_cast<int8_t>(n.nin));
    for (int j = 0; j < n.nin; ++j) {
      const Input& in = n.in[j];
      Node* p = resolve_node(in.node);
      int reg;
      if (p && in.fused) {
        reg = index.at(p);
      } else {
        reg = -1;
        for (size_t m = 0; m < a.inputs.size(); ++m)
          if (same_view(*a.inputs[m], a.input_nodes[m], in, p)) {
            reg = static_cast<int>(nn + m);
            break;
          }
        if (reg < 0) {
          reg = static_cast<int>(nn + a.inputs.size());
          a.inputs.push_back(&in);
          a.input_nodes.push_back(p);
          put_v(k, in.dtype);
        }
      }
      a.node_src[i][static_cast<size_t>(j)] = reg;
      put_v(k, reg);
    }
  }
  return a;
}

/// The chain instruction computing node `n` (float32 operands and result
/// only), or false. Nodes are recognised by their op's name: the float32 loops
/// of these ops are the SIMD kernels (or the scalar IEEE operation) that the
/// chain evaluates, one Highway operation or the math table's functor each.
bool chain_inst(const Node& n, const Program& P, const Inst& in, kernel::simd::ChainInst* out) {
  namespace ks = kernel::simd;
  if (in.reduce || n.arg || n.dtype != DType::kFloat32 || P.regs[static_cast<size_t>(in.dst)].row) return false;
  for (int j = 0; j < in.nsrc; ++j) {
    const Reg& r = P.regs[static_cast<size_t>(in.src[j])];
    if (r.dtype != DType::kFloat32 || r.row) return false;
  }
  const std::string_view name(n.name);
  struct Named {
    const char* name;
    ks::ChainOp op;
    int nin;
  };
  static constexpr Named kOps[] = {
      {"add", ks::ChainOp::kAdd, 2},       {"subtract", ks::ChainOp::kSub, 2}, {"multiply", ks::ChainOp::kMul, 2},
      {"true_divide", ks::ChainOp::kDiv, 2}, {"negative", ks::ChainOp::kNeg, 1}, {"absolute", ks::ChainOp::kAbs, 1},
      {"square", ks::ChainOp::kSquare, 1}};
  for (const Named& k : kOps)
    if (name == k.name) {
      if (in.nsrc != k.nin) return false;
      out->op = k.op;
      return true;
    }
  if (in.nsrc != 1) return false;
  for (size_t m = 0; m < static_cast<size_t>(ks::MathOp::kCount); ++m) {
    const auto op = static_cast<ks::MathOp>(m);
    if (name == ks::op_name(op)) {
      if (!ks::chain_math_supported(op)) return false;
      out->op = ks::ChainOp::kMath;
      out->math = op;
      return true;
    }
  }
  return false;
}

/// Groups maximal runs (2 or more) of chainable instructions of a map program
/// into chains. Registers keep their UB slots: instructions outside a chain, and
/// the per-instruction path (tiles that are not sub-tiled), still use them.
void form_chains(const Group& g, Program& P) {
  namespace ks = kernel::simd;
  const int ni = static_cast<int>(P.insts.size());
  P.chain_at.assign(static_cast<size_t>(ni), -1);
  if (g.mode != Mode::kMap || !ks::chain_fn(DType::kFloat32)) return;
  std::vector<ks::ChainInst> ci(static_cast<size_t>(ni));
  std::vector<uint8_t> ok(static_cast<size_t>(ni));
  for (int i = 0; i < ni; ++i)
    ok[static_cast<size_t>(i)] = chain_inst(*g.nodes[static_cast<size_t>(P.insts[static_cast<size_t>(i)].dst)], P,
                                            P.insts[static_cast<size_t>(i)], &ci[static_cast<size_t>(i)]);
  int i = 0;
  while (i < ni) {
    if (!ok[static_cast<size_t>(i)]) {
      ++i;
      continue;
    }
    int end = i;
    while (end < ni && ok[static_cast<size_t>(end)] && end - i < ks::kChainMaxInsts) ++end;
    // Shrink until the inputs and live-out values fit the chain's limits.
    Chain c;
    for (; end - i >= 2; --end) {
      c = Chain{};
      c.first = i;
      c.end = end;
      std::unordered_map<int, int> creg;  // program register -> chain register
      bool fits = true;
      for (int k = i; k < end && fits; ++k) {
        const Inst& in = P.insts[static_cast<size_t>(k)];
        for (int j = 0; j < in.nsrc; ++j) {
          const int r = in.src[j];
          // Instruction q's destination is register q: [i, k) are the chain's own values.
          if ((r >= i && r < k) || creg.count(r)) continue;
          if (static_cast<int>(c.in_regs.size()) == ks::kChainMaxIn) {
            fits = false;
            break;
          }
          creg[r] = static_cast<int>(c.in_regs.size());
          c.in_regs.push_back(r);
        }
      }
      if (!fits) continue;
      const int nin = static_cast<int>(c.in_regs.size());
      for (int k = i; k < end; ++k) {
        const Inst& in = P.insts[static_cast<size_t>(k)];
        ks::ChainInst t = ci[static_cast<size_t>(k)];
        t.dst = static_cast<uint8_t>(nin + (k - i));
        t.a = static_cast<uint8_t>(creg.at(in.src[0]));
        t.b = static_cast<uint8_t>(in.nsrc > 1 ? creg.at(in.src[1]) : t.a);
        creg[in.dst] = t.dst;
        c.code.inst[k - i] = t;
        const Reg& d = P.regs[static_cast<size_t>(in.dst)];
        if (d.kind == RegKind::kOut || d.last >= end) {
          if (static_cast<int>(c.out_regs.size()) == ks::kChainMaxOut) {
            fits = false;
            break;
          }
          c.code.out_reg[c.out_regs.size()] = t.dst;
          c.out_regs.push_back(in.dst);
        }
      }
      if (fits) break;
    }
    if (end - i < 2) {
      ++i;
      continue;
    }
    c.code.nin = static_cast<int>(c.in_regs.size());
    c.code.nout = static_cast<int>(c.out_regs.size());
    c.code.ninst = end - i;
    c.fn = ks::chain_fn(DType::kFloat32);
    P.chain_at[static_cast<size_t>(i)] = static_cast<int>(P.chains.size());
    P.chains.push_back(std::move(c));
    i = end;
  }
}

std::shared_ptr<Program> compile(const Group& g, const Analysis& a) {
  auto prog = std::make_shared<Program>();
  Program& P = *prog;
  P.mode = g.mode;
  const size_t nn = g.nodes.size();
  P.regs.resize(nn + a.inputs.size());
  for (size_t i = 0; i < nn; ++i) {
    const Node& n = *g.nodes[i];
    Reg& r = P.regs[i];
    r.dtype = n.dtype;
    r.item = n.arg ? kArgItem : static_cast<int64_t>(dtype_size(n.dtype));
    r.row = n.row_value;
    if (n.kind == Kind::kReduce && g.mode != Mode::kRowFused) r.kind = RegKind::kAcc;
    else r.kind = n.needs_buffer && !n.bcast ? RegKind::kOut : RegKind::kTemp;
    if (i) P.ops += "+";
    P.ops += n.name;
  }
  for (size_t m = 0; m < a.inputs.size(); ++m) {
    Reg& r = P.regs[nn + m];
    r.kind = RegKind::kIn;
    r.dtype = a.inputs[m]->dtype;
    r.item = static_cast<int64_t>(dtype_size(r.dtype));
  }
  for (size_t i = 0; i < nn; ++i) {
    const Node& n = *g.nodes[i];
    Inst in;
    in.reduce = n.kind == Kind::kReduce;
    in.loop = n.loop;
    in.dst = static_cast<int>(i);
    in.nsrc = n.nin;
    for (int j = 0; j < n.nin; ++j) {
      in.src[j] = a.node_src[i][static_cast<size_t>(j)];
      if (!n.row_value && P.regs[static_cast<size_t>(in.src[j])].row) in.row_src = true;
    }
    if (in.reduce) {
      std::array<uint8_t, 16> id{};
      std::memcpy(id.data(), n.identity, sizeof n.identity);
      if (n.arg) {
        if (n.row_value) throw Error(Status::Make(ErrorCode::kFailure, n.name, "arg reductions are never row values"));
        choose_arg(n.in[0].dtype, n.arg == 1, &in.arg_scan, &in.arg_fold);
        const int64_t none = -1;
        id.fill(0);
        std::memcpy(id.data() + 8, &none, 8);
      }
      in.identity = static_cast<int>(P.identities.size());
      P.identities.push_back(id);
    }
    const int ii = static_cast<int>(P.insts.size());
    for (int j = 0; j < in.nsrc; ++j) {
      Reg& r = P.regs[static_cast<size_t>(in.src[j])];
      r.first = std::min(r.first, ii);
      r.last = std::max(r.last, ii);
    }
    Reg& d = P.regs[static_cast<size_t>(in.dst)];
    d.first = std::min(d.first, ii);
    d.last = std::max(d.last, ii);
    P.insts.push_back(in);
  }
  // UB slots by liveness (first fit over [first, last] intervals), separately
  // for full and row registers. Inputs get a slot for the case they must be
  // gathered; outputs and accumulators live outside the UB.
  struct Placed {
    int64_t off, size;
    int first, last;
  };
  std::vector<Placed> placed[2];
  int64_t* total[2] = {&P.full_units, &P.row_units};
  std::vector<size_t> order;
  // Full outputs get a slot too: long results are staged there and written
  // with non-temporal stores (no read-for-ownership of the destination).
  for (size_t r = 0; r < P.regs.size(); ++r)
    if (P.regs[r].kind == RegKind::kTemp || P.regs[r].kind == RegKind::kIn ||
        (P.regs[r].kind == RegKind::kOut && !P.regs[r].row))
      order.push_back(r);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return P.regs[x].first < P.regs[y].first; });
  for (size_t r : order) {
    Reg& reg = P.regs[r];
    if (reg.last < 0) continue;
    const int area = reg.row ? 1 : 0;
    // Align every slot to 8 units so that slot addresses stay 64-byte aligned.
    const int64_t size = (reg.item + 7) / 8 * 8;
    int64_t off = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (const Placed& p : placed[area]) {
        const bool overlap_time = !(p.last < reg.first || reg.last < p.first);
        const bool overlap_space = !(p.off + p.size <= off || off + size <= p.off);
        if (overlap_time && overlap_space) {
          off = p.off + p.size;
          moved = true;
        }
      }
    }
    reg.slot = off;
    placed[area].push_back({off, size, reg.first, reg.last});
    *total[area] = std::max(*total[area], off + size);
  }
  form_chains(g, P);
  return prog;
}

// fork(): the forking thread holds the cache lock across fork() (a leaf lock:
// nothing else is taken under it, so this cannot deadlock), so the child's
// cache is consistent; the child re-creates the lock the forking thread held.
std::mutex& cache_mu();
void cache_fork_prepare() noexcept { cache_mu().lock(); }
void cache_fork_parent() noexcept { cache_mu().unlock(); }
void cache_fork_child() noexcept { new (&cache_mu()) std::mutex(); }

std::mutex& cache_mu() {
  static auto* m = [] {
    auto* p = new std::mutex();
    ::pthread_atfork(&cache_fork_prepare, &cache_fork_parent, &cache_fork_child);
    return p;
  }();
  return *m;
}
std::unordered_map<std::string, std::shared_ptr<Program>>& cache() {
  static auto* c = new std::unordered_map<std::string, std::shared_ptr<Program>>();
  return *c;
}

// ------------------------------------------------------------------ binding

/// An input seen over the group's domain: merged dims (outermost first).
struct InView {
  const uint8_t* base = nullptr;
  int64_t item = 4;
  int nd = 0;
  int64_t shape[kMaxDims];
  int64_t stride[kMaxDims];
  bool contig = false;
  bool scalar = false;
};

void make_view(InView& v, const uint8_t* base, int64_t item, const Shape& shape, const Strides& strides,
               const Shape& domain) {
  v.base = base;
  v.item = item;
  v.nd = 0;
  const size_t nd = domain.size();
  const size_t pad = nd - shape.size();
  for (size_t d = 0; d < nd; ++d) {
    if (domain[d] == 1) continue;
    const int64_t s = d < pad ? 0 : (shape[d - pad] == 1 ? 0 : strides[d - pad]);
    if (v.nd > 0 && v.stride[v.nd - 1] == s * domain[d]) {
      v.shape[v.nd - 1] *= domain[d];
      v.stride[v.nd - 1] = s;
    } else {
      if (v.nd >= kMaxDims) throw Error(Status::Make(ErrorCode::kInvalidShape, "graph", "too many dimensions"));
      v.shape[v.nd] = domain[d];
      v.stride[v.nd] = s;
      ++v.nd;
    }
  }
  v.scalar = v.nd == 0 || (v.nd == 1 && v.stride[0] == 0);
  v.contig = v.nd == 1 && v.stride[0] == item;
}

template <typename T>
void copy_run(uint8_t* dst, const uint8_t* src, int64_t stride, int64_t n) {
  T* d = reinterpret_cast<T*>(dst);
  if (stride == 0) {
    T v;
    std::memcpy(&v, src, sizeof(T));
    std::fill(d, d + n, v);
    return;
  }
  for (int64_t i = 0; i < n; ++i, src += stride) std::memcpy(d + i, src, sizeof(T));
}

struct Bytes16 {  // one complex128 element
  uint64_t lo, hi;
};

void copy_run_any(uint8_t* dst, const uint8_t* src, int64_t stride, int64_t n, int64_t item) {
  if (stride == item) {
    std::memcpy(dst, src, static_cast<size_t>(n * item));
    return;
  }
  switch (item) {
    case 1: copy_run<uint8_t>(dst, src, stride, n); break;
    case 2: copy_run<uint16_t>(dst, src, stride, n); break;
    case 4: copy_run<uint32_t>(dst, src, stride, n); break;
    case 16: copy_run<Bytes16>(dst, src, stride, n); break;  // complex128
    default: copy_run<uint64_t>(dst, src, stride, n); break;
  }
}

/// Pointer and stride of elements [lo, lo + n) of `v`: in place when they are
/// one contiguous or constant run, else gathered into `slot`.
void resolve_tile(const InView& v, int64_t lo, int64_t n, uint8_t* slot, char** p, int64_t* s) {
  if (v.scalar) {
    *p = const_cast<char*>(reinterpret_cast<const char*>(v.base));
    *s = 0;
    return;
  }
  if (v.contig) {
    *p = const_cast<char*>(reinterpret_cast<const char*>(v.base + lo * v.item));
    *s = v.item;
    return;
  }
  int64_t idx[kMaxDims];
  int64_t rem = lo;
  for (int d = v.nd - 1; d >= 0; --d) {
    idx[d] = rem % v.shape[d];
    rem /= v.shape[d];
  }
  const int last = v.nd - 1;
  const uint8_t* q = v.base;
  for (int d = 0; d <= last; ++d) q += idx[d] * v.stride[d];
  const int64_t si = v.stride[last];
  if (idx[last] + n <= v.shape[last] && (si == 0 || si == v.item)) {
    *p = const_cast<char*>(reinterpret_cast<const char*>(q));
    *s = si;
    return;
  }
  uint8_t* dst = slot;
  while (n > 0) {
    const int64_t run = std::min(v.shape[last] - idx[last], n);
    copy_run_any(dst, q, si, run, v.item);
    dst += run * v.item;
    n -= run;
    if (n == 0) break;
    idx[last] += run;
    for (int d = last; d > 0 && idx[d] >= v.shape[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
    q = v.base;
    for (int d = 0; d <= last; ++d) q += idx[d] * v.stride[d];
  }
  *p = reinterpret_cast<char*>(slot);
  *s = v.item;
}

// ------------------------------------------------------------------ execution

struct Exec {
  const Program* P = nullptr;
  std::vector<InView> views;          // per register (kIn only)
  std::vector<uint8_t*> out_base;     // per register (kOut / kAcc)
  int64_t T = 0;                      // tile elements (row mode: rows * R)
  int64_t rows = 0;                   // row mode: rows per tile
  bool stream_out = false;            // stage full outputs in UB, store non-temporally
  int64_t R = 1;
  int64_t sub = 0;                    // map mode: instructions run over sub-tiles of this many elements
  std::vector<int64_t> gather_at;     // sub-tiled map mode: UB offset of each input's tile-sized slot
  bool chains = true;                 // sub-tiled map mode: evaluate the program's chains at register level
};

/// Per-block state: register pointers for the current tile.
struct TileState {
  std::vector<char*> p;
  std::vector<int64_t> s;
  std::vector<uint8_t> ready;
  // Sub-tiled map mode: each instruction's call, pointers advanced by `step`
  // after every sub-tile; `copies` the staged outputs and their destinations.
  static constexpr int kMaxArgs = kernel::simd::kChainMaxIn + kernel::simd::kChainMaxOut;
  struct Call {
    InnerLoop loop;
    const Chain* chain;  // a chain call: p[0, nin) its inputs, p[nin, nin + nout) its outputs
    char* p[kMaxArgs];
    int64_t s[4];
    int64_t step[kMaxArgs];
    uint8_t scalar[kernel::simd::kChainMaxIn];  // chain input k is one value (a splat slot)
    int nargs;
  };
  std::vector<Call> calls;
  struct Copy {
    uint8_t* dst;
    const char* src;
    int64_t item;
  };
  std::vector<Copy> copies;
  std::vector<const char*> splat;  // per input: the value its slot holds copies of (stride-0 operands)
  explicit TileState(size_t n) : p(n), s(n), ready(n), splat(n, nullptr) {}
};

/// Runs the program on one tile: elements [lo, lo + n) of the domain; in row
/// mode `k` whole rows of R. `acc[r]` is the accumulator of reduce register r
/// (kAcc) for this tile, with stride `acc_stride`. Arg reductions number the
/// tile's elements idx0, idx0 + idx_step, ... along the reduced axes.
void run_tile(const Exec& E, TileState& st, uint8_t* ub, int64_t lo, int64_t n, int64_t k, char* const* acc,
              int64_t acc_stride, int64_t idx0 = 0, int64_t idx_step = 1) {
  const Program& P = *E.P;
  const size_t nr = P.regs.size();
  uint8_t* row_area = ub + P.full_units * E.T;
  for (size_t r = 0; r < nr; ++r) {
    const Reg& reg = P.regs[r];
    st.ready[r] = 1;
    switch (reg.kind) {
      case RegKind::kIn: st.ready[r] = 0; break;
      case RegKind::kTemp:
        st.p[r] = reinterpret_cast<char*>(reg.row ? row_area + reg.slot * E.rows : ub + reg.slot * E.T);
        st.s[r] = reg.item;
        break;
      case RegKind::kOut:
        st.p[r] = E.stream_out && !reg.row
                      ? reinterpret_cast<char*>(ub + reg.slot * E.T)
                      : reinterpret_cast<char*>(E.out_base[r] + (reg.row ? (lo / E.R) : lo) * reg.item);
        st.s[r] = reg.item;
        break;
      case RegKind::kAcc:  // acc_stride < 0: one accumulator per element (column reductions)
        st.p[r] = acc[r];
        st.s[r] = acc_stride < 0 ? reg.item : acc_stride;
        break;
    }
  }
  for (const Inst& in : P.insts) {
    for (int j = 0; j < in.nsrc; ++j) {
      const size_t r = static_cast<size_t>(in.src[j]);
      if (!st.ready[r]) {
        resolve_tile(E.views[r], lo, n, ub + P.regs[r].slot * E.T, &st.p[r], &st.s[r]);
        st.ready[r] = 1;
      }
    }
    const size_t d = static_cast<size_t>(in.dst);
    const Reg& dreg = P.regs[d];
    char* ptr[4];
    int64_t str[4];
    if (in.reduce) {
      const size_t x = static_cast<size_t>(in.src[0]);
      if (in.arg_scan) {
        in.arg_scan(st.p[d], st.s[d], st.p[x], st.s[x], n, idx0, idx_step);
        continue;
      }
      if (dreg.row) {  // one accumulator per row of the tile
        const uint8_t* id = P.identities[static_cast<size_t>(in.identity)].data();
        for (int64_t i = 0; i < k; ++i) std::memcpy(st.p[d] + i * dreg.item, id, static_cast<size_t>(dreg.item));
        for (int64_t i = 0; i < k; ++i) {
          ptr[0] = ptr[1] = st.p[d] + i * dreg.item;
          ptr[2] = st.p[x] + i * E.R * st.s[x];
          str[0] = str[1] = 0;
          str[2] = st.s[x];
          in.loop(ptr, str, E.R);
        }
      } else {
        ptr[0] = ptr[1] = st.p[d];
        ptr[2] = st.p[x];
        str[0] = str[1] = st.s[d];
        str[2] = st.s[x];
        in.loop(ptr, str, n);
      }
      continue;
    }
    if (dreg.row) {  // per-row values: k of them
      ptr[0] = st.p[d];
      str[0] = dreg.item;
      for (int j = 0; j < in.nsrc; ++j) {
        ptr[j + 1] = st.p[static_cast<size_t>(in.src[j])];
        str[j + 1] = st.s[static_cast<size_t>(in.src[j])];
      }
      in.loop(ptr, str, k);
    } else if (in.row_src) {  // full values reading per-row ones: row by row
      for (int64_t i = 0; i < k; ++i) {
        ptr[0] = st.p[d] + i * E.R * st.s[d];
        str[0] = st.s[d];
        for (int j = 0; j < in.nsrc; ++j) {
          const size_t r = static_cast<size_t>(in.src[j]);
          if (P.regs[r].row) {
            ptr[j + 1] = st.p[r] + i * P.regs[r].item;
            str[j + 1] = 0;
          } else {
            ptr[j + 1] = st.p[r] + i * E.R * st.s[r];
            str[j + 1] = st.s[r];
          }
        }
        in.loop(ptr, str, E.R);
      }
    } else {
      ptr[0] = st.p[d];
      str[0] = st.s[d];
      for (int j = 0; j < in.nsrc; ++j) {
        ptr[j + 1] = st.p[static_cast<size_t>(in.src[j])];
        str[j + 1] = st.s[static_cast<size_t>(in.src[j])];
      }
      in.loop(ptr, str, n);
    }
  }
  if (E.stream_out) {
    for (size_t r = 0; r < nr; ++r) {
      const Reg& reg = P.regs[r];
      if (reg.kind == RegKind::kOut && !reg.row)
        kernel::simd::stream_copy(E.out_base[r] + lo * reg.item, st.p[r], static_cast<size_t>(n * reg.item));
    }
  }
}

/// A map program (no reductions, no row registers) on elements [lo, lo + n):
/// inputs are resolved once for the tile (in place, or gathered into a
/// tile-sized UB slot of their own: all of them are live in every sub-tile),
/// then every instruction runs over sub-tiles of E.sub elements in turn.
/// Temporaries and staged outputs of a sub-tile live in a small UB area
/// after the gather slots (slots by liveness), so they stay in L1; and the memory
/// streams of all instructions advance together (as in one hand-fused loop)
/// instead of one instruction streaming its inputs over the whole tile before
/// the next one starts: more cache misses in flight per core, which is what
/// bounds a core's share of the memory bandwidth. Stride-0 operands (scalars,
/// broadcast columns) are expanded into a sub-tile of copies in their slot,
/// once per value: the ops' contiguous loops are SIMD (Highway), their
/// scalar-operand loops are not.
void run_map_tile(const Exec& E, TileState& st, uint8_t* ub, int64_t lo, int64_t n) {
  const Program& P = *E.P;
  const size_t nr = P.regs.size();
  const int64_t S = E.sub;
  uint8_t* sub_area = ub + E.gather_at[nr];
  // Per register: its pointer for the first sub-tile and how far it moves per
  // sub-tile (0: the same sub-tile-sized slot every time). Every operand is
  // contiguous.
  std::vector<int64_t>& step = st.s;  // reused: strides go into the calls
  st.copies.clear();
  for (size_t r = 0; r < nr; ++r) {
    const Reg& reg = P.regs[r];
    if (reg.last < 0) continue;
    int64_t stride = reg.item;
    if (reg.kind == RegKind::kIn) {
      uint8_t* slot = ub + E.gather_at[r];
      resolve_tile(E.views[r], lo, n, slot, &st.p[r], &stride);
      if (stride == 0) {
        if (st.splat[r] != st.p[r]) {
          copy_run_any(slot, reinterpret_cast<const uint8_t*>(st.p[r]), 0, S, reg.item);
          st.splat[r] = st.p[r];
        }
        st.p[r] = reinterpret_cast<char*>(slot);
        stride = reg.item;
        step[r] = 0;
      } else {
        st.splat[r] = nullptr;  // a gather may have overwritten the copies
        step[r] = stride * S;
      }
    } else if (reg.kind == RegKind::kOut && !E.stream_out) {
      st.p[r] = reinterpret_cast<char*>(E.out_base[r] + lo * reg.item);
      step[r] = reg.item * S;
    } else {
      st.p[r] = reinterpret_cast<char*>(sub_area + reg.slot * S);
      step[r] = 0;
      if (reg.kind == RegKind::kOut) st.copies.push_back({E.out_base[r] + lo * reg.item, st.p[r], reg.item});
    }
  }
  st.calls.clear();
  for (size_t i = 0; i < P.insts.size();) {
    const Inst& in = P.insts[i];
    TileState::Call& c = st.calls.emplace_back();
    const int ch = E.chains ? P.chain_at[i] : -1;
    if (ch >= 0) {  // one call evaluates the chain's instructions at register level
      const Chain& chain = P.chains[static_cast<size_t>(ch)];
      c.loop = nullptr;
      c.chain = &chain;
      int j = 0;
      for (const int r : chain.in_regs) {
        // A stride-0 input's slot holds copies of one value: the chain sets a register from it.
        c.scalar[j] = P.regs[static_cast<size_t>(r)].kind == RegKind::kIn && st.splat[static_cast<size_t>(r)] != nullptr;
        c.p[j] = st.p[static_cast<size_t>(r)];
        c.step[j++] = step[static_cast<size_t>(r)];
      }
      for (const int r : chain.out_regs) {
        c.p[j] = st.p[static_cast<size_t>(r)];
        c.step[j++] = step[static_cast<size_t>(r)];
      }
      c.nargs = j;
      i = static_cast<size_t>(chain.end);
      continue;
    }
    c.loop = in.loop;
    c.chain = nullptr;
    c.nargs = in.nsrc + 1;
    for (int j = 0; j < c.nargs; ++j) {
      const size_t r = static_cast<size_t>(j == 0 ? in.dst : in.src[j - 1]);
      c.p[j] = st.p[r];
      c.s[j] = P.regs[r].item;
      c.step[j] = step[r];
    }
    ++i;
  }
  for (int64_t s0 = 0; s0 < n; s0 += S) {
    const int64_t m = std::min(S, n - s0);
    for (TileState::Call& c : st.calls) {
      if (c.chain) {
        const int nin = c.chain->code.nin;
        c.chain->fn(c.chain->code, reinterpret_cast<const void* const*>(c.p), c.scalar,
                     reinterpret_cast<void* const*>(c.p + nin), static_cast<size_t>(m));
      } else {
        c.loop(c.p, c.s, m);
      }
      for (int j = 0; j < c.nargs; ++j) c.p[j] += c.step[j];
    }
    for (const TileState::Copy& c : st.copies)
      kernel::simd::stream_copy(c.dst + s0 * c.item, c.src, static_cast<size_t>(m * c.item));
  }
}

/// acc = combine(acc, x) for every reduce register (one element each).
void fold(const Program& P, char* const* acc, char* const* x) {
  for (const Inst& in : P.insts) {
    if (!in.reduce) continue;
    const size_t d = static_cast<size_t>(in.dst);
    if (in.arg_fold) {
      in.arg_fold(acc[d], x[d]);
      continue;
    }
    char* ptr[3] = {acc[d], acc[d], x[d]};
    const int64_t str[3] = {0, 0, P.regs[d].item};
    in.loop(ptr, str, 1);
  }
}

/// acc = x for every reduce register: the first fold into an accumulator that
/// still holds the identity. NumPy applies the identity once (1 * x0 * x1 ...);
/// folding a partial that already starts from it into a second identity is not
/// exact for complex products ((1+0j) * (inf-1j) = inf+nanj, and once more
/// nan+nanj), so the first fold copies.
void fold_first(const Program& P, char* const* acc, char* const* x) {
  for (const Inst& in : P.insts) {
    if (!in.reduce) continue;
    const size_t d = static_cast<size_t>(in.dst);
    if (in.arg_fold) {
      in.arg_fold(acc[d], x[d]);
      continue;
    }
    std::memcpy(acc[d], x[d], static_cast<size_t>(P.regs[d].item));
  }
}

void set_identity(const Program& P, char* const* acc, int64_t count) {
  for (const Inst& in : P.insts) {
    if (!in.reduce) continue;
    const size_t d = static_cast<size_t>(in.dst);
    const int64_t item = P.regs[d].item;
    const uint8_t* id = P.identities[static_cast<size_t>(in.identity)].data();
    for (int64_t i = 0; i < count; ++i) std::memcpy(acc[d] + i * item, id, static_cast<size_t>(item));
  }
}

uint8_t* inline_scratch() {
  struct Scratch {
    uint8_t* p = nullptr;
    // A flush at thread exit (ThreadGraph) may run after this destructor:
    // reset so that such a late call allocates afresh instead of reusing freed memory.
    ~Scratch() {
      ::operator delete(p, std::align_val_t(64));
      p = nullptr;
    }
  };
  thread_local Scratch s;
  if (!s.p) s.p = static_cast<uint8_t*>(::operator new(static_cast<size_t>(ub_budget() + 1024), std::align_val_t(64)));
  return s.p;
}

/// Runs body(block, ub) for blocks [0, nb): launched on all cores, or inline.
template <typename Body>
void for_blocks(const char* name, int64_t nb, bool parallel, Body&& body) {
  if (!parallel || nb <= 1 || runtime::current_block() != nullptr) {
    uint8_t* ub = inline_scratch();
    for (int64_t b = 0; b < nb; ++b) body(b, ub);
    kernel::simd::stream_fence();
    return;
  }
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(nb);
  inv.body = [&body](const runtime::BlockContext& ctx) {
    uint8_t* ub = ctx.arenas && ctx.arenas->ub_size >= static_cast<size_t>(ub_budget()) ? ctx.arenas->ub
                                                                                         : inline_scratch();
    body(static_cast<int64_t>(ctx.block_idx), ub);
    kernel::simd::stream_fence();  // non-temporal stores visible before the launch completes
  };
  runtime::current_device().run_kernel(inv).ThrowIfError();
}

int num_cores() { return runtime::current_device().properties().num_cores; }

/// Blocks for `work` elements in `units` indivisible pieces: one per core at
/// most by default; `chunked`: also one per kChunk elements, so that the cores
/// claim blocks as they get to them (a core slowed down by another process, or
/// woken late, does less of the work instead of holding up the launch).
int64_t blocks_for(int64_t work, int64_t units, bool chunked = false) {
  const int64_t by_work = std::max<int64_t>(1, work / kMinPerBlock);
  int64_t nb = std::min<int64_t>({static_cast<int64_t>(num_cores()), by_work, units});
  if (chunked) nb = std::max(nb, std::min(units, work / kChunk));
  return std::max<int64_t>(1, nb);
}

}  // namespace

static std::string shape_str(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

// The profiler's detail of a group span: which flush and group, the fused
// nodes (id, op, dtype, shape), the iteration domain, memory inputs and
// outputs, the tile and UB use. `bytes` gets the bytes read and written.
static std::string describe_group(const Group& g, const Analysis& a, uint64_t* bytes) {
  std::string d;
  if (g.graph_seq >= 0) d += "graph=" + std::to_string(g.graph_seq) + " ";
  if (g.index >= 0) d += "group=" + std::to_string(g.index) + "/" + std::to_string(g.of) + " ";
  d += std::string("mode=") + mode_name(g.mode) + " domain=" + shape_str(g.domain) + " nodes=[";
  uint64_t moved = 0;
  int outputs = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    if (i) d += "; ";
    d += std::to_string(n.id) + " " + n.name + " " + dtype_name(n.dtype) + shape_str(n.shape);
    if (n.needs_buffer && !n.bcast) {
      ++outputs;
      moved += static_cast<uint64_t>(shape_numel(n.shape)) * dtype_size(n.dtype);
    }
  }
  for (const Input* in : a.inputs) moved += static_cast<uint64_t>(shape_numel(in->shape)) * dtype_size(in->dtype);
  d += "] inputs=" + std::to_string(a.inputs.size()) + " outputs=" + std::to_string(outputs) +
       " tile=" + std::to_string(g.tile) + " ub_bytes=" + std::to_string(g.ub_bytes);
  if (!g.chains.empty()) d += " chains=" + g.chains;
  for (const Node* n : g.nodes)  // graph passes (passes.cc): "pass=gelu(7<-2,3,4,5,6)"
    if (n->pass) {
      d += std::string(" pass=") + n->pass + "(" + std::to_string(n->id) + "<-";
      for (int k = 0; k < n->nreplaced; ++k) d += (k ? "," : "") + std::to_string(n->replaced[k]);
      d += ")";
    }
  *bytes = moved;
  return d;
}

// ASC_GRAPH_CHAINS=0 runs every instruction of a fused program by itself (the
// per-instruction path, for comparisons: benchmarks/bench_custom_ops.py). Read
// at each group run, only by programs that have chains.
static bool chains_enabled() {
  const char* e = std::getenv("ASC_GRAPH_CHAINS");
  return !(e && e[0] == '0' && e[1] == 0);
}

// "(multiply+erf+add)" per chain: the dumps and the profiler show which nodes
// of a group ran as one register-level chain.
static std::string describe_chains(const Program& P, const Group& g) {
  std::string d;
  for (const Chain& c : P.chains) {
    d += "(";
    for (int k = c.first; k < c.end; ++k) {
      if (k > c.first) d += "+";
      d += g.nodes[static_cast<size_t>(P.insts[static_cast<size_t>(k)].dst)]->name;
    }
    d += ")";
  }
  return d;
}

void run_group(Group& g, bool timing) {
  Analysis a = analyze(g);
  std::shared_ptr<Program> prog;
  {
    std::lock_guard<std::mutex> lock(cache_mu());
    auto it = cache().find(a.key);
    if (it != cache().end()) {
      prog = it->second;
      ++mutable_stats().program_cache_hits;
    }
  }
  if (!prog) {
    prog = compile(g, a);
    ++mutable_stats().program_cache_misses;
    std::lock_guard<std::mutex> lock(cache_mu());
    if (cache().size() > 4096) cache().clear();  // bound: programs are cheap to rebuild
    cache().emplace(a.key, prog);
  }
  const Program& P = *prog;
  const size_t nn = g.nodes.size();
  Exec E;
  E.P = &P;
  g.chains.clear();
  E.chains = !P.chains.empty() && chains_enabled();
  E.views.resize(P.regs.size());
  E.out_base.assign(P.regs.size(), nullptr);
  for (size_t i = 0; i < nn; ++i)
    if (g.nodes[i]->buffer) E.out_base[i] = g.nodes[i]->buffer->raw_data();
  // Arg reductions accumulate (value, index) pairs in scratch; their int64
  // outputs are extracted when the group is done (finish_args).
  std::vector<std::vector<std::array<int64_t, 2>>> arg_acc;
  for (size_t i = 0; i < nn; ++i) {
    if (!g.nodes[i]->arg || !E.out_base[i]) continue;
    arg_acc.emplace_back(static_cast<size_t>(shape_numel(g.nodes[i]->shape)));
    E.out_base[i] = reinterpret_cast<uint8_t*>(arg_acc.back().data());
  }
  auto finish_args = [&] {
    for (size_t i = 0, j = 0; i < nn; ++i) {
      if (!g.nodes[i]->arg || !g.nodes[i]->buffer) continue;
      auto* dst = reinterpret_cast<int64_t*>(g.nodes[i]->buffer->raw_data());
      const auto& src = arg_acc[j++];
      for (size_t e = 0; e < src.size(); ++e) dst[e] = src[e][1];
    }
  };
  for (size_t m = 0; m < a.inputs.size(); ++m) {
    const Input& in = *a.inputs[m];
    make_view(E.views[nn + m], input_base(in, a.input_nodes[m]), static_cast<int64_t>(dtype_size(in.dtype)), in.shape,
              in.strides, g.domain);
  }
  const int64_t budget = ub_budget();
  int64_t total = 1;
  for (int64_t d : g.domain) total *= d;
  const bool parallel = total >= kParallelMin && num_cores() > 1;
  // Results much larger than the caches: non-temporal stores (RowFused and map).
  int64_t out_bytes = 0;
  for (size_t r = 0; r < P.regs.size(); ++r)
    if (P.regs[r].kind == RegKind::kOut && !P.regs[r].row) out_bytes += total * P.regs[r].item;
  E.stream_out = out_bytes >= kStreamBytes && (g.mode == Mode::kMap || g.mode == Mode::kRowFused);
  std::string kname = std::string("fused[") + P.ops + "]";
  runtime::profiler::Span span(runtime::profiler::EventKind::kGraph, kname);
  // Filled when run_group returns (destroyed before `span`): the tile size is
  // only known once the mode's branch picked it.
  struct Describe {
    runtime::profiler::Span& span;
    const Group& g;
    const Analysis& a;
    ~Describe() {
      if (span.active()) span.event().detail = describe_group(g, a, &span.event().bytes);
    }
  } describe{span, g, a};
  (void)timing;
  const size_t nr = P.regs.size();

  if (g.mode == Mode::kRowFused) {
    const int64_t K = g.K1, R = g.R;
    const int64_t per_row = P.full_units * R + P.row_units;
    int64_t k = per_row > 0 ? budget / per_row : kMaxTile;
    k = std::min<int64_t>(k, std::max<int64_t>(1, kMaxTile / std::max<int64_t>(R, 1)));
    k = std::min(k, K);
    if (k < 1) throw Error(Status::Make(ErrorCode::kFailure, "graph", "row-fused program does not fit the UB"));
    E.R = R;
    E.rows = k;
    E.T = k * R;
    const int64_t ntiles = (K + k - 1) / k;
    const int64_t nb = parallel ? blocks_for(total, ntiles, true) : 1;
    g.tile = E.T;
    g.ub_bytes = per_row * k;
    std::vector<char*> acc(nr, nullptr);
    for_blocks(kname.c_str(), nb, parallel, [&](int64_t b, uint8_t* ub) {
      TileState st(nr);
      for (int64_t t = ntiles * b / nb; t < ntiles * (b + 1) / nb; ++t) {
        const int64_t r0 = t * k, kk = std::min(k, K - r0);
        run_tile(E, st, ub, r0 * R, kk * R, kk, acc.data(), 0);
      }
    });
    return;
  }

  int64_t T = P.full_units > 0 ? budget / P.full_units : kMaxTile;
  T = std::min<int64_t>(T, kMaxTile) / 64 * 64;
  if (T < 64) T = std::max<int64_t>(1, budget / std::max<int64_t>(P.full_units, 1));
  E.T = T;
  E.rows = 1;
  E.R = 1;
  g.tile = T;
  g.ub_bytes = P.full_units * T;

  switch (g.mode) {
    case Mode::kMap: {
      // Broadcast operands (a (N, 1) column, a (1, M) row) are gathered when
      // a tile spans several lines of the domain's last axis; tiles within
      // one line read them in place (stride 0 or contiguous).
      int64_t L = 1;
      for (size_t d = g.domain.size(); d-- > 0;)
        if (g.domain[d] != 1) {
          L = g.domain[d];
          break;
        }
      bool gathers = false;
      for (size_t r = nn; r < nr; ++r)
        if (P.regs[r].last >= 0 && !E.views[r].contig && !E.views[r].scalar) gathers = true;
      const bool by_line = gathers && L >= kMinLine && L < total;
      // Sub-tiles pay off when several instructions stream memory, or when
      // outputs are staged for non-temporal stores; the tile shrinks to leave
      // room for the sub-tile area. (A single instruction with a stride-0
      // operand is faster as one scalar-operand loop over the tile than
      // expanded copies and sub-tile calls: measured on (1024, 1) + (1, 1024).)
      const int64_t sub = kSubTile;
      int64_t TT = T;
      if ((P.insts.size() > 1 || E.stream_out) && P.full_units > 0) {
        // Inputs that may need a gather get a tile-sized slot of their own,
        // scalars a sub-tile-sized one (for their expanded copies).
        int64_t gather_units = 0, scalar_bytes = 0;
        for (size_t r = nn; r < nr; ++r) {
          if (P.regs[r].last < 0 || E.views[r].contig) continue;
          const int64_t units = (P.regs[r].item + 7) / 8 * 8;
          if (E.views[r].scalar) scalar_bytes += units * sub;
          else gather_units += units;
        }
        const int64_t room = budget - P.full_units * sub - scalar_bytes;
        int64_t t2 = std::min<int64_t>(gather_units ? room / gather_units : kMaxTile, kMaxTile);
        t2 = t2 / 64 * 64;
        if (room > 0 && t2 >= sub) {
          TT = t2;
          E.sub = sub;
          E.gather_at.assign(nr + 1, 0);
          int64_t at = 0;
          for (size_t r = nn; r < nr; ++r) {
            E.gather_at[r] = at;
            if (P.regs[r].last >= 0 && !E.views[r].contig)
              at += (P.regs[r].item + 7) / 8 * 8 * (E.views[r].scalar ? sub : TT);
          }
          E.gather_at[nr] = at;  // the sub-tile area
        }
      }
      E.T = TT;
      g.tile = TT;
      if (E.sub && E.chains) g.chains = describe_chains(P, g);
      g.ub_bytes = E.sub ? E.gather_at[nr] + P.full_units * E.sub : P.full_units * TT;
      const int64_t per_line = by_line ? (L + TT - 1) / TT : 1;
      const int64_t ntiles = by_line ? total / L * per_line : (total + TT - 1) / TT;
      const int64_t nb = parallel ? blocks_for(total, ntiles, true) : 1;
      std::vector<char*> acc(nr, nullptr);
      for_blocks(kname.c_str(), nb, parallel, [&](int64_t b, uint8_t* ub) {
        TileState st(nr);
        for (int64_t t = ntiles * b / nb; t < ntiles * (b + 1) / nb; ++t) {
          int64_t lo, cnt;
          if (by_line) {
            const int64_t c = t % per_line * TT;
            lo = t / per_line * L + c;
            cnt = std::min(TT, L - c);
          } else {
            lo = t * TT;
            cnt = std::min(TT, total - lo);
          }
          if (E.sub) run_map_tile(E, st, ub, lo, cnt);
          else run_tile(E, st, ub, lo, cnt, 1, acc.data(), 0);
        }
      });
      return;
    }
    case Mode::kReduceAll: {
      const int64_t ntiles = (total + T - 1) / T;
      const int64_t nb = parallel ? blocks_for(total, ntiles, true) : 1;
      // Per block and reduce register: a tile partial (acc1) folded into the
      // block's total (acc2) every kFoldEvery tiles: float sums stay accurate.
      std::vector<std::array<uint64_t, 4>> part(static_cast<size_t>(nb) * nr);
      for_blocks(kname.c_str(), nb, parallel, [&](int64_t b, uint8_t* ub) {
        TileState st(nr);
        std::vector<char*> acc1(nr), acc2(nr);
        std::vector<std::array<uint64_t, 2>> a1(nr);
        for (size_t r = 0; r < nr; ++r) {
          acc1[r] = reinterpret_cast<char*>(a1[r].data());
          acc2[r] = reinterpret_cast<char*>(part[static_cast<size_t>(b) * nr + r].data());
        }
        set_identity(P, acc2.data(), 1);
        set_identity(P, acc1.data(), 1);
        int count = 0;
        bool first = true;
        for (int64_t t = ntiles * b / nb; t < ntiles * (b + 1) / nb; ++t) {
          const int64_t lo = t * T;
          run_tile(E, st, ub, lo, std::min(T, total - lo), 1, acc1.data(), 0, lo, 1);
          if (++count == kFoldEvery) {
            (first ? fold_first : fold)(P, acc2.data(), acc1.data());
            first = false;
            set_identity(P, acc1.data(), 1);
            count = 0;
          }
        }
        (first ? fold_first : fold)(P, acc2.data(), acc1.data());
      });
      std::vector<char*> out(nr), x(nr);
      for (size_t r = 0; r < nr; ++r) out[r] = reinterpret_cast<char*>(E.out_base[r]);
      set_identity(P, out.data(), 1);
      for (int64_t b = 0; b < nb; ++b) {
        for (size_t r = 0; r < nr; ++r) x[r] = reinterpret_cast<char*>(part[static_cast<size_t>(b) * nr + r].data());
        (b == 0 ? fold_first : fold)(P, out.data(), x.data());
      }
      finish_args();
      return;
    }
    case Mode::kReduceRows: {
      const int64_t K = g.K1, R = g.R;
      const int64_t nb = parallel ? blocks_for(total, K, true) : 1;
      for_blocks(kname.c_str(), nb, parallel, [&](int64_t b, uint8_t* ub) {
        TileState st(nr);
        std::vector<char*> acc1(nr), tot(nr);
        std::vector<std::array<uint64_t, 2>> a1(nr);
        for (size_t r = 0; r < nr; ++r) acc1[r] = reinterpret_cast<char*>(a1[r].data());
        for (int64_t row = K * b / nb; row < K * (b + 1) / nb; ++row) {
          for (size_t r = 0; r < nr; ++r)
            tot[r] = E.out_base[r] ? reinterpret_cast<char*>(E.out_base[r] + row * P.regs[r].item) : nullptr;
          set_identity(P, tot.data(), 1);
          set_identity(P, acc1.data(), 1);
          int count = 0;
          bool first = true;
          for (int64_t c = 0; c < R; c += T) {
            run_tile(E, st, ub, row * R + c, std::min(T, R - c), 1, acc1.data(), 0, c, 1);
            if (++count == kFoldEvery) {
              (first ? fold_first : fold)(P, tot.data(), acc1.data());
              first = false;
              set_identity(P, acc1.data(), 1);
              count = 0;
            }
          }
          (first ? fold_first : fold)(P, tot.data(), acc1.data());
        }
      });
      finish_args();
      return;
    }
    case Mode::kReduceCols: {
      const int64_t K1 = g.K1, R = g.R, K2 = g.K2;
      // Column chunks of at most one tile; when there are fewer outer slices
      // than cores (sum(x, axis=0) of a 4096-wide matrix is one slice and one
      // tile wide), narrower chunks give every core columns of its own.
      int64_t Tc = T;
      const int64_t cores = static_cast<int64_t>(num_cores());
      if (parallel && K1 < cores && K2 > 64) {
        const int64_t per = (K2 + (cores + K1 - 1) / K1 - 1) / ((cores + K1 - 1) / K1);
        Tc = std::min(T, std::max<int64_t>(64, (per + 63) / 64 * 64));
      }
      const int64_t chunks = (K2 + Tc - 1) / Tc;
      const int64_t units = K1 * chunks;
      const int64_t nb = parallel ? blocks_for(total, units, true) : 1;
      for_blocks(kname.c_str(), nb, parallel, [&](int64_t b, uint8_t* ub) {
        TileState st(nr);
        std::vector<char*> acc(nr);
        for (int64_t u = units * b / nb; u < units * (b + 1) / nb; ++u) {
          const int64_t k1 = u / chunks, c0 = (u % chunks) * Tc, w = std::min(Tc, K2 - c0);
          for (size_t r = 0; r < nr; ++r)
            acc[r] = E.out_base[r] ? reinterpret_cast<char*>(E.out_base[r] + (k1 * K2 + c0) * P.regs[r].item)
                                   : nullptr;
          set_identity(P, acc.data(), w);
          for (int64_t r = 0; r < R; ++r)
            run_tile(E, st, ub, (k1 * R + r) * K2 + c0, w, 1, acc.data(), -1, r, 0);
        }
      });
      finish_args();
      return;
    }
    case Mode::kReduceGeneral: {
      // Several runs of reduced axes. Tiles are chunks of one line of the last
      // run; a line's outputs follow from its coordinates in the other runs.
      // Blocks own ranges of the outermost kept run (disjoint outputs, each
      // folded in increasing element order: deterministic).
      const auto runs = reduce_runs(g.domain, g.mask);
      const int nrun = static_cast<int>(runs.size());
      const ReduceRun last = runs.back();
      std::vector<int64_t> ostride(runs.size(), 0);  // output stride of each kept run
      int64_t K = 1;
      for (int i = nrun - 1; i >= 0; --i)
        if (!runs[static_cast<size_t>(i)].reduced) {
          ostride[static_cast<size_t>(i)] = K;
          K *= runs[static_cast<size_t>(i)].size;
        }
      int first_kept = -1;
      for (int i = 0; i < nrun && first_kept < 0; ++i)
        if (!runs[static_cast<size_t>(i)].reduced) first_kept = i;
      const int64_t nf = first_kept >= 0 ? runs[static_cast<size_t>(first_kept)].size : 1;
      const int64_t fstride = first_kept >= 0 ? ostride[static_cast<size_t>(first_kept)] : 1;
      const int64_t L = last.size, lines = total / L;
      const int64_t nb = parallel ? blocks_for(total, nf) : 1;
      for_blocks(kname.c_str(), nb, parallel, [&](int64_t b, uint8_t* ub) {
        TileState st(nr);
        const int64_t f0 = nf * b / nb, f1 = nf * (b + 1) / nb;
        std::vector<char*> acc(nr), acc1(nr);
        std::vector<std::array<uint64_t, 2>> a1(nr);
        for (size_t r = 0; r < nr; ++r) acc1[r] = reinterpret_cast<char*>(a1[r].data());
        // Identity into the owned outputs [f0, f1) x fstride.
        for (size_t r = 0; r < nr; ++r)
          acc[r] = E.out_base[r] ? reinterpret_cast<char*>(E.out_base[r] + f0 * fstride * P.regs[r].item) : nullptr;
        set_identity(P, acc.data(), (f1 - f0) * fstride);
        std::vector<uint8_t> folded(static_cast<size_t>((f1 - f0) * fstride), 0);  // (see fold_first)
        std::vector<int64_t> coord(runs.size(), 0);  // odometer over the runs before the last
        for (int64_t line = 0; line < lines; ++line) {
          if (line) {
            for (int i = nrun - 2; i >= 0; --i) {
              if (++coord[static_cast<size_t>(i)] < runs[static_cast<size_t>(i)].size) break;
              coord[static_cast<size_t>(i)] = 0;
            }
          }
          if (first_kept >= 0 && first_kept < nrun - 1) {
            const int64_t f = coord[static_cast<size_t>(first_kept)];
            if (f < f0 || f >= f1) continue;
          }
          int64_t o = 0;
          for (int i = 0; i < nrun - 1; ++i) o += coord[static_cast<size_t>(i)] * ostride[static_cast<size_t>(i)];
          if (last.reduced) {
            for (size_t r = 0; r < nr; ++r)
              acc[r] = E.out_base[r] ? reinterpret_cast<char*>(E.out_base[r] + o * P.regs[r].item) : nullptr;
            set_identity(P, acc1.data(), 1);
            for (int64_t c = 0; c < L; c += T) run_tile(E, st, ub, line * L + c, std::min(T, L - c), 1, acc1.data(), 0);
            uint8_t& seen = folded[static_cast<size_t>(o - f0 * fstride)];
            (seen ? fold : fold_first)(P, acc.data(), acc1.data());
            seen = 1;
          } else {
            for (int64_t c = 0; c < L; c += T) {
              const int64_t w = std::min(T, L - c);
              if (first_kept == nrun - 1 && (c + w <= f0 || c >= f1)) continue;  // the last run is the owned one
              const int64_t c_lo = first_kept == nrun - 1 ? std::max(c, f0) : c;
              const int64_t c_hi = first_kept == nrun - 1 ? std::min(c + w, f1) : c + w;
              for (size_t r = 0; r < nr; ++r)
                acc[r] = E.out_base[r] ? reinterpret_cast<char*>(E.out_base[r] + (o + c_lo) * P.regs[r].item)
                                       : nullptr;
              run_tile(E, st, ub, line * L + c_lo, c_hi - c_lo, 1, acc.data(), -1);
            }
          }
        }
      });
      return;
    }
    default: break;
  }
}

}  // namespace asc::graph::detail
