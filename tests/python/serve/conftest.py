"""Fixtures of the pyasc-serve tests: servers on free 127.0.0.1 ports (models: serve_models.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("tritonclient.grpc")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def serve_factory():
    """Starts pyasc.serve.Server instances on free 127.0.0.1 ports; stops them at teardown."""
    from pyasc.serve import Server

    servers = []

    def start(repo, **kw):
        kw.setdefault("http_port", 0)
        kw.setdefault("grpc_port", 0)
        kw.setdefault("metrics_port", 0)
        kw.setdefault("grpc_workers", 16)
        kw.setdefault("http_workers", 16)
        # PYASC_SERVE_TEST_GRPC_FRONTEND=python runs these tests against the grpcio front end
        kw.setdefault("grpc_frontend", os.environ.get("PYASC_SERVE_TEST_GRPC_FRONTEND", "native"))
        # PYASC_SERVE_TEST_GRPC_OFFLOAD=N: the native front end with one queue thread and N offload
        # threads (--grpc-offload-threads), every model counted as quick after its first calls
        offload = int(os.environ.get("PYASC_SERVE_TEST_GRPC_OFFLOAD", "0"))
        if offload and kw["grpc_frontend"] == "native" and not kw.get("grpc_queues"):
            kw.setdefault("grpc_offload_threads", offload)
            kw["grpc_workers"] = 1
            kw.setdefault("grpc_inline_us", 10**6)
        s = Server(repo, **kw)
        servers.append(s)
        s.start()
        return s

    yield start
    for s in servers:
        s.stop()
