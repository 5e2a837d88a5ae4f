"""NumPy ufuncs composed in Python from pyasc's device ops (not in the C++
registry): ``modf``, ``frexp``, ``divmod``, ``gcd``, ``lcm``, ``fabs``,
``float_power``, the gufuncs ``matvec``/``vecmat`` (batched matmul), and
``frompyfunc`` (a host loop calling a Python function, as NumPy's).

``fabs``/``float_power`` take NumPy's ufunc keywords and ``matvec``/``vecmat``
its gufunc keywords, through the one implementation in :mod:`pyasc._ufunc`
(loop dtypes from NumPy's ``resolve_dtypes``, ``where=``, ``casting=``,
``order=``, ``out=`` as a tuple). Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import math as _math

import numpy as _np

from . import _C
from . import _linalg_products as _lp
from . import _namespace as _ns
from . import _ufunc
from ._helpers import _BF16, _NIE, _TE, _VE, _alloc_check, _arr, _bshape, _dt, _host, _kind, _np_dtype, _to_out

__all__ = [
    "modf", "frexp", "divmod", "gcd", "lcm", "fabs", "float_power", "matvec", "vecmat", "frompyfunc",
]


_NO_OUT = object()


def modf(x, out1=None, out2=None, /, *, out=_NO_OUT, dtype=None, casting="same_kind", order="K", subok=True,
         signature=None, where=True):
    """Fractional and integral parts, both with the sign of ``x`` (``modf(inf) = (0, inf)``).
    NumPy's ufunc keywords: ``out=(o1, o2)``, ``dtype``/``signature``/``casting`` (the loop NumPy's
    own type resolution picks for x's dtype, so a non-float dtype is its TypeError), ``order``,
    ``subok``; ``where`` other than True is not supported."""
    if out is not _NO_OUT:  # (an explicit out=None is NumPy's TypeError for a two-output ufunc)
        if out1 is not None or out2 is not None:
            raise _TE("[modf] cannot specify 'out' as both a positional and keyword argument")
        if not isinstance(out, tuple):
            raise _TE("[modf] 'out' must be a tuple of arrays")
        if len(out) != 2:
            raise _VE("[modf] The 'out' tuple must have exactly one entry per ufunc output")
        out1, out2 = out
    if where is not True:
        raise _NIE("[modf] where= is not supported by pyasc")
    if dtype is not None or signature is not None or casting != "same_kind":
        xv = _arr(x)
        xdt = _dt(xv)
        if xdt == _BF16:
            raise _TE(f"[modf] dtype=/signature=/casting= of a bfloat16 input are not supported (NumPy has no "
                      f"bfloat16 modf loop)")
        try:  # (NumPy resolves the loop on an empty array of x's dtype: its TypeError for a bad one)
            kw = {k: v for k, v in (("dtype", dtype), ("signature", signature)) if v is not None}
            lt = _np.modf(_np.zeros(0, xdt), casting=casting, **kw)[0].dtype
        except TypeError as e:
            raise _TE(f"[modf] {e}") from None
        fp, ip = modf(_C.astype(xv, lt))
        return _to_out(fp, out1), _to_out(ip, out2)
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


def divmod(x1, x2, /, *outs, out=None, **kwargs):  # noqa: A001 - NumPy's name
    """``(floor_divide(x1, x2), remainder(x1, x2))`` with NumPy's ufunc arguments (two outputs:
    ``divmod(x1, x2[, out1[, out2]], /, *, out=(None, None), where, casting, order, dtype, ...)``,
    the keywords as every ufunc, :mod:`pyasc._ufunc`)."""
    if len(outs) > 2:
        raise _TE(f"[divmod] divmod() takes from 2 to 4 positional arguments but {2 + len(outs)} were given")
    if out is not None:
        if outs:
            raise _TE("[divmod] cannot specify 'out' as both a positional and keyword argument")
        if not isinstance(out, tuple) or len(out) != 2:
            raise _TE("[divmod] 'out' must be a tuple of 2 arrays (divmod has two outputs)")
        outs = out
    out1, out2 = (tuple(outs) + (None, None))[:2]
    kw1, kw2 = dict(kwargs), dict(kwargs)
    sig = kwargs.get("signature")
    if isinstance(sig, str) and "->" in sig:  # 'dd->dd': each output's own one-output signature
        ins, res = sig.replace(" ", "").split("->", 1)
        if len(ins) != 2 or len(res) != 2:
            raise _VE(f"[divmod] signature {sig!r}: divmod has 2 inputs and 2 outputs")
        sig = tuple(ins) + tuple(res)
    if isinstance(sig, (tuple, list)):
        if len(sig) != 4:
            raise _VE(f"[divmod] signature has {len(sig)} entries, divmod has 2 inputs and 2 outputs")
        if sig[2] is not None and sig[3] is not None and _np.dtype(sig[2]) != _np.dtype(sig[3]):
            # NumPy's divmod loops give both outputs one dtype
            raise _TE(f"[divmod] No loop matching the specified signature and casting was found for ufunc "
                      f"divmod (signature {sig!r})")
        kw1["signature"], kw2["signature"] = tuple(sig[:3]), tuple(sig[:2]) + (sig[3],)
    # (out= goes through each ufunc's own out path: NumPy's casting check into it)
    q = _C.floor_divide(x1, x2, **kw1) if out1 is None else _C.floor_divide(x1, x2, out=out1, **kw1)
    r = _C.remainder(x1, x2, **kw2) if out2 is None else _C.remainder(x1, x2, out=out2, **kw2)
    return q, r


# Python's divmod(a, b) on arrays: NumPy's ndarray.__divmod__ / __rdivmod__ call the divmod ufunc.
# Operands of another kind give NotImplemented, so that Python tries the other side (as the C++
# binary operators do).
_DIVMOD_OPERANDS = (bool, int, float, complex, list, tuple, _np.ndarray, _np.generic, _C.ndarray)


def _method_divmod(self, other):
    """``divmod(a, b)``: ``(a // b, a % b)`` (``numpy.divmod``)."""
    if not isinstance(other, _DIVMOD_OPERANDS):
        return NotImplemented
    return divmod(self, other)


def _method_rdivmod(self, other):
    """``divmod(b, a)`` for a non-pyasc ``b``: ``(b // a, b % a)`` (``numpy.divmod``)."""
    if not isinstance(other, _DIVMOD_OPERANDS):
        return NotImplemented
    return divmod(other, self)


_C.ndarray.__divmod__ = _method_divmod
_C.ndarray.__rdivmod__ = _method_rdivmod


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
        # two Python ints: NumPy converts both to its default int (a C long), so one outside
        # int64 is its OverflowError (not a uint64 array that has no loop with int64)
        for v in ops:
            if not -(1 << 63) <= v < 1 << 63:
                from .errors import AscendOverflowError, ErrorCode

                raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{name}] Python int too large to convert to C long ({v})")
        ops = [_arr(v) for v in ops]
        arrays = ops
    # zeros of the NEP 50 result dtype and the broadcast shape (Python ints stay weak; a bool
    # array promotes with the other array, gcd(bool, uint32) is uint32, not bool * 0's int64)
    dt = _np.dtype(_ns.result_type(*ops))
    if len(arrays) == 2 and dt.kind in "iu":  # NumPy broadcasts before any cast (a huge view: no copy)
        shape = _bshape(name, tuple(arrays[0].shape), tuple(arrays[1].shape))
    else:
        shape = tuple(arrays[0].shape)
    if dt.kind in "iu" and _math.prod(shape) > 1 << 32:
        # NumPy's ufunc allocates its output in the result dtype first: a huge broadcast view is
        # "array is too big" (ValueError) when size * itemsize of *that* dtype overflows intp, else
        # MemoryError -- not the MemoryError of the input-dtype temporaries below (int8 x uint8 is
        # int16: 2**62 elements are too big, where int8 * 0's 2**62 bytes would be MemoryError)
        _alloc_check(name, shape, dt)
    r = _C.astype(_C.multiply(arrays[0], 0), dt) if dt.kind in "iu" else None
    for v in ops:
        if r is not None and isinstance(v, _C.ndarray):
            r = _C.add(r, _C.astype(_C.multiply(v, 0), dt))
    if dt.kind not in "iu":
        raise _TE(f"[{name}] ufunc '{name}' not supported for the input types ({_arr(x1).dtype}, "
                        f"{_arr(x2).dtype})")
    return _C.add(ops[0], r), _C.add(ops[1], r)


