"""HTTP request latency: no Nagle / delayed-ACK stall on small requests (a stall costs >= 40 ms
per request on Linux: the delayed-ACK timer), and the run-to-completion path for quick models
(HTTPFrontend ``inline_us``: such a request runs on the event loop, no hand-off to a pool thread
and back) -- which requests take it, that they answer what NumPy computes, and that the others
(dynamic batching, A/B split, slow models, errors) keep the general path."""

from __future__ import annotations

import socket
import time

import numpy as np
import pytest

from serve_models import add_echo, add_linear

httpclient = pytest.importorskip("tritonclient.http")
from tritonclient.utils import InferenceServerException  # noqa: E402


def _repo(tmp_path, rng):
    repo = str(tmp_path / "repo")
    w = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    add_linear(repo, "lin", 1, w, b, mbs=8)
    add_linear(repo, "lin_db", 1, w, b, mbs=8,
               extra="dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100 }")
    add_linear(repo, "lin_ab", 1, w, b, mbs=8)
    add_linear(repo, "lin_ab", 2, w, b, mbs=8,
               extra='version_policy: { all: {} }\nparameters [ { key: "ab_split" value: { string_value: "1:50,2:50" } } ]')
    add_echo(repo, "echo", dtype="TYPE_STRING")
    return repo, w, b


def _infer(h, model, x, binary=True):
    i = httpclient.InferInput("x", list(x.shape), "FP32")
    i.set_data_from_numpy(x, binary_data=binary)
    return h.infer(model, [i], outputs=[httpclient.InferRequestedOutput("y", binary_data=binary)]).as_numpy("y")


@pytest.mark.parametrize("inline_us", [200, 0])
def test_small_http_infers_do_not_stall(serve_factory, tmp_path, rng, inline_us):
    """50 small infers with tritonclient.http (its geventhttpclient socket has Nagle on, as users
    run it): the median stays far below the 40 ms a Nagle / delayed-ACK stall costs. The bound is
    generous (30 ms: load on the test machine), not a timing test; both the inline and the pool path."""
    repo, w, b = _repo(tmp_path, rng)
    s = serve_factory(repo, http_inline_us=inline_us)
    h = httpclient.InferenceServerClient(f"127.0.0.1:{s.ports['http']}")
    x = rng.standard_normal((1, 64)).astype(np.float32)
    want = x @ w + b
    for binary in (True, False):
        for _ in range(20):  # warm-up: the model's first runs, the connection
            _infer(h, "lin", x, binary)
        ts = []
        for _ in range(50):
            t0 = time.perf_counter()
            got = _infer(h, "lin", x, binary)
            ts.append(time.perf_counter() - t0)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        med = float(np.median(ts))
        assert med < 0.030, f"binary={binary} inline_us={inline_us}: median {med * 1e3:.1f} ms (a stall is >= 40 ms)"
    h.close()


