"""The executor's memory arena (Model.run, models/_memplan.arena_layout): after a first run, the
outputs of prepared convolutions are written (``out=``) into planned slots of one buffer per dtype
that every later run with the same input shapes reuses. Checked: results equal the arena-off
session and onnx's reference evaluator over runs with different inputs (a slot reused too early
would leave another value's bytes), slots never overlap while both values can be read, values read
by views / lazy operators or reaching a graph output stay out, concurrent runs, shape changes and
intermediates asked for by name.

The real ``out=`` of ``_C.nn.conv`` is used when this build has it; on a build without it the
executor runs with a stand-in that computes the convolution and copies it into the slot, so the
plan is checked on any build (the planner's own cases need no convolution)."""

import threading

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc import _C  # noqa: E402
from pyasc.models import _memplan, _onnx_nn  # noqa: E402

from test_layouts import C0, _w, small_resnet  # noqa: E402

pytestmark = pytest.mark.skipif(C0 == 0, reason="oneDNN prefers a plain layout on this CPU")

REAL_OUT = _onnx_nn.conv_accepts_out()
RNG = np.random.default_rng(14)  # inputs (the weights come from test_layouts' generator)


@pytest.fixture(params=["real"] if REAL_OUT else ["stand-in"])
def conv_out(request, monkeypatch):
    """'real': this build's out=; 'stand-in' (a build without it): the convolution, then a copy
    into the slot (a residual that is the slot itself is read before the copy overwrites it)."""
    if request.param == "stand-in":
        real = _C.nn.conv
        n_plain = 19  # x, w, b, residual + the 15 arguments the prepared call passes

        def conv(*args, **kw):
            if len(args) == n_plain + 1:
                *args, out = args
                y = real(*args)
                out[...] = y
                return out
            return real(*args, **kw)

        monkeypatch.setattr(_C.nn, "conv", conv)
        monkeypatch.setattr(_onnx_nn, "conv_accepts_out", lambda: True)
    return request.param


def _sessions(m):
    data = m.SerializeToString()
    on = asc.InferenceSession(data)
    off = asc.InferenceSession(data)
    off._model.use_arena = False
    return on, off


