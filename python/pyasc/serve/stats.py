"""Per model-version statistics (Triton's ModelStatistics) and the Prometheus text of /metrics.

Counters are kept per ``(model, version)`` for the life of the server (a reload of a
version keeps counting, so Prometheus counters never go backwards). Updates take one
short lock per request; rendering reads a consistent snapshot.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["VersionStats", "StatsRegistry", "render_metrics"]

_DURATIONS = ("success", "fail", "queue", "compute_input", "compute_infer", "compute_output")


class VersionStats:
    """Counters of one model version (durations in ns, as Triton's StatisticDuration)."""

    def __init__(self, model, version):
        self.model = model
        self.version = str(version)
        self.lock = threading.Lock()
        self.durations = {k: [0, 0] for k in _DURATIONS}  # name -> [count, ns]
        self.inference_count = 0
        self.execution_count = 0
        self.exec_ewma_ns = 0.0  # recent executions' compute time (mean_exec_ns)
        self.last_inference_ms = 0
        self.pending = 0
        self.batch = {}  # batch size -> [count, input ns, infer ns, output ns]
        self.load_secs = 0.0

    def request_done(self, ok, total_ns, queue_ns, input_ns, infer_ns, output_ns, batch_size, pending=0):
        """Counts a finished request (and adds ``pending`` to the pending count: one lock)."""
        with self.lock:
            self.pending += pending
            d = self.durations
            key = "success" if ok else "fail"
            d[key][0] += 1
            d[key][1] += total_ns
            if ok:
                q, i, c, o = d["queue"], d["compute_input"], d["compute_infer"], d["compute_output"]
                q[0] += 1
                q[1] += queue_ns
                i[0] += 1
                i[1] += input_ns
                c[0] += 1
                c[1] += infer_ns
                o[0] += 1
                o[1] += output_ns
                self.inference_count += batch_size
                self.last_inference_ms = int(time.time() * 1e3)

    def executed(self, batch_size, input_ns, infer_ns, output_ns):
        with self.lock:
            self.execution_count += 1
            # an exponential average over the last ~8 runs: forgets the first runs (planning,
            # cold caches) and follows a model whose cost changes
            self.exec_ewma_ns = infer_ns if self.execution_count == 1 else (
                self.exec_ewma_ns + (infer_ns - self.exec_ewma_ns) / 8)
            b = self.batch.setdefault(batch_size, [0, 0, 0, 0])
            b[0] += 1
            b[1] += input_ns
            b[2] += infer_ns
            b[3] += output_ns

    def mean_exec_ns(self, min_count=16):
        """The compute time of an execution, averaged over the recent ones (exponentially, about
        the last 8); None before ``min_count`` executions (the first runs are warm-up, not the
        model's cost). Unlocked: a racing update changes the estimate by one run at most."""
        return self.exec_ewma_ns if self.execution_count >= min_count else None

    def add_pending(self, n):
        with self.lock:
            self.pending += n

    def snapshot(self):
        with self.lock:
            return {"name": self.model, "version": self.version, "last_inference": self.last_inference_ms,
                    "inference_count": self.inference_count, "execution_count": self.execution_count,
                    "inference_stats": {k: {"count": c, "ns": ns} for k, (c, ns) in self.durations.items()},
                    "batch_stats": [{"batch_size": bs, "compute_input": {"count": c, "ns": a},
                                     "compute_infer": {"count": c, "ns": b}, "compute_output": {"count": c, "ns": o}}
                                    for bs, (c, a, b, o) in sorted(self.batch.items())],
                    "pending": self.pending, "load_secs": self.load_secs}


class StatsRegistry:
    """All VersionStats, by (model, version)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._stats = {}
        self.ab_counts = {}  # (model, arm) -> requests routed

    def get(self, model, version):
        key = (model, str(version))
        s = self._stats.get(key)
        if s is None:
            with self._lock:
                s = self._stats.setdefault(key, VersionStats(model, version))
        return s

    def all(self):
        with self._lock:
            return list(self._stats.values())

    def count_arm(self, model, arm):
        with self._lock:
            self.ab_counts[(model, arm)] = self.ab_counts.get((model, arm), 0) + 1


def _esc(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _rss_bytes():
    try:
        with open(f"/proc/{os.getpid()}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def render_metrics(registry, sessions=None):
    """Prometheus text exposition (version 0.0.4) with Triton's metric names plus pyasc_* gauges."""
    snaps = [s.snapshot() for s in registry.all()]
    lines = []

    def family(name, kind, help_, rows):
        lines.append(f"# HELP {name} {help_}")
        lines.append(f"# TYPE {name} {kind}")
        for labels, value in rows:
            lab = ",".join(f'{k}="{_esc(v)}"' for k, v in labels)
            lines.append(f"{name}{{{lab}}} {value}")

    def per_version(fn):
        return [((("model", s["name"]), ("version", s["version"])), fn(s)) for s in snaps]

    st = "inference_stats"
    family("nv_inference_request_success", "counter", "Number of successful inference requests, all batch sizes",
           per_version(lambda s: s[st]["success"]["count"]))
    family("nv_inference_request_failure", "counter", "Number of failed inference requests, all batch sizes",
           per_version(lambda s: s[st]["fail"]["count"]))
    family("nv_inference_count", "counter", "Number of inferences performed (does not include cached requests)",
           per_version(lambda s: s["inference_count"]))
    family("nv_inference_exec_count", "counter", "Number of model executions performed",
           per_version(lambda s: s["execution_count"]))
    family("nv_inference_request_duration_us", "counter", "Cumulative inference request duration in microseconds",
           per_version(lambda s: (s[st]["success"]["ns"] + s[st]["fail"]["ns"]) // 1000))
    family("nv_inference_queue_duration_us", "counter", "Cumulative inference queuing duration in microseconds",
           per_version(lambda s: s[st]["queue"]["ns"] // 1000))
    family("nv_inference_compute_input_duration_us", "counter",
           "Cumulative compute input duration in microseconds", per_version(lambda s: s[st]["compute_input"]["ns"] // 1000))
    family("nv_inference_compute_infer_duration_us", "counter",
           "Cumulative compute inference duration in microseconds",
           per_version(lambda s: s[st]["compute_infer"]["ns"] // 1000))
    family("nv_inference_compute_output_duration_us", "counter",
           "Cumulative inference compute output duration in microseconds",
           per_version(lambda s: s[st]["compute_output"]["ns"] // 1000))
    family("nv_inference_pending_request_count", "gauge", "Instantaneous number of pending requests awaiting "
           "execution per-model", per_version(lambda s: s["pending"]))
    family("nv_model_load_duration_secs", "gauge", "Model load time in seconds",
           per_version(lambda s: round(s["load_secs"], 6)))
    with registry._lock:
        arms = sorted(registry.ab_counts.items())
    family("pyasc_ab_requests_total", "counter", "Requests routed to each arm of a model's ab_split",
           [((("model", m), ("arm", a)), n) for (m, a), n in arms])
    try:
        from .. import memory

        ms = memory.memory_stats()
        family("pyasc_pool_allocated_bytes", "gauge", "Device memory pool: bytes in use by arrays",
               [((), ms["allocated_bytes"])])
        family("pyasc_pool_reserved_bytes", "gauge", "Device memory pool: bytes held from the system",
               [((), ms["reserved_bytes"])])
    except Exception:  # noqa: BLE001 - metrics must render even if the pool cannot be read
        pass
    family("pyasc_process_resident_bytes", "gauge", "Resident set size of the server process", [((), _rss_bytes())])
    if sessions is not None:
        ss = sessions.snapshot()
        family("pyasc_session_count", "gauge", "Live sessions", [((), len(ss))])
        family("pyasc_session_bytes_in_use", "gauge", "Bytes of tensors a session's in-flight requests hold",
               [((("session", k),), v["bytes_in_use"]) for k, v in sorted(ss.items())])
        family("pyasc_session_pool_allocated_bytes", "gauge",
               "Bytes in use in a session's own device memory pool",
               [((("session", k),), v["pool_allocated_bytes"]) for k, v in sorted(ss.items())])
        family("pyasc_session_pool_reserved_bytes", "gauge",
               "Bytes a session's own device memory pool holds from the device",
               [((("session", k),), v["pool_reserved_bytes"]) for k, v in sorted(ss.items())])
        family("pyasc_session_pool_peak_allocated_bytes", "gauge",
               "Peak bytes in use in a session's own device memory pool",
               [((("session", k),), v["pool_peak_allocated_bytes"]) for k, v in sorted(ss.items())])
        family("pyasc_session_quota_failures_total", "counter", "Requests refused for a session's quota",
               [((), sessions.quota_failures)])
    # Prometheus families render "name{} value" for label-less rows; strip the empty braces.
    return "\n".join(ln.replace("{}", "") for ln in lines) + "\n"
