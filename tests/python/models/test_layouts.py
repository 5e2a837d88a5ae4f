"""Layout assignment (models/_passes.py assign_layouts): activations passed between convolutions and
max pools stay in the channel-blocked NC1HWC0 layout, NCHW at the edges and wherever another
operator reads them. Outputs equal onnx's reference evaluator and the unoptimised session."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc import _C  # noqa: E402

RNG = np.random.default_rng(21)
C0 = _C.nn.preferred_block()
pytestmark = pytest.mark.skipif(C0 == 0, reason="oneDNN prefers a plain layout on this CPU")


def _w(name, shape):
    a = RNG.standard_normal(shape) * np.sqrt(2.0 / max(1, int(np.prod(shape[1:]))))
    return numpy_helper.from_array(a.astype(np.float32), name)


def _b(name, n):
    return numpy_helper.from_array(RNG.uniform(-0.3, 0.3, n).astype(np.float32), name)


def small_resnet(c=16, extra_nodes=(), extra_outputs=(), sigmoid_tap=False):
    """stem 7x7/2 + relu -> maxpool 3x3/2 -> bottleneck (1x1, 3x3, 1x1 + projection shortcut + relu)
    -> GlobalAveragePool -> Flatten -> Gemm."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])
    c4 = 4 * c
    inits = [_w("w0", (c, 3, 7, 7)), _b("b0", c), _w("w1", (c, c, 1, 1)), _b("b1", c), _w("w2", (c, c, 3, 3)),
             _b("b2", c), _w("w3", (c4, c, 1, 1)), _b("b3", c4), _w("wd", (c4, c, 1, 1)), _b("bd", c4),
             _w("w4", (c4, c4, 3, 3)), _w("fc", (10, c4)), _b("fcb", 10)]
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], strides=[2, 2], pads=[3, 3, 3, 3], name="stem"),
             helper.make_node("Relu", ["c0"], ["r0"], name="r0"),
             helper.make_node("MaxPool", ["r0"], ["p0"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                              name="pool"),
             helper.make_node("Conv", ["p0", "w1", "b1"], ["c1"], name="c1"),
             helper.make_node("Relu", ["c1"], ["r1"], name="r1"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 0, 1, 2], strides=[1, 2], name="c2"),
             helper.make_node("Relu", ["c2"], ["r2"], name="r2"),
             helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="c3"),
             helper.make_node("Conv", ["p0", "wd", "bd"], ["cd"], strides=[1, 2], name="down"),
             helper.make_node("Add", ["c3", "cd"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["r3"], name="r3"),
             helper.make_node("Conv", ["r3", "w4"], ["c4"], pads=[1, 1, 1, 1], name="c4"),
             helper.make_node("GlobalAveragePool", ["c4"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1, name="fc"), *extra_nodes]
    outs = [y] + [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["a", "b", "c", "d"]) for o in extra_outputs]
    g = helper.make_graph(nodes, "small_resnet", [x], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _check(m, batch=2):
    from onnx.reference import ReferenceEvaluator

    x = RNG.standard_normal((batch, 3, 32, 32)).astype(np.float32)
    s = asc.InferenceSession(m.SerializeToString())
    so = asc.SessionOptions()
    so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    off = asc.InferenceSession(m.SerializeToString(), so)
    want = ReferenceEvaluator(m).run(None, {"x": x})
    for got, plain, w in zip(s.run(None, {"x": x}), off.run(None, {"x": x}), want):
        tol = dict(rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(w).max())))
        np.testing.assert_allclose(got, w, **tol)
        np.testing.assert_allclose(got, plain, **tol)
    return s


