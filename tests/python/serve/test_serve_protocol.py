"""pyasc-serve over HTTP and gRPC, driven by tritonclient (its own generated protobuf classes)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import ml_dtypes
import numpy as np
import pytest

from serve_models import add_echo, add_linear, two_input_model, write

httpclient = pytest.importorskip("tritonclient.http")
grpcclient = pytest.importorskip("tritonclient.grpc")
from tritonclient.utils import InferenceServerException  # noqa: E402

K, N = 64, 64


def _frontends():
    from pyasc.serve import native

    # both gRPC front ends answer every test here (the native one only where it is built)
    return ["native", "python"] if native.available() else ["python"]


@pytest.fixture(scope="module", params=_frontends())
def served(tmp_path_factory, request):
    from pyasc.serve import Server

    repo = str(tmp_path_factory.mktemp("repo"))
    rng = np.random.default_rng(7)
    w = rng.standard_normal((K, N)).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    add_linear(repo, "linear", 1, w, b)
    two_input_model(f"{repo}/addmul/1/model.onnx")  # no config.pbtxt: completed from the model
    for dt in ("TYPE_FP32", "TYPE_FP16", "TYPE_BF16", "TYPE_INT8", "TYPE_UINT64", "TYPE_BOOL", "TYPE_STRING",
               "TYPE_INT64", "TYPE_FP64"):
        add_echo(repo, "echo_" + dt[5:].lower(), dt)
    write(f"{repo}/broken/config.pbtxt", "name: \"broken\"\nplatform: \"onnxruntime_onnx\"\nnot_a_field: 3\n")
    write(f"{repo}/broken/1/model.onnx", "junk")
    s = Server(repo, http_port=0, grpc_port=0, metrics_port=0, grpc_workers=8, http_workers=8,
               grpc_frontend=request.param)
    s.start()
    yield s, w, b
    s.stop()


def _http(served):
    return httpclient.InferenceServerClient(f"127.0.0.1:{served[0].ports['http']}")


def _grpc(served):
    return grpcclient.InferenceServerClient(f"127.0.0.1:{served[0].ports['grpc']}")


def _raw(served, method, path, body=None, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{served[0].ports['http']}{path}", data=body, method=method,
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


# ---------------------------------------------------------------- health / metadata


def test_health_and_server_metadata(served):
    h, g = _http(served), _grpc(served)
    assert h.is_server_live() and g.is_server_live()
    # 'broken' failed at start, so (strict readiness) the server is not ready
    assert not h.is_server_ready() and not g.is_server_ready()
    md = h.get_server_metadata()
    assert md["name"] == "pyasc" and "model_repository" in md["extensions"]
    gmd = g.get_server_metadata()
    assert gmd.name == "pyasc" and list(gmd.extensions) == md["extensions"]
    assert h.is_model_ready("linear") and g.is_model_ready("linear")
    assert not h.is_model_ready("broken") and not g.is_model_ready("nope")


def test_model_metadata_and_config(served):
    h, g = _http(served), _grpc(served)
    md = h.get_model_metadata("linear")
    assert md["platform"] == "onnxruntime_onnx" and md["versions"] == ["1"]
    assert md["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [-1, K]}]
    assert md["outputs"] == [{"name": "y", "datatype": "FP32", "shape": [-1, N]}]
    gmd = g.get_model_metadata("linear", "1")
    assert gmd.inputs[0].name == "x" and list(gmd.inputs[0].shape) == [-1, K]
    cfg = h.get_model_config("linear")
    assert cfg["max_batch_size"] == 8 and cfg["input"][0]["dims"] == [K]
    gcfg = g.get_model_config("linear").config
    assert gcfg.max_batch_size == 8 and gcfg.input[0].data_type == 11  # TYPE_FP32
    # auto-completed from the ONNX model (no config.pbtxt)
    amd = h.get_model_metadata("addmul")
    assert [t["name"] for t in amd["inputs"]] == ["a", "b"]
    assert amd["inputs"][0] == {"name": "a", "datatype": "INT32", "shape": [-1, 4]}


# ---------------------------------------------------------------- inference


@pytest.mark.parametrize("binary", [False, True])
def test_http_infer_linear(served, binary, rng):
    _, w, b = served
    x = rng.standard_normal((3, K)).astype(np.float32)
    inp = httpclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=binary)
    out = httpclient.InferRequestedOutput("y", binary_data=binary)
    r = _http(served).infer("linear", [inp], outputs=[out], request_id="req-42")
    np.testing.assert_allclose(r.as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
    resp = r.get_response()
    assert resp["id"] == "req-42" and resp["model_name"] == "linear" and resp["model_version"] == "1"


def test_grpc_infer_linear_and_two_outputs(served, rng):
    _, w, b = served
    g = _grpc(served)
    x = rng.standard_normal((5, K)).astype(np.float32)
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    r = g.infer("linear", [inp], request_id="abc")
    np.testing.assert_allclose(r.as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)
    assert r.get_response().id == "abc"
    a = rng.integers(-1000, 1000, (2, 4)).astype(np.int32)
    bb = rng.integers(-1000, 1000, (2, 4)).astype(np.int32)
    ins = [grpcclient.InferInput("a", [2, 4], "INT32"), grpcclient.InferInput("b", [2, 4], "INT32")]
    ins[0].set_data_from_numpy(a)
    ins[1].set_data_from_numpy(bb)
    r = g.infer("addmul", ins, outputs=[grpcclient.InferRequestedOutput("prod")])
    np.testing.assert_array_equal(r.as_numpy("prod"), a * bb)
    assert r.as_numpy("sum") is None


def test_grpc_typed_contents(served):
    """Tensors in InferTensorContents (not raw) decode as well (tritonclient always sends raw)."""
    import grpc

    from pyasc.serve import _proto

    M = _proto.messages()
    req = M["ModelInferRequest"](model_name="addmul")
    for n, v in (("a", [1, 2, 3, 4]), ("b", [10, 20, 30, 40])):
        t = req.inputs.add(name=n, datatype="INT32", shape=[1, 4])
        t.contents.int_contents.extend(v)
    ch = grpc.insecure_channel(f"127.0.0.1:{served[0].ports['grpc']}")
    call = ch.unary_unary("/inference.GRPCInferenceService/ModelInfer",
                          request_serializer=M["ModelInferRequest"].SerializeToString,
                          response_deserializer=M["ModelInferResponse"].FromString)
    resp = call(req, timeout=10)
    got = {o.name: np.frombuffer(raw, np.int32) for o, raw in zip(resp.outputs, resp.raw_output_contents)}
    np.testing.assert_array_equal(got["sum"], [11, 22, 33, 44])
    np.testing.assert_array_equal(got["prod"], [10, 40, 90, 160])
    ch.close()


DTYPES = [("fp32", "FP32", np.float32), ("fp16", "FP16", np.float16), ("bf16", "BF16", ml_dtypes.bfloat16),
          ("int8", "INT8", np.int8), ("uint64", "UINT64", np.uint64), ("bool", "BOOL", np.bool_),
          ("int64", "INT64", np.int64), ("fp64", "FP64", np.float64), ("string", "BYTES", np.object_)]


def _sample(np_dt, n, rng):
    if np_dt is np.object_:
        return np.array([f"s{i}-é".encode() for i in range(n)] + [b""], dtype=np.object_)
    if np_dt is np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if np.dtype(np_dt).kind in "iu":
        info = np.iinfo(np_dt)
        return np.array([info.min, info.max, 0, 1][:n] + list(rng.integers(0, 100, max(0, n - 4))), dtype=np_dt)
    return rng.standard_normal(n).astype(np_dt)


@pytest.mark.parametrize("suffix,datatype,np_dt", DTYPES)
def test_all_datatypes_roundtrip(served, suffix, datatype, np_dt, rng):
    x = _sample(np_dt, 6, rng)
    h, g = _http(served), _grpc(served)
    # gRPC (raw contents)
    gi = grpcclient.InferInput("IN", list(x.shape), datatype)
    if datatype == "BF16":
        gi.set_data_from_numpy(x.astype(np.float32))  # tritonclient converts float32 -> BF16
    else:
        gi.set_data_from_numpy(x)
    r = g.infer("echo_" + suffix, [gi])
    got = r.as_numpy("OUT")
    # HTTP binary and JSON (JSON cannot carry FP16/BF16/BYTES exactly? FP16/BF16 go as numbers, BYTES as UTF-8)
    results = [got]
    for binary in (True, False):
        hi = httpclient.InferInput("IN", list(x.shape), datatype)
        if datatype == "BF16":
            hi.set_data_from_numpy(x.astype(np.float32), binary_data=True) if binary else None
            if not binary:
                continue
        else:
            hi.set_data_from_numpy(x, binary_data=binary)
        r = h.infer("echo_" + suffix, [hi], outputs=[httpclient.InferRequestedOutput("OUT", binary_data=binary)])
        results.append(r.as_numpy("OUT"))
    for res in results:
        if datatype == "BYTES":
            assert [bytes(v) if not isinstance(v, str) else v.encode() for v in res.reshape(-1)] == list(x)
        elif datatype == "BF16":
            np.testing.assert_array_equal(np.asarray(res, np.float32), x.astype(np.float32))
        else:
            assert res.dtype == np.dtype(np_dt)
            np.testing.assert_array_equal(res, x)


def test_empty_tensor(served):
    x = np.zeros((0,), np.float32)
    gi = grpcclient.InferInput("IN", [0], "FP32")
    gi.set_data_from_numpy(x)
    r = _grpc(served).infer("echo_fp32", [gi])
    assert r.as_numpy("OUT").shape == (0,)
    hi = httpclient.InferInput("IN", [0], "FP32")
    hi.set_data_from_numpy(x, binary_data=False)
    assert _http(served).infer("echo_fp32", [hi]).as_numpy("OUT").shape == (0,)


def test_noncontiguous_input(served, rng):
    _, w, b = served
    base = rng.standard_normal((4, 2 * K)).astype(np.float32)
    x = base[:, ::2]
    inp = grpcclient.InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(np.ascontiguousarray(x))
    r = _grpc(served).infer("linear", [inp])
    np.testing.assert_allclose(r.as_numpy("y"), x @ w + b, rtol=1e-4, atol=1e-4)


def test_grpc_message_above_4mib(served, rng):
    x = rng.standard_normal(3 << 20).astype(np.float32)  # 12 MiB
    inp = grpcclient.InferInput("IN", [x.size], "FP32")
    inp.set_data_from_numpy(x)
    r = _grpc(served).infer("echo_fp32", [inp])
    np.testing.assert_array_equal(r.as_numpy("OUT"), x)


def test_grpc_stream_infer(served, rng):
    import queue

    _, w, b = served
    g = _grpc(served)
    results = queue.Queue()
    g.start_stream(callback=lambda result, error: results.put((result, error)))
    xs = [rng.standard_normal((1, K)).astype(np.float32) for _ in range(3)]
    for i, x in enumerate(xs):
        inp = grpcclient.InferInput("x", [1, K], "FP32")
        inp.set_data_from_numpy(x)
        g.async_stream_infer("linear", [inp], request_id=str(i))
    bad = grpcclient.InferInput("x", [1, K + 1], "FP32")
    bad.set_data_from_numpy(np.zeros((1, K + 1), np.float32))
    g.async_stream_infer("linear", [bad], request_id="bad")
    got = {}
    errors = []
    for _ in range(4):
        res, err = results.get(timeout=20)
        if err is not None:
            errors.append(str(err))
        else:
            got[res.get_response().id] = res.as_numpy("y")
    g.stop_stream()
    for i, x in enumerate(xs):
        np.testing.assert_allclose(got[str(i)], x @ w + b, rtol=1e-4, atol=1e-4)
    assert len(errors) == 1 and "unexpected shape" in errors[0]


def test_python_model_error_and_statistics(served):
    x = np.array([13.0, 1.0], np.float32)
    inp = grpcclient.InferInput("IN", [2], "FP32")
    inp.set_data_from_numpy(x)
    with pytest.raises(InferenceServerException, match="unlucky input 13") as ei:
        _grpc(served).infer("echo_fp32", [inp])
    assert ei.value.status() == "StatusCode.INTERNAL"
    stats = _http(served).get_inference_statistics("echo_fp32")["model_stats"][0]
    assert stats["name"] == "echo_fp32" and stats["inference_stats"]["fail"]["count"] >= 1
    assert stats["inference_stats"]["success"]["count"] >= 1
    gst = _grpc(served).get_inference_statistics("echo_fp32").model_stats[0]
    assert gst.inference_stats.fail.count == stats["inference_stats"]["fail"]["count"]


# ---------------------------------------------------------------- errors


def test_errors_over_clients(served):
    h, g = _http(served), _grpc(served)
    with pytest.raises(InferenceServerException, match="unknown model"):
        h.get_model_metadata("nope")
    with pytest.raises(InferenceServerException) as ei:
        g.get_model_metadata("nope")
    assert ei.value.status() == "StatusCode.NOT_FOUND"
    with pytest.raises(InferenceServerException) as ei:
        g.get_model_metadata("broken")
    assert ei.value.status() == "StatusCode.UNAVAILABLE" and "not_a_field" in ei.value.message()
    x = np.zeros((2, K), np.float64)
    inp = grpcclient.InferInput("x", [2, K], "FP64")
    inp.set_data_from_numpy(x)
    with pytest.raises(InferenceServerException, match="data-type is 'FP64'") as ei:
        g.infer("linear", [inp])
    assert ei.value.status() == "StatusCode.INVALID_ARGUMENT"
    big = grpcclient.InferInput("x", [9, K], "FP32")
    big.set_data_from_numpy(np.zeros((9, K), np.float32))
    with pytest.raises(InferenceServerException, match="batch-size 9"):
        g.infer("linear", [big])
    with pytest.raises(InferenceServerException, match="unexpected inference output 'zz'"):
        ok = grpcclient.InferInput("x", [1, K], "FP32")
        ok.set_data_from_numpy(np.zeros((1, K), np.float32))
        g.infer("linear", [ok], outputs=[grpcclient.InferRequestedOutput("zz")])
    with pytest.raises(InferenceServerException, match="not allowed"):
        h.load_model("linear")
    with pytest.raises(InferenceServerException, match="not allowed"):
        g.unload_model("linear")
    with pytest.raises(InferenceServerException, match="invalid model name"):
        g.get_model_metadata("../etc")


def _infer_body(**kw):
    body = {"inputs": [{"name": "x", "shape": [1, K], "datatype": "FP32", "data": [0.0] * K}]}
    body.update(kw)
    return json.dumps(body).encode()


@pytest.mark.parametrize("path,body,headers,status,needle", [
    ("/v2/models/linear/infer", b"{not json", {}, 400, "failed to parse"),
    ("/v2/models/linear/infer", b"[1, 2]", {}, 400, "must be an object"),
    ("/v2/models/linear/infer", b"[" * 100000 + b"]" * 100000, {}, 400, "failed to parse"),
    ("/v2/models/linear/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, K], "datatype": "FP32",
                                                        "data": [[0.0] * K, [0.0]]}]}).encode(), {}, 400, "65 values"),
    ("/v2/models/linear/infer", b"{}", {}, 400, "'inputs' list"),
    ("/v2/models/linear/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, K], "datatype": "FP99",
                                                        "data": [0] * K}]}).encode(), {}, 400, "invalid datatype"),
    ("/v2/models/linear/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, -2], "datatype": "FP32",
                                                        "data": []}]}).encode(), {}, 400, "non-negative"),
    ("/v2/models/linear/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, K], "datatype": "FP32",
                                                        "data": [0.0] * 3}]}).encode(), {}, 400, "3 values"),
    ("/v2/models/linear/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, K], "datatype": "FP32",
                                                        "data": ["a"] * K}]}).encode(), {}, 400, "not a FP32"),
    ("/v2/models/linear/infer", json.dumps({"inputs": [{"name": "x", "shape": [1, K], "datatype": "FP32",
                                                        "parameters": {"binary_data_size": 4 * K}}]}).encode(), {},
     400, "runs past"),
    ("/v2/models/linear/infer", _infer_body(), {"Inference-Header-Content-Length": "99999"}, 400, "outside the body"),
    ("/v2/models/linear/infer", _infer_body(), {"Inference-Header-Content-Length": "x"}, 400, "not an integer"),
    ("/v2/models/linear/infer", _infer_body(id=5), {}, 400, "'id' must be a string"),
    ("/v2/models/nope/infer", _infer_body(), {}, 404, "unknown model"),
    ("/v2/models/..%2Fetc/infer", _infer_body(), {}, 400, "invalid model name"),
    ("/v2/models/linear/versions/7/infer", _infer_body(), {}, 404, "version 7"),
    ("/v2/models/linear/versions/x/infer", _infer_body(), {}, 400, "invalid version"),
    ("/v2/repository/models/linear/load", b"", {}, 400, "not allowed"),
    ("/v2/repository/index", b"{\"ready\": 3}", {}, 400, "boolean"),
])
def test_malformed_http(served, path, body, headers, status, needle):
    code, data, _ = _raw(served, "POST", path, body, headers)
    assert code == status, data
    err = json.loads(data)["error"]
    assert needle in err, err


def test_http_body_limit_and_health_codes(tmp_path):
    from pyasc.serve import Server

    add_echo(str(tmp_path), "echo")
    with Server(str(tmp_path), http_port=0, grpc_port=0, metrics_port=None, allow_metrics=False,
                max_request_bytes=4096) as s:
        port = s.ports["http"]
        body = json.dumps({"inputs": [{"name": "IN", "shape": [2000], "datatype": "FP32",
                                       "data": [0.0] * 2000}]}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/v2/models/echo/infer", data=body, method="POST")
        with pytest.raises(urllib.error.HTTPError) as ei:
            urllib.request.urlopen(req, timeout=10)
        assert ei.value.code == 413 and "limit" in json.loads(ei.value.read())["error"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/health/ready", timeout=10) as r:
            assert r.status == 200 and r.read() == b""
        # gRPC refuses a message above the limit with RESOURCE_EXHAUSTED
        g = grpcclient.InferenceServerClient(f"127.0.0.1:{s.ports['grpc']}")
        inp = grpcclient.InferInput("IN", [2000], "FP32")
        inp.set_data_from_numpy(np.zeros(2000, np.float32))
        with pytest.raises(InferenceServerException) as e2:
            g.infer("echo", [inp])
        assert "RESOURCE_EXHAUSTED" in e2.value.status()


def test_repository_index(served):
    rows = _http(served).get_model_repository_index()
    by = {r["name"]: r for r in rows}
    assert by["linear"]["state"] == "READY" and by["linear"]["version"] == "1"
    assert by["broken"]["state"] == "UNAVAILABLE" and "not_a_field" in by["broken"]["reason"]
    g = _grpc(served).get_model_repository_index()
    assert {m.name for m in g.models} == set(by)
    code, data, _ = _raw(served, "POST", "/v2/repository/index", json.dumps({"ready": True}).encode())
    assert code == 200 and "broken" not in {r["name"] for r in json.loads(data)}


def test_malformed_grpc(served):
    """Raw ModelInfer requests built by hand: each bad one gets INVALID_ARGUMENT with a reason,
    undecodable bytes an error, and the server keeps serving."""
    import grpc

    from pyasc.serve import _proto

    M = _proto.messages()
    ch = grpc.insecure_channel(f"127.0.0.1:{served[0].ports['grpc']}")
    call = ch.unary_unary("/inference.GRPCInferenceService/ModelInfer",
                          request_serializer=M["ModelInferRequest"].SerializeToString,
                          response_deserializer=M["ModelInferResponse"].FromString)

    def req(datatype="FP32", shape=(1, K), raw=None, n_raw=1, name="x", model="linear"):
        r = M["ModelInferRequest"](model_name=model)
        r.inputs.add(name=name, datatype=datatype, shape=list(shape))
        for _ in range(n_raw):
            r.raw_input_contents.append(raw if raw is not None else bytes(4 * K))
        return r

    cases = [(req(raw=bytes(4 * K - 1)), "255 bytes"), (req(n_raw=2), "raw_input_contents"),
             (req(datatype="F32"), "invalid datatype"), (req(shape=(1, -K)), "negative"),
             (req(name="zz"), "unexpected inference input 'zz'"), (req(n_raw=0), "has no data"),
             (req(datatype="BYTES", shape=(1,), raw=b"\x09\x00\x00\x00ab", model="echo_string"), "claims 9 bytes"),
             (req(shape=(1 << 40, 1 << 30)), "tensor limit")]
    for r, needle in cases:
        with pytest.raises(grpc.RpcError) as ei:
            call(r, timeout=10)
        assert ei.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED), needle
        assert needle in ei.value.details(), (needle, ei.value.details())
    junk = ch.unary_unary("/inference.GRPCInferenceService/ModelInfer")
    with pytest.raises(grpc.RpcError):
        junk(b"\xff\xff\xff\xff garbage", timeout=10)
    unknown = ch.unary_unary("/inference.GRPCInferenceService/SystemSharedMemoryStatus")
    with pytest.raises(grpc.RpcError) as ei:
        unknown(b"", timeout=10)
    assert ei.value.code() == grpc.StatusCode.UNIMPLEMENTED
    ok = call(req(), timeout=10)
    np.testing.assert_allclose(np.frombuffer(ok.raw_output_contents[0], np.float32), served[2], rtol=1e-5)
    ch.close()


def test_raw_http_binary_output_and_routes(served, rng):
    """curl-style requests: binary_data_output, a binary input next to a JSON one, version routes."""
    _, w, b = served
    x = rng.standard_normal((2, K)).astype(np.float32)
    body = json.dumps({"id": "r1", "parameters": {"binary_data_output": True},
                       "inputs": [{"name": "x", "shape": [2, K], "datatype": "FP32", "data": x.tolist()}]}).encode()
    code, data, headers = _raw(served, "POST", "/v2/models/linear/versions/1/infer", body)
    assert code == 200, data
    hlen = int(headers["Inference-Header-Content-Length"])
    head = json.loads(data[:hlen])
    assert head["id"] == "r1" and head["outputs"][0]["parameters"]["binary_data_size"] == 2 * N * 4
    np.testing.assert_allclose(np.frombuffer(data[hlen:], np.float32).reshape(2, N), x @ w + b, rtol=1e-4, atol=1e-4)
    # two inputs: 'a' binary, 'b' JSON
    a = np.arange(4, dtype=np.int32).reshape(1, 4)
    hdr = json.dumps({"inputs": [{"name": "a", "shape": [1, 4], "datatype": "INT32",
                                  "parameters": {"binary_data_size": 16}},
                                 {"name": "b", "shape": [1, 4], "datatype": "INT32", "data": [[5, 6, 7, 8]]}],
                      "outputs": [{"name": "sum"}]}).encode()
    code, data, headers = _raw(served, "POST", "/v2/models/addmul/infer", hdr + a.tobytes(),
                               {"Inference-Header-Content-Length": str(len(hdr))})
    assert code == 200, data
    assert json.loads(data)["outputs"] == [{"name": "sum", "datatype": "INT32", "shape": [1, 4],
                                            "data": [5, 7, 9, 11]}]
    for path in ("/v2/models/linear/versions/1/ready", "/v2/models/linear/ready", "/v2/health/live"):
        code, data, _ = _raw(served, "GET", path)
        assert code == 200 and data == b""
    code, data, _ = _raw(served, "GET", "/v2/models/linear/versions/2/ready")
    assert code == 400
    code, data, _ = _raw(served, "GET", "/v2/models/stats")
    names = {m["name"] for m in json.loads(data)["model_stats"]}
    assert {"linear", "addmul"} <= names and "broken" not in names
    code, data, _ = _raw(served, "GET", "/v2/nothing/here")
    assert code == 404 and "error" in json.loads(data)
