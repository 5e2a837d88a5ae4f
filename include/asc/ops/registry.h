// The operator registry and the executor.
//
// Every operator is declared once, as an OpDef: name, arity, fusion class,
// dtype rule, and kernels per device (for the CPU device: a NumPy-ufunc-style
// inner loop over 1-d strided runs, chosen by the loop dtypes). Shape rules
// follow from the kind: elementwise ops broadcast their inputs; reductions
// drop (or keep, with keepdims) the reduced axes; opaque ops compute their own.
// Adding an op = its OpDef + kernel (in the src/ops/<family>.cc file) + test.
//
// `call()` is THE executor: it validates (errors "[op] ..." name the shapes or
// dtypes involved), infers shape and dtype, casts inputs to the loop dtypes,
// allocates the output from the device pool and runs the kernel. It is eager
// for now (the work runs before call() returns, large ops split across all
// cores with one kernel launch); the lazy graph replaces this one function.
//
// Errors (asc::Error): kInvalidShape (shapes do not broadcast), kInvalidDtype
// (no loop for the dtypes, e.g. bfloat16 with float16, "[subtract] ... boolean"),
// kInvalidParam (bad axis, unknown op, empty reduction without identity),
// kRtMemoryAllocation (pool exhausted).
//
// Thread-safety: ops are registered during static initialisation only; after
// that the registry is read-only and call() may run from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "asc/core/dtype.h"
#include "asc/core/status.h"
#include "asc/core/tensor.h"

