// complex64/complex128 inner loops (see complex.h for the semantics) and the
// complex-only op `conjugate`. Loops take any byte strides (0 for broadcasts),
// so the eager executor and the fused tile programs call them alike; NumPy
// computes complex64 in float, and so do we (sums accumulate in double).
#include "ops/complex.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/loops.h"

namespace asc::ops::detail {
namespace {

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

template <typename T>
inline bool cnan(std::complex<T> z) { return std::isnan(z.real()) || std::isnan(z.imag()); }

// NumPy's lexicographic order (npy_math CGE/CLE/...): real parts first, a NaN
// imaginary part makes the real-part comparison false.
template <typename T>
inline bool cge(std::complex<T> x, std::complex<T> y) {
  return (x.real() > y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() >= y.imag());
}
template <typename T>
inline bool cle(std::complex<T> x, std::complex<T> y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() <= y.imag());
}
template <typename T>
inline bool cgt(std::complex<T> x, std::complex<T> y) {
  return (x.real() > y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() > y.imag());
}
template <typename T>
inline bool clt(std::complex<T> x, std::complex<T> y) {
  return (x.real() < y.real() && !std::isnan(x.imag()) && !std::isnan(y.imag())) ||
         (x.real() == y.real() && x.imag() < y.imag());
}

/// NumPy's complex division (Smith's algorithm; 0 divisor -> inf/nan parts).
template <typename T>
inline std::complex<T> cdiv(std::complex<T> a, std::complex<T> b) {
  const T ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const T abr = std::fabs(br), abi = std::fabs(bi);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return {ar / abr, ai / abr};
    const T rat = bi / br;
    const T scl = T(1) / (br + bi * rat);
    return {(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  const T rat = br / bi;
  const T scl = T(1) / (bi + br * rat);
  return {(ar * rat + ai) * scl, (ai * rat - ar) * scl};
}

/// NumPy's complex power (npy_cpow): b == 0 -> 1, 0**b (0 for Re(b) > 0), small integer
/// exponents by repeated multiplication, else the C library's cpow.
template <typename T>
inline std::complex<T> cpow(std::complex<T> a, std::complex<T> b) {
  using C = std::complex<T>;
  const T ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  if (br == 0 && bi == 0) return C(1, 0);
  if (ar == 0 && ai == 0) {  // NumPy 2.4: 0 ** b is 0 for any Re(b) > 0 (0j ** (2+1j) too), else NaN
    if (br > 0) return C(0, 0);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    return C(nan, nan);
  }
  if (bi == 0 && std::fabs(br) < T(100) && br == std::trunc(br)) {
    int64_t n = static_cast<int64_t>(br);
    if (n == 1) return a;
    if (n == 2) return cmul(a, a);
    if (n == 3) return cmul(a, cmul(a, a));
    if (n < 0) n = -n;
    C acc(1, 0), p = a;
    for (int64_t mask = 1;; mask <<= 1) {
      if (n & mask) acc = cmul(acc, p);
      if (n < (mask << 1)) break;
      p = cmul(p, p);
    }
    return br < 0 ? cdiv(C(1, 0), acc) : acc;
  }
  return std::pow(a, b);
}

// ------------------------------------------------------------------ functors

template <typename T>
using Cx = std::complex<T>;

#define ASC_CBIN(Name, OutT, expr)                                   \
  struct Name {                                                      \
    template <typename T> using Out = OutT;                          \
    template <typename T>                                            \
    static Out<T> apply(Cx<T> a, Cx<T> b) { return expr; }           \
  };
ASC_CBIN(CAdd, Cx<T>, a + b)
ASC_CBIN(CSub, Cx<T>, a - b)
ASC_CBIN(CMul, Cx<T>, cmul(a, b))
ASC_CBIN(CDiv, Cx<T>, cdiv(a, b))
ASC_CBIN(CPow, Cx<T>, cpow(a, b))
ASC_CBIN(CEq, bool, a.real() == b.real() && a.imag() == b.imag())
ASC_CBIN(CNe, bool, a.real() != b.real() || a.imag() != b.imag())
ASC_CBIN(CLt, bool, clt(a, b))
ASC_CBIN(CLe, bool, cle(a, b))
ASC_CBIN(CGt, bool, cgt(a, b))
ASC_CBIN(CGe, bool, cge(a, b))
// maximum/minimum: a NaN first operand wins, else the lexicographic choice;
// fmax/fmin: a NaN second operand loses (NumPy's loops).
ASC_CBIN(CMax, Cx<T>, (cnan(a) || cge(a, b)) ? a : b)
ASC_CBIN(CMin, Cx<T>, (cnan(a) || cle(a, b)) ? a : b)
ASC_CBIN(CFmax, Cx<T>, (cnan(b) || cge(a, b)) ? a : b)
ASC_CBIN(CFmin, Cx<T>, (cnan(b) || cle(a, b)) ? a : b)
#undef ASC_CBIN

template <typename T>
inline Cx<T> csign(Cx<T> z) {
  const T r = z.real(), i = z.imag(), m = std::hypot(r, i);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(m)) return {nan, nan};
  if (std::isinf(m)) {
    if (std::isinf(r)) return std::isinf(i) ? Cx<T>(nan, nan) : Cx<T>(r > 0 ? T(1) : T(-1), T(0));
    return {T(0), i > 0 ? T(1) : T(-1)};
  }
  if (m == 0) return {T(0), T(0)};
  return {r / m, i / m};
}

template <typename T>
inline Cx<T> creciprocal(Cx<T> z) {  // NumPy's loop (Smith-style, one division less)
  const T r = z.real(), i = z.imag();
  if (std::fabs(i) <= std::fabs(r)) {
    const T q = i / r, d = r + i * q;
    return {T(1) / d, -q / d};
  }
  const T q = r / i, d = r * q + i;
  return {q / d, T(-1) / d};
}

// NumPy's nc_log1p/nc_expm1/nc_exp2/nc_log2/nc_log10 (umath funcs.inc),
// computed in T as NumPy does (complex64 in float).
template <typename T>
inline Cx<T> clog1p(Cx<T> z) {
  const T re = z.real() + T(1);
  return {std::log(std::hypot(re, z.imag())), std::atan2(z.imag(), re)};
}
template <typename T>
inline Cx<T> cexpm1(Cx<T> z) {
  const T a = std::sin(z.imag() / T(2));
  return {std::expm1(z.real()) * std::cos(z.imag()) - T(2) * a * a, std::exp(z.real()) * std::sin(z.imag())};
}
template <typename T>
inline Cx<T> cexp2(Cx<T> z) {
  const T ln2 = static_cast<T>(0.693147180559945309417232121458176568L);
  return std::exp(Cx<T>(z.real() * ln2, z.imag() * ln2));
}
template <typename T>
inline Cx<T> cscaled_log(Cx<T> z, long double k) {
  const Cx<T> l = std::log(z);
  const T f = static_cast<T>(k);
  return {l.real() * f, l.imag() * f};
}

#define ASC_CUN(Name, OutT, expr)                \
  struct Name {                                  \
    template <typename T> using Out = OutT;      \
    template <typename T>                        \
    static Out<T> apply(Cx<T> z) { return expr; } \
  };
ASC_CUN(UNeg, Cx<T>, Cx<T>(-z.real(), -z.imag()))
ASC_CUN(UPos, Cx<T>, z)
ASC_CUN(UConj, Cx<T>, Cx<T>(z.real(), -z.imag()))
ASC_CUN(UAbs, T, std::hypot(z.real(), z.imag()))
ASC_CUN(UExp, Cx<T>, std::exp(z))
ASC_CUN(ULog, Cx<T>, std::log(z))
ASC_CUN(USqrt, Cx<T>, std::sqrt(z))
ASC_CUN(USquare, Cx<T>, cmul(z, z))
ASC_CUN(URecip, Cx<T>, creciprocal(z))
ASC_CUN(USign, Cx<T>, csign(z))
ASC_CUN(UIsnan, bool, cnan(z))
ASC_CUN(UIsinf, bool, std::isinf(z.real()) || std::isinf(z.imag()))
ASC_CUN(UIsfinite, bool, std::isfinite(z.real()) && std::isfinite(z.imag()))
ASC_CUN(USin, Cx<T>, std::sin(z))
ASC_CUN(UCos, Cx<T>, std::cos(z))
ASC_CUN(UTan, Cx<T>, std::tan(z))
ASC_CUN(USinh, Cx<T>, std::sinh(z))
ASC_CUN(UCosh, Cx<T>, std::cosh(z))
ASC_CUN(UTanh, Cx<T>, std::tanh(z))
ASC_CUN(UArcsin, Cx<T>, std::asin(z))
ASC_CUN(UArccos, Cx<T>, std::acos(z))
ASC_CUN(UArctan, Cx<T>, std::atan(z))
ASC_CUN(UArcsinh, Cx<T>, std::asinh(z))
ASC_CUN(UArccosh, Cx<T>, std::acosh(z))
ASC_CUN(UArctanh, Cx<T>, std::atanh(z))
ASC_CUN(ULog2, Cx<T>, cscaled_log(z, 1.442695040888963407359924681001892137L))
ASC_CUN(ULog10, Cx<T>, cscaled_log(z, 0.434294481903251827651128918916605082L))
ASC_CUN(ULog1p, Cx<T>, clog1p(z))
ASC_CUN(UExpm1, Cx<T>, cexpm1(z))
ASC_CUN(UExp2, Cx<T>, cexp2(z))
ASC_CUN(URint, Cx<T>, Cx<T>(std::nearbyint(z.real()), std::nearbyint(z.imag())))
#undef ASC_CUN

// ------------------------------------------------------------------ loops

template <typename T, typename F>
void cunary_loop(char** p, const int64_t* s, int64_t n) {
  using Out = typename F::template Out<T>;
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) store<Out>(o, F::template apply<T>(load<Cx<T>>(a)));
}

template <typename T, typename F>
void cbinary_loop(char** p, const int64_t* s, int64_t n) {
  using Out = typename F::template Out<T>;
  if constexpr (std::is_same_v<F, CAdd>) {
    if (s[0] == 0 && s[1] == 0 && p[0] == p[1]) {  // reduction: accumulate in double (NumPy sums pairwise)
      const Cx<T> acc = load<Cx<T>>(p[0]);
      double re = static_cast<double>(acc.real()), im = static_cast<double>(acc.imag());
      const char* b = p[2];
      for (int64_t i = 0; i < n; ++i, b += s[2]) {
        const Cx<T> v = load<Cx<T>>(b);
        re += static_cast<double>(v.real());
        im += static_cast<double>(v.imag());
      }
      store<Cx<T>>(p[0], Cx<T>(static_cast<T>(re), static_cast<T>(im)));
      return;
    }
  }
  // The general strided form is also a correct sequential fold for the
  // reduction convention (out == a, strides 0).
  char* o = p[0];
  const char* a = p[1];
  const char* b = p[2];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1], b += s[2])
    store<Out>(o, F::template apply<T>(load<Cx<T>>(a), load<Cx<T>>(b)));
}

