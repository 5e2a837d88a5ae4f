"""The lazy graph's gelu pass (src/graph/passes.cc): the erf GeLU subgraph
x * 0.5 * (1 + erf(x / sqrt 2)) and the tanh approximation, in their algebraic variants, become one
node running the built-in asc.ops.gelu kernel. Each variant must fire and give asc.ops.gelu's bits
(and stay within the composite's own error of the composite run without the pass); constants one
ulp off, intermediates used elsewhere or held by a tensor, other dtypes and mismatched operands must
not fire (then the results are the composite's, bit for bit). ASC_GRAPH_PASSES switches it."""

import json
import math

import numpy as np
import pytest

import pyasc as asc
from pyasc.profiler import Profiler

S2 = math.sqrt(2.0)
IS2 = 1.0 / math.sqrt(2.0)
C1 = math.sqrt(2.0 / math.pi)
C2 = 0.044715


@pytest.fixture(autouse=True)
def _lazy(monkeypatch):
    monkeypatch.delenv("ASC_GRAPH_PASSES", raising=False)
    previous = asc.is_eager()
    asc.set_eager(False)
    yield
    asc.set_eager(previous)


def _next_up(v):
    return float(np.nextafter(np.float32(v), np.float32(np.inf)))


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def _data(n, seed=0, scale=3.0, specials=True):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    if specials and n >= 16:
        sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 12.5, -12.5, 14.5, -14.6, 30.0, -30.0, 1e-30,
                       -1e-30, 1e-45, 3.4e38, -3.4e38], np.float32)
        x[rng.choice(n, sp.size, replace=False)] = sp
    return x


def _run(fn, *arrays):
    """fn over fresh pool copies of the NumPy inputs (lazy), its result as NumPy, and the profiler
    details of the fused groups that ran."""
    xs = [asc.array(a) for a in arrays]
    asc.eval(*xs)
    with Profiler() as prof:
        y = fn(*xs)
        asc.eval(y)
    # the group spans (the per-core blocks of a large group have the same name, no detail)
    spans = [e for e in prof.events() if e["name"].startswith("fused[") and " mode=" in e.get("detail", "")]
    return y.numpy(), [(e["name"], e.get("detail", "")) for e in spans]


def _fired(spans):
    return sum(" pass=gelu(" in d for _, d in spans)


def _composite(fn, *arrays, monkeypatch=None):
    """fn without the pass (ASC_GRAPH_PASSES=0): the composite's own float32 result."""
    mp = pytest.MonkeyPatch()
    mp.setenv("ASC_GRAPH_PASSES", "0")
    try:
        y, spans = _run(fn, *arrays)
    finally:
        mp.undo()
    assert _fired(spans) == 0
    return y


def _builtin(x, tanh=False):
    return asc.ops.gelu(asc.array(x), approximate="tanh" if tanh else "none").numpy()


def _assert_same_bits(got, want):
    """Equal bits; NaNs only need to be NaN on both sides."""
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    bad = np.flatnonzero(_bits(got)[~nan] != _bits(want)[~nan])
    assert bad.size == 0, (got[~nan][bad[:5]], want[~nan][bad[:5]])


def _assert_within_composite_error(got, comp, x, tanh=False):
    """The pass's result against the composite's float32 result: the composite rounds x / sqrt 2,
    erf (<= 2 ulp of a value <= 1), 1 + erf and the products, so |composite - gelu| <= 0.5 |x| *
    4 ulp(1) + 2 ulp(result) (2^-21 |x| + 2^-22 |gelu|); the kernel is within 6 ulp of gelu. The
    tanh form's composite also rounds x^3 and the tanh argument (relative 2^-22 each, through
    tanh' <= 1 and the factor 0.5 |x|): the same bound with 2^-20 |x|."""
    fin = np.isfinite(comp) & np.isfinite(x)
    xa = np.abs(x[fin].astype(np.float64))
    g, c = got[fin].astype(np.float64), comp[fin].astype(np.float64)
    bound = (2.0 ** (-20 if tanh else -21)) * xa + 2.0 ** -22 * np.abs(c) + 6 * np.abs(c) * 2.0 ** -23 + 1e-44
    err = np.abs(g - c)
    assert np.all(err <= bound), (x[fin][err > bound][:5], g[err > bound][:5], c[err > bound][:5])


ERF_VARIANTS = {
    "seed": lambda x: x * 0.5 * (1.0 + asc.ops.erf(x / S2)),
    "half_first": lambda x: 0.5 * x * (1.0 + asc.erf(x / S2)),
    "half_last": lambda x: x * (1.0 + asc.erf(x / S2)) * 0.5,
    "half_of_cdf": lambda x: x * (0.5 * (1.0 + asc.erf(x * IS2))),
    "inv_sqrt2_left": lambda x: 0.5 * (x * (asc.erf(IS2 * x) + 1.0)),
    "cdf_first": lambda x: (1.0 + asc.erf(x / S2)) * (x * 0.5),
    "divide_by_2": lambda x: x / 2.0 * (1.0 + asc.erf(x * IS2)),
    "multiply_half_cdf": lambda x: (0.5 * (asc.erf(x / S2) + 1.0)) * x,
}

