"""Running one fuzz case and comparing its results (fuzz_harness.py): the call for NumPy or
pyasc (in-process, or in a fork()ed child with a time limit), the value comparison rules (ULP
bounds, summation-order tolerance, NaN/Inf/zero-sign handling) and exception matching.
"""

from __future__ import annotations

import operator
import os
import time
import warnings


import ml_dtypes
import numpy as np

import pyasc as asc

from fuzz_cases import ACCUM, SHAPE_ONLY, SORT_ZERO_SIGN, TIES, ULP, UNORDERED, build


class _Result:
    def __init__(self, value=None, exc=None):
        self.value, self.exc = value, exc


def _target(kind, name, xp):
    if kind == "fn":
        return getattr(xp, name)
    if kind == "linalg":
        return getattr(xp.linalg, name)
    if kind == "op":
        return getattr(operator, name)
    return None


def _normalize(v, depth=0):
    """Materializes a result: pyasc arrays -> numpy arrays, containers recursively."""
    if depth > 4:
        return v
    if isinstance(v, asc.ndarray):
        return ("array", np.asarray(v))
    if isinstance(v, np.ndarray):
        return ("array", v)
    if isinstance(v, np.generic):
        return ("array", np.asarray(v))
    if isinstance(v, (tuple, list)):
        return (type(v).__name__ if type(v) in (tuple, list) else "tuple", [_normalize(x, depth + 1) for x in v])
    if isinstance(v, (bool, int, float, complex, str, bytes, type(None))):
        return ("py", type(v).__name__, v)
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        return ("dtype", str(np.dtype(v)))
    if hasattr(v, "__iter__") and not isinstance(v, dict):
        return ("iter", [_normalize(x, depth + 1) for x in v])
    return ("other", repr(v))


def _call(case, xp):
    kind, name, args, kwargs = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                a = [build(s, xp) for s in args]
                kw = {k: build(s, xp) for k, s in kwargs}
                if kind == "method":
                    out = getattr(a[0], name)(*a[1:], **kw)
                else:
                    out = _target(kind, name, xp)(*a, **kw)
                return _Result(_normalize(out))
            except Exception as e:  # noqa: BLE001 - every exception is data here
                return _Result(exc=e)


class _Hang:
    """The call did not finish within the time limit (a 2**62-element loop)."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __repr__(self):
        return f"<no result within {self.seconds} s>"


def _call_isolated(case, xp, eager, timeout=1.5):
    """_call in a fork()ed child with a time limit: cases with huge broadcast
    views may make NumPy (or pyasc) loop over 2**62 elements."""
    import pickle
    import select

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            if xp is asc:
                asc.set_eager(eager)
            res = _call(case, xp)
            try:
                payload = pickle.dumps((res.value, res.exc))
            except Exception as e:  # noqa: BLE001
                # NumPy's AxisError holding an array axis does not pickle (its __reduce__ rebuilds
                # it from the message alone): the class and the message are what is compared
                try:
                    payload = pickle.dumps((None, type(res.exc)(str(res.exc))))
                except Exception:  # noqa: BLE001
                    payload = pickle.dumps((None, RuntimeError(f"unpicklable result: {e}")))
            with os.fdopen(w, "wb") as f:
                f.write(payload)
        finally:
            os._exit(0)
    os.close(w)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(r, "rb") as f:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([f], [], [], left)[0]:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return _Result(exc=_Hang(timeout))
            b = os.read(f.fileno(), 1 << 20)
            if not b:
                break
            chunks.append(b)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return _Result(exc=_Crash(status))
    value, exc = pickle.loads(b"".join(chunks))
    return _Result(value, exc)


class _Crash(Exception):
    def __init__(self, status):
        super().__init__(f"child died with wait status {status}")


def _float_info(dt):
    return ml_dtypes.finfo(dt) if dt == np.dtype(ml_dtypes.bfloat16) else np.finfo(dt)


def _ulps(g, e, dt, scale=None):
    """|g - e| in units of dt's spacing at e (at max(|e|, scale) when given; float64 arithmetic)."""
    fi = _float_info(dt)
    ge, ee = g.astype(np.float64), e.astype(np.float64)
    at = ee if scale is None else np.maximum(np.abs(ee), scale)
    with np.errstate(all="ignore"):
        _, ex = np.frexp(np.where(at == 0, fi.tiny, at))
        ex = np.maximum(ex - 1, fi.minexp)
        spacing = np.ldexp(1.0, ex - fi.nmant)
        return np.abs(ge - ee) / spacing


