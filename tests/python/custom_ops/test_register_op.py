"""asc.register_op / register_grad: asc.ops.<name>, the registry look-ups, fusion of a composite
op into one kernel (graph stats, graph dump, profiler), ctx, clash and re-registration rules."""
import json
import math
import re

import numpy as np
import pytest

import pyasc as asc
from pyasc.profiler import Profiler


@pytest.fixture(autouse=True)
def _lazy_and_clean():
    previous = asc.is_eager()
    asc.set_eager(False)
    before = set(asc.ops.registered())
    yield
    for name in set(asc.ops.registered()) - before:
        asc.ops.unregister(name)
    asc.set_eager(previous)


def _gelu_ref(x):
    x = np.asarray(x, np.float64)
    from math import erf

    return 0.5 * x * (1.0 + np.vectorize(erf)(x / math.sqrt(2.0)))


def _register_gelu(name="CustomGeLU"):
    @asc.register_op(name)
    def gelu_forward(ctx, x):
        """The seed's CustomGeLU."""
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    return gelu_forward


def _groups(fn):
    before = asc.lazy.graph_stats()["groups_run"]
    out = fn()
    return out, asc.lazy.graph_stats()["groups_run"] - before


def test_register_publishes_in_asc_ops_and_computes():
    op = _register_gelu()
    assert asc.ops.CustomGeLU is op and asc.ops.get("CustomGeLU") is op
    assert "CustomGeLU" in asc.ops.registered()
    assert op.__doc__ == "The seed's CustomGeLU." and op.name == "CustomGeLU"
    rng = np.random.default_rng(0)
    for dt, tol in ((np.float32, 2e-6), (np.float64, 1e-12)):
        x = rng.standard_normal(1000).astype(dt) * 3
        y = asc.ops.CustomGeLU(asc.asarray(x))
        assert y.dtype == asc.asarray(x).dtype and y.shape == x.shape
        np.testing.assert_allclose(y.numpy(), _gelu_ref(x), rtol=tol, atol=tol)
    # empty, 0-d and non-contiguous inputs
    assert asc.ops.CustomGeLU(asc.zeros((0, 3), dtype=asc.float32)).shape == (0, 3)
    np.testing.assert_allclose(asc.ops.CustomGeLU(asc.asarray(np.float32(1.5))).numpy(), _gelu_ref(1.5), rtol=1e-6)
    base = rng.standard_normal((8, 6)).astype(np.float32)
    view = asc.asarray(base)[::2, ::-3]
    np.testing.assert_allclose(asc.ops.CustomGeLU(view).numpy(), _gelu_ref(base[::2, ::-3]), rtol=2e-6, atol=2e-6)


def test_composite_op_is_one_fused_kernel():
    _register_gelu()
    x = asc.array(np.linspace(-4, 4, 100_000, dtype=np.float32))
    asc.eval(x)
    y, groups = _groups(lambda: asc.eval(asc.ops.CustomGeLU(x)))
    assert groups == 1  # erf, 4 multiplies/divides and an add: one loop
    np.testing.assert_allclose(y.numpy(), _gelu_ref(x.numpy()), rtol=2e-6, atol=2e-6)
    # with neighbours: the op fuses with the ops around it
    z, groups = _groups(lambda: asc.eval(asc.ops.CustomGeLU(x * 2.0) + 1.0))
    assert groups == 1
    np.testing.assert_allclose(z.numpy(), _gelu_ref(x.numpy() * 2.0) + 1.0, rtol=2e-6, atol=2e-6)


def _fused_spans(tmp_path, x):
    with Profiler() as prof:
        asc.eval(asc.ops.CustomGeLU(x))
    trace_path = tmp_path / "trace.json"
    prof.export_chrome_trace(trace_path)
    return [e for e in json.loads(trace_path.read_text())["traceEvents"]
            if e.get("ph") == "X" and e.get("cat") == "graph" and e["name"].startswith("fused[")]


