// numpy.einsum: the subscripts are parsed once per (subscripts, operand ranks)
// and cached; the evaluation is views (diagonals for repeated labels,
// permutations), sums of the labels only one operand carries, and pairwise
// contractions -- each one batched matmul (BLAS for float32/float64) over the
// transposed/reshaped operands, or a broadcast multiply when the pair shares
// no summed label. With more than two operands the pair giving the smallest
// intermediate is contracted first (greedy, as NumPy's optimize='greedy').
#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "asc/ops/linalg.h"
#include "asc/ops/registry.h"

namespace asc::ops {
namespace {

/// Labels: 'A'..'Z' -> 0..25, 'a'..'z' -> 26..51, ellipsis dimension j -> 52 + j
/// (ellipsis dims align to the right across operands, as broadcasting does).
constexpr int kLetters = 52;
using Labels = std::vector<int>;

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}
char letter_of(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + (l - 26)); }

[[noreturn]] void parse_error(const std::string& detail) {
  throw Error(Status::Invalid("einsum", detail));
}
[[noreturn]] void shape_error(const std::string& detail) {
  throw Error(Status::Make(ErrorCode::kInvalidShape, "einsum", detail));
}

struct Plan {
  std::vector<Labels> in;  // per operand, one label per dimension
  Labels out;
};

/// One term: its letters split around a single optional "...".
struct Term {
  std::string head, tail;
  bool ellipsis = false;
};

Term split_term(const std::string& t, const char* what) {
  Term r;
  const size_t e = t.find("...");
  if (e == std::string::npos) {
    r.head = t;
  } else {
    r.ellipsis = true;
    r.head = t.substr(0, e);
    r.tail = t.substr(e + 3);
  }
  for (const std::string* part : {&r.head, &r.tail})
    for (char c : *part) {
      if (c == '.') parse_error(std::string("invalid ellipsis in ") + what + " subscripts '" + t + "'");
      if (label_of(c) < 0)
        parse_error(std::string("invalid subscript '") + c +
                    "' in einstein sum subscripts string, subscripts must be letters");
    }
  return r;
}