def _name_key(case):
    kind, name = case[0], case[1]
    if kind == "op":
        return {"pow": "pow_op", "matmul": "matmul_op"}.get(name, name)
    return name


def _loop_float_dtype(case, dt):
    """The float dtype the values were computed in: a ufunc writing into a wider out= (arctan2 of
    uint16 into a float64 out runs the float32 loop) is judged in ULPs of its loop's dtype."""
    kw = dict(case[3])
    if case[0] != "fn" or "out" not in kw or np.dtype(dt).kind != "f":
        return dt
    r = _call((case[0], case[1], case[2], tuple((k, v) for k, v in case[3] if k != "out")), np)
    if r.exc is None and isinstance(r.value, tuple) and r.value[0] == "array":
        d = r.value[1].dtype
        if d.kind == "f" and d.itemsize < np.dtype(dt).itemsize:
            return d
    return dt


# logaddexp(x, y) = m + log1p(exp(-|x - y|)) with m = max(x, y): the last addition cancels when the
# result is near 0 (m = -1, log2 term 0.997: 8 bits lost), for NumPy as for any implementation
# (NumPy's own float64 logaddexp2(-1.0057, -1.0) is 146 ulp of its result off), so the error is
# measured in ulps of max(|result|, |m|) -- the magnitude of the terms added -- not of the result
_CANCEL = {"logaddexp", "logaddexp2"}


def _cancel_scale(case, shape):
    """|max(x1, x2)| broadcast to the result shape for the _CANCEL functions (else None)."""
    if _name_key(case) not in _CANCEL or case[0] != "fn" or len(case[2]) != 2:
        return None
    try:
        with np.errstate(all="ignore"):
            a, b = (np.asarray(build(x, np), dtype=np.float64) for x in case[2])
            return np.broadcast_to(np.abs(np.maximum(a, b)), shape)
    except Exception:  # noqa: BLE001
        return None


# polydiv's remainder is u - q*v after cancellation: its exact value is often 0 and what is left is
# the rounding of the terms subtracted, ulps of |u| (a dividend of 1e30 in complex64 leaves a
# 7.6e22 remainder, 1 ulp of 1e30, in one summation order and 5e21 in another: seed 20301's "wrong"
# case). Its error is measured against the dividend's magnitude, the quotient's against its own.
_REMAINDER = {"polydiv"}


def _remainder_scale(case):
    """max |u| (float64) of polydiv's dividend, else None."""
    if case[0] != "fn" or _name_key(case) not in _REMAINDER or not case[2]:
        return None
    try:
        with np.errstate(all="ignore"):
            u = np.abs(np.asarray(build(case[2][0], np)).astype(np.complex128))
            return float(np.max(u[np.isfinite(u)], initial=0.0))
    except Exception:  # noqa: BLE001
        return None


# NumPy computes complex matrix products with BLAS (cblas_zgemm/zgemv/zdotu; strided and reversed
# views gave the same NaNs in the check below), whose kernels combine the partial products and scale by alpha = 1+0j:
# (inf+infj) * (1+0j) is nan+nanj, so an infinite operand makes NaN parts where the plain sum of
# products (C99 Annex G, Python's complex, NumPy's object loop: inf+infj) is infinite -- and which
# part goes NaN depends on the kernel path (seed 50: [[1e-30, inf]] @ [[1+1j], [.92+1.72j]] is
# nan+infj as a 1x2x1 product, nan+nanj inside a 3x2x3 one). There, a NaN part of NumPy's answer
# accepts a non-finite part of ours at the same element, when an operand holds an infinity; a NaN
# of ours where NumPy's is finite, or a finite part where NumPy's is NaN, is still an error.
_BLAS_COMPLEX = {"matmul", "matmul_op", "__matmul__", "dot", "vdot", "inner", "tensordot", "multi_dot"}


def _operands_hold_inf(case):
    try:
        with np.errstate(all="ignore"):
            for x in case[2]:
                v = np.asarray(build(x, np))
                if v.dtype.kind in "fcV" and np.isinf(v.astype(np.complex128)).any():
                    return True
    except Exception:  # noqa: BLE001
        return False
    return False