namespace asc::ops {

enum class FusionClass : uint8_t { kElementwise, kReduction, kOpaque };

/// Attributes of one call (the union of what the ops take so far).
struct Attrs {
  std::vector<int64_t> axes;  // reductions; empty with all_axes = reduce everything
  bool all_axes = true;
  bool keepdims = false;
  bool has_dtype = false;  // astype target, reduction accumulator/result dtype
  DType dtype = DType::kFloat32;
  double ddof = 0;  // var/std: the divisor is N - ddof (the array API's `correction`)
  // Sorting, searching, sets (src/ops/sort.cc, search.cc, sets.cc) and random (random.cc):
  bool descending = false;  // sort/argsort: largest first
  bool stable = false;      // sort/argsort: equal elements keep their input order
  int64_t flags = 0;        // op-specific option bits (searchsorted side='right', isin invert, equal_nan, ...)
  std::vector<int64_t> shape;  // random: output shape
  uint64_t key[2] = {0, 0};    // random: Philox-4x32-10 key (the generator's seed)
  uint64_t counter = 0;        // random: first 128-bit counter block of this draw
  double param[2] = {0, 1};    // random: distribution parameters (low/high, loc/scale)
  uint64_t ilow = 0, irange = 0;  // random integers: low (two's complement) and high - low - 1
};

/// dtypes an elementwise/reduction kernel runs with: inputs are cast to in[i]
/// first; the output has dtype `out`.
struct LoopTypes {
  DType in[3] = {DType::kFloat32, DType::kFloat32, DType::kFloat32};
  DType out = DType::kFloat32;
};

/// CPU inner loop: ptrs[0] is the output, ptrs[1..arity] the inputs; strides in
/// bytes; n elements. A binary loop called with ptrs[0] == ptrs[1] and both
/// strides 0 is a reduction of input 2 into *ptrs[0] (NumPy's convention).
using InnerLoop = void (*)(char** ptrs, const int64_t* strides, int64_t n);

struct OpDef;
using DTypeRule = Status (*)(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* types);
using LoopSelector = InnerLoop (*)(const LoopTypes& types);
using OpaqueFn = Tensor (*)(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs);

enum class Identity : uint8_t { kNone, kZero, kOne, kLowest, kHighest };

struct OpDef {
  std::string name;
  int arity = 2;
  FusionClass fusion = FusionClass::kElementwise;
  DTypeRule dtype_rule = nullptr;  // elementwise and reductions
  LoopSelector cpu_loop = nullptr;  // elementwise: the kernel on the CPU device
  // Reductions: the binary elementwise op that folds into the accumulator and
  // the accumulator's initial value (kLowest: -Inf / the type's minimum).
  std::string combine;
  Identity identity = Identity::kNone;
  OpaqueFn run = nullptr;  // opaque and composite ops (e.g. mean)
  /// One-line description (the Python docstring of the generated function).
  std::string doc;
  /// The kernel may raise errors that depend on the values (integer power
  /// with a negative exponent): such calls run eagerly even in lazy mode, so
  /// that the error raises at the call, as in NumPy.
  bool value_errors = false;
  /// Opaque/composite ops (`run`): whether `run` handles complex64/complex128
  /// operands. Calls with a complex operand of an op without it raise
  /// kInvalidDtype "[op] ... not supported for complex64" (never garbage).
  bool complex_ok = false;
  /// The op named by `combine`, resolved by the registry on first use (cached
  /// dispatch: no name lookup per call).
  const OpDef* combine_op = nullptr;
};

/// Registers an op (static initialisation time). A duplicate name is a kInvalidParam error.
void register_op(OpDef def);
/// The op named `name`, or nullptr.
const OpDef* find_op(const std::string& name) noexcept;
/// The op named `name`; kInvalidParam "[name] unknown operator" otherwise.
const OpDef& get_op(const std::string& name);
std::vector<std::string> op_names();

/// NumPy's 'same_kind' casting rule: true unless the cast goes down the order
/// bool < unsigned int < signed int < float < complex (within a kind any
/// size is allowed). Used for out= operands and dtype= of array functions.
bool can_cast_same_kind(DType from, DType to) noexcept;

/// The definition of an opaque op (runs as its own kernel, ends a fusion
/// group) with the fields every one sets; callers add flags such as complex_ok.
OpDef opaque_op(const char* name, int arity, OpaqueFn run, const char* doc);

/// The definition of an elementwise op (fusable; a dtype rule and a CPU
/// inner-loop selector) with the fields every one sets.
OpDef elementwise_op(const char* name, int arity, DTypeRule rule, LoopSelector sel, const char* doc);

/// Registers at static-initialisation time: `static OpRegistrar r({...});`.
struct OpRegistrar {
  explicit OpRegistrar(OpDef def) { register_op(std::move(def)); }
};

/// Runs `op` on `inputs` (see the file comment). With `out`, the result is
/// written there (shape must equal the broadcast shape; the result is cast to
/// out's dtype) and `*out` is returned.
Tensor call(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs = {}, const Tensor* out = nullptr);
Tensor call(const std::string& name, const std::vector<Tensor>& inputs, const Attrs& attrs = {},
            const Tensor* out = nullptr);
/// The same with `n` operands in an array (no vector: the small-array fast path).
Tensor call(const OpDef& op, const Tensor* inputs, int n, const Attrs& attrs = {}, const Tensor* out = nullptr);

/// Cast with NumPy semantics (astype): a new contiguous tensor, or `t` itself
/// when the dtype already matches and `copy` is false.
Tensor cast(const Tensor& t, DType dtype, bool copy = false);

// ---------------------------------------------------------------- dtypes

/// NumPy 2 promotion as NumPy's ufuncs apply it, with ml_dtypes' bfloat16
/// loops: bfloat16 with bool/int8/uint8 -> bfloat16; with float16, int16,
/// uint16, float32 -> float32; with 32/64-bit ints or float64 -> float64.
/// Complex: complex64 with bool, 8/16-bit ints, float16, bfloat16, float32;
/// complex128 with 32/64-bit ints and float64 (NumPy's table).
/// (All pairs of pyasc's dtypes promote; the Result is for future dtypes.)
Result<DType> promote_types(DType a, DType b);
/// promote_types() that throws, naming `op`.
DType promote_or_throw(DType a, DType b, const std::string& op);
/// The float dtype NumPy computes math functions of `d` in (int8 -> float16,
/// int16 -> float32, int32/int64 -> float64, floats and complex unchanged).
DType float_for(DType d);

/// A Python scalar of the NEP 50 "weak" kinds.
enum class ScalarKind : uint8_t { kBool, kInt, kFloat, kComplex };
struct Scalar {
  ScalarKind kind = ScalarKind::kFloat;
  int64_t i = 0;  // kBool / kInt
  double f = 0;   // kFloat; the real part of kComplex
  double im = 0;  // kComplex: the imaginary part
  static Scalar from_bool(bool b) { Scalar s; s.kind = ScalarKind::kBool; s.i = b; return s; }
  static Scalar from_int(int64_t v) { Scalar s; s.kind = ScalarKind::kInt; s.i = v; return s; }
  static Scalar from_float(double v) { Scalar s; s.kind = ScalarKind::kFloat; s.f = v; return s; }
  static Scalar from_complex(double re, double imag) {
    Scalar s; s.kind = ScalarKind::kComplex; s.f = re; s.im = imag; return s;
  }
};
/// The dtype a weak scalar takes next to an array of dtype `array_dtype` (NEP 50:
/// int8_array + 1 -> int8, int_array + 1.5 -> float64, float32_array * 2.5 -> float32,
/// float32_array * 1j -> complex64, int8_array * 1j -> complex128).
DType weak_scalar_dtype(DType array_dtype, ScalarKind kind);
/// `s` as NumPy 2.4 + ml_dtypes 0.7 hand a weak scalar to a ufunc, full() or
/// copyto() of dtype `d`: a Python float bound for bfloat16 goes through
/// float32 first (rounded twice: 1.0039062500001 -> 1.0, where astype and
/// setitem round once to 1.0078125); everything else unchanged.
Scalar weak_scalar_value(const Scalar& s, DType d);
/// The dtype of a scalar on its own (bool, int64, float64, complex128).
DType default_scalar_dtype(ScalarKind kind);
/// A 0-d tensor holding `s` as `dtype`. An int out of the dtype's range is
/// kInvalidParam ("[op] Python integer 300 out of bounds for int8").
Tensor scalar_tensor(const Scalar& s, DType dtype, const std::string& op = "asarray");
/// A 0-d constant (Tensor::constant, no pool memory) holding `s` converted to
/// `dtype` as astype would, without range checks (the identities of reductions).
Tensor scalar_constant(const Scalar& s, DType dtype);
/// A new tensor of `shape` filled with `s` (cast to dtype as astype would; an
/// int outside dtype's range is kOverflow, as NumPy 2's full).
Tensor full(const Shape& shape, const Scalar& s, DType dtype);
/// Writes `s` into every element of `t` (as full()).
void fill(const Tensor& t, const Scalar& s);

}  // namespace asc::ops
