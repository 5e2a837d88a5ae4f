// pyasc.distributed._native: the hot path of all_reduce in one C call.
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
// the one message for 2-rank groups up to 64 KiB, else a 16-byte fingerprint
// all-reduce first), MPI_Allreduce with the GIL released, AVG's division, and the
// watchdog stamp: a "blocked in all_reduce until <deadline>" slot that the
// Python watchdog thread reads with armed(), instead of a Python tuple store
// and a thread hand-off per call. Anything it does not handle (16-bit floats,
// complex, bool, float MAX/MIN with NumPy's NaN rule, non-contiguous or
// read-only arrays) returns NotImplemented and Python's general path runs.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
// The C API only (OpenMPI's deprecated C++ bindings do not build with -Werror).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

// ReduceOp codes passed by Python (pyasc.distributed._collectives._OP_CODES).
enum OpCode : int { kSum = 0, kAvg = 1, kProduct = 2, kMin = 3, kMax = 4, kBand = 5, kBor = 6, kBxor = 7 };
// Check levels (pyasc.distributed._engine OFF/INFO/DETAIL). DETAIL: the shape joins the
// fingerprint and every call runs the fingerprint all-reduce (never in the message).
enum Level : int { kOff = 0, kInfo = 1, kDetail = 2 };
// Element kinds that may carry the in-message check words.
enum Kind : int { kF32, kF64, kI32, kI64, kOther };

constexpr Py_ssize_t kPiggyMax = 64 << 10;  // bytes (as _engine.PIGGY_MAX)
// From this size on, the blocking mode's fingerprint all-reduce waits for the peers by
// sleeping (MPI_Iallreduce + MPI_Test, pauses of 10 us doubling to 100 us) instead of
// spinning. That exchange is where the ranks' skew is absorbed: a rank that spins there
// holds a core its late peer may need (ranks sharing cores, a loaded machine), which made
// the checked 16 MiB all_reduce 0.83 of mpi4py's bandwidth where the unchecked one was 0.95
// (process CPU per call 10.4 ms vs 8.4 ms for mpi4py, load 17 on 2 cores). The data
// transfer then starts with the ranks in step. A pause overshoots by at most 100 us, under
// 2% of a 4 MiB transfer's time here.
constexpr Py_ssize_t kSleepCheckMin = 4 << 20;
constexpr long kSleepCheckMaxPauseNs = 100000;

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

struct Type {
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  Kind kind = kOther;
  bool is_float = false;
};

