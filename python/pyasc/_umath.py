"""NumPy ufuncs composed in Python from pyasc's device ops (not in the C++
registry): ``modf``, ``frexp``, ``divmod``, ``gcd``, ``lcm``.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from . import _C
from ._helpers import _TE, _arr, _dt, _kind, _to_out

__all__ = [
    "modf", "frexp", "divmod", "gcd", "lcm",
]


def modf(x, out1=None, out2=None):
    """Fractional and integral parts, both with the sign of ``x`` (``modf(inf) = (0, inf)``)."""
    xv = _arr(x)
    if _kind(xv) not in "f":
        xv = _C.astype(xv, _np.result_type(_dt(xv), _np.float16) if _kind(xv) != "c" else _dt(xv))
    if _kind(xv) == "c":
        raise _TE(f"[modf] ufunc 'modf' not supported for the input type {xv.dtype}")
    ip = _C.trunc(xv)
    fp = _C.copysign(_C.where(_C.isinf(xv), 0.0, _C.subtract(xv, ip)), xv)
    fp = _C.astype(fp, xv.dtype)
    return _to_out(fp, out1), _to_out(ip, out2)


def frexp(x, out1=None, out2=None):
    """Mantissa in [0.5, 1) (with the sign of ``x``) and int32 exponent with ``x = m * 2**e``."""
    xv = _arr(x)
    if _kind(xv) == "c":
        raise _TE(f"[frexp] ufunc 'frexp' not supported for the input type {xv.dtype}")
    if _kind(xv) != "f":
        xv = _C.astype(xv, _np.result_type(_dt(xv), _np.float16))
    dt = _dt(xv)
    x64 = _C.astype(xv, _np.float64)  # exact for every float dtype, so subnormals need no care
    special = _C.logical_or(_C.equal(x64, 0.0), _C.logical_not(_C.isfinite(x64)))
    ax = _C.where(special, 1.0, _C.absolute(x64))
    e = _C.add(_C.floor(_C.log2(ax)), 1.0)
    m = _C.ldexp(ax, _C.astype(_C.negative(e), _np.int32))
    # log2 may round across a power of two: fix the exponent by one either way.
    big = _C.greater_equal(m, 1.0)
    e = _C.where(big, _C.add(e, 1.0), e)
    m = _C.where(big, _C.multiply(m, 0.5), m)
    small = _C.less(m, 0.5)
    e = _C.where(small, _C.subtract(e, 1.0), e)
    m = _C.where(small, _C.multiply(m, 2.0), m)
    m = _C.where(special, x64, _C.copysign(m, x64))
    e = _C.where(special, 0.0, e)
    return _to_out(_C.astype(m, dt), out1), _to_out(_C.astype(e, _np.int32), out2)


def divmod(x1, x2, out1=None, out2=None):  # noqa: A001 - NumPy's name
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return _to_out(_C.floor_divide(x1, x2), out1), _to_out(_C.remainder(x1, x2), out2)


def _int_pair(x1, x2, name):
    ops = []
    for v in (x1, x2):
        if isinstance(v, int) and not isinstance(v, bool):
            ops.append(v)  # a Python int stays weak (NEP 50)
            continue
        v = _arr(v)
        if _kind(v) not in "iub":
            raise _TE(f"[{name}] ufunc '{name}' not supported for the input types ({_arr(x1).dtype}, "
                            f"{_arr(x2).dtype})")
        ops.append(v)
    arrays = [v for v in ops if isinstance(v, _C.ndarray)]
    if len(arrays) == 2 and all(_kind(v) == "b" for v in arrays):
        raise _TE(f"[{name}] ufunc '{name}' not supported for the input types (bool, bool)")
    if not arrays:
        ops = [_arr(v) for v in ops]
        arrays = ops
    # zeros of the NEP 50 result dtype and the broadcast shape (Python ints stay weak)
    r = _C.multiply(arrays[0], 0)
    for v in ops:
        r = _C.add(r, _C.multiply(v, 0) if isinstance(v, _C.ndarray) else v * 0)
    if _np.dtype(r.dtype).kind not in "iu":
        raise _TE(f"[{name}] ufunc '{name}' not supported for the input types ({_arr(x1).dtype}, "
                        f"{_arr(x2).dtype})")
    return _C.add(ops[0], r), _C.add(ops[1], r)


def _gcd(a, b):
    a, b = _C.absolute(a), _C.absolute(b)
    while bool(_C.any(_C.not_equal(b, 0))):
        nz = _C.not_equal(b, 0)
        safe = _C.where(nz, b, 1)
        a, b = _C.where(nz, b, a), _C.where(nz, _C.remainder(a, safe), 0)
        a, b = _C.astype(a, a.dtype), _C.astype(b, b.dtype)  # materialise: keeps the lazy graph small
    return a


def gcd(x1, x2, out=None):
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (integers; ``gcd(0, 0) = 0``)."""
    a, b = _int_pair(x1, x2, "gcd")
    dt = a.dtype
    return _to_out(_C.astype(_gcd(a, b), dt), out)


def lcm(x1, x2, out=None):
    """Lowest common multiple of ``|x1|`` and ``|x2|`` (integers; 0 if either is 0)."""
    a, b = _int_pair(x1, x2, "lcm")
    dt = a.dtype
    g = _gcd(a, b)
    zero = _C.equal(g, 0)
    # |a / g| * |b| in the result dtype: wraps on overflow exactly as NumPy's loop does
    r = _C.multiply(_C.absolute(_C.floor_divide(a, _C.where(zero, 1, g))), _C.absolute(b))
    return _to_out(_C.astype(_C.where(zero, 0, r), dt), out)
