"""Sizes that overflow int64 are errors, never wrapped sizes (reliability issue 20, items 2, 3, 7, 9, 10).

Before the fix these crashed (repeat/concatenate wrote 2**62 elements into an
empty buffer: SIGSEGV) or silently returned wrong results (a 2**64-element
broadcast had .size 0 and summed to 0.0). Every expression runs in a
subprocess (the ``run_python`` fixture), so a crash fails the test instead of
killing pytest; the exception class is compared with NumPy 2.4's where NumPy
itself survives the call (NumPy segfaults on some repeat overflows and loops
on concatenating 4 x 2**62 int8 elements, so those are checked against the
class NumPy raises for the same overflow elsewhere: ValueError).
"""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

_RUNNER = r"""
import json, sys
import numpy as np
import pyasc as asc
asc.set_eager({eager})
out = []
for expr in {exprs!r}:
    try:
        r = eval(expr)
        if hasattr(r, "shape"):
            r = ("ok", list(r.shape), int(r.size))
        else:
            r = ("ok", repr(r))
        out.append(r)
    except BaseException as e:
        out.append(("raise", [c.__name__ for c in type(e).__mro__], str(e)))
print("RESULTS" + json.dumps(out))
"""


def _run(run_python, exprs, eager=False):
    """Outcome of each expression (evaluated with numpy as np, pyasc as asc) in one subprocess."""
    p = run_python(_RUNNER.format(exprs=list(exprs), eager=eager), timeout=120)
    assert p.returncode == 0, f"subprocess died (rc={p.returncode}; a crash?)\n{p.stdout}\n{p.stderr}"
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULTS")]
    assert line, p.stdout + p.stderr
    return dict(zip(exprs, json.loads(line[0][len("RESULTS"):])))


def _numpy_class(expr):
    """The builtin exception class NumPy raises for expr (with np for asc), or None."""
    try:
        eval(expr.replace("asc.", "np."), {"np": np})  # noqa: S307 - test expressions
    except (ValueError, MemoryError, OverflowError, IndexError, TypeError) as e:
        for base in (ValueError, MemoryError, OverflowError, IndexError, TypeError):
            if isinstance(e, base):
                return base.__name__
    return None


def _assert_raises(outcome, cls, *words, ascend=True):
    assert outcome[0] == "raise", f"no error: {outcome}"
    mro = outcome[1]
    assert cls in mro, f"{cls} expected, got {mro}: {outcome[2]}"
    if ascend:
        assert "AscendError" in mro, mro
    for w in words:
        assert w in outcome[2], outcome[2]


# Expressions NumPy 2.4 itself cannot run (segfault or endless loop): the class
# is the one NumPy gives the same overflow in the cases it does detect.
_NUMPY_CRASHES = {
    "asc.repeat(asc.arange(4.), 2**62)": "ValueError",
    "asc.repeat(asc.ones((4, 3)), 2**62, axis=0)": "ValueError",
    "asc.repeat(asc.ones(8), 2**61)": "ValueError",
    "asc.repeat(asc.ones(8, dtype='int8'), [2**62, 2**62, 2**62, 2**62, 0, 0, 0, 0])": "ValueError",
    "asc.concatenate([asc.broadcast_to(asc.ones(1, dtype='int8'), (2**62,))] * 4)": "ValueError",
}

# Expressions NumPy raises for: the same builtin class.
_LIKE_NUMPY = [
    "asc.repeat(asc.ones(8), 2**40)",  # fits int64: MemoryError as NumPy (64 TiB)
    "asc.concatenate([asc.broadcast_to(asc.ones(1, dtype='int8'), (2**62,))] * 2)",
    "asc.broadcast_to(asc.ones(1), (2**62,))",
    "asc.broadcast_to(asc.ones(1, dtype='int16'), (2**62,))",
    "asc.broadcast_to(asc.ones(1), (2**32, 2**32))",
    "asc.broadcast_to(asc.ones(1), (2**62, 2))",
    "asc.broadcast_to(asc.ones(1), (3, -1))",
    "asc.pad(asc.ones(4), (2**62, 2**62), mode='edge')",
    "asc.pad(asc.ones(4), (2**62, 2**62))",
    "asc.pad(asc.ones(4), (2**40, 2**40), mode='edge')",
    "asc.tile(asc.ones(4), 2**62)",
    "asc.tile(asc.ones(4), 2**61)",
    "asc.empty((2**62, 2))",
    "asc.empty((2**61,))",
    "asc.zeros((2**32, 2**32))",
    "asc.ones((2**32, 2**32), dtype='int8')",
    "asc.full((2**32, 2**32), 1.5)",
    "asc.empty((2**62, 2**62, 0))",
    "asc.ones(8).reshape(2**62, 0)",
    "asc.arange(2**62)",
    "asc.linspace(0, 1, 2**62)",
]


