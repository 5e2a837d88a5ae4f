// Random numbers: a counter-based generator (Philox-4x32-10, Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011) and the
// distributions of pyasc.random, as opaque registry ops without inputs.
//
// A draw is described by Attrs: key[0] (the 64-bit Philox key), key[1] (the
// upper 64 bits of the 128-bit counter: a stream id), counter (the first
// counter block of this draw), shape and dtype. Element i of the output uses
// counter block `counter + i / k` (k elements per 128-bit block: 4 for 32-bit
// draws, 2 for 64-bit draws, 1 for 128-bit ones), so every value depends only
// on the key and its position: blocks of the output are generated on all cores
// and the result is the same for any core count or split. The Python layer
// advances its counter by the element count after each draw (at least the
// blocks used), so successive draws never share counter blocks.
//
// Conversions: float64 uniforms take 53 bits ((x >> 11) * 2^-53, in [0, 1));
// float32 uniforms 24 bits; normals are Box-Muller pairs from one block;
// bounded integers are floor(x * range / 2^64) of a 64-bit x for ranges up to
// 2^32 (bias below 2^-32) and of a 128-bit x otherwise (bias below 2^-64).
#include <cmath>
#include <cstring>
#include <vector>

#include "asc/ops/registry.h"
#include "ops/loops.h"
#include "ops/sorting.h"

namespace asc::ops::sorting {
namespace {

using u128 = unsigned __int128;

/// Philox-4x32-10 of counter (c0..c3) under key (k0, k1).
inline void philox(uint32_t c[4], uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = uint64_t(kM0) * c[0], p1 = uint64_t(kM1) * c[2];
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1;
    c[1] = static_cast<uint32_t>(p1);
    c[3] = static_cast<uint32_t>(p0);
    c[0] = n0;
    c[2] = n2;
    k0 += kW0;
    k1 += kW1;
  }
}

/// The four words of counter block `block` of the stream in attrs.
struct Stream {
  uint32_t k0, k1, s0, s1;
  uint64_t base;
  explicit Stream(const Attrs& a)
      : k0(static_cast<uint32_t>(a.key[0])), k1(static_cast<uint32_t>(a.key[0] >> 32)),
        s0(static_cast<uint32_t>(a.key[1])), s1(static_cast<uint32_t>(a.key[1] >> 32)), base(a.counter) {}
  void block(uint64_t b, uint32_t w[4]) const {
    const uint64_t c = base + b;
    w[0] = static_cast<uint32_t>(c);
    w[1] = static_cast<uint32_t>(c >> 32);
    w[2] = s0;
    w[3] = s1;
    philox(w, k0, k1);
  }
};

inline uint64_t word64(const uint32_t* w) { return (uint64_t(w[1]) << 32) | w[0]; }
inline double u53(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

/// Fills the C-contiguous `out` (N elements of T): fn(words, part) gives
/// element i from the words of block i / k and its position i % k there.
template <typename T, typename Fn>
void generate(const Tensor& out, const Stream& st, int k, const std::string& name, Fn&& fn) {
  const int64_t n = out.numel();
  T* o = out.data_as<T>();
  const int64_t blocks = n < kParallelMin ? 1 : std::min<int64_t>(num_cores(), n / (int64_t(1) << 15));
  launch(name, blocks, [&](int64_t b) {
    const int64_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
    uint32_t w[4] = {0, 0, 0, 0};
    int64_t cached = -1;
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t blk = i / k;
      if (blk != cached) {
        st.block(static_cast<uint64_t>(blk), w);
        cached = blk;
      }
      o[i] = fn(w, static_cast<int>(i % k));
    }
  });
}

Shape out_shape(const Attrs& a) { return Shape(a.shape.begin(), a.shape.end()); }

void require_float(const OpDef& op, DType d) {
  if (!is_floating(d))
    throw Error(Status::TypeError(op.name, std::string("Unsupported dtype ") + dtype_name(d) + " for " + op.name +
                                               " (a floating dtype is required)"));
}

/// Fills `out` (float dtype) with conv(u) of 53-bit uniforms (24-bit for float32).
template <typename Conv>
void fill_uniform_like(const OpDef& op, const Tensor& out, const Stream& st, Conv conv) {
  visit_dtype(out.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (detail::is_float_v<T>) {
      if constexpr (std::is_same_v<T, float>) {
        generate<T>(out, st, 4, op.name, [&](const uint32_t* w, int part) {
          return static_cast<float>(conv(static_cast<double>(w[part] >> 8) * 0x1.0p-24));
        });
      } else {
        generate<T>(out, st, 2, op.name,
                    [&](const uint32_t* w, int part) { return T(conv(u53(word64(w + 2 * part)))); });
      }
    }
  });
}

