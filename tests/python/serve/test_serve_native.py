"""The native gRPC front end (pyasc._serve_native): selection and fallback, zero-copy inputs
that outlive the request, requests running concurrently, parity with the grpcio front end on
the same requests, the empty-handler floor and the lean C++ benchmark client, shutdown with
calls in flight. (The protocol tests of test_serve_protocol.py run against both front ends.)"""

from __future__ import annotations

import logging
import os
import threading
import time

import numpy as np
import pytest

from serve_models import add_echo, add_linear, write

grpcclient = pytest.importorskip("tritonclient.grpc")
import grpc  # noqa: E402
from tritonclient.utils import InferenceServerException  # noqa: E402

from pyasc.serve import InvalidArgumentError, _proto, native  # noqa: E402
from pyasc.serve.grpc_server import GRPCFrontend  # noqa: E402

M = _proto.messages()
INFER = "/inference.GRPCInferenceService/ModelInfer"

# A model that keeps every input it was given (a model may hold on to its inputs: the zero-copy
# views must stay valid) and sleeps when asked (the GIL is free while it sleeps).
KEEP_PY = '''
import time
import numpy as np
import triton_python_backend_utils as pb_utils

KEPT = []

class TritonPythonModel:
    def initialize(self, args):
        pass

    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()
            KEPT.append(x)
            if x.size and x.reshape(-1)[0] < 0:
                time.sleep(-float(x.reshape(-1)[0]))
            info = np.array([int(x.flags.writeable), int(x.base is not None), len(KEPT)], dtype=np.int64)
            total = np.array([sum(float(k.astype(np.float64).sum()) for k in KEPT)], dtype=np.float64)
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("INFO", info), pb_utils.Tensor("TOTAL", total)]))
        return out
'''

KEEP_CONFIG = """
name: "keep"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "INFO" data_type: TYPE_INT64 dims: [ 3 ] }, { name: "TOTAL" data_type: TYPE_FP64 dims: [ 1 ] } ]
instance_group [ { count: 8 kind: KIND_CPU } ]
"""


def test_module_is_built_where_grpc_cpp_is_installed():
    # bootstrap.sh installs libgrpc++-dev: then the module must have been built
    if os.path.isdir("/usr/include/grpcpp"):
        assert native.available(), native.unavailable_reason()
        assert native.unavailable_reason() is None


@pytest.fixture
def repo(tmp_path):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    add_linear(str(tmp_path), "linear", 1, w, b)
    add_echo(str(tmp_path), "echo_string", "TYPE_STRING")
    add_echo(str(tmp_path), "echo_fp32", "TYPE_FP32")
    write(f"{tmp_path}/keep/1/model.py", KEEP_PY)
    write(f"{tmp_path}/keep/config.pbtxt", KEEP_CONFIG)
    return str(tmp_path), w, b


needs_native = pytest.mark.skipif(not native.available(), reason="pyasc._serve_native not built")


def _infer_request(x, model="linear", name="x", rid=""):
    r = M["ModelInferRequest"](model_name=model, id=rid)
    r.inputs.add(name=name, datatype="FP32", shape=list(x.shape))
    r.raw_input_contents.append(x.astype(np.float32).tobytes())
    return r


def test_frontend_selection(serve_factory, repo, caplog, monkeypatch):
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_frontend="python")
    assert type(s.grpc) is GRPCFrontend
    with pytest.raises(InvalidArgumentError, match="grpc_frontend must be 'native' or 'python', not 'rust'"):
        serve_factory(repo[0], grpc_frontend="rust")
    if native.available():
        from pyasc.serve import Server

        s = Server(repo[0], grpc_port=0, allow_http=False, allow_metrics=False)  # the default
        try:
            assert type(s.grpc) is native.NativeGRPCFrontend
        finally:
            s.stop()
    # not built: falls back to grpcio, and says so
    monkeypatch.setattr(native, "_serve_native", None)
    monkeypatch.setattr(native, "_IMPORT_ERROR", "no module named pyasc._serve_native")
    with caplog.at_level(logging.WARNING, logger="pyasc.serve"):
        s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_frontend="native")
    assert type(s.grpc) is GRPCFrontend
    assert "native gRPC front end unavailable" in caplog.text and "grpcio front end" in caplog.text
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    assert c.is_server_live()


