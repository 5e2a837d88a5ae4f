// The gate of one async_op collective of pyasc.distributed (native.cc's Gate type):
// who runs its body, once, and a stream callback that does not need the GIL unless it runs it.
//
// Why: an async_op collective is a task on the caller's current stream (later work there reads
// its results). Work.wait() runs the body itself when the call found the stream idle
// (_collectives._StreamWork), instead of waking the stream's worker and sleeping until it ran.
// The stream still holds the task; as a Python callback (Stream.add_callback) it needs the
// GIL even to return, so the next call found the stream busy until the caller let the worker
// have the GIL (measured ~0.6-0.8 ms a call on a loaded machine, the whole difference). As a C
// callback (asc::runtime::Stream::add_callback: the stream's later work waits for it) it takes
// the GIL only when it claims the body; when wait() claimed it, it waits for the end (a
// condition variable) and returns without Python. And wait() knows without waiting for the
// worker whether the stream's earlier work has run (ready(): the stream's sequence numbers,
// and the previous gate on the stream whose body ran).
//
// Included once, by native.cc, inside its anonymous namespace (needs <Python.h>, <atomic>,
// <chrono>, <condition_variable>, <mutex> and asc/runtime/stream.h first).
#pragma once

// State shared by the Python Gate object and the queued callback, freed by whichever of the two
// lets go last (an atomic count: the callback never needs the GIL for it).
struct GateCore {
  // 0 queued, 1 claimed by wait(), 2 claimed by the stream task, 3 done
  std::atomic<int> state{0};
  std::atomic<int> refs{1};
  std::mutex mu;
  std::condition_variable cv;
  PyObject* task = nullptr;  // owned until claimed: the callback calls it (GIL held) when it claims
  // How long the callback leaves wait() the first claim (0: none, the call was not stealable). It
  // needs no GIL to claim, so without it the worker, woken by the launch, would claim first and
  // then wait for the GIL the caller holds until its wait() - the stream path's cost again.
  std::chrono::microseconds grace{0};
  // Where the callback sits on its stream (launch(), seal()): its sequence number, the stream's
  // last one before it and after the event recorded behind it, and the gate launched on the
  // same stream before it (a reference, until this one is done). ready() reads them.
  // (weak: a gate kept as the stream's last one must not keep the stream and its worker alive)
  std::weak_ptr<asc::runtime::Stream> stream;
  bool launched = false;
  uint64_t seq = 0, before = 0, tail = 0;
  GateCore* prev = nullptr;  // guarded by mu
  bool prev_ran = false;     // that gate's body had run at launch (then prev stays null)

  void finish() {
    GateCore* p;
    {
      std::lock_guard<std::mutex> lock(mu);
      state.store(3, std::memory_order_release);
      p = prev;
      prev = nullptr;
    }
    cv.notify_all();
    if (p != nullptr) p->release();
  }
  void release() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Whether the stream's work before the callback has run: every earlier item completed, or the
  // only items between the previous gate's and this one are that gate's event and its body ran
  // (its own earlier work had run then: its worker or its wait() waited for it). The second
  // form does not wait for the worker to return from the previous callback.
  bool ready() {
    if (!launched || prev_ran) return true;
    std::shared_ptr<asc::runtime::Stream> s = stream.lock();
    if (s == nullptr || s->completed() + 1 >= seq) return true;  // (a dropped stream drained its queue)
    std::lock_guard<std::mutex> lock(mu);
    return prev != nullptr && prev->tail == before && prev->state.load(std::memory_order_acquire) == 3;
  }
};

struct GateObject {
  PyObject_HEAD
  GateCore* core;
};

