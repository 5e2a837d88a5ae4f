"""pyasc.profiler: traces parsed back and checked."""
import json

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C
from pyasc.profiler import Profiler, record_function, schedule


def _trace(prof, tmp_path, name="trace.json"):
    path = tmp_path / name
    prof.export_chrome_trace(path)
    with open(path) as f:
        return json.load(f)


def test_trace_has_every_event_kind(tmp_path):
    s = asc.Stream()
    other = asc.Stream()
    with Profiler() as prof:
        with record_function("user_step"):
            with s:
                _C._testing_launch("kern_a", 4)
                ev = asc.Event()
                ev.record(s)
                p = _C._testing_allocate(4096)
                _C._testing_free(p)
            other.wait_event(ev)
            other.add_callback(lambda: None)
            s.synchronize()
            other.synchronize()
    trace = _trace(prof, tmp_path)
    events = trace["traceEvents"]
    cats = {e.get("cat") for e in events}
    for kind in ("launch", "kernel", "block", "alloc", "free", "range", "event_record", "stream_wait", "callback"):
        assert kind in cats, (kind, cats)
    spans = [e for e in events if e["ph"] == "X"]
    for e in spans:
        assert e["dur"] >= 0 and isinstance(e["ts"], float)
    kern = [e for e in spans if e["cat"] == "kernel"]
    assert len(kern) == 1 and kern[0]["name"] == "kern_a" and kern[0]["args"]["block_dim"] == 4
    blocks = [e for e in spans if e["cat"] == "block"]
    assert sorted(b["args"]["block_idx"] for b in blocks) == [0, 1, 2, 3]
    # Blocks lie inside their kernel's span, each on a core row.
    k0, k1 = kern[0]["ts"], kern[0]["ts"] + kern[0]["dur"]
    for b in blocks:
        assert k0 - 1e-3 <= b["ts"] and b["ts"] + b["dur"] <= k1 + 1e-3
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert any(n.startswith("core ") for n in names.values())
    assert any(n == f"stream {s.id}" for n in names.values())
    assert names[(kern[0]["pid"], kern[0]["tid"])] == f"stream {s.id}"
    # Flow: launch (host) -> kernel (stream) with the same id.
    starts = [e for e in events if e["ph"] == "s"]
    finishes = [e for e in events if e["ph"] == "f"]
    assert len(starts) == 1 and len(finishes) == 1 and starts[0]["id"] == finishes[0]["id"]
    assert starts[0]["ts"] <= finishes[0]["ts"]
    assert starts[0]["pid"] == 0 and finishes[0]["pid"] == 1
    # Counter events track pool usage.
    assert any(e["ph"] == "C" for e in events)
    rng = [e for e in spans if e["cat"] == "range"]
    assert rng[0]["name"] == "user_step"
    assert trace["otherData"]["dropped_events"] == 0


def test_spans_ordered_and_non_overlapping_per_stream(tmp_path):
    s = asc.Stream()
    with Profiler() as prof:
        with s:
            for i in range(20):
                _C._testing_launch(f"k{i % 3}", 2)
        s.synchronize()
    events = _trace(prof, tmp_path)["traceEvents"]
    row = [e for e in events if e["ph"] == "X" and e["cat"] == "kernel" and e["args"].get("stream_id") == s.id]
    assert len(row) == 20
    for a, b in zip(row, row[1:]):
        assert a["ts"] + a["dur"] <= b["ts"] + 1e-3  # in order, no overlap on one stream


def test_json_valid_after_kernel_error(tmp_path):
    s = asc.Stream()
    with Profiler() as prof:
        with s:
            _C._testing_launch("bad_kernel", 2, fail=True)
        with pytest.raises(asc.AscendError, match="bad_kernel"):
            s.synchronize()
        with s:
            _C._testing_launch("good_kernel", 2)
        s.synchronize()
    trace = _trace(prof, tmp_path)
    kern = {e["name"]: e for e in trace["traceEvents"] if e.get("cat") == "kernel"}
    assert "requested failure" in kern["bad_kernel"]["args"]["detail"]
    assert "good_kernel" in kern


