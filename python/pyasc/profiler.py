"""pyasc.profiler: timelines of what the runtime did, for tuning operators.

Usage::

    from pyasc.profiler import Profiler, record_function

    with Profiler() as prof:
        with record_function("my_step"):
            y = ascend_ops.vector_add(a, b)
    prof.export_chrome_trace("trace.json")     # chrome://tracing or ui.perfetto.dev
    print(prof.key_averages().table(sort_by="self_device_time_total", row_limit=10))

Recorded: kernel launches on the host (linked by flow arrows to the kernel
executions), kernel executions per stream, each block on the core that ran it,
memory copies (kind, bytes, bandwidth), pool allocations and frees (cache hit
or miss, with a counter track of pool usage), stream waits, event records,
host callbacks, ``synchronize()`` waits and user ranges. Events go into a
bounded ring buffer (``capacity`` events, default 2**20); when it overflows the
oldest events are overwritten and the trace says how many were dropped.

With the profiler off every hook is one branch; nothing is allocated.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from dataclasses import dataclass, field

from . import _C

_P = _C.profiler

__all__ = [
    "Profiler",
    "ProfilerAction",
    "schedule",
    "record_function",
    "start",
    "stop",
    "EventList",
    "FunctionEventAvg",
]

# Kinds that run on the device (stream workers and cores) rather than on the
# calling host thread.
_DEVICE_KINDS = {"kernel", "block", "stream_wait", "event_record", "callback"}


class ProfilerAction:
    """What a schedule asks the profiler to do at a step."""

    NONE = "none"
    WARMUP = "warmup"
    RECORD = "record"
    RECORD_AND_SAVE = "record_and_save"


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 1, skip_first: int = 0):
    """A schedule for long loops: after ``skip_first`` steps, cycles of ``wait``
    idle steps, ``warmup`` steps recorded but discarded, ``active`` steps
    recorded; ``repeat`` cycles (0: forever). Call ``prof.step()`` once per
    iteration; each finished cycle calls ``on_trace_ready(prof)``."""
    if min(wait, warmup, skip_first, repeat) < 0 or active < 1:
        raise ValueError(f"[profiler.schedule] invalid arguments: wait={wait}, warmup={warmup}, "
                         f"active={active}, repeat={repeat}, skip_first={skip_first}")

    def action(step: int) -> str:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if pos == cycle - 1 else ProfilerAction.RECORD

    return action


@dataclass
class FunctionEventAvg:
    """Aggregated statistics of one (kind, name) pair."""

    name: str
    kind: str
    count: int = 0
    total_us: float = 0.0
    min_us: float = float("inf")
    max_us: float = 0.0
    bytes: int = 0
    wall_us: float = 0.0

    @property
    def mean_us(self) -> float:
        return self.total_us / self.count if self.count else 0.0

    @property
    def is_device(self) -> bool:
        return self.kind in _DEVICE_KINDS or self.kind == "memcpy"

    @property
    def self_device_time_total(self) -> float:
        return self.total_us if self.is_device else 0.0

    @property
    def cpu_time_total(self) -> float:
        return 0.0 if self.is_device else self.total_us

    @property
    def share_of_wall(self) -> float:
        """Total time as a fraction of the profiled wall time."""
        return self.total_us / self.wall_us if self.wall_us > 0 else 0.0

    @property
    def bandwidth_gbs(self) -> float:
        """Achieved bandwidth (bytes moved / total time), GB/s; 0 when no bytes."""
        return self.bytes / (self.total_us * 1e3) if self.total_us > 0 and self.bytes else 0.0


_SORT_KEYS = {
    "self_device_time_total": lambda a: a.self_device_time_total,
    "device_time_total": lambda a: a.self_device_time_total,
    "cpu_time_total": lambda a: a.cpu_time_total,
    "self_cpu_time_total": lambda a: a.cpu_time_total,
    "total": lambda a: a.total_us,
    "count": lambda a: a.count,
    "mean": lambda a: a.mean_us,
    "bytes": lambda a: a.bytes,
}


class EventList(list):
    """A list of :class:`FunctionEventAvg` with a printable table."""

    def table(self, sort_by: str = "self_device_time_total", row_limit: int = 100) -> str:
        """Rows sorted by ``sort_by`` (one of ``self_device_time_total``,
        ``device_time_total``, ``cpu_time_total``, ``self_cpu_time_total``,
        ``total``, ``count``, ``mean``, ``bytes``), at most ``row_limit``."""
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"[key_averages.table] unknown sort_by '{sort_by}'; "
                             f"expected one of {sorted(_SORT_KEYS)}")
        key = _SORT_KEYS[sort_by]
        rows = sorted(self, key=lambda a: (key(a), a.total_us), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        header = ("Name", "Kind", "Count", "Total ms", "Mean us", "Min us", "Max us", "% wall", "Bytes", "GB/s")
        lines = []
        for a in rows:
            lines.append((a.name[:40], a.kind, str(a.count), f"{a.total_us / 1e3:.3f}", f"{a.mean_us:.2f}",
                          f"{a.min_us:.2f}", f"{a.max_us:.2f}", f"{100 * a.share_of_wall:.1f}",
                          str(a.bytes), f"{a.bandwidth_gbs:.2f}" if a.bytes else "-"))
        widths = [max(len(h), *(len(r[i]) for r in lines)) if lines else len(h) for i, h in enumerate(header)]
        sep = "  ".join("-" * w for w in widths)
        fmt = lambda r: "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        return "\n".join([sep, fmt(header), sep, *map(fmt, lines), sep])

    def __str__(self) -> str:
        return self.table()


class Profiler:
    """Records runtime events while active (context manager, or start()/stop()).

    Args:
        schedule: optional :func:`schedule` result; then call :meth:`step` per iteration.
        on_trace_ready: called with the profiler when a scheduled cycle ends.
        capacity: ring-buffer size in events.
    """

    def __init__(self, *, schedule=None, on_trace_ready=None, capacity: int = 1 << 20):
        if capacity < 1:
            raise ValueError(f"[Profiler] capacity must be >= 1, got {capacity}")
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.capacity = int(capacity)
        self.step_num = 0
        self._events: list[dict] = []
        self._dropped = 0
        self._recorded = 0
        self._t_start_ns = 0
        self._t_stop_ns = 0
        self._recording = False
        self._action = ProfilerAction.NONE

    # -- control --------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        """Starts recording (with a schedule: enters the schedule's step 0)."""
        global _current
        if _current is not None and _current is not self and _current._recording:
            raise RuntimeError("[Profiler.start] another profiler is already recording")
        _current = self
        if self.schedule is None:
            self._begin()
        else:
            self.step_num = 0
            self._apply(self.schedule(0))
        return self

    def stop(self):
        """Stops recording and collects the events."""
        global _current
        if self._recording:
            self._end()
        if _current is self:
            _current = None

    def step(self):
        """Marks the end of one iteration of a scheduled loop."""
        if self.schedule is None:
            return
        prev = self._action
        self.step_num += 1
        nxt = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE:
            self._end()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        self._apply(nxt)

    def _apply(self, action):
        if action in (ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            if not self._recording:
                self._begin()
            if action != ProfilerAction.WARMUP and self._action == ProfilerAction.WARMUP:
                # Warm-up events are discarded: the window starts now.
                self._t_start_ns = _P.now_ns()
        elif self._recording:
            self._end()
        self._action = action

    def _begin(self):
        _C.synchronize()
        _P.start(self.capacity)
        self._t_start_ns = _P.now_ns()
        self._recording = True

    def _end(self):
        _C.synchronize()  # the events of work already enqueued belong to this window
        self._t_stop_ns = _P.now_ns()
        _P.stop()
        self._recording = False
        start = self._t_start_ns
        self._events = [e for e in _P.events() if e["ts_ns"] >= start]
        self._dropped = _P.dropped()
        self._recorded = _P.recorded()

    # -- results --------------------------------------------------------
    @property
    def dropped_events(self) -> int:
        """Events lost because the ring buffer was full."""
        return self._dropped

    def events(self) -> list[dict]:
        """The raw events of the last recording window (dicts, oldest first)."""
        return list(self._events)

    @property
    def wall_time_us(self) -> float:
        return max(0.0, (self._t_stop_ns - self._t_start_ns) / 1e3)

    def key_averages(self) -> EventList:
        """Per (kind, name): count, total/mean/min/max time, share of wall time,
        bytes moved and achieved bandwidth."""
        groups: dict[tuple[str, str], FunctionEventAvg] = {}
        wall = self.wall_time_us
        for e in self._events:
            k = (e["kind"], e["name"])
            a = groups.get(k)
            if a is None:
                a = groups[k] = FunctionEventAvg(name=e["name"], kind=e["kind"], wall_us=wall)
            d = e["dur_ns"] / 1e3
            a.count += 1
            a.total_us += d
            a.min_us = min(a.min_us, d)
            a.max_us = max(a.max_us, d)
            if e["kind"] in ("memcpy", "kernel", "block"):
                a.bytes += e["bytes"]
        return EventList(groups.values())

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Writes the events as Trace Event JSON (chrome://tracing, Perfetto)."""
        trace = _chrome_trace(self._events, self._dropped, self._recorded)
        tmp = f"{os.fspath(path)}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(trace, f)
        os.replace(tmp, path)


_current: Profiler | None = None


def start(**kwargs) -> Profiler:
    """Starts a module-level profiler (``asc.profiler.start()``); returns it."""
    return Profiler(**kwargs).start()


def stop() -> Profiler | None:
    """Stops the profiler started by :func:`start`; returns it (None if none)."""
    prof = _current
    if prof is not None:
        prof.stop()
    return prof


class record_function:
    """A named user range on the host timeline: ``with record_function("x"):``
    or as a decorator ``@record_function("x")``."""

    def __init__(self, name: str):
        self.name = str(name)
        self._t0 = 0

    def __enter__(self):
        self._t0 = _P.now_ns() if _P.enabled() else 0
        return self

    def __exit__(self, *exc):
        if self._t0 and _P.enabled():
            _P.record(_P.EventKind.range, self.name, self._t0, _P.now_ns() - self._t0)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapper


def record_op(name: str, args=(), ts_ns: int | None = None, dur_ns: int = 0) -> None:
    """Records a Python-level operator call with its inputs' shapes and dtypes
    (used by pyasc's operators; no-op when the profiler is off)."""
    if not _P.enabled():
        return
    parts = []
    for a in args:
        shape, dtype = getattr(a, "shape", None), getattr(a, "dtype", None)
        parts.append(f"{tuple(shape)}:{dtype}" if shape is not None else type(a).__name__)
    _P.record(_P.EventKind.op, name, _P.now_ns() if ts_ns is None else ts_ns, dur_ns, ", ".join(parts))


# ----------------------------------------------------------------- Chrome trace

_HOST_PID, _DEVICE_PID = 0, 1
_CORE_TID_BASE = 1_000_000


def _chrome_trace(events, dropped: int, recorded: int) -> dict:
    out = []
    threads: dict[tuple[int, int], str] = {}

    def place(e):
        if e["kind"] == "block":
            tid = _CORE_TID_BASE + max(e["core"], 0)
            threads[(_DEVICE_PID, tid)] = f"core {e['core']}"
            return _DEVICE_PID, tid
        if e["stream_id"] and e["kind"] not in ("launch", "alloc", "free", "range", "op", "synchronize"):
            tid = e["stream_id"]
            threads[(_DEVICE_PID, tid)] = f"stream {tid}"
            return _DEVICE_PID, tid
        tid = e["thread_id"]
        threads[(_HOST_PID, tid)] = f"host thread {tid}"
        return _HOST_PID, tid

    for e in events:
        pid, tid = place(e)
        ts = e["ts_ns"] / 1e3
        args = {k: e[k] for k in ("stream_id", "bytes", "block_dim", "detail") if e[k]}
        if e["kind"] == "block":
            args["block_idx"] = e["block_idx"]
        if e["kind"] in ("memcpy",) and e["dur_ns"] > 0:
            args["bandwidth_GBps"] = round(e["bytes"] / e["dur_ns"], 3)
        if e["kind"] in ("alloc", "free"):
            args["pool_allocated_bytes"] = e["value"]
        ev = {"name": e["name"], "cat": e["kind"], "ph": "X", "ts": ts, "dur": e["dur_ns"] / 1e3,
              "pid": pid, "tid": tid, "args": args}
        out.append(ev)
        if e["kind"] in ("alloc", "free"):
            out.append({"name": f"{e['name']} allocated bytes", "ph": "C", "ts": ts, "pid": _HOST_PID,
                        "args": {"allocated": e["value"]}})
        if e["flow_id"]:
            if e["kind"] == "launch":
                out.append({"name": "launch", "cat": "flow", "ph": "s", "id": e["flow_id"], "ts": ts,
                            "pid": pid, "tid": tid})
            elif e["kind"] == "kernel":
                out.append({"name": "launch", "cat": "flow", "ph": "f", "bp": "e", "id": e["flow_id"],
                            "ts": ts, "pid": pid, "tid": tid})
    meta = [
        {"name": "process_name", "ph": "M", "pid": _HOST_PID, "args": {"name": "host"}},
        {"name": "process_name", "ph": "M", "pid": _DEVICE_PID,
         "args": {"name": f"device 0 ({_C.get_device_properties()['name']})"}},
    ]
    for (pid, tid), name in sorted(threads.items()):
        meta.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                     "args": {"sort_index": tid if tid < _CORE_TID_BASE else tid}})
    if dropped:
        first = min((e["ts"] for e in out if "ts" in e), default=0.0)
        out.append({"name": f"{dropped} events dropped (ring buffer full; raise Profiler(capacity=...))",
                    "ph": "i", "s": "g", "ts": first, "pid": _HOST_PID, "tid": 0})
    return {
        "traceEvents": meta + out,
        "displayTimeUnit": "ms",
        "otherData": {"pyasc_version": _C.__version__, "dropped_events": dropped, "recorded_events": recorded},
    }
