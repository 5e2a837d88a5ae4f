// pyasc.distributed._native: the hot paths of all_reduce, broadcast, reduce,
// all_gather_into_tensor and reduce_scatter_tensor, each in one C call.
//
// Why a separate extension module: the core (_C, libasc) must not depend on MPI
// (pyasc imports without an MPI library), while the 4 KiB latency goal of
// all_reduce (<= 1.2x mpi4py's Allreduce on NumPy buffers) leaves no room for
// Python-level staging. mpi4py stays the set-up path (MPI_Init, communicators,
// the launcher); this module receives a communicator's C handle (mpi4py's
// Comm.handle) and links the same libmpi.
//
// allreduce() does in one call what the Python path did in several: the buffer
// export (pyasc's bf_getbuffer finishes the lazy work producing or reading the
// array), the mismatch check of ASC_DISTRIBUTED_DEBUG=INFO (check words inside
// the one message for 2-rank groups up to 16 KiB, else a 16-byte fingerprint
// all-reduce first), MPI_Allreduce with the GIL released, AVG's division, and the
// watchdog stamp: a "blocked in all_reduce until <deadline>" slot that the
// Python watchdog thread reads with armed(), instead of a Python tuple store
// and a thread hand-off per call. Anything it does not handle (bfloat16, which
// Python passes as a uint16 view with a flag; bool; float32/64 MAX/MIN with NumPy's
// NaN rule; complex PRODUCT; non-contiguous or read-only arrays) returns
// NotImplemented and Python's general path runs. float16/bfloat16 reduce with this
// module's MPI ops (float16_ops.h: NumPy's / ml_dtypes' rounding and NaN rule).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
// The C API only (OpenMPI's deprecated C++ bindings do not build with -Werror).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <mutex>
#include <type_traits>
#include <vector>

#include "asc/runtime/stream.h"  // the caller's stream (libasc): async_gate.h

namespace {

// ReduceOp codes passed by Python (pyasc.distributed._collectives._OP_CODES).
enum OpCode : int { kSum = 0, kAvg = 1, kProduct = 2, kMin = 3, kMax = 4, kBand = 5, kBor = 6, kBxor = 7 };
// Check levels (pyasc.distributed._engine OFF/INFO/DETAIL). DETAIL: the shape joins the
// fingerprint and every call runs the fingerprint all-reduce (never in the message).
enum Level : int { kOff = 0, kInfo = 1, kDetail = 2 };
// Element kinds that may carry the in-message check words.
enum Kind : int { kF32, kF64, kI32, kI64, kOther };

// Bytes up to which a 2-rank call carries its INFO check in the message (as _engine.PIGGY_MAX).
// The price of the in-message form is two copies of the payload (staging in and out); that of
// the other form one 16-byte all-reduce round trip (~1 us on a quiet machine, where mpi4py's
// 4 KiB Allreduce took 2.1 us). Two copies of 64 KiB (~1.7 us each, measured with NumPy's
// copyto here) cost more than the round trip - the quiet bandwidth ratio at 64 KiB was 0.90
// with 64 KiB here - and two of 16 KiB (~0.45 us each) about as much: 16 KiB.
constexpr Py_ssize_t kPiggyMax = 16 << 10;
// The blocking mode's fingerprint all-reduce is a blocking MPI_Allreduce at every size. (An
// earlier version waited for it with MPI_Iallreduce + sleeps from 4 MiB on, to keep a rank
// from spinning on the core its late peer needs; but OpenMPI does not match a nonblocking
// collective with a blocking one: a 3 MiB all_reduce against a 5 MiB one, which must raise
// CollectiveMismatchError on both ranks, hung until the watchdog aborted the job. Measured
// with mpi4py alone: Allreduce on one rank, Iallreduce on the other, 16 bytes: no match
// in 10 s.) The form of every check message depends on the mode, never on the size.
// Spinning while a peer is late yields the core at each empty poll (mpi_yield_when_idle=1,
// set by _engine before MPI starts).

// ---- the watchdog slots ------------------------------------------------------
// One slot per calling thread (the caller's thread and the stream workers running
// async_op collectives may both be blocked in MPI): the deadline (CLOCK_MONOTONIC
// seconds, as time.monotonic()) of the blocking call in progress, 0 when none, and
// the Python group object (owned reference, replaced under the GIL by the thread's
// next call, read by armed() under the GIL). Threads beyond kSlots share slots
// (then the watchdog may miss one of two simultaneous calls: documented limit).
constexpr int kSlots = 16;
struct Slot {
  std::atomic<double> deadline{0.0};
  std::atomic<const char*> what{"all_reduce"};  // the blocked operation's name (static strings)
  PyObject* ctx = nullptr;
};
Slot g_slots[kSlots];
std::atomic<int> g_next_slot{0};
thread_local int t_slot = -1;

Slot& my_slot() {
  if (t_slot < 0) t_slot = g_next_slot.fetch_add(1, std::memory_order_relaxed) % kSlots;
  return g_slots[t_slot];
}

double monotonic() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---- dtype and op mapping -------------------------------------------------------

// Element types that MPI has no reduction for (float16: carried as 16-bit words, reduced by
// this module's own MPI ops) or that need NumPy's rounding (complex AVG's division).
enum Ext : int { kPlain = 0, kHalf = 1, kCx64 = 2, kCx128 = 3, kBf16 = 4 };

struct Type {
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  Kind kind = kOther;
  bool is_float = false;  // floating or complex: no bitwise ops, AVG allowed
  Ext ext = kPlain;
};

// From the PEP 3118 format of the buffer (pyasc and NumPy both give single characters for
// these dtypes, "Zf"/"Zd" for complex; bfloat16 has no format: not exported, the Python
// path). Unsupported: dt stays MPI_DATATYPE_NULL.
Type type_of(const char* fmt, Py_ssize_t itemsize) {
  Type t;
  if (fmt == nullptr) return t;
  while (*fmt == '@' || *fmt == '=' || *fmt == '<') ++fmt;
  if (fmt[0] == 'Z' && fmt[2] == '\0') {
    if (fmt[1] == 'f' && itemsize == 8) t = {MPI_C_FLOAT_COMPLEX, kOther, true, kCx64};
    else if (fmt[1] == 'd' && itemsize == 16) t = {MPI_C_DOUBLE_COMPLEX, kOther, true, kCx128};
    return t;
  }
  if (fmt[0] == '\0' || fmt[1] != '\0') return t;
  const char c = fmt[0];
  switch (c) {
    case 'e':
      if (itemsize == 2) t = {MPI_UINT16_T, kOther, true, kHalf};
      break;
    case 'f':
      if (itemsize == 4) t = {MPI_FLOAT, kF32, true};
      break;
    case 'd':
      if (itemsize == 8) t = {MPI_DOUBLE, kF64, true};
      break;
    case 'b': case 'h': case 'i': case 'l': case 'q':
      if (itemsize == 1) t.dt = MPI_INT8_T;
      else if (itemsize == 2) t.dt = MPI_INT16_T;
      else if (itemsize == 4) t = {MPI_INT32_T, kI32, false};
      else if (itemsize == 8) t = {MPI_INT64_T, kI64, false};
      break;
    case 'B': case 'H': case 'I': case 'L': case 'Q':
      if (itemsize == 1) t.dt = MPI_UINT8_T;
      else if (itemsize == 2) t.dt = MPI_UINT16_T;
      else if (itemsize == 4) t.dt = MPI_UINT32_T;
      else if (itemsize == 8) t.dt = MPI_UINT64_T;
      break;
    default:
      break;
  }
  return t;
}

#include "float16_ops.h"  // float16/bfloat16 conversions and MPI user ops
#include "async_gate.h"   // Gate: an async_op collective's body run once, by wait() or the stream

// MPI_OP_NULL: the Python path handles it (float MAX/MIN propagate NaN as NumPy,
// AVG of integers is an error there, bitwise ops of floats too; complex PRODUCT, where
// OpenMPI's multiply rounds differently from NumPy's).
// The 16-bit float op of a ReduceOp code (float16_ops.h: 0 add, 1 multiply, 2 maximum, 3
// minimum, each NumPy's / ml_dtypes' step), -1 for none (bitwise ops).
int half_which(int code) {
  return (code == kSum || code == kAvg) ? 0 : code == kProduct ? 1 : code == kMax ? 2 : code == kMin ? 3 : -1;
}

MPI_Op op_of(int code, const Type& t) {
  if (t.ext == kHalf || t.ext == kBf16) {
    const int w = half_which(code);
    return w < 0 ? MPI_OP_NULL : t.ext == kHalf ? half_op(w) : bf16_op(w);
  }
  if (t.ext != kPlain) return (code == kSum || code == kAvg) ? MPI_SUM : MPI_OP_NULL;
  const bool is_float = t.is_float;
  switch (code) {
    case kSum: case kAvg: return (code == kAvg && !is_float) ? MPI_OP_NULL : MPI_SUM;
    case kProduct: return MPI_PROD;
    case kMin: return is_float ? MPI_OP_NULL : MPI_MIN;
    case kMax: return is_float ? MPI_OP_NULL : MPI_MAX;
    case kBand: return is_float ? MPI_OP_NULL : MPI_BAND;
    case kBor: return is_float ? MPI_OP_NULL : MPI_BOR;
    case kBxor: return is_float ? MPI_OP_NULL : MPI_BXOR;
    default: return MPI_OP_NULL;
  }
}

// complex / n as NumPy divides complex numbers (Smith's method with a real divisor: times the
// reciprocal, not a division per part)
template <class F>
void divide_complex(void* buf, Py_ssize_t count, long n) {
  F* p = static_cast<F*>(buf);
  const F br = static_cast<F>(n), rat = F(0) / br, scl = F(1) / (br + F(0) * rat);
  for (Py_ssize_t i = 0; i < count; ++i) {
    const F ar = p[2 * i], ai = p[2 * i + 1];
    p[2 * i] = (ar + ai * rat) * scl;
    p[2 * i + 1] = (ai - ar * rat) * scl;
  }
}

// AVG's division by the group size, as NumPy's true_divide of the dtype (float16: in float32,
// rounded once).
void divide(const Type& t, void* buf, Py_ssize_t count, long n) {
  if (t.ext == kHalf) {
    uint16_t* p = static_cast<uint16_t*>(buf);
    for (Py_ssize_t i = 0; i < count; ++i) p[i] = f2h(h2f(p[i]) / static_cast<float>(n));
  } else if (t.ext == kBf16) {
    uint16_t* p = static_cast<uint16_t*>(buf);
    for (Py_ssize_t i = 0; i < count; ++i) p[i] = f2bf(bf2f(p[i]) / static_cast<float>(n));
  } else if (t.ext == kCx64) {
    divide_complex<float>(buf, count, n);
  } else if (t.ext == kCx128) {
    divide_complex<double>(buf, count, n);
  } else if (t.kind == kF32) {
    float* p = static_cast<float*>(buf);
    for (Py_ssize_t i = 0; i < count; ++i) p[i] /= static_cast<float>(n);
  } else if (t.kind == kF64) {
    double* p = static_cast<double*>(buf);
    for (Py_ssize_t i = 0; i < count; ++i) p[i] /= static_cast<double>(n);
  }
}

// ---- the check -----------------------------------------------------------------
//
// A 62-bit fingerprint of (operation, dtype, element count, op), equal on every
// rank that makes the same call (no addresses: handles differ between processes).
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t fingerprint(char fmt, Py_ssize_t itemsize, Py_ssize_t count, int op) {
  // 0xA11 names all_reduce: other collectives' Python fingerprints are CRC based, a
  // different family, so a rank in another collective reads another value too.
  uint64_t h = mix(0xA11ull ^ (static_cast<uint64_t>(static_cast<unsigned char>(fmt)) << 8) ^
                   (static_cast<uint64_t>(itemsize) << 16) ^ (static_cast<uint64_t>(op) << 24));
  return mix(h ^ static_cast<uint64_t>(count)) & ((1ull << 62) - 1);
}

// The 4 check words (a, a*a, b, b*b) for SUM/AVG: after the reduction they must
// read n times themselves exactly (small integers, exact in every kind), which
// holds only when every rank sent the same a and b (sum (a_i - a)^2 = 0).
// Other ops never take the in-message form (their words do not reduce to a test).
template <class T>
void put_words(void* dst, int64_t a, int64_t b) {
  T w[4] = {static_cast<T>(a), static_cast<T>(a * a), static_cast<T>(b), static_cast<T>(b * b)};
  std::memcpy(dst, w, sizeof w);
}
template <class T>
bool words_ok(const void* src, int64_t a, int64_t b, int n) {
  T w[4];
  std::memcpy(w, src, sizeof w);
  return w[0] == static_cast<T>(n * a) && w[1] == static_cast<T>(n * a * a) && w[2] == static_cast<T>(n * b) &&
         w[3] == static_cast<T>(n * b * b);
}

void put_words(Kind k, void* dst, int64_t a, int64_t b) {
  switch (k) {
    case kF32: put_words<float>(dst, a, b); break;
    case kF64: put_words<double>(dst, a, b); break;
    case kI32: put_words<int32_t>(dst, a, b); break;
    default: put_words<int64_t>(dst, a, b); break;
  }
}
bool words_ok(Kind k, const void* src, int64_t a, int64_t b, int n) {
  switch (k) {
    case kF32: return words_ok<float>(src, a, b, n);
    case kF64: return words_ok<double>(src, a, b, n);
    case kI32: return words_ok<int32_t>(src, a, b, n);
    default: return words_ok<int64_t>(src, a, b, n);
  }
}

// The XOR form of the check (the 2-rank gathers, see coll()): 4 words derived from the
// fingerprint h, all-reduced with MPI_BXOR; every word reads 0 afterwards exactly when the
// peer sent the same words. Bit 62 of the first word is set: the small check words of a SUM
// form (a <= 512) or a fingerprint pair (62-bit) from a peer in another collective never cancel it.
void put_xor_words(void* dst, uint64_t h) {
  const uint64_t w[4] = {h | (1ull << 62), mix(h ^ 0x5BD1E995ull), mix(h + 1), ~h};
  std::memcpy(dst, w, sizeof w);
}
bool xor_words_ok(const void* src) {
  uint64_t w[4];
  std::memcpy(w, src, sizeof w);
  return (w[0] | w[1] | w[2] | w[3]) == 0;
}

// out[i] = x[i] ^ y[i] over n bytes (8 at a time; the caller's buffers may be unaligned).
void xor_bytes(unsigned char* out, const unsigned char* x, const unsigned char* y, Py_ssize_t n) {
  Py_ssize_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, x + i, 8);
    std::memcpy(&b, y + i, 8);
    a ^= b;
    std::memcpy(out + i, &a, 8);
  }
  for (; i < n; ++i) out[i] = static_cast<unsigned char>(x[i] ^ y[i]);
}

