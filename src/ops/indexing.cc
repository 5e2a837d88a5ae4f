// Advanced indexing: the plan (basic view + index arrays + result layout),
// the byte-offset pass, and the gather/scatter kernels; take, take_along_axis,
// put_along_axis, put and nonzero positions. See asc/ops/indexing.h.
//
// Geometry. After the basic items are applied, x is a view V whose axes are
// either "advanced" (indexed by an array) or "rest" axes R. The index arrays
// broadcast to B; each position b of B selects the R-shaped block of V that
// starts at byte offset off[b] (the sum of index * stride over the advanced
// axes). The result is laid out C-contiguous as pre + B + post (adjacent
// advanced axes) or B + R (separated), so in both cases the block of b starts
// at b * stride_B in the output: one offsets array drives both the gather and
// the scatter.
#include "asc/ops/indexing.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <utility>

#include "asc/ops/iterator.h"
#include "asc/ops/registry.h"
#include "asc/runtime/device.h"
#include "ops/loops.h"
#include "runtime/parallel_for.h"

namespace asc::ops {
namespace {

using detail::load;
using detail::store;

// Below this many moved elements the work runs on the calling thread.
constexpr int64_t kParallelMin = 1 << 16;

int cores() { return runtime::current_device().properties().num_cores; }

/// runtime::parallel_for with this file's threshold.
template <typename Fn>
void parallel_for(const char* name, int64_t total, int64_t work, Fn&& fn) {
  runtime::parallel_for(name, total, work, kParallelMin, std::forward<Fn>(fn));
}

/// The first error raised by any block, rethrown on the calling thread.
struct FirstError {
  std::atomic<bool> set{false};
  std::mutex mu;
  std::string msg;
  void record(const std::string& m) {
    std::lock_guard<std::mutex> lock(mu);
    if (!set.load()) {
      msg = m;
      set.store(true);
    }
  }
};

std::string oob_message(int64_t i, int64_t axis, int64_t size) {
  return "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) + " with size " +
         std::to_string(size);
}

/// An integer index tensor as int64 (uint64 values above int64's range are
/// out of bounds for any axis: reported, not wrapped).
Tensor as_int64(const Tensor& idx, const std::string& op, int64_t axis, int64_t size) {
  if (idx.dtype() == DType::kInt64) return idx;
  if (idx.dtype() == DType::kUInt64 && idx.numel() > 0) {
    const Tensor c = idx.contiguous();
    const uint64_t* p = c.data_as<uint64_t>();
    for (int64_t i = 0; i < c.numel(); ++i)
      if (p[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw Error(Status::IndexError(op, "index " + std::to_string(p[i]) + " is out of bounds for axis " +
                                               std::to_string(axis) + " with size " + std::to_string(size)));
  }
  return cast(idx, DType::kInt64);
}

void check_index_dtype(const Tensor& t, const std::string& op) {
  if (!is_integer(t.dtype()) && t.dtype() != DType::kBool)
    throw Error(Status::IndexError(op, std::string("arrays used as indices must be of integer (or boolean) type, got ") +
                                           dtype_name(t.dtype())));
}

/// Normalises one index value against an axis of `size` for `mode`; false when out of bounds (kRaise).
inline bool normalize(int64_t& v, int64_t size, IndexMode mode) {
  switch (mode) {
    case IndexMode::kRaise:
      if (v < -size || v >= size) return false;
      if (v < 0) v += size;
      return true;
    case IndexMode::kWrap:
      v %= size;
      if (v < 0) v += size;
      return true;
    case IndexMode::kClip:
      v = v < 0 ? 0 : (v >= size ? size - 1 : v);
      return true;
  }
  return true;
}

// ------------------------------------------------------------------ element copies

/// Copies one element of kSize bytes (fixed-size memcpy: a single move). A
/// functor type, not a function pointer, so that the loops inline it.
template <size_t kSize>
struct CopyElem {
  void operator()(char* d, const char* s) const { std::memcpy(d, s, kSize); }
};

template <typename Fn>
void with_elem_copy(size_t item, Fn&& fn) {
  switch (item) {
    case 1: fn(CopyElem<1>{}); break;
    case 2: fn(CopyElem<2>{}); break;
    case 4: fn(CopyElem<4>{}); break;
    case 16: fn(CopyElem<16>{}); break;  // complex128
    default: fn(CopyElem<8>{}); break;
  }
}

// ------------------------------------------------------------------ the plan

struct Adv {
  int64_t dim;       // axis of the view V
  int64_t src_axis;  // axis of x named in error messages
  Tensor idx;        // int64 (normalised later against V's axis size)
};

struct Plan {
  Tensor view;  // x with the basic items applied (advanced axes kept whole)
  std::vector<Adv> adv;
  Shape bshape;          // broadcast shape of the index arrays
  bool adjacent = true;  // advanced axes consecutive in V: B replaces them in place
};

Plan make_plan(const Tensor& x, const std::vector<Index>& index, const std::string& op) {
  bool any_array = false;
  int64_t consumed = 0, ellipses = 0;
  for (const Index& it : index) {
    if (it.kind == Index::kArray) {
      any_array = true;
      check_index_dtype(it.array, op);
      consumed += it.array.dtype() == DType::kBool ? it.array.ndim() : 1;
    } else if (it.basic.kind == IndexItem::kInt || it.basic.kind == IndexItem::kSlice) {
      ++consumed;
    } else if (it.basic.kind == IndexItem::kEllipsis) {
      ++ellipses;
    }
  }
  if (ellipses > 1) throw Error(Status::IndexError(op, "an index can only have a single ellipsis ('...')"));
  if (consumed > x.ndim())
    throw Error(Status::IndexError(op, "too many indices for array: array is " + std::to_string(x.ndim()) +
                                           "-dimensional, but " + std::to_string(consumed) + " were indexed"));
  Plan plan;
  std::vector<IndexItem> basic;
  basic.reserve(index.size() + 4);
  int64_t vdim = 0, sdim = 0;  // next axis of V, of x
  for (const Index& it : index) {
    if (it.kind == Index::kBasic) {
      const IndexItem& b = it.basic;
      switch (b.kind) {
        case IndexItem::kEllipsis: {
          const int64_t n = x.ndim() - consumed;
          for (int64_t i = 0; i < n; ++i) basic.push_back(IndexItem::full());
          vdim += n;
          sdim += n;
          break;
        }
        case IndexItem::kNewAxis:
          basic.push_back(b);
          ++vdim;
          break;
        case IndexItem::kSlice:
          basic.push_back(b);
          ++vdim;
          ++sdim;
          break;
        case IndexItem::kInt:
          if (any_array) {  // an integer next to index arrays is a 0-d index array (NumPy)
            const int64_t size = x.shape()[static_cast<size_t>(sdim)];
            if (b.start < -size || b.start >= size) throw Error(Status::IndexError(op, oob_message(b.start, sdim, size)));
            Tensor t = Tensor::constant(DType::kInt64);
            *t.data_as<int64_t>() = b.start;
            basic.push_back(IndexItem::full());
            plan.adv.push_back({vdim, sdim, t});
            ++vdim;
          } else {
            basic.push_back(b);
          }
          ++sdim;
          break;
      }
      continue;
    }
    const Tensor& a = it.array;
    if (a.dtype() != DType::kBool) {
      basic.push_back(IndexItem::full());
      const int64_t size = x.shape()[static_cast<size_t>(sdim)];
      plan.adv.push_back({vdim, sdim, as_int64(a, op, sdim, size)});
      ++vdim;
      ++sdim;
    } else if (a.ndim() == 0) {
      // A 0-d boolean adds an axis of length 1 (true) or 0 (false): a new
      // axis indexed by [0] or [].
      basic.push_back(IndexItem::new_axis());
      const bool v = *a.data_as<bool>();
      Tensor t = Tensor::empty({v ? 1 : 0}, DType::kInt64);
      if (v) *t.data_as<int64_t>() = 0;
      plan.adv.push_back({vdim, -1, t});
      ++vdim;
    } else {
      // NumPy lets a mask axis of length 0 stand against any axis length (it selects nothing).
      for (int64_t k = 0; k < a.ndim(); ++k) {
        const int64_t have = x.shape()[static_cast<size_t>(sdim + k)], want = a.shape()[static_cast<size_t>(k)];
        if (have != want && want != 0)
          throw Error(Status::IndexError(op, "boolean index did not match indexed array along axis " +
                                                 std::to_string(sdim + k) + "; size of axis is " + std::to_string(have) +
                                                 " but size of corresponding boolean axis is " + std::to_string(want)));
      }
      std::vector<Tensor> pos = nonzero_positions(a);
      for (int64_t k = 0; k < a.ndim(); ++k) {
        basic.push_back(IndexItem::full());
        plan.adv.push_back({vdim, sdim, pos[static_cast<size_t>(k)]});
        ++vdim;
        ++sdim;
      }
    }
  }
  plan.view = x.index(basic);
  for (size_t i = 0; i < plan.adv.size(); ++i) {
    const Shape& s = plan.adv[i].idx.shape();
    if (i == 0) {
      plan.bshape = s;
      continue;
    }
    if (s == plan.bshape) continue;
    try {
      plan.bshape = broadcast_shapes(plan.bshape, s, op.c_str());
    } catch (const Error&) {
      // Shapes that broadcast to more than int64 elements: that ValueError as it is.
      bool compatible = true;
      for (size_t k = 1; k <= std::min(s.size(), plan.bshape.size()); ++k) {
        const int64_t x = s[s.size() - k], y = plan.bshape[plan.bshape.size() - k];
        compatible &= x == y || x == 1 || y == 1;
      }
      if (compatible) throw;
      std::string shapes;
      for (const Adv& a : plan.adv) shapes += " " + Tensor::shape_str(a.idx.shape());
      throw Error(Status::IndexError(op, "shape mismatch: indexing arrays could not be broadcast together with shapes" +
                                             shapes));
    }
    if (plan.adv[i].dim != plan.adv[i - 1].dim + 1) plan.adjacent = false;
  }
  for (size_t i = 1; i < plan.adv.size(); ++i)
    if (plan.adv[i].dim != plan.adv[i - 1].dim + 1) plan.adjacent = false;
  // NumPy separates advanced indices by any basic item between them in the
  // index tuple, even an Ellipsis that stands for no axis: x[:, [0], ..., 0]
  // puts the broadcast axes first.
  bool seen_adv = false, gap = false;
  for (const Index& it : index) {
    const bool adv = it.kind == Index::kArray || (any_array && it.basic.kind == IndexItem::kInt);
    if (adv) {
      if (seen_adv && gap) plan.adjacent = false;
      seen_adv = true;
      gap = false;
    } else if (seen_adv) {
      gap = true;
    }
  }
  return plan;
}

/// off[b] = sum over the index arrays of index[b] * stride (bytes), with bounds
/// checks (or wrap/clip). An int64 tensor of shape B, C-contiguous.
Tensor compute_offsets(const Plan& plan, IndexMode mode, const std::string& op) {
  Tensor off = Tensor::empty(plan.bshape, DType::kInt64);
  const int64_t nb = off.numel();
  if (nb == 0) return off;
  std::memset(off.data(), 0, static_cast<size_t>(nb) * 8);
  FirstError err;
  for (const Adv& a : plan.adv) {
    const int64_t size = plan.view.shape()[static_cast<size_t>(a.dim)];
    const int64_t stride = plan.view.strides()[static_cast<size_t>(a.dim)];
    if (size == 0 && mode != IndexMode::kRaise)
      throw Error(Status::IndexError(op, "cannot do a non-empty take from an empty axes."));
    const Tensor idx = a.idx.shape() == plan.bshape ? a.idx : a.idx.broadcast_to(plan.bshape);
    const int64_t* st[2] = {off.strides().data(), idx.strides().data()};
    StridedIter it(2, static_cast<int>(off.ndim()), off.shape().data(), st);
    char* base[2] = {reinterpret_cast<char*>(off.data()), reinterpret_cast<char*>(idx.data())};
    const int64_t axis = a.src_axis < 0 ? a.dim : a.src_axis;
    parallel_for("index_offsets", nb, nb, [&](int64_t lo, int64_t hi) {
      it.for_range(base, lo, hi, [&](char** p, const int64_t* s, int64_t n) {
        char* o = p[0];
        const char* q = p[1];
        const int64_t so = s[0], sq = s[1], sz = size, st = stride;
        const IndexMode md = mode;
        for (int64_t i = 0; i < n; ++i, o += so, q += sq) {
          int64_t v = load<int64_t>(q);
          if (!normalize(v, sz, md)) {
            err.record(oob_message(load<int64_t>(q), axis, sz));
            return;
          }
          store<int64_t>(o, load<int64_t>(o) + v * st);
        }
      });
    });
    if (err.set.load()) throw Error(Status::IndexError(op, err.msg));
  }
  return off;
}

/// The view V without its advanced axes (R) and the output geometry.
struct Layout {
  Shape out_shape;
  Tensor rest;           // V with the advanced axes removed (data() = V's element 0)
  Strides out_rest;      // byte strides of R's axes inside the output
  int64_t stride_b = 0;  // byte stride of one B position in the output
};

Layout make_layout(const Plan& plan) {
  const Tensor& v = plan.view;
  const int64_t item = static_cast<int64_t>(v.itemsize());
  DimVector is_adv(static_cast<size_t>(v.ndim()), 0);
  for (const Adv& a : plan.adv) is_adv[static_cast<size_t>(a.dim)] = 1;
  Shape rs;
  Strides rst;
  for (int64_t d = 0; d < v.ndim(); ++d)
    if (!is_adv[static_cast<size_t>(d)]) {
      rs.push_back(v.shape()[static_cast<size_t>(d)]);
      rst.push_back(v.strides()[static_cast<size_t>(d)]);
    }
  Layout l;
  l.rest = Tensor::view_of(v.storage(), v.dtype(), rs, rst, v.offset());
  // Positions of B inside the output: after `pre` rest axes (adjacent) or first.
  const size_t pre = plan.adjacent && !plan.adv.empty() ? static_cast<size_t>(plan.adv.front().dim) : 0;
  for (size_t i = 0; i < pre; ++i) l.out_shape.push_back(rs[i]);
  for (int64_t b : plan.bshape) l.out_shape.push_back(b);
  for (size_t i = pre; i < rs.size(); ++i) l.out_shape.push_back(rs[i]);
  const Strides cs = contiguous_strides(l.out_shape, item);
  for (size_t i = 0; i < pre; ++i) l.out_rest.push_back(cs[i]);
  for (size_t i = pre; i < rs.size(); ++i) l.out_rest.push_back(cs[i + plan.bshape.size()]);
  int64_t post = item;
  for (size_t i = pre; i < rs.size(); ++i) post *= rs[i];
  l.stride_b = post;
  return l;
}

/// For every b: copies the R-block between V (at off[b]) and the output
/// (at b * stride_b); `to_view` reverses the direction (scatter). A gather is
/// split across cores along B, a scatter only along R (repeated indices: the
/// last write wins, deterministically).
void move_blocks(const Layout& l, const Tensor& off, char* out_base, bool to_view, const char* name) {
  const int64_t nb = off.numel();
  const int64_t rn = l.rest.numel();
  if (nb == 0 || rn == 0) return;
  const int64_t* offs = off.data_as<int64_t>();
  char* vbase = reinterpret_cast<char*>(l.rest.data());
  const size_t item = l.rest.itemsize();
  if (l.rest.ndim() == 0) {  // element gather/scatter
    with_elem_copy(item, [&](auto copy) {
      // Locals, not captures: a char* store could alias a captured variable.
      const int64_t sb = l.stride_b;
      char* const vb = vbase;
      char* const ob = out_base;
      if (to_view) {
        for (int64_t b = 0; b < nb; ++b) copy(vb + offs[b], ob + b * sb);
        return;
      }
      parallel_for(name, nb, nb, [=](int64_t lo, int64_t hi) {
        for (int64_t b = lo; b < hi; ++b) copy(ob + b * sb, vb + offs[b]);
      });
    });
    return;
  }
  const int64_t isz = static_cast<int64_t>(item);
  if (l.rest.is_contiguous() && l.out_rest == l.rest.strides()) {
    // Whole contiguous sub-blocks (rows of x[rows]): one memcpy each.
    const size_t bytes = static_cast<size_t>(rn * isz);
    const int64_t sb = l.stride_b;
    if (to_view) {
      for (int64_t b = 0; b < nb; ++b) std::memmove(vbase + offs[b], out_base + b * sb, bytes);
      return;
    }
    parallel_for(name, nb, nb * rn, [=](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) std::memcpy(out_base + b * sb, vbase + offs[b], bytes);
    });
    return;
  }
  const int64_t* st[2] = {l.out_rest.data(), l.rest.strides().data()};
  StridedIter it(2, static_cast<int>(l.rest.ndim()), l.rest.shape().data(), st);
  auto block = [&](int64_t b, int64_t lo, int64_t hi) {
    char* base[2] = {out_base + b * l.stride_b, vbase + offs[b]};
    it.for_range(base, lo, hi, [&](char** p, const int64_t* s, int64_t n) {
      char* o = p[0];
      char* v = p[1];
      if (s[0] == isz && s[1] == isz) {
        if (to_view) std::memmove(v, o, static_cast<size_t>(n * isz));
        else std::memcpy(o, v, static_cast<size_t>(n * isz));
        return;
      }
      with_elem_copy(item, [&](auto copy) {
        for (int64_t i = 0; i < n; ++i, o += s[0], v += s[1]) to_view ? copy(v, o) : copy(o, v);
      });
    });
  };
  if (!to_view && nb >= 2 * cores()) {
    parallel_for(name, nb, nb * rn, [&](int64_t lo, int64_t hi) {
      for (int64_t b = lo; b < hi; ++b) block(b, 0, rn);
    });
    return;
  }
  parallel_for(name, rn, nb * rn, [&](int64_t lo, int64_t hi) {
    for (int64_t b = 0; b < nb; ++b) block(b, lo, hi);
  });
}

/// `value` made ready for writing into a region of `shape` of x: cast to
/// x's dtype, leading size-1 axes dropped, broadcast (NumPy's setitem rule),
/// copied first when it shares memory with x.
Tensor prepare_value(const Tensor& x, const Tensor& value, const Shape& shape, const std::string& op) {
  Tensor v = value;
  while (v.ndim() > static_cast<int64_t>(shape.size()) && v.shape()[0] == 1) v = v.select(0, 0);
  bool ok = v.ndim() <= static_cast<int64_t>(shape.size());
  for (int64_t i = 1; ok && i <= v.ndim(); ++i) {
    const int64_t a = v.shape()[static_cast<size_t>(v.ndim() - i)], b = shape[shape.size() - static_cast<size_t>(i)];
    ok = a == b || a == 1;
  }
  if (!ok)
    throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                             "shape mismatch: value array of shape " + Tensor::shape_str(value.shape()) +
                                 " could not be broadcast to indexing result of shape " + Tensor::shape_str(shape)));
  if (v.dtype() != x.dtype()) v = cast(v, x.dtype());
  else if (v.storage() == x.storage()) v = v.clone();
  return v.shape() == shape ? v : v.broadcast_to(shape);
}

}  // namespace

