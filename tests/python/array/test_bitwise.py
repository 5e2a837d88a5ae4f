"""Bitwise ops (src/ops/bitwise.cc) against NumPy 2.4, bit for bit: every
integer dtype and bool, mixed dtypes and NEP 50 weak scalars, shift counts at
and past the bit width and negative, broadcasting, strided/negative-stride/
empty/0-d operands, lengths around the SIMD widths and tile sizes, operators
(reflected, in place), out=, np.* dispatch, errors, lazy vs eager, fusion,
and every Highway target (ASC_SIMD_TARGET in a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyasc as asc

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
BITWISE = INTS + [np.bool_]
BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
UNARY = ["invert", "bitwise_count"]
# Around 1..8 vectors of 8..64-bit lanes, the fused sub-tile (384) and tile (4096) sizes.
SIZES = list(range(0, 71)) + [127, 128, 129, 383, 384, 385, 4095, 4096, 4097, 70001]


def values(dt, n, seed=0):
    """n values of dt: the extremes, -1/0/1 and random bits."""
    dt = np.dtype(dt)
    rng = np.random.default_rng(seed + 17 * n)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    i = np.iinfo(dt)
    special = np.array([0, 1, i.max, i.min, -1 if i.min < 0 else 2, i.max - 1, 5], dtype=object)
    out = rng.integers(i.min, int(i.max) + 1, n, dtype=dt, endpoint=False)
    pick = rng.integers(0, 3, n) == 0
    out[pick] = special[rng.integers(0, len(special), int(pick.sum()))].astype(dt)
    return out


def counts(dt, n, seed=0):
    """Shift counts of dt: in range, at/past the width and (signed) negative."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return values(dt, n, seed)
    bits = dt.itemsize * 8
    rng = np.random.default_rng(seed + 31 * n)
    special = [0, 1, bits - 1, bits, bits + 1, np.iinfo(dt).max]
    if dt.kind == "i":
        special += [-1, -bits, -(bits + 1), np.iinfo(dt).min]
    out = rng.integers(0, bits, n).astype(dt)
    pick = rng.integers(0, 3, n) == 0
    out[pick] = np.array(special, dtype=object)[rng.integers(0, len(special), int(pick.sum()))].astype(dt)
    return out


def same(got, want):
    got_np = np.asarray(got)
    assert isinstance(got, asc.ndarray), type(got)
    assert got_np.dtype == want.dtype, (got_np.dtype, want.dtype)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    np.testing.assert_array_equal(got_np, want)


def second(name, dt, n, seed=1):
    return counts(dt, n, seed) if "shift" in name else values(dt, n, seed)


# ---------------------------------------------------------------- every dtype, every length

