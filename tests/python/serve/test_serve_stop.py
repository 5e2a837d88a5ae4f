"""Server.stop() with a model call that never returns: the stop is bounded (grace period, then
the call is cancelled with gRPC's status / its HTTP connection closed, then the thread still in
the model is abandoned, logged), on the native front end (queue threads and offload workers),
the grpcio front end and HTTP; and DaemonThreadPool, the bounded pool under the Python ones."""

from __future__ import annotations

import logging
import os
import threading
import time

import numpy as np
import pytest

from serve_models import write

grpcclient = pytest.importorskip("tritonclient.grpc")
httpclient = pytest.importorskip("tritonclient.http")
from tritonclient.utils import InferenceServerException  # noqa: E402

from pyasc.serve import native  # noqa: E402
from pyasc.serve._threads import DaemonThreadPool  # noqa: E402

# execute() marks that it started, then waits for a RELEASE file in its model directory: a call
# that does not return while the test runs (the test releases it at the end, so that the
# abandoned thread finishes before the process goes on to other tests)
BLOCK_PY = '''
import os
import time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.dir = args["model_repository"]

    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "IN").as_numpy()
        if x.size and x[0] == 7:  # a quick call (warms a model up for the inline HTTP path)
            return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x)])]
        open(os.path.join(self.dir, "STARTED"), "w").close()
        while not os.path.exists(os.path.join(self.dir, "RELEASE")):
            time.sleep(0.01)
        out = [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(r, "IN")
                                                           .as_numpy())]) for r in requests]
        open(os.path.join(self.dir, "RETURNED"), "w").close()
        return out
'''

BLOCK_CONFIG = """
name: "block"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
"""

GRACE = 0.3
# grace + the 1 s before a thread is abandoned + the models' retirement (a gc pass) and thread
# start-up on a loaded 2-core machine; before the fix the stop never returned
BOUND = GRACE + 1.0 + 4.0

KINDS = {
    "native": {"grpc_frontend": "native"},
    "native-offload": {"grpc_frontend": "native", "grpc_workers": 1, "grpc_offload_threads": 2},
    "grpcio": {"grpc_frontend": "python"},
    "http": {"grpc_frontend": "python"},
}


@pytest.fixture
def block_repo(tmp_path):
    write(f"{tmp_path}/block/1/model.py", BLOCK_PY)
    write(f"{tmp_path}/block/config.pbtxt", BLOCK_CONFIG)
    return str(tmp_path)


def _wait_for(path, secs=20.0):
    end = time.monotonic() + secs
    while not os.path.exists(path):
        assert time.monotonic() < end, f"{path} did not appear"
        time.sleep(0.01)