def _dumps(path, x):
    asc.lazy.set_graph_dump(True, str(path))
    try:
        asc.eval(asc.ops.CustomGeLU(x))
    finally:
        asc.lazy.set_graph_dump(False)
    before = [json.loads(p.read_text()) for p in path.glob("*.before.json")]
    after = [json.loads(p.read_text()) for p in path.glob("*.after.json")]
    assert len(before) == len(after) == 1
    return before[0], after[0]


def test_fused_kernel_in_profiler_and_graph_dump(tmp_path, monkeypatch):
    _register_gelu()
    # asc.array copies into pool memory (asc.asarray of a NumPy array would share it: such leaves
    # are read at the call, so the first ops on them run eagerly)
    x = asc.array(np.linspace(-3, 3, 50_000, dtype=np.float32))
    asc.eval(x)
    # the gelu graph pass (src/graph/passes.cc) turns the five nodes into one Gelu node running
    # the built-in gelu kernel: one group, its detail names the pass and the replaced nodes
    spans = _fused_spans(tmp_path, x)
    assert len(spans) == 1 and spans[0]["name"] == "fused[Gelu]", spans
    detail = spans[0]["args"]["detail"]
    nodes = re.search(r"nodes=\[(.*?)\]", detail).group(1).split(";")
    assert len(nodes) == 1 and " Gelu float32" in nodes[0], nodes
    m = re.search(r"pass=gelu\((\d+)<-([\d,]+)\)", detail)
    assert m and len(m.group(2).split(",")) == 4, detail
    before, after = _dumps(tmp_path / "dump", x)
    assert len(before["nodes"]) == 5  # as recorded: x/sqrt2, erf, add, two multiplies
    gelu = [n for n in before["nodes"] if n.get("pass") == "gelu"]
    assert len(gelu) == 1 and gelu[0]["op"] == "Gelu" and gelu[0]["needed"] and len(gelu[0]["inputs"]) == 1
    dead = {n["id"]: n["op"] for n in before["nodes"] if not n["needed"]}
    assert sorted(dead) == sorted(gelu[0]["replaces"]) and set(dead.values()) >= {"erf", "add", "multiply"}
    assert len(after["groups"]) == 1 and [n["op"] for n in after["nodes"]] == ["Gelu"]
    # passes off (ASC_GRAPH_PASSES=0): the composite's five nodes in one fused group, one chain
    monkeypatch.setenv("ASC_GRAPH_PASSES", "0")
    spans = _fused_spans(tmp_path, x)
    assert len(spans) == 1 and "erf" in spans[0]["name"] and "pass=" not in spans[0]["args"]["detail"]
    nodes = re.search(r"nodes=\[(.*?)\]", spans[0]["args"]["detail"]).group(1).split(";")
    assert len(nodes) == 5, nodes  # x/sqrt2 (a divide), erf, add, two multiplies: one group
    _, after = _dumps(tmp_path / "dump_off", x)
    groups = after["groups"]
    assert len(groups) == 1 and len(groups[0]["nodes"]) == len(after["nodes"]) == 5
    assert {n["op"] for n in after["nodes"]} >= {"erf", "add", "multiply"}
    assert not any("pass" in n for n in after["nodes"])


def test_ctx_attrs_save_for_backward_and_needs_input_grad():
    seen = {}

    @asc.register_op("ScaleShift")
    def scale_shift(ctx, x, b, *, alpha=2.0):
        seen["needs"] = ctx.needs_input_grad
        seen["attrs"] = dict(ctx.attrs)
        ctx.save_for_backward(x)
        ctx.note = "kept"
        seen["ctx"] = ctx
        return x * alpha + b

    x = asc.asarray(np.arange(6, dtype=np.float32))
    y = asc.ops.ScaleShift(x, 1.0, alpha=0.5)
    np.testing.assert_allclose(y.numpy(), np.arange(6) * 0.5 + 1.0)
    assert seen["needs"] == (False, False) and seen["attrs"] == {"alpha": 0.5}
    assert seen["ctx"].saved_tensors[0] is x and seen["ctx"].note == "kept"
    assert "ScaleShift" in repr(seen["ctx"])