@pytest.mark.parametrize("dt", BITWISE, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_every_dtype_and_length(mode, name, dt):
    for n in SIZES:
        a, b = values(dt, n), second(name, dt, n)
        want = getattr(np, name)(a, b)
        same(getattr(asc, name)(asc.asarray(a), asc.asarray(b)), want)
        if n:
            # Array op 0-d array and 0-d array op array (the scalar-operand kernels).
            same(getattr(asc, name)(asc.asarray(a), asc.asarray(b[:1].reshape(()))), getattr(np, name)(a, b[0]))
            same(getattr(asc, name)(asc.asarray(a[:1].reshape(())), asc.asarray(b)), getattr(np, name)(a[0], b))


@pytest.mark.parametrize("dt", BITWISE, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_every_dtype_and_length(mode, name, dt):
    for n in SIZES:
        a = values(dt, n)
        same(getattr(asc, name)(asc.asarray(a)), getattr(np, name)(a))


@pytest.mark.parametrize("dt", INTS, ids=lambda d: np.dtype(d).name)
def test_shift_counts_at_and_past_the_width(mode, dt):
    bits = np.dtype(dt).itemsize * 8
    a = np.array([1, -1 if np.dtype(dt).kind == "i" else 3, np.iinfo(dt).min, np.iinfo(dt).max, 5] * 5, dtype=dt)
    cs = [0, 1, bits - 1, bits, bits + 1, 2 * bits, np.iinfo(dt).max]
    if np.dtype(dt).kind == "i":
        cs += [-1, -bits, np.iinfo(dt).min]
    for c in cs:
        cnt = np.full(a.shape, c, dtype=dt)
        for name in ("left_shift", "right_shift"):
            want = getattr(np, name)(a, cnt)
            same(getattr(asc, name)(asc.asarray(a), asc.asarray(cnt)), want)
            same(getattr(asc, name)(asc.asarray(a), asc.asarray(np.array(c, dtype=dt))), want)
            same(getattr(asc, name)(asc.asarray(a[::-3]), asc.asarray(cnt[::3])), getattr(np, name)(a[::-3], cnt[::3]))
    # Right shifts past the width keep the sign: -1 for negative signed values, else 0.
    r = np.asarray(asc.right_shift(asc.asarray(a), asc.asarray(np.full(a.shape, bits, dtype=dt))))
    np.testing.assert_array_equal(r, np.where(a < 0, -1, 0).astype(dt))


def test_bool_semantics(mode):
    t = np.array([True, True, False, False])
    f = np.array([True, False, True, False])
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
        same(getattr(asc, name)(asc.asarray(t), asc.asarray(f)), getattr(np, name)(t, f))
    assert asc.left_shift(asc.asarray(t), asc.asarray(f)).dtype == np.int8  # no bool shift loop: int8
    same(asc.invert(asc.asarray(t)), ~t)
    same(asc.bitwise_count(asc.asarray(t)), np.bitwise_count(t))  # uint8
    same(~asc.asarray(t), ~t)
    same(asc.asarray(t) << True, t << True)


# ---------------------------------------------------------------- promotion, weak scalars

@pytest.mark.parametrize("name", BINARY)
def test_mixed_dtypes(mode, name):
    for da in BITWISE:
        for db in BITWISE:
            a, b = values(da, 37, 3), second(name, db, 37, 4)
            try:
                want = getattr(np, name)(a, b)
            except TypeError as e:  # int64 with uint64 (float64), bool shifts are fine
                with pytest.raises(asc.AscendTypeError, match=name) as info:
                    getattr(asc, name)(asc.asarray(a), asc.asarray(b))
                assert str(e) in str(info.value)
                continue
            same(getattr(asc, name)(asc.asarray(a), asc.asarray(b)), want)


@pytest.mark.parametrize("dt", BITWISE, ids=lambda d: np.dtype(d).name)
def test_weak_python_scalars(mode, dt):
    a = values(dt, 50, 5)
    ax = asc.asarray(a)
    scalars = [0, 1, 3, 7, 8, 63, 64, 100, 127, 255, 0xFF, -1, -128, 2**31 - 1, 2**40, True, False]
    for s in scalars:
        for name in BINARY:
            fn_np, fn_asc = getattr(np, name), getattr(asc, name)
            for args_np, args_asc in (((a, s), (ax, s)), ((s, a), (s, ax))):
                try:
                    want = fn_np(*args_np)
                except OverflowError as e:
                    with pytest.raises(OverflowError, match=str(s)) as info:
                        fn_asc(*args_asc)
                    assert isinstance(info.value, asc.AscendError)
                    assert str(e).split(" out of")[0] in str(info.value)
                    continue
                same(fn_asc(*args_asc), want)


def test_scalar_only_and_float_scalars(mode):
    a8 = asc.asarray(np.array([1, 2, 3], np.int8))
    same(asc.bitwise_and(asc.asarray(np.int64(6)), 3), np.bitwise_and(np.int64(6), 3) * np.ones((), np.int64))
    for bad in (1.5, 1j):
        for name in BINARY:
            with pytest.raises(asc.AscendTypeError, match=f"ufunc '{name}' not supported for the input types"):
                getattr(asc, name)(a8, bad)
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        a8 & 300
    with pytest.raises(OverflowError, match="-1 out of bounds for uint8"):
        asc.asarray(np.array([1], np.uint8)) | -1
    same(1 << a8, 1 << np.array([1, 2, 3], np.int8))


def test_uint64_masks_beyond_int64(mode):
    # Python ints in [2**63, 2**64) are weak uint64 operands (NumPy 2); elsewhere OverflowError.
    u = values(np.uint64, 67, 23)
    x = asc.asarray(u)
    for s in (2**64 - 1, 2**63, 0xFFFF_FFFF_0000_0000):
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "right_shift", "left_shift"):
            same(getattr(asc, name)(x, s), getattr(np, name)(u, s))
            same(getattr(asc, name)(s, x), getattr(np, name)(s, u))
    for dt in (np.int64, np.int8, np.uint32):
        with pytest.raises(OverflowError):
            np.bitwise_and(np.ones(2, dt), 2**64 - 1)
        with pytest.raises(OverflowError, match="out of bounds"):
            asc.bitwise_and(asc.asarray(np.ones(2, dt)), 2**64 - 1)
    with pytest.raises(OverflowError):
        x & 2**64


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64, np.complex128, "bfloat16"])
def test_float_and_complex_are_type_errors(dt):
    import ml_dtypes

    dt = ml_dtypes.bfloat16 if dt == "bfloat16" else dt
    x = asc.asarray(np.ones(4, dtype=dt))
    i = asc.asarray(np.ones(4, dtype=np.int32))
    for name in BINARY:
        for args in ((x, i), (i, x), (x, x)):
            with pytest.raises(asc.AscendTypeError) as info:
                getattr(asc, name)(*args)
            msg = str(info.value)
            assert f"[{name}] ufunc '{name}' not supported for the input types" in msg
            assert "casting rule ''safe''" in msg
            assert np.dtype(dt).name in msg  # names the offending dtype
    for name in UNARY:
        with pytest.raises(asc.AscendTypeError, match=f"ufunc '{name}' not supported for the input types"):
            getattr(asc, name)(x)
    with pytest.raises(TypeError):
        ~x
    with pytest.raises(TypeError):
        x << 1