// ------------------------------------------------------------------ nonzero

std::vector<Tensor> nonzero_positions(const Tensor& x_in) {
  // A complex value is nonzero when either part is (-0-0j is zero, a NaN part counts): the
  // complex -> bool cast is that test; the bit tests below would count -0.0 in the real part.
  const Tensor xr = is_complex(x_in.dtype()) ? cast(x_in, DType::kBool) : x_in;
  const Tensor x = xr.ndim() == 0 ? xr.reshape({1}) : xr;
  const int64_t n = x.numel();
  const int64_t nd = x.ndim();
  const int c = n >= kParallelMin ? std::max(1, cores()) : 1;
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(c, n));
  std::vector<int64_t> counts(static_cast<size_t>(blocks) + 1, 0);
  const int64_t* st[1] = {x.strides().data()};
  StridedIter it(1, static_cast<int>(nd), x.shape().data(), st);
  char* base[1] = {reinterpret_cast<char*>(x.data())};
  const size_t item = x.itemsize();
  auto nz = [item](const char* p) {
    switch (item) {
      case 1: return load<uint8_t>(p) != 0;
      case 2: return (load<uint16_t>(p) & 0x7fffu) != 0;  // +-0 of float16/bfloat16 are zero
      case 4: return (load<uint32_t>(p) & 0x7fffffffu) != 0;
      default: return (load<uint64_t>(p) & 0x7fffffffffffffffull) != 0;
    }
  };
  const bool is_float = is_floating(x.dtype());
  auto is_nonzero = [&](const char* p) {
    if (is_float) return nz(p);
    switch (item) {
      case 1: return load<uint8_t>(p) != 0;
      case 2: return load<uint16_t>(p) != 0;
      case 4: return load<uint32_t>(p) != 0;
      default: return load<uint64_t>(p) != 0;
    }
  };
  auto run = [&](const char* name, auto&& body) {
    if (blocks == 1) {
      body(0);
      return;
    }
    runtime::KernelInvocation inv;
    inv.name = name;
    inv.block_dim = static_cast<uint32_t>(blocks);
    inv.body = [&](const runtime::BlockContext& ctx) { body(static_cast<int64_t>(ctx.block_idx)); };
    runtime::current_device().run_kernel(inv).ThrowIfError();
  };
  run("nonzero_count", [&](int64_t b) {
    int64_t cnt = 0;
    it.for_range(base, n * b / blocks, n * (b + 1) / blocks, [&](char** p, const int64_t* s, int64_t m) {
      const char* q = p[0];
      for (int64_t i = 0; i < m; ++i, q += s[0]) cnt += is_nonzero(q);
    });
    counts[static_cast<size_t>(b) + 1] = cnt;
  });
  for (int64_t b = 0; b < blocks; ++b) counts[static_cast<size_t>(b) + 1] += counts[static_cast<size_t>(b)];
  const int64_t total = counts.back();
  // Flat C-order positions first; a multi-axis x is unravelled afterwards.
  Tensor flat = Tensor::empty({total}, DType::kInt64);
  int64_t* fp = flat.data_as<int64_t>();
  run("nonzero_fill", [&](int64_t b) {
    int64_t w = counts[static_cast<size_t>(b)];
    int64_t pos = n * b / blocks;
    it.for_range(base, n * b / blocks, n * (b + 1) / blocks, [&](char** p, const int64_t* s, int64_t m) {
      const char* q = p[0];
      for (int64_t i = 0; i < m; ++i, q += s[0], ++pos)
        if (is_nonzero(q)) fp[w++] = pos;
    });
  });
  std::vector<Tensor> out;
  if (nd == 1) {
    out.push_back(flat);
    return out;
  }
  for (int64_t d = 0; d < nd; ++d) out.push_back(Tensor::empty({total}, DType::kInt64));
  for (int64_t i = 0; i < total; ++i) {
    int64_t rem = fp[i];
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t sz = x.shape()[static_cast<size_t>(d)];
      out[static_cast<size_t>(d)].data_as<int64_t>()[i] = rem % sz;
      rem /= sz;
    }
  }
  return out;
}

