"""Differential fuzzing of pyasc's public namespace against NumPy 2.4.

A *case* is pure data (a tuple of nested tuples / Python literals, printable
with ``repr`` and rebuilt with ``ast.literal_eval``)::

    (kind, name, args, kwargs)
    kind: "fn" (asc.<name> vs np.<name>), "linalg" (asc.linalg / np.linalg),
          "method" (args[0].<name>(*args[1:])), "op" (operator.<name>)
    args / kwargs values: argument specs (see ``build``)

Hypothesis draws the cases (``case_strategy``); ``run_case`` evaluates one case
with NumPy and with pyasc (lazy, then eager) and classifies it:

    ok           both return, equal dtype, shape, values (NaN where NaN; exact
                 bits except the ULP bounds of docs/vector_math.md for the
                 transcendental functions and a summation-order bound for the
                 accumulating ones)
    both_raise   pyasc raises an instance of NumPy's exception class (or of a
                 builtin base of it: AxisError -> ValueError / IndexError)
    clear_error  pyasc raises a clear error (AscendError, NotImplementedError,
                 TypeError/ValueError/...) where NumPy accepts
    silent_accept pyasc returns where NumPy raises
    wrong_result both return, results differ
    unclear_error pybind11 "Unable to cast", SystemError, AttributeError, ...
                 or an exception class unrelated to NumPy's
    crash        the process died (found by the driver, ``drive``)

Run ``python fuzz_harness.py --examples N [--seed S]`` (or the env variables
PYASC_FUZZ_EXAMPLES / PYASC_FUZZ_SEED through the pytest test) for the long mode;
``python fuzz_harness.py --case "<repr>"`` reruns one case.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import json
import operator
import re
import os
import subprocess
import sys
import time
import warnings

import ml_dtypes
import numpy as np

import pyasc as asc

CATEGORIES = ["ok", "both_raise", "clear_error", "silent_accept", "unclear_error", "wrong_result", "crash"]
BAD = ("silent_accept", "unclear_error", "wrong_result", "crash")

DTYPES = ["float64", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]


def parse_case(text):
    """A case from its repr (Python literals, plus nan / inf)."""
    return eval(text, {"__builtins__": {}}, {"nan": float("nan"), "inf": float("inf")})  # noqa: S307


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


# --------------------------------------------------------------------------- catalog

# Names that do I/O, mutate global state, take callables, print, or have no
# array-valued NumPy peer worth comparing.
EXCLUDED = {
    "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile", "fromregex",
    "frombuffer", "fromstring", "fromiter", "from_dlpack", "set_printoptions", "get_printoptions", "printoptions",
    "seterr", "geterr", "seterrcall", "geterrcall", "setbufsize", "getbufsize", "errstate", "info", "apply_along_axis",
    "apply_over_axes", "fromfunction", "frompyfunc", "vectorize", "piecewise", "mask_indices", "array2string",
    "array_repr", "array_str", "format_float_positional", "format_float_scientific", "ndenumerate", "ndindex",
    "nditer", "__array_namespace_info__", "poly1d", "dtype", "finfo", "iinfo", "typename", "may_share_memory",
    "shares_memory", "isfortran", "ndarray", "copyto", "place", "put", "putmask", "fill_diagonal", "put_along_axis",
}
# Uninitialised outputs: only dtype and shape compare.
SHAPE_ONLY = {"empty", "empty_like", "svd", "qr", "eigh",  # eigen/singular vectors: sign is free
              "searchsorted",  # the drawn arrays are not sorted: the result is unspecified
              "argpartition", "partition"}  # only the kth element's position is specified
# Ties make a non-stable sort's indices unspecified: compared only with kind="stable" / stable=True.
TIES = {"argsort"}
# Order not specified (LAPACK's root order is not reproduced): compared sorted.
UNORDERED = {"roots", "unique_values"}  # NumPy >= 2.3's unique_values is hash-ordered
# Sorted results whose zeros' signs are compared as equal values only: NumPy's float sort
# (x86-simd-sort's min/max networks on AVX2/AVX-512) does not even keep the multiset of
# zeros -- 17 float32 zeros of which 7 are -0.0 come back with 2 -- so which zero a sorted
# array (or the unique value picked from a run of equal ones) holds depends on NumPy's CPU
# code path, not on a rule pyasc could follow. Everything else, NaN/inf positions and all
# non-zero values included, is compared exactly.
SORT_ZERO_SIGN = {"sort", "msort", "sort_complex", "unique", "union1d", "intersect1d", "setxor1d", "setdiff1d",
                  # (the array API's unique_* are np.unique with fixed flags: the same sort, the same zeros)
                  "unique_values", "unique_counts", "unique_inverse", "unique_all"}

# docs/vector_math.md bounds (float32, float64); float16/bfloat16 are within 1 ulp
# of the exact value. NumPy's own error is added on top (float32 SIMD loops: <= 4).
ULP = {
    "exp": (1.5, 1.5), "exp2": (1.5, 1.5), "expm1": (4, 4), "log": (4, 4), "log2": (4, 4), "log10": (4, 4),
    "log1p": (4, 4), "sin": (3, 3), "cos": (3, 3), "tan": (1, 3.5), "arcsin": (3, 3), "arccos": (3, 3),
    "arctan": (3, 3), "sinh": (4, 4), "cosh": (4, 4), "tanh": (4, 4), "arcsinh": (4, 4), "arccosh": (4, 4),
    "arctanh": (4, 4), "sqrt": (0.5, 0.5), "cbrt": (1, 1), "arctan2": (0.6, 3), "hypot": (0.6, 2),
    "power": (0.6, 0.6), "logaddexp": (0.6, 3), "logaddexp2": (0.6, 3), "float_power": (0.6, 0.6),
    "asin": (3, 3), "acos": (3, 3), "atan": (3, 3), "asinh": (4, 4), "acosh": (4, 4), "atanh": (4, 4),
    "atan2": (0.6, 3), "pow": (0.6, 0.6), "sinc": (4, 4), "i0": (4, 4), "__pow__": (0.6, 0.6), "pow_op": (0.6, 0.6),
    "true_divide": (0.5, 0.5), "divide": (0.5, 0.5), "reciprocal": (0.5, 0.5), "deg2rad": (0.5, 0.5),
    "rad2deg": (0.5, 0.5), "degrees": (0.5, 0.5), "radians": (0.5, 0.5),
    # |complex| is hypot(re, im)
    "abs": (0.6, 2), "absolute": (0.6, 2),
    # angle(z) is arctan2(z.imag, z.real): its bound, not exact bits
    "angle": (0.6, 3),
}
# Results whose value depends on the summation / evaluation order.
ACCUM = {
    "sum", "nansum", "mean", "nanmean", "prod", "nanprod", "cumsum", "nancumsum", "cumprod", "nancumprod",
    "cumulative_sum", "cumulative_prod", "var", "nanvar", "std", "nanstd", "average", "dot", "vdot", "inner",
    "outer", "matmul", "tensordot", "einsum", "kron", "trace", "convolve", "correlate", "cov", "corrcoef",
    "polyval", "polyfit", "polymul", "polydiv", "polyint", "polyder", "vander", "trapezoid", "gradient", "interp",
    "linspace", "logspace", "geomspace", "percentile", "nanpercentile", "quantile", "nanquantile", "median",
    "nanmedian", "histogram", "histogram2d", "histogramdd", "histogram_bin_edges", "cross", "vecdot", "matvec",
    "vecmat", "roots", "poly", "unwrap", "norm", "det", "inv", "solve", "pinv", "svd", "svdvals", "eigh", "eigvalsh",
    "qr", "cholesky", "lstsq", "slogdet", "cond", "matrix_norm", "vector_norm", "matrix_power", "multi_dot",
    "tensorinv", "tensorsolve", "matrix_rank", "sinc", "i0", "kaiser", "hanning", "hamming", "blackman", "bartlett",
    "__matmul__", "matmul_op", "ediff1d", "diff", "sort_complex",
}

OPS = {
    "add": 2, "sub": 2, "mul": 2, "truediv": 2, "floordiv": 2, "mod": 2, "pow": 2, "and_": 2, "or_": 2, "xor": 2,
    "lshift": 2, "rshift": 2, "lt": 2, "le": 2, "eq": 2, "ne": 2, "ge": 2, "gt": 2, "matmul": 2, "neg": 1,
    "pos": 1, "abs": 1, "invert": 1, "getitem": 2,
}

METHODS = [
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "clip", "compress", "conj", "conjugate",
    "copy", "cumprod", "cumsum", "diagonal", "dot", "fill", "flatten", "item", "max", "mean", "min", "nonzero",
    "partition", "prod", "ravel", "repeat", "reshape", "resize", "round", "searchsorted", "sort", "squeeze", "std",
    "sum", "swapaxes", "take", "tolist", "trace", "transpose", "var", "view", "__len__", "__bool__", "__int__",
    "__float__", "__index__", "__iter__", "__contains__", "tobytes",
]

INT_PARAMS = {"axis", "axis1", "axis2", "axisa", "axisb", "axisc", "kth", "decimals", "n", "k", "N", "M", "m", "deg",
              "ndim", "offset", "shift", "num", "minlength", "width", "base", "padding", "number", "source",
              "destination", "start", "ddof", "count", "ndmin", "edge_order", "bins", "num", "indices_or_sections",
              "repeats", "beta", "dx", "tol", "axes"}
SHAPE_PARAMS = {"shape", "new_shape", "newshape", "dims", "dimensions", "reps", "pad_width", "dimensions"}
LIST_PARAMS = {"arrays", "tup", "arys", "choices", "xi", "args", "condlist", "choicelist", "keys", "operands",
               "multi_index", "arrays_and_dtypes"}
DTYPE_PARAMS = {"dtype", "type1", "type2", "from_", "to", "int_type", "arg1", "arg2"}
BOOL_PARAMS = {"keepdims", "endpoint", "retstep", "right", "invert", "assume_unique", "return_index",
               "return_inverse", "return_counts", "equal_nan", "increasing", "sparse", "copy", "rowvar", "bias",
               "deg", "full", "cov", "overwrite_input", "stable", "include_initial", "returned", "wrap", "sorted"}
OPTIONAL_KW = ["axis", "keepdims", "dtype", "ddof", "k", "n", "decimals", "side", "mode", "return_counts",
               "return_index", "return_inverse", "equal_nan", "ord", "endpoint", "num", "offset", "kind", "stable",
               "include_initial", "bins", "right", "shape", "copy", "order", "weights", "out"]
STR_CHOICES = {"mode": ["constant", "edge", "reflect", "wrap", "raise", "clip", "full", "valid", "same", "bogus"],
               "side": ["left", "right", "bogus"], "order": ["C", "F", "K", "A", "bogus"],
               "kind": ["quicksort", "stable", "introselect", "bogus"], "ord": [None, 1, 2, -1, "fro", "nuc", 0]}


def _np_obj(kind, name):
    if kind == "linalg":
        return getattr(np.linalg, name)
    return getattr(np, name)


def catalog():
    """[(kind, name, param info)] of the names fuzzed."""
    out = []
    for name in asc.numeric.__all__:
        if name in EXCLUDED or not hasattr(np, name):
            continue
        obj, npobj = getattr(asc, name, None), getattr(np, name)
        if not callable(obj) or isinstance(npobj, type) or inspect.ismodule(npobj):
            continue
        out.append(("fn", name))
    for name in dir(asc.linalg):
        if name.startswith("_") or not hasattr(np.linalg, name):
            continue
        if callable(getattr(asc.linalg, name)) and not isinstance(getattr(np.linalg, name), type):
            out.append(("linalg", name))
    for name in METHODS:
        if hasattr(asc.ndarray, name) and hasattr(np.ndarray, name):
            out.append(("method", name))
    for name in OPS:
        out.append(("op", name))
    # PYASC_FUZZ_NAMES restricts the draw to some names (a developer aid for a
    # long run over one area): "fn:sin,method:sum,op:add", or the path of a file
    # with such entries (one per line, any prefix before the kind:name is ignored).
    only = os.environ.get("PYASC_FUZZ_NAMES")
    if only:
        text = open(only).read() if os.path.exists(only) else only.replace(",", "\n")
        keep = {tuple(line.split()[-1].split(":", 1)) for line in text.splitlines() if ":" in line}
        out = [e for e in out if e in keep]
    return out


def params_of(kind, name):
    """(required [names], optional [names]) from NumPy's signature; ufuncs: nin inputs."""
    if kind == "op":
        return [f"x{i}" for i in range(OPS[name])], []
    if kind == "method":
        return [], []
    npobj = _np_obj(kind, name)
    if isinstance(npobj, np.ufunc):
        return [f"x{i}" for i in range(npobj.nin)], ["dtype", "out"]
    try:
        sig = inspect.signature(npobj)
    except (TypeError, ValueError):
        return ["a"], []
    req, opt = [], []
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            req.append("*" + p.name)
        elif p.kind is p.VAR_KEYWORD:
            continue
        elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
            req.append(p.name)
        elif p.name not in ("like", "device", "subok", "out"):
            opt.append(p.name)
    return req, opt