// out = op(x, y) elementwise for reduce_scatter_tensor's 2-rank XOR form (the local half of
// the reduction MPI would do: on two ranks MPI computes x + y too, and + and * are
// commutative in IEEE arithmetic, so the result is the same bits). Integers wrap as C's
// unsigned arithmetic (NumPy's, and MPI's base op component's). AVG: the sum here, the
// division after (divide()). Float MIN/MAX never reach the C path (NumPy's NaN rule).
template <class T>
void combine_t(int op, void* out_v, const void* x_v, const void* y_v, Py_ssize_t n) {
  T* out = static_cast<T*>(out_v);
  const T* x = static_cast<const T*>(x_v);
  const T* y = static_cast<const T*>(y_v);
  if constexpr (std::is_floating_point_v<T>) {
    if (op == kProduct)
      for (Py_ssize_t i = 0; i < n; ++i) out[i] = x[i] * y[i];
    else
      for (Py_ssize_t i = 0; i < n; ++i) out[i] = x[i] + y[i];
  } else {
    using U = std::make_unsigned_t<T>;
    for (Py_ssize_t i = 0; i < n; ++i) {
      const T a = x[i], b = y[i];
      switch (op) {
        case kSum: case kAvg: out[i] = static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b))); break;
        case kProduct: out[i] = static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b))); break;
        case kMin: out[i] = a < b ? a : b; break;
        case kMax: out[i] = a < b ? b : a; break;
        case kBand: out[i] = static_cast<T>(a & b); break;
        case kBor: out[i] = static_cast<T>(a | b); break;
        default: out[i] = static_cast<T>(a ^ b); break;
      }
    }
  }
}

// combine_t for the element type t (the types type_of maps; float16 as NumPy's float16 step,
// complex SUM/AVG as float pairs). False: not one of them.
bool combine(const Type& t, int op, void* out, const void* x, const void* y, Py_ssize_t n) {
  const MPI_Datatype dt = t.dt;
  if (t.ext == kHalf || t.ext == kBf16) {
    const int w = half_which(op);
    if (w < 0) return false;
    (t.ext == kHalf ? half_apply : bf16_apply)(w, static_cast<const uint16_t*>(x), static_cast<const uint16_t*>(y),
                                               static_cast<uint16_t*>(out), n);
  } else if (t.ext == kCx64) {
    combine_t<float>(kSum, out, x, y, 2 * n);
  } else if (t.ext == kCx128) {
    combine_t<double>(kSum, out, x, y, 2 * n);
  } else if (dt == MPI_FLOAT) combine_t<float>(op, out, x, y, n);
  else if (dt == MPI_DOUBLE) combine_t<double>(op, out, x, y, n);
  else if (dt == MPI_INT8_T) combine_t<int8_t>(op, out, x, y, n);
  else if (dt == MPI_INT16_T) combine_t<int16_t>(op, out, x, y, n);
  else if (dt == MPI_INT32_T) combine_t<int32_t>(op, out, x, y, n);
  else if (dt == MPI_INT64_T) combine_t<int64_t>(op, out, x, y, n);
  else if (dt == MPI_UINT8_T) combine_t<uint8_t>(op, out, x, y, n);
  else if (dt == MPI_UINT16_T) combine_t<uint16_t>(op, out, x, y, n);
  else if (dt == MPI_UINT32_T) combine_t<uint32_t>(op, out, x, y, n);
  else if (dt == MPI_UINT64_T) combine_t<uint64_t>(op, out, x, y, n);
  else return false;
  return true;
}

// The staging buffer of the in-message check (check words first: a peer whose
// message is shorter overwrites them, while the untouched end of a receive buffer
// could hold stale values of an earlier call). One per thread: the GIL is released
// during MPI calls, so two threads may be inside allreduce() at once.
thread_local std::vector<unsigned char> t_stage;

// ---- allreduce -------------------------------------------------------------------

// Failure kinds returned to Python as (kind, MPI error code) — the cold paths stay there.
enum Fail : int { kMismatch = 1, kCheckError = 2, kDataError = 3, kTimedOut = 4 };