template <typename F>
InnerLoop pick_binary(DType d) {
  return d == DType::kComplex64 ? &cbinary_loop<float, F> : &cbinary_loop<double, F>;
}
template <typename F>
InnerLoop pick_unary(DType d) {
  return d == DType::kComplex64 ? &cunary_loop<float, F> : &cunary_loop<double, F>;
}

// Casts: S and D are storage types; at least one is complex.
template <typename S, typename D>
void ccast_loop(char** p, const int64_t* s, int64_t n) {
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) {
    const S v = load<S>(a);
    if constexpr (IsComplex<S>::value && IsComplex<D>::value) {
      using DT = typename D::value_type;
      store<D>(o, D(static_cast<DT>(v.real()), static_cast<DT>(v.imag())));
    } else if constexpr (IsComplex<S>::value) {
      if constexpr (std::is_same_v<D, bool>) store<bool>(o, v.real() != 0 || v.imag() != 0);
      else store<D>(o, convert<D>(v.real()));
    } else {
      using DT = typename D::value_type;
      store<D>(o, D(convert<DT>(v), DT(0)));
    }
  }
}

template <typename S>
struct FromComplex {
  template <typename D>
  struct Make {
    static InnerLoop get() { return &ccast_loop<S, D>; }
  };
};
template <typename D>
struct ToComplex {
  template <typename S>
  struct Make {
    static InnerLoop get() { return &ccast_loop<S, D>; }
  };
};

}  // namespace

