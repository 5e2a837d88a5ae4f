"""The NumPy-compatible array namespace: :class:`ndarray` and its functions.

``pyasc.ndarray`` (also ``pyasc.AscendTensor``) is the C++ ``asc::Tensor``;
the op functions (``add``, ``sum``, ...) are bound in C++ from the operator
registry (argument parsing, NEP 50 scalar promotion and broadcasting happen
there). This module adds the NumPy names that are thin compositions:
dtype objects, aliases and the creation functions.
"""

from __future__ import annotations

import builtins as _builtins

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _ufunc
from ._array_api import check_device as _check_device
from ._namespace import *  # noqa: F401,F403 - creation, manipulation, dtype queries
from ._namespace import __all__ as _namespace_all

ndarray = _C.ndarray
AscendTensor = _C.ndarray

# dtype objects: the NumPy scalar types (bfloat16 from ml_dtypes), as in NumPy.
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
bfloat16 = _ml_dtypes.bfloat16
complex64, complex128 = _np.complex64, _np.complex128

# Elementwise ops (bound from the registry).
add = _C.add
subtract = _C.subtract
multiply = _C.multiply
true_divide = _C.true_divide
divide = _C.true_divide
floor_divide = _C.floor_divide
remainder = _C.remainder
mod = _C.remainder
negative = _C.negative
positive = _C.positive
absolute = _C.absolute
abs = _C.absolute  # noqa: A001 - NumPy's name
maximum = _C.maximum


def relu(x, /, out=None):
    """``max(x, 0)`` elementwise, as ``torch.relu``: the dtype is kept (integers too, Python
    scalars take NumPy's default dtypes), NaN propagates, signed zeros as NumPy's
    ``maximum(x, 0)``; bool and complex inputs raise TypeError. Recorded as a ``maximum``
    node with a scalar operand, so it fuses with its neighbours (``relu(a @ b + bias)`` is one
    epilogue pass after the matmul). ``out=`` as in ``maximum``."""
    if not isinstance(x, _C.ndarray):
        x = _C.asarray(x, None, None)
    kind = _np.dtype(x.dtype).kind
    if kind in "bc":
        from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

        raise AscendTypeError(ErrorCode.INVALID_DTYPE,
                              f"[relu] not supported for {x.dtype} input (torch.relu rejects bool and complex)")
    return _C.maximum(x, 0, out=out)
minimum = _C.minimum
equal = _C.equal
not_equal = _C.not_equal
less = _C.less
less_equal = _C.less_equal
greater = _C.greater
greater_equal = _C.greater_equal


