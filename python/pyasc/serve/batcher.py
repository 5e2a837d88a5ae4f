"""Scheduling of executions: instance slots and Triton's dynamic batcher.

* :class:`DirectScheduler` -- no ``dynamic_batching`` in the config: the calling thread
  (a gRPC worker or an HTTP executor thread) runs the model itself once one of the
  ``instance_group`` slots is free. Each thread has its own default pyasc stream, so
  concurrent requests run on separate streams; the C++ kernels release the GIL.
* :class:`DynamicBatcher` -- requests wait in one queue; ``count`` worker threads each
  form a batch (up to the largest ``preferred_batch_size``, or ``max_batch_size``) or take
  what is there once the oldest request has waited ``max_queue_delay_microseconds``, run
  it as one execution and hand each request its slice. A batch holds the requests of one
  session only (or of none): it runs on that session's stream, its device memory comes
  from that session's pool, so a batch never spends one session's quota for another.
"""

from __future__ import annotations

import collections
import threading
import time

from .errors import UnavailableError

__all__ = ["DirectScheduler", "DynamicBatcher"]


class _Item:
    __slots__ = ("feeds", "names", "size", "t_enq", "done", "result", "queue_ns", "exec_ns", "stream", "pool")

    def __init__(self, feeds, names, size, stream=None, pool=None):
        self.feeds = feeds
        self.names = names
        self.size = size
        self.stream = stream  # a session's (with its pool), else None: the worker's own
        self.pool = pool
        self.t_enq = time.perf_counter_ns()
        self.done = None  # an Event only where another thread hands the result over (batcher)
        self.result = None
        self.queue_ns = 0
        self.exec_ns = 0


class _Gate:
    """At most ``count`` holders (threading.BoundedSemaphore's job): one C lock acquire/release
    on the uncontended path instead of the semaphore's Python-level condition (measured ~5x
    cheaper per request)."""

    __slots__ = ("_free", "_lock", "_cv", "_waiting")

    def __init__(self, count):
        self._free = count
        self._lock = threading.Lock()
        self._cv = threading.Condition(self._lock)
        self._waiting = 0

    def __enter__(self):
        with self._lock:
            if self._free > 0:
                self._free -= 1
                return self
            self._waiting += 1
            try:
                while self._free == 0:
                    self._cv.wait()
            finally:
                self._waiting -= 1
            self._free -= 1
            return self

    def __exit__(self, *exc):
        with self._lock:
            self._free += 1
            if self._waiting:
                self._cv.notify()
        return False


def _execute(backend, stats, items, stream=None, pool=None):
    t0 = time.perf_counter_ns()
    if len(items) == 1 and stream is None and pool is None:
        # one request, no session (the direct path's common case): no per-item loops
        it = items[0]
        it.queue_ns = t0 - it.t_enq
        it.result = backend.run_batch([(it.feeds, it.names)])[0]
        it.exec_ns = dt = time.perf_counter_ns() - t0
        stats.executed(it.size, 0, dt, 0)
        return
    for it in items:
        it.queue_ns = t0 - it.t_enq
    if pool is not None:
        # A session: its stream and its memory sub-pool (allocations on this thread).
        with stream, pool:
            results = backend.run_batch([(it.feeds, it.names) for it in items])
    elif stream is not None:
        with stream:
            results = backend.run_batch([(it.feeds, it.names) for it in items])
    else:
        results = backend.run_batch([(it.feeds, it.names) for it in items])
    dt = time.perf_counter_ns() - t0
    stats.executed(sum(it.size for it in items), 0, dt, 0)
    for it, r in zip(items, results):
        it.result = r
        it.exec_ns = dt