# --------------------------------------------------------------------------- building inputs

_SPECIAL = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 0.5, -2.5, 3.0, 1e-30, 65504.0, 1e30, 7.0]


def _values(dtype, n, seed, fill):
    rng = np.random.default_rng(seed)
    dt = np_dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if fill == "edge":
            pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dt)
            return pool[rng.integers(0, len(pool), n)]
        lo = max(int(info.min), -9)
        return rng.integers(lo, 10, n).astype(dt)
    if fill == "special":
        v = np.array(_SPECIAL)[rng.integers(0, len(_SPECIAL), n)]
    elif fill == "edge":
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
    else:
        v = np.round(rng.standard_normal(n) * 4, 2)
    if dt.kind == "c":
        w = np.round(rng.standard_normal(n) * 4, 2) if fill != "special" else \
            np.array(_SPECIAL)[rng.integers(0, len(_SPECIAL), n)]
        with np.errstate(all="ignore"):
            return (v + 1j * w).astype(dt)
    with np.errstate(all="ignore"):
        return v.astype(dt)


def build(spec, xp):
    """Builds one argument for xp (np or asc) from its spec."""
    if not isinstance(spec, tuple) or not spec or not isinstance(spec[0], str):
        return spec
    tag = spec[0]
    if tag == "py":
        return spec[1]
    if tag == "tuple":
        return tuple(build(s, xp) for s in spec[1])
    if tag == "list":
        return [build(s, xp) for s in spec[1]]
    if tag == "dtype":
        return np_dtype(spec[1])
    if tag == "huge":
        _, dtype, shape = spec
        base = np.ones(1, np_dtype(dtype))
        a = base if xp is np else asc.asarray(base)
        return xp.broadcast_to(a, shape)
    if tag == "arr":
        _, dtype, shape, view, seed, fill = spec
        shape = tuple(shape)
        if view == "T":
            bshape = shape[::-1]
        elif view in ("step2", "rev") and shape:
            bshape = shape[:-1] + (shape[-1] * (2 if view == "step2" else 1),)
        else:
            bshape = shape
        n = int(np.prod(bshape)) if bshape else 1
        base = _values(dtype, n, seed, fill).reshape(bshape)
        a = base if xp is np else asc.asarray(base)
        if view == "T":
            return a.T
        if view == "step2" and shape:
            return a[..., ::2]
        if view == "rev" and shape:
            return a[..., ::-1]
        return a
    raise ValueError(f"bad spec {spec!r}")


# --------------------------------------------------------------------------- hypothesis strategies