def test_cli_flag():
    from pyasc.serve.cli import build_parser

    p = build_parser()
    assert p.parse_args(["--model-repository", "r"]).grpc_frontend == "native"
    assert p.parse_args(["--model-repository", "r", "--grpc-frontend=python"]).grpc_frontend == "python"
    with pytest.raises(SystemExit):
        p.parse_args(["--model-repository", "r", "--grpc-frontend=cpp"])


@needs_native
def test_parity_with_grpcio(serve_factory, repo):
    """The same raw requests, good and bad, give the same answers from both front ends."""
    path, w, b = repo
    servers = {k: serve_factory(path, allow_http=False, allow_metrics=False, grpc_frontend=k)
               for k in ("native", "python")}
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 64)).astype(np.float32)
    cases = [_infer_request(x, rid="id-7"),
             _infer_request(x[:, ::2].copy()),  # wrong shape
             _infer_request(x, name="zz"),
             _infer_request(x, model="nope"),
             _infer_request(np.zeros((9, 64), np.float32)),  # batch above max_batch_size 8
             _infer_request(x, model="linear").__class__(model_name="linear")]  # no inputs
    dup = _infer_request(x)
    dup.inputs.add(name="x", datatype="FP32", shape=[3, 64])
    dup.raw_input_contents.append(x.tobytes())
    cases.append(dup)
    typed = M["ModelInferRequest"](model_name="linear")  # typed contents: the Python decoder's path
    typed.inputs.add(name="x", datatype="FP32", shape=[1, 64]).contents.fp32_contents.extend(x[0].tolist())
    cases.append(typed)
    answers = {}
    for kind, s in servers.items():
        ch = grpc.insecure_channel(f"127.0.0.1:{s.ports['grpc']}")
        call = ch.unary_unary(INFER, request_serializer=lambda m: m.SerializeToString(),
                              response_deserializer=M["ModelInferResponse"].FromString)
        got = []
        for r in cases:
            try:
                resp = call(r, timeout=10)
                got.append(("ok", resp.model_name, resp.model_version, resp.id,
                            [(o.name, o.datatype, list(o.shape)) for o in resp.outputs],
                            [np.frombuffer(c, np.float32) for c in resp.raw_output_contents]))
            except grpc.RpcError as e:
                got.append((e.code(), e.details()))
        ch.close()
        answers[kind] = got
    for a, p in zip(answers["native"], answers["python"]):
        assert a[0] == p[0], (a, p)
        if a[0] == "ok":
            assert a[1:5] == p[1:5]
            for u, v in zip(a[5], p[5]):
                np.testing.assert_array_equal(u, v)
        else:
            assert a[1] == p[1]
    ok = answers["native"][0]
    assert ok[3] == "id-7" and ok[4] == [("y", "FP32", [3, 64])]
    np.testing.assert_allclose(ok[5][0].reshape(3, 64), x @ w + b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(answers["native"][-1][5][0], x[0] @ w + b, rtol=1e-4, atol=1e-4)
    ia, nf = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
    assert [a[0] for a in answers["native"][1:-1]] == [ia, ia, nf, ia, ia, ia]


@needs_native
def test_zero_copy_inputs_outlive_the_request(serve_factory, repo):
    """The model gets read-only views of the request's bytes, and inputs it keeps stay intact
    after their requests are answered and freed."""
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False)
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    rng = np.random.default_rng(9)
    sent = 0.0
    for i, n in enumerate([0, 1, 5, 1000, 70000]):
        x = rng.standard_normal(n).astype(np.float32) + 1.0  # positive: no sleep
        sent += float(x.astype(np.float64).sum())
        inp = grpcclient.InferInput("IN", [n], "FP32")
        inp.set_data_from_numpy(x)
        r = c.infer("keep", [inp])
        writeable, has_base, kept = r.as_numpy("INFO")
        assert writeable == 0 and has_base == 1 and kept == i + 1
        # the sum over every kept input, recomputed by the model now: old views still hold their data
        np.testing.assert_allclose(r.as_numpy("TOTAL")[0], sent, rtol=1e-9)


