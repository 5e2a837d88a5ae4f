"""pyasc-serve pieces: protocol descriptors, config parsing, names, datatypes, pb_utils, CLI."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import ml_dtypes
import numpy as np
import pytest

from serve_models import add_echo, add_linear, write


def test_descriptors_match_tritonclient():
    """Every message we serve has exactly the fields (number, type, label, message/enum type,
    oneof) of tritonclient's generated grpc_service / model_config modules."""
    service_pb2 = pytest.importorskip("tritonclient.grpc.service_pb2")
    model_config_pb2 = pytest.importorskip("tritonclient.grpc.model_config_pb2")
    from pyasc.serve import _proto

    def key(f):
        return (f.number, f.type, f.message_type.full_name if f.message_type else None,
                f.enum_type.full_name if f.enum_type else None,
                f.containing_oneof.name if f.containing_oneof else None,
                f.message_type.GetOptions().map_entry if f.message_type else None)

    def compare(ours, theirs, path):
        assert {f.name: key(f) for f in ours.fields} == {f.name: key(f) for f in theirs.fields}, path
        for e in theirs.enum_types:
            assert [(v.name, v.number) for v in ours.enum_types_by_name[e.name].values] == \
                   [(v.name, v.number) for v in e.values], path + "." + e.name
        for n in theirs.nested_types:
            compare(ours.nested_types_by_name[n.name], n, path + "." + n.name)

    checked = 0
    for mod in (model_config_pb2, service_pb2):
        for name, d in mod.DESCRIPTOR.message_types_by_name.items():
            if "SharedMemory" in name or name.startswith(("Trace", "Log")):
                continue  # RPCs we do not serve
            compare(_proto.FILE.message_types_by_name[name], d, name)
            checked += 1
    assert checked >= 45
    svc = service_pb2.DESCRIPTOR.services_by_name["GRPCInferenceService"]
    ours = _proto.FILE.services_by_name["GRPCInferenceService"]
    for m in ours.methods:
        t = svc.methods_by_name[m.name]
        assert (m.input_type.name, m.output_type.name, m.client_streaming, m.server_streaming) == \
               (t.input_type.name, t.output_type.name, t.client_streaming, t.server_streaming)
    # and the bytes agree both ways
    ours_req = _proto.message_class("ModelInferRequest")(model_name="m", id="7")
    ours_req.parameters["session_id"].string_param = "s"
    ours_req.inputs.add(name="x", datatype="FP32", shape=[1, 2])
    theirs = service_pb2.ModelInferRequest.FromString(ours_req.SerializeToString())
    assert theirs.parameters["session_id"].string_param == "s" and list(theirs.inputs[0].shape) == [1, 2]


FULL_CONFIG = """
name: "m"
platform: "onnxruntime_onnx"
max_batch_size: 8
version_policy: { specific { versions: [1, 3] } }
input [ { name: "x" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, -1 ] reshape: { shape: [ 3 ] } } ]
output [ { name: "y" data_type: TYPE_FP16 dims: [ 10 ] label_filename: "labels.txt" } ]
instance_group [ { count: 2 kind: KIND_CPU }, { count: 1 kind: KIND_GPU gpus: [ 0 ] } ]
dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100
                   default_queue_policy { timeout_action: DELAY max_queue_size: 5 } }
optimization { graph { level: 1 } execution_accelerators { cpu_execution_accelerator: [ { name: "openvino" } ] } }
parameters { key: "ab_split" value { string_value: "1:90,other/2:10" } }
model_warmup [ { name: "w" batch_size: 1 inputs { key: "x" value { data_type: TYPE_FP32 dims: [ 3 ] zero_data: true } } } ]
"""


def test_config_parse_full_triton_config():
    from pyasc.serve import config

    cfg = config.parse_config(FULL_CONFIG)
    assert cfg.max_batch_size == 8 and list(cfg.version_policy.specific.versions) == [1, 3]
    assert cfg.input[0].dims == [3, -1] and cfg.input[0].format == 2
    assert [g.count for g in cfg.instance_group] == [2, 1]
    assert list(cfg.dynamic_batching.preferred_batch_size) == [4, 8]
    assert cfg.model_warmup[0].inputs["x"].zero_data
    assert config.ab_split(cfg) == [(("", "1"), 90.0), (("other", "2"), 10.0)]
    d = config.config_to_dict(cfg)
    assert d["input"][0]["dims"] == [3, -1] and d["dynamic_batching"]["max_queue_delay_microseconds"] == 100
    assert d["input"][0]["data_type"] == "TYPE_FP32" and d["parameters"]["ab_split"]["string_value"]