def _strategies():
    from hypothesis import strategies as st

    small_shape = st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple)
    mat_shape = st.sampled_from([(2, 2), (3, 3), (1, 1), (0, 0), (2, 3), (3, 2), (4, 4), (2, 2, 2)])
    dtypes = st.sampled_from(DTYPES)
    views = st.sampled_from(["c", "c", "c", "step2", "rev", "T"])
    fills = st.sampled_from(["rand", "rand", "special", "edge"])

    @st.composite
    def array_spec(draw, shape=None, dtype=None, fill=None):
        sh = draw(small_shape) if shape is None else shape
        return ("arr", draw(dtypes) if dtype is None else dtype, sh, draw(views), draw(st.integers(0, 2 ** 16)),
                draw(fills) if fill is None else fill)

    bad = st.sampled_from([("py", 1.5), ("py", "abc"), ("py", None), ("py", 2 ** 63), ("py", 2 ** 64),
                           ("py", -2 ** 63 - 1), ("py", 2 ** 100), ("py", -1), ("py", (1, "a")), ("py", [[1], [2, 3]]),
                           ("py", True), ("py", float("nan")), ("py", 1j)])
    huge = st.tuples(st.just("huge"), st.sampled_from(["float32", "int8", "bool", "float64"]),
                     st.sampled_from([(2 ** 62,), (2 ** 31, 2 ** 31), (2 ** 40, 2 ** 24), (2 ** 63 - 1,),
                                      (2 ** 44,), (3, 2 ** 61)]))
    py_int = st.integers(-4, 6).map(lambda v: ("py", v))

    @st.composite
    def param_spec(draw, pname, first_shape, mat):
        r = draw(st.integers(0, 99))
        if pname in INT_PARAMS:
            if pname == "axes" and r < 50:
                return ("py", tuple(draw(st.permutations(range(len(first_shape))))) if first_shape else ())
            return draw(st.one_of(py_int, st.just(("py", None))) if r < 90 else
                        array_spec(shape=draw(st.sampled_from([(), (2,)])), dtype="int64"))
        if pname in SHAPE_PARAMS:
            return ("py", tuple(draw(st.lists(st.integers(-1, 4), min_size=0, max_size=3))))
        if pname in DTYPE_PARAMS:
            return ("dtype", draw(dtypes))
        if pname in BOOL_PARAMS:
            return ("py", draw(st.booleans()))
        if pname in STR_CHOICES:
            return ("py", draw(st.sampled_from(STR_CHOICES[pname])))
        if pname in LIST_PARAMS or pname.startswith("*"):
            k = draw(st.integers(1, 3))
            dt = draw(dtypes)
            same = r < 70
            return ("list", tuple(draw(array_spec(shape=first_shape if same else None, dtype=dt if same else None))
                                  for _ in range(k)))
        if pname in ("q",):
            return ("py", draw(st.sampled_from([0.5, 0.0, 0.25, 1.0, 1.5, -0.1])))
        if pname in ("condition", "mask"):
            return draw(array_spec(shape=first_shape, dtype="bool"))
        if pname in ("indices", "ind", "obj"):
            return draw(array_spec(shape=draw(st.sampled_from([(2,), (), (3,), first_shape])),
                                   dtype=draw(st.sampled_from(["int64", "int32", "uint8", "float64"])),
                                   fill="rand"))
        if r >= 95:
            return ("py", draw(st.sampled_from([2, 0, 1, 2.5, -3, True, [1, 2, 3], [[1.0, 2.0], [3.0, 4.0]]])))
        if mat:
            return draw(array_spec(shape=draw(mat_shape)))
        return draw(array_spec(shape=first_shape if r < 70 else None))

    @st.composite
    def case(draw):
        kind, name = draw(st.sampled_from(CATALOG))
        req, opt = params_of(kind, name)
        mat = kind == "linalg" or name in ("matmul", "dot", "inv", "trace", "diagonal", "tril", "triu", "det")
        first_shape = draw(mat_shape if mat else small_shape)
        args, kwargs = [], {}
        if kind == "method":
            args.append(draw(array_spec(shape=first_shape)))
            for _ in range(draw(st.integers(0, 2))):
                args.append(draw(param_spec(draw(st.sampled_from(["axis", "x", "dtype", "shape", "k"])),
                                            first_shape, mat)))
        else:
            for i, p in enumerate(req):
                if i == 0 and p not in INT_PARAMS | SHAPE_PARAMS | DTYPE_PARAMS | LIST_PARAMS and \
                        not p.startswith("*"):
                    args.append(draw(array_spec(shape=first_shape)))
                elif p.startswith("*"):
                    lst = draw(param_spec(p, first_shape, mat))
                    args.extend(lst[1])
                else:
                    args.append(draw(param_spec(p, first_shape, mat)))
            for p in opt:
                if (p in OPTIONAL_KW or draw(st.integers(0, 9)) == 9) and draw(st.integers(0, 3)) == 3:
                    kwargs[p] = draw(param_spec(p, first_shape, mat)) if p != "out" else \
                        draw(array_spec(shape=first_shape))
        # at most one argument replaced by a bad value (a wrong type, a huge int,
        # a wrong-shaped array, a huge broadcast view), so the expected error is unambiguous
        slots = len(args) + len(kwargs)
        m = draw(st.integers(0, 99))
        if slots and m >= 70:
            i = draw(st.integers(0, slots - 1))
            if m >= 88:
                repl = draw(huge)
            elif m >= 84:
                repl = draw(array_spec(shape=draw(st.sampled_from([(7,), (2, 5), (1, 1, 1, 1), (3, 0)]))))
            else:
                repl = draw(bad)
            if i < len(args):
                args[i] = repl
            else:
                kwargs[sorted(kwargs)[i - len(args)]] = repl
        return (kind, name, tuple(args), tuple(sorted(kwargs.items())))

    return case()


CATALOG = catalog()


# --------------------------------------------------------------------------- running and comparing

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


def _compare_arrays(e, g, case):
    """None if equal, else a short description."""
    unsorted_unique = case[1] == "unique" and ("sorted", ("py", False)) in tuple(case[3])
    if (_name_key(case) in UNORDERED or unsorted_unique) and e.ndim == 1 and g.ndim == 1:
        # (unique(sorted=False): NumPy >= 2.3 returns the hash table's order, unspecified)
        srt = np.sort_complex if e.dtype.kind == "c" else np.sort
        e, g = srt(e).astype(e.dtype), srt(g).astype(g.dtype)
    if g.dtype != e.dtype:
        return f"dtype {g.dtype} != {e.dtype}"
    if g.shape != e.shape:
        return f"shape {g.shape} != {e.shape}"
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
            scale = np.max(np.abs(ef[fin]), initial=0.0)
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


def _compare(e, g, case):
    if e[0] == "array" and g[0] == "array":
        return _compare_arrays(e[1], g[1], case)
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
        return _compare_arrays(ea, ga, case)
    if e[0] in ("tuple", "list", "iter") and g[0] in ("tuple", "list", "iter"):
        if len(e[1]) != len(g[1]):
            return f"length {len(g[1])} != {len(e[1])}"
        for i, (ee, gg) in enumerate(zip(e[1], g[1])):
            d = _compare(ee, gg, case)
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


def classify(case, modes=("lazy", "eager")):
    """(category, detail) of one case, the worst over the pyasc modes."""
    isolate = _huge(case)
    ref = _call_isolated(case, np, False) if isolate else _call(case, np)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    worst = ("ok", "")
    was_eager = asc.is_eager()
    try:
        for mode in modes:
            if isolate:
                got = _call_isolated(case, asc, mode == "eager")
                if isinstance(got.exc, _Hang):
                    # a 0.1 s call can miss 1.5 s on a loaded machine (load 25 on 2 cores: a few
                    # percent of a core each); a real 2**62-element loop misses 15 s too
                    got = _call_isolated(case, asc, mode == "eager", timeout=15)
            else:
                asc.set_eager(mode == "eager")
                got = _call(case, asc)
            cat, detail = _classify_pair(case, ref, got)
            if order[cat] > order[worst[0]] or (worst[0] in ("ok",) and cat != "ok"):
                worst = (cat, f"{mode}: {detail}")
    finally:
        asc.set_eager(was_eager)
    return worst


def _exc_str(e):
    return f"{type(e).__module__}.{type(e).__qualname__}: {str(e)[:160]}"