@needs_native
def test_requests_run_concurrently(serve_factory, repo):
    """8 requests whose model sleeps 0.3 s (GIL free) overlap: the front end does not serialise them."""
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False)
    url = f"127.0.0.1:{s.ports['grpc']}"
    grpcclient.InferenceServerClient(url).infer("keep", [_inp(np.array([1.0], np.float32))])  # warm
    errors = []

    def one():
        try:
            grpcclient.InferenceServerClient(url).infer("keep", [_inp(np.array([-0.3], np.float32))])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=one) for _ in range(8)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    took = time.perf_counter() - t0
    assert not errors
    assert took < 8 * 0.3 / 2, took  # serialised: >= 2.4 s


def _inp(x):
    inp = grpcclient.InferInput("IN", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    return inp


@needs_native
def test_bytes_and_stream_and_session(serve_factory, repo):
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, session_quota_bytes=300)
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    data = np.array([b"", b"a\x00b", "\u00e9".encode() * 40], dtype=object)
    inp = grpcclient.InferInput("IN", [3], "BYTES")
    inp.set_data_from_numpy(data)
    np.testing.assert_array_equal(c.infer("echo_string", [inp]).as_numpy("OUT"), data)
    # a session over its quota fails alone (RESOURCE_EXHAUSTED), through the parameter and the header
    big = _infer_request(np.ones((2, 64), np.float32))
    with pytest.raises(InferenceServerException) as ei:
        c.infer("linear", [_linear_input(np.ones((2, 64), np.float32))], parameters={"session_id": "s1"})
    assert ei.value.status() == "StatusCode.RESOURCE_EXHAUSTED"
    ch = grpc.insecure_channel(f"127.0.0.1:{s.ports['grpc']}")
    call = ch.unary_unary(INFER, request_serializer=lambda m: m.SerializeToString(),
                          response_deserializer=M["ModelInferResponse"].FromString)
    with pytest.raises(grpc.RpcError) as ei:
        call(big, metadata=(("session-id", "s2"),), timeout=10)
    assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "quota" in ei.value.details()
    assert call(big, timeout=10).outputs[0].shape == [2, 64]  # no session: no quota
    # stream: answers and per-request errors in order, the stream goes on
    results = []
    c.start_stream(callback=lambda result, error: results.append((result, error)))
    for i, rows in enumerate([1, 3, 9, 2]):
        c.async_stream_infer("linear", [_linear_input(np.full((rows, 64), i, np.float32))], request_id=str(i))
    deadline = time.time() + 20
    while len(results) < 4 and time.time() < deadline:
        time.sleep(0.02)
    c.stop_stream()
    oks = sorted(int(r.get_response().id) for r, e in results if e is None)
    errs = [str(e) for r, e in results if e is not None]
    assert oks == [0, 1, 3] and len(errs) == 1 and "batch-size 9" in errs[0]
    ch.close()


def _linear_input(x):
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    return inp


@needs_native
def test_empty_floor_and_lean_client(serve_factory, repo):
    """The lean C++ client against the empty handler (no Python) and against the real model."""
    from pyasc import _serve_native
    from pyasc.serve.native import NativeGRPCFrontend

    s = serve_factory(repo[0], allow_http=False, allow_metrics=False)
    x = np.random.default_rng(1).standard_normal((1, 64)).astype(np.float32)
    payload = _infer_request(x).SerializeToString()
    lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{s.ports['grpc']}", INFER, payload,
                                                         concurrency=4, requests=50, warmup=5)
    assert errors == 0, first
    assert len(lat) == 200 and all(v > 0 for v in lat) and wall > 0
    assert s.core.model_statistics("linear")["model_stats"][0]["inference_count"] == 220
    empty = NativeGRPCFrontend(s.core, port=0, workers=2, empty_infer=True)
    port = empty.start()
    try:
        lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{port}", INFER, payload, 2, 20, 2)
        assert errors == 0 and len(lat) == 40
        assert s.core.model_statistics("linear")["model_stats"][0]["inference_count"] == 220  # no model call
        # an error status is counted and reported
        lat, wall, errors, first = _serve_native.bench_unary(
            f"127.0.0.1:{s.ports['grpc']}", INFER, _infer_request(x, model="nope").SerializeToString(), 1, 3, 0)
        assert errors == 3 and first.startswith("5: ")  # NOT_FOUND
    finally:
        empty.stop()