void gate_callback(void* user) {
  GateCore* g = static_cast<GateCore*>(user);
  if (g->grace.count() > 0 && g->state.load(std::memory_order_acquire) == 0) {
    std::unique_lock<std::mutex> lock(g->mu);
    g->cv.wait_for(lock, g->grace, [g] { return g->state.load(std::memory_order_acquire) != 0; });
  }
  int expect = 0;
  if (g->state.compare_exchange_strong(expect, 2, std::memory_order_acq_rel)) {
    // the body runs here, as the Python stream task did (not once the interpreter is going:
    // the task and its arrays are then left alone, as pyasc's Python callbacks are)
#if PY_VERSION_HEX >= 0x030D0000
    const bool alive = Py_IsInitialized() && !Py_IsFinalizing();
#else
    const bool alive = Py_IsInitialized() && !_Py_IsFinalizing();
#endif
    if (!alive) {
      g->finish();
      g->release();
      return;
    }
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject* task = g->task;
    g->task = nullptr;
    PyObject* r = PyObject_CallNoArgs(task);
    if (r == nullptr) PyErr_WriteUnraisable(task);  // (the task stores the body's errors itself)
    Py_XDECREF(r);
    Py_DECREF(task);
    PyGILState_Release(st);
    g->finish();
  } else {
    // wait() runs it: the stream's later work must start after its end (no spin: the next call
    // does not wait for this return, see ready(), and a spinning worker takes a peer's core)
    std::unique_lock<std::mutex> lock(g->mu);
    g->cv.wait(lock, [g] { return g->state.load(std::memory_order_acquire) == 3; });
  }
  g->release();
}

PyObject* gate_new(PyTypeObject* type, PyObject* args, PyObject*) {
  PyObject* task;
  double grace_s = 0.0;
  if (!PyArg_ParseTuple(args, "O|d:Gate", &task, &grace_s)) return nullptr;
  if (!PyCallable_Check(task)) {
    PyErr_SetString(PyExc_TypeError, "Gate(task): task must be callable");
    return nullptr;
  }
  GateObject* self = reinterpret_cast<GateObject*>(type->tp_alloc(type, 0));
  if (self == nullptr) return nullptr;
  self->core = new GateCore;
  self->core->task = Py_NewRef(task);
  if (grace_s > 0) self->core->grace = std::chrono::microseconds(static_cast<long long>(grace_s * 1e6));
  return reinterpret_cast<PyObject*>(self);
}

void gate_dealloc(PyObject* o) {
  GateObject* self = reinterpret_cast<GateObject*>(o);
  if (self->core != nullptr) {
    // no callback queued (never launched, or it ran): nobody calls the task any more; a queued
    // one keeps the task (it may claim and call it) and drops it itself
    if (self->core->refs.load(std::memory_order_acquire) == 1) Py_CLEAR(self->core->task);
    self->core->release();
  }
  PyTypeObject* tp = Py_TYPE(o);
  tp->tp_free(o);
  Py_DECREF(tp);  // (a heap type)
}

// claim() -> bool: wait() takes the body (True) unless the stream task took it first.
PyObject* gate_claim(PyObject* o, PyObject*) {
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  int expect = 0;
  if (!g->state.compare_exchange_strong(expect, 1, std::memory_order_acq_rel)) Py_RETURN_FALSE;
  Py_CLEAR(g->task);  // the callback will not call it (GIL held here)
  Py_RETURN_TRUE;  // (a callback in its grace wakes at finish() or at the grace's end)
}

// finish(): wait()'s run of the body ended (wakes the stream task waiting for it).
PyObject* gate_finish(PyObject* o, PyObject*) {
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  if (g->state.load(std::memory_order_acquire) == 1) g->finish();  // (the task holds the mutex only briefly)
  Py_RETURN_NONE;
}

// done() -> bool: the body ran (wait()'s run or the task's).
PyObject* gate_done(PyObject* o, PyObject*) {
  return PyBool_FromLong(reinterpret_cast<GateObject*>(o)->core->state.load(std::memory_order_acquire) == 3);
}

PyObject* g_gate_type = nullptr;  // the Gate type (PyInit__native)