// How the MPI calls run: blocking (the caller's thread), or nonblocking waited for with
// sleeps (a stream worker running an async_op collective beside the caller's compute: a
// blocking call would spin on the core the compute needs, and a Python-level wait would
// fight the caller for the GIL at every test); at the deadline the watchdog (kWaitWatchdog,
// the default mode) or a kTimedOut return (kWaitRaise, ASC_DISTRIBUTED_BLOCKING=0).
// kAuto (an async_op collective's stream task in the default mode): blocking when the call
// takes the in-message check (a message of at most kPiggyMax bytes, short), else kWaitWatchdog;
// so the task sends the same messages as a blocking call of the same collective on a peer.
enum Wait : int { kBlocking = 0, kWaitWatchdog = 1, kWaitRaise = 2, kAuto = 3 };

constexpr double kSpinS = 20e-6;

// Completes request req: MPI_Test for up to kSpinS, then with sleeps of 10 us doubling to max_pause_ns (MPI progresses the operation at each test). Returns MPI_ERR_PENDING at the
// deadline in kWaitRaise mode: the request is left to MPI and its buffers must stay valid
// (the caller leaks them).
int test_wait(MPI_Request* req, int wait, double deadline, long max_pause_ns) {
  int err;
  // Test for up to kSpinNs before the first pause: a peer nearly in step (a small message on
  // a quiet machine completes in a few us) then costs no sleep, where nanosleep's shortest
  // pause is ~60 us (10 us asked plus Linux's default 50 us timer slack).
  const double spin_end = monotonic() + kSpinS;
  do {
    int done = 0;
    err = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || done) return err;
  } while (monotonic() < spin_end);
  long pause_ns = 10000;
  for (;;) {
    int done = 0;
    err = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || done) return err;
    if (wait == kWaitRaise && monotonic() > deadline) return MPI_ERR_PENDING;
    timespec ts{0, pause_ns};
    nanosleep(&ts, nullptr);
    pause_ns = pause_ns * 2 > max_pause_ns ? max_pause_ns : pause_ns * 2;
  }
}

// MPI_Iallreduce in place, completed by test_wait.
int iallreduce_wait(void* buf, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int wait, double deadline,
                    long max_pause_ns = 500000) {
  MPI_Request req;
  int err = MPI_Iallreduce(MPI_IN_PLACE, buf, n, dt, op, comm, &req);
  if (err != MPI_SUCCESS) return err;
  return test_wait(&req, wait, deadline, max_pause_ns);
}

PyObject* fail(int kind, int err) { return Py_BuildValue("(ii)", kind, err); }

// allreduce(buffer, comm_handle, op_code, group_size, level, timeout_s, group[, wait]) ->
//   None (done), NotImplemented (use the Python path; nothing was sent), or
//   (kind, mpi_error_code) after a failure (kind: 1 the ranks disagree, 2 MPI error
//   in the check, 3 MPI error in the data transfer, 4 timed out (wait=2)).
PyObject* allreduce(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 7 || nargs > 9) {
    PyErr_SetString(PyExc_TypeError, "allreduce() takes 7 to 9 arguments");
    return nullptr;
  }
  long wait = nargs >= 8 ? PyLong_AsLong(args[7]) : static_cast<long>(kBlocking);
  // bf16: the buffer is a uint16 view of bfloat16 elements (no PEP 3118 format of their own)
  const bool bf16 = nargs == 9 && PyObject_IsTrue(args[8]) == 1;
  const unsigned long long handle = PyLong_AsUnsignedLongLong(args[1]);
  const long op_code = PyLong_AsLong(args[2]);
  const long size = PyLong_AsLong(args[3]);
  const long level = PyLong_AsLong(args[4]);
  const double timeout = PyFloat_AsDouble(args[5]);
  if (PyErr_Occurred()) return nullptr;
  MPI_Comm comm = reinterpret_cast<MPI_Comm>(static_cast<uintptr_t>(handle));

  Py_buffer view;
  if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    // Read-only or strided: the Python path stages or reports it (nothing sent).
    if (!PyErr_ExceptionMatches(PyExc_BufferError)) return nullptr;
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  Type t = type_of(view.format, view.itemsize);
  if (bf16) t = t.dt == MPI_UINT16_T ? Type{MPI_UINT16_T, kOther, true, kBf16} : Type{};
  const MPI_Op op = t.dt == MPI_DATATYPE_NULL ? MPI_OP_NULL : op_of(static_cast<int>(op_code), t);
  if (op == MPI_OP_NULL || view.len > static_cast<Py_ssize_t>(INT32_MAX) * view.itemsize) {
    PyBuffer_Release(&view);
    Py_RETURN_NOTIMPLEMENTED;
  }
  const Py_ssize_t count = view.len / view.itemsize;
  // (Nonblocking: never in the message. MPI's libnbc algorithm hung on a truncated message.)
  if (wait == kAuto)
    wait = (level == kInfo && size == 2 && t.kind != kOther && count > 0 && view.len <= kPiggyMax &&
            (op_code == kSum || op_code == kAvg))
               ? kBlocking
               : kWaitWatchdog;
  const bool piggy = wait == kBlocking && level == kInfo && size == 2 && t.kind != kOther && count > 0 &&
                     view.len <= kPiggyMax && (op_code == kSum || op_code == kAvg);
  uint64_t h = 0;
  const long checked = size > 1 ? level : static_cast<long>(kOff);  // one rank cannot disagree with itself
  if (checked != kOff) {
    const char* f = view.format;
    while (*f == '@' || *f == '=' || *f == '<') ++f;
    // bfloat16 checks as 'E' (no format character of its own): never equal to a uint16 call
    h = fingerprint(bf16 ? 'E' : *f, view.itemsize, count, static_cast<int>(op_code));
    if (checked == kDetail) {
      h = mix(h ^ (0xD37A11ull + static_cast<uint64_t>(view.ndim)));
      for (int i = 0; i < view.ndim; ++i) h = mix(h ^ static_cast<uint64_t>(view.shape[i]));
      h &= (1ull << 62) - 1;
    }
  }
  unsigned char* stage = nullptr;
  const int64_t a = 1 + static_cast<int64_t>(h & 511), b = 1 + static_cast<int64_t>((h >> 9) & 511);
  const Py_ssize_t words = 4 * view.itemsize;
  if (piggy) {
    if (t_stage.size() < static_cast<size_t>(view.len + words)) t_stage.resize(view.len + words);
    stage = t_stage.data();
    put_words(t.kind, stage, a, b);
    std::memcpy(stage + words, view.buf, view.len);
  }

  // Arm the watchdog (group object kept alive in the slot until the thread's next call).
  Slot& slot = my_slot();
  if (slot.ctx != args[6]) {
    Py_INCREF(args[6]);
    PyObject* old = slot.ctx;
    slot.ctx = args[6];
    Py_XDECREF(old);
  }
  const double deadline = monotonic() + timeout;
  int err = MPI_SUCCESS, kind = 0;
  bool mismatch = false;
  // The fingerprint pair lives on the heap: a timed-out nonblocking request may still write it.
  int64_t* fp = new int64_t[2];
  Py_BEGIN_ALLOW_THREADS
  slot.what.store("all_reduce", std::memory_order_relaxed);
  if (wait != kWaitRaise) slot.deadline.store(deadline, std::memory_order_release);
  if (piggy) {
    err = MPI_Allreduce(MPI_IN_PLACE, stage, static_cast<int>(count + 4), t.dt, op, comm);
    if (err != MPI_SUCCESS) kind = kCheckError;
    else mismatch = !words_ok(t.kind, stage, a, b, static_cast<int>(size));
    if (kind == 0 && !mismatch) std::memcpy(view.buf, stage + words, view.len);
  } else {
    if (checked != kOff) {
      // (h, -h) reduced with MAX gives the largest and the smallest fingerprint at once.
      fp[0] = static_cast<int64_t>(h);
      fp[1] = -static_cast<int64_t>(h);
      if (wait != kBlocking)
        err = iallreduce_wait(fp, 2, MPI_INT64_T, MPI_MAX, comm, wait, deadline);
      else
        err = MPI_Allreduce(MPI_IN_PLACE, fp, 2, MPI_INT64_T, MPI_MAX, comm);
      if (err == MPI_ERR_PENDING) kind = kTimedOut;
      else if (err != MPI_SUCCESS) kind = kCheckError;
      else mismatch = fp[0] != -fp[1];
    }
    if (kind == 0 && !mismatch) {
      err = wait == kBlocking
                ? MPI_Allreduce(MPI_IN_PLACE, view.buf, static_cast<int>(count), t.dt, op, comm)
                : iallreduce_wait(view.buf, static_cast<int>(count), t.dt, op, comm, wait, deadline);
      if (err == MPI_ERR_PENDING) kind = kTimedOut;
      else if (err != MPI_SUCCESS) kind = kDataError;
    }
  }
  slot.deadline.store(0.0, std::memory_order_release);
  if (kind == 0 && !mismatch && op_code == kAvg) divide(t, view.buf, count, size);
  Py_END_ALLOW_THREADS
  if (kind == kTimedOut) {
    // MPI may still write the buffer and the pair: both stay alive for good (the group is
    // unusable from now on, as after the Python path's timeout).
    return fail(kind, 0);
  }
  delete[] fp;
  PyBuffer_Release(&view);
  if (kind != 0) return fail(kind, err);
  if (mismatch) return fail(kMismatch, 0);
  Py_RETURN_NONE;
}