@needs_native
def test_stop_with_calls_in_flight(serve_factory, repo):
    from pyasc.serve import Server

    s = Server(repo[0], http_port=0, grpc_port=0, metrics_port=0, allow_http=False, allow_metrics=False)
    s.start()
    url = f"127.0.0.1:{s.ports['grpc']}"
    outcome = []

    def slow():
        try:
            grpcclient.InferenceServerClient(url).infer("keep", [_inp(np.array([-1.0], np.float32))],
                                                        client_timeout=20)
            outcome.append("ok")
        except InferenceServerException as e:
            outcome.append(str(e))

    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.3)
    t0 = time.perf_counter()
    s.stop()  # the call in flight finishes within the grace period or is cancelled; nothing hangs
    assert time.perf_counter() - t0 < 10
    t.join(20)
    assert len(outcome) == 1
    s.grpc.stop()  # idempotent
    with pytest.raises(InferenceServerException):
        grpcclient.InferenceServerClient(url).is_server_live(client_timeout=2)


@needs_native
def test_stop_collects_garbage_once_for_all_models(repo, monkeypatch):
    """Server.stop() retires every model version in one go: one full gc pass, one empty_cache
    and one malloc_trim for all of them. A full pass costs time in proportion to the whole
    process's live objects: one per model (the repo has four) made stop() take 10.01 s in the
    full test suite's process (test_stop_with_calls_in_flight, CI of fcbe32e). The models'
    pool memory is back after the stop."""
    import gc

    import pyasc as asc
    from pyasc.serve import Server

    asc.empty_cache()
    before = asc.memory_allocated()
    s = Server(repo[0], http_port=0, grpc_port=0, metrics_port=0, allow_http=False, allow_metrics=False)
    s.start()
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    x = np.random.default_rng(4).standard_normal((2, 64)).astype(np.float32)
    inp = grpcclient.InferInput("x", [2, 64], "FP32")
    inp.set_data_from_numpy(x)
    np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x @ repo[1] + repo[2], rtol=1e-4, atol=1e-4)
    assert sorted(m["name"] for m in c.get_model_repository_index(as_json=True)["models"]) == \
        ["echo_fp32", "echo_string", "keep", "linear"]
    c.close()
    passes = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a, **k: passes.append(a) or real(*a, **k))
    s.stop()
    monkeypatch.undo()
    assert passes == [()], passes  # one full pass for the four models
    assert asc.memory_allocated() - before <= 4096


@needs_native
@pytest.mark.parametrize("offload", [0, 4])
def test_stop_is_bounded_under_repeated_calls_in_flight(repo, offload):
    """Start / calls in flight / stop cycles for about 5 s: every stop returns within its grace
    period (2 s) plus the running model call plus one gc pass, with a margin for a loaded
    machine, and every call in flight gets its answer or a gRPC status (CANCELLED / UNAVAILABLE
    from the shutdown), never a hang until the client's deadline."""
    from pyasc.serve import Server

    kw = {"grpc_workers": 1, "grpc_offload_threads": offload, "grpc_inline_us": 10**6} if offload else {}
    t_end = time.monotonic() + 5
    cycles = 0
    gaps = (0.0, 0.02, 0.1, 0.3)
    while time.monotonic() < t_end or cycles < 3:
        s = Server(repo[0], http_port=0, grpc_port=0, metrics_port=0, allow_http=False, allow_metrics=False, **kw)
        s.start()
        url = f"127.0.0.1:{s.ports['grpc']}"
        outcome = []

        def call(sleep):
            c = grpcclient.InferenceServerClient(url)
            t0 = time.monotonic()
            try:
                r = c.infer("keep", [_inp(np.array([sleep], np.float32))], client_timeout=30)
                outcome.append(("ok", r.as_numpy("INFO")[0]))
            except InferenceServerException as e:
                outcome.append((e.status(), time.monotonic() - t0))
            finally:
                c.close()

        ts = [threading.Thread(target=call, args=(v,)) for v in (-0.5, -0.05, 1.0)]
        for t in ts:
            t.start()
        time.sleep(gaps[cycles % len(gaps)])
        t0 = time.perf_counter()
        s.stop()
        took = time.perf_counter() - t0
        for t in ts:
            t.join(30)
        assert not any(t.is_alive() for t in ts)
        assert took < 8, f"cycle {cycles}: stop() took {took:.2f} s"
        assert len(outcome) == 3
        for o in outcome:
            assert o[0] == "ok" or o[0] in ("StatusCode.CANCELLED", "StatusCode.UNAVAILABLE"), (cycles, o)
        cycles += 1