@pytest.mark.parametrize("text,needle", [
    ('name: "m" bogus_field: 1', "bogus_field"),
    ('name: "m" max_batch_size: "x"', "max_batch_size"),
    ('input [ { name: "x" data_type: TYPE_NOPE } ]', "TYPE_NOPE"),
])
def test_config_parse_errors(text, needle):
    from pyasc.serve import InvalidArgumentError, config

    with pytest.raises(InvalidArgumentError, match=needle):
        config.parse_config(text, "m/config.pbtxt")


@pytest.mark.parametrize("value", ["1:x", "1", ":5", "1:-1", "../x:1", "a/b:1", "1:0"])
def test_ab_split_errors(value):
    from pyasc.serve import InvalidArgumentError, config

    cfg = config.parse_config(f'name: "m" parameters {{ key: "ab_split" value {{ string_value: "{value}" }} }}')
    with pytest.raises(InvalidArgumentError, match="ab_split"):
        config.ab_split(cfg)


@pytest.mark.parametrize("name", ["..", ".", "../etc", "a/b", "a\x00b", ".hidden", "-x", "x" * 129, "", "a b",
                                  "é"])
def test_invalid_model_names(name):
    from pyasc.serve import InvalidArgumentError, config

    with pytest.raises(InvalidArgumentError, match="invalid model name"):
        config.validate_name(name)


@pytest.mark.parametrize("name", ["a", "resnet50", "my-model.v2", "A_1", "x" * 128])
def test_valid_model_names(name):
    from pyasc.serve import config

    assert config.validate_name(name) == name


def test_symlink_out_of_repository_refused(tmp_path):
    from pyasc.serve import InferenceCore, InvalidArgumentError

    outside = tmp_path / "outside"
    add_echo(str(outside), "evil")
    repo = tmp_path / "repo"
    repo.mkdir()
    os.symlink(outside / "evil", repo / "evil")
    add_echo(str(repo), "good")
    core = InferenceCore(str(repo), control_mode="explicit", load_models=["*"])
    try:
        assert "evil" not in core.repository.loaded() and "good" in core.repository.loaded()
        with pytest.raises(InvalidArgumentError, match="outside the repository"):
            core.repository.load("evil")
    finally:
        core.close()


def test_bytes_serialization():
    from pyasc.serve import InvalidArgumentError, _dtypes

    a = np.array([b"", b"abc", "é".encode(), b"\x00\xff"], dtype=object)
    buf = _dtypes.serialize_bytes(a)
    assert buf[:4] == b"\x00\x00\x00\x00" and buf[4:8] == b"\x03\x00\x00\x00"
    assert list(_dtypes.deserialize_bytes(buf, 4, "t")) == list(a)
    with pytest.raises(InvalidArgumentError, match="ends after"):
        _dtypes.deserialize_bytes(buf[:-3], 5, "t")
    with pytest.raises(InvalidArgumentError, match="claims"):
        _dtypes.deserialize_bytes(b"\xff\xff\xff\x00ab", 1, "t")
    with pytest.raises(InvalidArgumentError, match="unexpected bytes"):
        _dtypes.deserialize_bytes(buf + b"zz", 4, "t")