// ---- broadcast, reduce, all_gather_into_tensor, reduce_scatter_tensor ------------------
//
// The same design as allreduce() for the other collectives whose Python path cost several
// times mpi4py's call at 4 KiB (broadcast 3.7x): one C call with the buffers exported here,
// the INFO check, the MPI call with the GIL released, AVG's division, the watchdog slot.
// The INFO check of a 2-rank group's small call (at most kPiggyMax bytes on the wire) rides
// in the message as all_reduce's does: the call becomes one MPI_Allreduce of a staging buffer
// whose first 4 elements are the check words (a, a*a, b, b*b). broadcast and the gathers add
// int64 words over the bytes with zeros from the ranks that do not own them (exact: x + 0);
// reduce and reduce_scatter_tensor (SUM/AVG) reduce in the data's type. On 2 ranks small
// messages are latency bound, so the all-reduce costs what the collective itself costs, and
// every rank learns of a mismatch (another collective, count, dtype, root or op) in the same
// exchange. Larger calls and larger groups: the 16-byte fingerprint all-reduce, then the MPI
// collective on the caller's memory (no copy).
enum Coll : int { kAllReduceColl = 0, kBcast = 1, kReduce = 2, kAllGatherT = 3, kRedScatT = 4, kGather = 5,
                  kScatter = 6 };
const char* const kCollNames[] = {"all_reduce", "broadcast", "reduce", "all_gather_into_tensor",
                                  "reduce_scatter_tensor", "gather", "scatter"};

// A dtype class code independent of the exporter's spelling ('l' vs 'q'): kind and size.
int dtype_code(const char* fmt, Py_ssize_t itemsize) {
  if (fmt == nullptr) return -1;
  while (*fmt == '@' || *fmt == '=' || *fmt == '<') ++fmt;
  if (fmt[0] == 'Z' && (fmt[1] == 'f' || fmt[1] == 'd') && fmt[2] == '\0') return 5 * 16 + static_cast<int>(itemsize);
  if (fmt[0] == '\0' || fmt[1] != '\0') return -1;
  int k;
  switch (fmt[0]) {
    case '?': k = 1; break;
    case 'b': case 'h': case 'i': case 'l': case 'q': k = 2; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': k = 3; break;
    case 'e': case 'f': case 'd': k = 4; break;
    default: return -1;  // structured and the like: the Python path
  }
  return k * 16 + static_cast<int>(itemsize);
}

uint64_t coll_fingerprint(int coll, int dcode, Py_ssize_t count_a, Py_ssize_t count_b, int op, int root) {
  uint64_t h = mix(0xC0110000ull ^ static_cast<uint64_t>(coll) ^ (static_cast<uint64_t>(dcode) << 8) ^
                   (static_cast<uint64_t>(op + 1) << 24) ^ (static_cast<uint64_t>(root + 1) << 32));
  h = mix(h ^ static_cast<uint64_t>(count_a));
  return mix(h ^ (static_cast<uint64_t>(count_b) * 0x9E3779B97F4A7C15ull)) & ((1ull << 62) - 1);
}

uint64_t add_shape(uint64_t h, const Py_buffer& v) {
  h = mix(h ^ (0xD37A11ull + static_cast<uint64_t>(v.ndim)));
  for (int i = 0; i < v.ndim; ++i) h = mix(h ^ static_cast<uint64_t>(v.shape[i]));
  return h & ((1ull << 62) - 1);
}

// A nonblocking MPI call started by start(&req), waited for with sleeps (see iallreduce_wait).
template <class Start>
int nb_wait(Start start, int wait, double deadline, long max_pause_ns = 500000) {
  MPI_Request req;
  int err = start(&req);
  if (err != MPI_SUCCESS) return err;
  return test_wait(&req, wait, deadline, max_pause_ns);
}

struct Views {
  Py_buffer a{}, b{};
  bool has_a = false, has_b = false;
  ~Views() {
    if (has_a) PyBuffer_Release(&a);
    if (has_b) PyBuffer_Release(&b);
  }
};

// Exports obj (C-contiguous, format; writable when asked). False with no Python error set:
// not exportable so (the Python path stages or reports it); false with an error: raise it.
bool get_view(PyObject* obj, Py_buffer* v, bool writable) {
  const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj, v, flags) == 0) return true;
  if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError)) PyErr_Clear();
  return false;
}