@needs_native
def test_bind_error(serve_factory, repo):
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False)
    from pyasc.serve.native import NativeGRPCFrontend

    fe = NativeGRPCFrontend(s.core, port=s.ports["grpc"], workers=1)
    with pytest.raises(RuntimeError, match=f"cannot bind 127.0.0.1:{s.ports['grpc']}"):
        fe.start()


def test_cpp_proto_matches_tritonclient(tmp_path):
    """src/serve/inference.proto (the messages the native front end parses and builds in C++)
    has exactly the fields of tritonclient's generated classes: compiled with protoc to a
    descriptor set and compared message by message, nested ones included."""
    import shutil
    import subprocess

    from google.protobuf import descriptor_pb2, descriptor_pool

    protoc = shutil.which("protoc")
    if protoc is None:
        pytest.skip("protoc not installed (scripts/bootstrap.sh installs protobuf-compiler)")
    service_pb2 = pytest.importorskip("tritonclient.grpc.service_pb2")
    src = os.path.join(os.path.dirname(__file__), "..", "..", "..", "src", "serve")
    out = tmp_path / "inference.desc"
    subprocess.run([protoc, f"-I{src}", f"-o{out}", os.path.join(src, "inference.proto")], check=True)
    fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    fd = pool.FindFileByName("inference.proto")
    assert fd.package == "inference"

    def key(f):
        return (f.number, f.type, f.is_repeated, f.message_type.full_name if f.message_type else None,
                f.containing_oneof.name if f.containing_oneof else None,
                f.message_type.GetOptions().map_entry if f.message_type else None)

    def compare(ours, theirs, path):
        assert {f.name: key(f) for f in ours.fields} == {f.name: key(f) for f in theirs.fields}, path
        for n in theirs.nested_types:
            compare(ours.nested_types_by_name[n.name], n, path + "." + n.name)

    names = sorted(fd.message_types_by_name)
    assert names == ["InferParameter", "InferTensorContents", "ModelInferRequest", "ModelInferResponse",
                     "ModelStreamInferResponse"]
    for name in names:
        compare(fd.message_types_by_name[name], service_pb2.DESCRIPTOR.message_types_by_name[name], name)


@needs_native
def test_no_leak_per_request(serve_factory, repo):
    """2,000 requests of 64 KiB in and 64 KiB out (the echo model returns its zero-copy input):
    RSS grows by far less than one request's bytes times the count (a leaked request or
    response buffer would be >= 125 MiB)."""
    import gc

    from pyasc import _serve_native

    s = serve_factory(repo[0], allow_http=False, allow_metrics=False)
    x = np.random.default_rng(2).standard_normal(16384).astype(np.float32)
    payload = _echo_request(x)
    url = f"127.0.0.1:{s.ports['grpc']}"
    lat, wall, errors, first = _serve_native.bench_unary(url, INFER, payload, 2, 500, 20)  # warm
    assert errors == 0, first
    gc.collect()
    rss0 = _rss()
    lat, wall, errors, first = _serve_native.bench_unary(url, INFER, payload, 2, 1000, 0)
    gc.collect()
    grown = _rss() - rss0
    assert errors == 0, first
    assert grown < 32 << 20, f"RSS grew {grown / 2**20:.1f} MiB over 2000 requests of 64 KiB"


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _echo_request(x):
    r = M["ModelInferRequest"](model_name="echo_fp32")
    r.inputs.add(name="IN", datatype="FP32", shape=list(x.shape))
    r.raw_input_contents.append(x.tobytes())
    return r.SerializeToString()