def test_key_averages_consistent_with_trace(tmp_path):
    s = asc.Stream()
    with Profiler() as prof:
        with s:
            for _ in range(7):
                _C._testing_launch("avg_kernel", 3)
        s.synchronize()
    avgs = {(a.kind, a.name): a for a in prof.key_averages()}
    k = avgs[("kernel", "avg_kernel")]
    assert k.count == 7
    spans = [e for e in _trace(prof, tmp_path)["traceEvents"] if e.get("cat") == "kernel"]
    assert k.total_us == pytest.approx(sum(e["dur"] for e in spans), rel=1e-6, abs=1e-6)
    assert k.min_us <= k.mean_us <= k.max_us
    assert avgs[("block", "avg_kernel")].count == 21
    table = prof.key_averages().table(sort_by="self_device_time_total", row_limit=3)
    assert "avg_kernel" in table and "Count" in table
    assert len(table.splitlines()) <= 3 + 4
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="nope")


def test_ring_buffer_drops_with_note(tmp_path):
    s = asc.Stream()
    with Profiler(capacity=50) as prof:
        with s:
            for _ in range(100):
                _C._testing_launch("many", 1)
        s.synchronize()
    assert prof.dropped_events > 0
    trace = _trace(prof, tmp_path)
    assert trace["otherData"]["dropped_events"] == prof.dropped_events
    assert any("events dropped" in e["name"] for e in trace["traceEvents"] if e["ph"] == "i")
    assert len([e for e in trace["traceEvents"] if e["ph"] == "X"]) <= 50


def test_off_records_nothing():
    s = asc.Stream()
    with s:
        _C._testing_launch("unseen", 2)
    s.synchronize()
    assert not _C.profiler.enabled()


def test_module_level_start_stop_and_nested_error():
    prof = asc.profiler.start()
    with pytest.raises(RuntimeError, match="already recording"):
        Profiler().start()
    _C._testing_launch("mod_kernel", 1)
    asc.synchronize()
    assert asc.profiler.stop() is prof
    assert any(e["name"] == "mod_kernel" for e in prof.events())


def test_schedule_records_only_active_steps():
    s = asc.Stream()
    ready = []
    prof = Profiler(schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=lambda p: ready.append(p.events()))
    prof.start()
    for step in range(6):
        with s:
            _C._testing_launch(f"step{step}", 1)
        s.synchronize()
        prof.step()
    prof.stop()
    assert len(ready) == 1
    names = {e["name"] for e in ready[0] if e["kind"] == "kernel"}
    assert names == {"step2", "step3"}


def test_record_function_decorator():
    @record_function("decorated")
    def f(x):
        return x + 1

    with Profiler() as prof:
        assert f(1) == 2
    assert [e["name"] for e in prof.events() if e["kind"] == "range"] == ["decorated"]


def test_schedule_validates():
    with pytest.raises(ValueError):
        schedule(wait=0, warmup=0, active=0)


def test_op_calls_recorded_with_shapes_and_dtypes(tmp_path):
    a = asc.ones((2, 3), dtype=asc.float32)
    with Profiler() as prof:
        b = a + a
        asc.sum(b)
    ops = [e for e in prof.events() if e["kind"] == "op"]
    add = [e for e in ops if e["name"] == "add"]
    assert add and add[0]["detail"] == "(2, 3):float32, (2, 3):float32"
    assert any(e["name"] == "sum" for e in ops)
    trace = _trace(prof, tmp_path)
    assert any(e.get("cat") == "op" and e["name"] == "add" and e["pid"] == 0 for e in trace["traceEvents"])
    assert ("op", "add") in {(x.kind, x.name) for x in prof.key_averages()}