// coll(kind, a, b, root, op_code, comm_handle, size, rank, level, timeout_s, group, wait[, bf16]) ->
//   None / NotImplemented (nothing sent) / (fail kind, MPI error) as allreduce().
//   kBcast: a the tensor, root the group rank of the source; kReduce: a the tensor, root the
//   group rank of the destination; kAllGatherT: a the output, b the input; kRedScatT: a the
//   output, b the input; kGather: a the input, b the root's output (n blocks; None elsewhere);
//   kScatter: a the output, b the root's input. Validation errors (shapes) are the Python
//   path's: NotImplemented.
PyObject* coll(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 12 && nargs != 13) {
    PyErr_SetString(PyExc_TypeError, "coll() takes 12 or 13 arguments");
    return nullptr;
  }
  // bf16: the arrays are uint16 views of bfloat16 elements (no PEP 3118 format of their own)
  const bool bf16 = nargs == 13 && PyObject_IsTrue(args[12]) == 1;
  const long kind = PyLong_AsLong(args[0]);
  const long root = PyLong_AsLong(args[3]);
  const long op_code = PyLong_AsLong(args[4]);
  const unsigned long long handle = PyLong_AsUnsignedLongLong(args[5]);
  const long size = PyLong_AsLong(args[6]);
  const long rank = PyLong_AsLong(args[7]);
  const long level = PyLong_AsLong(args[8]);
  const double timeout = PyFloat_AsDouble(args[9]);
  long wait = PyLong_AsLong(args[11]);
  if (PyErr_Occurred()) return nullptr;
  if (kind < kBcast || kind > kScatter || size < 1 || rank < 0 || rank >= size) Py_RETURN_NOTIMPLEMENTED;
  MPI_Comm comm = reinterpret_cast<MPI_Comm>(static_cast<uintptr_t>(handle));
  // gather / scatter: a is this rank's block (gather: the input; scatter: the output), b the
  // root's buffer of all blocks in group-rank order (gather: the output; scatter: the input;
  // None on the other ranks; Python stages the lists there)
  const bool blocks = kind == kGather || kind == kScatter;
  const bool rooted = kind == kBcast || kind == kReduce || blocks;
  if (rooted && (root < 0 || root >= size)) Py_RETURN_NOTIMPLEMENTED;
  const bool two = kind == kAllGatherT || kind == kRedScatT;
  const bool reducing = kind == kReduce || kind == kRedScatT;

  Views vs;
  // what this rank writes: broadcast's non-roots, reduce's root, the gathers' outputs
  const bool write_a = kind == kBcast ? rank != root : kind == kReduce ? rank == root : kind != kGather;
  if (!get_view(args[1], &vs.a, write_a)) {
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NOTIMPLEMENTED;
  }
  vs.has_a = true;
  if (two) {
    if (!get_view(args[2], &vs.b, false)) {
      if (PyErr_Occurred()) return nullptr;
      Py_RETURN_NOTIMPLEMENTED;
    }
    vs.has_b = true;
  }
  const bool has_all = blocks && rank == root;
  if (has_all) {
    if (!get_view(args[2], &vs.b, kind == kGather)) {
      if (PyErr_Occurred()) return nullptr;
      Py_RETURN_NOTIMPLEMENTED;
    }
    vs.has_b = true;
  }
  Py_buffer& a = vs.a;
  int dcode = dtype_code(a.format, a.itemsize);
  if (dcode < 0) Py_RETURN_NOTIMPLEMENTED;
  if ((two || has_all) && (dtype_code(vs.b.format, vs.b.itemsize) != dcode)) Py_RETURN_NOTIMPLEMENTED;
  if (bf16) {
    if (dcode != 3 * 16 + 2) Py_RETURN_NOTIMPLEMENTED;  // (not a uint16 view)
    dcode = 6 * 16 + 2;  // its own class: a bfloat16 call never agrees with a uint16 one
  }
  if (has_all && vs.b.len != size * a.len) Py_RETURN_NOTIMPLEMENTED;  // (Python checked the shapes)
  const Py_ssize_t count_a = a.len / a.itemsize;
  // gather/scatter: the all-blocks count every rank computes alike (only the root has the buffer)
  const Py_ssize_t count_b = two ? vs.b.len / vs.b.itemsize : blocks ? size * count_a : 0;
  if (kind == kAllGatherT && count_a != size * count_b) Py_RETURN_NOTIMPLEMENTED;
  if (kind == kRedScatT && count_b != size * count_a) Py_RETURN_NOTIMPLEMENTED;
  Type t;
  MPI_Op op = MPI_OP_NULL;
  if (reducing) {
    t = bf16 ? Type{MPI_UINT16_T, kOther, true, kBf16} : type_of(a.format, a.itemsize);
    op = t.dt == MPI_DATATYPE_NULL ? MPI_OP_NULL : op_of(static_cast<int>(op_code), t);
    if (op == MPI_OP_NULL) Py_RETURN_NOTIMPLEMENTED;
  }
  // the largest count one MPI call carries (bytes for broadcast and the gathers)
  const Py_ssize_t wire = kind == kRedScatT ? vs.b.len : blocks ? size * a.len : a.len;
  if (wire > static_cast<Py_ssize_t>(INT32_MAX) - 64) Py_RETURN_NOTIMPLEMENTED;

  const bool avg = reducing && op_code == kAvg;
  // The 2-rank gathers take the XOR form of the in-message check (see above): the payload is
  // one block (all_gather_into_tensor: the input; reduce_scatter_tensor: the input's chunk for
  // the peer), any op of the C path. reduce reduces the check words in the data's type (SUM/AVG).
  const bool xor_form = two || blocks;  // (gather/scatter: one block too, see the staging below)
  const Py_ssize_t payload = kind == kAllGatherT ? vs.b.len : (kind == kRedScatT || blocks) ? a.len : wire;
  const bool typed_piggy_op = !reducing || xor_form || (t.kind != kOther && (op_code == kSum || op_code == kAvg));
  const bool small = level == kInfo && size == 2 && payload > 0 && payload <= kPiggyMax && typed_piggy_op;
  if (wait == kAuto) wait = small ? kBlocking : kWaitWatchdog;
  const bool piggy = small && wait == kBlocking;
  const long checked = size > 1 ? level : static_cast<long>(kOff);
  uint64_t h = 0;
  if (checked != kOff) {
    h = coll_fingerprint(static_cast<int>(kind), dcode, count_a, count_b, reducing ? static_cast<int>(op_code) : -1,
                         rooted ? static_cast<int>(root) : -1);
    if (checked == kDetail) {
      h = add_shape(h, a);
      if (two) h = add_shape(h, vs.b);
    }
  }
  const int64_t wa = 1 + static_cast<int64_t>(h & 511), wb = 1 + static_cast<int64_t>((h >> 9) & 511);

  // The staging buffer of the in-message check: reduce in the data's type (SUM/AVG), broadcast
  // as int64 words over the bytes (zeros from the non-root), the gathers in the XOR form.
  //
  // The XOR form: on two ranks a gather needs one block from the peer, and an all-reduce with
  // MPI_BXOR of one block each gives x = mine ^ peer's, from which each rank recovers the
  // peer's block exactly (x ^ mine). all_gather_into_tensor sends its input block,
  // reduce_scatter_tensor the chunk of its input that the peer's output reduces (then reduces
  // locally, as MPI's 2-rank algorithm does). The message is one block plus 32 check bytes
  // (half what an all-reduce of the whole output sent before): a 4 KiB call's 2 KiB + 32 stays
  // under OpenMPI's shared-memory eager limit (4096 bytes with the header), as mpi4py's
  // Allgather/Reduce_scatter_block messages do, where the whole-output form took the
  // rendezvous protocol (measured 1.67x / 1.52x mpi4py at 4 KiB). It stays an MPI_Allreduce,
  // the collective every first message of a checked call is: a peer in another collective
  // still meets this one and both raise CollectiveMismatchError.
  unsigned char* stage = nullptr;
  Kind sk = kI64;
  MPI_Datatype sdt = MPI_INT64_T;
  MPI_Op sop = MPI_SUM;
  Py_ssize_t words = 4 * 8, scount = 0;
  const Py_ssize_t peer = 1 - rank;  // (piggy: two ranks)
  if (piggy) {
    if (kind == kReduce) {
      sk = t.kind;
      sdt = t.dt;
      sop = op;
      words = 4 * a.itemsize;
      scount = 4 + wire / a.itemsize;
    } else {
      if (xor_form) sop = MPI_BXOR;
      scount = 4 + (payload + 7) / 8;
    }
    const size_t need = static_cast<size_t>(words + (scount - 4) * (kind == kReduce ? a.itemsize : 8));
    if (t_stage.size() < need) t_stage.resize(need);
    stage = t_stage.data();
    if (xor_form) put_xor_words(stage, h);
    else put_words(sk, stage, wa, wb);
    unsigned char* d = stage + words;
    const size_t dbytes = need - static_cast<size_t>(words);
    if (kind == kBcast) {
      if (rank == root) {
        std::memcpy(d, a.buf, a.len);
        std::memset(d + a.len, 0, dbytes - a.len);
      } else {
        std::memset(d, 0, dbytes);
      }
    } else if (kind == kReduce) {
      std::memcpy(d, a.buf, a.len);
    } else if (blocks) {
      // gather: every rank sends its block (the root recovers the peer's as x ^ its own);
      // scatter: the root sends the peer's block, the peer zeros (it reads x = the block)
      if (kind == kGather) std::memcpy(d, a.buf, payload);
      else if (rank == root) std::memcpy(d, static_cast<const unsigned char*>(vs.b.buf) + peer * payload, payload);
      else std::memset(d, 0, payload);
      std::memset(d + payload, 0, dbytes - payload);
    } else {
      const unsigned char* src = static_cast<const unsigned char*>(vs.b.buf);
      if (kind == kRedScatT) src += peer * payload;  // the chunk the peer's output reduces
      std::memcpy(d, src, payload);
      std::memset(d + payload, 0, dbytes - payload);
    }
  }

  Slot& slot = my_slot();
  if (slot.ctx != args[10]) {
    Py_INCREF(args[10]);
    PyObject* old = slot.ctx;
    slot.ctx = args[10];
    Py_XDECREF(old);
  }
  const double deadline = monotonic() + timeout;
  int err = MPI_SUCCESS, fail_kind = 0;
  bool mismatch = false;
  int64_t* fp = new int64_t[2];  // on the heap: a timed-out nonblocking request may still write it
  const int iroot = static_cast<int>(root);
  Py_BEGIN_ALLOW_THREADS
  slot.what.store(kCollNames[kind], std::memory_order_relaxed);
  if (wait != kWaitRaise) slot.deadline.store(deadline, std::memory_order_release);
  if (piggy) {
    err = MPI_Allreduce(MPI_IN_PLACE, stage, static_cast<int>(scount), sdt, sop, comm);
    if (err != MPI_SUCCESS) fail_kind = kCheckError;
    else mismatch = xor_form ? !xor_words_ok(stage) : !words_ok(sk, stage, wa, wb, static_cast<int>(size));
    if (fail_kind == 0 && !mismatch) {
      unsigned char* d = stage + words;
      unsigned char* out = static_cast<unsigned char*>(a.buf);
      const unsigned char* in = static_cast<const unsigned char*>(vs.b.buf);
      if (kind == kBcast) {
        if (rank != root) std::memcpy(a.buf, d, a.len);
      } else if (kind == kReduce) {
        if (rank == root) std::memcpy(a.buf, d, a.len);
      } else if (kind == kGather) {
        if (rank == root) {
          unsigned char* all = static_cast<unsigned char*>(vs.b.buf);
          std::memcpy(all + rank * payload, a.buf, payload);
          xor_bytes(all + peer * payload, d, static_cast<const unsigned char*>(a.buf), payload);
        }
      } else if (kind == kScatter) {
        if (rank == root) std::memmove(a.buf, static_cast<const unsigned char*>(vs.b.buf) + rank * payload, payload);
        else std::memcpy(a.buf, d, payload);
      } else if (kind == kAllGatherT) {
        // own block into its slot first (memmove: the input may be that slot, torch's in-place
        // idiom, or overlap it), then the peer's block = x ^ own, read from the slot
        unsigned char* mine = out + rank * payload;
        if (mine != in) std::memmove(mine, in, payload);
        xor_bytes(out + peer * payload, d, mine, payload);
      } else {
        // the peer's chunk for this rank = x ^ what this rank sent; then op(own chunk, peer's)
        xor_bytes(d, d, in + peer * payload, payload);
        combine(t, static_cast<int>(op_code), a.buf, in + rank * payload, d, count_a);
      }
    }
  } else {
    if (checked != kOff) {
      fp[0] = static_cast<int64_t>(h);
      fp[1] = -static_cast<int64_t>(h);
      auto start = [&](MPI_Request* r) { return MPI_Iallreduce(MPI_IN_PLACE, fp, 2, MPI_INT64_T, MPI_MAX, comm, r); };
      if (wait != kBlocking)
        err = nb_wait(start, static_cast<int>(wait), deadline);
      else
        err = MPI_Allreduce(MPI_IN_PLACE, fp, 2, MPI_INT64_T, MPI_MAX, comm);
      if (err == MPI_ERR_PENDING) fail_kind = kTimedOut;
      else if (err != MPI_SUCCESS) fail_kind = kCheckError;
      else mismatch = fp[0] != -fp[1];
    }
    if (fail_kind == 0 && !mismatch) {
      const int n_a = static_cast<int>(count_a);
      const int nbytes_a = static_cast<int>(a.len);
      void* in_b = two ? vs.b.buf : nullptr;
      const int nbytes_b = two ? static_cast<int>(vs.b.len) : 0;
      // all_gather_into_tensor with the input already in its slot of the output (torch's
      // in-place idiom): MPI_IN_PLACE, as MPI forbids overlapping send and receive buffers
      if (kind == kAllGatherT && in_b == static_cast<unsigned char*>(a.buf) + rank * vs.b.len) in_b = MPI_IN_PLACE;
      void* red_send = (kind == kReduce && rank == iroot) ? MPI_IN_PLACE : a.buf;
      void* red_recv = rank == iroot ? a.buf : nullptr;
      void* all = has_all ? vs.b.buf : nullptr;
      if (wait == kBlocking) {
        switch (kind) {
          case kGather: err = MPI_Gather(a.buf, nbytes_a, MPI_BYTE, all, nbytes_a, MPI_BYTE, iroot, comm); break;
          case kScatter: err = MPI_Scatter(all, nbytes_a, MPI_BYTE, a.buf, nbytes_a, MPI_BYTE, iroot, comm); break;
          case kBcast: err = MPI_Bcast(a.buf, nbytes_a, MPI_BYTE, iroot, comm); break;
          case kReduce: err = MPI_Reduce(red_send, red_recv, n_a, t.dt, op, iroot, comm); break;
          case kAllGatherT: err = MPI_Allgather(in_b, nbytes_b, MPI_BYTE, a.buf, nbytes_b, MPI_BYTE, comm); break;
          default: err = MPI_Reduce_scatter_block(in_b, a.buf, n_a, t.dt, op, comm); break;
        }
      } else {
        auto start = [&](MPI_Request* r) {
          switch (kind) {
            case kGather: return MPI_Igather(a.buf, nbytes_a, MPI_BYTE, all, nbytes_a, MPI_BYTE, iroot, comm, r);
            case kScatter: return MPI_Iscatter(all, nbytes_a, MPI_BYTE, a.buf, nbytes_a, MPI_BYTE, iroot, comm, r);
            case kBcast: return MPI_Ibcast(a.buf, nbytes_a, MPI_BYTE, iroot, comm, r);
            case kReduce: return MPI_Ireduce(red_send, red_recv, n_a, t.dt, op, iroot, comm, r);
            case kAllGatherT: return MPI_Iallgather(in_b, nbytes_b, MPI_BYTE, a.buf, nbytes_b, MPI_BYTE, comm, r);
            default: return MPI_Ireduce_scatter_block(in_b, a.buf, n_a, t.dt, op, comm, r);
          }
        };
        err = nb_wait(start, static_cast<int>(wait), deadline);
      }
      if (err == MPI_ERR_PENDING) fail_kind = kTimedOut;
      else if (err != MPI_SUCCESS) fail_kind = kDataError;
    }
  }
  slot.deadline.store(0.0, std::memory_order_release);
  if (fail_kind == 0 && !mismatch && avg && (kind == kRedScatT || rank == iroot)) divide(t, a.buf, count_a, size);
  Py_END_ALLOW_THREADS
  if (fail_kind == kTimedOut) {
    // MPI may still write the buffers and the pair: both stay exported for good
    vs.has_a = vs.has_b = false;
    return fail(fail_kind, 0);
  }
  delete[] fp;
  if (fail_kind != 0) return fail(fail_kind, err);
  if (mismatch) return fail(kMismatch, 0);
  Py_RETURN_NONE;
}