@needs_native
def test_spin_polling_serves_the_same_answers(serve_factory, repo):
    """--grpc-spin-us: queue threads poll before sleeping; answers, errors, concurrency and stop
    are those of the blocking server, and the flag is checked."""
    from pyasc import _serve_native
    from pyasc.serve.cli import build_parser

    assert build_parser().parse_args(["--model-repository", "r", "--grpc-spin-us", "150"]).grpc_spin_us == 150
    with pytest.raises(InvalidArgumentError, match="grpc spin must be 0 to 1000000 microseconds, not -1"):
        native.NativeGRPCFrontend(None, port=0, spin_us=-1)
    _, w, b = repo
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_workers=2, grpc_spin_us=200)
    assert s.grpc.spin_us == 200
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    x = np.random.default_rng(5).standard_normal((3, 64)).astype(np.float32)
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
    with pytest.raises(InferenceServerException, match="nope"):
        c.infer("nope", [inp])
    payload = _infer_request(x[:1]).SerializeToString()
    lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{s.ports['grpc']}", INFER, payload, 4, 25, 2)
    assert errors == 0 and len(lat) == 100, first
    # an idle spinning server goes back to sleep: its threads use (almost) no CPU when idle
    time.sleep(0.3)
    pid = os.getpid()

    def cpu():
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    c0, t0 = cpu(), time.monotonic()
    time.sleep(1.0)
    assert cpu() - c0 < 0.5 * (time.monotonic() - t0)  # not a busy loop (two spinning threads would be ~2x)
    s.stop()


@needs_native
@pytest.mark.parametrize("workers,queues", [(4, 1), (4, 2), (1, 0)])
def test_shared_queues_and_channel_args_serve_the_same_answers(serve_factory, repo, workers, queues):
    """--grpc-queues: threads sharing completion queues (a leader/follower pool) answer as one
    queue per thread does, concurrent calls included; channel arguments reach the server; bad
    values are refused."""
    from pyasc import _serve_native
    from pyasc.serve.cli import build_parser

    assert build_parser().parse_args(["--model-repository", "r", "--grpc-queues", "1"]).grpc_queues == 1
    with pytest.raises(InvalidArgumentError, match="grpc queues must be 0 .one per worker. to the 2 workers, not 3"):
        native.NativeGRPCFrontend(None, port=0, workers=2, queues=3)
    _, w, b = repo
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_workers=workers, grpc_queues=queues)
    assert s.grpc.queues == queues
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    x = np.random.default_rng(6).standard_normal((2, 64)).astype(np.float32)
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
    with pytest.raises(InferenceServerException, match="nope"):
        c.infer("nope", [inp])
    payload = _infer_request(x[:1]).SerializeToString()
    lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{s.ports['grpc']}", INFER, payload, 8, 20, 2,
                                                         64 << 20, [("grpc.http2.bdp_probe", 0)])
    assert errors == 0 and len(lat) == 160, first
    # a slow call (the keep model sleeps 0.3 s) does not hold the other threads' calls
    if workers > 1:
        slow = _infer_request(np.array([-0.3], np.float32), model="keep", name="IN").SerializeToString()
        t = threading.Thread(target=_serve_native.bench_unary,
                             args=(f"127.0.0.1:{s.ports['grpc']}", INFER, slow, 1, 1, 0))
        t.start()
        time.sleep(0.05)
        t0 = time.monotonic()
        np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
        fast = time.monotonic() - t0
        t.join()
        assert fast < 0.25, fast
    # a server channel argument: a tiny max concurrent streams still serves calls one by one
    fe = native.NativeGRPCFrontend(s.core, port=0, workers=2, channel_args=[("grpc.max_concurrent_streams", 1)])
    port = fe.start()
    try:
        lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{port}", INFER, payload, 4, 10, 1)
        assert errors == 0 and len(lat) == 40, first
    finally:
        fe.stop(0.5)


