// The 16-bit floats of pyasc.distributed._native (native.cc): float16 and bfloat16 as
// NumPy's float16 loops and ml_dtypes' bfloat16 loops compute them (each step in float32,
// rounded once), and the MPI user ops that reduce them (MPI has no 16-bit float types).
// Included once, by native.cc, inside its anonymous namespace (needs <mpi.h>, <cstdint>,
// <cstring> first).
#pragma once

// ---- float16 ---------------------------------------------------------------------
//
// MPI has no 16-bit float. torch's gloo sums float16 in float32; NumPy's float16 loops
// convert each operand to float32, compute, and round the result to float16 once (round to
// nearest even) - the sum or product of two float16 values is exact in float32, so that is
// the correctly rounded float16 result. The MPI ops below do exactly NumPy's step on every
// pair MPI combines (so 2 ranks give NumPy's bits; more ranks round once per step, as a
// NumPy reduction in MPI's order would).
float h2f(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu, x;
  if (e == 0x1F) {
    x = sign | 0x7F800000u | (m << 13);  // inf / NaN (payload kept)
  } else if (e != 0) {
    x = sign | ((e + 112) << 23) | (m << 13);
  } else if (m == 0) {
    x = sign;
  } else {  // subnormal: normalise
    uint32_t sh = 0;
    while (!(m & 0x400u)) {
      m <<= 1;
      ++sh;
    }
    x = sign | ((113 - sh) << 23) | ((m & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t f2h(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t mant = x & 0x7FFFFFu;
  const int exp = static_cast<int>((x >> 23) & 0xFFu);
  if (exp == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? (0x200u | (mant >> 13)) : 0u));
  const int e = exp - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow: inf
  if (e <= 0) {  // a float16 subnormal or zero: h = value / 2^-24, rounded to nearest even
    if (e < -10) return static_cast<uint16_t>(sign);
    const uint32_t m24 = mant | 0x800000u;
    const int shift = 14 - e;
    uint32_t h = m24 >> shift;
    const uint32_t rem = m24 & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is right (up to inf)
  return static_cast<uint16_t>(sign | h);
}

// ---- bfloat16 ---------------------------------------------------------------------
//
// bfloat16 has no PEP 3118 format: Python passes a uint16 view of the buffer and says which
// type it is (allreduce()'s bf16 argument). ml_dtypes' bfloat16 loops (NumPy's with
// ml_dtypes.bfloat16) compute each step in float32 and round the float32 result to bfloat16
// once: round to nearest even on the upper 16 bits, NaN kept as a quiet NaN of the same sign
// (Eigen's float_to_bfloat16_rtne, which ml_dtypes uses). The ops below do that step on every
// pair MPI combines, so 2 ranks give NumPy's bits (bf16_apply below).
float bf2f(uint16_t h) {
  const uint32_t x = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t f2bf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u) & 0xFFC0u;  // NaN
  x += 0x7FFFu + ((x >> 16) & 1u);  // a carry into the exponent is right (up to inf)
  return static_cast<uint16_t>(x >> 16);
}

// ---- the ops ----------------------------------------------------------------------
//
// The elementwise step o = f(a, b) of each 16-bit float op (which: 0 add, 1 multiply, 2 maximum,
// 3 minimum), a the first operand. NumPy's float16 maximum/minimum: (a >= b || isnan(a)) ? a : b
// (a NaN in either operand propagates, the first one's bits; a tie of signed zeros gives a).
// ml_dtypes' bfloat16 ones: (isnan(a) || a > b) ? a : b (a tie of signed zeros gives b).
bool h_isnan(uint16_t h) { return (h & 0x7FFFu) > 0x7C00u; }
bool bf_isnan(uint16_t h) { return (h & 0x7FFFu) > 0x7F80u; }

void half_apply(int which, const uint16_t* a, const uint16_t* b, uint16_t* o, Py_ssize_t n) {
  switch (which) {
    case 0: for (Py_ssize_t i = 0; i < n; ++i) o[i] = f2h(h2f(a[i]) + h2f(b[i])); break;
    case 1: for (Py_ssize_t i = 0; i < n; ++i) o[i] = f2h(h2f(a[i]) * h2f(b[i])); break;
    case 2: for (Py_ssize_t i = 0; i < n; ++i) o[i] = (h_isnan(a[i]) || h2f(a[i]) >= h2f(b[i])) ? a[i] : b[i]; break;
    default: for (Py_ssize_t i = 0; i < n; ++i) o[i] = (h_isnan(a[i]) || h2f(a[i]) <= h2f(b[i])) ? a[i] : b[i]; break;
  }
}

void bf16_apply(int which, const uint16_t* a, const uint16_t* b, uint16_t* o, Py_ssize_t n) {
  switch (which) {
    case 0: for (Py_ssize_t i = 0; i < n; ++i) o[i] = f2bf(bf2f(a[i]) + bf2f(b[i])); break;
    case 1: for (Py_ssize_t i = 0; i < n; ++i) o[i] = f2bf(bf2f(a[i]) * bf2f(b[i])); break;
    case 2: for (Py_ssize_t i = 0; i < n; ++i) o[i] = (bf_isnan(a[i]) || bf2f(a[i]) > bf2f(b[i])) ? a[i] : b[i]; break;
    default: for (Py_ssize_t i = 0; i < n; ++i) o[i] = (bf_isnan(a[i]) || bf2f(a[i]) < bf2f(b[i])) ? a[i] : b[i]; break;
  }
}

// MPI user ops: inout = f(in, inout), the argument order of the Python path's NumPy user ops.
template <int Which>
void half_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  half_apply(Which, static_cast<const uint16_t*>(in), static_cast<const uint16_t*>(inout),
             static_cast<uint16_t*>(inout), *len);
}

// The float16 ops, created on first use (MPI is initialised by then: this module loads with
// MPI; op_of runs with the GIL held, so once).
MPI_Op g_half_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
MPI_User_function* const kHalfFns[4] = {&half_fn<0>, &half_fn<1>, &half_fn<2>, &half_fn<3>};
MPI_Op half_op(int which) {
  if (g_half_ops[which] == MPI_OP_NULL && MPI_Op_create(kHalfFns[which], 1, &g_half_ops[which]) != MPI_SUCCESS)
    g_half_ops[which] = MPI_OP_NULL;
  return g_half_ops[which];
}

template <int Which>
void bf16_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  bf16_apply(Which, static_cast<const uint16_t*>(in), static_cast<const uint16_t*>(inout),
             static_cast<uint16_t*>(inout), *len);
}

MPI_Op g_bf16_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
MPI_User_function* const kBf16Fns[4] = {&bf16_fn<0>, &bf16_fn<1>, &bf16_fn<2>, &bf16_fn<3>};
MPI_Op bf16_op(int which) {
  if (g_bf16_ops[which] == MPI_OP_NULL && MPI_Op_create(kBf16Fns[which], 1, &g_bf16_ops[which]) != MPI_SUCCESS)
    g_bf16_ops[which] = MPI_OP_NULL;
  return g_bf16_ops[which];
}
