"""Layout assignment through layout-transparent nodes (models/_passes.py assign_layouts): channel
Concats (SqueezeNet's fire modules, Inception's branches, DenseNet's joins), unary activations and
elementwise ops over activations keep NC1HWC0 values blocked. Every graph is checked against onnx's
reference evaluator and the unoptimised session; the pass's choices are checked on the graph."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc import _C  # noqa: E402

RNG = np.random.default_rng(41)
C0 = _C.nn.preferred_block()
pytestmark = pytest.mark.skipif(C0 == 0, reason="oneDNN prefers a plain layout on this CPU")


def _w(name, shape):
    a = RNG.standard_normal(shape) * np.sqrt(2.0 / max(1, int(np.prod(shape[1:]))))
    return numpy_helper.from_array(a.astype(np.float32), name)


def _conv(x, w, y, k=1, **kw):
    pads = [k // 2] * 4
    return helper.make_node("Conv", [x, w], [y], name=y, pads=pads, **kw)


def _model(nodes, inits, cin=C0, h=9, outs=("y",), opset=17):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", cin, h, h])
    ys = [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["d0", "d1", "d2", "d3"]) for o in outs]
    return helper.make_model(helper.make_graph(nodes, "g", [x], ys, inits),
                             opset_imports=[helper.make_opsetid("", opset)])


def _check(m, cin=C0, h=9, batches=(1, 3)):
    from onnx.reference import ReferenceEvaluator

    s = asc.InferenceSession(m.SerializeToString())
    so = asc.SessionOptions()
    so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    off = asc.InferenceSession(m.SerializeToString(), so)
    ref = ReferenceEvaluator(m)
    for batch in batches:
        x = RNG.standard_normal((batch, cin, h, h)).astype(np.float32)
        want = ref.run(None, {"x": x})
        for _ in range(2):  # the second run takes the prepared calls
            got = s.run(None, {"x": x})
            for g, w in zip(got, want):
                tol = dict(rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(w).max())))
                np.testing.assert_allclose(g, w, **tol)
        for g, p in zip(got, off.run(None, {"x": x})):
            np.testing.assert_allclose(g, p, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(p).max())))
    return s


def _by_name(s):
    return {n.name: n for n in s._model.nodes}


def _fire(prefix, x, squeeze, expand):
    """SqueezeNet's fire module: squeeze 1x1 + relu, expand 1x1 + relu and 3x3 + relu, Concat."""
    p = prefix
    nodes = [_conv(x, f"{p}sw", f"{p}s"), helper.make_node("Relu", [f"{p}s"], [f"{p}sr"], name=f"{p}sr"),
             _conv(f"{p}sr", f"{p}aw", f"{p}a"), helper.make_node("Relu", [f"{p}a"], [f"{p}ar"], name=f"{p}ar"),
             _conv(f"{p}sr", f"{p}bw", f"{p}b", k=3), helper.make_node("Relu", [f"{p}b"], [f"{p}br"], name=f"{p}br"),
             helper.make_node("Concat", [f"{p}ar", f"{p}br"], [f"{p}cat"], axis=1, name=f"{p}cat")]
    return nodes, [f"{p}sw", f"{p}aw", f"{p}bw"], [(squeeze, None, 1), (expand, squeeze, 1), (expand, squeeze, 3)]