@needs_native
def test_offload_mode_runs_quick_calls_inline_and_slow_ones_aside(serve_factory, repo):
    """--grpc-offload-threads: one queue thread runs calls of quick models itself and hands
    unknown or slow ones to worker threads; answers and errors are those of the default mode, a
    slow call does not hold quick ones, and stop with an offloaded call in flight is clean."""
    from pyasc import _serve_native
    from pyasc.serve.cli import build_parser

    a = build_parser().parse_args(["--model-repository", "r", "--grpc-offload-threads", "4", "--grpc-inline-us", "900"])
    assert (a.grpc_offload_threads, a.grpc_inline_us) == (4, 900)
    with pytest.raises(InvalidArgumentError, match="grpc offload threads must be 0 to 4096, not -1"):
        native.NativeGRPCFrontend(None, port=0, offload_threads=-1)
    with pytest.raises(InvalidArgumentError, match="grpc inline limit must be >= 0 microseconds, not -5"):
        native.NativeGRPCFrontend(None, port=0, inline_us=-5)
    _, w, b = repo
    # inline limit far above the linear model's cost: after 16 calls it runs on the queue thread
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_workers=1, grpc_offload_threads=2,
                      grpc_inline_us=10**6)
    assert (s.grpc.workers, s.grpc.offload_threads) == (1, 2)
    c = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
    rng = np.random.default_rng(7)
    for i in range(20):  # unknown first (offloaded), then quick (inline): the same answers
        x = rng.standard_normal((1 + i % 3, 64)).astype(np.float32)
        inp = grpcclient.InferInput("x", list(x.shape), "FP32")
        inp.set_data_from_numpy(x)
        np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
    with pytest.raises(InferenceServerException, match="nope"):
        c.infer("nope", [inp])
    bad = grpcclient.InferInput("x", [1, 63], "FP32")
    bad.set_data_from_numpy(np.zeros((1, 63), np.float32))
    with pytest.raises(InferenceServerException, match="unexpected shape"):
        c.infer("linear", [bad])
    payload = _infer_request(x[:1]).SerializeToString()
    lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{s.ports['grpc']}", INFER, payload, 8, 20, 2)
    assert errors == 0 and len(lat) == 160, first
    # the keep model sleeps 0.4 s (its calls are offloaded: unknown, then slow); the one queue
    # thread goes on answering the quick model meanwhile
    slow = _infer_request(np.array([-0.4], np.float32), model="keep", name="IN").SerializeToString()
    t = threading.Thread(target=_serve_native.bench_unary, args=(f"127.0.0.1:{s.ports['grpc']}", INFER, slow, 1, 1, 0))
    t.start()
    time.sleep(0.1)
    t0 = time.monotonic()
    inp = grpcclient.InferInput("x", [1, 64], "FP32")
    inp.set_data_from_numpy(x[:1])
    np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x[:1] @ w + b, rtol=1e-4, atol=1e-4)
    assert time.monotonic() - t0 < 0.3
    t.join()
    # stop while an offloaded call sleeps: it finishes or is cancelled, nothing hangs or crashes
    t = threading.Thread(target=_serve_native.bench_unary, args=(f"127.0.0.1:{s.ports['grpc']}", INFER, slow, 1, 1, 0))
    t.start()
    time.sleep(0.1)
    t0 = time.monotonic()
    s.grpc.stop(0.1)
    assert time.monotonic() - t0 < 5
    t.join(10)
    assert not t.is_alive()


