// Graph passes: rewrites of a flushed graph before scheduling (plan(), graph.cc).
//
// gelu: the erf GeLU subgraph x * 0.5 * (1 + erf(x / sqrt 2)) and the tanh
// approximation x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) become
// one node running the kernel of the built-in asc.ops.gelu (onnxruntime's
// GeluFusion / FastGeluFusion, XLA and TVM do the same on their graphs). The
// composite spends its time in a general float32 erf (both branches, range
// handling) plus four more instructions; the kernel evaluates gelu itself in
// about 37 vector operations, without the 1 + erf cancellation of the negative
// tail. Algebraic variants match: the product x * 0.5 * S in any order and
// association (x * 0.5 first or last, 0.5 * x, x * (0.5 * S), x / 2), 1 + e or
// e + 1, x / sqrt 2 or x * (1/sqrt 2) either side; x^3 as x * x * x in any
// association, square(x) * x or power(x, 3), c * x^3 with c on either side.
//
// It fires only when it cannot change what anyone observes besides the
// rounding of the result: float32 nodes; constants equal to the float32
// roundings of 0.5, 1, 2, sqrt 2, 1/sqrt 2, 3, sqrt(2/pi), 0.044715 bit for
// bit (one ulp off: no match -- that is someone else's function); every
// intermediate node used once, by the pattern, and held by no tensor (else
// the value is needed as computed: no match); every edge the producer's own
// layout; every node of x's shape. The root node keeps its identity (its
// storage, its users); the other nodes become dead and are dropped by the
// flush's dead-code elimination. Results: the built-in's bits (docs/custom_ops.md
// "Graph passes" states the bound against the composite's own rounding).
//
// ASC_GRAPH_PASSES turns passes off ("0" / "none"), picks some ("gelu"), or
// drops some ("-gelu"); unset or "1" / "all": every pass. Read at each flush of
// four or more nodes (tests and benchmarks switch it at run time).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "asc/core/log.h"
#include "graph/internal.h"
#include "kernel/simd/gelu_loop.h"

