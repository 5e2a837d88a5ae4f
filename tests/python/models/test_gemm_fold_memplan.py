"""Gemm + BatchNormalization folding and the static memory plan (``InferenceSession.peak_bytes``).

The folded graphs are compared with onnx's reference evaluator on the original model; the plan is
checked independently: no two buffers alive at the same node overlap in the arena, the arena is
no larger than the sum of all buffers and no smaller than the largest set alive at once.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyasc as asc


def _gemm_bn(trans_b, c_shape, alpha=1.0, beta=1.0, k=6, n_in=5, batch=3, seed=0):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = rng.standard_normal((k, n_in) if trans_b else (n_in, k)).astype(np.float32)
    inits = [numpy_helper.from_array(w, "W")]
    ins = ["x", "W"]
    if c_shape is not None:
        inits.append(numpy_helper.from_array(rng.standard_normal(c_shape).astype(np.float32), "C"))
        ins.append("C")
    for name, v in (("scale", rng.uniform(0.5, 1.5, k)), ("shift", rng.uniform(-1, 1, k)),
                    ("mean", rng.uniform(-1, 1, k)), ("var", rng.uniform(0.5, 2, k))):
        inits.append(numpy_helper.from_array(v.astype(np.float32), name))
    nodes = [helper.make_node("Gemm", ins, ["g"], transB=int(trans_b), alpha=alpha, beta=beta),
             helper.make_node("BatchNormalization", ["g", "scale", "shift", "mean", "var"], ["y"], epsilon=1e-3)]
    g = helper.make_graph(nodes, "gemm_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, n_in])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, k])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def _ref(proto, feed):
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(proto).run(None, feed)


@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize("c_shape,alpha,beta", [((6,), 1.0, 1.0), ((1, 6), 0.5, 2.0), ((), 1.0, 0.7),
                                                 ((1,), 1.3, 1.0), (None, 2.0, 1.0)])
def test_gemm_batchnorm_folded(trans_b, c_shape, alpha, beta):
    proto = _gemm_bn(trans_b, c_shape, alpha, beta)
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    sess = asc.InferenceSession(proto.SerializeToString())
    assert sess.graph_rewrites["fold_batch_norm_gemm"] == 1
    got = sess.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, _ref(proto, {"x": x})[0], rtol=1e-5, atol=1e-5)
    off = asc.SessionOptions()
    off.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    np.testing.assert_allclose(got, asc.InferenceSession(proto.SerializeToString(), off).run(None, {"x": x})[0],
                               rtol=1e-5, atol=1e-5)


def test_gemm_batchnorm_not_folded_when_bias_has_rows():
    proto = _gemm_bn(1, (3, 6))  # C varies per row: not a per-column bias
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    sess = asc.InferenceSession(proto.SerializeToString())
    assert sess.graph_rewrites["fold_batch_norm_gemm"] == 0
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], _ref(proto, {"x": x})[0], rtol=1e-5, atol=1e-5)


def _check_plan(plan):
    bufs = list(plan.buffers.values())
    assert bufs
    for i, (o1, b1, f1, l1) in enumerate(bufs):
        assert o1 % 64 == 0 and o1 + b1 <= plan.peak_bytes
        for o2, b2, f2, l2 in bufs[i + 1:]:
            if f1 <= l2 and f2 <= l1 and b1 and b2:  # alive together: disjoint bytes
                assert o1 + b1 <= o2 or o2 + b2 <= o1
    assert plan.live_peak_bytes <= plan.peak_bytes <= plan.naive_bytes


def test_memory_plan_light_model():
    from light_models import light_models, with_random_weights

    proto = with_random_weights(light_models()["squeezenet"], seed=2)
    sess = asc.InferenceSession(proto.SerializeToString())
    assert sess.peak_bytes is None  # planned from the first run's shapes
    name = sess.get_inputs()[0].name
    sess.run(None, {name: np.zeros((1, 3, 224, 224), np.float32)})
    plan = sess.memory_plan()
    _check_plan(plan)
    assert sess.peak_bytes == plan.peak_bytes
    assert plan.peak_bytes < plan.naive_bytes / 3  # lifetimes reuse most of the memory
    # SqueezeNet 1.1's conv1 output (64 x 111 x 111 float32) is its largest value
    assert max(b for _, b, _, _ in plan.buffers.values()) == 64 * 111 * 111 * 4
    # an explicit feed re-plans for its shapes
    plan2 = sess.memory_plan({name: np.zeros((1, 3, 224, 224), np.float32)})
    assert plan2.peak_bytes == plan.peak_bytes


def test_memory_plan_chain():
    """A chain a -> b -> c -> d of equal sizes needs two buffers (ping-pong), not four."""
    import onnx
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["a"], ["b"]),
             helper.make_node("Abs", ["b"], ["c"]), helper.make_node("Neg", ["c"], ["y"])]
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    off = asc.SessionOptions()
    off.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = asc.InferenceSession(m.SerializeToString(), off)
    x = np.linspace(-1, 1, 256).astype(np.float32)
    np.testing.assert_array_equal(sess.run(None, {"x": x})[0], -np.abs(-np.maximum(x, 0)))
    plan = sess.memory_plan()
    _check_plan(plan)
    assert plan.naive_bytes == 4 * 1024 and plan.peak_bytes == 2 * 1024