class DirectScheduler:
    """Runs each request in the caller's thread, at most ``count`` at a time."""

    def __init__(self, backend, stats, count):
        self._backend = backend
        self._stats = stats
        self._slots = _Gate(max(1, count))
        self._closed = False

    def submit(self, feeds, names, size, stream=None, pool=None):
        """Runs one request (on ``stream`` with allocations from ``pool`` when given: a
        session's); returns (outputs dict or exception, queue ns, exec ns)."""
        if self._closed:
            raise UnavailableError("model is unloading")
        if stream is None and pool is None:
            # no session (the common case): the backend's one-request entry, no _Item and no
            # batch list (fewer Python frames per request on the path the overhead goal measures)
            t_enq = time.perf_counter_ns()
            with self._slots:
                t0 = time.perf_counter_ns()
                result = self._backend.run_one(feeds, names)
                dt = time.perf_counter_ns() - t0
            self._stats.executed(size, 0, dt, 0)
            return result, t0 - t_enq, dt
        it = _Item(feeds, names, size)
        with self._slots:
            _execute(self._backend, self._stats, [it], stream, pool)
        return it.result, it.queue_ns, it.exec_ns

    def has_free_slot(self):
        """Whether a request would start at once (a hint: another thread may take the slot)."""
        return self._slots._free > 0

    def close(self, timeout=None):
        self._closed = True


class DynamicBatcher:
    """Triton's dynamic batcher over ``count`` worker threads."""

    def __init__(self, backend, stats, count, max_batch_size, preferred, max_delay_us, name=""):
        self._backend = backend
        self._stats = stats
        self._max = max(1, int(max_batch_size))
        pref = [p for p in preferred if 0 < p <= self._max]
        self._target = max(pref) if pref else self._max
        self._delay_ns = int(max_delay_us) * 1000
        self._q = collections.deque()
        self._cv = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"pyasc-batcher-{name}-{i}", daemon=True)
                         for i in range(max(1, count))]
        for t in self._threads:
            t.start()

    def submit(self, feeds, names, size, stream=None, pool=None):
        """Queues one request and waits for its batch; returns (result, queue ns, exec ns).

        With a session's ``stream`` and ``pool`` the request is batched only with requests of
        the same session, and the batch runs on that stream with allocations from that pool."""
        if size > self._max:
            # Larger than any batch: run it alone.
            it = _Item(feeds, names, size, stream, pool)
            _execute(self._backend, self._stats, [it], stream, pool)
            return it.result, it.queue_ns, it.exec_ns
        it = _Item(feeds, names, size, stream, pool)
        it.done = threading.Event()
        with self._cv:
            if self._closed:
                raise UnavailableError("model is unloading")
            self._q.append(it)
            # all: a worker forming another session's batch would take the wake-up and leave
            # this request to its deadline while an idle worker sleeps
            self._cv.notify_all()
        it.done.wait()
        return it.result, it.queue_ns, it.exec_ns

    def _take(self):
        with self._cv:
            while not self._q and not self._closed:
                self._cv.wait()
            if not self._q:
                return None
            batch = [self._q.popleft()]
            total = batch[0].size
            pool = batch[0].pool  # the batch's session (None: no session)
            deadline = batch[0].t_enq + self._delay_ns
            while total < self._target:
                full = False
                if self._q:
                    # the queued requests of the same session, in arrival order; others wait
                    # for a batch of their own
                    rest = collections.deque()
                    for it in self._q:
                        if full or it.pool is not pool or total >= self._target:
                            rest.append(it)
                        elif total + it.size > self._max:
                            full = True
                            rest.append(it)
                        else:
                            batch.append(it)
                            total += it.size
                    self._q = rest
                if full or total >= self._target:
                    break
                left = deadline - time.perf_counter_ns()
                if left <= 0 or self._closed:
                    break
                self._cv.wait(left / 1e9)
            return batch

    def _work(self):
        while True:
            batch = self._take()
            if batch is None:
                return
            try:
                _execute(self._backend, self._stats, batch, batch[0].stream, batch[0].pool)
            except Exception as e:  # noqa: BLE001 - every waiting request must be woken
                for it in batch:
                    it.result = e
            for it in batch:
                it.done.set()

    def close(self, timeout=30.0):
        """Stops accepting requests; queued ones still run; workers exit when the queue is empty.
        Waits at most ``timeout`` seconds for them (daemon threads: one stuck in a model call
        that never returns is left to it)."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        end = time.monotonic() + timeout
        for t in self._threads:
            t.join(timeout=max(0.0, end - time.monotonic()))