def test_int64_with_uint64_is_a_type_error_as_numpy():
    a = asc.asarray(np.array([1, 2], np.int64))
    b = asc.asarray(np.array([1, 2], np.uint64))
    for name in BINARY:
        with pytest.raises(TypeError) as np_info:
            getattr(np, name)(np.asarray(a), np.asarray(b))
        with pytest.raises(asc.AscendTypeError) as info:
            getattr(asc, name)(a, b)
        assert str(np_info.value) in str(info.value)
        assert "int64, uint64" in str(info.value)


def test_broadcast_error_names_shapes():
    with pytest.raises(ValueError, match=r"\[bitwise_and\] operands could not be broadcast together with shapes"):
        asc.bitwise_and(asc.asarray(np.ones((2, 3), np.int32)), asc.asarray(np.ones((4,), np.int32)))


# ---------------------------------------------------------------- layouts

@pytest.mark.parametrize("name", BINARY + UNARY)
def test_broadcast_strided_negative_empty_0d(mode, name):
    dt = np.int16 if "shift" not in name else np.int32
    a = values(dt, 6 * 35, 7).reshape(6, 35)
    b = second(name, dt, 35, 8)
    col = second(name, dt, 6, 9).reshape(6, 1)
    unary = name in UNARY
    f_np, f_asc = getattr(np, name), getattr(asc, name)

    def both(*xs):
        want = f_np(*xs)
        same(f_asc(*[asc.asarray(x) for x in xs]), want)

    if unary:
        cases = [(a,), (a[:, ::-1],), (a.T,), (a[::2, 1::3],), (a[:0],), (a[0, 0].reshape(()),)]
    else:
        cases = [(a, b), (a, col), (col, a), (a[:, ::-1], b[::-1]), (a.T, col.T), (a[::-2, ::3], b[::3]),
                 (a[:0], b), (a[0, 0].reshape(()), b[0].reshape(())), (a[0, 0].reshape(()), a), (b[:, None], b)]
    for xs in cases:
        both(*xs)
    # A non-contiguous view of a pyasc array (not of a NumPy array).
    ax = asc.asarray(a)
    got = f_asc(ax[:, ::-2]) if unary else f_asc(ax[:, ::-2], asc.asarray(b)[::-2])
    want = f_np(a[:, ::-2]) if unary else f_np(a[:, ::-2], b[::-2])
    same(got, want)


# ---------------------------------------------------------------- operators, out=

def test_operators_and_reflected_forms(mode):
    a = values(np.int32, 101, 11)
    b = counts(np.int32, 101, 12)
    x, y = asc.asarray(a), asc.asarray(b)
    same(x & y, a & b)
    same(x | y, a | b)
    same(x ^ y, a ^ b)
    same(x << y, a << b)
    same(x >> y, a >> b)
    same(~x, ~a)
    # Reflected: Python int and NumPy array on the left.
    same(0x0F0F & x, 0x0F0F & a)
    same(7 | x, 7 | a)
    same(-1 ^ x, -1 ^ a)
    same(1 << (y & 15), 1 << (b & 15))
    same(-1024 >> (y & 15), -1024 >> (b & 15))
    same(a & y, a & b)  # NumPy array on the left defers to ndarray (__array_ufunc__ = None)
    same(a << y, a << b)