def _logical(cfn, name):
    """NumPy's logical_and/or/xor read a Python int as a C long whatever the other operand's
    dtype (not as a weak scalar of it): one outside int64 is its OverflowError (also next to a
    float array), one inside only counts by its truth (int8 array and 2**63 - 1 is fine)."""

    def fn(x1, x2, /, *args, **kwargs):
        # NumPy resolves the loop first: dtype= other than bool (logical_or(x, 2**63,
        # dtype=complex128)) is its no-loop TypeError before any Python int is converted
        dt = kwargs.get("dtype")
        try:
            checked = dt is None or _np.dtype(dt) == _np.bool_
        except (TypeError, ValueError):
            checked = False  # an unknown dtype: the C function raises NumPy's TypeError
        if type(x1) is int or type(x2) is int:
            ops = []
            for v in (x1, x2):
                if type(v) is int:
                    if checked and not -(1 << 63) <= v < 1 << 63:
                        from .errors import AscendOverflowError, ErrorCode

                        raise AscendOverflowError(ErrorCode.OVERFLOW,
                                                  f"[{name}] Python int too large to convert to C long ({v})")
                    v = v != 0
                ops.append(v)
            x1, x2 = ops
        return cfn(x1, x2, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = cfn.__doc__
    return fn


logical_and = _logical(_C.logical_and, "logical_and")
logical_or = _logical(_C.logical_or, "logical_or")
logical_xor = _logical(_C.logical_xor, "logical_xor")
logical_not = _C.logical_not
exp = _C.exp
log = _C.log
sqrt = _C.sqrt
sin = _C.sin
cos = _C.cos
tanh = _C.tanh
where = _C.where


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (``numpy.astype``: NumPy casting; ``copy=False`` returns ``x``
    itself when no conversion is needed). As NumPy, ``x`` must be an array or a NumPy scalar: a
    list or a Python scalar is a TypeError (NumPy's own AttributeError for Python scalars)."""
    if not isinstance(x, (_C.ndarray, _np.ndarray, _np.generic)):
        from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[astype] input should be an array or a NumPy scalar, "
                                                       f"not {type(x).__name__}")
    _check_device("astype", device)
    return _C.astype(x, dtype, _astype_copy(copy))


def _astype_copy(copy):
    """astype's ``copy`` as NumPy reads it: None is False, anything else by its truth value (an
    array of several elements is the ambiguous-truth ValueError); a numpy._CopyMode is refused."""
    from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

    if isinstance(copy, _np._CopyMode):
        raise AscendValueError(ErrorCode.INVALID_PARAM,
                               "[astype] _CopyMode enum is not allowed for astype function. Use true/false instead.")
    if copy is None or type(copy) is _builtins.bool:
        return copy is True
    try:
        return _builtins.bool(copy)
    except ValueError as e:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[astype] copy: {e}") from None


power = _C.power
pow = _C.power  # noqa: A001 - the array API's name
square = _C.square
reciprocal = _C.reciprocal
sign = _C.sign
floor = _C.floor
ceil = _C.ceil
trunc = _C.trunc
rint = _C.rint
isnan = _C.isnan
isinf = _C.isinf
isfinite = _C.isfinite
signbit = _C.signbit
exp2 = _C.exp2
expm1 = _C.expm1
log2 = _C.log2
log10 = _C.log10
log1p = _C.log1p
cbrt = _C.cbrt
tan = _C.tan
arcsin = asin = _C.arcsin
arccos = acos = _C.arccos
arctan = atan = _C.arctan
arctan2 = atan2 = _C.arctan2
sinh = _C.sinh
cosh = _C.cosh
arcsinh = asinh = _C.arcsinh
arccosh = acosh = _C.arccosh
arctanh = atanh = _C.arctanh
hypot = _C.hypot
copysign = _C.copysign
fmax = _C.fmax
fmin = _C.fmin

# Complex numbers (loops in src/ops/complex.cc).
conjugate = conj = _C.conjugate


def _scalar_part(val):
    # NumPy's real/imag return ``val.real``/``val.imag`` of anything that has them: a Python or
    # NumPy scalar keeps its own type (imag(True) is the Python int 0, not a bool array)
    return isinstance(val, (int, float, complex, _np.generic))


def real(val):
    """The real part: a view of a complex array, the array itself for real input; a Python or
    NumPy scalar's own ``.real`` (``numpy.real``)."""
    return val.real if _scalar_part(val) else asarray(val).real


def imag(val):
    """The imaginary part: a view of a complex array, zeros for real input; a Python or NumPy
    scalar's own ``.imag`` (``numpy.imag``)."""
    return val.imag if _scalar_part(val) else asarray(val).imag


def angle(z, deg=False):
    """The counterclockwise angle from the positive real axis, ``arctan2(imag, real)`` (``numpy.angle``)."""
    z = asarray(z)
    if z.dtype.kind == "c":
        a = _C.arctan2(z.imag, z.real)
    else:
        a = _C.arctan2(0, z)  # NumPy: imag = 0, real = z
    return _C.multiply(a, 180.0 / _np.pi) if deg else a


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (``numpy.iscomplexobj``)."""
    d = x.dtype if hasattr(x, "dtype") else asarray(x).dtype
    return _np.dtype(d).kind == "c"


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype (``numpy.isrealobj``)."""
    return not iscomplexobj(x)


_COMPLEX_NAMES = ["complex64", "complex128", "conjugate", "conj", "real", "imag", "angle", "iscomplexobj",
                  "isrealobj"]

# Vector math beyond the basics (src/ops/math.cc; errors in docs/vector_math.md).
sigmoid = expit = _C.sigmoid
erf = _C.erf
erfc = _C.erfc
rsqrt = _C.rsqrt
logaddexp = _C.logaddexp
logaddexp2 = _C.logaddexp2
deg2rad = _C.deg2rad
rad2deg = _C.rad2deg


def _float32_for_bfloat16(x):
    """x as float32 when it is a bfloat16 array (NumPy's fallback for ufuncs without a bfloat16 loop)."""
    if isinstance(x, _C.ndarray) and x.dtype == bfloat16:
        return x.astype(_np.float32)
    return x


radians = _ufunc.make(
    "radians", 1, lambda x, out=None: _C.deg2rad(_float32_for_bfloat16(x), out=out), lambda x: _C.deg2rad(x),
    doc="""Degrees to radians, elementwise (``numpy.radians``). ml_dtypes 0.7 has a bfloat16 loop
    for deg2rad but none for radians: NumPy computes bfloat16 in float32, so does this. NumPy's
    ufunc keywords (dtype=, where=, ...: :mod:`pyasc._ufunc`).""")
degrees = _ufunc.make(
    "degrees", 1, lambda x, out=None: _C.rad2deg(_float32_for_bfloat16(x), out=out), lambda x: _C.rad2deg(x),
    doc="""Radians to degrees, elementwise (``numpy.degrees``); bfloat16 gives float32 as NumPy's
    (ml_dtypes 0.7 has no bfloat16 loop for degrees, only for rad2deg). NumPy's ufunc keywords.""")

spacing = _C.spacing
nextafter = _C.nextafter
heaviside = _C.heaviside
fmod = _C.fmod


def ldexp(x1, x2, /, *args, **kwargs):
    """``x1 * 2**x2`` elementwise (``numpy.ldexp``; integer/bool mantissas are computed in the
    smallest float that holds them, the exponent is an int32/int64 array). A Python int exponent
    is NumPy's weak int32 scalar of the ``(float, int32)`` loops: ``ldexp(uint16_array, -3)`` is
    float32 (the exponent is not cast to the mantissa's unsigned dtype), beyond int32 it is
    NumPy's OverflowError ("Python integer ... out of bounds for int32"). NumPy's ufunc keywords
    as every ufunc."""
    dt = _np.dtype(getattr(x1, "dtype", _np.float64))
    if type(x2) is int and not args and not kwargs and dt.kind != "c" and -(1 << 63) <= x2 < (1 << 63):
        # (a complex mantissa has no loop: TypeError first; beyond int64 the core's own errors)
        wide = dt == _np.bool_  # NumPy resolves a bool mantissa to its (float16, int64) loop
        if not wide and not -(1 << 31) <= x2 < (1 << 31):
            from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[ldexp] Python integer {x2} out of bounds for int32")
        x2 = _np.int64(x2) if wide else _np.int32(x2)
    return _C.ldexp(x1, x2, *args, **kwargs)



def gelu(x, approximate="none"):
    """GELU, ``0.5 x (1 + erf(x / sqrt(2)))``; ``approximate="tanh"`` uses the tanh form."""
    if approximate == "none":
        return _C.gelu(x)
    if approximate == "tanh":
        return _C.gelu_tanh(x)
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', not {approximate!r}")


def sinc(x):
    """``sin(pi x) / (pi x)`` with ``sinc(0) = 1``, as ``numpy.sinc``."""
    y = _C.multiply(_np.pi, asarray(x))
    eps = (_ml_dtypes.finfo if y.dtype == bfloat16 else _np.finfo)(y.dtype).eps  # NumPy 2's choice
    y = _C.where(_C.equal(y, 0), eps, y)
    return _C.true_divide(_C.sin(y), y)


_MATH_NAMES = ["sigmoid", "expit", "erf", "erfc", "rsqrt", "logaddexp", "logaddexp2", "deg2rad", "radians",
               "rad2deg", "degrees", "spacing", "nextafter", "heaviside", "fmod", "ldexp", "gelu", "sinc"]

# Reductions.
sum = _C.sum  # noqa: A001
prod = _C.prod
max = _C.max  # noqa: A001
min = _C.min  # noqa: A001
amax = _C.max
amin = _C.min
mean = _C.mean
var = _C.var
std = _C.std
all = _C.all  # noqa: A001
any = _C.any  # noqa: A001


def _arg_out_cast(cfn, name, a, axis, out, keepdims):
    """NumPy's argmax/argmin check ``out`` (after its shape) with a 'safe' cast from out's dtype to
    intp: a float, complex or uint64 out is its TypeError ("Cannot cast scalar from dtype('float64')
    to dtype('int64')"), which the C++ kernel, writing any dtype, does not raise."""
    if not isinstance(out, _C.ndarray) or _np.can_cast(out.dtype, _np.intp, "safe"):
        return
    cfn(a, axis, None, _C.empty(tuple(out.shape), _np.int64), keepdims)  # (the shape's ValueError first)
    from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

    raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{name}] Cannot cast scalar from dtype('{out.dtype}') to "
                                                   "dtype('int64') according to the rule 'safe' (out=)")