// ------------------------------------------------------------------ getitem, setitem

namespace {
bool basic_only(const std::vector<Index>& index) {
  for (const Index& i : index)
    if (i.kind == Index::kArray) return false;
  return true;
}
std::vector<IndexItem> basic_items(const std::vector<Index>& index) {
  std::vector<IndexItem> items;
  items.reserve(index.size());
  for (const Index& i : index) items.push_back(i.basic);
  return items;
}
}  // namespace

namespace {
/// out[i] = src[norm(idx[i]) * stride] over one strided run. Everything the
/// loop reads is a local (a lambda capture would be reloaded after every
/// char* store, which may alias it). False with *bad set on an index out of bounds.
template <typename Copy>
bool gather_run(Copy copy, char* o, int64_t so, const char* q, int64_t sq, int64_t n, const char* src,
                int64_t stride, int64_t size, IndexMode mode, int64_t* bad) {
  if (mode == IndexMode::kRaise) {
    for (int64_t i = 0; i < n; ++i, o += so, q += sq) {
      int64_t v = load<int64_t>(q);
      // v outside [-size, size), in unsigned arithmetic (wraps, never overflows)
      if (static_cast<uint64_t>(v) + static_cast<uint64_t>(size) >= static_cast<uint64_t>(2 * size)) {
        *bad = v;
        return false;
      }
      v += v < 0 ? size : 0;
      copy(o, src + v * stride);
    }
    return true;
  }
  for (int64_t i = 0; i < n; ++i, o += so, q += sq) {
    int64_t v = load<int64_t>(q);
    normalize(v, size, mode);
    copy(o, src + v * stride);
  }
  return true;
}

/// One index array selecting single elements (x[idx] on a 1-d x, the common
/// case): bounds check, offset and copy in one pass over the indices.
Tensor gather_elements(const Plan& plan, const Layout& l, IndexMode mode, const char* op) {
  const Adv& a = plan.adv.front();
  const int64_t size = plan.view.shape()[static_cast<size_t>(a.dim)];
  const int64_t stride = plan.view.strides()[static_cast<size_t>(a.dim)];
  Tensor out = Tensor::empty(l.out_shape, plan.view.dtype());
  const int64_t nb = out.numel();
  if (nb == 0) return out;
  if (size == 0 && mode != IndexMode::kRaise)
    throw Error(Status::IndexError(op, "cannot do a non-empty take from an empty axes."));
  const int64_t* st[2] = {out.strides().data(), a.idx.strides().data()};
  StridedIter it(2, static_cast<int>(out.ndim()), out.shape().data(), st);
  char* base[2] = {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(a.idx.data())};
  const char* src = reinterpret_cast<const char*>(l.rest.data());
  const int64_t axis = a.src_axis < 0 ? a.dim : a.src_axis;
  FirstError err;
  with_elem_copy(out.itemsize(), [&](auto copy) {
    parallel_for(op, nb, nb, [&](int64_t lo, int64_t hi) {
      it.for_range(base, lo, hi, [&](char** p, const int64_t* s, int64_t n) {
        int64_t bad;
        if (!gather_run(copy, p[0], s[0], p[1], s[1], n, src, stride, size, mode, &bad))
          err.record(oob_message(bad, axis, size));
      });
    });
  });
  if (err.set.load()) throw Error(Status::IndexError(op, err.msg));
  return out;
}
}  // namespace