@needs_native
def test_offload_mode_runs_slow_stream_messages_on_workers(serve_factory, repo):
    """--grpc-offload-threads: a ModelStreamInfer message of a model not known to be quick runs
    on an offload thread like a unary call, so the one queue thread answers other calls while
    it runs; a stream's answers and per-message errors still come in order."""
    _, w, b = repo
    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_workers=1, grpc_offload_threads=2,
                      grpc_inline_us=10**6)
    url = f"127.0.0.1:{s.ports['grpc']}"
    c = grpcclient.InferenceServerClient(url)
    results = []
    c.start_stream(callback=lambda result, error: results.append((time.monotonic(), result, error)))
    # the keep model sleeps 0.6 s on this message (its calls are unknown, so offloaded)
    t0 = time.monotonic()
    c.async_stream_infer("keep", [_inp(np.array([-0.6], np.float32))], request_id="slow")
    time.sleep(0.15)
    q = grpcclient.InferenceServerClient(url)
    x = np.random.default_rng(8).standard_normal((2, 64)).astype(np.float32)
    t1 = time.monotonic()
    np.testing.assert_allclose(q.infer("linear", [_linear_input(x)]).as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
    quick = time.monotonic() - t1
    # then linear messages on the same stream, one of them an error (batch 9 > max_batch_size 8)
    for i, rows in enumerate([1, 9, 2]):
        c.async_stream_infer("linear", [_linear_input(np.full((rows, 64), i, np.float32))], request_id=str(i))
    deadline = time.monotonic() + 20
    while len(results) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    c.stop_stream()
    q.close()
    assert len(results) == 4
    first_t, first, err = results[0]
    assert err is None and first.get_response().id == "slow" and first_t - t0 >= 0.55
    # answered while the stream's message slept on a worker (before: after it, >= 0.45 s)
    assert quick < first_t - t1, (quick, first_t - t1)
    ids = [r.get_response().id if e is None else "err" for _, r, e in results[1:]]
    assert ids == ["0", "err", "2"], ids
    assert "batch-size 9" in str(results[2][2])
    np.testing.assert_allclose(results[3][1].as_numpy("y"), np.full((2, 64), 2, np.float32) @ w + b,
                               rtol=1e-4, atol=1e-4)


@needs_native
def test_stop_does_not_run_queued_offloaded_calls(serve_factory, repo):
    """A stop with more slow calls than offload threads: the call running finishes (or is
    cancelled), the calls still queued after the grace period are ended without running their
    model, so stop waits for one model call, not for the whole queue (before: 1 + 3 calls of 1 s
    one after another on the one worker)."""
    from pyasc import _serve_native

    s = serve_factory(repo[0], allow_http=False, allow_metrics=False, grpc_workers=1, grpc_offload_threads=1)
    url = f"127.0.0.1:{s.ports['grpc']}"
    slow = _infer_request(np.array([-1.0], np.float32), model="keep", name="IN").SerializeToString()
    res = []
    ts = [threading.Thread(target=lambda: res.append(_serve_native.bench_unary(url, INFER, slow, 1, 1, 0)))
          for _ in range(4)]
    for t in ts:
        t.start()
    time.sleep(0.4)  # one call runs on the worker, three wait in its queue
    t0 = time.monotonic()
    s.grpc.stop(0.1)
    took = time.monotonic() - t0
    for t in ts:
        t.join(20)
    assert len(res) == 4
    assert took < 2.5, took
    # the running call may finish; the queued ones are cancelled (the client sees gRPC's status)
    errors = [r[3] for r in res if r[2]]
    assert len(errors) >= 3, res
    # "code: message": CANCELLED (1) or UNAVAILABLE (14, gRPC's "Cancelling all calls" of the stop)
    assert all(e.split(":")[0] in ("1", "14") for e in errors), errors


@needs_native
def test_trace_timestamps_every_fast_path_infer(repo):
    """NativeGRPCFrontend(trace=True) (bench_serve --breakdown): one row of 8 stage durations per
    unary ModelInfer on the raw fast path, none for other RPCs or the typed-contents path; the
    stages are non-negative and the answers are unchanged."""
    from pyasc import _serve_native
    from pyasc.serve.core import InferenceCore

    fe = native.NativeGRPCFrontend(InferenceCore(repo[0]), port=0, workers=2, trace=True)
    port = fe.start()
    try:
        x = np.random.default_rng(5).standard_normal((1, 64)).astype(np.float32)
        req = _infer_request(x).SerializeToString()
        lat, _, errors, first = _serve_native.bench_unary(f"127.0.0.1:{port}", INFER, req, 1, 7, 0)
        assert errors == 0, first
        c = grpcclient.InferenceServerClient(f"127.0.0.1:{port}")
        inp = grpcclient.InferInput("x", [1, 64], "FP32")
        inp.set_data_from_numpy(x)
        np.testing.assert_allclose(c.infer("linear", [inp]).as_numpy("y"), x @ repo[1] + repo[2], rtol=1e-4,
                                   atol=1e-4)
        assert c.is_server_live()
        typed = M["ModelInferRequest"](model_name="linear")
        t = typed.inputs.add(name="x", datatype="FP32", shape=[1, 64])
        t.contents.fp32_contents.extend(x.ravel().tolist())
        assert _serve_native.bench_unary(f"127.0.0.1:{port}", INFER, typed.SerializeToString(), 1, 1, 0)[2] == 0
        c.close()
        deadline = time.monotonic() + 5
        rows = fe.take_traces()
        while len(rows) < 8 and time.monotonic() < deadline:  # the last write's completion may lag
            time.sleep(0.05)
            rows = np.concatenate([rows, fe.take_traces()])
        assert rows.shape == (8, 8), rows.shape  # 7 lean + 1 tritonclient; typed contents not traced
        assert (rows >= 0).all()
        assert fe.take_traces().shape == (0, 8)
    finally:
        fe.stop(0.5)
    assert fe.take_traces().shape == (0, 8)