_NUMPY_ACCIDENTS = ("tuple index out of range", "len() of unsized object", "iteration over a 0-d array",
                    "too many values to unpack", "did not return an iterable")


def _numpy_internal(exc):
    # (RecursionError: NumPy's recursive polyder/polyint stop at the interpreter's recursion limit,
    # an order of ~1000 -- an implementation limit, not a rejection of the input)
    return isinstance(exc, (AttributeError, KeyError, UnboundLocalError, RecursionError)) or \
        any(m in str(exc) for m in _NUMPY_ACCIDENTS)


def _bf16_promotion_ok(case, ref, got):
    """Whether pyasc's answer to a dtype query NumPy + ml_dtypes rejects is pyasc's documented
    bfloat16 promotion (docs/architecture.md: promotion treats bfloat16 as an ordinary float),
    checked against NumPy's own answers -- not a skip:
    * result_type/promote_types: NumPy's DTypePromotionError with a weak Python scalar, bfloat16
      and another dtype depends on the argument order (result_type(1.5, float64_array,
      bfloat16_array) raises, result_type(float64_array, bfloat16_array, 1.5) is float64; with
      bool and int8 the orders even disagree: bfloat16 or float64). pyasc's promotion does not
      depend on the order: its answer must be NumPy's for some order of the same operands.
    * common_type: NumPy's precision table has no bfloat16 ("can't get common type for
      non-numeric array"); pyasc's common_type documents bfloat16 as a float type, so its answer
      must be NumPy's promotion of the dtypes (integers read as float64, as common_type does)."""
    if case[0] != "fn" or case[1] not in ("result_type", "promote_types", "common_type") or got.exc is not None:
        return False
    if not _has(case, lambda s: len(s) > 1 and s[0] in ("arr", "dtype") and s[1] == "bfloat16"):
        return False
    if not (isinstance(got.value, tuple) and got.value[0] == "dtype"):
        return False
    ops = [build(s, np) for s in case[2]]
    answers = set()
    if case[1] == "common_type":
        if "non-numeric" not in str(ref.exc) or not all(hasattr(v, "dtype") for v in ops):
            return False
        dts = [np.dtype(v.dtype) for v in ops]
        if any(d.kind not in "iufc" and d != np.dtype(ml_dtypes.bfloat16) for d in dts):
            return False  # (bool and others: NumPy's TypeError stands)
        answers.add(str(np.result_type(*(np.dtype(np.float64) if d.kind in "iu" else d for d in dts))))
    else:
        if not isinstance(ref.exc, np.exceptions.DTypePromotionError) or case[3]:
            return False
        fn = np.promote_types if case[1] == "promote_types" else np.result_type
        for order in itertools.permutations(ops):
            try:
                answers.add(str(np.dtype(fn(*order))))
            except TypeError:
                pass
    return got.value[1] in answers


def _classify_pair(case, ref, got):
    if isinstance(got.exc, _Crash):
        return "crash", str(got.exc)
    if isinstance(ref.exc, (_Hang, _Crash)):
        # NumPy would loop over the 2**62 elements: nothing to compare unless pyasc errs unclearly
        if got.exc is not None and not isinstance(got.exc, _Hang) and _is_unclear(got.exc):
            return "unclear_error", f"numpy computes | pyasc {_exc_str(got.exc)}"
        return "ok", ""
    if isinstance(got.exc, _Hang):
        return "crash", f"pyasc hangs where numpy gives {_exc_str(ref.exc) if ref.exc else 'a result'}"
    if ref.exc is not None and got.exc is not None:
        if _matches(ref.exc, got.exc) or _numpy_internal(ref.exc) and not _is_unclear(got.exc):
            # (NumPy failing by accident, e.g. an IndexError from its own tuple indexing: any clear
            # pyasc error is as good)
            return "both_raise", ""
        if isinstance(got.exc, asc.AscendError) and not _is_unclear(got.exc) and \
                isinstance(got.exc, (ValueError, TypeError, IndexError, MemoryError, OverflowError)) and \
                isinstance(ref.exc, MemoryError):
            return "both_raise", ""
        if isinstance(got.exc, asc.errors.AscendUnsupportedDtypeError) and \
                re.search(r"unsupported dtype (<U|\|S)", str(got.exc)) and \
                _has(case, lambda s: s[0] == "py" and isinstance(s[1], (str, bytes))):
            # the same for a str: NumPy holds it as a '<U' array and fails later on that path
            # (delete('abc', 5): its IndexError); pyasc has no string arrays and refuses the value
            # where it is converted, naming its dtype -- while both reject the input
            return "both_raise", ""
        if isinstance(got.exc, asc.errors.AscendUnsupportedDtypeError) and "dtype object" in str(got.exc) and \
                _has(case, lambda s: s[0] == "py" and type(s[1]) is int and not -2 ** 63 <= s[1] < 2 ** 64):
            # NumPy turned an integer beyond int64/uint64 into an object array and failed later on that
            # path (extract(c, 2**100): take's IndexError); pyasc has no object arrays and refuses the
            # value where it is converted, naming it: the same input rejected, clearly
            return "both_raise", ""
        return "unclear_error", f"numpy {_exc_str(ref.exc)} | pyasc {_exc_str(got.exc)}"
    if ref.exc is not None:
        if _bf16_promotion_ok(case, ref, got):
            return "ok", ""
        if isinstance(ref.exc, RecursionError):
            # NumPy recursed past the interpreter's limit (polyder(p, 5000): one frame per order):
            # no answer of NumPy's to compare (pyasc's empty derivative is the exact one)
            return "ok", ""
        if isinstance(ref.exc, MemoryError) and _huge(case):
            # NumPy materialises the broadcast view (argmax copies it); pyasc may answer from one
            # element per broadcast axis: not an input NumPy rejects, only one it cannot hold
            return "ok", ""
        if case[0] == "linalg" and isinstance(ref.exc, np.linalg.LinAlgError) and "Singular" in str(ref.exc) and \
                _has(case, lambda s: s[0] == "arr" and s[5] == "special" and s[1] not in _INT_DTYPES) and \
                _nan_input(case) and got.value[0] == "array" and got.value[1].dtype.kind in "fc" and \
                np.isnan(got.value[1]).any():
            # a matrix holding NaN: whether LAPACK's getrf reports an exactly zero pivot depends on how
            # OpenBLAS's i?amax pivot search (a different kernel per CPU) ranks NaN against 0; no
            # answer is NumPy's to require (pyasc's result must hold the NaN)
            return "ok", ""
        return "silent_accept", f"numpy {_exc_str(ref.exc)}"
    if case[:2] == ("linalg", "matrix_power") and ref.value == ("py", "NoneType", None) and got.exc is None:
        # an exponent given as a NumPy int64 -2**63: NumPy's abs() of it wraps (n stays negative), its
        # squaring loop never runs and it returns None -- NumPy's overflow, not an answer to compare
        return "ok", ""
    if got.exc is not None:
        if _is_unclear(got.exc):
            return "unclear_error", f"numpy ok | pyasc {_exc_str(got.exc)}"
        return "clear_error", f"pyasc {_exc_str(got.exc)}"
    d = _compare(ref.value, got.value, case)
    if d and _BF16_NAN_FNS.get(case[1]) and case[0] == "fn" and \
            _has(case, lambda s: s[0] == "arr" and s[1] == "bfloat16"):
        # pyasc's nan-functions ignore bfloat16 NaNs (tests/python/array/test_nanreduce.py); NumPy's
        # _replace_nan masks np.inexact types only, so its nansum/nanmean/... of bfloat16 are the
        # plain reductions. The reference is then NumPy's nan-function on the float32 upcast, rounded
        # back to bfloat16 (as test_nanreduce does), and pyasc must equal it.
        ref32 = _bf16_as_f32_ref(case)
        if ref32 is not None and not _compare(_round_bf16(ref32, ref.value), got.value, case):
            return "ok", ""
    if d and _name_key(case) in ULP and " ulp > " in d:
        # NumPy's float32/float16 loops are not always within their documented error
        # (logaddexp2(-1.22, -0.94) in float32 is 9 ulp off: log2(1 + 2**x) cancels), so a ULP
        # miss is judged again against NumPy's float64 answer rounded to the result dtype -- the
        # exact value for the bound, not a wider tolerance
        ref64 = _f64_ref(case)
        if ref64 is not None and not _compare(_round_like(ref64, ref.value), got.value, case):
            return "ok", ""
    if d and re.match(r"(\[\d+\] )*values differ", d) and (_numpy_invalid_cast(case) or
                                                            _hist_weight_overflow(case)):
        # NumPy cast a NaN/inf/out-of-range float to an integer ("invalid value encountered in
        # cast"): C leaves the value undefined and NumPy's answer depends on its loop (float64
        # 4294967300 -> uint32 is 0 in the contiguous SIMD loop, 4 in the strided one; NaN 2**31 or
        # 0), so no value is NumPy's to compare -- the dtype and shape still are (compared above)
        return "ok", ""
    if d and _nan_to_int_unspecified(case, ref, got):
        return "ok", ""
    if d and _complex_inf_dot_unspecified(case, ref, got):
        return "ok", ""
    if d and not re.match(r"(\[\d+\] )*(dtype|shape|length)", d) and _inv_transposed_ok(case, got):
        return "ok", ""
    if d and not re.match(r"(\[\d+\] )*(dtype|shape|length)", d) and _interp_xp_not_increasing(case):
        return "ok", ""
    if d and not re.match(r"(\[\d+\] )*(dtype|length)", d) and _assume_unique_violated(case):
        return "ok", ""
    if d and re.match(r"\[[12]\] ", d) and _distinct_nan_inverse_ok(case, ref, got):
        return "ok", ""
    if d and d.startswith("max |diff|") and _charpoly_as_close_as_numpy(case, ref, got):
        return "ok", ""
    if d:
        return "wrong_result", d
    return "ok", ""


