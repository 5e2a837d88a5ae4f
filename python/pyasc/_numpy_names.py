"""The NumPy 2.4 public names pyasc does not provide, each with the reason (not public API).

This is the one place those reasons live: tests/python/array/test_numpy_names.py
lists NumPy's public functions (functions, ufuncs and builtin functions in
``numpy.__all__``/``dir(numpy)``, submodules excluded), its scalar type
classes, its constants and its other objects, and fails on any name ``pyasc``
lacks that is not here -- and on any name here that pyasc has after all.
"""

from __future__ import annotations

_MATRIX = "numpy.matrix (a class NumPy itself discourages) has no pyasc counterpart: use 2-d arrays"
_DATETIME = "pyasc has no datetime64/timedelta64 dtypes"
_LONGDOUBLE = "pyasc has no extended-precision dtype (float128/complex256 on x86): float64/complex128 are the widest"
_FLEXIBLE = "pyasc arrays hold numbers only: no string, bytes, void (structured) or object dtypes"

#: name -> why pyasc does not provide it
NOT_PROVIDED = {
    # functions
    "asmatrix": _MATRIX,
    "bmat": _MATRIX,
    "busday_count": _DATETIME,
    "busday_offset": _DATETIME,
    "is_busday": _DATETIME,
    "datetime_as_string": _DATETIME,
    "datetime_data": _DATETIME,
    "isnat": _DATETIME,
    "nested_iters": "NumPy's nditer internals (iterators over NumPy memory layouts); no device counterpart",
    "show_config": "NumPy's own build report; pyasc's is the pyasc-info command (pyasc.utils.info.collect_info)",
    "show_runtime": "NumPy's own runtime report; pyasc's is the pyasc-info command (pyasc.utils.info.collect_info)",
    # scalar types
    "longdouble": _LONGDOUBLE,
    "clongdouble": _LONGDOUBLE,
    "float128": _LONGDOUBLE,
    "complex256": _LONGDOUBLE,
    "datetime64": _DATETIME,
    "timedelta64": _DATETIME,
    "str_": _FLEXIBLE,
    "bytes_": _FLEXIBLE,
    "void": _FLEXIBLE,
    "object_": _FLEXIBLE,
    "character": _FLEXIBLE,
    "flexible": _FLEXIBLE,
    "record": _FLEXIBLE,
    # other objects
    "broadcast": "NumPy's broadcast iterator over NumPy arrays; pyasc has broadcast_shapes/arrays/to",
    "busdaycalendar": _DATETIME,
    "flatiter": "the type of NumPy's ndarray.flat iterator; not a pyasc type",
    "matrix": _MATRIX,
    "memmap": "NumPy's memory-mapped array class: map with numpy.memmap and wrap it with pyasc.asarray (zero-copy)",
    "nditer": "NumPy's iterator over NumPy memory layouts; no device counterpart",
    "recarray": _FLEXIBLE,
    "test": "NumPy's own test-suite runner",
    "ufunc": "the class of NumPy's ufuncs; pyasc's elementwise functions are C++ functions (a NumPy ufunc called "
             "on pyasc arrays dispatches to them through __array_ufunc__)",
}