@pytest.mark.parametrize("kind", list(KINDS))
def test_stop_returns_with_a_call_that_never_returns(block_repo, kind, caplog):
    from pyasc.serve import Server

    if kind.startswith("native") and not native.available():
        pytest.skip(native.unavailable_reason())
    mdir = os.path.join(block_repo, "block")
    kw = {"grpc_workers": 4, **KINDS[kind]}
    s = Server(block_repo, http_port=0, grpc_port=0, metrics_port=0, allow_metrics=False, http_workers=4,
               exit_timeout_secs=GRACE, **kw)
    s.start()
    x = np.arange(3, dtype=np.float32)
    outcome = []

    def call():
        t0 = time.monotonic()
        try:
            if kind == "http":
                c = httpclient.InferenceServerClient(f"127.0.0.1:{s.ports['http']}", network_timeout=30)
                inp = httpclient.InferInput("IN", [3], "FP32")
                inp.set_data_from_numpy(x)
                c.infer("block", [inp])
            else:
                c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
                inp = grpcclient.InferInput("IN", [3], "FP32")
                inp.set_data_from_numpy(x)
                c.infer("block", [inp], client_timeout=30)
            outcome.append(("ok", time.monotonic() - t0))
        except InferenceServerException as e:
            outcome.append((e.status(), time.monotonic() - t0))
        except Exception as e:  # noqa: BLE001 - HTTP: the connection closed under the call
            outcome.append((type(e).__name__, time.monotonic() - t0))

    t = threading.Thread(target=call, daemon=True)
    released = False
    try:
        t.start()
        _wait_for(os.path.join(mdir, "STARTED"))
        caplog.set_level(logging.WARNING, logger="pyasc.serve")
        t0 = time.monotonic()
        s.stop()
        took = time.monotonic() - t0
        assert took < BOUND, f"{kind}: stop() took {took:.2f} s with a call that never returns"
        assert took >= GRACE * 0.9, f"{kind}: the call in flight did not get its grace period ({took:.2f} s)"
        # the call ends with an error of the shutdown, long before its client's own 30 s deadline
        t.join(10)
        assert not t.is_alive()
        assert len(outcome) == 1 and outcome[0][0] != "ok", outcome
        assert outcome[0][1] < 15, outcome
        if kind != "http":
            assert outcome[0][0] in ("StatusCode.CANCELLED", "StatusCode.UNAVAILABLE"), outcome
        assert not os.path.exists(os.path.join(mdir, "RETURNED"))
        text = caplog.text
        assert "abandoned" in text, text
        assert "model 'block' version 1 still had 1 call(s) running" in text, text
        # the abandoned thread finishes when its model returns, into a stopped server: nothing
        # breaks, and a new server on the same repository serves
        open(os.path.join(mdir, "RELEASE"), "w").close()
        released = True
        _wait_for(os.path.join(mdir, "RETURNED"))
        time.sleep(0.2)
        os.remove(os.path.join(mdir, "STARTED"))
        s2 = Server(block_repo, http_port=0, grpc_port=0, metrics_port=0, allow_http=False, allow_metrics=False,
                    grpc_workers=2, exit_timeout_secs=GRACE, **({k: v for k, v in KINDS[kind].items()
                                                                 if k == "grpc_frontend"}))
        s2.start()
        try:
            c = grpcclient.InferenceServerClient(f"127.0.0.1:{s2.ports['grpc']}")
            inp = grpcclient.InferInput("IN", [3], "FP32")
            inp.set_data_from_numpy(x)
            np.testing.assert_array_equal(c.infer("block", [inp], client_timeout=20).as_numpy("OUT"), x)
            c.close()
        finally:
            s2.stop()
    finally:
        if not released:
            open(os.path.join(mdir, "RELEASE"), "w").close()
        s.stop()  # idempotent


def test_stop_waits_for_calls_that_finish_within_the_grace_period(block_repo):
    """The grace period is honoured: a call released within it gets its answer, and nothing is
    abandoned (the native server joins every thread)."""
    from pyasc.serve import Server

    mdir = os.path.join(block_repo, "block")
    kind = "native" if native.available() else "python"
    s = Server(block_repo, http_port=0, grpc_port=0, metrics_port=0, allow_http=False, allow_metrics=False,
               grpc_workers=2, grpc_frontend=kind, exit_timeout_secs=10.0)
    s.start()
    x = np.arange(4, dtype=np.float32)
    got = []

    def call():
        c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
        inp = grpcclient.InferInput("IN", [4], "FP32")
        inp.set_data_from_numpy(x)
        got.append(c.infer("block", [inp], client_timeout=30).as_numpy("OUT"))

    t = threading.Thread(target=call, daemon=True)
    t.start()
    try:
        _wait_for(os.path.join(mdir, "STARTED"))
        threading.Timer(0.5, lambda: open(os.path.join(mdir, "RELEASE"), "w").close()).start()
        t0 = time.monotonic()
        grpc_fe = s.grpc
        s.stop()
        took = time.monotonic() - t0
    finally:
        open(os.path.join(mdir, "RELEASE"), "w").close()
    t.join(10)
    assert len(got) == 1
    np.testing.assert_array_equal(got[0], x)
    assert 0.4 < took < 8, took
    if kind == "native":
        assert grpc_fe._server is None  # stopped and freed: nothing abandoned