namespace {
/// x[mask] with a mask of x's shape (x[x > 0]): per block a count pass over
/// the mask, then a pass that copies the selected elements, in C order.
Tensor masked_select(const Tensor& x, const Tensor& mask) {
  const int64_t n = x.numel();
  const int c = n >= kParallelMin ? std::max(1, cores()) : 1;
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(c, n));
  const int64_t* st[2] = {mask.strides().data(), x.strides().data()};
  StridedIter it(2, static_cast<int>(x.ndim()), x.shape().data(), st);
  char* base[2] = {reinterpret_cast<char*>(mask.data()), reinterpret_cast<char*>(x.data())};
  std::vector<int64_t> counts(static_cast<size_t>(blocks) + 1, 0);
  auto run = [&](const char* name, auto&& body) {
    if (blocks == 1) return body(int64_t{0});
    runtime::KernelInvocation inv;
    inv.name = name;
    inv.block_dim = static_cast<uint32_t>(blocks);
    inv.body = [&](const runtime::BlockContext& ctx) { body(static_cast<int64_t>(ctx.block_idx)); };
    runtime::current_device().run_kernel(inv).ThrowIfError();
  };
  run("mask_count", [&](int64_t b) {
    int64_t cnt = 0;
    it.for_range(base, n * b / blocks, n * (b + 1) / blocks, [&](char** p, const int64_t* s, int64_t m) {
      const char* q = p[0];
      if (s[0] == 1) {
        for (int64_t i = 0; i < m; ++i) cnt += q[i] != 0;
        return;
      }
      for (int64_t i = 0; i < m; ++i, q += s[0]) cnt += *q != 0;
    });
    counts[static_cast<size_t>(b) + 1] = cnt;
  });
  for (int64_t b = 0; b < blocks; ++b) counts[static_cast<size_t>(b) + 1] += counts[static_cast<size_t>(b)];
  Tensor out = Tensor::empty({counts.back()}, x.dtype());
  char* ob = reinterpret_cast<char*>(out.data());
  const int64_t item = static_cast<int64_t>(x.itemsize());
  with_elem_copy(x.itemsize(), [&](auto copy) {
    run("mask_select", [&](int64_t b) {
      char* o = ob + counts[static_cast<size_t>(b)] * item;
      it.for_range(base, n * b / blocks, n * (b + 1) / blocks, [&](char** p, const int64_t* s, int64_t m) {
        const char* q = p[0];
        const char* v = p[1];
        for (int64_t i = 0; i < m; ++i, q += s[0], v += s[1]) {
          if (*q != 0) {
            copy(o, v);
            o += item;
          }
        }
      });
    });
  });
  return out;
}
}  // namespace