def _arg_reduction(cfn, name):
    """NumPy's argmax/argmin signature ``(a, axis=None, out=None, *, keepdims)`` (the C
    reduction's third positional is dtype=, which these do not take), with keepdims read by its
    truth value as NumPy's PyArray_BoolConverter does (an array of one element, a float or a str
    are accepted; an array of several elements is the ambiguous-truth ValueError)."""

    def fn(a, axis=None, out=None, *, keepdims=False):
        if type(keepdims) is not _builtins.bool:
            try:
                keepdims = _builtins.bool(keepdims)  # (this module's `bool` is NumPy's bool_)
            except ValueError as e:
                from .errors import AscendValueError, ErrorCode

                raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{name}] keepdims: {e}") from None
        _arg_out_cast(cfn, name, a, axis, out, keepdims)
        return cfn(a, axis, None, out, keepdims)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = cfn.__doc__
    return fn


argmax = _arg_reduction(_C.argmax, "argmax")
argmin = _arg_reduction(_C.argmin, "argmin")
def _cumulative_fn(cfn, op):
    def fn(a, axis=None, dtype=None, out=None):
        # NumPy's np.cumsum calls the method, whose PyArray_AxisConverter reads axis before dtype
        # (an axis beyond a C int is that ValueError even when dtype is no dtype)
        from ._signatures import axis_converter  # noqa: PLC0415 - (_signatures imports this module)

        axis_converter(op, axis)
        return cfn(a, axis=axis, dtype=dtype, out=out)

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = cfn.__doc__
    return fn