@pytest.mark.parametrize("eager", [False, True])
def test_overflowing_sizes_raise(run_python, eager):
    exprs = list(_NUMPY_CRASHES) + _LIKE_NUMPY
    got = _run(run_python, exprs, eager)
    for expr, cls in _NUMPY_CRASHES.items():
        _assert_raises(got[expr], cls)
    for expr in _LIKE_NUMPY:
        cls = _numpy_class(expr)
        assert cls is not None, f"NumPy accepts {expr}"
        # arange/linspace compute their values with NumPy itself, whose own (builtin) error surfaces.
        _assert_raises(got[expr], cls, ascend=not expr.startswith(("asc.arange", "asc.linspace")))
    _assert_raises(got["asc.repeat(asc.arange(4.), 2**62)"], "ValueError", "repeat", "too big")
    _assert_raises(got["asc.broadcast_to(asc.ones(1), (2**32, 2**32))"], "ValueError", "broadcast_to")


@pytest.mark.parametrize("eager", [False, True])
def test_broadcast_results_that_overflow(run_python, eager):
    """(2**32, 1) op (1, 2**32): the broadcast result (2**64 elements) is an error, not a 0-size array."""
    a = "asc.broadcast_to(asc.ones(1, dtype='int8'), (2**32, 1))"
    b = "asc.broadcast_to(asc.ones(1, dtype='int8'), (1, 2**32))"
    i = "asc.broadcast_to(asc.zeros(1, dtype='int64'), (2**32, 1))"
    j = "asc.broadcast_to(asc.zeros(1, dtype='int64'), (1, 2**32))"
    exprs = [
        f"{a} + {b}",
        f"asc.multiply({a}, {b})",
        f"asc.where({a} > 0, {a}, {b})",
        f"asc.zeros((2, 2))[{i}, {j}]",
        f"asc.zeros((2, 2)).__setitem__(({i}, {j}), 1.0)",
        f"asc.zeros((2, 2)).__setitem__((slice(None), slice(None)), {a} + {b})",
        # Valid: a 2**62-element int8 view is representable; its size is exact.
        "asc.broadcast_to(asc.ones(1, dtype='int8'), (2**62,))",
        "asc.broadcast_to(asc.ones(1, dtype='int8'), (2**31, 2**31))",
    ]
    got = _run(run_python, exprs, eager)
    for e in exprs[:6]:
        _assert_raises(got[e], "ValueError")
    assert got[exprs[6]] == ["ok", [2**62], 2**62]
    assert got[exprs[7]] == ["ok", [2**31, 2**31], 2**62]
    # NumPy agrees on the class for the expressions it can build.
    npa = np.broadcast_to(np.ones(1, np.int8), (2**32, 1))
    npb = np.broadcast_to(np.ones(1, np.int8), (1, 2**32))
    with pytest.raises(ValueError):
        npa + npb  # noqa: B018


def test_valid_large_views_keep_their_size():
    """Views of representable size are unchanged by the checks (no false positives)."""
    h = asc.broadcast_to(asc.ones(1, dtype="int8"), (2**62 - 1,))
    assert h.size == np.broadcast_to(np.ones(1, np.int8), (2**62 - 1,)).size == 2**62 - 1
    v = asc.broadcast_to(asc.arange(3.0), (2**20, 3))
    assert v.size == 3 * 2**20 and v.shape == (2**20, 3)
    np.testing.assert_array_equal(np.asarray(v[-1]), [0.0, 1.0, 2.0])
    e = asc.empty((2**62, 0), dtype="int8")
    assert e.shape == (2**62, 0) and e.size == 0 == np.empty((2**62, 0), np.int8).size
    with pytest.raises(ValueError):  # NumPy: the nonzero dims times the itemsize must fit int64
        np.empty((2**62, 0))
    with pytest.raises(ValueError):
        asc.empty((2**62, 0))
    for n in (0, 1, 7, 8, 9, 63, 64, 65, 4095, 4096, 4097):
        for dt in (np.int8, np.float64):
            x = np.arange(n).astype(dt)
            np.testing.assert_array_equal(np.asarray(asc.repeat(asc.asarray(x), 3)), np.repeat(x, 3))
            np.testing.assert_array_equal(np.asarray(asc.concatenate([asc.asarray(x)] * 3)), np.concatenate([x] * 3))


# ---------------------------------------------------------------- item 9: out= of reductions

_REDUCTIONS = ["sum", "prod", "max", "min", "all", "any", "mean", "argmax", "argmin", "nansum", "nanmax"]