InnerLoop complex_binary(CBinary op, DType d) noexcept {
  if (!is_complex(d)) return nullptr;
  switch (op) {
    case CBinary::kAdd: return pick_binary<CAdd>(d);
    case CBinary::kSub: return pick_binary<CSub>(d);
    case CBinary::kMul: return pick_binary<CMul>(d);
    case CBinary::kDiv: return pick_binary<CDiv>(d);
    case CBinary::kPow: return pick_binary<CPow>(d);
    case CBinary::kEq: return pick_binary<CEq>(d);
    case CBinary::kNe: return pick_binary<CNe>(d);
    case CBinary::kLt: return pick_binary<CLt>(d);
    case CBinary::kLe: return pick_binary<CLe>(d);
    case CBinary::kGt: return pick_binary<CGt>(d);
    case CBinary::kGe: return pick_binary<CGe>(d);
    case CBinary::kMax: return pick_binary<CMax>(d);
    case CBinary::kMin: return pick_binary<CMin>(d);
    case CBinary::kFmax: return pick_binary<CFmax>(d);
    case CBinary::kFmin: return pick_binary<CFmin>(d);
  }
  return nullptr;
}

InnerLoop complex_unary(CUnary op, DType d) noexcept {
  if (!is_complex(d)) return nullptr;
  switch (op) {
    case CUnary::kNeg: return pick_unary<UNeg>(d);
    case CUnary::kPos: return pick_unary<UPos>(d);
    case CUnary::kConj: return pick_unary<UConj>(d);
    case CUnary::kAbs: return pick_unary<UAbs>(d);
    case CUnary::kExp: return pick_unary<UExp>(d);
    case CUnary::kLog: return pick_unary<ULog>(d);
    case CUnary::kSqrt: return pick_unary<USqrt>(d);
    case CUnary::kSquare: return pick_unary<USquare>(d);
    case CUnary::kReciprocal: return pick_unary<URecip>(d);
    case CUnary::kSign: return pick_unary<USign>(d);
    case CUnary::kIsnan: return pick_unary<UIsnan>(d);
    case CUnary::kIsinf: return pick_unary<UIsinf>(d);
    case CUnary::kIsfinite: return pick_unary<UIsfinite>(d);
    case CUnary::kSin: return pick_unary<USin>(d);
    case CUnary::kCos: return pick_unary<UCos>(d);
    case CUnary::kTan: return pick_unary<UTan>(d);
    case CUnary::kSinh: return pick_unary<USinh>(d);
    case CUnary::kCosh: return pick_unary<UCosh>(d);
    case CUnary::kTanh: return pick_unary<UTanh>(d);
    case CUnary::kArcsin: return pick_unary<UArcsin>(d);
    case CUnary::kArccos: return pick_unary<UArccos>(d);
    case CUnary::kArctan: return pick_unary<UArctan>(d);
    case CUnary::kArcsinh: return pick_unary<UArcsinh>(d);
    case CUnary::kArccosh: return pick_unary<UArccosh>(d);
    case CUnary::kArctanh: return pick_unary<UArctanh>(d);
    case CUnary::kLog2: return pick_unary<ULog2>(d);
    case CUnary::kLog10: return pick_unary<ULog10>(d);
    case CUnary::kLog1p: return pick_unary<ULog1p>(d);
    case CUnary::kExpm1: return pick_unary<UExpm1>(d);
    case CUnary::kExp2: return pick_unary<UExp2>(d);
    case CUnary::kRint: return pick_unary<URint>(d);
  }
  return nullptr;
}