TANH_VARIANTS = {
    "pow3": lambda x: 0.5 * x * (1.0 + asc.tanh(C1 * (x + C2 * asc.power(x, 3.0)))),
    "xxx": lambda x: x * 0.5 * (1.0 + asc.ops.tanh(C1 * (x + C2 * x * x * x))),
    "x_xx": lambda x: x * (1.0 + asc.tanh((x + x * (x * x) * C2) * C1)) * 0.5,
    "square": lambda x: 0.5 * x * (1.0 + asc.tanh(C1 * (C2 * (asc.square(x) * x) + x))),
}


@pytest.mark.parametrize("name", sorted(ERF_VARIANTS))
def test_erf_variants_fire_and_equal_the_builtin(name):
    fn = ERF_VARIANTS[name]
    x = _data(70_001, seed=len(name))
    got, spans = _run(fn, x)
    assert _fired(spans) == 1 and [n for n, _ in spans] == ["fused[Gelu]"], spans
    _assert_same_bits(got, _builtin(x))
    _assert_within_composite_error(got, _composite(fn, x), x)


@pytest.mark.parametrize("name", sorted(TANH_VARIANTS))
def test_tanh_variants_fire_and_equal_the_builtin(name):
    fn = TANH_VARIANTS[name]
    x = _data(20_000, seed=len(name), specials=False)
    got, spans = _run(fn, x)
    assert _fired(spans) == 1 and [n for n, _ in spans] == ["fused[GeluTanh]"], spans
    _assert_same_bits(got, _builtin(x, tanh=True))
    _assert_within_composite_error(got, _composite(fn, x), x, tanh=True)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 383, 384, 385, 4095, 4096, 4097, 262_145])
def test_lengths_and_special_values_bit_equal(n):
    x = _data(n, seed=n)
    got, spans = _run(ERF_VARIANTS["seed"], x)
    assert _fired(spans) == 1
    _assert_same_bits(got, _builtin(x))


def test_shapes_views_and_neighbours():
    x = _data(6 * 1000, seed=3, specials=False).reshape(60, 100)
    fn = ERF_VARIANTS["seed"]
    # a 0-d input, a 2-D input, a transposed and a strided view (gathered by the program)
    for arr in (np.float32(0.75), x, x.T, x[::2, ::-3]):
        got, spans = _run(fn, np.asarray(arr))
        assert _fired(spans) == 1
        _assert_same_bits(got, _builtin(np.asarray(arr)))
    xs = asc.array(x)
    asc.eval(xs)
    for view in (xs.T, xs[::2, ::-3], xs[5]):
        with Profiler() as prof:
            y = fn(view)
            asc.eval(y)
        assert any(" pass=gelu(" in e.get("detail", "") for e in prof.events() if e["name"].startswith("fused["))
        _assert_same_bits(y.numpy(), asc.ops.gelu(view).numpy())
    # fused with the ops around it: gelu(a + b) * 2 - 1, one group
    b = _data(100, seed=4, specials=False)
    got, spans = _run(lambda a, c: fn(a + c) * 2.0 - 1.0, x, b)
    assert _fired(spans) == 1 and len(spans) == 1, spans
    want = (_builtin(x + b) * np.float32(2.0) - np.float32(1.0)).astype(np.float32)
    _assert_same_bits(got, want)


def test_registered_custom_gelu_runs_the_builtin_kernel():
    @asc.register_op("PassGeLU", replace=True)
    def gelu_forward(ctx, x):
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    try:
        x = _data(100_000, seed=5)
        got, spans = _run(asc.ops.PassGeLU, x)
        assert [n for n, _ in spans] == ["fused[Gelu]"]
        _assert_same_bits(got, _builtin(x))
    finally:
        asc.ops.unregister("PassGeLU")


def _not_fired(fn, *arrays):
    got, spans = _run(fn, *arrays)
    assert _fired(spans) == 0, spans
    return got


@pytest.mark.parametrize("which", ["half", "one", "sqrt2", "inv_sqrt2", "two"])
def test_constants_one_ulp_off_do_not_fire(which):
    c = {k: v for k, v in (("half", 0.5), ("one", 1.0), ("sqrt2", S2), ("inv_sqrt2", IS2), ("two", 2.0))}
    c[which] = _next_up(c[which])
    fns = {
        "half": lambda x: x * c["half"] * (1.0 + asc.erf(x / S2)),
        "one": lambda x: x * 0.5 * (c["one"] + asc.erf(x / S2)),
        "sqrt2": lambda x: x * 0.5 * (1.0 + asc.erf(x / c["sqrt2"])),
        "inv_sqrt2": lambda x: x * 0.5 * (1.0 + asc.erf(x * c["inv_sqrt2"])),
        "two": lambda x: x / c["two"] * (1.0 + asc.erf(x / S2)),
    }
    x = _data(5000, seed=6)
    got = _not_fired(fns[which], x)
    _assert_same_bits(got, _composite(fns[which], x))