def test_cli_has_the_exit_timeout_flag():
    from pyasc.serve.cli import build_parser

    assert build_parser().parse_args(["--model-repository", "r"]).exit_timeout_secs == 30.0
    assert build_parser().parse_args(["--model-repository", "r", "--exit-timeout-secs", "2.5"]).exit_timeout_secs == 2.5


def test_exit_timeout_is_checked(block_repo):
    from pyasc.serve import InvalidArgumentError, Server

    with pytest.raises(InvalidArgumentError, match="exit timeout must be >= 0 seconds, not -1"):
        Server(block_repo, exit_timeout_secs=-1)


# ------------------------------------------------------------------ DaemonThreadPool


def test_daemon_pool_runs_work_and_reports_errors():
    pool = DaemonThreadPool(3, "t")
    fs = [pool.submit(lambda i=i: i * i) for i in range(20)]
    assert [f.result(10) for f in fs] == [i * i for i in range(20)]
    bad = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        bad.result(10)
    assert len(pool._threads) <= 3
    assert all(t.daemon for t in pool._threads)
    assert pool.shutdown(wait=True, timeout=5) == []
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(lambda: 0)
    with pytest.raises(ValueError, match="max_workers must be at least 1"):
        DaemonThreadPool(0)


def test_daemon_pool_shutdown_is_bounded_and_cancels_queued_work():
    pool = DaemonThreadPool(1, "t")
    gate = threading.Event()
    running = pool.submit(gate.wait)
    queued = pool.submit(lambda: "never")
    time.sleep(0.05)
    t0 = time.monotonic()
    left = pool.shutdown(wait=True, timeout=0.2, cancel_futures=True)
    assert time.monotonic() - t0 < 2
    assert len(left) == 1 and left[0].is_alive() and left[0].daemon
    assert queued.cancelled()
    gate.set()
    assert running.result(5) is True
    left[0].join(5)
    assert not left[0].is_alive()


def test_stop_returns_with_a_call_blocking_the_http_event_loop(block_repo, caplog):
    """--http-inline-us: a quick model runs on the HTTP event loop; when such a call then never
    returns, the loop itself is stuck: stop() still returns within its bound (the loop thread is
    abandoned, logged), and once the model returns the client gets an answer or an error."""
    from pyasc.serve import Server

    mdir = os.path.join(block_repo, "block")
    s = Server(block_repo, http_port=0, grpc_port=0, metrics_port=0, allow_grpc=False, allow_metrics=False,
               http_workers=2, http_inline_us=10**6, exit_timeout_secs=GRACE)
    s.start()
    c = httpclient.InferenceServerClient(f"127.0.0.1:{s.ports['http']}", network_timeout=30)
    quick = httpclient.InferInput("IN", [1], "FP32")
    quick.set_data_from_numpy(np.array([7], np.float32))
    for _ in range(20):  # the model's recent execution is quick: its calls now run on the loop
        assert c.infer("block", [quick]).as_numpy("OUT").tolist() == [7]
    assert s.core.runs_quickly("block", "", 10**9)
    outcome = []

    def call():
        h = httpclient.InferenceServerClient(f"127.0.0.1:{s.ports['http']}", network_timeout=30)
        inp = httpclient.InferInput("IN", [1], "FP32")
        inp.set_data_from_numpy(np.array([1], np.float32))
        try:
            outcome.append(h.infer("block", [inp]).as_numpy("OUT").tolist())
        except Exception as e:  # noqa: BLE001 - the connection may close under the call
            outcome.append(type(e).__name__)

    t = threading.Thread(target=call, daemon=True)
    try:
        t.start()
        _wait_for(os.path.join(mdir, "STARTED"))
        caplog.set_level(logging.WARNING, logger="pyasc.serve")
        t0 = time.monotonic()
        s.stop()
        took = time.monotonic() - t0
        assert took < BOUND + 5, f"stop() took {took:.2f} s with the event loop in a call that never returns"
        assert "the event loop thread is still in a call" in caplog.text, caplog.text
    finally:
        open(os.path.join(mdir, "RELEASE"), "w").close()
    t.join(20)
    assert not t.is_alive() and len(outcome) == 1, outcome
    c.close()