def test_squeezenet_fire_modules_stay_blocked():
    """stem -> fire -> fire -> conv -> GlobalAveragePool: both Concats blocked, so every conv between
    the stem and the head reads and writes NC1HWC0 (the head's pool reads it too)."""
    cin = C0
    n1, w1, s1 = _fire("f1_", "stem", C0, 2 * C0)
    n2, w2, s2 = _fire("f2_", "f1_cat", C0, 2 * C0)
    nodes = [_conv("x", "stem_w", "stem", k=3), *n1, *n2, _conv("f2_cat", "head_w", "head"),
             helper.make_node("GlobalAveragePool", ["head"], ["y"], name="gap")]
    inits = [_w("stem_w", (2 * C0, cin, 3, 3))]
    for names, shapes, cin_fire in ((w1, s1, 2 * C0), (w2, s2, 4 * C0)):
        for nm, (oc, ic, k) in zip(names, shapes):
            inits.append(_w(nm, (oc, ic if ic else cin_fire, k, k)))
    inits.append(_w("head_w", (3 * C0, 4 * C0, 1, 1)))
    s = _check(_model(nodes, inits, cin))
    by = _by_name(s)
    assert by["f1_cat"].attrs["axis"] == 1 and by["f2_cat"].attrs["axis"] == 1
    convs = [n for n in s._model.nodes if n.op_type == "FusedConv"]
    assert [(n.attr("in_block"), n.attr("out_block")) for n in convs] == [(0, C0)] + [(C0, C0)] * 7
    assert by["gap"].op_type == "GlobalAveragePoolNC1HWC0"
    # 2 Concats + stem + 6 fire convs + head: every activation between the stem and the pool
    assert s.graph_rewrites["assign_layouts"] == 10