cumsum = _cumulative_fn(_C.cumsum, "cumsum")
cumprod = _cumulative_fn(_C.cumprod, "cumprod")

# Views and conversion.
asarray = _C.asarray
array = _C.array
from_numpy = _C.from_numpy
broadcast_to = _C.broadcast_to
reshape = _C.reshape
transpose = _C.transpose
permute_dims = _C.transpose


def expand_dims(a, axis):
    """A view of ``a`` with a length-1 axis inserted at ``axis`` (an int, or a tuple of
    positions in the result, as NumPy); an axis out of range is NumPy's AxisError (an
    IndexError and ValueError), a repeated one a ValueError."""
    from ._helpers import _axes  # noqa: PLC0415 - (_helpers imports this module's siblings)
    from ._namespace import _axis  # noqa: PLC0415

    x = asarray(a)
    # NumPy's normalize_axis_index/_tuple with pyasc's errors (an axis beyond a C int: OverflowError)
    if not isinstance(axis, (tuple, list)):
        return _C.expand_dims(x, _axis(axis, x.ndim + 1))
    axes = _axes(tuple(axis), x.ndim + len(axis), "expand_dims")
    for ax in sorted(axes):
        x = _C.expand_dims(x, ax)
    return x




def squeeze(a, axis=None):
    """A view of ``a`` without its length-1 axes (all of them, or those in ``axis``: an int or a
    tuple; ``axis=()`` removes none, as NumPy)."""
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    return x.squeeze(axis)  # (NumPy calls the method: pyasc._signatures._method_squeeze checks as NumPy)




def _c_int_offset(name, offset, what="offset"):
    """NumPy reads diagonal's offset (and axis1/axis2) as a C int: beyond it OverflowError ("signed
    integer is greater than maximum"; beyond int64 "too large to convert to C long"), a
    non-integer TypeError."""
    import operator  # noqa: PLC0415

    from .errors import AscendOverflowError, AscendTypeError, ErrorCode  # noqa: PLC0415

    try:
        v = operator.index(offset)
    except TypeError as e:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{name}] {e} ({what})") from None
    if not -(1 << 63) <= v < 1 << 63:
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{name}] Python int too large to convert to C long ({v})")
    if not -(1 << 31) <= v < 1 << 31:
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{name}] signed integer is "
                                                      f"{'greater than maximum' if v > 0 else 'less than minimum'} "
                                                      f"({what} {v} beyond a C int)")
    return v