Plan parse(const std::string& subscripts_in, const std::vector<int64_t>& ndims) {
  std::string s;
  for (char c : subscripts_in)
    if (c != ' ') s += c;
  std::string lhs = s, rhs;
  const size_t arrow = s.find("->");
  const bool explicit_out = arrow != std::string::npos;
  if (explicit_out) {
    lhs = s.substr(0, arrow);
    rhs = s.substr(arrow + 2);
    if (rhs.find("->") != std::string::npos || rhs.find(',') != std::string::npos)
      parse_error("subscripts '" + subscripts_in + "' have more than one output ('->' or ',' after '->')");
  }
  std::vector<std::string> terms;
  size_t pos = 0;
  for (;;) {
    const size_t c = lhs.find(',', pos);
    terms.push_back(lhs.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  if (terms.size() != ndims.size())
    parse_error(std::string(terms.size() < ndims.size() ? "more" : "fewer") +
                " operands provided to einstein sum function than specified in the subscripts string (" +
                std::to_string(terms.size()) + " terms in '" + subscripts_in + "', " + std::to_string(ndims.size()) +
                " operands)");
  std::vector<Term> parsed;
  int64_t n_ell = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    parsed.push_back(split_term(terms[i], "operand"));
    const Term& t = parsed.back();
    const int64_t named = static_cast<int64_t>(t.head.size() + t.tail.size());
    if (t.ellipsis) {
      if (named > ndims[i])
        shape_error("einstein sum subscripts string contains too many subscripts for operand " + std::to_string(i) +
                    " ('" + terms[i] + "' for " + std::to_string(ndims[i]) + " dimensions)");
      n_ell = std::max(n_ell, ndims[i] - named);
    } else if (named != ndims[i]) {
      if (named > ndims[i])
        shape_error("einstein sum subscripts string contains too many subscripts for operand " + std::to_string(i) +
                    " ('" + terms[i] + "' for " + std::to_string(ndims[i]) + " dimensions)");
      shape_error("operand " + std::to_string(i) + " has more dimensions (" + std::to_string(ndims[i]) +
                  ") than subscripts given in einstein sum ('" + terms[i] +
                  "'), but no '...' ellipsis provided to broadcast the extra dimensions.");
    }
  }
  Plan p;
  int count[kLetters] = {};
  for (size_t i = 0; i < parsed.size(); ++i) {
    const Term& t = parsed[i];
    Labels lab;
    for (char c : t.head) lab.push_back(label_of(c));
    if (t.ellipsis) {
      const int64_t e = ndims[i] - static_cast<int64_t>(t.head.size() + t.tail.size());
      for (int64_t j = n_ell - e; j < n_ell; ++j) lab.push_back(kLetters + static_cast<int>(j));
    }
    for (char c : t.tail) lab.push_back(label_of(c));
    for (int l : lab)
      if (l < kLetters) ++count[l];
    p.in.push_back(std::move(lab));
  }
  if (explicit_out) {
    const Term t = split_term(rhs, "output");
    bool seen[kLetters] = {};
    auto add = [&](char c) {
      const int l = label_of(c);
      if (count[l] == 0)
        parse_error(std::string("einstein sum subscripts string included output subscript '") + c +
                    "' which never appeared in an input");
      if (seen[l])
        parse_error(std::string("einstein sum subscripts string includes output subscript '") + c +
                    "' multiple times");
      seen[l] = true;
      p.out.push_back(l);
    };
    for (char c : t.head) add(c);
    if (t.ellipsis) {
      for (int64_t j = 0; j < n_ell; ++j) p.out.push_back(kLetters + static_cast<int>(j));
    } else if (n_ell > 0) {
      shape_error("output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                  "provided to broadcast the extra dimensions.");
    }
    for (char c : t.tail) add(c);
  } else {  // implicit: the broadcast dims, then the labels used once, in alphabetical order
    for (int64_t j = 0; j < n_ell; ++j) p.out.push_back(kLetters + static_cast<int>(j));
    for (int l = 0; l < kLetters; ++l)
      if (count[l] == 1) p.out.push_back(l);
  }
  return p;
}

/// Parsed plans by subscripts and operand ranks (the parse is most of the cost
/// of a small einsum; programs repeat the same few subscripts).
std::shared_ptr<const Plan> cached_plan(const std::string& subscripts, const std::vector<Tensor>& ops) {
  std::string key = subscripts;
  key.push_back('\0');
  std::vector<int64_t> ndims;
  for (const Tensor& t : ops) {
    ndims.push_back(t.ndim());
    key += std::to_string(t.ndim());
    key.push_back(',');
  }
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const Plan>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  auto plan = std::make_shared<const Plan>(parse(subscripts, ndims));  // throws on bad subscripts
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 4096) cache.clear();  // bound the memory of programs generating subscripts
  cache.emplace(key, plan);
  return plan;
}

std::string label_name(int l) {
  return l < kLetters ? std::string(1, letter_of(l)) : "... dimension " + std::to_string(l - kLetters);
}

struct Operand {
  Tensor t;
  Labels lab;
};

bool has(const Labels& ls, int l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }
int64_t index_of(const Labels& ls, int l) {
  return static_cast<int64_t>(std::find(ls.begin(), ls.end(), l) - ls.begin());
}

/// Repeated labels within one operand ('ii') -> the diagonal (a view), the
/// label kept once at the end.
void take_diagonals(Operand& o, size_t index) {
  for (;;) {
    int64_t p = -1, q = -1;
    for (size_t i = 0; i < o.lab.size() && p < 0; ++i)
      for (size_t j = i + 1; j < o.lab.size(); ++j)
        if (o.lab[i] == o.lab[j]) {
          p = static_cast<int64_t>(i);
          q = static_cast<int64_t>(j);
          break;
        }
    if (p < 0) return;
    const int l = o.lab[static_cast<size_t>(p)];
    const int64_t sp = o.t.shape()[static_cast<size_t>(p)], sq = o.t.shape()[static_cast<size_t>(q)];
    if (sp != sq)
      shape_error("dimensions in operand " + std::to_string(index) + " for collapsing index '" + label_name(l) +
                  "' don't match (" + std::to_string(sp) + " != " + std::to_string(sq) + ")");
    o.t = o.t.diagonal(0, p, q);
    Labels rest;
    for (size_t i = 0; i < o.lab.size(); ++i)
      if (static_cast<int64_t>(i) != p && static_cast<int64_t>(i) != q) rest.push_back(o.lab[i]);
    rest.push_back(l);
    o.lab = std::move(rest);
  }
}

/// Sums the dims of o whose labels are in `drop`, in dtype rt.
void sum_labels(Operand& o, const std::vector<bool>& drop, DType rt) {
  Attrs at;
  at.all_axes = false;
  at.has_dtype = true;
  at.dtype = rt;
  Labels rest;
  for (size_t i = 0; i < o.lab.size(); ++i) {
    if (drop[static_cast<size_t>(o.lab[i])]) at.axes.push_back(static_cast<int64_t>(i));
    else rest.push_back(o.lab[i]);
  }
  if (at.axes.empty()) return;
  static const OpDef& sum = get_op("sum");
  o.t = call(sum, {o.t}, at);
  o.lab = std::move(rest);
}

/// The contraction of x and y over the labels neither the output nor another
/// operand needs (`keep` marks the needed ones).
Operand contract(const Operand& x, const Operand& y, const std::vector<bool>& keep,
                 const std::vector<int64_t>& sizes, DType rt) {
  Labels batch, summed, xo, yo;
  for (int l : x.lab) {
    if (!has(y.lab, l)) xo.push_back(l);
    else if (keep[static_cast<size_t>(l)]) batch.push_back(l);
    else summed.push_back(l);
  }
  for (int l : y.lab)
    if (!has(x.lab, l)) yo.push_back(l);
  auto perm = [](const Operand& o, std::initializer_list<const Labels*> groups) {
    std::vector<int64_t> axes;
    for (const Labels* g : groups)
      for (int l : *g) axes.push_back(index_of(o.lab, l));
    return o.t.permute(axes);
  };
  auto dims = [](const Tensor& t, size_t from, size_t count) {
    return Shape(t.shape().begin() + static_cast<int64_t>(from), t.shape().begin() + static_cast<int64_t>(from + count));
  };
  Operand r;
  r.lab = batch;
  r.lab.insert(r.lab.end(), xo.begin(), xo.end());
  r.lab.insert(r.lab.end(), yo.begin(), yo.end());
  const size_t nb = batch.size();
  if (summed.empty()) {
    // No sum: an outer product over the batch, as one broadcast multiply
    // (x: batch, xo, 1...; y: batch, 1..., yo).
    Tensor xt = perm(x, {&batch, &xo});
    Tensor yt = perm(y, {&batch, &yo});
    Shape xs = xt.shape(), ys = dims(yt, 0, nb);
    for (size_t i = 0; i < yo.size(); ++i) xs.push_back(1);
    for (size_t i = 0; i < xo.size(); ++i) ys.push_back(1);
    for (size_t i = 0; i < yo.size(); ++i) ys.push_back(yt.shape()[nb + i]);
    static const OpDef& mul = get_op("multiply");
    r.t = call(mul, {xt.reshape(xs), yt.reshape(ys)});
    return r;
  }
  // (batch, xo, summed) @ (batch, summed, yo); the batch dims broadcast in
  // matmul, the summed dims are broadcast to their common size first.
  Tensor xt = perm(x, {&batch, &xo, &summed});
  Tensor yt = perm(y, {&batch, &summed, &yo});
  if (xo.empty() && yo.empty() && rt != DType::kFloat16) {
    // Dot products along the batch ('ij,ij->i'): one broadcast multiply and a
    // sum over the trailing dims (a product per matrix of 1 x k @ k x 1 costs
    // more). float16 stays on matmul, which accumulates in float32 as NumPy.
    static const OpDef& mul = get_op("multiply");
    static const OpDef& sum = get_op("sum");
    Attrs at;
    at.all_axes = false;
    at.has_dtype = true;
    at.dtype = rt;
    for (size_t i = 0; i < summed.size(); ++i) at.axes.push_back(static_cast<int64_t>(nb + i));
    r.t = call(sum, {call(mul, {xt, yt})}, at);
    return r;
  }
  Shape ks;
  for (int l : summed) ks.push_back(sizes[static_cast<size_t>(l)]);
  const Shape xb = dims(xt, 0, nb), xs = dims(xt, nb, xo.size());
  const Shape yb = dims(yt, 0, nb), ys = dims(yt, nb + summed.size(), yo.size());
  auto cat = [](Shape a, const Shape& b) {
    for (int64_t d : b) a.push_back(d);
    return a;
  };
  xt = xt.broadcast_to(cat(cat(xb, xs), ks));
  yt = yt.broadcast_to(cat(cat(yb, ks), ys));
  const int64_t m = shape_numel(xs), k = shape_numel(ks), n = shape_numel(ys);
  const Tensor prod = matmul(xt.reshape(cat(xb, {m, k})), yt.reshape(cat(yb, {k, n})));
  Shape res(prod.shape().begin(), prod.shape().end() - 2);
  r.t = prod.reshape(cat(cat(res, xs), ys));
  return r;
}

}  // namespace

Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands) {
  if (operands.empty()) throw Error(Status::Invalid("einsum", "at least one operand is required"));
  // NumPy parses the subscripts against the operands before it looks at their dtypes
  const std::shared_ptr<const Plan> plan = cached_plan(subscripts, operands);
  DType rt = operands[0].dtype();
  for (size_t i = 1; i < operands.size(); ++i) rt = promote_or_throw(rt, operands[i].dtype(), "einsum");
  if (rt == DType::kBFloat16)
    throw Error(Status::TypeError("einsum", "invalid data type for einsum: bfloat16 (cast the operands to float32)"));
  const size_t nlab = static_cast<size_t>(kLetters) + 64;
  std::vector<Operand> ops;
  ops.reserve(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    ops.push_back({operands[i], plan->in[i]});
    for (int l : ops.back().lab)
      if (static_cast<size_t>(l) >= nlab) throw Error(Status::Invalid("einsum", "too many broadcast dimensions"));
    take_diagonals(ops.back(), i);
  }
  // Label sizes: equal, or 1 (broadcast).
  std::vector<int64_t> sizes(nlab, -1);
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t d = 0; d < ops[i].lab.size(); ++d) {
      const int l = ops[i].lab[d];
      const int64_t s = ops[i].t.shape()[d];
      int64_t& cur = sizes[static_cast<size_t>(l)];
      if (cur < 0 || cur == 1) cur = s;
      else if (s != cur && s != 1)
        shape_error("operands could not be broadcast together: label '" + label_name(l) + "' has size " +
                    std::to_string(cur) + " and size " + std::to_string(s) + " (operand " + std::to_string(i) +
                    " has shape " + Tensor::shape_str(ops[i].t.shape()) + ")");
    }
  std::vector<bool> in_out(nlab, false);
  for (int l : plan->out) in_out[static_cast<size_t>(l)] = true;
  // Labels only one operand carries and the output drops are summed right away.
  std::vector<int> uses(nlab, 0);
  for (const Operand& o : ops)
    for (int l : o.lab) ++uses[static_cast<size_t>(l)];
  for (Operand& o : ops) {
    std::vector<bool> drop(nlab, false);
    for (int l : o.lab) drop[static_cast<size_t>(l)] = uses[static_cast<size_t>(l)] == 1 && !in_out[static_cast<size_t>(l)];
    sum_labels(o, drop, rt);
  }
  while (ops.size() > 1) {
    // Greedy: the pair whose result (the labels still needed) is smallest.
    size_t bi = 0, bj = 1;
    if (ops.size() > 2) {
      double best = -1;
      for (size_t i = 0; i < ops.size(); ++i)
        for (size_t j = i + 1; j < ops.size(); ++j) {
          double size = 1;
          std::vector<bool> counted(nlab, false);
          for (const Operand* o : {&ops[i], &ops[j]})
            for (int l : o->lab) {
              if (counted[static_cast<size_t>(l)]) continue;
              counted[static_cast<size_t>(l)] = true;
              bool needed = in_out[static_cast<size_t>(l)];
              for (size_t q = 0; q < ops.size() && !needed; ++q)
                if (q != i && q != j && has(ops[q].lab, l)) needed = true;
              if (needed) size *= static_cast<double>(sizes[static_cast<size_t>(l)]);
            }
          if (best < 0 || size < best) {
            best = size;
            bi = i;
            bj = j;
          }
        }
    }
    std::vector<bool> keep = in_out;
    for (size_t q = 0; q < ops.size(); ++q)
      if (q != bi && q != bj)
        for (int l : ops[q].lab) keep[static_cast<size_t>(l)] = true;
    Operand r = contract(ops[bi], ops[bj], keep, sizes, rt);
    ops.erase(ops.begin() + static_cast<int64_t>(bj));
    ops[bi] = std::move(r);
  }
  Operand& res = ops[0];
  {
    std::vector<bool> drop(nlab, false);
    for (int l : res.lab) drop[static_cast<size_t>(l)] = !in_out[static_cast<size_t>(l)];
    sum_labels(res, drop, rt);
  }
  std::vector<int64_t> axes;
  Shape out_shape;
  for (int l : plan->out) {
    axes.push_back(index_of(res.lab, l));
    out_shape.push_back(sizes[static_cast<size_t>(l)]);
  }
  Tensor r = res.t.permute(axes);
  if (r.shape() != out_shape) r = r.broadcast_to(out_shape);
  return r.dtype() == rt ? r : cast(r, rt);
}

}  // namespace asc::ops