@pytest.mark.parametrize("eager", [False, True])
@pytest.mark.parametrize("name", _REDUCTIONS)
def test_reduction_out_must_have_the_result_shape(name, eager):
    previous = asc.is_eager()
    asc.set_eager(eager)
    try:
        cases = [
            ((5,), dict(axis=0), (0,)),          # 0-d result, empty out
            ((5,), dict(axis=0), (1,)),          # 0-d result, 1-element out
            ((1, 1, 1), dict(axis=0), (2, 3)),   # (1, 1) result, larger out
            ((2, 3), dict(axis=0), (1, 3)),      # wrong ndim
            ((2, 3), dict(axis=0), (4,)),        # wrong length
            ((2, 3), dict(axis=1, keepdims=True), (2,)),
        ]
        for shape, kw, out_shape in cases:
            if name in ("argmax", "argmin") and kw.get("keepdims"):
                continue
            out_dtype = {"all": bool, "any": bool, "argmax": np.int64, "argmin": np.int64}.get(name, np.float64)
            with pytest.raises(ValueError):
                getattr(np, name)(np.ones(shape), **kw, out=np.zeros(out_shape, out_dtype))
            with pytest.raises(ValueError) as ei:
                getattr(asc, name)(asc.ones(shape), **kw, out=asc.zeros(out_shape, out_dtype))
            assert isinstance(ei.value, asc.AscendError)
        # The right shape still works, and writes into out.
        x = np.arange(6.0).reshape(2, 3)
        out_dtype = {"all": bool, "any": bool, "argmax": np.int64, "argmin": np.int64}.get(name, np.float64)
        o = asc.zeros(3, out_dtype)
        r = getattr(asc, name)(asc.asarray(x), axis=0, out=o)
        assert r is o
        np.testing.assert_array_equal(np.asarray(o), getattr(np, name)(x, axis=0).astype(out_dtype))
        o0 = asc.zeros((), out_dtype)
        getattr(asc, name)(asc.asarray(x), out=o0)
        np.testing.assert_array_equal(np.asarray(o0), np.asarray(getattr(np, name)(x)).astype(out_dtype))
    finally:
        asc.set_eager(previous)


# ---------------------------------------------------------------- item 10: uint64 and huge indices


@pytest.mark.parametrize(
    "key",
    [np.uint64(2**64 - 1), np.uint64(2**63), np.array(2**64 - 1, np.uint64), 2**63, 2**64 - 1, -(2**63) - 1],
    ids=["u64max", "u64_2p63", "0d_u64max", "int_2p63", "int_2p64m1", "int_neg"],
)
def test_huge_integer_index_overflows_like_numpy(key):
    a, na = asc.arange(10.0), np.arange(10.0)
    # NumPy: OverflowError above the int64 range, IndexError below it.
    cls = IndexError if isinstance(key, int) and key < 0 else OverflowError
    with pytest.raises(cls):
        na[key]
    with pytest.raises(cls) as ei:
        a[key]
    assert isinstance(ei.value, asc.AscendError)
    with pytest.raises(cls):
        na[key] = 1.0
    with pytest.raises(cls):
        a[key] = 1.0
    np.testing.assert_array_equal(np.asarray(a), na)  # unchanged
    # Slice bounds clamp as Python's do (no error, no wrap-around).
    for sl in (slice(key, None), slice(None, key), slice(None, None, key), slice(key, None, -1)):
        np.testing.assert_array_equal(np.asarray(a[sl]), na[sl])


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int64])
def test_unsigned_index_values_that_fit(dt):
    a, na = asc.arange(10.0), np.arange(10.0)
    for v in (0, 5, 9):
        k = dt(v)
        assert float(a[k]) == na[k]
        assert float(a[np.array(v, dt)]) == na[np.array(v, dt)]
    idx = np.array([9, 3, 0], dt)
    np.testing.assert_array_equal(np.asarray(a[idx]), na[idx])


# ---------------------------------------------------------------- item 8: Python values in constructors

_TARGETS = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
            np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128]
_VALUES = [300, -1, 127, 128, 255, 256, -129, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1,
           float("nan"), float("inf"), -float("inf"), 1.5, -0.0, 1e300, 65504.0, True, 0]


def _both(fn_np, fn_asc):
    try:
        expected = fn_np()
    except (OverflowError, ValueError, TypeError) as e:
        cls = next(c for c in (OverflowError, ValueError, TypeError) if isinstance(e, c))
        with pytest.raises(cls) as ei:
            fn_asc()
        assert isinstance(ei.value, asc.AscendError), type(ei.value)
        return
    got = fn_asc()
    g = np.asarray(got)
    assert g.dtype == expected.dtype and g.shape == expected.shape
    np.testing.assert_array_equal(g, expected)


@pytest.mark.parametrize("dt", _TARGETS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("ctor", ["asarray", "array"])
def test_python_values_do_not_wrap(ctor, dt):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's own RuntimeWarnings (inf -> float16 etc.)
        for v in _VALUES:
            for obj in (v, [v], [[v, 0]], (1, v)):
                _both(lambda: getattr(np, ctor)(obj, dtype=dt), lambda: getattr(asc, ctor)(obj, dtype=dt))
        # The probe's cases, explicitly.
    with pytest.raises(OverflowError):
        asc.asarray([300], dtype="int8")
    with pytest.raises(OverflowError):
        asc.array(-1, dtype="uint8")
    with pytest.raises(ValueError):
        asc.asarray([float("nan")], dtype="int64")


def test_arrays_and_numpy_scalars_still_cast():
    """Only Python values are range-checked; arrays (NumPy or pyasc) cast as astype does, as in NumPy."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for src in (np.array([300, -1]), np.int64(300), asc.asarray([300, -1])):
            expected = np.asarray(np.asarray(src), dtype=np.int8)
            np.testing.assert_array_equal(np.asarray(asc.asarray(src, dtype="int8")), expected)
            np.testing.assert_array_equal(np.asarray(asc.array(src, dtype="int8")), expected)