Tensor getitem(const Tensor& x, const std::vector<Index>& index) {
  if (basic_only(index)) return x.index(basic_items(index));
  if (index.size() == 1 && index[0].array.dtype() == DType::kBool && index[0].array.ndim() > 0 &&
      index[0].array.shape() == x.shape())
    return masked_select(x, index[0].array);
  const Plan plan = make_plan(x, index, "getitem");
  const Layout l = make_layout(plan);
  if (plan.adv.size() == 1 && l.rest.ndim() == 0 && plan.adv.front().idx.shape() == plan.bshape)
    return gather_elements(plan, l, IndexMode::kRaise, "getitem");
  const Tensor off = compute_offsets(plan, IndexMode::kRaise, "getitem");
  Tensor out = Tensor::empty(l.out_shape, x.dtype());
  move_blocks(l, off, reinterpret_cast<char*>(out.data()), false, "getitem");
  return out;
}

namespace {
/// x[idx] = v for one index array selecting single elements: a bounds-check
/// pass over the indices (nothing is written when one is out of bounds), then
/// one serial scatter pass (repeated indices: the last write wins).
void scatter_elements(const Plan& plan, const Layout& l, const Tensor& v) {
  const Adv& a = plan.adv.front();
  const int64_t size = plan.view.shape()[static_cast<size_t>(a.dim)];
  const int64_t stride = plan.view.strides()[static_cast<size_t>(a.dim)];
  const Tensor idx = a.idx.shape() == plan.bshape ? a.idx : a.idx.broadcast_to(plan.bshape);
  const int64_t nb = idx.numel();
  if (nb == 0) return;
  const int64_t* st[2] = {v.strides().data(), idx.strides().data()};
  StridedIter it(2, static_cast<int>(idx.ndim()), idx.shape().data(), st);
  char* base[2] = {reinterpret_cast<char*>(v.data()), reinterpret_cast<char*>(idx.data())};
  const int64_t axis = a.src_axis < 0 ? a.dim : a.src_axis;
  it.for_range(base, 0, nb, [size, axis](char** p, const int64_t* s, int64_t n) {
    const char* q = p[1];
    const int64_t sq = s[1];
    for (int64_t i = 0; i < n; ++i, q += sq) {
      const int64_t k = load<int64_t>(q);
      if (static_cast<uint64_t>(k) + static_cast<uint64_t>(size) >= static_cast<uint64_t>(2 * size))
        throw Error(Status::IndexError("setitem", oob_message(k, axis, size)));
    }
  });
  char* dst = reinterpret_cast<char*>(l.rest.data());
  with_elem_copy(v.itemsize(), [&](auto copy) {
    it.for_range(base, 0, nb, [=](char** p, const int64_t* s, int64_t n) {
      const char* w = p[0];
      const char* q = p[1];
      const int64_t sw = s[0], sq = s[1];
      for (int64_t i = 0; i < n; ++i, w += sw, q += sq) {
        int64_t k = load<int64_t>(q);
        k += k < 0 ? size : 0;
        copy(dst + k * stride, w);
      }
    });
  });
}
}  // namespace

