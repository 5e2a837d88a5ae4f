"""Graph passes at load (models/_passes.py): BatchNorm folded into Conv, Conv + activation (+ residual
Add) fused into ai.pyasc.FusedConv -- outputs equal to onnx's reference evaluator and to the same
model run without the passes; what must not fuse stays unfused; ASCEND_DUMP_GRAPH dumps."""

import glob
import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import pyasc as asc  # noqa: E402

from light_models import light_models, with_random_weights  # noqa: E402

RNG = np.random.default_rng(7)


def _init(name, shape, kind="w"):
    if kind == "var":
        a = RNG.uniform(0.5, 1.5, shape)
    elif kind == "w":
        a = RNG.standard_normal(shape) * np.sqrt(2.0 / max(1, int(np.prod(shape[1:]))))
    else:
        a = RNG.uniform(-0.5, 0.5, shape)
    return numpy_helper.from_array(a.astype(np.float32), name)


def _bn(prefix, c):
    return [_init(f"{prefix}_s", (c,), "var"), _init(f"{prefix}_b", (c,), "b"), _init(f"{prefix}_m", (c,), "b"),
            _init(f"{prefix}_v", (c,), "var")]


def resnet_block(act="Relu", act_attrs=None, extra_nodes=(), extra_outputs=(), clip=None, dims=2):
    """x -> Conv(+bias) -> BN -> act -> Conv -> BN -> Add(x) -> act: a ResNet basic block."""
    c, k = 4, [3] * dims
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", c] + [6] * dims)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [f"d{i}" for i in range(2 + dims)])
    inits = [_init("w1", (c, c, *k)), _init("b1", (c,), "b"), _init("w2", (c, c, *k))] + _bn("bn1", c) + _bn("bn2", c)
    a = dict(act_attrs or {})
    act_in = ["t1"]
    if clip is not None:
        inits += [numpy_helper.from_array(np.float32(clip[0]), "lo"), numpy_helper.from_array(np.float32(clip[1]), "hi")]
        act_in = ["t1", "lo", "hi"]
    pads = [1] * (2 * dims)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=pads, name="conv1"),
             helper.make_node("BatchNormalization", ["c1", "bn1_s", "bn1_b", "bn1_m", "bn1_v"], ["t1"], name="bn1",
                              epsilon=1e-3),
             helper.make_node(act, act_in, ["a1"], name="act1", **a),
             helper.make_node("Conv", ["a1", "w2"], ["c2"], pads=pads, name="conv2"),
             helper.make_node("BatchNormalization", ["c2", "bn2_s", "bn2_b", "bn2_m", "bn2_v"], ["t2"], name="bn2"),
             helper.make_node("Add", ["t2", "x"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["y"], name="relu_out"), *extra_nodes]
    outs = [y] + [helper.make_tensor_value_info(o, TensorProto.FLOAT, [f"d{i}" for i in range(2 + dims)])
                  for o in extra_outputs]
    g = helper.make_graph(nodes, "block", [x], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _run_both(m, x):
    from onnx.reference import ReferenceEvaluator

    s = asc.InferenceSession(m.SerializeToString())
    got = s.run(None, {"x": x})
    want = ReferenceEvaluator(m).run(None, {"x": x})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(w).max())))
    return s


def _optimized_ops(s, tmp_path):
    """The op types of the graph as it runs (what SessionOptions.optimized_model_filepath writes)."""
    return [n.op_type for n in s._model.to_proto().graph.node]


X = RNG.standard_normal((2, 4, 6, 6)).astype(np.float32)


def test_resnet_block_folds_and_fuses(tmp_path):
    s = _run_both(resnet_block(), X)
    assert s.graph_rewrites == {"fold_batch_norm": 2, "fold_batch_norm_gemm": 0, "fold_scale_shift": 0, "fuse_conv": 3,
                                "assign_layouts": 0}
    # conv1 + bn1 + relu -> FusedConv; conv2 + bn2 + add + relu -> FusedConv (residual x, relu)
    assert _optimized_ops(s, tmp_path) == ["FusedConv", "FusedConv"]


@pytest.mark.parametrize("act,attrs,clip", [("LeakyRelu", {"alpha": 0.2}, None), ("Sigmoid", {}, None),
                                            ("Tanh", {}, None), ("Elu", {"alpha": 0.7}, None),
                                            ("Clip", {}, (0.0, 6.0)), ("Clip", {}, (-1.0, 1.0))])
def test_activations_fuse_only_when_they_map(act, attrs, clip, tmp_path):
    s = _run_both(resnet_block(act, attrs, clip=clip), X)
    ops = _optimized_ops(s, tmp_path)
    if clip == (-1.0, 1.0):  # no conv activation is clip(-1, 1): it stays a node
        assert ops == ["Conv", "Clip", "FusedConv"]
    else:
        assert ops == ["FusedConv", "FusedConv"]


def test_conv1d_and_conv3d_blocks():
    _run_both(resnet_block(dims=1), RNG.standard_normal((2, 4, 6)).astype(np.float32))
    _run_both(resnet_block(dims=3), RNG.standard_normal((1, 4, 6, 6, 6)).astype(np.float32))


def test_observable_values_are_not_fused(tmp_path):
    # t1 (the BN output) is a graph output and c2 has a second reader: neither may disappear
    m = resnet_block(extra_nodes=[helper.make_node("Neg", ["c2"], ["negc2"], name="neg")],
                     extra_outputs=["t1", "negc2"])
    s = _run_both(m, X)
    # bn1 folds (the folded Conv writes t1 itself) but its Relu does not fuse (t1 must stay visible);
    # bn2 cannot fold into conv2, whose output c2 Neg reads too
    assert s.graph_rewrites == {"fold_batch_norm": 1, "fold_batch_norm_gemm": 0, "fold_scale_shift": 0, "fuse_conv": 0,
                                "assign_layouts": 0}
    assert _optimized_ops(s, tmp_path) == ["Conv", "Relu", "Conv", "BatchNormalization", "Add", "Relu", "Neg"]