def _nan_to_int_unspecified(case, ref, got):
    """Whether the integer results differ only where the value is a NaN/inf/out-of-range float cast to
    the integer dtype= (mean/var/std of an empty slice: 0/0, which _numpy_invalid_cast does not see:
    NumPy's first invalid operation there is the divide). C leaves that conversion undefined and
    NumPy answers it by code path: np.var(empty, dtype=uint32) is 0 (its scalar path, np.uint32(nan)),
    np.array(nan).astype(uint32) 2**31 (its cast loop). The float reference is NumPy's same call with
    dtype=float64; every other position must be equal."""
    dt = dict(case[3]).get("dtype")
    if case[0] != "fn" or not (isinstance(dt, tuple) and dt[0] == "dtype") or np_dtype(dt[1]).kind not in "iu":
        return False
    if not (isinstance(ref.value, tuple) and ref.value[0] == "array" and isinstance(got.value, tuple)
            and got.value[0] == "array"):
        return False
    e, g = ref.value[1], got.value[1]
    if e.dtype != g.dtype or e.shape != g.shape:
        return False
    f = _call((case[0], case[1], case[2], tuple((k, ("dtype", "float64") if k == "dtype" else v)
                                                 for k, v in case[3])), np)
    if f.exc is not None or not (isinstance(f.value, tuple) and f.value[0] == "array") or f.value[1].shape != e.shape:
        return False
    info = np.iinfo(e.dtype)
    with np.errstate(all="ignore"):
        fv = f.value[1].astype(np.float64)
        undefined = ~np.isfinite(fv) | (fv < float(info.min)) | (fv > float(info.max))
    return bool(np.all((e == g) | undefined))


_SET_FNS = {"isin", "in1d", "intersect1d", "setdiff1d", "setxor1d"}