void setitem(const Tensor& x, const std::vector<Index>& index, const Tensor& value) {
  x.check_writeable("setitem");
  if (basic_only(index)) {
    const Tensor view = x.index(basic_items(index));
    view.copy_from(prepare_value(x, value, view.shape(), "setitem"));
    return;
  }
  const Plan plan = make_plan(x, index, "setitem");
  const Layout l = make_layout(plan);
  if (plan.adv.size() == 1 && l.rest.ndim() == 0) {
    scatter_elements(plan, l, prepare_value(x, value, l.out_shape, "setitem"));
    return;
  }
  const Tensor off = compute_offsets(plan, IndexMode::kRaise, "setitem");
  Tensor v = prepare_value(x, value, l.out_shape, "setitem");
  if (off.numel() == 0 || l.rest.numel() == 0) return;
  // The scatter reads the value in the output's contiguous layout.
  if (!v.is_contiguous()) v = v.clone();
  move_blocks(l, off, reinterpret_cast<char*>(v.data()), true, "setitem");
}

// ------------------------------------------------------------------ take, put

Tensor take(const Tensor& x_in, const Tensor& indices_in, int64_t axis, bool flat, IndexMode mode) {
  // bool casts safely to the index type (NumPy takes False/True as 0/1).
  const Tensor indices = indices_in.dtype() == DType::kBool ? cast(indices_in, DType::kInt64) : indices_in;
  if (!is_integer(indices.dtype()))
    throw Error(Status::TypeError("take", std::string("Cannot cast array data from dtype('") +
                                              dtype_name(indices.dtype()) + "') to dtype('int64') according to the rule 'safe'"));
  const Tensor x = flat ? x_in.reshape({-1}) : x_in;
  if (flat) axis = 0;
  axis = normalize_axis(axis, x.ndim(), "take");
  Plan plan;
  plan.view = x;
  const int64_t size = x.shape()[static_cast<size_t>(axis)];
  plan.adv.push_back({axis, axis, as_int64(indices, "take", axis, size)});
  plan.bshape = indices.shape();
  const Layout l = make_layout(plan);
  if (l.rest.ndim() == 0) return gather_elements(plan, l, mode, "take");
  const Tensor off = compute_offsets(plan, mode, "take");
  Tensor out = Tensor::empty(l.out_shape, x.dtype());
  move_blocks(l, off, reinterpret_cast<char*>(out.data()), false, "take");
  return out;
}