def _diagonal_args(offset, axis1, axis2):
    # NumPy's ndarray.diagonal parses all three as C ints ("|iii") before any axis check
    return tuple(_c_int_offset("diagonal", v, w) for v, w in ((offset, "offset"), (axis1, "axis1"), (axis2, "axis2")))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of ``a`` over ``axis1``/``axis2`` at ``offset`` (a view; ``numpy.diagonal``)."""
    return _C.diagonal(a, *_diagonal_args(offset, axis1, axis2))


_c_diagonal_method = _C.ndarray.diagonal


def _method_diagonal(self, offset=0, axis1=0, axis2=1):
    """The diagonal over ``axis1``/``axis2`` at ``offset`` (a view; ``numpy.ndarray.diagonal``:
    the three arguments are C ints, beyond one NumPy's OverflowError)."""
    return _c_diagonal_method(self, *_diagonal_args(offset, axis1, axis2))


_C.ndarray.diagonal = _method_diagonal
empty = _C.empty
full = _C.full


def zeros(shape, dtype=None, *, device=None):
    """A new array of ``shape`` filled with 0 (float64 unless ``dtype``); ``device`` may only be 'cpu'."""
    _check_device("zeros", device)
    return _C.full(shape, 0, float64 if dtype is None else dtype)


def ones(shape, dtype=None, *, device=None):
    """A new array of ``shape`` filled with 1 (float64 unless ``dtype``); ``device`` may only be 'cpu'."""
    _check_device("ones", device)
    return _C.full(shape, 1, float64 if dtype is None else dtype)


def empty_like(x, dtype=None, shape=None, *, device=None):
    """An uninitialised array with the shape and dtype of ``x`` (or the given ones)."""
    _check_device("empty_like", device)
    x = asarray(x)
    return _C.empty(x.shape if shape is None else shape, x.dtype if dtype is None else dtype)


def zeros_like(x, dtype=None, shape=None, *, device=None):
    """An array of zeros with the shape and dtype of ``x`` (or the given ones)."""
    _check_device("zeros_like", device)
    x = asarray(x)
    return _C.full(x.shape if shape is None else shape, 0, x.dtype if dtype is None else dtype)


def ones_like(x, dtype=None, shape=None, *, device=None):
    """An array of ones with the shape and dtype of ``x`` (or the given ones)."""
    _check_device("ones_like", device)
    x = asarray(x)
    return _C.full(x.shape if shape is None else shape, 1, x.dtype if dtype is None else dtype)


def full_like(x, fill_value, dtype=None, shape=None, *, device=None):
    """An array filled with ``fill_value`` with the shape and dtype of ``x`` (or the given ones)."""
    _check_device("full_like", device)
    x = asarray(x)
    return _C.full(x.shape if shape is None else shape, fill_value, x.dtype if dtype is None else dtype)


# arange of at least this many elements is written straight into the device array (chunk by chunk)
# instead of being built by NumPy on the host and copied (twice the memory: arange(4e9, dtype=int8)).
_ARANGE_DIRECT_MIN = 1 << 16
_ARANGE_CHUNK = 1 << 17  # (a chunk's int64 temporaries stay in the L2 cache)


def _arange_plan(start, stop, step, dtype):
    """(dtype, length, first, second) of a long arange of Python ints/floats with an integer or
    float16/32/64 result, as NumPy's arange computes them, or None (NumPy builds it on the host).
    NumPy sets the first two elements from start and start + step (Python values converted to the
    dtype) and its length from ceil((stop - start) / step) in Python arithmetic; both are taken
    from NumPy itself here, on a 2-element arange with the same start, step and operand types."""
    import math  # noqa: PLC0415

    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if type(v) not in (int, float) or (type(v) is int and not -(1 << 63) <= v < 1 << 63):
            return None
    try:
        n = math.ceil((stop - start) / step)
    except (ArithmeticError, ValueError):  # (step 0, inf/NaN bounds: NumPy's own errors)
        return None
    if not _ARANGE_DIRECT_MIN <= n < 1 << 62:
        return None
    stop2 = start + 2 * step if _builtins.all(type(v) is int for v in (start, stop, step)) else start + 1.5 * step
    try:
        head = _np.arange(start, stop2, step, dtype=None if dtype is None else _np.dtype(dtype))
    except Exception:  # noqa: BLE001 - (the general path raises NumPy's error as pyasc's)
        return None
    if head.size != 2 or head.dtype.kind not in "iuf":
        return None  # (bfloat16, complex, bool: NumPy's own fill functions)
    return head.dtype, n, head[0], head[1]


def _arange_fill(dt, n, first, second):
    """The arange of ``_arange_plan`` written into a new device array through a NumPy view of it,
    _ARANGE_CHUNK elements at a time, with NumPy's fill rule: element i is start + i * delta
    (delta = second - first) in the dtype's C arithmetic -- integers in 64 bits, wrapping to the
    dtype (int8 counts 0..127, -128..); float64 in double; float32 in float (i rounded to float);
    float16 computed in float and rounded to half. Checked equal to NumPy's arange over random
    starts/steps/dtypes in test_reliability_a_l."""
    out = _C.empty((n,), dt)
    o = _np.asarray(out)  # (a writable view of the device storage: no second copy)
    o[0], o[1] = first, second
    chunk = _ARANGE_CHUNK
    if dt.kind in "iu":
        # start + i * delta modulo 2**64, then the dtype's wrap on assignment (unsafe cast, as C's)
        si, di = int(first), int(second) - int(first)
        # (an int64 arange of the chunk is exact when no value leaves int64; delta 0: a constant)
        direct = di != 0 and _builtins.max(_builtins.abs(si + 2 * di), _builtins.abs(si + n * di)) < 1 << 63
        wide = _np.uint64 if dt.kind == "u" else _np.int64
        s, d = _np.asarray(si).astype(wide), _np.asarray(di % (1 << 64)).astype(_np.uint64).astype(wide)
    else:
        wide = _np.float32 if dt.itemsize <= 4 else _np.float64
        s = wide(first)
        d = wide(wide(second) - s)
    with _np.errstate(all="ignore"):
        for i0 in range(2, n, chunk):
            i1 = _builtins.min(n, i0 + chunk)
            if dt.kind in "iu" and direct:
                v = _np.arange(si + i0 * di, si + i1 * di, di, dtype=_np.int64)
            elif dt.kind in "iu":
                v = s + _np.arange(i0, i1, dtype=_np.int64).astype(wide) * d
            else:
                v = _np.arange(i0, i1, dtype=_np.int64).astype(wide)
                v *= d
                v += s
            o[i0:i1] = v
    return out


def arange(start, /, stop=None, step=1, dtype=None, *, device=None):
    """``numpy.arange`` on the device (values computed as NumPy does; a long one is written straight
    into the device array, a short one built by NumPy and copied): ``arange(stop)``,
    ``arange(start, stop[, step])`` and ``arange(stop, step=s)``; ``device`` may only be 'cpu'."""
    if dtype is not None:  # (NumPy's argument parser converts dtype= before the device and the values)
        from ._signatures import check_dtype  # noqa: PLC0415

        check_dtype("arange", dtype)
    _check_device("arange", device)
    from . import errors as _e  # noqa: PLC0415

    def host(v):  # NumPy reads a pyasc array argument as its own array would be read
        if not isinstance(v, _C.ndarray):
            return v
        if v.size > 1 << 16:  # (never copied: NumPy copies it, then refuses an array of several elements)
            from ._helpers import _alloc_check  # noqa: PLC0415

            # NumPy computes stop - start as arrays first: the size of that result is what fails
            # (a bool view minus 0 is int64: 'array is too big' where bool's own bytes would fit)
            _alloc_check("arange", tuple(v.shape), (_np.zeros((), v.dtype) - 0).dtype)
            raise _e.AscendValueError(_e.ErrorCode.INVALID_PARAM, f"[arange] The truth value of an array with "
                                                                  f"more than one element is ambiguous (shape "
                                                                  f"{tuple(v.shape)})")
        return _np.asarray(v)
    start, stop, step = host(start), host(stop), host(step)
    plan = _arange_plan(start, stop, step, dtype)
    if plan is not None:
        return _arange_fill(*plan)
    try:
        values = _np.arange(start, stop, step, dtype=None if dtype is None else _np.dtype(dtype))
    except MemoryError as x:
        raise _e.AscendMemoryError(_e.ErrorCode.BAD_ALLOC, f"[arange] {x}") from None
    except OverflowError as x:
        raise _e.AscendOverflowError(_e.ErrorCode.OVERFLOW, f"[arange] {x}") from None
    except TypeError as x:
        raise _e.AscendTypeError(_e.ErrorCode.INVALID_DTYPE, f"[arange] {x}") from None
    except ValueError as x:
        raise _e.AscendValueError(_e.ErrorCode.INVALID_PARAM, f"[arange] {x}") from None
    return array(values)


globals()["bool"] = _np.bool_  # NumPy 2's name, without shadowing the builtin here

__all__ = [
    "bool", "ndarray", "AscendTensor",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
    "add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "remainder", "mod",
    "negative", "positive", "absolute", "abs", "maximum", "minimum", "relu",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "exp", "log", "sqrt",
    "sin", "cos", "tanh", "where", "astype",
    "sum", "prod", "max", "min", "amax", "amin", "mean",
    "asarray", "array", "from_numpy", "broadcast_to", "reshape", "transpose", "permute_dims",
    "expand_dims", "squeeze", "diagonal",
    "empty", "full", "zeros", "ones", "empty_like", "zeros_like", "ones_like", "full_like", "arange",
    "power", "pow", "square", "reciprocal", "sign", "floor", "ceil", "trunc", "rint",
    "isnan", "isinf", "isfinite", "signbit", "exp2", "expm1", "log2", "log10", "log1p", "cbrt",
    "tan", "arcsin", "asin", "arccos", "acos", "arctan", "atan", "arctan2", "atan2",
    "sinh", "cosh", "arcsinh", "asinh", "arccosh", "acosh", "arctanh", "atanh",
    "hypot", "copysign", "fmax", "fmin",
    "var", "std", "all", "any", "argmax", "argmin", "cumsum", "cumprod",
] + list(_namespace_all)
__all__ += _MATH_NAMES
__all__ += _COMPLEX_NAMES

from . import _linalg_products  # noqa: E402 - matmul, dot, einsum, ... (linear algebra in the namespace)
from ._linalg_products import *  # noqa: E402,F401,F403
__all__ += _linalg_products.__all__

from . import _sorting  # noqa: E402 - sort, argsort, unique, isin, where(cond), ... (issue 3)
from ._sorting import *  # noqa: E402,F401,F403
__all__ += [n for n in _sorting.__all__ if n not in __all__]

from . import _manipulation  # noqa: E402 - concatenate/stack/split/pad/take/put/nan* ... (C++ gather/scatter, issue 3)
from ._manipulation import *  # noqa: E402,F401,F403
__all__ += [n for n in _manipulation.__all__ if n not in __all__]

from . import _statistics  # noqa: E402 - median/quantile/percentile/average/ptp/cov/corrcoef
from ._statistics import *  # noqa: E402,F401,F403
__all__ += [n for n in _statistics.__all__ if n not in __all__]

from . import _function_base  # noqa: E402 - select/rot90/insert/delete/vectorize/diff/gradient/interp ...
from ._function_base import *  # noqa: E402,F401,F403
__all__ += [n for n in _function_base.__all__ if n not in __all__]

from . import _fromnumeric  # noqa: E402 - choose/shape/size/ndim/resize
from ._fromnumeric import *  # noqa: E402,F401,F403
__all__ += [n for n in _fromnumeric.__all__ if n not in __all__]

from . import _twodim_base  # noqa: E402 - fliplr/flipud/tril_indices/triu_indices(_from)
from ._twodim_base import *  # noqa: E402,F401,F403
__all__ += [n for n in _twodim_base.__all__ if n not in __all__]

from . import _numeric  # noqa: E402 - indices/fromfunction/isclose/allclose/array_equal/convolve ...
from ._numeric import *  # noqa: E402,F401,F403
__all__ += [n for n in _numeric.__all__ if n not in __all__]

from . import _index_tricks  # noqa: E402 - ix_/unravel_index/ravel_multi_index/fill_diagonal/ndindex ...
from ._index_tricks import *  # noqa: E402,F401,F403
__all__ += [n for n in _index_tricks.__all__ if n not in __all__]

from . import _arraysetops  # noqa: E402 - setdiff1d/union1d/intersect1d/setxor1d/ediff1d
from ._arraysetops import *  # noqa: E402,F401,F403
__all__ += [n for n in _arraysetops.__all__ if n not in __all__]

from . import _shape_base  # noqa: E402 - block/row_stack/apply_along_axis/apply_over_axes
from ._shape_base import *  # noqa: E402,F401,F403
__all__ += [n for n in _shape_base.__all__ if n not in __all__]

from . import _creation  # noqa: E402 - logspace/geomspace/frombuffer/fromiter/asarray_chkfinite
from ._creation import *  # noqa: E402,F401,F403
__all__ += [n for n in _creation.__all__ if n not in __all__]

from . import _multiarray  # noqa: E402 - copyto/shares_memory/may_share_memory/packbits/unpackbits/lexsort
from ._multiarray import *  # noqa: E402,F401,F403
__all__ += [n for n in _multiarray.__all__ if n not in __all__]

from . import _polynomial  # noqa: E402 - polyval/polyfit
from ._polynomial import *  # noqa: E402,F401,F403
__all__ += [n for n in _polynomial.__all__ if n not in __all__]

from . import _type_check  # noqa: E402 - nan_to_num/real_if_close/isreal/iscomplex
from ._type_check import *  # noqa: E402,F401,F403
__all__ += [n for n in _type_check.__all__ if n not in __all__]

from . import _ufunclike  # noqa: E402 - fix
from ._ufunclike import *  # noqa: E402,F401,F403
__all__ += [n for n in _ufunclike.__all__ if n not in __all__]

from . import _umath  # noqa: E402 - modf/frexp/divmod/gcd/lcm
from ._umath import *  # noqa: E402,F401,F403
__all__ += [n for n in _umath.__all__ if n not in __all__]

from . import _ufunc_config  # noqa: E402 - seterr/geterr/errstate
from ._ufunc_config import *  # noqa: E402,F401,F403
__all__ += [n for n in _ufunc_config.__all__ if n not in __all__]

from . import _arrayprint  # noqa: E402 - printoptions/array2string/array_repr/array_str
from ._arrayprint import *  # noqa: E402,F401,F403
__all__ += [n for n in _arrayprint.__all__ if n not in __all__]

from . import _npyio  # noqa: E402 - save/load/savez/savez_compressed/loadtxt/savetxt/genfromtxt
from ._npyio import *  # noqa: E402,F401,F403
__all__ += [n for n in _npyio.__all__ if n not in __all__]

from . import _numerictypes  # noqa: E402 - scalar type names (single, intc, floating, ...), issubdtype ...
from ._numerictypes import *  # noqa: E402,F401,F403
__all__ += [n for n in _numerictypes.__all__ if n not in __all__]

from . import _histograms  # noqa: E402 - histogram_bin_edges/histogramdd
from ._histograms import *  # noqa: E402,F401,F403
__all__ += [n for n in _histograms.__all__ if n not in __all__]

from . import _bitwise  # noqa: E402 - bitwise_and/or/xor, invert, left/right_shift, bitwise_count (C++ ops)
from ._bitwise import *  # noqa: E402,F401,F403
__all__ += [n for n in _bitwise.__all__ if n not in __all__]

from ._array_api import __array_api_version__  # noqa: E402,F401 - "2024.12"
__all__ += ["__array_api_version__"]

from . import _interop  # noqa: E402 - ndarray protocols (__array_ufunc__, DLPack, flags, ...); from_dlpack, reuse_buffer
from ._interop import __array_namespace_info__, from_dlpack, reuse_buffer  # noqa: E402,F401
__all__ += ["from_dlpack", "reuse_buffer", "__array_namespace_info__"]