def test_inception_branches_concat_then_max_pool():
    """Inception's module: four branches (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3/1 max pool -> 1x1) joined by
    a Concat with axis -3, then a 3x3/2 max pool and a conv: blocked all the way, the Concat's axis
    rewritten to C1's."""
    nodes = [_conv("x", "w0", "s"), helper.make_node("Relu", ["s"], ["sr"], name="sr"),
             _conv("sr", "wa", "a"),
             _conv("sr", "wb1", "b1"), _conv("b1", "wb2", "b2", k=3),
             _conv("sr", "wc1", "c1"), _conv("c1", "wc2", "c2", k=5),
             helper.make_node("MaxPool", ["sr"], ["dp"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="dp"),
             _conv("dp", "wd", "d"),
             helper.make_node("Concat", ["a", "b2", "c2", "d"], ["cat"], axis=-3, name="cat"),
             helper.make_node("MaxPool", ["cat"], ["p"], kernel_shape=[3, 3], strides=[2, 2], name="p"),
             _conv("p", "wz", "y")]
    c = C0
    inits = [_w("w0", (2 * c, c, 1, 1)), _w("wa", (c, 2 * c, 1, 1)), _w("wb1", (c, 2 * c, 1, 1)),
             _w("wb2", (2 * c, c, 3, 3)), _w("wc1", (c, 2 * c, 1, 1)), _w("wc2", (c, c, 5, 5)),
             _w("wd", (c, 2 * c, 1, 1)), _w("wz", (c + 3, 5 * c, 1, 1))]
    s = _check(_model(nodes, inits))
    by = _by_name(s)
    assert by["cat"].attrs["axis"] == 1
    assert by["p"].op_type == "MaxPoolNC1HWC0" and by["dp"].op_type == "MaxPoolNC1HWC0"
    assert by["y"].attr("in_block") == C0 and by["y"].attr("out_block") == 0  # 3 + C0 channels: NCHW out


def test_elementwise_over_activations_stays_blocked():
    """Swish (x * sigmoid(x)), a Clip with scalar bounds, and an Add of a (N, C, H, W) and a (N, C, 1, 1)
    activation (broadcast over H, W commutes with blocking) between blocked convolutions."""
    c = 2 * C0
    nodes = [_conv("x", "w0", "a"),
             helper.make_node("Sigmoid", ["a"], ["sa"], name="sa"),
             helper.make_node("Mul", ["a", "sa"], ["sw"], name="swish"),
             helper.make_node("Clip", ["sw", "lo", "hi"], ["cl"], name="clip"),
             _conv("cl", "w1", "b", k=3),
             helper.make_node("GlobalAveragePool", ["b"], ["g"], name="g"),  # a reader that is not blocked
             helper.make_node("Conv", ["cl", "w2"], ["e"], name="e"),          # 9x9 over 9x9: (N, c, 1, 1)
             helper.make_node("Add", ["b", "e"], ["sum"], name="add"),
             _conv("e", "w3", "f"),
             helper.make_node("Max", ["sum", "f"], ["mx"], name="mx"),
             _conv("mx", "w4", "y")]
    inits = [_w("w0", (c, C0, 1, 1)), _w("w1", (c, c, 3, 3)), _w("w2", (c, c, 9, 9)), _w("w3", (c, c, 1, 1)),
             _w("w4", (C0, c, 1, 1)), numpy_helper.from_array(np.array(-0.5, np.float32), "lo"),
             numpy_helper.from_array(np.array(1.5, np.float32), "hi")]
    s = _check(_model(nodes, inits, outs=("y", "g")))
    by = _by_name(s)
    assert by["a"].attr("out_block") == C0 and by["b"].attr("in_block") == C0
    assert by["y"].attr("in_block") == C0 and by["g"].op_type == "GlobalAveragePoolNC1HWC0"


def test_constant_operand_or_plain_member_keeps_group_plain():
    """Mul by a per-channel constant (not transparent) and a Concat with the graph input as a part
    (the input is NCHW) leave their values plain; the rest of the graph still blocks."""
    c = C0
    nodes = [_conv("x", "w0", "a"), helper.make_node("Relu", ["a"], ["ar"], name="ar"),
             helper.make_node("Concat", ["ar", "x"], ["cat"], axis=1, name="cat"),
             _conv("cat", "w1", "b"), helper.make_node("Mul", ["b", "scale"], ["m"], name="m"),
             _conv("m", "w2", "d"), helper.make_node("Relu", ["d"], ["dr"], name="dr"), _conv("dr", "w3", "y")]
    inits = [_w("w0", (c, c, 1, 1)), _w("w1", (c, 2 * c, 1, 1)), _w("w2", (c, c, 1, 1)), _w("w3", (c, c, 1, 1)),
             numpy_helper.from_array(RNG.uniform(0.5, 1.5, (1, c, 1, 1)).astype(np.float32), "scale")]
    s = _check(_model(nodes, inits))
    by = _by_name(s)
    assert by["cat"].attrs["axis"] == 1 and by["cat"].op_type == "Concat"
    # 'a' is read by the plain Concat: NCHW; the Mul folded into conv b (fold_scale_shift) and d -> y blocked
    assert by["a"].attr("out_block", 0) == 0
    assert by["y"].attr("in_block") == C0


def test_channels_not_divisible_concat_stays_plain():
    c = C0
    nodes = [_conv("x", "w0", "a"), _conv("x", "w1", "b"),
             helper.make_node("Concat", ["a", "b"], ["cat"], axis=1, name="cat"), _conv("cat", "w2", "y")]
    inits = [_w("w0", (c, c, 1, 1)), _w("w1", (3, c, 1, 1)), _w("w2", (c, c + 3, 1, 1))]
    s = _check(_model(nodes, inits))
    assert s.graph_rewrites["assign_layouts"] == 0
    nodes[2] = helper.make_node("Concat", ["a", "b"], ["cat"], axis=2, name="cat")  # not the channel axis
    inits[1], inits[2] = _w("w1", (c, c, 1, 1)), _w("w2", (c, c, 1, 1))
    s = _check(_model(nodes, inits))
    assert _by_name(s)["cat"].attrs["axis"] == 2 and s.graph_rewrites["assign_layouts"] == 0


def test_lazy_reader_blocks_in_place_residual():
    """A residual also read by a lazy elementwise node whose result is used after the residual's
    convolution: the convolution must not write into the residual's buffer (the deferred Sigmoid
    would read the overwritten values)."""
    c = C0
    nodes = [_conv("x", "w0", "s0"), _conv("x", "w3", "p", k=3),
             helper.make_node("Sigmoid", ["s0"], ["t"], name="t"),
             _conv("p", "w1", "a", k=3),
             helper.make_node("Add", ["a", "s0"], ["r"], name="add"),       # fused: residual s0, last reader
             helper.make_node("Add", ["r", "t"], ["u"], name="late"),        # t read only now
             _conv("u", "w2", "y")]
    inits = [_w("w0", (c, c, 1, 1)), _w("w1", (c, c, 3, 3)), _w("w2", (c, c, 1, 1)), _w("w3", (c, c, 3, 3))]
    s = _check(_model(nodes, inits))
    assert not any(n.attr("residual_inplace") for n in s._model.nodes)
    assert _by_name(s)["t"].op_type == "Sigmoid" and _by_name(s)["a"].attr("out_block") == C0


def test_saved_optimized_graph_roundtrips(tmp_path):
    """An optimised graph with a blocked Concat (axis 1 over NC1HWC0) saved and loaded again."""
    c = C0
    nodes = [_conv("x", "w0", "a"), _conv("x", "w1", "b", k=3),
             helper.make_node("Concat", ["a", "b"], ["cat"], axis=-3, name="cat"), _conv("cat", "w2", "y")]
    inits = [_w("w0", (c, c, 1, 1)), _w("w1", (c, c, 3, 3)), _w("w2", (c, 2 * c, 1, 1))]
    m = _model(nodes, inits)
    so = asc.SessionOptions()
    so.optimized_model_filepath = str(tmp_path / "opt.onnx")
    s = asc.InferenceSession(m.SerializeToString(), so)
    assert s.graph_rewrites["assign_layouts"] == 3
    x = RNG.standard_normal((2, c, 9, 9)).astype(np.float32)
    again = asc.InferenceSession(str(tmp_path / "opt.onnx"))
    np.testing.assert_allclose(again.run(None, {"x": x})[0], s.run(None, {"x": x})[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["squeezenet", "inception_v1", "densenet121"])
def test_light_models_blocked_joins_equal_unoptimised(name):
    """Model-zoo CNNs whose joins are Concats: more values blocked than before this pass knew
    Concat, outputs equal to the unoptimised session (itself checked against the reference
    evaluator in test_session)."""
    from light_models import light_models, with_random_weights

    models = light_models()
    m = with_random_weights(models[name], seed=7)
    so = asc.SessionOptions()
    so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    off = asc.InferenceSession(m.SerializeToString(), so)
    on = asc.InferenceSession(m.SerializeToString())
    cats = [n for n in on._model.nodes if n.op_type == "Concat"]
    assert cats and any(n.attrs.get("axis") == 1 for n in cats)
    i = on.get_inputs()[0]
    x = np.random.default_rng(8).standard_normal([d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32)
    a, b = on.run(None, {i.name: x})[0], off.run(None, {i.name: x})[0]
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * float(np.abs(b).max()))


@pytest.mark.parametrize("kw,blocked_out", [
    (dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), True),                        # Inception v2's branch pool
    (dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1), True),
    (dict(kernel_shape=[2, 2], strides=[2, 2]), True),                           # DenseNet's transition
    (dict(kernel_shape=[3, 2], strides=[2, 1], pads=[0, 1, 2, 0]), True),
    (dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1), False),             # the plain operator's rule
])
def test_inner_average_pool_keeps_blocked_output(kw, blocked_out):
    c = 2 * C0
    nodes = [_conv("x", "w0", "a", k=3), helper.make_node("Relu", ["a"], ["ar"], name="ar"),
             helper.make_node("AveragePool", ["ar"], ["p"], name="p", **kw), _conv("p", "w1", "y")]
    inits = [_w("w0", (c, C0, 3, 3)), _w("w1", (C0, c, 1, 1))]
    s = _check(_model(nodes, inits))
    by = _by_name(s)
    assert by["p"].op_type == "AveragePoolNC1HWC0"
    assert by["p"].attr("out_block", 0) == (C0 if blocked_out else 0)
    assert by["y"].attr("in_block", 0) == (C0 if blocked_out else 0)