def test_stats_count_calls():
    _register_gelu("G2")
    asc.ops.reset_stats()
    x = asc.ones(4, dtype=asc.float32)
    for _ in range(3):
        asc.ops.G2(x)
    assert asc.ops.stats("G2")["calls"] == 3
    assert asc.ops.stats()["G2"]["calls"] == 3


def test_name_rules_and_clashes():
    with pytest.raises(asc.AscendValueError, match="built-in asc.ops name"):
        asc.register_op("relu")(lambda ctx, x: x)
    with pytest.raises(asc.AscendValueError, match="built-in"):
        asc.register_op("get")(lambda ctx, x: x)
    with pytest.raises(asc.AscendValueError, match="identifier"):
        asc.register_op("my-op")(lambda ctx, x: x)
    with pytest.raises(asc.AscendValueError, match="identifier"):
        asc.register_op("_private")(lambda ctx, x: x)
    with pytest.raises(asc.AscendTypeError, match="must be a str"):
        asc.register_op(3)
    with pytest.raises(asc.AscendTypeError, match="grad must be callable"):
        asc.register_op("Bad", grad=5)
    with pytest.raises(asc.AscendTypeError, match="callable"):
        asc.register_op("Bad")(42)
    _register_gelu("Dup")
    with pytest.raises(asc.AscendValueError, match="already registered.*replace=True"):
        _register_gelu("Dup")
    # replace=True replaces the op (and drops a grad registered for the old body)
    asc.register_grad("Dup")(lambda ctx, g: g)
    new = asc.register_op("Dup", replace=True)(lambda ctx, x: x + 1)
    assert asc.ops.Dup is new and new.backward is None
    np.testing.assert_array_equal(asc.ops.Dup(asc.zeros(2)).numpy(), [1, 1])
    with pytest.raises(asc.AscendValueError, match="no operator 'Nope'"):
        asc.ops.get("Nope")
    with pytest.raises(asc.AscendValueError, match="no operator 'Nope' is registered"):
        asc.register_grad("Nope")(lambda ctx, g: g)
    asc.register_grad("Dup")(lambda ctx, g: g)
    with pytest.raises(asc.AscendValueError, match="already has a gradient"):
        asc.register_grad("Dup")(lambda ctx, g: g)
    asc.register_grad("Dup", replace=True)(lambda ctx, g: g * 2)
    asc.ops.unregister("Dup")
    assert not hasattr(asc.ops, "Dup") and "Dup" not in asc.ops.registered()
    with pytest.raises(asc.AscendValueError):
        asc.ops.unregister("Dup")