// ---- all_to_all_single, all_to_all, barrier -------------------------------------------
//
// all_to_all_single and all_to_all (whose lists Python concatenates) are one MPI_Alltoallv of
// bytes; which form of splits a rank passed (equal by default, or lists) does not matter here:
// Python turns both into per-peer element counts, and every rank with the C module takes this
// path for every blocking call (dtype, layout and split form never send a rank elsewhere), so
// the ranks always exchange the same messages. The check (INFO and DETAIL): first the 16-byte
// fingerprint all-reduce every checked collective starts with (another collective, dtype, row
// size or group size on a peer: CollectiveMismatchError on every rank), then, only once the
// fingerprints agree (so the counts below are equal on every rank), one MPI_Allreduce (MAX) of
// the n x n send and receive count matrices, each rank filling its own row of both (-1
// elsewhere): every rank then sees whether what j receives from i is what i sends to j and
// names the same first offending rank. The Python path needed two collectives for that (an
// all-to-all of the counts, then an all-reduce of the verdict). Groups above kA2aMaxCheck ranks
// (matrices over 64 KiB) take the Python path - on every rank alike (the same group size).
constexpr long kA2aMaxCheck = 64;
enum : int { kA2aSingle = 7, kA2aList = 8, kBarrier = 9 };
const char* const kExtraNames[] = {"all_to_all_single", "all_to_all", "barrier"};
enum : int { kSplitMismatch = 5 };

// Reads a sequence of n non-negative Python ints times itemsize into out (bytes). False: not so
// (NotImplemented: Python's validation reports it), or a Python error is set.
bool byte_counts(PyObject* seq, long n, Py_ssize_t itemsize, std::vector<int64_t>* out) {
  PyObject* fast = PySequence_Fast(seq, "counts must be a sequence");
  if (fast == nullptr) return false;
  bool ok = PySequence_Fast_GET_SIZE(fast) == n;
  out->assign(static_cast<size_t>(n), 0);
  for (long i = 0; ok && i < n; ++i) {
    const long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (v == -1 && PyErr_Occurred()) ok = false;
    else if (v < 0) ok = false;
    else (*out)[static_cast<size_t>(i)] = v * itemsize;
  }
  Py_DECREF(fast);
  return ok;
}

// alltoall(kind, send, recv, scounts, rcounts, comm_handle, size, rank, level, timeout_s, group)
//   kind 7 all_to_all_single, 8 all_to_all; send/recv contiguous arrays of one dtype (bfloat16 as
//   uint16 views: bytes travel), counts in elements per group rank. None (done), NotImplemented
//   (nothing sent), (1..3, MPI error) as coll(), or (5, first group rank whose receive counts
//   differ from what its peers send).
PyObject* alltoall(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 11) {
    PyErr_SetString(PyExc_TypeError, "alltoall() takes 11 arguments");
    return nullptr;
  }
  const long kind = PyLong_AsLong(args[0]);
  const unsigned long long handle = PyLong_AsUnsignedLongLong(args[5]);
  const long size = PyLong_AsLong(args[6]);
  const long rank = PyLong_AsLong(args[7]);
  const long level = PyLong_AsLong(args[8]);
  const double timeout = PyFloat_AsDouble(args[9]);
  if (PyErr_Occurred()) return nullptr;
  if ((kind != kA2aSingle && kind != kA2aList) || size < 1 || rank < 0 || rank >= size) Py_RETURN_NOTIMPLEMENTED;
  const long checked = size > 1 ? level : static_cast<long>(kOff);
  if (checked != kOff && size > kA2aMaxCheck) Py_RETURN_NOTIMPLEMENTED;
  MPI_Comm comm = reinterpret_cast<MPI_Comm>(static_cast<uintptr_t>(handle));
  Views vs;
  if (!get_view(args[1], &vs.a, false)) {
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NOTIMPLEMENTED;
  }
  vs.has_a = true;
  if (!get_view(args[2], &vs.b, true)) {
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NOTIMPLEMENTED;
  }
  vs.has_b = true;
  const int dcode = dtype_code(vs.a.format, vs.a.itemsize);
  if (dcode < 0 || dtype_code(vs.b.format, vs.b.itemsize) != dcode) Py_RETURN_NOTIMPLEMENTED;
  std::vector<int64_t> sb, rb;
  if (!byte_counts(args[3], size, vs.a.itemsize, &sb) || !byte_counts(args[4], size, vs.a.itemsize, &rb)) {
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NOTIMPLEMENTED;
  }
  // MPI's int counts and displacements, in bytes; the buffers hold what the counts say
  std::vector<int> sc(size), sd(size), rc(size), rd(size);
  int64_t so = 0, ro = 0;
  for (long i = 0; i < size; ++i) {
    sc[i] = static_cast<int>(sb[i]);
    sd[i] = static_cast<int>(so);
    rc[i] = static_cast<int>(rb[i]);
    rd[i] = static_cast<int>(ro);
    so += sb[i];
    ro += rb[i];
    if (so > INT32_MAX || ro > INT32_MAX) Py_RETURN_NOTIMPLEMENTED;
  }
  if (so != vs.a.len || ro != vs.b.len) Py_RETURN_NOTIMPLEMENTED;
  // the fingerprint: the collective, the dtype, the row size (args: count_a = the first element
  // count of a row, passed by Python as the tensors' elements after dim 0, in scounts' unit)
  const long row = PyLong_AsLong(PyTuple_Check(args[10]) ? PyTuple_GET_ITEM(args[10], 1) : Py_None);
  if (row == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* group = PyTuple_Check(args[10]) ? PyTuple_GET_ITEM(args[10], 0) : args[10];
  uint64_t h = coll_fingerprint(static_cast<int>(kind), dcode, row, size, -1, -1);
  std::vector<int64_t> mat;
  if (checked != kOff) {
    mat.assign(static_cast<size_t>(2 * size * size), -1);
    for (long j = 0; j < size; ++j) {
      mat[static_cast<size_t>(rank * size + j)] = sb[j] / vs.a.itemsize;
      mat[static_cast<size_t>(size * size + rank * size + j)] = rb[j] / vs.a.itemsize;
    }
  }
  Slot& slot = my_slot();
  if (slot.ctx != group) {
    Py_INCREF(group);
    PyObject* old = slot.ctx;
    slot.ctx = group;
    Py_XDECREF(old);
  }
  const double deadline = monotonic() + timeout;
  int err = MPI_SUCCESS, fail_kind = 0;
  bool mismatch = false;
  long bad = -1;
  int64_t fp[2] = {static_cast<int64_t>(h), -static_cast<int64_t>(h)};
  Py_BEGIN_ALLOW_THREADS
  slot.what.store(kExtraNames[kind - kA2aSingle], std::memory_order_relaxed);
  slot.deadline.store(deadline, std::memory_order_release);
  if (checked != kOff) {
    err = MPI_Allreduce(MPI_IN_PLACE, fp, 2, MPI_INT64_T, MPI_MAX, comm);
    if (err != MPI_SUCCESS) fail_kind = kCheckError;
    else mismatch = fp[0] != -fp[1];
    if (fail_kind == 0 && !mismatch) {
      err = MPI_Allreduce(MPI_IN_PLACE, mat.data(), static_cast<int>(mat.size()), MPI_INT64_T, MPI_MAX, comm);
      if (err != MPI_SUCCESS) fail_kind = kCheckError;
      for (long j = 0; fail_kind == 0 && bad < 0 && j < size; ++j)
        for (long i = 0; i < size; ++i)
          if (mat[static_cast<size_t>(size * size + j * size + i)] != mat[static_cast<size_t>(i * size + j)]) {
            bad = j;  // j receives from i other than what i sends to j
            break;
          }
    }
  }
  if (fail_kind == 0 && !mismatch && bad < 0) {
    err = MPI_Alltoallv(vs.a.buf, sc.data(), sd.data(), MPI_BYTE, vs.b.buf, rc.data(), rd.data(), MPI_BYTE, comm);
    if (err != MPI_SUCCESS) fail_kind = kDataError;
  }
  slot.deadline.store(0.0, std::memory_order_release);
  Py_END_ALLOW_THREADS
  if (fail_kind != 0) return fail(fail_kind, err);
  if (mismatch) return fail(kMismatch, 0);
  if (bad >= 0) return Py_BuildValue("(il)", static_cast<int>(kSplitMismatch), bad);
  Py_RETURN_NONE;
}