def _residual_chain(n_blocks=3, c=16, hw=12):
    """stem -> n identity-shortcut blocks (conv, relu, conv + shortcut, relu) -> head conv: the
    block's second conv overwrites its shortcut in place (assign_layouts' residual_inplace)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, hw, hw])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", c, hw, hw])
    inits = [_w("w0", (c, 3, 3, 3))] + [_w(f"w{i}", (c, c, 3, 3)) for i in range(1, 2 * n_blocks + 2)]
    nodes = [helper.make_node("Conv", ["x", "w0"], ["s0"], pads=[1, 1, 1, 1], name="stem")]
    prev = "s0"
    for k in range(n_blocks):
        a, b = 1 + 2 * k, 2 + 2 * k
        nodes += [helper.make_node("Conv", [prev, f"w{a}"], [f"a{k}"], pads=[1, 1, 1, 1], name=f"a{k}"),
                  helper.make_node("Relu", [f"a{k}"], [f"ra{k}"], name=f"ra{k}"),
                  helper.make_node("Conv", [f"ra{k}", f"w{b}"], [f"b{k}"], pads=[1, 1, 1, 1], name=f"b{k}"),
                  helper.make_node("Add", [f"b{k}", prev], [f"s{k + 1}"], name=f"add{k}"),
                  helper.make_node("Relu", [f"s{k + 1}"], [f"r{k + 1}"], name=f"r{k + 1}")]
        prev = f"r{k + 1}"
    nodes.append(helper.make_node("Conv", [prev, f"w{2 * n_blocks + 1}"], ["y"], pads=[1, 1, 1, 1], name="head"))
    return helper.make_model(helper.make_graph(nodes, "chain", [x], [y], inits),
                             opset_imports=[helper.make_opsetid("", 17)])


def _inputs(shape, k=3):
    return [RNG.standard_normal(shape).astype(np.float32) for _ in range(k)]


def _no_overlap(layout, model):
    """No two slots of one dtype share bytes while both values can be read (the plan's spans)."""
    items = [(y, layout.slots[y], layout.spans[y]) for y in layout.slots if y not in layout.aliases]
    for i, (a, (da, oa, sa), (fa, la)) in enumerate(items):
        ea = oa + int(np.prod(sa))
        for b, (db, ob, sb), (fb, lb) in items[i + 1:]:
            if da != db or la < fb or lb < fa:
                continue
            eb = ob + int(np.prod(sb))
            assert ea <= ob or eb <= oa, f"{a} [{oa}, {ea}) and {b} [{ob}, {eb}) overlap while both live"


@pytest.mark.parametrize("batch", [1, 3])
def test_residual_chain_equals_arena_off(conv_out, batch):
    m = _residual_chain()
    on, off = _sessions(m)
    from onnx.reference import ReferenceEvaluator

    ref = ReferenceEvaluator(m)
    xs = _inputs((batch, 3, 12, 12))
    for rnd in range(2):  # the first run plans; then the same arena serves every run
        for x in xs:
            got = on.run(None, {"x": x})[0]
            np.testing.assert_array_equal(got, off.run(None, {"x": x})[0])
            np.testing.assert_allclose(got, ref.run(None, {"x": x})[0], rtol=1e-4, atol=1e-4)
    lay = on._model.arena
    assert lay is not None and off._model.arena is None
    names = [n.outputs[0] for n in on._model.nodes]
    assert "y" not in lay.slots  # a graph output is the caller's
    assert len(lay.aliases) == 3 and all(on._model.nodes[i].attr("residual_inplace")
                                          for i, y in lay.producers.items() if y in lay.aliases)
    assert set(lay.slots) < set(names)
    _no_overlap(lay, on._model)
    # one live arena: the run gives it back and the next one takes it (no allocation)
    assert len(on._model._arena_free) == 1
    # reuse: the peak is well below every planned value side by side
    total = sum(int(np.prod(s)) * 4 for y, (_, _, s) in lay.slots.items() if y not in lay.aliases)
    assert lay.peak_bytes < total


def test_small_resnet_views_and_lazy_readers(conv_out):
    """A Sigmoid (lazy) of a blocked conv output read at the end and a graph output taken after a
    pool: the values they read are never reused early."""
    extra = [helper.make_node("Sigmoid", ["c1"], ["t"], name="tap"),
             helper.make_node("ReduceMean", ["t"], ["tm"], keepdims=1, name="tm")]
    m = small_resnet(extra_nodes=extra, extra_outputs=["tm"])
    on, off = _sessions(m)
    for x in _inputs((2, 3, 32, 32)) * 2:
        for a, b in zip(on.run(None, {"x": x}), off.run(None, {"x": x})):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    lay = on._model.arena
    if lay is not None:
        assert "c1" not in lay.slots and "t" not in lay.slots
        _no_overlap(lay, on._model)


def test_blocked_resnet_plan_and_results(conv_out):
    on, off = _sessions(small_resnet())
    xs = _inputs((1, 3, 32, 32))
    for x in xs + xs:
        np.testing.assert_array_equal(on.run(None, {"x": x})[0], off.run(None, {"x": x})[0])
    lay = on._model.arena
    assert lay is not None and lay.slots
    _no_overlap(lay, on._model)


def test_other_shapes_run_without_the_arena(conv_out):
    on, off = _sessions(_residual_chain(n_blocks=2))
    for batch in (1, 2, 1, 4, 1):  # planned for batch 1; the others run as before
        x = RNG.standard_normal((batch, 3, 12, 12)).astype(np.float32)
        np.testing.assert_array_equal(on.run(None, {"x": x})[0], off.run(None, {"x": x})[0])
    assert on._model.arena.signature == (("x", (1, 3, 12, 12), "float32"),)


def test_intermediate_by_name(conv_out):
    on, off = _sessions(_residual_chain(n_blocks=2))
    x = RNG.standard_normal((1, 3, 12, 12)).astype(np.float32)
    on.run(None, {"x": x})
    assert "ra0" in on._model.arena.slots  # a0 fused with its Relu
    for x in _inputs((1, 3, 12, 12)):
        # (an intermediate asked for may also be a lazy result computed from an arena value: such a
        # run does without the arena)
        got = on._model.run({"x": asc.asarray(x)}, ["y", "ra0"])
        want = off._model.run({"x": asc.asarray(x)}, ["y", "ra0"])
        on.run(None, {"x": x * 2})  # another run may not change what the first returned
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.array(a), np.array(b))


