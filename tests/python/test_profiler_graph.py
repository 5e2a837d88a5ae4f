"""pyasc.profiler: lazy-graph materialisations and their fusion groups in traces."""
import json
import re

import numpy as np
import pytest

import pyasc as asc
from pyasc.profiler import Profiler


@pytest.fixture(autouse=True)
def _lazy():
    with asc.lazy.eager(False):
        yield


def _trace(prof, tmp_path, name="trace.json"):
    path = tmp_path / name
    prof.export_chrome_trace(path)
    with open(path) as f:
        return json.load(f)


def _graph_spans(trace):
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "graph"]


def _fields(detail):
    return dict(re.findall(r"(\w+)=(\S+)", detail))


def _inside(inner, outer):
    return outer["ts"] - 1e-3 <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-3


def test_fused_group_span_names_ops_shapes_and_bytes(tmp_path):
    n = 10_000
    a, b, c = (asc.array(np.full(n, v, np.float32)) for v in (1.5, 2.0, -1.0))
    with Profiler() as prof:
        r = a * b + c
        asc.eval(r)
    np.testing.assert_array_equal(r.numpy(), np.full(n, 2.0, np.float32))
    spans = _graph_spans(_trace(prof, tmp_path))
    flushes = [e for e in spans if e["name"] == "materialize"]
    groups = [e for e in spans if e["name"].startswith("fused[")]
    assert len(flushes) == 1 and len(groups) == 1
    g, f = groups[0], flushes[0]
    assert g["name"] == "fused[multiply+add]"
    fd, gd = _fields(f["args"]["detail"]), _fields(g["args"]["detail"])
    assert fd["groups"] == "1" and fd["nodes"] == "2"
    assert gd["graph"] == fd["graph"] and gd["group"] == "0/1" and gd["mode"] == "map"
    assert gd["domain"] == f"({n},)" and gd["inputs"] == "3" and gd["outputs"] == "1"
    assert re.search(r"nodes=\[\d+ multiply float32\(10000,\); \d+ add float32\(10000,\)\]", g["args"]["detail"])
    # Three float32 inputs read, one float32 output written.
    assert g["args"]["bytes"] == 4 * 4 * n
    assert int(gd["tile"]) > 0 and int(gd["ub_bytes"]) <= 192 * 1024
    assert _inside(g, f)
    # Host-side: both on the thread that observed the value.
    assert g["pid"] == f["pid"] == 0 and g["tid"] == f["tid"]


def test_groups_of_one_flush_are_numbered_ordered_and_nested(tmp_path):
    x = asc.array(np.arange(64 * 32, dtype=np.float32).reshape(64, 32))
    with Profiler() as prof:
        col = (x * 2).sum(axis=0)          # a reduction ends the first group
        y = (col + 1) * (x - 3)             # the broadcast use of it is a later group
        asc.eval(y)
    ref = ((np.arange(64 * 32, dtype=np.float32).reshape(64, 32) * 2).sum(axis=0) + 1) * (
        np.arange(64 * 32, dtype=np.float32).reshape(64, 32) - 3)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)
    spans = _graph_spans(_trace(prof, tmp_path))
    flush = [e for e in spans if e["name"] == "materialize"]
    assert len(flush) == 1
    fd = _fields(flush[0]["args"]["detail"])
    groups = [e for e in spans if e["name"].startswith("fused[")]
    assert len(groups) == int(fd["groups"]) >= 2
    idx = [_fields(g["args"]["detail"])["group"] for g in groups]
    assert idx == [f"{i}/{len(groups)}" for i in range(len(groups))]
    for g in groups:
        assert _inside(g, flush[0])
        assert _fields(g["args"]["detail"])["graph"] == fd["graph"]
    for p, q in zip(groups, groups[1:]):
        assert p["ts"] + p["dur"] <= q["ts"] + 1e-3
    first = _fields(groups[0]["args"]["detail"])
    assert first["mode"].startswith("reduce") and "sum" in groups[0]["name"]


def test_one_materialize_per_flush_and_key_averages_match(tmp_path):
    a = asc.array(np.linspace(-1, 1, 4096, dtype=np.float32))
    with Profiler() as prof:
        for _ in range(5):
            asc.eval(asc.exp(a) * 2)
    spans = _graph_spans(_trace(prof, tmp_path))
    flushes = [e for e in spans if e["name"] == "materialize"]
    groups = [e for e in spans if e["name"] == "fused[exp+multiply]"]
    assert len(flushes) == 5 and len(groups) == 5
    assert len({_fields(e["args"]["detail"])["graph"] for e in flushes}) == 5
    avgs = {(x.kind, x.name): x for x in prof.key_averages()}
    k = avgs[("graph", "fused[exp+multiply]")]
    assert k.count == 5
    assert k.total_us == pytest.approx(sum(e["dur"] for e in groups), rel=1e-6, abs=1e-6)
    assert avgs[("graph", "materialize")].count == 5


def test_large_group_runs_its_blocks_on_all_cores_inside_the_group_span(tmp_path):
    n = 1 << 21
    a = asc.array(np.ones(n, np.float32))
    with Profiler() as prof:
        asc.eval(a * 3 + 1)
    events = _trace(prof, tmp_path)["traceEvents"]
    group = [e for e in _graph_spans({"traceEvents": events}) if e["name"].startswith("fused[")]
    assert len(group) == 1
    blocks = [e for e in events if e.get("cat") == "block" and e["name"] == group[0]["name"]]
    cores = asc.get_device_properties().num_cores
    if cores > 1:
        assert sorted(b["args"]["block_idx"] for b in blocks) == list(range(len(blocks)))
        assert len(blocks) >= 2  # one block per core (which core runs which block is up to the device)
    for b in blocks:
        assert _inside(b, group[0])


def test_eager_mode_records_no_graph_events(tmp_path):
    a = asc.array(np.ones(100, np.float32))
    with asc.lazy.eager(True):
        with Profiler() as prof:
            (a + 1).numpy()
    assert _graph_spans(_trace(prof, tmp_path)) == []


def test_graph_after_stop_is_not_recorded():
    a = asc.array(np.ones(100, np.float32))
    with Profiler() as prof:
        asc.eval(a + 2)
    asc.eval(a + 1)  # after stop
    graph = sorted((e for e in prof.events() if e["kind"] == "graph"), key=lambda e: e["ts_ns"])
    assert [e["name"] for e in graph] == ["materialize", "fused[add]"]