// launch(prev=None): queues the gate's callback on the calling thread's current stream (its later
// work waits for it); prev: the gate launched on that stream before (ready()'s chain).
PyObject* gate_launch(PyObject* o, PyObject* args) {
  PyObject* prev_obj = Py_None;
  if (!PyArg_ParseTuple(args, "|O:launch", &prev_obj)) return nullptr;
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  if (g->launched) {
    PyErr_SetString(PyExc_RuntimeError, "Gate.launch(): launched already");
    return nullptr;
  }
  GateCore* p = nullptr;
  if (prev_obj != Py_None) {
    if (Py_TYPE(prev_obj) != reinterpret_cast<PyTypeObject*>(g_gate_type)) {
      PyErr_SetString(PyExc_TypeError, "Gate.launch(prev): prev must be a Gate or None");
      return nullptr;
    }
    p = reinterpret_cast<GateObject*>(prev_obj)->core;
  }
  std::shared_ptr<asc::runtime::Stream> s = asc::runtime::current_stream();
  g->before = s->last_enqueued();
  if (p != nullptr && (p->stream.lock() != s || p->tail != g->before)) p = nullptr;  // other work between
  if (p != nullptr && p->state.load(std::memory_order_acquire) == 3) {
    g->prev_ran = true;  // (no reference needed)
    p = nullptr;
  }
  g->refs.fetch_add(1, std::memory_order_acq_rel);  // the callback's
  if (p != nullptr) p->refs.fetch_add(1, std::memory_order_acq_rel);
  g->prev = p;  // (not shared yet: no lock)
  g->stream = s;
  g->launched = true;
  g->seq = s->add_callback([g] { gate_callback(g); });
  Py_RETURN_NONE;
}

// seal(): the event behind the callback is recorded: the stream's last item, which the next
// gate's ready() compares with what preceded it.
PyObject* gate_seal(PyObject* o, PyObject*) {
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  if (std::shared_ptr<asc::runtime::Stream> s = g->stream.lock()) g->tail = s->last_enqueued();
  Py_RETURN_NONE;
}

// wait_ready(): returns once the stream's work before the callback has run (ready(); else the
// GIL released while the stream gets there: what the callback waits for too).
PyObject* gate_wait_ready(PyObject* o, PyObject*) {
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  if (!g->ready() && g->seq > 1) {
    std::shared_ptr<asc::runtime::Stream> s = g->stream.lock();
    Py_BEGIN_ALLOW_THREADS
    if (s != nullptr) s->wait_until(g->seq - 1);
    s.reset();  // (without the GIL: a last reference drains the stream, whose callbacks may need it)
    Py_END_ALLOW_THREADS
  }
  Py_RETURN_NONE;
}

// position() -> (seq, before, tail, completed): where the callback sits on its stream (tests).
PyObject* gate_position(PyObject* o, PyObject*) {
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  std::shared_ptr<asc::runtime::Stream> s = g->stream.lock();
  const unsigned long long done = s != nullptr ? s->completed() : 0;
  return Py_BuildValue("(KKKK)", static_cast<unsigned long long>(g->seq), static_cast<unsigned long long>(g->before),
                       static_cast<unsigned long long>(g->tail), done);
}

PyMethodDef kGateMethods[] = {
    {"position", &gate_position, METH_NOARGS, "(seq, before, tail, completed) of the callback on its stream."},
    {"claim", &gate_claim, METH_NOARGS, "Takes the body for wait() (True) unless the stream task took it."},
    {"finish", &gate_finish, METH_NOARGS, "wait()'s run of the body ended."},
    {"done", &gate_done, METH_NOARGS, "Whether the body ran."},
    {"launch", &gate_launch, METH_VARARGS,
     "launch(prev=None): queues the gate's callback on the current stream (later work waits for it); prev: "
     "the gate launched on that stream before."},
    {"seal", &gate_seal, METH_NOARGS, "The event behind the callback is recorded (the stream's tail)."},
    {"wait_ready", &gate_wait_ready, METH_NOARGS,
     "Returns once the stream's work before the callback has run (the GIL released while it waits)."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot kGateSlots[] = {
    {Py_tp_new, reinterpret_cast<void*>(&gate_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(&gate_dealloc)},
    {Py_tp_methods, kGateMethods},
    {Py_tp_doc, const_cast<char*>(
                    "Gate(task, grace_s=0): who runs an async_op collective's body, once: wait() (claim()/finish()) or "
                    "the stream callback queued by launch(), which calls task() with the GIL when it claims it "
                    "first (after leaving wait() grace_s seconds to claim).")},
    {0, nullptr}};
PyType_Spec kGateSpec = {"pyasc.distributed._native.Gate", sizeof(GateObject), 0, Py_TPFLAGS_DEFAULT, kGateSlots};