def _layouts(s):
    return [(n.op_type, n.attr("in_block", None), n.attr("out_block", None)) for n in s._model.nodes]


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_blocked_between_convs_plain_at_edges(batch):
    s = _check(small_resnet(), batch)
    assert s.graph_rewrites["assign_layouts"] == 7  # r0, p0, r1, r2, cd, r3, c4
    lay = _layouts(s)
    assert lay[0] == ("FusedConv", 0, C0)              # the stem reads the NCHW input
    assert lay[1] == ("MaxPoolNC1HWC0", None, None)
    assert ("FusedConv", C0, 0) not in lay             # the last conv stays blocked ...
    assert ("GlobalAveragePoolNC1HWC0", None, None) in lay  # ... up to the head's pool, which writes NCHW
    assert [t for t, _, _ in lay].count("FusedConv") == 6
    inplace = [n.name for n in s._model.nodes if n.attr("residual_inplace")]
    assert inplace == ["c3"]  # its residual (the projection shortcut) has no later reader


def test_identity_shortcut_in_place():
    """x -> stem -> (a -> relu -> b) + stem output -> relu, twice: the stem's output is read by the
    first conv and by the residual add; the add, its last reader, writes into it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 12, 12])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 16, 12, 12])
    inits = [_w("w0", (16, 3, 3, 3))] + [_w(f"w{i}", (16, 16, 3, 3)) for i in range(1, 6)]
    nodes = [helper.make_node("Conv", ["x", "w0"], ["s0"], pads=[1, 1, 1, 1], name="stem")]
    prev = "s0"
    for k in range(2):
        a, b = 1 + 2 * k, 2 + 2 * k
        nodes += [helper.make_node("Conv", [prev, f"w{a}"], [f"a{k}"], pads=[1, 1, 1, 1], name=f"a{k}"),
                  helper.make_node("Relu", [f"a{k}"], [f"ra{k}"], name=f"ra{k}"),
                  helper.make_node("Conv", [f"ra{k}", f"w{b}"], [f"b{k}"], pads=[1, 1, 1, 1], name=f"b{k}"),
                  helper.make_node("Add", [f"b{k}", prev], [f"s{k + 1}"], name=f"add{k}"),
                  helper.make_node("Relu", [f"s{k + 1}"], [f"r{k + 1}"], name=f"r{k + 1}")]
        prev = f"r{k + 1}"
    nodes.append(helper.make_node("Conv", [prev, "w5"], ["y"], pads=[1, 1, 1, 1], name="head"))
    m = helper.make_model(helper.make_graph(nodes, "ident", [x], [y], inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    from onnx.reference import ReferenceEvaluator

    xv = RNG.standard_normal((2, 3, 12, 12)).astype(np.float32)
    s = asc.InferenceSession(m.SerializeToString())
    assert sorted(n.name for n in s._model.nodes if n.attr("residual_inplace")) == ["b0", "b1"]
    want = ReferenceEvaluator(m).run(None, {"x": xv})[0]
    for _ in range(2):  # twice: nothing of the first run's buffers leaks into the second
        np.testing.assert_allclose(s.run(None, {"x": xv})[0], want, rtol=1e-4, atol=1e-4)


def test_values_other_ops_read_stay_plain():
    # r1 also read by a Sigmoid (a graph output): plain; so are its producer's output and c2's input
    m = small_resnet(extra_nodes=[helper.make_node("Sigmoid", ["r1"], ["t"], name="tap")], extra_outputs=["t"])
    s = _check(m)
    lay = dict((n.name, (n.op_type, n.attr("in_block", 0), n.attr("out_block", 0))) for n in s._model.nodes)
    assert lay["c1"][2] == 0 and lay["c2"][1] == 0
    assert s.graph_rewrites["assign_layouts"] == 6


def test_channels_not_divisible_stay_plain():
    s = _check(small_resnet(c=12 if C0 != 4 else 6))
    assert all(n.op_type != "MaxPoolNC1HWC0" for n in s._model.nodes)
    assert s.graph_rewrites["assign_layouts"] in (0, 1, 2, 3)  # only the 4c-channel values can block


def test_graph_output_between_convs_stays_plain():
    m = small_resnet(extra_outputs=["p0"])
    s = _check(m)
    assert all(n.op_type != "MaxPoolNC1HWC0" for n in s._model.nodes)


def test_broadcasting_residual_falls_back():
    """A residual Add whose other operand is a conv output of another spatial size broadcasts: the
    blocked FusedConv runs the plain ops and returns to its assigned layout."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16, 8, 8])
    inits = [_w("wa", (16, 16, 1, 1)), _w("wb", (16, 16, 8, 8)), _w("wc", (16, 16, 1, 1)), _w("wz", (16, 16, 3, 3))]
    nodes = [helper.make_node("Conv", ["x", "wa"], ["a"], name="a"),
             helper.make_node("Conv", ["x", "wb"], ["b"], name="b"),        # (2, 16, 1, 1)
             helper.make_node("Conv", ["a", "wc"], ["c"], name="c"),
             helper.make_node("Add", ["c", "b"], ["s"], name="add"),        # broadcasts b
             helper.make_node("Conv", ["s", "wz"], ["y"], pads=[1, 1, 1, 1], name="z")]
    m = helper.make_model(helper.make_graph(nodes, "bc", [x], [y], inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    from onnx.reference import ReferenceEvaluator

    xv = RNG.standard_normal((2, 16, 8, 8)).astype(np.float32)
    s = asc.InferenceSession(m.SerializeToString())
    assert s.graph_rewrites["assign_layouts"] >= 2
    np.testing.assert_allclose(s.run(None, {"x": xv})[0], ReferenceEvaluator(m).run(None, {"x": xv})[0],
                               rtol=1e-4, atol=1e-4)


def test_optimized_model_roundtrips(tmp_path):
    """The optimised graph (ai.pyasc nodes with their layout attributes) saved and loaded again."""
    m = small_resnet()
    so = asc.SessionOptions()
    so.optimized_model_filepath = str(tmp_path / "opt.onnx")
    s = asc.InferenceSession(m.SerializeToString(), so)
    x = RNG.standard_normal((1, 3, 32, 32)).astype(np.float32)
    again = asc.InferenceSession(str(tmp_path / "opt.onnx"))
    np.testing.assert_allclose(again.run(None, {"x": x})[0], s.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)


def _head_model(pool, h=7, c=None):
    """conv 3x3 (C0 * 3 channels, blocked output) -> relu -> conv 1x1 -> ``pool`` node (reads 'r', writes
    'p') -> Flatten -> Gemm: the classifier head whose pool reads a blocked value."""
    c = c or 3 * C0
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", c, h, h])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 5])
    inits = [_w("w0", (c, c, 3, 3)), _b("b0", c), _w("w1", (c, c, 1, 1)), None, _b("fcb", 5)]  # fc: set by the caller
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], name="c0"),
             helper.make_node("Relu", ["c0"], ["r0"], name="r0"),
             helper.make_node("Conv", ["r0", "w1"], ["r"], name="c1"),
             pool,
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1, name="fc")]
    return x, y, inits, nodes