def _blas_complex_nan(e, g, case):
    """(e, g), g's non-finite parts read as NaN where e's are NaN from BLAS (see _BLAS_COMPLEX)."""
    if e.dtype.kind != "c" or g.dtype != e.dtype or g.shape != e.shape or _name_key(case) not in _BLAS_COMPLEX:
        return e, g
    e_nan = np.isnan(e.real) | np.isnan(e.imag)
    if not e_nan.any() or not _operands_hold_inf(case):
        return e, g
    g = g.copy()
    for ep, gp in ((e.real, g.real), (e.imag, g.imag)):  # (views into the copy)
        gp[np.isnan(ep) & ~np.isfinite(gp)] = np.nan  # NumPy's NaN part: ours non-finite (the others as usual)
    return e, g


def _compare_arrays(e, g, case, scale_floor=None):
    """None if equal, else a short description (scale_floor: the magnitude of the terms whose
    cancellation gave these values, for the ACCUM/complex tolerance)."""
    unsorted_unique = case[1] == "unique" and ("sorted", ("py", False)) in tuple(case[3])
    if (_name_key(case) in UNORDERED or unsorted_unique) and e.ndim == 1 and g.ndim == 1:
        # (unique(sorted=False): NumPy >= 2.3 returns the hash table's order, unspecified)
        srt = np.sort_complex if e.dtype.kind == "c" else np.sort
        e, g = srt(e).astype(e.dtype), srt(g).astype(g.dtype)
    if g.dtype != e.dtype:
        return f"dtype {g.dtype} != {e.dtype}"
    if g.shape != e.shape:
        return f"shape {g.shape} != {e.shape}"
    e, g = _blas_complex_nan(e, g, case)
    key = _name_key(case)
    if key in SHAPE_ONLY:
        return None
    if key in TIES and not any(k in ("kind", "stable") and v in (("py", "stable"), ("py", True))
                               for k, v in case[3]):
        return None
    if e.dtype.kind == "O":
        return None if e.tolist() == g.tolist() else "object values differ"
    floatlike = e.dtype.kind in "fc" or e.dtype == np.dtype(ml_dtypes.bfloat16)
    if not floatlike:
        if np.array_equal(e, g):
            return None
        bad = np.argwhere(e != g)
        i = tuple(bad[0]) if bad.size else ()
        return f"values differ at {i}: {g[i]!r} != {e[i]!r}" if bad.size else "values differ"
    if e.dtype.kind == "c":
        parts = [(e.real, g.real), (e.imag, g.imag)]
    else:
        parts = [(e, g)]
    for ee, gg in parts:
        en, gn = np.isnan(ee.astype(np.float64)), np.isnan(gg.astype(np.float64))
        if not np.array_equal(en, gn):
            return "NaN positions differ"
        m = ~en
        ee, gg = ee[m], gg[m]
        if ee.size == 0:
            continue
        ef, gf = ee.astype(np.float64), gg.astype(np.float64)
        if not np.array_equal(np.isinf(ef) & (ef > 0), np.isinf(gf) & (gf > 0)) or \
                not np.array_equal(np.isinf(ef) & (ef < 0), np.isinf(gf) & (gf < 0)):
            if key not in ACCUM:
                return "Inf positions differ"
        dt = _loop_float_dtype(case, ee.dtype)
        if key in ULP and e.dtype.kind == "f":
            bits = np.dtype(dt).itemsize * 8
            bound = (ULP[key][0] + 4) if bits == 32 else (ULP[key][1] + 1) if bits == 64 else 2.0
            fin = np.isfinite(ef) & np.isfinite(gf)
            sc = _cancel_scale(case, e.shape)
            u = _ulps(gg[fin], ee[fin], dt, None if sc is None else sc[~en][fin])
            if u.size and u.max() > bound:
                return f"{u.max():.1f} ulp > {bound}"
            if not np.array_equal(ef[~fin], gf[~fin]):
                return "non-finite values differ"
        elif key in ACCUM or e.dtype.kind == "c":
            eps = float(_float_info(dt).eps)
            fin = np.isfinite(ef) & np.isfinite(gf)
            scale = max(np.max(np.abs(ef[fin]), initial=0.0), scale_floor or 0.0)
            n = max(16, 8 * max(a.size for a in [ee]) + 64)
            tol = eps * n if case[0] != "linalg" else np.sqrt(eps)  # inverses: error grows with cond(a)
            if key == "cond":
                # cond(a) = s_max / s_min: s_min's absolute error is ~eps * s_max, so the relative error
                # of the answer is ~eps * cond(a) -- beyond 1/sqrt(eps) its digits are SVD rounding
                # (a 4.6e17 condition number of a uint64 matrix differs by 5% between LAPACK builds)
                tol = max(tol, 8 * eps * float(np.max(np.abs(ef[np.isfinite(ef)]), initial=0.0)))
            if not np.allclose(gf[fin], ef[fin], rtol=tol, atol=tol * max(scale, 1.0)):
                d = np.max(np.abs(gf[fin] - ef[fin]))
                return f"max |diff| {d:.3g} > tol {tol:.2g} (scale {scale:.3g})"
        else:
            same = (ef == gf) & ((np.signbit(ef) == np.signbit(gf)) | (key in SORT_ZERO_SIGN))
            if not same.all():
                i = np.argwhere(~same)[0]
                return f"values differ (exact): {gf[tuple(i)]!r} != {ef[tuple(i)]!r}"
    return None