def test_lazy_intermediate_by_name(conv_out):
    """Intermediates asked for by name (here a Sigmoid of a conv output, read only after later
    runs): such runs do without the arena, whatever the value was computed from."""
    m = small_resnet(extra_nodes=[helper.make_node("Sigmoid", ["c2"], ["t"], name="tap2"),
                                  helper.make_node("ReduceMax", ["t"], ["tm"], keepdims=1, name="tmax")],
                     extra_outputs=["tm"])
    on, off = _sessions(m)
    xs = _inputs((1, 3, 32, 32))
    on.run(None, {"x": xs[0]})
    on.run(None, {"x": xs[0]})
    free = list(on._model._arena_free)
    assert len(free) == 1
    on._model._arena_free.clear()  # a run taking an arena now would allocate and return a new one
    pending = [on._model.run({"x": asc.asarray(x)}, ["y", "t"]) for x in xs]
    assert on._model._arena_free == []
    on._model._arena_free.extend(free)
    on.run(None, {"x": xs[0] * 3})
    for x, got in zip(xs, pending):
        want = off._model.run({"x": asc.asarray(x)}, ["y", "t"])
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.array(a), np.array(b))


def test_concurrent_runs(conv_out):
    on, off = _sessions(_residual_chain())
    xs = _inputs((1, 3, 12, 12), k=4)
    want = [off.run(None, {"x": x})[0] for x in xs]
    on.run(None, {"x": xs[0]})
    errors = []

    def worker(k):
        try:
            for _ in range(5):
                for x, w in zip(xs[k:] + xs[:k], want[k:] + want[:k]):
                    np.testing.assert_array_equal(on.run(None, {"x": x})[0], w)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not errors, errors[0]
    assert 1 <= len(on._model._arena_free) <= 4  # one arena per run in flight, kept for reuse


def test_env_off(monkeypatch, conv_out):
    monkeypatch.setenv("ASC_MODEL_ARENA", "0")
    s = asc.InferenceSession(_residual_chain(n_blocks=1).SerializeToString())
    s.run(None, {"x": RNG.standard_normal((1, 3, 12, 12)).astype(np.float32)})
    assert s._model.arena is None and s.arena_bytes is None


def test_session_reports_arena_bytes(conv_out):
    s = asc.InferenceSession(_residual_chain(n_blocks=2).SerializeToString())
    assert s.arena_bytes is None
    s.run(None, {"x": RNG.standard_normal((1, 3, 12, 12)).astype(np.float32)})
    assert s.arena_bytes == s._model.arena.peak_bytes > 0


# ---------------------------------------------------------------- the planner alone

class _N:
    def __init__(self, ins, outs):
        self.inputs, self.outputs = ins, outs


def _v(i, n=256):
    return (n * 4, "float32", (n,), i, 4)


def test_planner_view_reader_extends_lifetime():
    # 0: a=conv(x); 1: v=reshape(a) [not safe]; 2: b=conv(a); 3: c=conv(b); 4: d=add(v, c) -> out
    nodes = [_N(["x"], ["a"]), _N(["a"], ["v"]), _N(["a"], ["b"]), _N(["b"], ["c"]), _N(["v", "c"], ["d"])]
    values = {"a": _v(0), "v": _v(1), "b": _v(2), "c": _v(3), "d": _v(4)}
    lay = _memplan.arena_layout(nodes, values, {0, 2, 3}, {0, 2, 3, 4}, {"d"}, {}, ())
    assert lay.spans["a"] == (0, 4)  # read through the view until node 4
    assert lay.slots["a"][1] != lay.slots["c"][1] and lay.slots["a"][1] != lay.slots["b"][1]
    assert lay.slots["b"][1] != lay.slots["c"][1]