@pytest.mark.parametrize("dt", BITWISE, ids=lambda d: np.dtype(d).name)
def test_inplace_operators(mode, dt):
    a = values(dt, 77, 13)
    for op in ("&=", "|=", "^=", "<<=", ">>="):
        name = {"&=": "bitwise_and", "|=": "bitwise_or", "^=": "bitwise_xor", "<<=": "left_shift",
                ">>=": "right_shift"}[op]
        b = second(name, dt, 77, 14)
        ref = a.copy()
        x = asc.asarray(a.copy())
        ident = id(x)
        try:
            exec(f"ref {op} b", {"ref": ref, "b": b})
        except TypeError:  # bool <<= bool: the int8 result does not cast back to bool
            with pytest.raises(TypeError, match="Cannot cast ufunc"):
                exec(f"x {op} y", {"x": x, "y": asc.asarray(b)})
            continue
        ns = {"x": x, "y": asc.asarray(b)}
        exec(f"x {op} y", ns)
        assert id(ns["x"]) == ident
        same(x, ref)
        # With a weak Python scalar.
        scalar = True if dt == np.bool_ else 3
        ref2 = a.copy()
        exec(f"ref2 {op} s", {"ref2": ref2, "s": scalar})
        ns = {"x": asc.asarray(a.copy()), "s": scalar}
        exec(f"x {op} s", ns)
        same(ns["x"], ref2)


def test_inplace_casts_back_and_refuses_unsafe():
    x = asc.asarray(np.array([1, 2, 3], np.int8))
    x <<= asc.asarray(np.array([1, 2, 3], np.int64))  # int64 result cast back to int8 (same_kind)
    same(x, np.array([2, 8, 24], np.int8))
    b = asc.asarray(np.array([True, False]))
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'bitwise_and' output from dtype\('int64'\) to dtype\('bool'\)"):
        b &= 1  # NumPy: the same UFuncTypeError


def test_out_argument(mode):
    a, b = values(np.uint16, 300, 15), counts(np.uint16, 300, 16)
    for name in BINARY:
        out = asc.empty(300, dtype=np.uint16)
        r = getattr(asc, name)(asc.asarray(a), asc.asarray(b), out=out)
        assert r is out
        same(out, getattr(np, name)(a, b))
        wide = asc.empty(300, dtype=np.int64)
        getattr(asc, name)(asc.asarray(a), asc.asarray(b), out=wide)
        same(wide, getattr(np, name)(a, b).astype(np.int64))
    out8 = asc.empty(300, dtype=np.uint8)
    assert asc.bitwise_count(asc.asarray(a), out=out8) is out8
    same(out8, np.bitwise_count(a))
    inv = asc.empty(300, dtype=np.uint16)
    asc.invert(asc.asarray(a), out=inv)
    same(inv, ~a)
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'bitwise_and' output from dtype\('uint16'\) to dtype\('bool'\)"):
        asc.bitwise_and(asc.asarray(a), asc.asarray(a), out=asc.empty(300, dtype=np.bool_))
    with pytest.raises(ValueError, match="could not be broadcast together"):
        asc.bitwise_or(asc.asarray(a), asc.asarray(a), out=asc.empty(3, dtype=np.uint16))


# ---------------------------------------------------------------- names, NumPy dispatch

def test_aliases_are_the_ops():
    assert asc.bitwise_not is asc.invert
    assert asc.bitwise_invert is asc.invert
    assert asc.bitwise_left_shift is asc.left_shift
    assert asc.bitwise_right_shift is asc.right_shift
    a = asc.asarray(np.array([5, -6], np.int16))
    same(asc.bitwise_not(a), np.bitwise_not(np.asarray(a)))
    same(asc.bitwise_invert(a), np.invert(np.asarray(a)))
    same(asc.bitwise_left_shift(a, 2), np.left_shift(np.asarray(a), 2))
    same(asc.bitwise_right_shift(a, 1), np.right_shift(np.asarray(a), 1))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not", "bitwise_invert",
                 "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "bitwise_count"):
        assert name in asc.numeric.__all__  # the namespace (`from pyasc import *` exports the runtime API)
        assert getattr(asc, name).__doc__


def test_numpy_ufuncs_dispatch_to_pyasc(mode):
    a, b = values(np.int32, 40, 21), counts(np.int32, 40, 22)
    x, y = asc.asarray(a), asc.asarray(b)
    for fn in (np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift):
        same(fn(x, y), fn(a, b))
        same(fn(x, 3), fn(a, 3))
    for fn in (np.invert, np.bitwise_not, np.bitwise_count):
        same(fn(x), fn(a))
    out = asc.empty(40, dtype=np.int32)
    assert np.bitwise_xor(x, y, out=out) is out
    same(out, a ^ b)


# ---------------------------------------------------------------- lazy graphs