def _gcd(a, b):
    # NumPy's rule: the gcd of the magnitudes as unsigned integers, cast back to the signed
    # type (|INT_MIN| is 2**(n-1), so gcd(1, INT_MIN) is 1 and gcd(INT_MIN, 0) wraps to INT_MIN).
    dt = _np.dtype(a.dtype)
    a, b = _C.absolute(a), _C.absolute(b)
    if dt.kind == "i":
        ut = _np.dtype(f"u{dt.itemsize}")
        a, b = _C.astype(a, ut, True), _C.astype(b, ut, True)
    while bool(_C.any(_C.not_equal(b, 0))):
        nz = _C.not_equal(b, 0)
        safe = _C.where(nz, b, 1)
        a, b = _C.where(nz, b, a), _C.where(nz, _C.remainder(a, safe), 0)
        a, b = _C.astype(a, a.dtype), _C.astype(b, b.dtype)  # materialise: keeps the lazy graph small
    return _C.astype(a, dt, True)


def _gcd_call(x1, x2):
    a, b = _int_pair(x1, x2, "gcd")
    return _C.astype(_gcd(a, b), a.dtype)


def _lcm_call(x1, x2):
    a, b = _int_pair(x1, x2, "lcm")
    g = _gcd(a, b)
    zero = _C.equal(g, 0)
    # |a / g| * |b| in the result dtype: wraps on overflow exactly as NumPy's loop does
    r = _C.multiply(_C.absolute(_C.floor_divide(a, _C.where(zero, 1, g))), _C.absolute(b))
    return _C.astype(_C.where(zero, 0, r), a.dtype)