@pytest.mark.parametrize("kind,kw,h", [
    ("GlobalAveragePool", {}, 7),
    ("AveragePool", dict(kernel_shape=[7, 7]), 7),                          # ResNet's head: the whole plane
    ("AveragePool", dict(kernel_shape=[7, 7], strides=[2, 2]), 7),
    ("AveragePool", dict(kernel_shape=[3, 3], strides=[2, 2]), 7),          # windows: reorder + plain pool
    ("AveragePool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1), 5),
    ("AveragePool", dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1), 5),
    ("AveragePool", dict(kernel_shape=[5, 5], pads=[0, 0, 1, 1]), 5),        # the whole plane, padded
    ("GlobalAveragePool", {}, 1),
])
@pytest.mark.parametrize("batch", [1, 3])
def test_head_pool_reads_blocked(kind, kw, h, batch):
    """The head's average pool reads the last conv's blocked output and writes NCHW; equal to
    onnx's reference evaluator and to the unoptimised session."""
    from onnx.reference import ReferenceEvaluator

    pool = helper.make_node(kind, ["r"], ["p"], name="pool", **kw)
    x, y, inits, nodes = _head_model(pool, h)
    c = 3 * C0
    m0 = helper.make_model(helper.make_graph(nodes[:4], "head", [x], [helper.make_tensor_value_info(
        "p", TensorProto.FLOAT, None)], inits[:3]), opset_imports=[helper.make_opsetid("", 17)])
    xv = RNG.standard_normal((batch, c, h, h)).astype(np.float32)
    feat = int(np.prod(ReferenceEvaluator(m0).run(None, {"x": xv})[0].shape[1:]))
    inits[3] = _w("fc", (5, feat))
    m = helper.make_model(helper.make_graph(nodes, "head", [x], [y], inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    s = asc.InferenceSession(m.SerializeToString())
    assert [n.op_type for n in s._model.nodes if "Pool" in n.op_type] == [kind + "NC1HWC0"]
    assert all(n.attr("out_block") == C0 for n in s._model.nodes if n.op_type == "FusedConv")
    so = asc.SessionOptions()
    so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    off = asc.InferenceSession(m.SerializeToString(), so)
    want = ReferenceEvaluator(m).run(None, {"x": xv})[0]
    tol = dict(rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(want).max())))
    for _ in range(2):
        got = s.run(None, {"x": xv})[0]
        np.testing.assert_allclose(got, want, **tol)
    np.testing.assert_allclose(got, off.run(None, {"x": xv})[0], **tol)