@pytest.mark.parametrize("mul_shape,add_shape,folds", [((4, 1, 1), (1, 4, 1, 1), 2), ((), (4, 1, 1), 2),
                                                       ((1, 1, 6, 6), (4, 1, 1), 0), ((4, 1, 1), (6,), 1)])
def test_scale_shift_after_conv_folds(mul_shape, add_shape, folds, tmp_path):
    """Conv -> Mul(const) -> Add(const) -> Relu (Inception v2's / DenseNet's BatchNorm + Scale):
    per-channel and scalar constants fold into W and b; spatial ones (which broadcast along H/W) stay."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, 6, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, 6, 6])
    inits = [_init("w1", (4, 4, 3, 3)), _init("b1", (4,), "b"),
             numpy_helper.from_array(RNG.uniform(0.5, 2, mul_shape).astype(np.float32), "s"),
             numpy_helper.from_array(RNG.uniform(-1, 1, add_shape).astype(np.float32), "c")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Mul", ["s", "c1"], ["m"], name="mul"),
             helper.make_node("Add", ["m", "c"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["y"], name="relu")]
    m = helper.make_model(helper.make_graph(nodes, "ss", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    s = _run_both(m, X)
    assert s.graph_rewrites["fold_scale_shift"] == folds
    if folds == 2:
        assert _optimized_ops(s, tmp_path) == ["FusedConv"]


def test_broadcasting_residual_runs_unfused():
    # the residual is a [n, 4, 1, 1] value: FusedConv must fall back to conv + broadcast add + relu
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, 6, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, 6, 6])
    nodes = [helper.make_node("GlobalAveragePool", ["x"], ["g"], name="gap"),
             helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Add", ["g", "c"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["y"], name="relu")]
    m = helper.make_model(helper.make_graph(nodes, "bcast", [x], [y], [_init("w1", (4, 4, 3, 3))]),
                          opset_imports=[helper.make_opsetid("", 17)])
    s = _run_both(m, X)
    assert s.graph_rewrites["fuse_conv"] == 2


def test_passes_off_with_disable_all(tmp_path):
    so = asc.SessionOptions()
    so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    m = resnet_block()
    off = asc.InferenceSession(m.SerializeToString(), so)
    on = asc.InferenceSession(m.SerializeToString())
    assert off.graph_rewrites == {} and on.graph_rewrites["fuse_conv"] == 3
    np.testing.assert_allclose(on.run(None, {"x": X})[0], off.run(None, {"x": X})[0], rtol=1e-4, atol=1e-5)


def test_dump_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_DUMP_GRAPH", "1")
    monkeypatch.setenv("ASCEND_DUMP_GRAPH_PATH", str(tmp_path / "dump"))
    asc.InferenceSession(resnet_block().SerializeToString())
    # ASCEND_DUMP_GRAPH also makes the lazy array graph dump its programs (graph_*.dot/json) when
    # this is the first test of the process to compile one; only the model's dumps are checked here.
    files = sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "dump" / "*"))
                   if not os.path.basename(p).startswith("graph_"))
    assert len(files) == 4 and files[0].endswith("_0_loaded.onnx") and files[2].endswith("_1_optimized.onnx")
    before = onnx.load(str(tmp_path / "dump" / files[0]))
    after = onnx.load(str(tmp_path / "dump" / files[2]))
    assert len(before.graph.node) == 7 and [n.op_type for n in after.graph.node] == ["FusedConv", "FusedConv"]
    assert "rewrites {'fold_batch_norm': 2, 'fold_batch_norm_gemm': 0, 'fold_scale_shift': 0, 'fuse_conv': 3, 'assign_layouts': 0}" in open(tmp_path / "dump" / files[3]).read()


@pytest.mark.parametrize("name", ["resnet50", "inception_v2", "shufflenet"])
def test_light_models_same_with_and_without_passes(name):
    """Model-zoo CNNs with seeded weights: the optimised graph == the unoptimised one (1e-4 relative),
    the unoptimised one being checked against the reference evaluator in test_session."""
    models = light_models()
    m = with_random_weights(models[name], seed=5)
    so = asc.SessionOptions()
    so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    off = asc.InferenceSession(m.SerializeToString(), so)
    on = asc.InferenceSession(m.SerializeToString())
    assert on.graph_rewrites["fold_batch_norm"] > 0 and on.graph_rewrites["fuse_conv"] > 0
    i = on.get_inputs()[0]
    x = np.random.default_rng(6).standard_normal([d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32)
    a, b = on.run(None, {i.name: x})[0], off.run(None, {i.name: x})[0]
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * float(np.abs(b).max()))
    assert np.argmax(a) == np.argmax(b)


def test_overridable_weights_are_not_folded():
    """An initializer also listed as a graph input (IR >= 4) may be fed at run time: the passes must
    not bake it into a folded copy."""
    m = resnet_block()
    m.graph.input.append(helper.make_tensor_value_info("w1", TensorProto.FLOAT, [4, 4, 3, 3]))
    s = asc.InferenceSession(m.SerializeToString())
    assert s.graph_rewrites["fold_batch_norm"] == 1  # conv2's BatchNorm only
    w = np.full((4, 4, 3, 3), 0.05, np.float32)
    from onnx.reference import ReferenceEvaluator

    want = ReferenceEvaluator(m).run(None, {"x": X, "w1": w})[0]
    np.testing.assert_allclose(s.run(None, {"x": X, "w1": w})[0], want, rtol=1e-4, atol=1e-5)