@pytest.mark.parametrize("which", ["c1", "c2", "three"])
def test_tanh_constants_one_ulp_off_do_not_fire(which):
    c1 = _next_up(C1) if which == "c1" else C1
    c2 = _next_up(C2) if which == "c2" else C2
    p = _next_up(3.0) if which == "three" else 3.0
    fn = lambda x: 0.5 * x * (1.0 + asc.tanh(c1 * (x + c2 * asc.power(x, p))))  # noqa: E731
    x = _data(5000, seed=7, specials=False)
    _assert_same_bits(_not_fired(fn, x), _composite(fn, x))


def test_intermediate_used_elsewhere_or_held_does_not_fire():
    x = _data(5000, seed=8)
    xs = asc.array(x)
    asc.eval(xs)
    # an intermediate read by another output: both results as the composite computes them
    for k in range(3):
        with Profiler() as prof:
            t = xs / S2
            e = asc.erf(t)
            s = 1.0 + e
            y = xs * 0.5 * s
            other = (t, e, s)[k] * 3.0
            del t, e, s
            asc.eval(y, other)
        assert not any(" pass=" in ev.get("detail", "") for ev in prof.events())
    # an intermediate held by a tensor (needed as computed)
    with Profiler() as prof:
        e = asc.erf(xs / S2)
        y = xs * 0.5 * (1.0 + e)
        asc.eval(y)
    assert not any(" pass=" in ev.get("detail", "") for ev in prof.events())
    _assert_same_bits(y.numpy(), _composite(ERF_VARIANTS["seed"], x))
    _assert_same_bits(e.numpy(), _composite(lambda v: asc.erf(v / S2), x))


def test_mismatched_operands_and_other_dtypes_do_not_fire():
    x = _data(3000, seed=9)
    z = _data(3000, seed=10)
    # erf of another array, x times something else, a different view of x
    _not_fired(lambda a, b: a * 0.5 * (1.0 + asc.erf(b / S2)), x, z)
    _not_fired(lambda a, b: b * 0.5 * (1.0 + asc.erf(a / S2)), x, z)
    _not_fired(lambda a: a[1:] * 0.5 * (1.0 + asc.erf(a[:-1] / S2)), x)
    # other functions: erfc, minus, no 0.5, an extra factor
    _not_fired(lambda a: a * 0.5 * (1.0 + asc.erfc(a / S2)), x)
    _not_fired(lambda a: a * 0.5 * (1.0 - asc.erf(a / S2)), x)
    _not_fired(lambda a: a * (1.0 + asc.erf(a / S2)), x)
    _not_fired(lambda a: a * 0.5 * 0.5 * (1.0 + asc.erf(a / S2)), x)
    _not_fired(lambda a: a * a * 0.5 * (1.0 + asc.erf(a / S2)), x)
    # float64 and float16: the kernel's float32 pass only (float64 keeps the composite's precision)
    for dt in (np.float64, np.float16):
        xd = _data(3000, seed=9, specials=False).astype(dt)
        got = _not_fired(ERF_VARIANTS["seed"], xd)
        assert got.dtype == dt


def test_switch_and_graph_dump(monkeypatch, tmp_path):
    x = _data(5000, seed=11)
    fn = ERF_VARIANTS["seed"]
    for value, fires in (("0", False), ("none", False), ("", False), ("-gelu", False), ("gelu", True),
                         ("all", True), ("1", True), ("chains,gelu", True), ("other", False)):
        monkeypatch.setenv("ASC_GRAPH_PASSES", value)
        _, spans = _run(fn, x)
        assert _fired(spans) == int(fires), value
    monkeypatch.delenv("ASC_GRAPH_PASSES")
    xs = asc.array(x)
    asc.eval(xs)
    asc.lazy.set_graph_dump(True, str(tmp_path))
    try:
        asc.eval(fn(xs))
    finally:
        asc.lazy.set_graph_dump(False)
    before = json.loads(next(tmp_path.glob("*.before.json")).read_text())
    after = json.loads(next(tmp_path.glob("*.after.json")).read_text())
    gelu = [n for n in before["nodes"] if n.get("pass") == "gelu"]
    assert len(gelu) == 1 and gelu[0]["op"] == "Gelu"
    assert sorted(gelu[0]["replaces"]) == sorted(n["id"] for n in before["nodes"] if not n["needed"])
    assert [n["op"] for n in after["nodes"]] == ["Gelu"]
    dot = next(tmp_path.glob("*.after.dot")).read_text()
    assert "Gelu (pass gelu)" in dot