// barrier(comm_handle, timeout_s, group): MPI_Barrier with the GIL released under the watchdog
// slot (what the Python path sends: a barrier has no check). None or (3, MPI error).
PyObject* barrier(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "barrier() takes 3 arguments");
    return nullptr;
  }
  const unsigned long long handle = PyLong_AsUnsignedLongLong(args[0]);
  const double timeout = PyFloat_AsDouble(args[1]);
  if (PyErr_Occurred()) return nullptr;
  MPI_Comm comm = reinterpret_cast<MPI_Comm>(static_cast<uintptr_t>(handle));
  Slot& slot = my_slot();
  if (slot.ctx != args[2]) {
    Py_INCREF(args[2]);
    PyObject* old = slot.ctx;
    slot.ctx = args[2];
    Py_XDECREF(old);
  }
  const double deadline = monotonic() + timeout;
  int err;
  Py_BEGIN_ALLOW_THREADS
  slot.what.store(kExtraNames[kBarrier - kA2aSingle], std::memory_order_relaxed);
  slot.deadline.store(deadline, std::memory_order_release);
  err = MPI_Barrier(comm);
  slot.deadline.store(0.0, std::memory_order_release);
  Py_END_ALLOW_THREADS
  if (err != MPI_SUCCESS) return fail(kDataError, err);
  Py_RETURN_NONE;
}

// ---- the entry of pyasc.distributed.all_reduce's hot path ----------------------------
//
// configure(ops, ndarray_type, numpy_type, level) registers the 8 ReduceOp members (in
// OpCode order), pyasc's and NumPy's ndarray types; set_level(level) follows _engine.set_mode. all_reduce_entry(tensor,
// op, group) then does in C what Python did before the call: group.hot (None unless usable
// with no async collective pending) = (handle, size, timeout), the op's code by identity,
// the exact array type (pyasc.ndarray or numpy.ndarray). NotImplemented: the general path.
PyObject* g_ops[8] = {};
PyTypeObject* g_ndarray = nullptr;
PyTypeObject* g_numpy = nullptr;
long g_level = kInfo;
PyObject* g_hot = nullptr;  // interned "hot"

PyObject* g_state = nullptr;    // pyasc.distributed._group._State (its .world: the default group)
PyObject* g_pg_type = nullptr;  // pyasc.distributed._group.ProcessGroup
PyObject* g_failed = nullptr;   // _collectives._c_failed(pg, kind, r, a, b, root, op): raises
PyObject* g_world = nullptr;    // interned "world"

void keep(PyObject** slot, PyObject* v) {
  Py_XINCREF(v);
  Py_XSETREF(*slot, v);
}

PyObject* configure(PyObject*, PyObject* args) {
  PyObject* ops;
  PyObject* nd;
  PyObject* np_type;
  long level;
  PyObject* state = nullptr;
  PyObject* pg_type = nullptr;
  PyObject* failed = nullptr;
  if (!PyArg_ParseTuple(args, "OOOl|OOO", &ops, &nd, &np_type, &level, &state, &pg_type, &failed)) return nullptr;
  if (state != nullptr) {
    if (!PyType_Check(state)) {
      PyErr_SetString(PyExc_TypeError, "configure(): state must be the _State class");
      return nullptr;
    }
    keep(&g_state, state);
    keep(&g_pg_type, pg_type);
    keep(&g_failed, failed);
    if (g_world == nullptr) g_world = PyUnicode_InternFromString("world");
  }
  if (!PySequence_Check(ops) || PySequence_Size(ops) != 8 || !PyType_Check(nd) || !PyType_Check(np_type)) {
    PyErr_SetString(PyExc_TypeError, "configure(ops: 8 ReduceOp members, ndarray type, numpy type, level)");
    return nullptr;
  }
  for (int i = 0; i < 8; ++i) {
    PyObject* o = PySequence_GetItem(ops, i);  // new reference, kept for good
    if (o == nullptr) return nullptr;
    Py_XDECREF(g_ops[i]);
    g_ops[i] = o;
  }
  Py_INCREF(nd);
  Py_XDECREF(reinterpret_cast<PyObject*>(g_ndarray));
  g_ndarray = reinterpret_cast<PyTypeObject*>(nd);
  Py_INCREF(np_type);
  Py_XDECREF(reinterpret_cast<PyObject*>(g_numpy));
  g_numpy = reinterpret_cast<PyTypeObject*>(np_type);
  g_level = level;
  if (g_hot == nullptr) g_hot = PyUnicode_InternFromString("hot");
  Py_RETURN_NONE;
}

PyObject* set_level(PyObject*, PyObject* arg) {
  const long v = PyLong_AsLong(arg);
  if (v == -1 && PyErr_Occurred()) return nullptr;
  g_level = v;
  Py_RETURN_NONE;
}

PyObject* all_reduce_entry(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "all_reduce_entry() takes 3 arguments");
    return nullptr;
  }
  PyObject* tensor = args[0];
  PyObject* group = args[2];
  if (group == Py_None || g_hot == nullptr) Py_RETURN_NOTIMPLEMENTED;
  PyTypeObject* tp = Py_TYPE(tensor);
  if (tp != g_ndarray && tp != g_numpy) Py_RETURN_NOTIMPLEMENTED;
  int code = -1;
  for (int i = 0; i < 8; ++i)
    if (args[1] == g_ops[i]) code = i;
  if (code < 0) Py_RETURN_NOTIMPLEMENTED;
  PyObject* hot = PyObject_GetAttr(group, g_hot);
  if (hot == nullptr) return nullptr;
  if (!PyTuple_CheckExact(hot) || PyTuple_GET_SIZE(hot) < 3) {
    Py_DECREF(hot);
    Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* code_obj = PyLong_FromLong(code);
  PyObject* level_obj = PyLong_FromLong(g_level);
  PyObject* call[7] = {tensor, PyTuple_GET_ITEM(hot, 0), code_obj, PyTuple_GET_ITEM(hot, 1), level_obj,
                       PyTuple_GET_ITEM(hot, 2), group};
  PyObject* r = (code_obj && level_obj) ? allreduce(nullptr, call, 7) : nullptr;
  Py_XDECREF(code_obj);
  Py_XDECREF(level_obj);
  Py_DECREF(hot);
  return r;
}

// coll_entry(kind, a, b, root, op, group): coll() with what Python did before the call done
// here (as all_reduce_entry): the exact array types, the op's code by identity (reduce,
// reduce_scatter_tensor), the root's group rank (an exact int through the group's rank index,
// hot[3]; None: the world, identity), the group's hot tuple (handle, size, timeout, index,
// rank). NotImplemented: the general path (which reports bad input).
PyObject* coll_entry(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "coll_entry() takes 6 arguments");
    return nullptr;
  }
  PyObject* group = args[5];
  if (group == Py_None || g_hot == nullptr || !PyLong_CheckExact(args[0])) Py_RETURN_NOTIMPLEMENTED;
  const long kind = PyLong_AsLong(args[0]);
  if (kind < kBcast || kind > kRedScatT) Py_RETURN_NOTIMPLEMENTED;
  PyTypeObject* tp = Py_TYPE(args[1]);
  if (tp != g_ndarray && tp != g_numpy) Py_RETURN_NOTIMPLEMENTED;
  if (kind == kAllGatherT || kind == kRedScatT) {
    tp = Py_TYPE(args[2]);
    if (tp != g_ndarray && tp != g_numpy) Py_RETURN_NOTIMPLEMENTED;
  }
  int code = -1;
  if (kind == kReduce || kind == kRedScatT) {
    for (int i = 0; i < 8; ++i)
      if (args[4] == g_ops[i]) code = i;
    if (code < 0) Py_RETURN_NOTIMPLEMENTED;
  }
  PyObject* hot = PyObject_GetAttr(group, g_hot);
  if (hot == nullptr) return nullptr;
  if (!PyTuple_CheckExact(hot) || PyTuple_GET_SIZE(hot) != 5) {
    Py_DECREF(hot);
    Py_RETURN_NOTIMPLEMENTED;
  }
  long root = -1;
  if (kind == kBcast || kind == kReduce) {
    PyObject* index = PyTuple_GET_ITEM(hot, 3);
    PyObject* r = args[3];
    if (!PyLong_CheckExact(r)) {
      Py_DECREF(hot);
      Py_RETURN_NOTIMPLEMENTED;
    }
    if (index != Py_None) {
      r = PyDict_GetItemWithError(index, r);  // borrowed
      if (r == nullptr) {
        Py_DECREF(hot);
        if (PyErr_Occurred()) return nullptr;
        Py_RETURN_NOTIMPLEMENTED;  // not a rank of the group: the general path's error
      }
    }
    root = PyLong_AsLong(r);
    if (root == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      Py_DECREF(hot);
      Py_RETURN_NOTIMPLEMENTED;
    }
  }
  PyObject* kind_obj = args[0];
  PyObject* root_obj = PyLong_FromLong(root);
  PyObject* code_obj = PyLong_FromLong(code);
  PyObject* level_obj = PyLong_FromLong(g_level);
  PyObject* wait_obj = PyLong_FromLong(kBlocking);
  PyObject* r = nullptr;
  if (root_obj && code_obj && level_obj && wait_obj) {
    PyObject* call[12] = {kind_obj, args[1], args[2], root_obj, code_obj, PyTuple_GET_ITEM(hot, 0),
                          PyTuple_GET_ITEM(hot, 1), PyTuple_GET_ITEM(hot, 4), level_obj, PyTuple_GET_ITEM(hot, 2),
                          group, wait_obj};
    r = coll(nullptr, call, 12);
  }
  Py_XDECREF(root_obj);
  Py_XDECREF(code_obj);
  Py_XDECREF(level_obj);
  Py_XDECREF(wait_obj);
  Py_DECREF(hot);
  return r;
}