def _exact_charpoly(a):
    """det(xI - a)'s coefficients (highest first) in exact rational arithmetic (Faddeev-LeVerrier
    on pairs of Fractions for complex entries)."""
    from fractions import Fraction

    n = a.shape[0]
    A = [[(Fraction(float(np.real(v))), Fraction(float(np.imag(v)))) for v in row] for row in a]
    zero = (Fraction(0), Fraction(0))

    def mul(x, y):
        return (x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0])

    M = [[zero] * n for _ in range(n)]
    c = [(Fraction(1), Fraction(0))]
    for k in range(1, n + 1):
        AM = [[zero] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                acc = zero
                for t in range(n):
                    p = mul(A[i][t], M[t][j])
                    acc = (acc[0] + p[0], acc[1] + p[1])
                AM[i][j] = acc
        M = [[(AM[i][j][0] + c[-1][0], AM[i][j][1] + c[-1][1]) if i == j else AM[i][j] for j in range(n)]
             for i in range(n)]
        tr = zero
        for i in range(n):
            for t in range(n):
                p = mul(A[i][t], M[t][i])
                tr = (tr[0] + p[0], tr[1] + p[1])
        c.append((-tr[0] / k, -tr[1] / k))
    return np.array([complex(float(x), float(y)) for x, y in c])


def _charpoly_as_close_as_numpy(case, ref, got):
    """poly of a square matrix: NumPy's answer carries the rounding of LAPACK's eigenvalues and of
    the root order its product loop takes, pyasc's those of its own QR iteration -- both are
    within a few eps * cond of the exact characteristic polynomial, not of each other's bits. So
    both are measured against the exact polynomial (rational arithmetic, entries up to 6 x 6), and
    pyasc's error must not exceed 8 times NumPy's own (or 64 eps of the largest coefficient)."""
    if case[:2] != ("fn", "poly") or got.exc is not None or len(case[2]) != 1:
        return False
    try:
        a = np.asarray(build(case[2][0], np))
        if a.ndim != 2 or a.shape[0] != a.shape[1] or not 0 < a.shape[0] <= 6:
            return False
        if a.dtype == np.dtype(ml_dtypes.bfloat16) or a.dtype.kind not in "biufc" or \
                not np.isfinite(a.astype(np.complex128)).all():
            return False
        exact = _exact_charpoly(a.astype(np.complex128))
    except Exception:  # noqa: BLE001
        return False
    e, g = ref.value, got.value
    if not (e[0] == "array" and g[0] == "array") or e[1].dtype != g[1].dtype or e[1].shape != g[1].shape:
        return False
    eps = float(_float_info(np.dtype(e[1].dtype.char.lower() if e[1].dtype.kind == "c" else e[1].dtype)).eps) \
        if e[1].dtype.kind in "fc" else float(np.finfo(np.float64).eps)
    err_np = np.max(np.abs(e[1].astype(np.complex128) - exact))
    err = np.max(np.abs(g[1].astype(np.complex128) - exact))
    return bool(err <= max(8 * err_np, 64 * eps * np.max(np.abs(exact))))


def _distinct_nan_inverse_ok(case, ref, got):
    """unique_inverse/unique_all (equal_nan=False: every NaN is its own unique value) of an input
    holding several NaNs of the same bits (nan+infj twice): which of the equal-looking NaN slots an
    element's inverse index (and which occurrence a slot's first index) names follows the order in
    which NumPy's unstable sort leaves those NaNs -- not a rule. The values (and counts) are
    compared as usual; the inverse must rebuild the input (values[inverse] == x part by part, NaN
    where NaN) and each first index must point at an element equal to its value.""" 
    if case[0] != "fn" or case[1] not in ("unique_inverse", "unique_all") or got.exc is not None:
        return False
    e, g = ref.value, got.value
    if not (isinstance(e, tuple) and isinstance(g, tuple) and e[0] == g[0] and e[0] in ("tuple", "list", "iter")):
        return False
    ev, gv = e[1], g[1]
    if len(ev) != len(gv) or any(v[0] != "array" for v in ev + gv):
        return False
    if _compare(ev[0], gv[0], case) is not None:
        return False  # the unique values themselves differ
    try:
        x = np.asarray(build(case[2][0], np))
    except Exception:  # noqa: BLE001
        return False
    if x.dtype.kind not in "fc" and x.dtype != np.dtype(ml_dtypes.bfloat16):
        return False
    vals = gv[0][1]

    def same(a, b):  # part by part: equal, or NaN where NaN (+0 and -0 are one unique value)
        a, b = np.asarray(a).astype(np.complex128), np.asarray(b).astype(np.complex128)
        return a.shape == b.shape and all(bool(np.all((p == q) | (np.isnan(p) & np.isnan(q))))
                                          for p, q in ((a.real, b.real), (a.imag, b.imag)))

    inv_i = 1 if case[1] == "unique_inverse" else 2
    inv = gv[inv_i][1]
    if inv.shape != ev[inv_i][1].shape or inv.dtype != ev[inv_i][1].dtype:
        return False
    if not np.isnan(x.astype(np.complex128)).any():
        return False
    if not same(vals[inv.reshape(-1)], x.reshape(-1)):
        return False
    if case[1] == "unique_all":
        idx, cnt = gv[1][1], gv[3][1]
        if idx.dtype != ev[1][1].dtype or _compare(ev[3], gv[3], case) is not None:
            return False
        if not same(x.reshape(-1)[idx], vals):
            return False
    return True


def _assume_unique_violated(case):
    """Whether a set function was told assume_unique=True for inputs that are not unique: NumPy
    documents that promise as the caller's ("If True, the input arrays are both assumed to be
    unique ... incorrect results if not"), and what it then returns is whatever its sort-and-
    compare-neighbours path happens to produce (setdiff1d of a repeated uint64 array drops some
    repeats, keeps others, and reorders), so only the result dtype (and tuple length) is NumPy's
    to compare. With unique inputs everything is compared."""
    kw = dict(case[3])
    flag = kw.get("assume_unique")
    if case[0] != "fn" or case[1] not in _SET_FNS or not (isinstance(flag, tuple) and flag[0] == "py" and flag[1]):
        return False
    try:
        for spec in case[2][:2]:
            x = np.asarray(build(spec, np)).ravel()
            if np.unique(x).size < x.size:
                return True
    except Exception:  # noqa: BLE001
        return False
    return False


def _interp_xp_not_increasing(case):
    """Whether interp's sample points are not increasing (a NaN among them, or a decrease): NumPy
    documents its result for such xp as meaningless ("does not check that the x-coordinate
    sequence xp is increasing. If xp is not increasing, the results are nonsense") -- it is what
    its guess-seeded binary search happens to pick, not a rule -- so only dtype and shape compare.
    With ``period`` NumPy sorts xp itself: compared in full."""
    if case[0] != "fn" or case[1] != "interp" or len(case[2]) < 2 or "period" in dict(case[3]):
        return False
    try:
        xp = np.asarray(build(case[2][1], np), dtype=np.float64).ravel()
    except Exception:  # noqa: BLE001
        return False
    return bool(np.isnan(xp).any() or (xp[1:] < xp[:-1]).any())


_BLAS_COMPLEX_PRODUCTS = {"convolve", "correlate", "dot", "vdot", "inner", "matmul", "tensordot", "multi_dot",
                          "polymul", "vecdot"}  # (np.polymul is np.convolve; vecdot uses the ?dotc kernels)


def _inv_transposed_ok(case, got):
    """Whether pyasc's linalg.inv of a matrix holding NaN/inf equals NumPy's answer to the same
    inverse formed as inv(A^T)^T. With non-finite entries LAPACK's result is unspecified (which
    entries a NaN reaches depends on the elimination order and on OpenBLAS's kernels skipping zero
    multipliers), and NumPy disagrees with itself: for A = [[3, 65536, 0], [65536, -inf, 0.5],
    [-2.5, nan, 7]] np.linalg.inv(A) has two finite rows, np.linalg.inv(A.T).T is all NaN. pyasc's
    answer for each matrix of the stack must be one of NumPy's two for that matrix (exactly, by the
    usual comparison), not anything non-finite."""
    if case[:2] != ("linalg", "inv") or got.exc is not None or len(case[2]) != 1 or case[3]:
        return False
    try:
        a = build(case[2][0], np)
        a = np.asarray(a) if isinstance(a, list) else a
        if not (isinstance(a, np.ndarray) and a.ndim >= 2 and a.dtype.kind in "fcV" and
                not np.isfinite(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)).all()):
            return False
        g = got.value[1] if got.value[0] == "array" else None
        if g is None or g.shape != a.shape:
            return False
        for idx in np.ndindex(a.shape[:-2]):
            answers = []
            with np.errstate(all="ignore"):
                for f in (lambda m: np.linalg.inv(m), lambda m: np.linalg.inv(m.T).T):
                    try:
                        answers.append(f(a[idx]))
                    except np.linalg.LinAlgError:
                        pass
            if not any(_compare(("array", e), ("array", g[idx]), case) is None for e in answers):
                return False
    except Exception:  # noqa: BLE001 - no second answer to compare with
        return False
    return True


def _complex_inf_dot_unspecified(case, ref, got):
    """Whether convolve/correlate results of complex operands holding an infinity differ only in
    how an output NumPy computes as non-finite is non-finite. NumPy forms each output with the
    dtype's dot (OpenBLAS cdotu/zdotu when the operands are blasable, a C loop otherwise), and the
    kernels combine inf products differently: np.convolve(a, v)[0] is a[0] * v[0], yet for
    a = [inf-1j, inf-1j], v = [-1-2.5j, 0.5+1j] NumPy gives nan-infj, and -inf-infj (the product)
    for a[:1], v[:1]. Which component is NaN is NumPy's code path, not a rule; pyasc's output must
    still be non-finite exactly where NumPy's is, and every finite output is compared as usual.
    The same holds for NumPy's other BLAS-backed complex products (dot, vdot, inner, matmul,
    tensordot, multi_dot): np.dot([-2.5j, 3-1j, inf], [0, 3+1e30j, -2.5-1j]) in complex64 is
    nan-infj, while NumPy's own einsum('i,i') and sum(x*y) of the same operands give -inf-infj."""
    if case[0] not in ("fn", "method", "linalg") or case[1] not in _BLAS_COMPLEX_PRODUCTS:
        return False
    if not (isinstance(ref.value, tuple) and ref.value[0] == "array" and isinstance(got.value, tuple)
            and got.value[0] == "array"):
        return False
    e, g = ref.value[1], got.value[1]
    if e.dtype != g.dtype or e.shape != g.shape or e.dtype.kind != "c":
        return False
    try:
        ops = [build(x, np) for x in list(case[2]) + [v for _, v in case[3]]]
        ops = [w for v in ops for w in (v if isinstance(v, (list, tuple)) else (v,))]  # multi_dot's list
        if not any(isinstance(v, np.ndarray) and v.dtype.kind == "c" and np.isinf(v).any() for v in ops):
            return False
    except Exception:  # noqa: BLE001
        return False
    with np.errstate(all="ignore"):
        bad_e, bad_g = ~np.isfinite(e), ~np.isfinite(g)
    if not np.array_equal(bad_e, bad_g):
        return False
    return _compare_arrays(e[~bad_e], g[~bad_g], case) is None


_INT_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def _nan_input(case):
    """Whether an array argument of the case holds a NaN."""
    for spec in list(case[2]) + [v for _, v in case[3]]:
        try:
            v = build(spec, np)
            if isinstance(v, np.ndarray) and v.dtype.kind in "fc" and np.isnan(v).any():
                return True
        except Exception:  # noqa: BLE001
            pass
    return False


def _hist_weight_overflow(case):
    """Whether a histogram's integer weights sum past their dtype in some bin: NumPy accumulates
    them in float64 (bincount) and casts the sums back to the weights' dtype, an out-of-range
    float -> integer cast whose value depends on NumPy's cast loop -- the scalar loop (a one-bin
    block) gives the sum mod 2**32 for uint32, the SIMD loop 0 -- not on a rule pyasc could follow."""
    if case[0] != "fn" or case[1] not in ("histogram", "histogram2d", "histogramdd"):
        return False
    kw = dict(case[3])
    if "weights" not in kw:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                w = build(kw["weights"], np)
                if not isinstance(w, np.ndarray) or w.dtype.kind not in "iu":
                    return False
                args = [build(x, np) for x in case[2]]
                kw2 = {k: (w.astype(np.float64) if k == "weights" else build(x, np)) for k, x in case[3]}
                sums = np.asarray(getattr(np, case[1])(*args, **kw2)[0], dtype=np.float64)
            except Exception:  # noqa: BLE001
                return False
    info = np.iinfo(w.dtype)
    return bool(((sums < info.min) | (sums > info.max)).any())