def test_lazy_equals_eager_and_fuses_into_one_group():
    rng = np.random.default_rng(5)
    a, b, c, d = (rng.integers(-2**31, 2**31, 50000, dtype=np.int64).astype(np.int32) for _ in range(4))
    prev = asc.is_eager()
    try:
        asc.set_eager(False)
        xs = [asc.asarray(v) for v in (a, b, c, d)]
        before = asc.lazy.graph_stats()["groups_run"]
        r = (xs[0] & xs[1]) | (xs[2] ^ ~xs[3])
        s = (r << 3) >> (xs[1] & 7)
        asc.eval(r, s)
        assert asc.lazy.graph_stats()["groups_run"] - before == 1
        lazy_r, lazy_s = np.asarray(r).copy(), np.asarray(s).copy()
        cnt = asc.bitwise_count(xs[0] ^ xs[1])
        before = asc.lazy.graph_stats()["groups_run"]
        cnt.eval()
        assert asc.lazy.graph_stats()["groups_run"] - before == 1
        lazy_cnt = np.asarray(cnt).copy()
        asc.set_eager(True)
        xs = [asc.asarray(v) for v in (a, b, c, d)]
        er = (xs[0] & xs[1]) | (xs[2] ^ ~xs[3])
        es = (er << 3) >> (xs[1] & 7)
        ecnt = asc.bitwise_count(xs[0] ^ xs[1])
    finally:
        asc.set_eager(prev)
    want_r = (a & b) | (c ^ ~d)
    want_s = (want_r << 3) >> (b & 7)
    np.testing.assert_array_equal(lazy_r, want_r)
    np.testing.assert_array_equal(lazy_s, want_s)
    np.testing.assert_array_equal(np.asarray(er), want_r)
    np.testing.assert_array_equal(np.asarray(es), want_s)
    np.testing.assert_array_equal(lazy_cnt, np.bitwise_count(a ^ b))
    np.testing.assert_array_equal(np.asarray(ecnt), np.bitwise_count(a ^ b))


def test_lazy_fusion_with_casts_broadcasts_and_inplace():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 256, (300, 257), dtype=np.uint8)
    col = rng.integers(-100, 100, (300, 1), dtype=np.int16)
    prev = asc.is_eager()
    try:
        asc.set_eager(False)
        x, c = asc.asarray(a), asc.asarray(col)
        before = asc.lazy.graph_stats()["groups_run"]
        r = (x ^ 0x5A) & c  # uint8 & int16 -> int16 (a cast node), broadcast column
        r <<= 2  # in-place updates of the pending value are recorded too
        r |= x
        r >>= c & 3
        got = np.asarray(r).copy()
        assert asc.lazy.graph_stats()["groups_run"] - before == 1
    finally:
        asc.set_eager(prev)
    want = (a ^ 0x5A) & col
    want <<= 2
    want |= a
    want >>= col & 3
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


# ---------------------------------------------------------------- SIMD targets

_TARGET_CODE = textwrap.dedent("""
    import hashlib, numpy as np, pyasc as asc
    ints = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]
    bad = []
    for dt in ints:
        for n in list(range(0, 70)) + [127, 129, 4097]:
            rng = np.random.default_rng(n)
            if dt == np.bool_:
                a = rng.integers(0, 2, n).astype(dt); b = rng.integers(0, 2, n).astype(dt)
            else:
                info = np.iinfo(dt)
                a = rng.integers(info.min, int(info.max) + 1, n, dtype=dt)
                bits = np.dtype(dt).itemsize * 8
                b = rng.integers(-bits - 2 if info.min < 0 else 0, bits + 3, n).astype(dt)
            for name in ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]:
                f, g = getattr(np, name), getattr(asc, name)
                pairs = [(a, b)] + ([(a, b[:1].reshape(())), (a[:1].reshape(()), b)] if n else [])
                for x, y in pairs:
                    if not np.array_equal(np.asarray(g(asc.asarray(x), asc.asarray(y))), f(x, y)):
                        bad.append((name, str(np.dtype(dt)), n))
            for name in ["invert", "bitwise_count"]:
                if not np.array_equal(np.asarray(getattr(asc, name)(asc.asarray(a))), getattr(np, name)(a)):
                    bad.append((name, str(np.dtype(dt)), n))
    print("BAD", bad[:5], len(bad))
""")


@pytest.mark.parametrize("target", ["SCALAR", "SSE4", "AVX2", ""])
def test_every_simd_target_matches_numpy(target):
    env = dict(os.environ, PYASC_EAGER="1")
    if target:
        env["ASC_SIMD_TARGET"] = target
    else:
        env.pop("ASC_SIMD_TARGET", None)
    out = subprocess.run([sys.executable, "-c", _TARGET_CODE], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "BAD [] 0" in out.stdout, out.stdout
