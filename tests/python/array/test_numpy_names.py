"""Every public NumPy 2.4 function, scalar type and constant exists in pyasc, or has its reason in
pyasc._numpy_names.NOT_PROVIDED (the one place reasons live)."""

from __future__ import annotations

import math
import types

import numpy as np

import pyasc as asc
from pyasc._numpy_names import NOT_PROVIDED


def numpy_public_functions():
    """NumPy's public functions: the callables of ``np.__all__`` and ``dir(np)`` (no underscore)
    that are Python functions, ufuncs, builtin functions or array-function dispatchers. Submodules
    (np.linalg, np.fft, ...) are not functions; classes (dtypes, np.vectorize, np.errstate, ...)
    are not either: the scalar types are covered by :func:`numpy_scalar_types`."""
    names = set(np.__all__) | {n for n in dir(np) if not n.startswith("_")}
    out = []
    for n in sorted(names):
        obj = getattr(np, n, None)
        if isinstance(obj, types.ModuleType) or isinstance(obj, type):
            continue
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) or \
                type(obj).__name__ == "_ArrayFunctionDispatcher":
            out.append(n)
    return out


def numpy_scalar_types():
    """The scalar type classes of ``np.__all__`` (np.float32, np.intc, np.floating, ...)."""
    return sorted(n for n in np.__all__ if isinstance(getattr(np, n, None), type) and issubclass(getattr(np, n),
                                                                                                np.generic))


CONSTANTS = ("e", "pi", "euler_gamma", "inf", "nan", "newaxis")


def test_the_lists_are_numpys():
    funcs = numpy_public_functions()
    assert len(funcs) >= 380, len(funcs)  # NumPy 2.4.6 has 389
    assert {"add", "sum", "concatenate", "einsum", "vander"} <= set(funcs)
    assert not {"linalg", "fft", "float32", "ndarray", "vectorize"} & set(funcs)
    assert {"float32", "intc", "floating", "generic"} <= set(numpy_scalar_types())


def test_every_numpy_function_is_provided_or_has_a_reason():
    missing = [n for n in numpy_public_functions() if n not in NOT_PROVIDED and not callable(getattr(asc, n, None))]
    assert not missing, f"NumPy functions pyasc lacks without a reason in pyasc._numpy_names: {missing}"


def test_every_numpy_scalar_type_is_provided_or_has_a_reason():
    missing, different = [], []
    for n in numpy_scalar_types():
        if n in NOT_PROVIDED:
            continue
        if not hasattr(asc, n):
            missing.append(n)
        elif getattr(asc, n) is not getattr(np, n):
            different.append(n)
    assert not missing, f"NumPy scalar types pyasc lacks without a reason: {missing}"
    assert not different, f"pyasc scalar types that are not NumPy's class: {different}"


def test_constants_are_numpys():
    for n in CONSTANTS:
        ref, got = getattr(np, n), getattr(asc, n)
        if ref is None:
            assert got is None
        elif math.isnan(ref):
            assert isinstance(got, float) and math.isnan(got)
        else:
            assert type(got) is float and got == ref, n


def numpy_other_names():
    """The rest of ``np.__all__``: objects that are neither functions, scalar types nor submodules
    (np.mgrid, np.s_, np.dtype, np.typecodes, np.poly1d, ...)."""
    skip = set(numpy_public_functions()) | set(numpy_scalar_types()) | set(CONSTANTS)
    return sorted(n for n in np.__all__ if n not in skip and not isinstance(getattr(np, n, None), types.ModuleType)
                  and n != "__version__")


def test_every_other_numpy_name_is_provided_or_has_a_reason():
    missing = [n for n in numpy_other_names() if n not in NOT_PROVIDED and not hasattr(asc, n)]
    assert not missing, f"NumPy names pyasc lacks without a reason: {missing}"


def test_numpy_tables():
    assert asc.dtype is np.dtype and asc.True_ is np.True_ and asc.False_ is np.False_
    assert asc.little_endian == np.little_endian and asc.typecodes == np.typecodes
    assert asc.sctypeDict["float32"] is np.float32 and asc.sctypeDict["bfloat16"] is asc.bfloat16
    assert "str" not in asc.sctypeDict and np.str_ not in asc.ScalarType
    assert {int, float, complex, bool, np.float32, np.int8, asc.bfloat16} <= set(asc.ScalarType)
    assert set(asc.ScalarType) - {asc.bfloat16} <= set(np.ScalarType)


def test_reasons_are_current():
    # every reason names a NumPy public name that pyasc really does not have
    public = set(numpy_public_functions()) | set(numpy_scalar_types()) | set(CONSTANTS) | set(numpy_other_names())
    stale = [n for n in NOT_PROVIDED if hasattr(asc, n)]
    unknown = [n for n in NOT_PROVIDED if n not in public]
    assert not stale, f"NOT_PROVIDED lists names pyasc has: {stale}"
    assert not unknown, f"NOT_PROVIDED lists names that are not NumPy public names: {unknown}"
    assert all(isinstance(r, str) and len(r) > 20 for r in NOT_PROVIDED.values())


# pyasc functions (older than this test) whose signatures still lack some of NumPy 2.4's parameters;
# a new function must not add to this list.
KNOWN_SIGNATURE_GAPS = {
    "arange", "around", "clip", "cumulative_prod", "cumulative_sum", "empty_like", "eye", "full_like", "linspace",
    "moveaxis", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "ones", "ones_like",
    "ravel", "round", "swapaxes", "zeros", "zeros_like",
}


def test_functions_have_docstrings_and_numpys_parameters():
    import inspect

    gaps = []
    for n in numpy_public_functions():
        fn = getattr(asc, n, None)
        if fn is None:
            continue
        assert fn.__doc__, f"pyasc.{n} has no docstring"
        try:
            ref = inspect.signature(getattr(np, n))
            got = inspect.signature(fn)
        except (TypeError, ValueError):  # builtins / ufuncs without a Python signature
            continue
        if isinstance(getattr(np, n), np.ufunc):
            continue
        missing = [p for p in ref.parameters if p not in got.parameters and p not in ("like", "subok")]
        has_var = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in got.parameters.values())
        if missing and not has_var and n not in KNOWN_SIGNATURE_GAPS:
            gaps.append(f"pyasc.{n}{got} lacks {missing} of numpy.{n}{ref}")
    assert not gaps, gaps