def test_head_pool_empty_batch():
    pool = helper.make_node("AveragePool", ["r"], ["p"], kernel_shape=[7, 7], name="pool")
    x, y, inits, nodes = _head_model(pool, 7)
    inits[3] = _w("fc", (5, 3 * C0))
    m = helper.make_model(helper.make_graph(nodes, "head", [x], [y], inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    s = asc.InferenceSession(m.SerializeToString())
    assert s.run(None, {"x": np.zeros((0, 3 * C0, 7, 7), np.float32)})[0].shape == (0, 5)


def test_prepared_calls_follow_shape_changes():
    """Model.run prepares each blocked FusedConv's call on the first run; a run with another batch
    (or spatial size) must re-prepare, not reuse the first run's shapes: every run equals onnx's
    reference evaluator."""
    from onnx.reference import ReferenceEvaluator

    m = small_resnet()
    ref = ReferenceEvaluator(m)
    s = asc.InferenceSession(m.SerializeToString())
    for batch in (2, 1, 3, 2):
        x = RNG.standard_normal((batch, 3, 32, 32)).astype(np.float32)
        want = ref.run(None, {"x": x})[0]
        got = s.run(None, {"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(want).max())))
    nodes = s._model.nodes
    prepared = sorted(nodes[i].op_type for i, f in s._model._prepared.items() if f is not None)
    # every FusedConv (all touch a blocked value), and the blocked pools and Gemm (arena writers)
    assert prepared.count("FusedConv") == 6
    assert set(prepared) - {"FusedConv"} <= {"MaxPoolNC1HWC0", "AveragePoolNC1HWC0", "GlobalAveragePoolNC1HWC0",
                                             "Gemm"}


def test_prepared_call_with_fed_weights():
    """An overridable initializer fed at run time keeps its convolution plain (assign_layouts) and
    the fed values are used on every run."""
    from onnx.reference import ReferenceEvaluator

    m = small_resnet()
    m.graph.input.append(helper.make_tensor_value_info("w4", TensorProto.FLOAT, [64, 64, 3, 3]))
    ref = ReferenceEvaluator(m)
    s = asc.InferenceSession(m.SerializeToString())
    x = RNG.standard_normal((2, 3, 32, 32)).astype(np.float32)
    for k in range(2):
        w4 = (RNG.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)
        want = ref.run(None, {"x": x, "w4": w4})[0]
        got = s.run(None, {"x": x, "w4": w4})[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(want).max())))