Tensor run_uniform(const OpDef& op, const std::vector<Tensor>&, const Attrs& a) {
  require_float(op, a.dtype);
  Tensor out = Tensor::empty(out_shape(a), a.dtype);
  const double low = a.param[0], width = a.param[1] - a.param[0];
  fill_uniform_like(op, out, Stream(a), [=](double u) { return low + width * u; });
  return out;
}

Tensor run_exponential(const OpDef& op, const std::vector<Tensor>&, const Attrs& a) {
  require_float(op, a.dtype);
  Tensor out = Tensor::empty(out_shape(a), a.dtype);
  const double scale = a.param[0];
  fill_uniform_like(op, out, Stream(a), [=](double u) { return -std::log1p(-u) * scale; });
  return out;
}

Tensor run_normal(const OpDef& op, const std::vector<Tensor>&, const Attrs& a) {
  require_float(op, a.dtype);
  Tensor out = Tensor::empty(out_shape(a), a.dtype);
  const double loc = a.param[0], scale = a.param[1];
  const Stream st(a);
  visit_dtype(a.dtype, [&](auto z) {
    using T = decltype(z);
    if constexpr (detail::is_float_v<T>) {
      generate<T>(out, st, 2, op.name, [&](const uint32_t* w, int part) {
        // Box-Muller: u1 in (0, 1] keeps the log finite.
        const double u1 = static_cast<double>((word64(w) >> 11) + 1) * 0x1.0p-53;
        const double u2 = u53(word64(w + 2));
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double t = 6.283185307179586476925286766559 * u2;
        return static_cast<T>(loc + scale * (part == 0 ? r * std::cos(t) : r * std::sin(t)));
      });
    }
  });
  return out;
}

Tensor run_integers(const OpDef& op, const std::vector<Tensor>&, const Attrs& a) {
  if (!is_integer(a.dtype) && a.dtype != DType::kBool)
    throw Error(Status::TypeError(op.name, std::string("Unsupported dtype ") + dtype_name(a.dtype) +
                                               " for integers (an integer or bool dtype is required)"));
  Tensor out = Tensor::empty(out_shape(a), a.dtype);
  const Stream st(a);
  const uint64_t low = a.ilow, rm1 = a.irange;
  visit_dtype(a.dtype, [&](auto z) {
    using T = decltype(z);
    if constexpr (!detail::is_float_v<T>) {
      auto to_t = [](uint64_t v) {
        if constexpr (std::is_same_v<T, bool>) return v != 0;
        else return static_cast<T>(v);  // two's complement: low + k wraps into range
      };
      if (rm1 < 0xFFFFFFFFull) {
        const uint64_t range = rm1 + 1;
        generate<T>(out, st, 2, op.name, [&](const uint32_t* w, int part) {
          return to_t(low + static_cast<uint64_t>((u128(word64(w + 2 * part)) * range) >> 64));
        });
      } else if (rm1 == ~uint64_t(0)) {
        generate<T>(out, st, 1, op.name, [&](const uint32_t* w, int) { return to_t(low + word64(w)); });
      } else {
        const uint64_t range = rm1 + 1;
        generate<T>(out, st, 1, op.name, [&](const uint32_t* w, int) {
          const uint64_t lo = word64(w), hi = word64(w + 2);
          const u128 t = (u128(lo) * range) >> 64;
          return to_t(low + static_cast<uint64_t>((u128(hi) * range + t) >> 64));
        });
      }
    }
  });
  return out;
}

Tensor run_raw(const OpDef& op, const std::vector<Tensor>&, const Attrs& a) {
  Tensor out = Tensor::empty(out_shape(a), DType::kUInt32);
  generate<uint32_t>(out, Stream(a), 4, op.name, [](const uint32_t* w, int part) { return w[part]; });
  return out;
}