def test_raw_socket_request_gets_one_response_without_waiting(serve_factory, tmp_path, rng):
    """A request written in two segments (headers, then body, Nagle off as curl does) and the
    response read as it comes: the server answers once the body is complete and the whole
    response arrives without the client sending anything more (no ACK-clocked second segment)."""
    repo, w, b = _repo(tmp_path, rng)
    s = serve_factory(repo)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    body = ('{"inputs":[{"name":"x","shape":[2,64],"datatype":"FP32","data":' + str(x.ravel().tolist()) + "}]}").encode()
    head = (f"POST /v2/models/lin/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    import json

    with socket.create_connection(("127.0.0.1", s.ports["http"]), timeout=10) as c:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        ts = []
        for _ in range(12):
            t0 = time.perf_counter()
            c.sendall(head)
            c.sendall(body)
            buf = b""
            while b"\r\n\r\n" not in buf:
                buf += c.recv(65536)
            hd, rest = buf.split(b"\r\n\r\n", 1)
            n = int([ln for ln in hd.split(b"\r\n") if ln.lower().startswith(b"content-length")][0].split(b":")[1])
            while len(rest) < n:
                rest += c.recv(65536)
            ts.append(time.perf_counter() - t0)
            assert hd.startswith(b"HTTP/1.1 200"), hd
            out = json.loads(rest)["outputs"][0]
            np.testing.assert_allclose(np.array(out["data"], np.float32).reshape(out["shape"]), x @ w + b,
                                       rtol=1e-5, atol=1e-5)
        assert float(np.median(ts[2:])) < 0.030, [round(t * 1e3, 2) for t in ts]


def test_which_requests_run_inline(serve_factory, tmp_path, rng):
    repo, w, b = _repo(tmp_path, rng)
    s = serve_factory(repo, http_inline_us=200)
    core = s.core
    h = httpclient.InferenceServerClient(f"127.0.0.1:{s.ports['http']}")
    x = rng.standard_normal((1, 64)).astype(np.float32)
    # unknown before its first runs (warm-up is not a model's cost)
    assert not core.runs_quickly("lin", "", 200_000)
    for _ in range(20):
        np.testing.assert_allclose(_infer(h, "lin", x), x @ w + b, rtol=1e-5, atol=1e-5)
    mean = core.repository.get_version("lin").stats.mean_exec_ns()
    assert mean is not None and mean > 0
    assert core.runs_quickly("lin", "", max(200_000, 2 * mean)) is True
    assert core.runs_quickly("lin", "1", max(200_000, 2 * mean)) is True
    assert core.runs_quickly("lin", "", mean / 2) is False  # slower than the limit: the pool
    for _ in range(10):
        np.testing.assert_allclose(_infer(h, "lin_db", x), x @ w + b, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(_infer(h, "lin_ab", x), x @ w + b, rtol=1e-5, atol=1e-5)
    assert not core.runs_quickly("lin_db", "", 10**12)  # a batch waits for other requests
    assert not core.runs_quickly("lin_ab", "", 10**12)  # A/B: the arm is chosen per request
    assert not core.runs_quickly("nope", "", 10**12)
    assert not core.runs_quickly("lin", "7", 10**12)
    # all instance slots busy: a request would wait for one, so not on the loop
    mv = core.repository.get_version("lin")
    gate = mv.scheduler._slots
    held = []
    while gate._free:
        gate.__enter__()
        held.append(gate)
    try:
        assert not core.runs_quickly("lin", "", 10**12)
    finally:
        for g in held:
            g.__exit__(None, None, None)
    assert core.runs_quickly("lin", "", 10**12)
    h.close()


def test_inline_errors_and_other_models(serve_factory, tmp_path, rng):
    """Errors on the inline path are the general path's (same status and message), and a model
    of another kind (Python backend, BYTES) still answers."""
    repo, w, b = _repo(tmp_path, rng)
    s = serve_factory(repo, http_inline_us=10**6)
    h = httpclient.InferenceServerClient(f"127.0.0.1:{s.ports['http']}")
    x = rng.standard_normal((1, 64)).astype(np.float32)
    for _ in range(20):
        _infer(h, "lin", x)
    assert s.core.runs_quickly("lin", "", 10**9)
    with pytest.raises(InferenceServerException, match="batch-size 9 must be in"):
        _infer(h, "lin", rng.standard_normal((9, 64)).astype(np.float32))
    with pytest.raises(InferenceServerException, match="unexpected shape"):
        _infer(h, "lin", rng.standard_normal((1, 63)).astype(np.float32))
    e = np.array([b"ab", b"", b"\xff\x00"], dtype=np.object_)
    i = httpclient.InferInput("IN", [3], "BYTES")
    i.set_data_from_numpy(e)
    for _ in range(10):
        r = h.infer("echo", [i])
        assert list(r.as_numpy("OUT")) == list(e)
    h.close()


def test_inline_flag_is_validated():
    from pyasc.serve import InvalidArgumentError
    from pyasc.serve.cli import build_parser
    from pyasc.serve.http_server import HTTPFrontend

    with pytest.raises(InvalidArgumentError, match="inline"):
        HTTPFrontend(None, inline_us=-1)
    assert build_parser().parse_args(["--model-repository", "x"]).http_inline_us == 0.0
    assert build_parser().parse_args(["--model-repository", "x", "--http-inline-us", "200"]).http_inline_us == 200.0
