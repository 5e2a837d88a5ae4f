"""The bitwise functions of the array namespace (NumPy 2.4 and array-API names).

The ops are registry ops of the C++ core (src/ops/bitwise.cc: SIMD loops,
fused into lazy graphs like every elementwise op); this module names them:

* ``bitwise_and``, ``bitwise_or``, ``bitwise_xor``: integers and bools
  (logical for bools), NumPy promotion with NEP 50 weak Python scalars
  (``x & 0xFF`` keeps ``x``'s dtype; an int out of its range is an
  ``OverflowError``).
* ``invert`` (also ``bitwise_not`` and the array API's ``bitwise_invert``).
* ``left_shift``/``right_shift`` (array API: ``bitwise_left_shift``/
  ``bitwise_right_shift``): bools compute in int8; counts >= the bit width,
  or negative, shift every bit out (``right_shift`` of a negative signed
  value then gives -1).
* ``bitwise_count``: the number of 1-bits of ``|x|`` as uint8.

Float and complex operands, and int64 with uint64 (NumPy's common dtype is
float64), raise :class:`pyasc.AscendTypeError` with NumPy's message. The
``ndarray`` operators ``& | ^ ~ << >>`` (reflected and in-place forms) call
the same ops; ``np.bitwise_and(x, y)`` on pyasc arrays dispatches here.
"""

from __future__ import annotations

from . import _C

__all__ = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not", "bitwise_invert",
    "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "bitwise_count",
]

bitwise_and = _C.bitwise_and
bitwise_or = _C.bitwise_or
bitwise_xor = _C.bitwise_xor
invert = _C.invert
bitwise_not = _C.invert  # NumPy's alias
bitwise_invert = _C.invert  # the array API's name
left_shift = _C.left_shift
right_shift = _C.right_shift
bitwise_left_shift = _C.left_shift  # the array API's names
bitwise_right_shift = _C.right_shift
bitwise_count = _C.bitwise_count