def test_eager_mode_is_untouched():
    x = _data(2000, seed=12)
    with asc.lazy.eager(True):
        got = ERF_VARIANTS["seed"](asc.array(x)).numpy()
    _assert_same_bits(got, _composite(ERF_VARIANTS["seed"], x))


def test_line_tiled_group_differs_only_next_to_huge_values():
    """The documented caveat: a group whose tiles follow lines of a broadcast operand (lines of
    1000 elements, not a multiple of 16) groups the kernel's vectors differently from
    asc.ops.gelu; a lane can then differ only when its builtin vector or its vector in the tile
    holds |x| >= 12.5, inf or NaN (the kernel's second path), and then by at most 2 ulp."""
    rng = np.random.default_rng(13)
    x = (rng.standard_normal((64, 1000)) * 3).astype(np.float32)
    b = (rng.standard_normal(1000) * 0.1).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, 40, replace=False)] = np.array([20.0, -20.0, np.inf, -np.inf, 13.0] * 8, np.float32)
    got, spans = _run(lambda a, c: ERF_VARIANTS["seed"](a + c), x, b)
    assert _fired(spans) == 1 and len(spans) == 1
    v = (x + b).astype(np.float32)
    want = _builtin(v)
    slow = ~(np.abs(v) < 12.5)  # NaN counts as slow
    diff = (_bits(got) != _bits(want)) & ~(np.isnan(got) & np.isnan(want))
    if diff.any():
        flat_slow = slow.reshape(-1)
        near = np.zeros(flat_slow.size, bool)
        for w in (8, 16):  # any vector grouping of either width that could hold a slow lane
            blk = np.add.reduceat(flat_slow.astype(int), np.arange(0, flat_slow.size, w)) > 0
            near |= np.repeat(blk, w)[:flat_slow.size]
            rows = slow.reshape(64, 1000)
            for r in range(64):  # the tile program's groups start at each line
                lb = np.add.reduceat(rows[r].astype(int), np.arange(0, 1000, w)) > 0
                near[r * 1000:(r + 1) * 1000] |= np.repeat(lb, w)[:1000]
        d = diff.reshape(-1)
        assert not (d & ~near).any()
        ulps = np.abs(_bits(got).astype(np.int64) - _bits(want).astype(np.int64)).reshape(-1)[d]
        assert ulps.max() <= 2, ulps.max()
    # without huge values: bit-equal whatever the grouping
    x2 = np.clip(x, -10, 10)
    got2, _ = _run(lambda a, c: ERF_VARIANTS["seed"](a + c), x2, b)
    _assert_same_bits(got2, _builtin((x2 + b).astype(np.float32)))


def _onnx_gelu_model(s2, half=0.5):
    """A BERT-style exported GeLU after a MatMul: Div(x, 1.4142135) -> Erf -> Add 1 -> Mul x -> Mul 0.5,
    its constants float32 initializers (0-d arrays in pyasc, not Python scalars)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("MatMul", ["x0", "w"], ["x"]), helper.make_node("Div", ["x", "s2"], ["t"]),
             helper.make_node("Erf", ["t"], ["e"]), helper.make_node("Add", ["e", "one"], ["a"]),
             helper.make_node("Mul", ["x", "a"], ["m"]), helper.make_node("Mul", ["m", "half"], ["y"])]
    inits = [numpy_helper.from_array(np.array(s2, np.float32), "s2"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(half, np.float32), "half"),
             numpy_helper.from_array((np.eye(64, dtype=np.float32) * 2.0), "w")]
    g = helper.make_graph(nodes, "gelu", [helper.make_tensor_value_info("x0", TensorProto.FLOAT, [32, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, 64])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    return asc.InferenceSession(m.SerializeToString())


def test_onnx_exported_gelu_subgraph_fires():
    """onnxruntime's GeluFusion case: the initializers are materialised one-element arrays; the
    pass reads their (final) values. One ulp off 0.5: no match."""
    x = _data(32 * 64, seed=14, specials=False).reshape(32, 64)
    sess = _onnx_gelu_model(1.4142135)
    with Profiler() as prof:
        y = sess.run(None, {"x0": x})[0]
    assert any(" pass=gelu(" in e.get("detail", "") for e in prof.events()), "pass did not fire"
    _assert_same_bits(np.asarray(y), _builtin((x * np.float32(2.0)).astype(np.float32)))
    sess = _onnx_gelu_model(1.4142135, half=_next_up(0.5))
    with Profiler() as prof:
        sess.run(None, {"x0": x})
    assert not any(" pass=" in e.get("detail", "") for e in prof.events())
