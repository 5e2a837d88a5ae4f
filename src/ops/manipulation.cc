// concatenate, repeat and the parallel strided copy they use. See
// asc/ops/manipulation.h.
#include "asc/ops/manipulation.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "asc/ops/indexing.h"
#include "asc/ops/iterator.h"
#include "asc/ops/registry.h"
#include "asc/runtime/device.h"

namespace asc::ops {
namespace {

constexpr int64_t kParallelMin = 1 << 16;

void check_same_kind(DType from, DType to, const char* op) {
  if (!can_cast_same_kind(from, to))
    throw Error(Status::TypeError(op, std::string("Cannot cast array data from dtype('") + dtype_name(from) +
                                          "') to dtype('" + dtype_name(to) + "') according to the rule 'same_kind'"));
}

}  // namespace

void copy_into(const Tensor& dst, const Tensor& src_in) {
  const Tensor src = (src_in.dtype() == dst.dtype() ? src_in : cast(src_in, dst.dtype())).broadcast_to(dst.shape());
  const int64_t n = dst.numel();
  if (n == 0) return;
  const int cores = runtime::current_device().properties().num_cores;
  if (n < kParallelMin || cores <= 1) {
    dst.copy_from(src);
    return;
  }
  const int64_t* st[2] = {dst.strides().data(), src.strides().data()};
  StridedIter it(2, static_cast<int>(dst.ndim()), dst.shape().data(), st);
  char* base[2] = {reinterpret_cast<char*>(dst.data()), reinterpret_cast<char*>(src.data())};
  const int64_t item = static_cast<int64_t>(dst.itemsize());
  const int64_t blocks = std::min<int64_t>(cores, n / (kParallelMin / 2));
  runtime::KernelInvocation inv;
  inv.name = "copy";
  inv.block_dim = static_cast<uint32_t>(blocks);
  inv.body = [&](const runtime::BlockContext& ctx) {
    const int64_t b = ctx.block_idx;
    it.for_range(base, n * b / blocks, n * (b + 1) / blocks, [item](char** p, const int64_t* s, int64_t m) {
      if (s[0] == item && s[1] == item) {
        std::memcpy(p[0], p[1], static_cast<size_t>(m * item));
        return;
      }
      char* d = p[0];
      const char* q = p[1];
      for (int64_t i = 0; i < m; ++i, d += s[0], q += s[1]) std::memcpy(d, q, static_cast<size_t>(item));
    });
  };
  runtime::current_device().run_kernel(inv).ThrowIfError();
}

Tensor concatenate(const std::vector<Tensor>& xs_in, int64_t axis, bool flat, const DType* dtype, const Tensor* out) {
  if (xs_in.empty()) throw Error(Status::Invalid("concatenate", "need at least one array to concatenate"));
  std::vector<Tensor> xs;
  xs.reserve(xs_in.size());
  for (const Tensor& x : xs_in) xs.push_back(flat ? x.reshape({-1}) : x);
  if (flat) axis = 0;
  const int64_t nd = xs[0].ndim();
  if (nd == 0) throw Error(Status::Invalid("concatenate", "zero-dimensional arrays cannot be concatenated"));
  axis = normalize_axis(axis, nd, "concatenate");
  Shape shape = xs[0].shape();
  DType rd = xs[0].dtype();
  for (size_t i = 1; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    if (x.ndim() != nd)
      throw Error(Status::Invalid("concatenate", "all the input arrays must have same number of dimensions, but the "
                                                 "array at index 0 has " + std::to_string(nd) +
                                                     " dimension(s) and the array at index " + std::to_string(i) +
                                                     " has " + std::to_string(x.ndim()) + " dimension(s)"));
    for (int64_t d = 0; d < nd; ++d) {
      if (d == axis) continue;
      if (x.shape()[static_cast<size_t>(d)] != shape[static_cast<size_t>(d)])
        throw Error(Status::Invalid(
            "concatenate", "all the input array dimensions except for the concatenation axis must match exactly, but "
                           "along dimension " + std::to_string(d) + ", the array at index 0 has size " +
                               std::to_string(shape[static_cast<size_t>(d)]) + " and the array at index " +
                               std::to_string(i) + " has size " + std::to_string(x.shape()[static_cast<size_t>(d)])));
    }
    shape[static_cast<size_t>(axis)] =
        checked_add(shape[static_cast<size_t>(axis)], x.shape()[static_cast<size_t>(axis)], "concatenate");
    rd = promote_or_throw(rd, x.dtype(), "concatenate");
  }
  if (dtype) {
    rd = *dtype;
    for (const Tensor& x : xs) check_same_kind(x.dtype(), rd, "concatenate");
  }
  Tensor res;
  if (out) {
    if (out->shape() != shape)
      throw Error(Status::Make(ErrorCode::kInvalidShape, "concatenate",
                               "Output array is the wrong shape: " + Tensor::shape_str(out->shape()) + " vs " +
                                   Tensor::shape_str(shape)));
    for (const Tensor& x : xs) check_same_kind(x.dtype(), out->dtype(), "concatenate");
    res = *out;
  } else {
    res = Tensor::empty(shape, rd);
  }
  int64_t off = 0;
  for (const Tensor& x : xs) {
    const int64_t n = x.shape()[static_cast<size_t>(axis)];
    if (n == 0) continue;
    Tensor src = x;
    if (out && src.storage() == out->storage()) src = src.clone();  // concatenate([a, b], out=a[...])
    // Through the result dtype first, as NumPy casts each input to it.
    if (src.dtype() != rd) src = cast(src, rd);
    copy_into(res.slice(axis, off, off + n, 1), src);
    off += n;
  }
  return out ? *out : res;
}

Tensor repeat(const Tensor& x_in, const Tensor& repeats_in, int64_t axis, bool flat) {
  const Tensor x = flat ? x_in.reshape({-1}) : x_in;
  if (flat) axis = 0;
  if (x.ndim() == 0) throw Error(Status::Invalid("repeat", "axis out of bounds for a 0-d array"));
  axis = normalize_axis(axis, x.ndim(), "repeat");
  if (!is_integer(repeats_in.dtype()) && repeats_in.dtype() != DType::kBool)
    throw Error(Status::TypeError("repeat", std::string("Cannot cast array data from dtype('") +
                                                dtype_name(repeats_in.dtype()) +
                                                "') to dtype('int64') according to the rule 'safe'"));
  if (repeats_in.ndim() > 1) throw Error(Status::Invalid("repeat", "repeats must be 0-d or 1-d"));
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  const Tensor rep = cast(repeats_in, DType::kInt64).contiguous();
  if (rep.ndim() == 1 && rep.numel() != n && rep.numel() != 1)
    throw Error(Status::Make(ErrorCode::kInvalidShape, "repeat",
                             "operands could not be broadcast together with shape (" + std::to_string(n) + ",) (" +
                                 std::to_string(rep.numel()) + ",)"));
  const int64_t* rp = rep.data_as<int64_t>();
  const bool scalar = rep.numel() == 1;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rp[scalar ? 0 : i];
    if (r < 0) throw Error(Status::Invalid("repeat", "negative dimensions are not allowed"));
    total = checked_add(total, r, "repeat");  // 4 x 2**62 wraps to 0: ValueError, not 2**64 writes
  }
  // The result (and the int64 index list) must have a representable byte size.
  Shape rs = x.shape();
  rs[static_cast<size_t>(axis)] = total;
  checked_nbytes(rs, x.itemsize(), "repeat");
  checked_nbytes({total}, sizeof(int64_t), "repeat");
  if (n == 0 && scalar && rp[0] < 0) throw Error(Status::Invalid("repeat", "negative dimensions are not allowed"));
  Tensor idx = Tensor::empty({total}, DType::kInt64);
  int64_t* ip = idx.data_as<int64_t>();
  for (int64_t i = 0, w = 0; i < n; ++i)
    for (int64_t k = rp[scalar ? 0 : i]; k > 0; --k) ip[w++] = i;
  return take(x, idx, axis, false);
}

}  // namespace asc::ops
