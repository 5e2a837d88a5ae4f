// Small helpers shared by the hand-written NN kernels (pool.cc, norm.cc, conv*.cc):
// floating-dtype dispatch, reading/writing 1-D parameter tensors of any
// floating dtype and strides, per-thread scratch buffers, and running pieces of
// work as one launch on the device's core workers.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "asc/core/dtype.h"
#include "asc/core/half.h"
#include "asc/core/status.h"
#include "asc/core/tensor.h"
#include "asc/runtime/device.h"

namespace asc::nn::detail {

/// Calls fn(T{}) with the C++ element type of a floating dtype; kInvalidDtype otherwise.
template <class F>
void dispatch_float(DType d, const std::string& op, const char* what, F&& fn) {
  switch (d) {
    case DType::kFloat32: fn(float{}); return;
    case DType::kFloat64: fn(double{}); return;
    case DType::kFloat16: fn(asc::float16{}); return;
    case DType::kBFloat16: fn(asc::bfloat16{}); return;
    default:
      throw Error(Status::TypeError(op, std::string(what) + " must have a floating dtype (float16, bfloat16, "
                                                             "float32, float64), got " + dtype_name(d)));
  }
}

/// Accumulation type: double for double, float otherwise.
template <class T> struct Acc { using type = float; };
template <> struct Acc<double> { using type = double; };

/// The values of a 1-D floating tensor (any strides) as doubles; checks its length.
inline std::vector<double> read_vec(const Tensor& t, int64_t n, const std::string& op, const char* what) {
  if (t.ndim() != 1 || t.shape()[0] != n) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                             std::string(what) + " must have shape (" + std::to_string(n) + ",), got " +
                                 Tensor::shape_str(t.shape())));
  }
  std::vector<double> v(static_cast<size_t>(n));
  dispatch_float(t.dtype(), op, what, [&](auto tag) {
    using T = decltype(tag);
    const uint8_t* p = t.data();
    const int64_t s = t.strides()[0];
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = static_cast<double>(*reinterpret_cast<const T*>(p + i * s));
  });
  return v;
}

/// Running statistics are updated in place: they must be writeable and not a
/// broadcast (stride-0) view, else kInvalidParam before anything is computed.
inline void check_writable(const Tensor& t, const std::string& op, const char* what) {
  if (!t.writeable() || (t.ndim() == 1 && t.shape()[0] > 1 && t.strides()[0] == 0)) {
    throw Error(Status::Invalid(op, std::string(what) + " is updated in place and must be a writeable array "
                                                        "(not read-only or a broadcast view)"));
  }
}

/// Writes doubles into a 1-D floating tensor in place (any strides).
inline void write_vec(const Tensor& t, const std::vector<double>& v, const std::string& op, const char* what) {
  dispatch_float(t.dtype(), op, what, [&](auto tag) {
    using T = decltype(tag);
    uint8_t* p = t.data();
    const int64_t s = t.strides()[0];
    for (size_t i = 0; i < v.size(); ++i) *reinterpret_cast<T*>(p + int64_t(i) * s) = static_cast<T>(v[i]);
  });
}

/// A buffer of at least `bytes` bytes owned by the calling thread, 64-byte aligned
/// (as oneDNN wants its scratchpad), one per Tag type: grown, never shrunk, freed when
/// the thread ends. Kernels reuse it on every call of the same thread instead of
/// allocating; a caller that lends it to other threads waits for them before its next
/// call. Throws std::bad_alloc.
template <class Tag>
void* thread_buffer(size_t bytes) {
  struct Buf {
    void* p = nullptr;
    size_t n = 0;
    ~Buf() { std::free(p); }
  };
  thread_local Buf buf;
  if (bytes > buf.n) {
    std::free(buf.p);
    buf.n = 0;
    buf.p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!buf.p) throw std::bad_alloc();
    buf.n = bytes;
  }
  return buf.p;
}

/// The float32 buffers of a conv-like kernel call: input, optional bias and residual, output.
/// A residual that is the output's own buffer (in place) is read through the output pointer:
/// each output element is read (residual) and written once, by the same piece, at the same
/// step, so the kernel may overwrite it. Callers have checked dtypes and contiguity.
struct F32Io {
  const float* x;
  const float* b;  // nullptr without bias
  const float* r;  // nullptr without residual
  float* out;
};
inline F32Io f32_io(const Tensor& x, const Tensor* b, const Tensor* r, const Tensor& out) {
  auto in = [](const Tensor& t) { return reinterpret_cast<const float*>(t.storage()->read_data() + t.offset()); };
  F32Io io{in(x), b ? in(*b) : nullptr, nullptr, reinterpret_cast<float*>(out.data())};
  if (r) io.r = r->storage() == out.storage() && r->offset() == out.offset() ? io.out : in(*r);
  return io;
}

/// Runs fn(i) for every i in [0, n) as one launch of n blocks on the CPU device's core
/// workers (the calling thread takes blocks too) and returns when all have finished.
/// A block's exception is caught inside the block -- it must not unwind through a
/// worker -- and the first one is rethrown here; a launch failure throws Error.
/// Thread-safety: fn is called concurrently from several threads.
template <class Fn>
void run_blocks(const std::string& name, int64_t n, Fn&& fn) {
  std::mutex mu;
  std::exception_ptr err;
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(n);
  inv.body = [&](const runtime::BlockContext& ctx) {
    try {
      fn(static_cast<int64_t>(ctx.block_idx));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!err) err = std::current_exception();
    }
  };
  runtime::cpu_device().run_kernel(inv).ThrowIfError();
  if (err) std::rethrow_exception(err);
}

}  // namespace asc::nn::detail