InnerLoop complex_cast(DType from, DType to) noexcept {
  const bool cf = is_complex(from), ct = is_complex(to);
  if (cf && ct) {
    if (from == DType::kComplex64)
      return to == DType::kComplex64 ? &ccast_loop<complex64, complex64> : &ccast_loop<complex64, complex128>;
    return to == DType::kComplex64 ? &ccast_loop<complex128, complex64> : &ccast_loop<complex128, complex128>;
  }
  if (cf) {
    return from == DType::kComplex64 ? TableBuilder<FromComplex<complex64>::Make>::cached()[int(to)]
                                     : TableBuilder<FromComplex<complex128>::Make>::cached()[int(to)];
  }
  if (ct) {
    return to == DType::kComplex64 ? TableBuilder<ToComplex<complex64>::Make>::cached()[int(from)]
                                   : TableBuilder<ToComplex<complex128>::Make>::cached()[int(from)];
  }
  return nullptr;
}

InnerLoop complex_where(DType d) noexcept {
  if (d == DType::kComplex64) return &where_loop<complex64>;
  if (d == DType::kComplex128) return &where_loop<complex128>;
  return nullptr;
}

namespace {
// NumPy's @TYPE@_argmax/argmin for complex: a strictly greater (smaller)
// element in lexicographic order replaces the best; an element with a NaN
// part is taken and ends the scan.
template <typename T, bool kMax>
int64_t carg(const char* p, int64_t stride, int64_t n) {
  Cx<T> best = load<Cx<T>>(p);
  if (cnan(best)) return 0;
  int64_t at = 0;
  p += stride;
  for (int64_t i = 1; i < n; ++i, p += stride) {
    const Cx<T> v = load<Cx<T>>(p);
    if (cnan(v)) return i;
    const bool better = kMax ? (v.real() > best.real() || (v.real() == best.real() && v.imag() > best.imag()))
                             : (v.real() < best.real() || (v.real() == best.real() && v.imag() < best.imag()));
    if (better) {
      best = v;
      at = i;
    }
  }
  return at;
}
}  // namespace

