"""``out=`` of the blocked pool kernels (src/nn/pool.cc max_pool_blocked / avg_pool_blocked) and the
executor's pools and Gemm writing into the run's memory arena (Model.run, _memplan).

Kernels: the result written into ``out`` is bit-equal to the kernel's own allocation and is that
buffer; every bad ``out`` (shape, dtype, layout, read-only, overlapping the input, not a pyasc
array) is refused with an error naming it before anything is written. Executor: the pools and the
classifier's Gemm of a small CNN get arena slots, results equal the arena-off session and onnx's
reference evaluator over alternating inputs, and a steady-state run allocates fewer blocks."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc import _C  # noqa: E402
from pyasc.models import _onnx_nn  # noqa: E402

RNG = np.random.default_rng(41)
HAS_OUT = _onnx_nn.blocked_pool_accepts_out()
pytestmark = pytest.mark.skipif(not HAS_OUT, reason="this build's blocked pools take no out=")

MAX_ARGS = ([3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "MaxPool")
AVG_ARGS = ([3, 3], [2, 2], [1, 0], [0, 1], False, "AveragePool")


def _blocked(shape, dtype=np.float32):
    return asc.array(RNG.standard_normal(shape).astype(dtype))


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("c0,dtype", [(8, np.float32), (16, np.float32), (3, np.float32), (8, np.float64),
                                      (8, np.float16)])
def test_out_equals_allocated_and_is_the_buffer(kind, c0, dtype):
    fn, args = (_C.nn.max_pool_blocked, MAX_ARGS) if kind == "max" else (_C.nn.avg_pool_blocked, AVG_ARGS)
    x = _blocked((2, 3, 9, 7, c0), dtype)
    want = fn(x, *args)
    arena = asc.array(np.full(want.size + 40, 7.0, dtype))
    out = arena[16:16 + want.size].reshape(want.shape)
    got = fn(x, *args, out)
    assert got.shape == want.shape and asc.shares_memory(got, out)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want))
    # nothing written outside the slot
    np.testing.assert_array_equal(np.asarray(arena[:16]), 7.0)
    np.testing.assert_array_equal(np.asarray(arena[16 + want.size:]), 7.0)


def test_out_from_a_non_contiguous_input_and_an_empty_batch():
    base = _blocked((2, 3, 9, 7, 16))
    x = base[..., ::2]  # C0 8 from a strided view
    want = _C.nn.max_pool_blocked(asc.ascontiguousarray(x), *MAX_ARGS)
    out = asc.empty(want.shape, dtype="float32")
    _C.nn.max_pool_blocked(x, *MAX_ARGS, out)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(want))
    e = asc.empty((0, 3, 9, 7, 8), dtype="float32")
    out = asc.empty((0, 3, 4, 3, 8), dtype="float32")  # (9 + 1 - 3) // 2 + 1, (7 + 1 - 3) // 2 + 1
    assert _C.nn.avg_pool_blocked(e, *AVG_ARGS, out).shape == (0, 3, 4, 3, 8)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_bad_out_is_refused_before_any_write(kind):
    fn, args = (_C.nn.max_pool_blocked, MAX_ARGS) if kind == "max" else (_C.nn.avg_pool_blocked, AVG_ARGS)
    op = args[-1]
    x = _blocked((1, 2, 9, 7, 8))
    oshape = tuple(fn(x, *args).shape)

    def fresh(shape=oshape, dtype=np.float32):
        return asc.array(np.full(shape, 3.0, dtype))

    big = fresh(oshape[:-1] + (16,))
    cases = [
        (fresh(oshape[:2] + (6, 6, 8)), asc.AscendValueError,
         rf"\[{op}\] out must have the output's shape \(1, 2, {oshape[2]}, {oshape[3]}, 8\), got \(1, 2, 6, 6, 8\)"),
        (fresh(dtype=np.float64), asc.AscendTypeError, rf"\[{op}\] out dtype float64 does not match the input's float32"),
        (big[..., ::2], asc.AscendValueError, rf"\[{op}\] out must be C-contiguous"),
    ]
    for out, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            fn(x, *args, out)
        np.testing.assert_array_equal(np.asarray(out), 3.0)
    ro = fresh()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fn(x, *args, ro)
    np.testing.assert_array_equal(np.asarray(ro), 3.0)
    with pytest.raises(asc.AscendTypeError, match=rf"\[{op}\] out must be a pyasc.ndarray, got ndarray"):
        fn(x, *args, np.zeros(oshape, np.float32))
    # the output overlapping the input: rows would read what others already wrote
    n_in, n_out = int(np.prod(x.shape)), int(np.prod(oshape))
    arena = asc.array(np.zeros(n_in + n_out, np.float32))
    xa = arena[:n_in].reshape(x.shape)
    xa[...] = x
    with pytest.raises(asc.AscendValueError, match=rf"\[{op}\] out shares memory with the input"):
        fn(xa, *args, arena[n_in - 8:n_in - 8 + n_out].reshape(oshape))
    np.testing.assert_array_equal(np.asarray(xa), np.asarray(x))
    # adjacent, not overlapping: accepted
    fn(xa, *args, arena[n_in:].reshape(oshape))
    np.testing.assert_array_equal(np.asarray(arena[n_in:].reshape(oshape)), np.asarray(fn(x, *args)))


# ------------------------------------------------------------------ the executor

def _cnn(pool_out_blocked=True):
    """conv -> relu -> maxpool -> conv -> avgpool(3x3 s1, stays blocked) -> conv -> GAP -> flatten
    -> Gemm (transB) -> Relu -> Gemm: every pool kind of assign_layouts and two Gemms."""
    c = 16
    f = lambda *s: RNG.standard_normal(s).astype(np.float32) * 0.3  # noqa: E731
    inits = [numpy_helper.from_array(f(c, 3, 3, 3), "w1"), numpy_helper.from_array(f(c, c, 3, 3), "w2"),
             numpy_helper.from_array(f(c, c, 1, 1), "w3"), numpy_helper.from_array(f(10, c), "g1"),
             numpy_helper.from_array(f(10), "g1b"), numpy_helper.from_array(f(10, 4), "g2"),
             numpy_helper.from_array(f(1, 4), "g2b")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("AveragePool", ["c2"], ["p2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["p2", "w3"], ["c3"]),
             helper.make_node("GlobalAveragePool", ["c3"], ["gp"]),
             helper.make_node("Flatten", ["gp"], ["fl"]),
             helper.make_node("Gemm", ["fl", "g1", "g1b"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["hr"]),
             helper.make_node("Gemm", ["hr", "g2", "g2b"], ["y"])]
    g = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def _sessions(m):
    data = m.SerializeToString()
    on, off = asc.InferenceSession(data), asc.InferenceSession(data)
    off._model.use_arena = False
    return on, off


@pytest.mark.skipif(_C.nn.preferred_block() == 0, reason="oneDNN prefers a plain layout on this CPU")
def test_pools_and_gemm_write_into_the_arena():
    from onnx.reference import ReferenceEvaluator

    m = _cnn()
    on, off = _sessions(m)
    ref = ReferenceEvaluator(m)
    xs = [RNG.standard_normal((2, 3, 16, 16)).astype(np.float32) for _ in range(3)]
    on.run(None, {"x": xs[0]})
    model = on._model
    lay = model.arena
    assert lay is not None
    writers = {model.nodes[i].op_type for i in lay.producers}
    assert {"MaxPoolNC1HWC0", "AveragePoolNC1HWC0", "GlobalAveragePoolNC1HWC0", "Gemm"} <= writers, writers
    for x in xs + xs[::-1]:
        got = on.run(None, {"x": x})[0]
        np.testing.assert_array_equal(got, off.run(None, {"x": x})[0])
        np.testing.assert_allclose(got, ref.run(None, {"x": x})[0], rtol=1e-4, atol=1e-5)
    # steady state: one block fewer per arena slot (aliases take none either way)
    per_run = []
    for s in (on, off):
        s.run(None, {"x": xs[0]})
        a0 = asc.memory_stats()["allocation_count"]
        for _ in range(3):
            s.run(None, {"x": xs[0]})
        per_run.append((asc.memory_stats()["allocation_count"] - a0) / 3)
    assert per_run[0] < per_run[1], per_run


def test_gemm_prepare_declines_what_linear_does_not_compute():
    from pyasc.models import _onnx_math
    from pyasc.models._registry import Node

    a = asc.array(RNG.standard_normal((2, 3)).astype(np.float32))
    b = asc.array(RNG.standard_normal((3, 4)).astype(np.float32))
    c = asc.array(RNG.standard_normal((4,)).astype(np.float32))

    def node(**attrs):
        return Node("g", "Gemm", "", 13, attrs, ["a", "b", "c"], ["y"])

    assert _onnx_math._gemm_prepare(node(transA=1), [a.T, b, c]) is None
    assert _onnx_math._gemm_prepare(node(alpha=2.0), [a, b, c]) is None
    assert _onnx_math._gemm_prepare(node(beta=0.5), [a, b, c]) is None
    grow = asc.array(RNG.standard_normal((5, 4)).astype(np.float32))  # would grow the output
    assert _onnx_math._gemm_prepare(node(), [a, b, grow]) is None
    run = _onnx_math._gemm_prepare(node(), [a, b, c])
    want = np.asarray(a) @ np.asarray(b) + np.asarray(c)
    np.testing.assert_allclose(np.asarray(run([a, b, c])), want, rtol=1e-6)
    out = asc.empty((2, 4), dtype="float32")
    assert asc.shares_memory(run([a, b, c], out), out)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
    # beta 0 ignores C; another B or another A shape: not this call
    run0 = _onnx_math._gemm_prepare(node(beta=0.0), [a, b, c])
    np.testing.assert_allclose(np.asarray(run0([a, b, c])), np.asarray(a) @ np.asarray(b), rtol=1e-6)
    assert run([a, asc.array(np.asarray(b)), c]) is None
    assert run([asc.array(np.ones((3, 3), np.float32)), b, c]) is None
