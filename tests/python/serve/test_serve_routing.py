"""The A/B routing file (--ab-routing-file): splits outside the configs, re-read when changed,
sticky by session, a bad file keeps the previous routing, arms counted in the metrics."""

from __future__ import annotations

import json
import os
import urllib.request

import numpy as np
import pytest

from serve_models import ECHO_CONFIG, ECHO_PY, write

grpcclient = pytest.importorskip("tritonclient.grpc")
httpclient = pytest.importorskip("tritonclient.http")

from pyasc.serve import InvalidArgumentError  # noqa: E402
from pyasc.serve.routing import RoutingTable  # noqa: E402


def _repo(tmp_path):
    repo = str(tmp_path / "repo")
    for name in ("m", "other"):
        for v in (1, 2):
            write(f"{repo}/{name}/{v}/model.py", ECHO_PY)
        write(f"{repo}/{name}/config.pbtxt", ECHO_CONFIG.format(name=name, dtype="TYPE_FP32")
              + "version_policy: { all { } }\n")
    # the config's own split, which the file overrides
    with open(f"{repo}/m/config.pbtxt", "a") as f:
        f.write('parameters { key: "ab_split" value { string_value: "1:100" } }\n')
    return repo


def _write_json(path, doc):
    tmp = str(path) + ".tmp"
    with open(tmp, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    os.replace(tmp, path)  # atomic, as a deployment tool would


def _versions(client, model, n, session=None):
    x = np.array([1.0, 2.0], np.float32)
    inp = grpcclient.InferInput("IN", [2], "FP32")
    inp.set_data_from_numpy(x)
    out = []
    for i in range(n):
        params = {"session_id": session if session is not None else f"s{i}"} if session != "" else None
        r = client.infer(model, [inp], parameters=params)
        np.testing.assert_array_equal(r.as_numpy("OUT"), x)
        out.append((r.get_response().model_name, int(r.as_numpy("VERSION")[0])))
    return out


def test_routing_file(serve_factory, tmp_path):
    repo = _repo(tmp_path)
    route = tmp_path / "routing.json"
    _write_json(route, {"m": "2:100"})
    s = serve_factory(repo, ab_routing_file=str(route))
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    assert set(_versions(c, "m", 10)) == {("m", 2)}  # the file wins over the config's 1:100
    assert set(_versions(c, "other", 5)) == {("other", 2)}  # not in the file: latest, no split
    # an object of arm -> weight, another model as an arm; 50/50 sticky by session
    _write_json(route, {"m": {"1": 50, "other/1": 50}})
    assert s.core.routing.refresh() is True
    got = _versions(c, "m", 60)
    assert set(got) == {("m", 1), ("other", 1)}
    assert 10 <= sum(1 for g in got if g[0] == "other") <= 50
    for sid in ("alice", "bob", "carol"):
        assert len(set(_versions(c, "m", 6, session=sid))) == 1
    # a request naming a version bypasses the split
    inp = grpcclient.InferInput("IN", [2], "FP32")
    inp.set_data_from_numpy(np.zeros(2, np.float32))
    assert int(c.infer("m", [inp], model_version="2").as_numpy("VERSION")[0]) == 2
    # arms in the metrics
    with urllib.request.urlopen(f"http://127.0.0.1:{s.ports['metrics']}/metrics", timeout=10) as r:
        text = r.read().decode()
    assert 'pyasc_ab_requests_total{model="m",arm="other/1"}' in text
    # a bad file keeps the previous routing and says why
    for bad, needle in (("{not json", "not valid JSON"), ({"m": "1:-5"}, "weight >= 0"),
                        ({"../etc": "1:1"}, "'../etc'"), ({"m": {"1": "lots"}}, "must be a number"),
                        ([1, 2], "expected a JSON object"), ({"m": "0:0"}, "sum to 0")):
        _write_json(route, bad)
        assert s.core.routing.refresh() is False
        assert needle in s.core.routing.error, (bad, s.core.routing.error)
        assert set(_versions(c, "m", 4, session="alice")) == set(_versions(c, "m", 1, session="alice"))
        assert s.core.routing.snapshot()["m"] == [(("", "1"), 50.0), (("other", "1"), 50.0)]
    # the server re-reads the file by itself (every second)
    _write_json(route, {"m": "1:1"})
    import time

    deadline = time.time() + 10
    while time.time() < deadline and s.core.routing.arms("m") != [(("", "1"), 1.0)]:
        time.sleep(0.1)
    assert s.core.routing.error is None and set(_versions(c, "m", 5)) == {("m", 1)}
    # removed: no overrides, the config's split (1:100) applies again
    os.remove(route)
    s.core.routing.refresh()
    assert s.core.routing.snapshot() == {} and set(_versions(c, "m", 5)) == {("m", 1)}


def test_routing_file_errors_at_start(tmp_path):
    with pytest.raises(InvalidArgumentError, match="no such file"):
        RoutingTable(tmp_path / "missing.json")
    p = tmp_path / "r.json"
    p.write_text('{"m": "other/x:1"}')
    with pytest.raises(InvalidArgumentError, match="version must be a number"):
        RoutingTable(p)
    p.write_text("[" * 10 + "]" * 10)
    with pytest.raises(InvalidArgumentError, match="expected a JSON object"):
        RoutingTable(p)
    p.write_text(" " * (1 << 20) + "{}")
    with pytest.raises(InvalidArgumentError, match="more than the limit"):
        RoutingTable(p)
    from pyasc.serve.cli import main

    assert main(["--model-repository", str(tmp_path), "--ab-routing-file", str(tmp_path / "missing.json"),
                 "--http-port", "0", "--grpc-port", "0", "--metrics-port", "0"]) == 1