def _numpy_invalid_cast(case):
    """Whether NumPy's evaluation of the case casts an invalid float value to an integer."""
    kind, name, args, kwargs = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore", invalid="raise"):
            try:
                a = [build(x, np) for x in args]
                kw = {k: build(x, np) for k, x in kwargs}
                if kind == "method":
                    getattr(a[0], name)(*a[1:], **kw)
                else:
                    _target(kind, name, np)(*a, **kw)
            except FloatingPointError as e:
                return "cast" in str(e)
            except Exception:  # noqa: BLE001
                return False
    return False


def _f64_ref(case):
    """NumPy's answer for the case with its float16/bfloat16/float32 arrays (complex64 too) upcast
    to float64 (complex128), or None if that raises."""
    def up(v):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f" or \
                isinstance(v, np.ndarray) and v.dtype == np.dtype(ml_dtypes.bfloat16):
            return v.astype(np.float64)
        if isinstance(v, np.ndarray) and v.dtype == np.complex64:
            return v.astype(np.complex128)
        return v
    kw = dict(case[3])
    if "out" in kw or "dtype" in kw:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                args = [up(build(x, np)) for x in case[2]]
                return _normalize(_target(case[0], case[1], np)(*args) if case[0] != "method" else
                                  getattr(args[0], case[1])(*args[1:]))
            except Exception:  # noqa: BLE001
                return None


def _round_like(v64, like):
    """The float64 reference rounded to the dtype of NumPy's own result."""
    if v64[0] == "array" and like[0] == "array" and v64[1].dtype.kind in "fc":
        with np.errstate(all="ignore"):
            return ("array", v64[1].astype(like[1].dtype))
    return v64


_BF16_NAN_FNS = dict.fromkeys(("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nancumsum", "nancumprod",
                               "nanargmax", "nanargmin",
                               # NumPy's unique collapses NaNs (equal_nan) only for dtype kinds 'c', 'f',
                               # 'm', 'M': ml_dtypes' bfloat16 is kind 'V', so its NaNs stay distinct
                               # there, while pyasc treats bfloat16 as the float it is (as float16) --
                               # the same rule on the float32 upcast, which selects the same values
                               "unique", "union1d", "setxor1d", "setdiff1d", "intersect1d"), True)


def _bf16_as_f32_ref(case):
    """NumPy's answer for the case with its bfloat16 arrays upcast to float32 (None if it raises)."""
    bf = np.dtype(ml_dtypes.bfloat16)
    up = lambda v: v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == bf else v  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                args = [up(build(x, np)) for x in case[2]]
                kw = {k: up(build(x, np)) for k, x in case[3]}
                return _normalize(getattr(np, case[1])(*args, **kw))
            except Exception:  # noqa: BLE001
                return None


def _round_bf16(v32, like):
    """The float32 reference value with float32 arrays rounded to the dtype NumPy's own result has."""
    if v32[0] == "array" and like[0] == "array" and v32[1].dtype == np.float32:
        return ("array", v32[1].astype(like[1].dtype))
    if v32[0] in ("tuple", "list") and like[0] == v32[0] and len(v32[1]) == len(like[1]):
        return (v32[0], [_round_bf16(a, b) for a, b in zip(v32[1], like[1])])
    return v32


# --------------------------------------------------------------------------- known findings

def _has(case, pred):
    def walk(s):
        if isinstance(s, tuple) and s and isinstance(s[0], str):
            if pred(s):
                return True
            if s[0] in ("list", "tuple"):
                return any(walk(x) for x in s[1])
        return False
    return any(walk(a) for a in case[2]) or any(walk(v) for _, v in case[3])


# LAPACK's SVD (gesdd) can loop forever on a matrix holding inf/NaN (NumPy's svd of some 3x3
# 'special' matrices never returns): such cases run in a child with the time limit, as huge views do
_SVD_FAMILY = {"svd", "svdvals", "pinv", "matrix_rank", "cond", "norm", "matrix_norm", "lstsq"}


def _huge(case):
    return _has(case, lambda s: s[0] == "huge") or \
        (case[1] in _SVD_FAMILY and _has(case, lambda s: s[0] == "arr" and len(s) > 5 and s[5] == "special"))


_NUMERICS = {"median", "nanmedian", "gcd", "lcm", "power", "pad", "spacing", "histogram", "histogram2d",
             "histogramdd", "histogram_bin_edges"}
_INTERNAL = r"pyasc builtins\.(AttributeError|KeyError|NameError|AssertionError|ZeroDivisionError|UnboundLocalError)"


def pattern_of(case, cat, detail):
    """(pattern id, issue item, reason) of a finding: the finding classes of the known table."""
    name = case[1]
    if cat == "crash":
        if "hangs" in detail:
            return ("hang-huge", "issue 20: size overflow checks (reliab)",
                    "pyasc loops over (or allocates) the 2**62-element broadcast view where NumPy short-circuits "
                    "or raises at once")
        return ("died", "issue 20 item 15", "the process died")
    if cat == "wrong_result":
        issue = "issue 20: numerics of median/gcd/power/pad/spacing/histogram (errors)" if name in _NUMERICS else \
            "issue 20: casts/promotion (semantics)" if detail.split(": ", 1)[-1].startswith("dtype") else \
            "issue 20 item 15 (fuzz finding)"
        for pid, rx, reason in (("dtype", r"dtype \S+ != ", "result dtype differs from NumPy's"),
                                ("shape", r"shape \S+", "result shape differs from NumPy's"),
                                ("nan", r"NaN positions", "NaN where NumPy has a number or the reverse"),
                                ("value", r".", "values differ from NumPy's")):
            if re.search(rx, detail):
                return (pid, issue, reason)
    if cat == "silent_accept":
        return ("silent", "issue 20 item 15 (fuzz finding)", "pyasc returns a result for an input NumPy rejects")
    if cat == "unclear_error":
        if re.search(r"incompatible function arguments|unexpected keyword argument", detail):
            return ("pybind-signature", "issue 20: unclear pybind11 errors (errors)",
                    "a keyword NumPy accepts (dtype=, order=, where=, ...) is missing: pybind11's TypeError "
                    "lists the C++ signature")
        if "Unable to cast" in detail:
            return ("unable-to-cast", "issue 20: int conversion of axis/shape/slices (errors)",
                    "pybind11 'Unable to cast' for a str/float/huge-int argument")
        if "RecursionError" in detail:
            return ("recursion", "issue 20 item 15 (fuzz finding)", "infinite recursion on a bad argument")
        if re.search(_INTERNAL, detail):
            return ("internal", "issue 20 item 15 (fuzz finding)", "an internal Python error escapes")
        if "numpy ok |" in detail:
            return ("numpy-ok", "issue 20 item 15 (fuzz finding)", "unclear error where NumPy accepts")
        return ("class-mismatch", "issue 20 item 15 (fuzz finding)",
                "both raise, but pyasc's exception class is unrelated to NumPy's (another check fires first, "
                "or TypeError/ValueError swapped)")
    return (cat, "", "")


_KNOWN_CACHE = []


def _load_known():
    if not _KNOWN_CACHE:
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:
            sys.path.insert(0, here)
        try:
            from known_findings import KNOWN as table  # noqa: PLC0415
        except ImportError:
            table = []
        _KNOWN_CACHE.append(table)
    return _KNOWN_CACHE[0]


def known_match(case, cat, detail):
    """The KNOWN entry covering this finding: same category, pattern, kind and name."""
    if cat not in BAD:
        return None
    pid = pattern_of(case, cat, detail)[0]
    for entry in _load_known():
        if entry["category"] == cat and entry["pattern"] == pid and entry["kind"] == case[0] and \
                entry["name"] == case[1]:
            return entry
    return None


