"""A thread pool whose shutdown is bounded: the HTTP and grpcio front ends' handler threads.

``concurrent.futures.ThreadPoolExecutor`` joins its threads in ``shutdown(wait=True)`` and
again at interpreter exit, without a bound: one model call that never returns holds
``Server.stop()`` and then the process's exit forever. :class:`DaemonThreadPool` has the same
``submit`` / ``shutdown`` interface (what ``loop.run_in_executor`` and ``grpc.server`` use),
daemon threads, and ``shutdown(wait=True, timeout=T)`` waits at most ``T`` seconds and returns
the threads still busy: they are abandoned (they end with their call, or with the process).
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent import futures

__all__ = ["DaemonThreadPool"]


class DaemonThreadPool(futures.Executor):
    """``DaemonThreadPool(max_workers, thread_name_prefix)``: up to ``max_workers`` daemon threads,
    started as work arrives (an idle thread is reused first)."""

    def __init__(self, max_workers, thread_name_prefix="pyasc-serve"):
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, not {max_workers}")
        self._max = int(max_workers)
        self._prefix = thread_name_prefix
        self._work = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one count per idle thread
        self._lock = threading.Lock()
        self._threads = []
        self._closed = False

    def submit(self, fn, /, *args, **kwargs):
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            f = futures.Future()
            self._work.put((f, fn, args, kwargs))
            if not self._idle.acquire(blocking=False) and len(self._threads) < self._max:
                t = threading.Thread(target=self._run, name=f"{self._prefix}_{len(self._threads)}", daemon=True)
                t.start()
                self._threads.append(t)
            return f

    def _run(self):
        while True:
            item = self._work.get()
            if item is None:  # shutdown: pass the stop on to the next thread
                self._work.put(None)
                return
            f, fn, args, kwargs = item
            del item
            if f.set_running_or_notify_cancel():
                try:
                    r = fn(*args, **kwargs)
                except BaseException as e:  # noqa: BLE001 - the future carries it to the caller
                    f.set_exception(e)
                    del e
                else:
                    f.set_result(r)
                    del r
            del f, fn, args, kwargs
            self._idle.release()

    def shutdown(self, wait=True, *, cancel_futures=False, timeout=None):
        """Takes no new work; with ``cancel_futures`` drops what has not started. ``wait``: waits
        for the threads, at most ``timeout`` seconds (None: no bound); returns the threads still
        running then (abandoned: daemon threads that end with their call)."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._work.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        self._work.put(None)
        if not wait:
            return []
        end = None if timeout is None else time.monotonic() + max(0.0, timeout)
        for t in threads:
            t.join(None if end is None else max(0.0, end - time.monotonic()))
        return [t for t in threads if t.is_alive()]
