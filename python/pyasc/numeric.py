"""The NumPy-compatible array namespace: :class:`ndarray` and its functions.

``pyasc.ndarray`` (also ``pyasc.AscendTensor``) is the C++ ``asc::Tensor``;
the op functions (``add``, ``sum``, ...) are bound in C++ from the operator
registry (argument parsing, NEP 50 scalar promotion and broadcasting happen
there). This module adds the NumPy names that are thin compositions:
dtype objects, aliases and the creation functions.
"""

from __future__ import annotations

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C

ndarray = _C.ndarray
AscendTensor = _C.ndarray

# dtype objects: the NumPy scalar types (bfloat16 from ml_dtypes), as in NumPy.
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
bfloat16 = _ml_dtypes.bfloat16

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
minimum = _C.minimum
equal = _C.equal
not_equal = _C.not_equal
less = _C.less
less_equal = _C.less_equal
greater = _C.greater
greater_equal = _C.greater_equal
logical_and = _C.logical_and
logical_or = _C.logical_or
logical_xor = _C.logical_xor
logical_not = _C.logical_not
exp = _C.exp
log = _C.log
sqrt = _C.sqrt
sin = _C.sin
cos = _C.cos
tanh = _C.tanh
where = _C.where
astype = _C.astype

# Reductions.
sum = _C.sum  # noqa: A001
prod = _C.prod
max = _C.max  # noqa: A001
min = _C.min  # noqa: A001
amax = _C.max
amin = _C.min
mean = _C.mean

# Views and conversion.
asarray = _C.asarray
array = _C.array
from_numpy = _C.from_numpy
broadcast_to = _C.broadcast_to
reshape = _C.reshape
transpose = _C.transpose
permute_dims = _C.transpose
expand_dims = _C.expand_dims
squeeze = _C.squeeze
diagonal = _C.diagonal
empty = _C.empty
full = _C.full


def zeros(shape, dtype=None):
    """A new array of ``shape`` filled with 0 (float64 unless ``dtype``)."""
    return _C.full(shape, 0, float64 if dtype is None else dtype)


def ones(shape, dtype=None):
    """A new array of ``shape`` filled with 1 (float64 unless ``dtype``)."""
    return _C.full(shape, 1, float64 if dtype is None else dtype)


def empty_like(x, dtype=None, shape=None):
    x = asarray(x)
    return _C.empty(x.shape if shape is None else shape, x.dtype if dtype is None else dtype)


def zeros_like(x, dtype=None, shape=None):
    x = asarray(x)
    return _C.full(x.shape if shape is None else shape, 0, x.dtype if dtype is None else dtype)


def ones_like(x, dtype=None, shape=None):
    x = asarray(x)
    return _C.full(x.shape if shape is None else shape, 1, x.dtype if dtype is None else dtype)


def full_like(x, fill_value, dtype=None, shape=None):
    x = asarray(x)
    return _C.full(x.shape if shape is None else shape, fill_value, x.dtype if dtype is None else dtype)


def arange(start, stop=None, step=1, dtype=None):
    """``numpy.arange`` on the device (values computed as NumPy does, then copied)."""
    a = _np.arange(start, stop, step) if stop is not None else _np.arange(start)
    if dtype is not None:
        a = a.astype(dtype)
    return array(a)


def result_type(*operands):
    """The dtype an operation on ``operands`` gives (NumPy 2 / NEP 50 rules)."""
    return _C.result_type_of(*operands)


globals()["bool"] = _np.bool_  # NumPy 2's name, without shadowing the builtin here

__all__ = [
    "bool", "ndarray", "AscendTensor",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
    "add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "remainder", "mod",
    "negative", "positive", "absolute", "abs", "maximum", "minimum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "exp", "log", "sqrt",
    "sin", "cos", "tanh", "where", "astype",
    "sum", "prod", "max", "min", "amax", "amin", "mean",
    "asarray", "array", "from_numpy", "broadcast_to", "reshape", "transpose", "permute_dims",
    "expand_dims", "squeeze", "diagonal",
    "empty", "full", "zeros", "ones", "empty_like", "zeros_like", "ones_like", "full_like", "arange",
    "result_type",
]