int64_t complex_arg_extremum(DType d, bool is_max, const char* p, int64_t stride, int64_t n) noexcept {
  if (d == DType::kComplex64) return is_max ? carg<float, true>(p, stride, n) : carg<float, false>(p, stride, n);
  return is_max ? carg<double, true>(p, stride, n) : carg<double, false>(p, stride, n);
}

// ------------------------------------------------------------------ conjugate

namespace {

template <typename T>
void copy_loop(char** p, const int64_t* s, int64_t n) {
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) std::memcpy(o, a, sizeof(T));
}

// conjugate of a real array is a copy (NumPy: same dtype; bool has no loop
// and computes in int8, see rule_conjugate).
InnerLoop select_conjugate(const LoopTypes& lt) {
  if (is_complex(lt.in[0])) return complex_unary(CUnary::kConj, lt.in[0]);
  switch (dtype_size(lt.in[0])) {
    case 1: return &copy_loop<uint8_t>;
    case 2: return &copy_loop<uint16_t>;
    case 4: return &copy_loop<uint32_t>;
    default: return &copy_loop<uint64_t>;
  }
}

// NumPy's loops: every numeric dtype to itself; bool has none and takes the
// int8 one (np.conjugate(True) is int8 1; ndarray.conj() of a bool array is the array).
Status rule_conjugate(const OpDef&, const DType* in, const Attrs&, LoopTypes* t) {
  t->in[0] = t->out = in[0] == DType::kBool ? DType::kInt8 : in[0];
  return Status::OK();
}

const OpRegistrar kConjugate(elementwise_op("conjugate", 1, rule_conjugate, &select_conjugate,
                                            "Complex conjugate (re, -im), elementwise; real arrays are copied."));

}  // namespace
}  // namespace asc::ops::detail