/// Fisher-Yates: step i (n-1 down to 1) swaps i with j uniform in [0, i], j
/// from counter block i. Sequential (each swap depends on the previous ones),
/// but still a function of the key and counter only.
Tensor run_permutation(const OpDef& op, const std::vector<Tensor>&, const Attrs& a) {
  if (a.shape.size() != 1 || a.shape[0] < 0)
    throw Error(Status::Invalid(op.name, "expected one non-negative length"));
  const int64_t n = a.shape[0];
  Tensor out = Tensor::empty({n}, DType::kInt64);
  int64_t* o = out.data_as<int64_t>();
  for (int64_t i = 0; i < n; ++i) o[i] = i;
  const Stream st(a);
  uint32_t w[4] = {0, 0, 0, 0};
  for (int64_t i = n - 1; i > 0; --i) {
    st.block(static_cast<uint64_t>(i), w);
    const int64_t j = static_cast<int64_t>((u128(word64(w)) * static_cast<uint64_t>(i + 1)) >> 64);
    std::swap(o[i], o[j]);
  }
  return out;
}

/// Rows of x (along axis 0) at the int64 indices idx: shape idx.shape + x.shape[1:].
Tensor run_take_rows(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs&) {
  const Tensor x = inputs[0].contiguous();
  if (x.ndim() == 0) throw Error(Status::Invalid(op.name, "a must be at least 1-dimensional"));
  if (!is_integer(inputs[1].dtype()))
    throw Error(Status::TypeError(op.name, std::string("indices must be integers, got ") +
                                               dtype_name(inputs[1].dtype())));
  const Tensor idx = cast(inputs[1], DType::kInt64).contiguous();
  Shape shape = idx.shape();
  for (int64_t d = 1; d < x.ndim(); ++d) shape.push_back(x.shape()[static_cast<size_t>(d)]);
  Tensor out = Tensor::empty(shape, x.dtype());
  const int64_t rows = x.shape()[0], m = idx.numel();
  const size_t row_bytes = x.numel() == 0 ? 0 : x.nbytes() / static_cast<size_t>(rows);
  const int64_t* ip = idx.data_as<int64_t>();
  for (int64_t i = 0; i < m; ++i)
    if (ip[i] < 0 || ip[i] >= rows)
      throw Error(Status::IndexError(op.name, "index " + std::to_string(ip[i]) + " is out of bounds for axis 0 with size " +
                                                  std::to_string(rows)));
  const uint8_t* src = x.data();
  uint8_t* dst = out.data();
  const int64_t blocks = m * static_cast<int64_t>(row_bytes) < kParallelMin * 8 ? 1 : std::min<int64_t>(num_cores(), m);
  launch(op.name, blocks, [&](int64_t b) {
    for (int64_t i = m * b / blocks; i < m * (b + 1) / blocks; ++i)
      std::memcpy(dst + static_cast<size_t>(i) * row_bytes, src + static_cast<size_t>(ip[i]) * row_bytes, row_bytes);
  });
  return out;
}

OpDef opaque(const char* name, int arity, OpaqueFn run, const char* doc) {
  OpDef d;
  d.name = name;
  d.arity = arity;
  d.fusion = FusionClass::kOpaque;
  d.run = run;
  d.doc = doc;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(opaque("random_uniform", 0, &run_uniform,
                       "Uniform floats in [param[0], param[1]) of Attrs.shape/dtype from the Philox stream.")),
    OpRegistrar(opaque("random_normal", 0, &run_normal,
                       "Normal floats (mean param[0], standard deviation param[1]) from the Philox stream.")),
    OpRegistrar(opaque("random_exponential", 0, &run_exponential,
                       "Exponential floats (scale param[0]) from the Philox stream.")),
    OpRegistrar(opaque("random_integers", 0, &run_integers,
                       "Integers in [ilow, ilow + irange] of Attrs.dtype from the Philox stream.")),
    OpRegistrar(opaque("random_raw", 0, &run_raw, "Raw uint32 words of the Philox stream.")),
    OpRegistrar(opaque("random_permutation", 0, &run_permutation,
                       "A random permutation of 0..shape[0]-1 (Fisher-Yates over the Philox stream).")),
    OpRegistrar(opaque("take_rows", 2, &run_take_rows,
                       "Rows of the first operand (axis 0) at the int64 indices of the second.")),
};

}  // namespace
}  // namespace asc::ops::sorting