def test_raw_and_json_decoding():
    from pyasc.serve import InvalidArgumentError, _dtypes

    x = np.arange(6, dtype=np.float16).reshape(2, 3)
    np.testing.assert_array_equal(_dtypes.from_raw(x.tobytes(), "FP16", [2, 3], "x"), x)
    with pytest.raises(InvalidArgumentError, match="11 bytes"):
        _dtypes.from_raw(x.tobytes()[:-1], "FP16", [2, 3], "x")
    np.testing.assert_array_equal(_dtypes.from_json_data([[1, 2, 3], [4, 5, 6]], "INT16", [2, 3], "x"),
                                  np.arange(1, 7, dtype=np.int16).reshape(2, 3))
    with pytest.raises(InvalidArgumentError, match="out of range"):
        _dtypes.from_json_data([300], "INT8", [1], "x")
    with pytest.raises(InvalidArgumentError, match="not a INT32"):
        _dtypes.from_json_data([1.5], "INT32", [1], "x")
    with pytest.raises(InvalidArgumentError, match="not a BOOL"):
        _dtypes.from_json_data([1], "BOOL", [1], "x")
    b = _dtypes.from_json_data([1.0, 2.5], "BF16", [2], "x")
    assert b.dtype == ml_dtypes.bfloat16 and b.astype(np.float32).tolist() == [1.0, 2.5]
    assert _dtypes.to_json_data(b, "BF16") == [1.0, 2.5]
    assert _dtypes.datatype_of(np.dtype("U3")) == "BYTES"


def test_pb_utils_helpers():
    from pyasc.serve import pb_utils

    t = pb_utils.Tensor("a", np.zeros((2, 3), np.int8))
    assert t.name() == "a" and t.shape() == [2, 3] and t.triton_dtype() == "INT8"
    r = pb_utils.InferenceRequest([t], ["b"], request_id="q")
    assert pb_utils.get_input_tensor_by_name(r, "a") is t and pb_utils.get_input_tensor_by_name(r, "z") is None
    resp = pb_utils.InferenceResponse([pb_utils.Tensor("b", np.ones(2))])
    assert pb_utils.get_output_tensor_by_name(resp, "b").as_numpy().tolist() == [1.0, 1.0]
    assert pb_utils.triton_string_to_numpy("TYPE_FP32") is np.float32
    assert pb_utils.triton_string_to_numpy("TYPE_STRING") is np.object_
    assert pb_utils.numpy_to_triton_string(np.dtype(np.uint16)) == "TYPE_UINT16"
    cfg = {"input": [{"name": "a", "dims": [3]}], "output": [{"name": "b"}]}
    assert pb_utils.get_input_config_by_name(cfg, "a")["dims"] == [3]
    assert pb_utils.get_output_config_by_name(cfg, "c") is None


PYASC_MODEL = textwrap.dedent('''
    import numpy as np
    import pyasc as asc
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            out = []
            for r in requests:
                x = asc.asarray(pb_utils.get_input_tensor_by_name(r, "x").as_numpy())
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("y", asc.exp(x) * 2.0 + 1.0)]))
            return out
''')


def test_python_model_over_pyasc_ops(tmp_path, rng):
    from pyasc.serve import InferenceCore, InferRequest

    write(str(tmp_path / "pm" / "1" / "model.py"), PYASC_MODEL)
    write(str(tmp_path / "pm" / "config.pbtxt"), 'backend: "python"\nmax_batch_size: 4\n'
          'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
          'output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]\n')
    core = InferenceCore(str(tmp_path))
    try:
        x = rng.standard_normal((3, 7)).astype(np.float32)
        resp = core.infer(InferRequest("pm", inputs={"x": ("FP32", x)}))
        (name, dt, y), = resp.outputs
        assert name == "y" and dt == "FP32"
        np.testing.assert_allclose(y, np.exp(x) * 2 + 1, rtol=1e-5)
    finally:
        core.close()