def make_known(json_paths, out_path):
    """Writes known_findings.py from long-run results: one entry per (category,
    pattern, kind, name) with the shortest reproducer that still reproduces."""
    best = {}
    for path in json_paths:
        r = json.load(open(path))
        for cat in BAD:
            for text, detail in r["found"][cat]:
                try:
                    case = parse_case(text)
                except Exception:  # noqa: BLE001
                    continue
                key = (cat, pattern_of(case, cat, detail)[0], case[0], case[1])
                if key not in best or len(text) < len(best[key]):
                    best[key] = text
    rows, reasons = [], {}
    for (cat, pid, kind, name), text in sorted(best.items()):
        case = parse_case(text)
        got, detail = classify(case)
        if got != cat or pattern_of(case, got, detail)[0] != pid:
            continue
        _, issue, reason = pattern_of(case, cat, detail)
        reasons[f"{cat}/{pid}"] = reason
        rows.append(f"    dict(category={cat!r}, pattern={pid!r}, kind={kind!r}, name={name!r}, issue={issue!r},\n"
                    f"         case={text}),")
    with open(out_path, "w") as f:
        f.write('"""Known findings of the namespace fuzzer (generated by `fuzz_harness.py --make-known`, then\n'
                "reviewed): one entry per (category, pattern, kind, name). test_fuzz_namespace reruns every\n"
                "case and fails when it no longer shows its category and pattern: then the bug was fixed and\n"
                'the entry must go."""\n\n'
                "nan = float(\"nan\")\n\nKNOWN = [\n" + "\n".join(rows) + "\n]\n\n"
                "# The reason of each pattern (fuzz_harness.pattern_of)\n"
                "REASONS = {\n" + "".join(f"    {p!r}: {r!r},\n" for p, r in sorted(reasons.items())) + "}\n")
    return len(rows)


# --------------------------------------------------------------------------- driver

def read_cases(path):
    """The cases of a case file (one repr per line; '#' lines are comments)."""
    with open(path) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def run_examples(n, seed, progress_path=None, derandomize=False, results_path=None, cases_path=None):
    """Runs n hypothesis-drawn cases in this process, or the cases of `cases_path`
    (CI: a fixed list, since hypothesis' draws after the first few cases depend on
    more than the seed); returns {category: [(case, detail)]}."""
    found = {c: [] for c in CATEGORIES}
    counts = {c: 0 for c in CATEGORIES}
    prog = open(progress_path, "w", buffering=1) if progress_path else None
    seen = set()
    abort_at = int(os.environ.get("PYASC_FUZZ_ABORT_AT", "0"))

    def one(case, key):
        if prog:
            prog.write(key + "\n")
        if len(seen) == abort_at:  # self-test of the crash detection (test_fuzz_namespace)
            os.abort()
        cat, detail = classify(case)
        counts[cat] += 1
        if cat not in ("ok", "both_raise"):
            found[cat].append((case, detail))

    def finish():
        if prog:
            prog.write("#DONE\n")
            prog.close()
        result = {"counts": counts, "found": {c: [(repr(k), d) for k, d in v] for c, v in found.items()}}
        if results_path:
            with open(results_path, "w") as f:
                json.dump(result, f)
        return result

    if cases_path:
        for key in read_cases(cases_path):
            if key not in seen:
                seen.add(key)
                one(parse_case(key), key)
        return finish()

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    strat = _strategies()

    @settings(max_examples=n, derandomize=derandomize, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def body(data):
        case = data.draw(strat)
        key = repr(case)
        if key in seen:
            return
        seen.add(key)
        one(case, key)

    if not derandomize:
        body = hseed(seed)(body)
    body()
    return finish()


def drive(n, seed, derandomize=False, timeout=None, chunk=None, cases_path=None):
    """Runs the cases in child processes; a child that dies is a crash at the
    case it was running (the last line of its progress file); the driver then
    continues with a fresh child and the next seed."""
    import tempfile

    total = {c: 0 for c in CATEGORIES}
    found = {c: [] for c in CATEGORIES}
    if cases_path:  # one child runs the whole list; a crash ends the run
        n = len(read_cases(cases_path))
        derandomize = True
    left, s, restarts = n, seed, 0
    chunk = chunk or n
    while left > 0 and restarts < 50:
        k = min(left, chunk)
        with tempfile.TemporaryDirectory() as d:
            prog, res = os.path.join(d, "progress"), os.path.join(d, "result.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--examples", str(k), "--seed", str(s),
                   "--progress", prog, "--results", res] + (["--derandomize"] if derandomize else []) + \
                (["--cases", cases_path] if cases_path else [])
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
                rc, err = p.returncode, p.stderr[-2000:]
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
            lines = open(prog).read().splitlines() if os.path.exists(prog) else []
            done = [ln for ln in lines if not ln.startswith("#")]
            if rc == 0 and os.path.exists(res):
                r = json.load(open(res))
                for c in CATEGORIES:
                    total[c] += r["counts"][c]
                    found[c].extend(r["found"][c])
                left -= k
            else:
                last = done[-1] if done else "<before the first case>"
                total["crash"] += 1
                found["crash"].append((last, f"child exit {rc}: {err.strip().splitlines()[-1] if err.strip() else ''}"))
                left -= max(len(done), 1)
                restarts += 1
                if derandomize:
                    break
        s += 1
    return {"counts": total, "found": found}


def summary(result, show=True, limit=None):
    counts = result["counts"]
    tried = sum(counts.values())
    lines = [f"tried {tried} | both-ok-equal {counts['ok']} | both-raise {counts['both_raise']} | "
             f"clear errors {counts['clear_error']} | silent accepts {counts['silent_accept']} | "
             f"unclear errors {counts['unclear_error']} | wrong results {counts['wrong_result']} | "
             f"crashes {counts['crash']}"]
    if show:
        for c in ("crash", "wrong_result", "silent_accept", "unclear_error", "clear_error"):
            items = result["found"][c]
            for case, detail in items[:limit]:
                cs = case if isinstance(case, str) else repr(case)
                try:
                    known = known_match(parse_case(cs), c, detail)
                except (ValueError, SyntaxError):
                    known = None
                tag = f" [known: {known['pattern']}]" if known else ""
                lines.append(f"{c}{tag}: {detail}\n    repro: python {os.path.abspath(__file__)} --case \"{cs}\"")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=int(os.environ.get("PYASC_FUZZ_EXAMPLES", "1000")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("PYASC_FUZZ_SEED", "0")))
    ap.add_argument("--derandomize", action="store_true")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--progress")
    ap.add_argument("--results")
    ap.add_argument("--case")
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--json")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--make-known", nargs="+", metavar="RESULT_JSON")
    ap.add_argument("--cases", help="run the cases of this file (one repr per line) instead of drawing")
    ap.add_argument("--write-cases", metavar="FILE",
                    help="draw --examples derandomized cases with --seed and write them as a case file")
    a = ap.parse_args(argv)
    if a.write_cases:
        tmp = a.write_cases + ".tmp"
        run_examples(a.examples, a.seed, tmp, derandomize=True)
        cases = read_cases(tmp)
        os.remove(tmp)
        with open(a.write_cases, "w") as f:
            f.write(f"# The namespace fuzzer's CI cases: {len(cases)} distinct cases of {a.examples} derandomized\n"
                    f"# hypothesis draws (seed {a.seed}), written by `fuzz_harness.py --write-cases`.\n")
            f.write("".join(c + "\n" for c in cases))
        print(f"{len(cases)} cases written to {a.write_cases}")
        return 0
    if a.make_known:
        n = make_known(a.make_known, os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_findings.py"))
        print(f"{n} known entries written")
        return 0
    if a.case:
        case = parse_case(a.case)
        cat, detail = classify(case)
        print(cat, detail)
        return 0
    if a.worker:
        run_examples(a.examples, a.seed, a.progress, a.derandomize, a.results, a.cases)
        return 0
    t = time.time()
    r = drive(a.examples, a.seed, a.derandomize, chunk=a.chunk)
    print(summary(r, limit=a.limit))
    print(f"({time.time() - t:.0f} s)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