def test_planner_lazy_reader_of_an_output_path_is_excluded():
    # the same graph with node 4 unsafe (a lazy Add): the output d may read a's bytes after the run
    nodes = [_N(["x"], ["a"]), _N(["a"], ["v"]), _N(["a"], ["b"]), _N(["b"], ["c"]), _N(["v", "c"], ["d"])]
    values = {"a": _v(0), "v": _v(1), "b": _v(2), "c": _v(3), "d": _v(4)}
    lay = _memplan.arena_layout(nodes, values, {0, 2, 3}, {0, 2, 3}, {"d"}, {}, ())
    assert set(lay.slots) == {"b"}


def test_planner_output_reached_through_a_view_is_excluded():
    nodes = [_N(["x"], ["a"]), _N(["a"], ["v"])]  # v = view of a, a graph output
    lay = _memplan.arena_layout(nodes, {"a": _v(0), "v": _v(1)}, {0}, {0}, {"v"}, {}, ())
    assert lay is None


def test_planner_reuse_and_alias():
    # a -> b -> c(residual a, in place) -> d -> e (output)
    nodes = [_N(["x"], ["a"]), _N(["a"], ["b"]), _N(["b", "w", "", "a"], ["c"]), _N(["c"], ["d"]), _N(["d"], ["e"])]
    values = {k: _v(i) for i, k in enumerate("abcde")}
    lay = _memplan.arena_layout(nodes, values, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {"e"}, {2: "a"}, ())
    assert lay.aliases == {"c": "a"} and lay.slots["c"] == lay.slots["a"]
    assert "e" not in lay.slots
    assert lay.spans["a"] == (0, 3)
    assert lay.slots["d"][1] != lay.slots["a"][1]  # d is written while c (a's slot) is read
    assert lay.slots["b"][1] != lay.slots["a"][1]
    assert lay.peak_bytes == 2 * 1024  # a/c and b/d pairs: two slots


def test_planner_residual_read_elsewhere_is_not_aliased():
    # the residual a is also read after c: c may not overwrite it
    nodes = [_N(["x"], ["a"]), _N(["a"], ["b"]), _N(["b", "w", "", "a"], ["c"]), _N(["c", "a"], ["d"])]
    values = {k: _v(i) for i, k in enumerate("abcd")}
    lay = _memplan.arena_layout(nodes, values, {0, 1, 2}, {0, 1, 2, 3}, {"d"}, {2: "a"}, ())
    assert lay.aliases == {} and lay.spans["a"] == (0, 3)
    assert lay.slots["c"][1] != lay.slots["a"][1]


@pytest.mark.skipif(not REAL_OUT, reason="this build's _C.nn.conv has no out=")
@pytest.mark.parametrize("which", ["chain", "small_resnet"])
def test_steady_state_allocates_nothing_for_arena_values(which):
    """Per run, the pool allocates one block fewer for every arena slot a convolution would
    otherwise have taken (an in-place residual alias took none either way)."""
    m, shape = (_residual_chain(), (1, 3, 12, 12)) if which == "chain" else (small_resnet(), (1, 3, 32, 32))
    on, off = _sessions(m)
    x = RNG.standard_normal(shape).astype(np.float32)
    per_run = []
    for s in (on, off):
        s.run(None, {"x": x})
        s.run(None, {"x": x})
        a0 = asc.memory_stats()["allocation_count"]
        for _ in range(4):
            s.run(None, {"x": x})
        per_run.append((asc.memory_stats()["allocation_count"] - a0) / 4)
    lay = on._model.arena
    assert per_run[1] - per_run[0] == len(lay.slots) - len(lay.aliases) > 0, per_run


@pytest.mark.parametrize("name", ["squeezenet", "shufflenet"])
def test_light_models_equal_arena_off(conv_out, name):
    """Model-zoo graphs (joins, Concat, grouped convolutions, channel shuffles): alternating inputs,
    bit-equal to the arena-off session."""
    from light_models import light_models, with_random_weights

    m = with_random_weights(light_models()[name], seed=5)
    on, off = _sessions(m)
    i = [v for v in m.graph.input if v.name not in {t.name for t in m.graph.initializer}][0]
    shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
    xs = _inputs(shape)
    on.run(None, {i.name: xs[0]})
    for x in xs + xs[::-1]:
        np.testing.assert_array_equal(on.run(None, {i.name: x})[0], off.run(None, {i.name: x})[0])
    assert on._model.arena is not None and len(on._model.arena.slots) > 10
    _no_overlap(on._model.arena, on._model)
