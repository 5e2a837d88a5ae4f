// The gate of one async_op collective of pyasc.distributed (native.cc's Gate type and launch()):
// who runs its body, once, and a stream callback that does not need the GIL unless it runs it.
//
// Why: an async_op collective is a task on the caller's current stream (later work there reads
// its results). Work.wait() runs the body itself when the call found the stream idle
// (_collectives._StreamWork), instead of waking the stream's worker and sleeping until it ran.
// The stream still holds the task; as a Python callback (Stream.add_callback) it needs the
// GIL even to return, so the next call found the stream busy until the caller let the worker
// have the GIL (measured ~0.6-0.8 ms a call on a loaded machine, the whole difference). As a C
// callback (aclrtLaunchCallback, ACL_CALLBACK_BLOCK: the stream's later work waits for it) it
// takes the GIL only when it claims the body; when wait() claimed it, it waits for the end
// (spin, then a condition variable) and returns without Python.
//
// Included once, by native.cc, inside its anonymous namespace (needs <Python.h>, <atomic>,
// <chrono>, <condition_variable>, <mutex> and acl/acl_rt.h first).
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

  void finish() {
    {
      std::lock_guard<std::mutex> lock(mu);
      state.store(3, std::memory_order_release);
    }
    cv.notify_all();
  }
  void release() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
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
    // the body runs here, as the Python stream task did
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
    // wait() runs it: the stream's later work must start after its end. A short spin first (the
    // caller is usually inside one short MPI call), then sleep on the condition variable.
    const auto spin_end = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (g->state.load(std::memory_order_acquire) != 3 && std::chrono::steady_clock::now() < spin_end) {
    }
    if (g->state.load(std::memory_order_acquire) != 3) {
      std::unique_lock<std::mutex> lock(g->mu);
      g->cv.wait(lock, [g] { return g->state.load(std::memory_order_acquire) == 3; });
    }
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
  if (g->grace.count() > 0) {
    { std::lock_guard<std::mutex> lock(g->mu); }  // (a callback between its test and its sleep sees the claim)
    g->cv.notify_all();  // ends the callback's grace: it now waits for finish()
  }
  Py_RETURN_TRUE;
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

// launch(): queues the gate's callback on the calling thread's current stream (its later work
// waits for it). Raises RuntimeError when the runtime refuses (the caller falls back).
PyObject* gate_launch(PyObject* o, PyObject*) {
  GateCore* g = reinterpret_cast<GateObject*>(o)->core;
  g->refs.fetch_add(1, std::memory_order_acq_rel);
  const aclError err = aclrtLaunchCallback(&gate_callback, g, ACL_CALLBACK_BLOCK, nullptr);
  if (err != ACL_SUCCESS) {
    g->refs.fetch_sub(1, std::memory_order_acq_rel);
    PyErr_Format(PyExc_RuntimeError, "aclrtLaunchCallback failed (%d)", static_cast<int>(err));
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyMethodDef kGateMethods[] = {
    {"claim", &gate_claim, METH_NOARGS, "Takes the body for wait() (True) unless the stream task took it."},
    {"finish", &gate_finish, METH_NOARGS, "wait()'s run of the body ended."},
    {"done", &gate_done, METH_NOARGS, "Whether the body ran."},
    {"launch", &gate_launch, METH_NOARGS,
     "Queues the gate's callback on the current stream (aclrtLaunchCallback, blocking: later work waits)."},
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