def _compare(e, g, case, scale_floor=None):
    if e[0] == "array" and g[0] == "array":
        return _compare_arrays(e[1], g[1], case, scale_floor)
    if e[0] == "array" and g[0] == "py" or e[0] == "py" and g[0] == "array":
        ea = e[1] if e[0] == "array" else np.asarray(e[2])
        ga = g[1] if g[0] == "array" else np.asarray(g[2])
        if e[0] == "py" and e[1] in ("int", "bool", "float", "complex") and g[0] == "array" and g[1].ndim == 0:
            # NumPy returned a Python scalar: pyasc must give the same kind of value
            kinds = {"bool": "b", "int": "iu", "float": "f", "complex": "c"}[e[1]]
            if ga.dtype.kind not in kinds:
                return f"Python {e[1]} expected, got {ga.dtype}"
            return None if (ga == ea or (np.isnan(ea) and np.isnan(ga)) if ga.dtype.kind in "fc" else ga == ea) \
                else f"{ga!r} != {ea!r}"
        return _compare_arrays(ea, ga, case, scale_floor)
    if e[0] in ("tuple", "list", "iter") and g[0] in ("tuple", "list", "iter"):
        if len(e[1]) != len(g[1]):
            return f"length {len(g[1])} != {len(e[1])}"
        for i, (ee, gg) in enumerate(zip(e[1], g[1])):
            d = _compare(ee, gg, case, _remainder_scale(case) if i == 1 else None)
            if d:
                return f"[{i}] {d}"
        return None
    if e[0] == "py" and g[0] == "py":
        if e[1] != g[1]:
            return f"type {g[1]} != {e[1]}"
        if e[2] == g[2] or (isinstance(e[2], float) and e[2] != e[2] and g[2] != g[2]):
            return None
        if isinstance(e[2], complex) and isinstance(g[2], complex) and all(
                x == y or (x != x and y != y) for x, y in ((e[2].real, g[2].real), (e[2].imag, g[2].imag))):
            return None  # (a complex holding NaN: compared part by part, NaN where NaN)
        return f"{g[2]!r} != {e[2]!r}"
    if e[0] == g[0]:
        return None if e[1] == g[1] else f"{g[1]!r} != {e[1]!r}"
    return f"result kind {g[0]} != {e[0]}"


def _is_unclear(exc):
    if isinstance(exc, (SystemError, RecursionError)):
        return True
    if isinstance(exc, RuntimeError) and not isinstance(exc, (asc.AscendError, NotImplementedError)):
        return "Unable to cast" in str(exc) or "incompatible function arguments" in str(exc) or \
            type(exc) is RuntimeError
    if type(exc).__name__ in ("TypeError",) and "incompatible function arguments" in str(exc):
        return True
    return isinstance(exc, (AttributeError, KeyError, NameError, AssertionError, ZeroDivisionError, RecursionError,
                            UnboundLocalError))


_GENERIC = (BaseException, Exception, object, Warning)


def _matches(np_exc, a_exc):
    t = type(np_exc)
    if isinstance(a_exc, t):
        return True
    for base in t.__mro__[1:]:
        if base in _GENERIC:
            continue
        if base.__module__ == "builtins" and isinstance(a_exc, base):
            return True
    return False