// entry(kind, a, b, root, op, group): the one entry of the blocking collectives' C path, the
// prologue every collective shared in Python before (the group: None is the default group
// (_State.world), else an exact ProcessGroup; kind 0 all_reduce(a, op), 1 broadcast(a, root),
// 2 reduce(a, root, op), 3 all_gather_into_tensor(a = output, b = input), 4
// reduce_scatter_tensor(a = output, b = input, op)). Returns None (done), NotImplemented (the
// general path: nothing was sent) or what the configured failure handler returns (it raises:
// the mismatch exchange naming every rank's call, the MPI error, the timeout).
PyObject* entry(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  // entry(tensor, op, group): all_reduce's shorter form (its hot path: three arguments to pass)
  const bool ar = nargs == 3;
  if (!ar && nargs != 6) {
    PyErr_SetString(PyExc_TypeError, "entry() takes 3 (all_reduce) or 6 arguments");
    return nullptr;
  }
  if (g_state == nullptr || (!ar && !PyLong_CheckExact(args[0]))) Py_RETURN_NOTIMPLEMENTED;
  PyObject* group = args[ar ? 2 : 5];
  PyObject* pg;
  if (group == Py_None) {
    // a plain class attribute: the type's lookup (its method cache) is the whole of it, cheaper
    // than PyObject_GetAttr's metatype walk on every call; assignments invalidate the cache
    pg = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(g_state), g_world);  // borrowed
    if (pg == nullptr) Py_RETURN_NOTIMPLEMENTED;
    Py_INCREF(pg);
  } else if (reinterpret_cast<PyObject*>(Py_TYPE(group)) == g_pg_type) {
    pg = Py_NewRef(group);
  } else {
    Py_RETURN_NOTIMPLEMENTED;  // a bad group: the general path's error
  }
  const long kind = ar ? static_cast<long>(kAllReduceColl) : PyLong_AsLong(args[0]);
  PyObject* r;
  if (kind == kAllReduceColl) {
    PyObject* call[3] = {args[ar ? 0 : 1], args[ar ? 1 : 4], pg};
    r = all_reduce_entry(nullptr, call, 3);
    if (r == nullptr && PyErr_ExceptionMatches(PyExc_ValueError)) {
      PyErr_Clear();  // NumPy cannot export it (bfloat16): the general path stages it
      r = Py_NewRef(Py_NotImplemented);
    }
  } else {
    PyObject* call[6] = {args[0], args[1], args[2], args[3], args[4], pg};
    r = coll_entry(nullptr, call, 6);
  }
  if (r != nullptr && PyTuple_CheckExact(r) && g_failed != nullptr) {
    PyObject* zero = PyLong_FromLong(0);  // (cold path)
    PyObject* fcall[7] = {pg, zero, r, args[0], Py_None, Py_None, args[1]};
    if (!ar) {
      PyObject* full[7] = {pg, args[0], r, args[1], args[2], args[3], args[4]};
      std::memcpy(fcall, full, sizeof fcall);
    }
    PyObject* f = zero == nullptr ? nullptr : PyObject_Vectorcall(g_failed, fcall, 7, nullptr);
    Py_XDECREF(zero);
    Py_DECREF(r);
    r = f;
  }
  Py_DECREF(pg);
  return r;
}

// armed() -> None, or (deadline, "all_reduce", group) of the earliest deadline among
// the calls blocked in MPI.
PyObject* armed(PyObject*, PyObject*) {
  double best = 0.0;
  PyObject* ctx = nullptr;
  const char* what = "all_reduce";
  for (Slot& s : g_slots) {
    const double d = s.deadline.load(std::memory_order_acquire);
    if (d != 0.0 && s.ctx != nullptr && (best == 0.0 || d < best)) {
      best = d;
      ctx = s.ctx;
      what = s.what.load(std::memory_order_relaxed);
    }
  }
  if (ctx == nullptr) Py_RETURN_NONE;
  return Py_BuildValue("(dsO)", best, what, ctx);
}

// fingerprint(format, itemsize, count, op_code) -> int: the check value of an
// all_reduce (tests compare the two ranks' views of it).
PyObject* py_fingerprint(PyObject*, PyObject* args) {
  const char* fmt;
  Py_ssize_t itemsize, count;
  int op;
  if (!PyArg_ParseTuple(args, "snni", &fmt, &itemsize, &count, &op)) return nullptr;
  return PyLong_FromUnsignedLongLong(fingerprint(fmt[0], itemsize, count, op));
}

PyMethodDef kMethods[] = {
    {"allreduce", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&allreduce)), METH_FASTCALL,
     "allreduce(buffer, comm_handle, op_code, group_size, level, timeout_s, group[, wait[, bf16]]): in-place "
     "all_reduce with the INFO check (bf16: buffer is a uint16 view of bfloat16 elements, reduced with "
     "ml_dtypes' rounding); None, NotImplemented (Python path) or (kind, mpi_error)."},
    {"armed", &armed, METH_NOARGS, "The blocked all_reduce (deadline, what, group), or None."},
    {"configure", &configure, METH_VARARGS,
     "configure(ops, ndarray_type, numpy_type, level[, state, pg_type, failed]): the ReduceOp members in op-code "
     "order, pyasc.ndarray, numpy.ndarray, the check level; entry()'s default-group holder, ProcessGroup type and "
     "failure handler."},
    {"set_level", &set_level, METH_O, "set_level(level): the check level all_reduce_entry passes."},
    {"all_reduce_entry", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&all_reduce_entry)),
     METH_FASTCALL,
     "all_reduce_entry(tensor, op, group): allreduce() with the group's hot tuple, the op by identity and "
     "the array type checked here; NotImplemented for anything else."},
    {"fingerprint", &py_fingerprint, METH_VARARGS, "The check fingerprint of an all_reduce."},
    {"coll", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&coll)), METH_FASTCALL,
     "coll(kind, a, b, root, op_code, comm_handle, size, rank, level, timeout_s, group, wait[, bf16]): broadcast (1), "
     "reduce (2), all_gather_into_tensor (3), reduce_scatter_tensor (4), gather (5: a the input, b the root's "
     "output of all blocks) or scatter (6: a the output, b the root's input) in one call with the check; None, "
     "NotImplemented (Python path) or (kind, mpi_error); bf16: a and b are uint16 views of bfloat16 arrays."},
    {"alltoall", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&alltoall)), METH_FASTCALL,
     "alltoall(kind, send, recv, scounts, rcounts, comm_handle, size, rank, level, timeout_s, (group, row)): "
     "all_to_all_single (7) / all_to_all (8) as one MPI_Alltoallv of bytes after the fingerprint and count-matrix "
     "checks; None, NotImplemented, (1..3, MPI error) or (5, first group rank whose receive counts disagree)."},
    {"barrier", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&barrier)), METH_FASTCALL,
     "barrier(comm_handle, timeout_s, group): MPI_Barrier without the GIL under the watchdog; None or (3, err)."},
    {"entry", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&entry)), METH_FASTCALL,
     "entry(kind, a, b, root, op, group) or entry(tensor, op, group) (all_reduce): the blocking collectives' C "
     "path (0 all_reduce, 1 broadcast, 2 reduce, 3 all_gather_into_tensor, 4 reduce_scatter_tensor) with the group "
     "resolved and failures raised here; None or NotImplemented."},
    {"coll_entry", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&coll_entry)), METH_FASTCALL,
     "coll_entry(kind, a, b, root, op, group): coll() with the group's hot tuple, the root's group rank and "
     "the op by identity looked up here; NotImplemented for anything else."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_native",
                       "The C fast paths of pyasc.distributed's collectives (links libmpi).", -1, kMethods,
                       nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__native() {
  PyObject* m = PyModule_Create(&kModule);
  if (m == nullptr) return nullptr;
  PyObject* gate = PyType_FromSpec(&kGateSpec);
  g_gate_type = gate;  // (the module keeps the reference)
  if (gate == nullptr || PyModule_AddObject(m, "Gate", gate) < 0) {
    Py_XDECREF(gate);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