def test_model_py_failures_are_load_errors(tmp_path):
    from pyasc.serve import InferenceCore

    write(str(tmp_path / "noclass" / "1" / "model.py"), "x = 1\n")
    write(str(tmp_path / "noclass" / "config.pbtxt"), 'backend: "python"\ninput [ { name: "a" data_type: TYPE_FP32 '
          'dims: [ 1 ] } ]\noutput [ { name: "b" data_type: TYPE_FP32 dims: [ 1 ] } ]\n')
    write(str(tmp_path / "raises" / "1" / "model.py"), "raise RuntimeError('boom at import')\n")
    write(str(tmp_path / "raises" / "config.pbtxt"), 'backend: "python"\n')
    write(str(tmp_path / "nover" / "config.pbtxt"), 'backend: "python"\n')
    write(str(tmp_path / "mismatch" / "config.pbtxt"), 'name: "other"\n')
    os.makedirs(tmp_path / "mismatch" / "1")
    write(str(tmp_path / "unknown" / "config.pbtxt"), 'platform: "tensorrt_plan"\n')
    os.makedirs(tmp_path / "unknown" / "1")
    core = InferenceCore(str(tmp_path))
    try:
        errs = core.load_errors
        assert "TritonPythonModel" in errs["noclass"]
        assert "boom at import" in errs["raises"]
        assert "no version directories" in errs["nover"]
        assert "does not match" in errs["mismatch"]
        assert "tensorrt_plan" in errs["unknown"]
        assert not core.ready()
    finally:
        core.close()


def test_om_model_loads_or_says_pending(tmp_path, rng):
    import pyasc as asc

    from pyasc.serve import InferenceCore, InferRequest

    w = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    add_linear(str(tmp_path), "lin", 1, w, b)
    src = tmp_path / "lin" / "1" / "model.onnx"
    os.makedirs(tmp_path / "om" / "1")
    write(str(tmp_path / "om" / "config.pbtxt"), 'platform: "pyasc_om"\nmax_batch_size: 8\n')
    if hasattr(asc, "save_as_om") and hasattr(asc, "load_model"):
        asc.save_as_om(str(src), str(tmp_path / "om" / "1" / "model.om"))
        core = InferenceCore(str(tmp_path))
        try:
            x = rng.standard_normal((2, 8)).astype(np.float32)
            (_, _, y), = core.infer(InferRequest("om", inputs={"x": ("FP32", x)})).outputs
            np.testing.assert_allclose(y, x @ w + b, rtol=1e-4, atol=1e-4)
        finally:
            core.close()
    else:
        write(str(tmp_path / "om" / "1" / "model.om"), "x")
        core = InferenceCore(str(tmp_path))
        try:
            assert "asc.load_model" in core.load_errors["om"]
        finally:
            core.close()


def test_cli_parser_defaults_and_sizes():
    from pyasc.serve import cli

    a = cli.build_parser().parse_args(["--model-repository", "/x"])
    assert a.host == "127.0.0.1" and (a.http_port, a.grpc_port, a.metrics_port) == (8000, 8001, 8002)
    assert a.model_control_mode == "none" and a.max_request_bytes == 64 << 20
    assert cli.parse_size("4K") == 4096 and cli.parse_size("1.5M") == 3 << 19 and cli.parse_size("1GiB") == 1 << 30
    with pytest.raises(Exception, match="invalid size"):
        cli.parse_size("lots")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_subprocess_serves_and_stops(tmp_path):
    import tritonclient.http as httpclient

    add_echo(str(tmp_path), "e")
    ports = [_free_port() for _ in range(3)]
    env = dict(os.environ)
    p = subprocess.Popen([sys.executable, "-m", "pyasc.serve.cli", "--model-repository", str(tmp_path),
                          "--http-port", str(ports[0]), "--grpc-port", str(ports[1]), "--metrics-port", str(ports[2])],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        c = httpclient.InferenceServerClient(f"127.0.0.1:{ports[0]}")
        t0 = time.time()
        while True:
            try:
                if c.is_server_ready():
                    break
            except Exception:  # noqa: BLE001 - not up yet
                pass
            assert p.poll() is None and time.time() - t0 < 60, p.stdout.read() if p.poll() is not None else "timeout"
            time.sleep(0.1)
        inp = httpclient.InferInput("IN", [3], "FP32")
        inp.set_data_from_numpy(np.array([1, 2, 3], np.float32))
        assert c.infer("e", [inp]).as_numpy("OUT").tolist() == [1, 2, 3]
    finally:
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=30)
    assert p.returncode == 0, out
    assert f"http on 127.0.0.1:{ports[0]}" in out


def test_cli_main_bad_repository(tmp_path, capsys):
    from pyasc.serve import cli

    assert cli.main(["--model-repository", str(tmp_path / "absent"), "--http-port", "0"]) == 1
    assert "not a directory" in capsys.readouterr().err