namespace {

/// Shapes of take_along_axis: out[d] = broadcast(x[d], idx[d]) for d != axis, idx[axis] on the axis.
Shape along_shape(const Tensor& x, const Tensor& idx, int64_t axis, const char* op) {
  if (!is_integer(idx.dtype())) throw Error(Status::IndexError(op, "`indices` must be an integer array"));
  if (idx.ndim() != x.ndim())
    throw Error(Status::Invalid(op, "`indices` and `arr` must have the same number of dimensions"));
  Shape s(static_cast<size_t>(x.ndim()));
  for (int64_t d = 0; d < x.ndim(); ++d) {
    const int64_t a = x.shape()[static_cast<size_t>(d)], b = idx.shape()[static_cast<size_t>(d)];
    if (d == axis) {
      s[static_cast<size_t>(d)] = b;
    } else if (a == b || b == 1 || a == 1) {
      s[static_cast<size_t>(d)] = a == 1 ? b : a;
    } else {
      // NumPy indexes arr with the indices and an arange per other axis: the fancy index's
      // broadcast fails, an IndexError (before the indices are converted to intp)
      throw Error(Status::IndexError(op, "shape mismatch: indexing arrays could not be broadcast together with shapes " +
                                             Tensor::shape_str(x.shape()) + " " + Tensor::shape_str(idx.shape())));
    }
  }
  return s;
}

/// x viewed with `shape` (broadcast on the other axes, stride 0 along `axis`).
Tensor along_base(const Tensor& x, const Shape& shape, int64_t axis) {
  Strides st(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    st[d] = (static_cast<int64_t>(d) == axis || x.shape()[d] == 1) ? 0 : x.strides()[d];
  return Tensor::view_of(x.storage(), x.dtype(), shape, st, x.offset());
}

}  // namespace

Tensor take_along_axis(const Tensor& x_in, const Tensor& indices, int64_t axis, bool flat) {
  const Tensor x = flat ? x_in.reshape({-1}) : x_in;
  if (flat) {
    if (indices.ndim() != 1)
      throw Error(Status::Invalid("take_along_axis", "when axis=None, `indices` must have a single dimension."));
    axis = 0;
  }
  axis = normalize_axis(axis, x.ndim(), "take_along_axis");
  const Shape shape = along_shape(x, indices, axis, "take_along_axis");
  const int64_t size = x.shape()[static_cast<size_t>(axis)];
  const Tensor idx = as_int64(indices, "take_along_axis", axis, size).broadcast_to(shape);
  const Tensor src = along_base(x, shape, axis);
  Tensor out = Tensor::empty(shape, x.dtype());
  if (out.numel() == 0) return out;
  const int64_t stride = x.strides()[static_cast<size_t>(axis)];
  const int64_t* st[3] = {out.strides().data(), idx.strides().data(), src.strides().data()};
  StridedIter it(3, static_cast<int>(out.ndim()), out.shape().data(), st);
  char* base[3] = {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(idx.data()),
                   reinterpret_cast<char*>(src.data())};
  FirstError err;
  with_elem_copy(x.itemsize(), [&](auto copy) {
    parallel_for("take_along_axis", it.size(), it.size(), [&](int64_t lo, int64_t hi) {
      it.for_range(base, lo, hi, [&](char** p, const int64_t* s, int64_t n) {
        char* o = p[0];
        const char* q = p[1];
        const char* v = p[2];
        for (int64_t i = 0; i < n; ++i, o += s[0], q += s[1], v += s[2]) {
          int64_t k = load<int64_t>(q);
          if (!normalize(k, size, IndexMode::kRaise)) {
            err.record(oob_message(k, axis, size));
            return;
          }
          copy(o, v + k * stride);
        }
      });
    });
  });
  if (err.set.load()) throw Error(Status::IndexError("take_along_axis", err.msg));
  return out;
}

void put_along_axis(const Tensor& x_in, const Tensor& indices, const Tensor& values, int64_t axis, bool flat) {
  x_in.check_writeable("put_along_axis");
  Tensor x = x_in;
  if (flat) {
    if (!x_in.is_contiguous())
      throw Error(Status::Invalid("put_along_axis", "axis=None needs a contiguous array to write through"));
    x = x_in.reshape({-1});
    axis = 0;
  }
  axis = normalize_axis(axis, x.ndim(), "put_along_axis");
  const Shape shape = along_shape(x, indices, axis, "put_along_axis");
  const int64_t size = x.shape()[static_cast<size_t>(axis)];
  const Tensor idx = as_int64(indices, "put_along_axis", axis, size).broadcast_to(shape);
  Tensor v = values.dtype() == x.dtype() ? values : cast(values, x.dtype());
  if (v.storage() == x.storage()) v = v.clone();
  try {
    v = v.broadcast_to(shape);
  } catch (const Error&) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, "put_along_axis",
                             "shape mismatch: value array of shape " + Tensor::shape_str(values.shape()) +
                                 " could not be broadcast to indexing result of shape " + Tensor::shape_str(shape)));
  }
  const Tensor dst = along_base(x, shape, axis);
  if (dst.numel() == 0) return;
  const int64_t stride = x.strides()[static_cast<size_t>(axis)];
  const int64_t* st[3] = {dst.strides().data(), idx.strides().data(), v.strides().data()};
  StridedIter it(3, static_cast<int>(dst.ndim()), dst.shape().data(), st);
  char* base[3] = {reinterpret_cast<char*>(dst.data()), reinterpret_cast<char*>(idx.data()),
                   reinterpret_cast<char*>(v.data())};
  // Serial: repeated indices must give NumPy's last-write-wins result.
  with_elem_copy(x.itemsize(), [&](auto copy) {
    it.for_range(base, 0, it.size(), [&](char** p, const int64_t* s, int64_t n) {
      char* o = p[0];
      const char* q = p[1];
      const char* w = p[2];
      for (int64_t i = 0; i < n; ++i, o += s[0], q += s[1], w += s[2]) {
        int64_t k = load<int64_t>(q);
        if (!normalize(k, size, IndexMode::kRaise))
          throw Error(Status::IndexError("put_along_axis", oob_message(k, axis, size)));
        copy(o + k * stride, w);
      }
    });
  });
}