def _with_out(name, fn):
    def fast(x1, x2, out=None):
        if out is None:
            return fn(x1, x2)
        return _ufunc.call(name, 2, (x1, x2), {"out": out}, impl=fn)  # NumPy's casting check into out
    return fast


gcd = _ufunc.make("gcd", 2, _with_out("gcd", _gcd_call), _gcd_call, doc=(
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (integers; ``gcd(0, 0) = 0``); NumPy's ufunc
    keywords (:mod:`pyasc._ufunc`)."""))
lcm = _ufunc.make("lcm", 2, _with_out("lcm", _lcm_call), _lcm_call, doc=(
    """Lowest common multiple of ``|x1|`` and ``|x2|`` (integers; 0 if either is 0); NumPy's ufunc
    keywords (:mod:`pyasc._ufunc`)."""))


def _fabs_fast(x, out=None):
    if out is not None:  # NumPy's casting check into out, naming fabs: the keyword path
        return _ufunc.call("fabs", 1, (x,), {"out": out}, impl=_C.absolute)
    x = _arr(x)
    if _kind(x) == "c":
        raise _TE(f"[fabs] ufunc 'fabs' not supported for the input types: {x.dtype}")
    if _dt(x) != _BF16 and _kind(x) != "f":
        x = _C.astype(x, _np_dtype(_np.fabs, _dt(x)))
    return _C.absolute(x)


fabs = _ufunc.make("fabs", 1, _fabs_fast, _C.absolute, doc=(
    """The absolute value of real numbers, computed in floating point (``numpy.fabs``: integers and
    bool give the smallest float that holds them, complex is a TypeError). NumPy's ufunc keywords
    (``dtype``, ``where``, ``casting``, ``order``, ``signature``: :mod:`pyasc._ufunc`)."""))


def _weak(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, _np.generic)


def _float_power_fast(x1, x2, out=None):
    if out is not None:  # NumPy's casting check into out: the keyword path
        return _ufunc.call("float_power", 2, (x1, x2), {"out": out}, impl=_float_power_loop)
    # a Python int beyond int64 goes to the float64 loop as NumPy converts it (float(2**64))
    x1, x2 = (float(v) if type(v) is int and not -(1 << 63) <= v < (1 << 64) else v for v in (x1, x2))
    a, b = _arr(x1), _arr(x2)
    try:
        rt = _np.dtype(_ns.result_type(x1 if _weak(x1) else a, x2 if _weak(x2) else b))
    except OverflowError:
        # a Python int outside an integer array's dtype (float_power(uint16_array, -3)): NumPy's
        # float_power has no integer loops, the int goes straight to the float64 one
        rt = _np.dtype(_np.float64)
    if rt == _BF16:  # ml_dtypes' bfloat16 loop: computed in float32, rounded once
        res = _C.astype(_C.power(_C.astype(a, _np.float32), _C.astype(b, _np.float32)), _BF16)
    else:
        dt = _np.dtype(_np.complex128 if rt.kind == "c" else _np.float64)
        res = _C.power(_C.astype(a, dt), _C.astype(b, dt))
    return res


def _float_power_loop(a, b):
    if _dt(a) == _BF16:  # ml_dtypes' bfloat16 loop: computed in float32, rounded once
        return _C.astype(_C.power(_C.astype(a, _np.float32), _C.astype(b, _np.float32)), _BF16)
    return _C.power(a, b)


float_power = _ufunc.make("float_power", 2, _float_power_fast, _float_power_loop, doc=(
    """``x1 ** x2`` computed in float64 (complex128 for complex operands) whatever the input dtypes
    (``numpy.float_power``; a negative base with a non-integral exponent gives NaN). Operands whose
    common dtype is bfloat16 use ml_dtypes' bfloat16 loop, as NumPy does: float32 math, bfloat16 result.
    NumPy's ufunc keywords as every ufunc (:mod:`pyasc._ufunc`)."""))


def _matvec(x1, x2):
    a, v = _arr(x1), _arr(x2)
    if a.ndim < 2 or v.ndim < 1:
        raise _VE(f"[matvec] needs a matrix and a vector operand (at least 2-d and 1-d), got shapes "
                  f"{tuple(a.shape)} and {tuple(v.shape)}")
    if a.shape[-1] != v.shape[-1]:
        raise _VE(f"[matvec] core dimension mismatch: {tuple(a.shape)} (n={a.shape[-1]}) and "
                  f"{tuple(v.shape)} (n={v.shape[-1]})")
    return _lp.matmul(a, _C.expand_dims(v, -1))[..., 0]


def _vecmat(x1, x2):
    v, a = _arr(x1), _arr(x2)
    if v.ndim < 1 or a.ndim < 2:
        raise _VE(f"[vecmat] needs a vector and a matrix operand (at least 1-d and 2-d), got shapes "
                  f"{tuple(v.shape)} and {tuple(a.shape)}")
    if v.shape[-1] != a.shape[-2]:
        raise _VE(f"[vecmat] core dimension mismatch: {tuple(v.shape)} (n={v.shape[-1]}) and "
                  f"{tuple(a.shape)} (n={a.shape[-2]})")
    if _kind(v) == "c":
        v = _C.conjugate(v)
    return _lp.matmul(_C.expand_dims(v, -2), a)[..., 0, :]


def _gufunc_fast(fn):
    def fast(x1, x2, out=None):
        return _ufunc.call(fn.__name__.lstrip("_"), 2, (x1, x2), {"out": out}, impl=fn, core=True, core_dims=1) \
            if out is not None else fn(x1, x2)
    return fast


matvec = _ufunc.make("matvec", 2, _gufunc_fast(_matvec), _matvec, core=True, core_dims=1, doc=(
    """Matrix-vector products over stacks: ``x1[..., i, j] x2[..., j]`` summed over j (no conjugation)
    (``numpy.matvec``; the stack dimensions broadcast). One batched matmul. NumPy's gufunc keywords
    ``out``, ``dtype``, ``casting``, ``order``, ``subok``, ``signature`` (:mod:`pyasc._ufunc`)."""))
vecmat = _ufunc.make("vecmat", 2, _gufunc_fast(_vecmat), _vecmat, core=True, core_dims=1, doc=(
    """Vector-matrix products over stacks: ``conj(x1[..., i]) x2[..., i, j]`` summed over i
    (``numpy.vecmat``; the vector is conjugated, as in ``vecdot``). One batched matmul. NumPy's gufunc
    keywords as :func:`matvec`."""))


class _PyUfunc:
    """The callable :func:`frompyfunc` returns (NumPy's ufunc attributes nin, nout, nargs,
    identity, __name__)."""

    def __init__(self, func, nin, nout, identity):
        self._np = _np.frompyfunc(func, nin, nout, identity=identity) if identity is not _np._NoValue \
            else _np.frompyfunc(func, nin, nout)
        self.nin, self.nout, self.nargs = nin, nout, nin + nout
        self.identity = identity if identity is not _np._NoValue else None
        self.__name__ = self._np.__name__
        self.__doc__ = self._np.__doc__

    @staticmethod
    def _back(o):
        if isinstance(o, _np.ndarray):
            return _C.array(_np.array(o.tolist()))
        return o

    def __call__(self, *args):
        res = self._np(*[_host(a) for a in args])
        return tuple(self._back(r) for r in res) if isinstance(res, tuple) else self._back(res)

    def __repr__(self):
        return f"<pyasc frompyfunc {self.__name__} (nin={self.nin}, nout={self.nout})>"


def frompyfunc(func, /, nin, nout, **kwargs):
    """A ufunc-like callable applying the Python function ``func`` to every element (``numpy.frompyfunc``).

    It is a host loop, as NumPy's is. NumPy returns object arrays; pyasc has no object dtype, so
    the results come back as pyasc arrays of the dtype NumPy infers from the returned values
    (scalar inputs give the Python object). ``identity=`` is accepted."""
    unknown = set(kwargs) - {"identity"}
    if unknown:
        raise _TE(f"[frompyfunc] got unexpected keyword arguments {sorted(unknown)}")
    return _PyUfunc(func, nin, nout, kwargs.get("identity", _np._NoValue))
