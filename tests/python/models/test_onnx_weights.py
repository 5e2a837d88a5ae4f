"""Zero-copy initializer extraction (python/pyasc/models/_onnx_weights.py): the split's weights equal
onnx's own numpy_helper.to_array, its slim bytes parse to the same model without them, every
form it does not take stays in the model, malformed bytes decline (protobuf then names the
defect), and a session loaded through it computes what onnx's reference evaluator does."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc.models import _onnx_weights  # noqa: E402

RNG = np.random.default_rng(7)


def _model(inits, extra_nodes=(), extra_inputs=()):
    """y = x @ W + b (+ whatever ``extra_nodes`` add), with ``inits`` as the initializer list."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    nodes = [helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"]),
             *extra_nodes]
    outs = [y] + [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, [2, 4]) for n in extra_nodes]
    g = helper.make_graph(nodes, "g", [x, *extra_inputs], outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _all_dtypes():
    arrs = {
        "f32": RNG.standard_normal((3, 4)).astype(np.float32), "f16": RNG.standard_normal(5).astype(np.float16),
        "f64": RNG.standard_normal((2, 2)), "i8": np.array([-128, 0, 127], np.int8),
        "u8": np.arange(7, dtype=np.uint8), "i16": np.array([-3, 3], np.int16), "u16": np.array([65535], np.uint16),
        "i32": np.array([[1, -2]], np.int32), "i64": np.array([2**62, -1], np.int64),
        "u32": np.array([4000000000], np.uint32), "u64": np.array([2**63 + 5], np.uint64),
        "bool": np.array([True, False, True]), "scalar": np.array(3.5, np.float32),
        "empty": np.zeros((0, 3), np.float32),
    }
    return arrs


def test_split_matches_numpy_helper_for_every_raw_dtype():
    arrs = _all_dtypes()
    inits = [numpy_helper.from_array(a, k) for k, a in arrs.items()]
    m = _model([numpy_helper.from_array(arrs["f32"], "W"), numpy_helper.from_array(np.zeros(4, np.float32), "b")]
               + inits)
    data = m.SerializeToString()
    slim, weights, order = _onnx_weights.split(data)
    assert order == ["W", "b"] + list(arrs)
    assert list(weights) == order
    for t in m.graph.initializer:
        want = numpy_helper.to_array(t)
        got = weights[t.name]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        # a view of the caller's bytes, not a copy
        assert not got.flags.owndata and not got.flags.writeable
    parsed = onnx.ModelProto()
    parsed.ParseFromString(slim)
    assert len(parsed.graph.initializer) == 0
    stripped = onnx.ModelProto()
    stripped.CopyFrom(m)
    del stripped.graph.initializer[:]
    assert parsed == stripped
    assert len(slim) < len(data) - sum(a.nbytes for a in arrs.values())


def test_forms_it_does_not_take_stay_in_the_model():
    w = numpy_helper.from_array(RNG.standard_normal((3, 4)).astype(np.float32), "W")
    typed = helper.make_tensor("b", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])  # float_data, not raw
    assert not typed.HasField("raw_data")
    bf = helper.make_tensor("bf", TensorProto.BFLOAT16, [2], [1.0, 2.0])
    ext = numpy_helper.from_array(np.ones(2, np.float32), "ext")
    ext.data_location = TensorProto.EXTERNAL
    ext.ClearField("raw_data")
    ext.external_data.add(key="location", value="nowhere.bin")
    m = _model([w, typed, bf, ext])
    slim, weights, order = _onnx_weights.split(m.SerializeToString())
    assert list(weights) == ["W"] and order == ["W", None, None, None]
    parsed = onnx.ModelProto()
    parsed.ParseFromString(slim)
    assert [t.name for t in parsed.graph.initializer] == ["b", "bf", "ext"]
    assert parsed.graph.initializer[0] == typed and parsed.graph.initializer[1] == bf


def test_size_mismatch_and_duplicates_decline():
    bad = numpy_helper.from_array(np.ones((3, 4), np.float32), "W")
    bad.raw_data = bad.raw_data[:-4]  # 11 floats for 12 elements: left for the checker/parse to refuse
    m = _model([bad, numpy_helper.from_array(np.zeros(4, np.float32), "b")])
    slim, weights, order = _onnx_weights.split(m.SerializeToString())
    assert list(weights) == ["b"] and order == [None, "b"]
    dup = _model([numpy_helper.from_array(np.ones((3, 4), np.float32), "W"),
                  numpy_helper.from_array(np.zeros(4, np.float32), "W")])
    assert _onnx_weights.split(dup.SerializeToString()) is None


@pytest.mark.parametrize("cut", [1, 7, 50, -1, -9])
def test_truncated_or_garbage_bytes_decline(cut):
    data = _model([numpy_helper.from_array(np.ones((3, 4), np.float32), "W"),
                   numpy_helper.from_array(np.zeros(4, np.float32), "b")]).SerializeToString()
    assert _onnx_weights.split(data[:cut]) is None
    assert _onnx_weights.split(b"\xff" * 40) is None
    assert _onnx_weights.split(b"") is None
    assert _onnx_weights.split(b"\x0b\x00") is None  # a group (wire type 3)


def test_session_through_the_split_equals_the_reference(tmp_path):
    from onnx.reference import ReferenceEvaluator

    W = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    k = helper.make_tensor("k", TensorProto.FLOAT, [4], [0.5, -1.0, 2.0, 0.25])  # typed: the ordinary path
    m = _model([numpy_helper.from_array(W, "W"), k, numpy_helper.from_array(b, "b")],
               extra_nodes=[helper.make_node("Mul", ["y", "k"], ["z"])])
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    want = ReferenceEvaluator(m).run(None, {"x": x})
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    for src in (m.SerializeToString(), bytearray(m.SerializeToString()), str(path), m):
        s = asc.InferenceSession(src)
        got = s.run(None, {"x": x})
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        # the constants keep the file's initializer order (to_proto / save_as_om write them so)
        assert list(s._model.constants)[:3] == ["W", "k", "b"]
    # the caller's ModelProto is untouched
    assert [t.name for t in m.graph.initializer] == ["W", "k", "b"]


def test_initializer_also_a_graph_input_stays_overridable():
    W = RNG.standard_normal((3, 4)).astype(np.float32)
    b = np.zeros(4, np.float32)
    m = _model([numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")],
               extra_inputs=[helper.make_tensor_value_info("b", TensorProto.FLOAT, [4])])
    s = asc.InferenceSession(m.SerializeToString())
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(s.run(None, {"x": x})[0], x @ W, rtol=1e-5)
    np.testing.assert_allclose(s.run(None, {"x": x, "b": np.full(4, 2, np.float32)})[0], x @ W + 2, rtol=1e-5)