@pytest.mark.parametrize("variant", ["bn_mul_add", "sub", "scalar_mul", "bn_only"])
def test_densenet_layer_channel_affine(variant):
    """DenseNet's layer: Concat -> BatchNormalization -> Mul -> Add (Caffe's scale) -> Relu -> conv, the
    affine nodes composed into one blocked ChannelAffineNC1HWC0 with blocked constants."""
    c = C0
    stats = [numpy_helper.from_array(v.astype(np.float32), nm) for nm, v in (
        ("g", RNG.uniform(0.5, 1.5, 2 * c)), ("be", RNG.uniform(-0.3, 0.3, 2 * c)),
        ("mu", RNG.uniform(-0.3, 0.3, 2 * c)), ("var", RNG.uniform(0.5, 1.5, 2 * c)))]
    sc = numpy_helper.from_array(RNG.uniform(0.5, 1.5, (2 * c, 1, 1)).astype(np.float32), "sc")
    sh = numpy_helper.from_array(RNG.uniform(-0.3, 0.3, (1, 2 * c, 1, 1)).astype(np.float32), "sh")
    two = numpy_helper.from_array(np.array([1.75], np.float32), "two")
    nodes = [_conv("x", "w0", "a"), _conv("x", "w1", "b", k=3),
             helper.make_node("Concat", ["a", "b"], ["cat"], axis=1, name="cat")]
    if variant == "bn_mul_add":
        nodes += [helper.make_node("BatchNormalization", ["cat", "g", "be", "mu", "var"], ["bn"], name="bn"),
                  helper.make_node("Mul", ["sc", "bn"], ["ml"], name="ml"),
                  helper.make_node("Add", ["ml", "sh"], ["af"], name="af")]
        fused = ["bn", "ml", "af"]
    elif variant == "sub":
        nodes += [helper.make_node("Sub", ["cat", "sh"], ["af"], name="af")]
        fused = ["af"]
    elif variant == "scalar_mul":
        nodes += [helper.make_node("Mul", ["cat", "two"], ["af"], name="af")]
        fused = ["af"]
    else:
        nodes += [helper.make_node("BatchNormalization", ["cat", "g", "be", "mu", "var"], ["af"], name="af",
                                   epsilon=1e-3)]
        fused = ["af"]
    nodes += [helper.make_node("Relu", ["af"], ["r"], name="r"), _conv("r", "w2", "y")]
    inits = [_w("w0", (c, c, 1, 1)), _w("w1", (c, c, 3, 3)), _w("w2", (c, 2 * c, 1, 1)), *stats, sc, sh, two]
    s = _check(_model(nodes, inits))
    aff = [n for n in s._model.nodes if n.op_type == "ChannelAffineNC1HWC0"]
    assert len(aff) == 1 and aff[0].attrs["fused_nodes"] == fused
    for x in aff[0].inputs[1:]:
        if x and np.asarray(s._model.constants[x]).ndim:
            assert np.asarray(s._model.constants[x]).shape == (1, 2, 1, 1, C0)
    assert _by_name(s)["y"].attr("in_block") == C0


def test_channel_affine_checks_channels():
    from pyasc.models import _onnx_nn
    from pyasc.models._registry import Node

    node = Node("aff", "ChannelAffineNC1HWC0", "ai.pyasc", 1, {}, ["x", "s", ""], ["y"])
    x = asc.asarray(np.ones((1, 1, 2, 2, C0), np.float32))
    s = asc.asarray(np.full((1, 2, 1, 1, C0), 2.0, np.float32))
    with pytest.raises(asc.AscendValueError, match=r"aff.*\(1, 2, 1, 1, .*\(1, 1, 2, 2"):
        _onnx_nn._channel_affine_blocked(node, [x, s, None])
    ok = _onnx_nn._channel_affine_blocked(node, [x, s[:, :1], None])
    np.testing.assert_array_equal(np.asarray(ok), np.full((1, 1, 2, 2, C0), 2.0, np.float32))