void put(const Tensor& x, const Tensor& indices, const Tensor& values, IndexMode mode) {
  x.check_writeable("put");
  if (!is_integer(indices.dtype()))
    throw Error(Status::TypeError("put", std::string("Cannot cast array data from dtype('") +
                                             dtype_name(indices.dtype()) + "') to dtype('int64') according to the rule 'safe'"));
  const int64_t n = x.numel();
  const Tensor idx = as_int64(indices, "put", 0, n).contiguous();
  const int64_t ni = idx.numel();
  if (ni == 0) return;
  Tensor v = values.dtype() == x.dtype() ? values : cast(values, x.dtype());
  v = v.clone();  // flat C order, and never aliasing x
  const int64_t nv = v.numel();
  if (nv == 0) return;
  if (n == 0 && mode != IndexMode::kRaise)
    throw Error(Status::IndexError("put", "cannot replace elements of an empty array"));
  const int64_t* ip = idx.data_as<int64_t>();
  const char* vp = reinterpret_cast<const char*>(v.data());
  const int64_t item = static_cast<int64_t>(x.itemsize());
  char* xb = reinterpret_cast<char*>(x.data());
  const bool contig = x.is_contiguous();
  with_elem_copy(x.itemsize(), [&](auto copy) {
    for (int64_t i = 0; i < ni; ++i) {
      int64_t k = ip[i];
      if (!normalize(k, n, mode))
        throw Error(Status::IndexError("put", "index " + std::to_string(ip[i]) + " is out of bounds for axis 0 with size " +
                                                  std::to_string(n)));
      int64_t off;
      if (contig) {
        off = k * item;
      } else {
        off = 0;
        for (int64_t d = x.ndim() - 1; d >= 0; --d) {
          const int64_t sz = x.shape()[static_cast<size_t>(d)];
          off += (k % sz) * x.strides()[static_cast<size_t>(d)];
          k /= sz;
        }
      }
      copy(xb + off, vp + (i % nv) * item);
    }
  });
}

}  // namespace asc::ops