def test_infer_shape_dtype_callbacks_checked_and_infer():
    @asc.register_op("RowSum", infer_shape=lambda s: s[:-1], infer_dtype=lambda d: d)
    def row_sum(ctx, x):
        return asc.sum(x, axis=-1)

    x = asc.asarray(np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(asc.ops.RowSum(x).numpy(), [4, 4, 4])
    assert asc.ops.RowSum.infer((5, 7), "float64") == ((5,), np.dtype("float64"))

    @asc.register_op("Liar", infer_shape=lambda s: s + (1,))
    def liar(ctx, x):
        return x * 2

    with pytest.raises(asc.AscendValueError, match=r"Liar.*shape.*infer_shape"):
        asc.ops.Liar(x)

    @asc.register_op("Widen")
    def widen(ctx, x, y):
        return x.astype(asc.float64) + y

    # abstract inference: no callbacks, traced over placeholders
    assert asc.ops.Widen.infer([(2, 1), (1, 5)], ["float32", "float32"]) == ((2, 5), np.dtype("float64"))
    assert asc.ops.Widen.infer([(2 ** 40,), (2 ** 40,)]) == ((2 ** 40,), np.dtype("float64"))  # no memory


def test_fusable_false_is_a_boundary():
    @asc.register_op("Boundary", fusable=False)
    def boundary(ctx, x):
        return x * 3.0

    x = asc.array(np.ones(10_000, np.float32))
    asc.eval(x)
    y, groups = _groups(lambda: asc.eval(asc.ops.Boundary(x) + 1.0))
    assert groups == 2
    np.testing.assert_array_equal(y.numpy(), np.full(10_000, 4.0, np.float32))


def test_fused_erf_within_the_documented_ulp_bound():
    # the erf node of a fused composite (x * c then erf, one group) is the registry's float32 SIMD erf:
    # <= 4 ulp vs math.erf in float64 (docs/vector_math.md), on dense points of [-6, 6] and specials
    from math import erf

    xs = np.concatenate([np.linspace(-6, 6, 20001, dtype=np.float32),
                         np.array([0.0, -0.0, 1e-30, -1e-30, 0.49999997, 0.5, 3.9, 10.0, -10.0], np.float32)])
    c = np.float32(1 / math.sqrt(2.0))
    before = asc.lazy.graph_stats()["groups_run"]
    y = asc.erf(asc.array(xs) * c).numpy()
    assert asc.lazy.graph_stats()["groups_run"] - before == 1
    u = xs * c  # float32 rounding, as the fused multiply
    ref = np.array([erf(float(v)) for v in u])
    ulp = np.abs(y.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert np.isnan(ulp).sum() == 0
    assert ulp.max() <= 4, (ulp.max(), xs[np.argmax(ulp)])


def test_static_shapes_compile_ahead_and_count_hits():
    st = asc.lazy.graph_stats

    def body(ctx, x, y):  # a structure no other test builds: its fused program is new to this process
        return asc.arcsinh(asc.cbrt(x)) * asc.expm1(y) - asc.arctan(x)

    m0 = st()["program_cache_misses"]
    asc.register_op("StaticChain", static_shapes=[[(16,), (16,)], [((4, 8), "float64"), ((4, 8), "float64")]])(body)
    m1 = st()["program_cache_misses"]
    assert m1 - m0 == 2  # one program per dtype, compiled at registration
    asc.ops.reset_stats()
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-1, 1, 16).astype(np.float32), rng.uniform(-1, 1, 16).astype(np.float32)
    z = asc.ops.StaticChain(asc.array(a), asc.array(b)).numpy()
    np.testing.assert_allclose(z, np.arcsinh(np.cbrt(a)) * np.expm1(b) - np.arctan(a), rtol=2e-6, atol=1e-6)
    assert st()["program_cache_misses"] == m1  # the first call of a static shape compiled nothing
    a64 = rng.uniform(-1, 1, (4, 8))
    asc.eval(asc.ops.StaticChain(asc.array(a64), asc.array(a64)))
    assert asc.ops.stats("StaticChain")["compile_hits"] == 2
    assert asc.ops.stats("StaticChain")["compile_misses"] == 0
    asc.eval(asc.ops.StaticChain(asc.ones((3, 5)), asc.ones((3, 5))))  # a new shape: a miss, then hits
    asc.eval(asc.ops.StaticChain(asc.ones((3, 5)), asc.ones((3, 5))))
    s = asc.ops.stats("StaticChain")
    assert (s["compile_hits"], s["compile_misses"], s["calls"]) == (3, 1, 4)


def test_static_shapes_errors():
    with pytest.raises(asc.errors.AscendTypeError, match="static_shapes"):
        asc.register_op("BadStatic", static_shapes=[5])(lambda ctx, x: x + 1)
    with pytest.raises(asc.errors.AscendValueError, match=r"BadBody.*static shapes \[\(2, 3\)\]"):
        asc.register_op("BadBody", static_shapes=[[(2, 3)]])(lambda ctx, x: x.reshape((4, 4)))
    assert "BadBody" not in asc.ops.registered()