// From the PEP 3118 format of the buffer (pyasc and NumPy both give single
// characters for these dtypes). Unsupported: dt stays MPI_DATATYPE_NULL.
Type type_of(const char* fmt, Py_ssize_t itemsize) {
  Type t;
  if (fmt == nullptr) return t;
  while (*fmt == '@' || *fmt == '=' || *fmt == '<') ++fmt;
  if (fmt[0] == '\0' || fmt[1] != '\0') return t;
  const char c = fmt[0];
  switch (c) {
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

// MPI_OP_NULL: the Python path handles it (float MAX/MIN propagate NaN as NumPy,
// AVG of integers is an error there, bitwise ops of floats too).
MPI_Op op_of(int code, bool is_float) {
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
enum Wait : int { kBlocking = 0, kWaitWatchdog = 1, kWaitRaise = 2 };

// MPI_Iallreduce, then MPI_Test with sleeps of 10 us doubling to 0.5 ms (MPI progresses the
// operation at each test). Returns MPI_ERR_PENDING at the deadline in kWaitRaise mode: the
// request is left to MPI and its buffers must stay valid (the caller leaks them).
int iallreduce_wait(void* buf, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int wait, double deadline,
                    long max_pause_ns = 500000) {
  MPI_Request req;
  int err = MPI_Iallreduce(MPI_IN_PLACE, buf, n, dt, op, comm, &req);
  if (err != MPI_SUCCESS) return err;
  long pause_ns = 10000;
  for (;;) {
    int done = 0;
    err = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || done) return err;
    if (wait == kWaitRaise && monotonic() > deadline) return MPI_ERR_PENDING;
    timespec ts{0, pause_ns};
    nanosleep(&ts, nullptr);
    pause_ns = pause_ns * 2 > max_pause_ns ? max_pause_ns : pause_ns * 2;
  }
}

PyObject* fail(int kind, int err) { return Py_BuildValue("(ii)", kind, err); }

// allreduce(buffer, comm_handle, op_code, group_size, level, timeout_s, group[, wait]) ->
//   None (done), NotImplemented (use the Python path; nothing was sent), or
//   (kind, mpi_error_code) after a failure (kind: 1 the ranks disagree, 2 MPI error
//   in the check, 3 MPI error in the data transfer, 4 timed out (wait=2)).
PyObject* allreduce(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 7 && nargs != 8) {
    PyErr_SetString(PyExc_TypeError, "allreduce() takes 7 or 8 arguments");
    return nullptr;
  }
  const long wait = nargs == 8 ? PyLong_AsLong(args[7]) : static_cast<long>(kBlocking);
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
  const Type t = type_of(view.format, view.itemsize);
  const MPI_Op op = t.dt == MPI_DATATYPE_NULL ? MPI_OP_NULL : op_of(static_cast<int>(op_code), t.is_float);
  if (op == MPI_OP_NULL || view.len > static_cast<Py_ssize_t>(INT32_MAX) * view.itemsize) {
    PyBuffer_Release(&view);
    Py_RETURN_NOTIMPLEMENTED;
  }
  const Py_ssize_t count = view.len / view.itemsize;
  // (Nonblocking: never in the message. MPI's libnbc algorithm hung on a truncated message.)
  const bool piggy = wait == kBlocking && level == kInfo && size == 2 && t.kind != kOther && count > 0 &&
                     view.len <= kPiggyMax && (op_code == kSum || op_code == kAvg);
  uint64_t h = 0;
  const long checked = size > 1 ? level : static_cast<long>(kOff);  // one rank cannot disagree with itself
  if (checked != kOff) {
    const char* f = view.format;
    while (*f == '@' || *f == '=' || *f == '<') ++f;
    h = fingerprint(*f, view.itemsize, count, static_cast<int>(op_code));
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
      else if (view.len >= kSleepCheckMin)  // (the watchdog slot covers it, as the blocking call)
        err = iallreduce_wait(fp, 2, MPI_INT64_T, MPI_MAX, comm, kWaitWatchdog, deadline, kSleepCheckMaxPauseNs);
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
  if (kind == 0 && !mismatch && op_code == kAvg) {
    if (t.kind == kF32) {
      float* p = static_cast<float*>(view.buf);
      const float n = static_cast<float>(size);
      for (Py_ssize_t i = 0; i < count; ++i) p[i] /= n;
    } else {
      double* p = static_cast<double*>(view.buf);
      const double n = static_cast<double>(size);
      for (Py_ssize_t i = 0; i < count; ++i) p[i] /= n;
    }
  }
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

PyObject* configure(PyObject*, PyObject* args) {
  PyObject* ops;
  PyObject* nd;
  PyObject* np_type;
  long level;
  if (!PyArg_ParseTuple(args, "OOOl", &ops, &nd, &np_type, &level)) return nullptr;
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
  if (!PyTuple_CheckExact(hot) || PyTuple_GET_SIZE(hot) != 3) {
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

// armed() -> None, or (deadline, "all_reduce", group) of the earliest deadline among
// the calls blocked in MPI.
PyObject* armed(PyObject*, PyObject*) {
  double best = 0.0;
  PyObject* ctx = nullptr;
  for (Slot& s : g_slots) {
    const double d = s.deadline.load(std::memory_order_acquire);
    if (d != 0.0 && s.ctx != nullptr && (best == 0.0 || d < best)) {
      best = d;
      ctx = s.ctx;
    }
  }
  if (ctx == nullptr) Py_RETURN_NONE;
  return Py_BuildValue("(dsO)", best, "all_reduce", ctx);
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
     "allreduce(buffer, comm_handle, op_code, group_size, level, timeout_s, group): blocking in-place "
     "all_reduce with the INFO check; None, NotImplemented (Python path) or (kind, mpi_error)."},
    {"armed", &armed, METH_NOARGS, "The blocked all_reduce (deadline, what, group), or None."},
    {"configure", &configure, METH_VARARGS,
     "configure(ops, ndarray_type, numpy_type, level): the ReduceOp members in op-code order, pyasc.ndarray, "
     "numpy.ndarray, the check level."},
    {"set_level", &set_level, METH_O, "set_level(level): the check level all_reduce_entry passes."},
    {"all_reduce_entry", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&all_reduce_entry)),
     METH_FASTCALL,
     "all_reduce_entry(tensor, op, group): allreduce() with the group's hot tuple, the op by identity and "
     "the array type checked here; NotImplemented for anything else."},
    {"fingerprint", &py_fingerprint, METH_VARARGS, "The check fingerprint of an all_reduce."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_native",
                       "The C fast path of pyasc.distributed.all_reduce (links libmpi).", -1, kMethods,
                       nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__native() { return PyModule_Create(&kModule); }