namespace asc::graph::detail {
namespace {

bool pass_enabled(std::string_view pass) {
  const char* e = std::getenv("ASC_GRAPH_PASSES");
  if (!e) return true;
  const std::string_view v(e);
  if (v == "1" || v == "all") return true;
  if (v.empty() || v == "0" || v == "none") return false;
  // a comma list: names enable only those; "-name" drops one from all
  bool only = false, listed = false, dropped = false;
  size_t i = 0;
  while (i <= v.size()) {
    size_t j = v.find(',', i);
    if (j == std::string_view::npos) j = v.size();
    std::string_view t = v.substr(i, j - i);
    if (!t.empty() && t[0] == '-') {
      if (t.substr(1) == pass) dropped = true;
    } else if (!t.empty()) {
      only = true;
      if (t == pass) listed = true;
    }
    i = j + 1;
  }
  if (dropped) return false;
  return only ? listed : true;
}

bool bits_equal(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// A float32 one-element leaf equal to `v` bit for bit: a Python scalar held by value
/// (Storage::inline_bytes), or a materialised 0-d/1-element array (ONNX initializers, asc.float32(c)).
/// Its bytes are final now: no pending or in-flight work writes them (kPendingWrite clear), and a
/// leaf a pending node reads is flagged kPendingRead, so a later write first runs this graph; memory
/// that may change behind pyasc's back (volatile_bytes) is never read by a node after its recording
/// call, so such a leaf is not trusted here either.
bool is_const(const Input& in, float v) {
  if (in.node || !in.leaf.defined() || in.dtype != DType::kFloat32 || in.leaf.dtype() != DType::kFloat32) return false;
  const Storage* s = in.leaf.storage().get();
  if (in.leaf.numel() != 1 || in.offset < 0 || static_cast<size_t>(in.offset) + sizeof(float) > s->nbytes()) return false;
  if (!s->is_inline() && ((s->lazy_flags() & Storage::kPendingWrite) || s->volatile_bytes())) return false;
  if (!s->raw_data()) return false;
  float c;
  std::memcpy(&c, s->raw_data() + in.offset, sizeof c);
  return bits_equal(c, v);
}

/// Two operands that read the same value: one producer (or one leaf storage) seen through the
/// same view.
bool same_value(const Input& a, const Input& b) {
  if (a.node != b.node) return false;
  if (!a.node && a.leaf.storage() != b.leaf.storage()) return false;
  return a.offset == b.offset && a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides;
}

struct Matcher {
  std::unordered_map<const Node*, int> uses;  // references from nodes of the flush
  const Shape* shape = nullptr;               // the root's
  std::vector<Node*> taken;                   // nodes the match replaces (root excluded)

  /// The node behind `in` when it may be absorbed: elementwise float32 `name`, the producer's own
  /// layout, x's shape, used once, held by no tensor.
  Node* inner(const Input& in, const char* name) const {
    Node* p = in.node;
    if (!p || p->alias || !in.natural || p->kind != Kind::kElementwise || p->dtype != DType::kFloat32 ||
        p->live || p->arg || p->shape != *shape || std::strcmp(p->name, name) != 0)
      return nullptr;
    auto it = uses.find(p);
    if (it == uses.end() || it->second != 1) return nullptr;
    for (int k = 0; k < p->nin; ++k)
      if (p->in[k].dtype != DType::kFloat32) return nullptr;
    return p;
  }

  /// Flattens a product: the factors of `in` through absorbable multiply nodes, x / 2 as x and 0.5,
  /// square(x) as x, x and power(x, 3) as x, x, x. `halves` counts the 0.5s from divisions.
  void factors(const Input& in, std::vector<const Input*>& out, int* halves, int depth) {
    if (depth < 8) {
      if (Node* m = inner(in, "multiply"); m && m->nin == 2) {
        taken.push_back(m);
        factors(m->in[0], out, halves, depth + 1);
        factors(m->in[1], out, halves, depth + 1);
        return;
      }
      if (Node* d = inner(in, "true_divide"); d && d->nin == 2 && is_const(d->in[1], 2.0f)) {
        taken.push_back(d);
        ++*halves;
        factors(d->in[0], out, halves, depth + 1);
        return;
      }
      if (Node* s = inner(in, "square"); s && s->nin == 1) {
        taken.push_back(s);
        out.push_back(&s->in[0]);
        out.push_back(&s->in[0]);
        return;
      }
      if (Node* p = inner(in, "power"); p && p->nin == 2 && is_const(p->in[1], 3.0f)) {
        taken.push_back(p);
        for (int k = 0; k < 3; ++k) out.push_back(&p->in[0]);
        return;
      }
    }
    out.push_back(&in);
  }

  /// x * 0.5 * S for the root multiply: x's operand and S's operand (the factor that is none of
  /// the others is S; which one is x is decided by S's own structure).
  bool half_product(const Node& root, const Input** x, const Input** s) {
    std::vector<const Input*> f;
    int halves = 0;
    factors(root.in[0], f, &halves, 0);
    factors(root.in[1], f, &halves, 0);
    // exactly one 0.5 (a constant or a division by 2) and two other factors
    int consts = 0, ci = -1;
    for (size_t i = 0; i < f.size(); ++i)
      if (is_const(*f[i], 0.5f)) ++consts, ci = static_cast<int>(i);
    if (consts + halves != 1 || f.size() != static_cast<size_t>(2 + consts)) return false;
    std::vector<const Input*> rest;
    for (size_t i = 0; i < f.size(); ++i)
      if (static_cast<int>(i) != ci) rest.push_back(f[i]);
    for (int k = 0; k < 2; ++k) {
      *x = rest[static_cast<size_t>(k)];
      *s = rest[static_cast<size_t>(1 - k)];
      if ((*x)->shape == *shape) {
        const size_t mark = taken.size();
        if (one_plus(**s, **x)) return true;
        taken.resize(mark);
      }
    }
    return false;
  }

  /// `in` = 1 + f(x) or f(x) + 1, f = erf(x / sqrt 2) or tanh(sqrt(2/pi) (x + 0.044715 x^3)).
  int form = -1;  // 0 erf, 1 tanh
  bool one_plus(const Input& in, const Input& x) {
    Node* a = inner(in, "add");
    if (!a || a->nin != 2) return false;
    const Input* e = is_const(a->in[0], 1.0f) ? &a->in[1] : is_const(a->in[1], 1.0f) ? &a->in[0] : nullptr;
    if (!e) return false;
    taken.push_back(a);
    if (Node* erf = inner(*e, "erf"); erf && erf->nin == 1) {
      taken.push_back(erf);
      form = 0;
      return scaled_x(erf->in[0], x);
    }
    if (Node* th = inner(*e, "tanh"); th && th->nin == 1) {
      taken.push_back(th);
      form = 1;
      return tanh_arg(th->in[0], x);
    }
    return false;
  }

  /// x / sqrt 2, x * (1/sqrt 2) or (1/sqrt 2) * x (float32 constants).
  bool scaled_x(const Input& in, const Input& x) {
    const float kSqrt2 = 1.41421356237309504880f, kInvSqrt2 = 0.70710678118654752440f;
    if (Node* d = inner(in, "true_divide"); d && d->nin == 2) {
      taken.push_back(d);
      return same_value(d->in[0], x) && is_const(d->in[1], kSqrt2);
    }
    if (Node* m = inner(in, "multiply"); m && m->nin == 2) {
      taken.push_back(m);
      return (same_value(m->in[0], x) && is_const(m->in[1], kInvSqrt2)) ||
             (same_value(m->in[1], x) && is_const(m->in[0], kInvSqrt2));
    }
    return false;
  }

  /// sqrt(2/pi) * (x + 0.044715 x^3), the constant on either side, the sum in either order.
  bool tanh_arg(const Input& in, const Input& x) {
    const float kC1 = 0.79788456080286535588f, kC2 = 0.044715f;
    Node* m = inner(in, "multiply");
    if (!m || m->nin != 2) return false;
    taken.push_back(m);
    const Input* p = is_const(m->in[0], kC1) ? &m->in[1] : is_const(m->in[1], kC1) ? &m->in[0] : nullptr;
    if (!p) return false;
    Node* a = inner(*p, "add");
    if (!a || a->nin != 2) return false;
    taken.push_back(a);
    for (int k = 0; k < 2; ++k) {
      if (!same_value(a->in[k], x)) continue;
      // c2 * x^3 as one product: {0.044715, x, x, x}
      std::vector<const Input*> f;
      int halves = 0;
      const size_t mark = taken.size();
      factors(a->in[1 - k], f, &halves, 0);
      int cs = 0, xs = 0;
      for (const Input* q : f) {
        if (is_const(*q, kC2)) ++cs;
        else if (same_value(*q, x)) ++xs;
      }
      if (halves == 0 && cs == 1 && xs == 3 && f.size() == 4 && taken.size() > mark) return true;
      taken.resize(mark);
    }
    return false;
  }
};

}  // namespace

void run_passes(std::vector<std::shared_ptr<Node>>& nodes, std::vector<std::shared_ptr<void>>* displaced) {
  if (nodes.size() < 4 || !pass_enabled("gelu")) return;
  kernel::simd::GeluLoop loops[2] = {kernel::simd::native_gelu_loop(false), kernel::simd::native_gelu_loop(true)};
  if (!loops[0] || !loops[1]) return;
  Matcher m;
  int64_t fired = 0;
  for (auto& sp : nodes)
    for (int k = 0; k < sp->nin; ++k)
      if (sp->in[k].node) ++m.uses[sp->in[k].node];
  // Outermost products first: a root's inner multiplies are absorbed before they could be roots.
  for (size_t i = nodes.size(); i-- > 0;) {
    Node& root = *nodes[i];
    if (root.kind != Kind::kElementwise || root.dtype != DType::kFloat32 || root.nin != 2 || root.arg ||
        std::strcmp(root.name, "multiply") != 0 || root.in[0].dtype != DType::kFloat32 ||
        root.in[1].dtype != DType::kFloat32)
      continue;
    m.taken.clear();
    m.form = -1;
    m.shape = &root.shape;
    const Input* x = nullptr;
    const Input* s = nullptr;
    if (!m.half_product(root, &x, &s)) continue;
    const Input xin = *x;  // copied before the root's operands are replaced
    for (int k = 0; k < root.nin; ++k)
      if (root.in[k].leaf.defined()) displaced->push_back(root.in[k].leaf.storage());
    root.in[0] = xin;
    root.in[1] = Input{};
    root.nin = 1;
    root.name = m.form == 1 ? "GeluTanh" : "Gelu";
    root.loop = loops[m.form == 1 ? 1 : 0];
    root.pass = "gelu";
    root.nreplaced = 0;
    std::string ids;
    for (Node* t : m.taken) {
      // the absorbed nodes are dead now: nothing else reads them, no tensor holds them
      if (root.nreplaced < Node::kMaxReplaced) root.replaced[root.nreplaced++] = t->id;
      ids += (ids.empty() ? "" : " ") + std::to_string(t->id) + ":" + t->name;
      m.uses[t] = -1;  // never a root or an inner node of another match
    }
    ++fired;
    ASC_LOG_DEBUG("graph", "pass gelu: node " << root.id << " (" << root.name << ") replaces " << ids);
    // the root's own old operands no longer count as uses (they were the absorbed nodes)
  }
  if (fired) {  // process-wide counters (asc.lazy.graph_stats()); relaxed: only totals are read
    mutable_stats().passes_fired.fetch_add(fired, std::memory_order_relaxed);
    mutable_stats().passes_fired_gelu.fetch_add(fired, std::memory_order_relaxed);
  }
}

}  // namespace asc::graph::detail
