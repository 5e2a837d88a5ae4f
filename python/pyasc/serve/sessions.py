"""Client sessions: a stream and a memory quota per ``session_id``.

A request names its session with the request parameter ``session_id`` (HTTP JSON
``parameters``, gRPC ``parameters``) or the HTTP header / gRPC metadata ``session-id``.
Each session gets its own pyasc stream (its requests are ordered on it, other sessions'
run concurrently), its own device memory pool (a :class:`pyasc.memory.SubPool`) and a
quota of bytes, which bounds two things:

* the session's sub-pool: every device allocation the model makes while running the
  session's request (inputs on the device, intermediates, outputs) comes from the
  session's pool, limited to the quota; a model run that exceeds it fails with the pool's
  out-of-memory error, turned into RESOURCE_EXHAUSTED (HTTP 429) for that request alone;
  freed blocks return to the session's pool, never to another session's;
* the request tensors (host NumPy arrays) of the session's in-flight requests, checked
  before the model runs.

Other sessions are not affected by one session's quota. Sessions idle for ``idle_secs``
are dropped and their pool closed (its memory goes back to the device; blocks still held
by a response being sent go back when that response is freed). With ``dynamic_batching``
a batch holds one session's requests only and runs on that session's stream and pool.
Work the model enqueues on a stream inherits the pool; threads it starts itself enter
it with ``with pyasc.memory.SubPool.current():`` (docs/memory.md).
"""

from __future__ import annotations

import threading
import time

from .errors import InvalidArgumentError, QuotaExceededError

__all__ = ["Session", "SessionManager"]

_MAX_ID = 128


class Session:
    """One session: id, stream, bytes in use, last use."""

    __slots__ = ("id", "stream", "pool", "bytes_in_use", "last_used", "requests", "failures")

    def __init__(self, sid):
        self.id = sid
        self.stream = None
        self.pool = None
        self.bytes_in_use = 0
        self.last_used = time.monotonic()
        self.requests = 0
        self.failures = 0


class SessionManager:
    """Sessions by id, with a per-session byte quota (0 = no limit) and idle expiry."""

    def __init__(self, quota_bytes=0, idle_secs=300.0, max_sessions=10000):
        self.quota_bytes = int(quota_bytes)
        self.idle_secs = float(idle_secs)
        self.max_sessions = int(max_sessions)
        self._lock = threading.Lock()
        self._sessions = {}
        self.quota_failures = 0

    def _check_id(self, sid):
        if not isinstance(sid, str) or not sid or len(sid) > _MAX_ID or not sid.isprintable():
            raise InvalidArgumentError(f"invalid session_id {sid!r}: a printable string of 1-{_MAX_ID} characters")

    def charge(self, sid, nbytes):
        """Adds ``nbytes`` to the session (creating it); QuotaExceededError if over its quota."""
        self._check_id(sid)
        with self._lock:
            s = self._sessions.get(sid)
            if s is None:
                if len(self._sessions) >= self.max_sessions:
                    self._expire_locked(time.monotonic())
                    if len(self._sessions) >= self.max_sessions:
                        raise QuotaExceededError(f"too many sessions ({self.max_sessions}); session '{sid}' refused")
                s = self._sessions[sid] = Session(sid)
            s.last_used = time.monotonic()
            if self.quota_bytes and s.bytes_in_use + nbytes > self.quota_bytes:
                s.failures += 1
                self.quota_failures += 1
                raise QuotaExceededError(f"session '{sid}': {s.bytes_in_use + nbytes} bytes would exceed its quota "
                                         f"of {self.quota_bytes} bytes ({s.bytes_in_use} in use)")
            s.bytes_in_use += nbytes
            s.requests += 1
            return s

    def add(self, s, nbytes):
        """Adds output bytes to a charged request (QuotaExceededError if over; the caller releases)."""
        with self._lock:
            if self.quota_bytes and s.bytes_in_use + nbytes > self.quota_bytes:
                s.failures += 1
                self.quota_failures += 1
                raise QuotaExceededError(f"session '{s.id}': outputs of {nbytes} bytes exceed its quota of "
                                         f"{self.quota_bytes} bytes ({s.bytes_in_use} in use)")
            s.bytes_in_use += nbytes

    def count_failure(self, s):
        """Counts a request of ``s`` refused by its memory pool's quota."""
        with self._lock:
            s.failures += 1
            self.quota_failures += 1

    def release(self, s, nbytes):
        with self._lock:
            s.bytes_in_use -= nbytes
            s.last_used = time.monotonic()

    def pool(self, s):
        """The session's memory sub-pool (created on first use, limited to the quota)."""
        if s.pool is None:
            from .. import memory

            with self._lock:
                if s.pool is None:
                    s.pool = memory.SubPool(self.quota_bytes or None, name=f"session '{s.id}'")
        return s.pool

    def stream(self, s):
        """The session's stream (created on first use)."""
        if s.stream is None:
            import pyasc

            with self._lock:
                if s.stream is None:
                    s.stream = pyasc.Stream()
        return s.stream

    def _expire_locked(self, now):
        dead = [k for k, s in self._sessions.items() if s.bytes_in_use == 0 and now - s.last_used > self.idle_secs]
        for k in dead:
            s = self._sessions.pop(k)
            if s.pool is not None:
                s.pool.close()
        return len(dead)

    def expire(self):
        """Drops sessions idle longer than ``idle_secs``; returns how many."""
        with self._lock:
            return self._expire_locked(time.monotonic())

    def snapshot(self):
        """Per session: tensor bytes in use, requests, failures and its pool's bytes."""
        with self._lock:
            items = list(self._sessions.items())
        out = {}
        for k, s in items:
            ps = s.pool.stats() if s.pool is not None else None
            out[k] = {"bytes_in_use": s.bytes_in_use, "requests": s.requests, "failures": s.failures,
                      "pool_allocated_bytes": ps["allocated_bytes"] if ps else 0,
                      "pool_reserved_bytes": ps["reserved_bytes"] if ps else 0,
                      "pool_peak_allocated_bytes": ps["peak_allocated_bytes"] if ps else 0}
        return out

    def close(self):
        """Drops every session and closes its pool."""
        with self._lock:
            items = list(self._sessions.values())
            self._sessions.clear()
        for s in items:
            if s.pool is not None:
                s.pool.close()
