"""asc.autocast: regions, op lists, per-tensor 'auto' choice, cache, and the accuracy bounds of
the low-precision paths (docs/nn.md, "Accuracy bounds")."""

import threading

import numpy as np
import pytest

import pyasc as asc
from pyasc import amp

F = asc.ops
mm = amp.autocast_op("lower", "matmul")(asc.matmul)

# unit roundoff of the low-precision formats; float32 accumulation adds K * 2^-24
U = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def _bound(u, k, absprod):
    """docs/nn.md: |C_lp - C| <= (3u + K 2^-23) (|A| |B|) elementwise."""
    return (3 * u + k * 2.0 ** -23) * absprod


def test_region_state_nesting_decorator():
    assert not asc.is_autocast_enabled()
    with asc.autocast(dtype=asc.bfloat16):
        assert asc.is_autocast_enabled() and np.dtype(asc.get_autocast_dtype()) == np.dtype(asc.bfloat16)
        with asc.autocast(dtype=asc.float16):
            assert np.dtype(asc.get_autocast_dtype()) == np.float16
            with asc.autocast(enabled=False):
                assert not asc.is_autocast_enabled()
            assert asc.is_autocast_enabled()
        assert np.dtype(asc.get_autocast_dtype()) == np.dtype(asc.bfloat16)
    assert not asc.is_autocast_enabled()

    @asc.autocast()
    def f():
        return asc.is_autocast_enabled()

    assert f() and not asc.is_autocast_enabled()
    with pytest.raises(ValueError, match="autocast"):
        asc.autocast(dtype=asc.int8)


def test_thread_local():
    seen = []
    with asc.autocast():
        t = threading.Thread(target=lambda: seen.append(asc.is_autocast_enabled()))
        t.start()
        t.join()
    assert seen == [False]


def test_lists_applied_by_name():
    for name in amp.LOWER_PRECISION_OPS + amp.FP32_OPS:
        fn = getattr(F, name, None)
        if callable(fn) and not isinstance(fn, type):
            assert getattr(fn, "_asc_autocast_policy", None) in ("lower", "fp32"), name
    assert F.softmax._asc_autocast_policy == "fp32"


@pytest.mark.parametrize("dt", [asc.float16, asc.bfloat16])
def test_lower_and_fp32_policies(dt):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 32)).astype(np.float32)
    with asc.autocast(dtype=dt):
        assert np.dtype(mm(a, a.T).dtype) == np.dtype(dt)
        h = asc.asarray(a).astype(dt)
        assert F.softmax(h, dim=1).dtype == np.float32
        assert F.cross_entropy(h, np.zeros(16, np.int64)).dtype == np.float32
        assert F.relu(h).dtype == np.dtype(dt)  # not on a list: keeps its dtype
        d = a.astype(np.float64)
        assert mm(d, d.T).dtype == np.float64
        assert F.softmax(d, dim=1).dtype == np.float64
    assert mm(a, a.T).dtype == np.float32
    assert F.softmax(asc.asarray(a).astype(dt), dim=1).dtype == np.dtype(dt)


@pytest.mark.parametrize("dtname", ["float16", "bfloat16"])
@pytest.mark.parametrize("k", [8, 256, 2048])
def test_matmul_accuracy_bound(dtname, k):
    rng = np.random.default_rng(k)
    a = rng.standard_normal((64, k)).astype(np.float32)
    b = rng.standard_normal((k, 48)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    with asc.autocast(dtype=getattr(asc, dtname)):
        c = np.asarray(mm(a, b)).astype(np.float64)
    err = np.abs(c - ref)
    bound = _bound(U[dtname], k, np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert (err <= bound).all(), float((err / bound).max())
    # and the bound is not vacuous: the error is a visible fraction of it
    assert (err / bound).max() > 0.01


@pytest.mark.parametrize("dtname", ["float16", "bfloat16"])
def test_conv_img2col_accuracy_bound(dtname):
    """conv2d as img2col + matmul under autocast: same bound with K = C_in kh kw."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8, 10, 10)).astype(np.float32)
    w = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
    cols = np.asarray(F.unfold(x, 3, padding=1))  # (N, 72, 100)
    with asc.autocast(dtype=getattr(asc, dtname)):
        y = np.asarray(mm(w.reshape(16, 72), cols)).astype(np.float64)
    ref = np.einsum("ok,nkl->nol", w.reshape(16, 72).astype(np.float64), cols.astype(np.float64))
    bound = _bound(U[dtname], 72, np.einsum("ok,nkl->nol", np.abs(w.reshape(16, 72)).astype(np.float64),
                                               np.abs(cols).astype(np.float64)))
    assert (np.abs(y - ref) <= bound).all()


def test_auto_choice_and_log(capfd):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 8)).astype(np.float32)
    old = asc.get_log_level()
    asc.set_log_level("debug")
    try:
        with asc.autocast("auto"):
            assert mm(a, a).dtype == np.float16               # in range, rounding ~2^-12
            assert mm(a * 1e5, a).dtype == np.float32          # max|x| >= 65504
            assert mm(a * 1e-7, a).dtype == np.float32         # float16 subnormals: relative error too big
            assert mm(a, a.astype(np.float64)).dtype == np.float64  # float64 is never cast (torch)
            with asc.autocast("auto", tol=1e-9):
                assert mm(a, a).dtype == np.float32            # tighter tolerance than float16 gives
    finally:
        asc.set_log_level(old)
    err = capfd.readouterr().err
    assert "autocast(auto) matmul: float16" in err and "autocast(auto) matmul: float32" in err
    with asc.profiler.Profiler() as prof:
        with asc.autocast("auto"):
            mm(a, a)
    assert any("autocast:matmul" in str(e.get("name", "")) for e in prof.events())


def test_cache_enabled_casts_parameters_once():
    lin = F.PReLU(4)
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    with asc.autocast(cache_enabled=True):
        y1 = F.prelu(x, lin.weight)
        n = len(amp._state.cache)
        F.prelu(x, lin.weight)
        assert n == 1 and len(amp._state.cache) == 1
        assert y1.dtype == np.float16
    assert len(amp._state.cache) == 0
    with asc.autocast(cache_enabled=False):
        F.prelu(x, lin.weight)
        assert len(amp._state.cache) == 0


def test_cast_inputs():
    a = np.ones(3, np.float32)
    with asc.autocast(dtype=asc.bfloat16):
        (ca, i) = amp.cast_inputs("linear", a, 3)
        assert ca.dtype == np.dtype(asc.bfloat16) and i == 3
        (cb,) = amp.cast_inputs("layer_norm", asc.asarray(a).astype(asc.float16))
        assert cb.dtype == np.float32
    assert amp.cast_inputs("linear", a)[0] is a
