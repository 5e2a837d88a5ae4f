"""Precision comparison of a result against a golden array.

:func:`compare` (``asc.utils.compare``) is the Python API of the ``pyasc-compare`` tool
(:mod:`pyasc.tools.compare`); :func:`load_array` reads the files it accepts.

Rules (the same for the API and the tool):

* **Criterion** -- like :func:`numpy.isclose` with the golden array as the
  reference: an element agrees when ``|result - golden| <= atol + rtol *
  |golden|``. Defaults are NumPy's (``rtol=1e-05``, ``atol=1e-08``).
* **NaN and Inf** -- NaN in both arrays at the same position agrees; NaN
  against anything else (a number or an Inf) is a mismatch. Infinities agree
  only with the same infinity (``+Inf`` vs ``+Inf``); ``+Inf`` vs ``-Inf``
  and Inf vs a finite number are mismatches, whatever the tolerances. These
  disagreements are also counted separately (``nan_mismatch_count``: one side
  NaN, the other not; ``inf_mismatch_count``: one side +-Inf, neither NaN,
  values differ). In the list of mismatching elements, such a pair has
  abs/rel error NaN (a NaN disagreement) or Inf (an Inf disagreement).
* **Dtypes** -- floating dtypes, float16 and the ml_dtypes types (bfloat16,
  float8) included, are compared in float64, which holds all of them
  exactly (long double, when one side has it, in long double). Integer
  and bool arrays (both sides integer/bool) are compared exactly: differences are computed in int64/uint64 (or Python integers
  when one side is a large uint64 and the other negative) without overflow,
  and the tolerance test is done exactly too. Different dtypes are reported
  as a warning (``dtype_match`` False) and compared after casting both to
  float64 (exactly, as integers, when both are integer/bool). Complex,
  string, object and structured dtypes are rejected.
* **Statistics** -- max/mean absolute error and max/mean relative error are
  taken over the positions where both values are finite (non-finite ones
  are covered by the NaN/Inf counts). Relative error is ``|result - golden| /
  |golden|``; where golden is 0 it is undefined, so those positions are left
  out of the relative statistics (``rel_error_excluded`` counts them; the
  criterion there is ``|result| <= atol``). In the list of mismatching
  elements a golden 0 shows a relative error of ``inf``.
* **Cosine similarity** -- in float64 over the finite positions, after
  scaling each side by its largest magnitude (no overflow). Two all-zero
  (or empty) vectors have similarity 1.0; an all-zero vector against a
  non-zero one 0.0.
* **Shapes** must be equal (no broadcasting); otherwise
  :class:`CompareInputError` names both. Empty arrays pass. Indices are
  N-d tuples (``()`` for 0-d arrays), mismatches listed in C order.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import zipfile
from typing import Any, List, Optional, Tuple

import ml_dtypes
import numpy as np

__all__ = [
    "compare",
    "CompareReport",
    "Mismatch",
    "CompareInputError",
    "load_array",
    "parse_dtype",
    "parse_shape",
    "DEFAULT_RTOL",
    "DEFAULT_ATOL",
    "DEFAULT_MAX_PRINT",
]

#: Default relative tolerance (numpy.isclose's).
DEFAULT_RTOL = 1e-05
#: Default absolute tolerance (numpy.isclose's).
DEFAULT_ATOL = 1e-08
#: Default number of mismatching elements listed in a report.
DEFAULT_MAX_PRINT = 10

_U64_MAX_AS_FLOAT = 2.0**64  # first float64 above the uint64 range
_I64_MAX = np.iinfo(np.int64).max


class CompareInputError(ValueError):
    """Bad input to :func:`compare` or :func:`load_array`: different shapes,
    an unsupported dtype, an unreadable or missing file, a missing ``.npz``
    key, a pickled object array, invalid tolerances. ``pyasc-compare`` exits
    with status 2 on it."""


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """One mismatching element.

    Attributes:
        index: N-d index (a tuple of ints; ``()`` for a 0-d array).
        golden: the golden value (``int`` for integer comparisons, else ``float``).
        result: the result value.
        abs_error: ``|result - golden|`` (NaN for a NaN disagreement, Inf for an Inf one).
        rel_error: ``abs_error / |golden|`` (``inf`` where golden is 0).
    """

    index: Tuple[int, ...]
    golden: Any
    result: Any
    abs_error: Any
    rel_error: float


@dataclasses.dataclass
class CompareReport:
    """Result of :func:`compare`.

    ``passed`` is True when no element mismatches. ``str(report)`` is the
    human report that ``pyasc-compare`` prints, ``to_dict()`` a plain dict of
    all fields, ``to_json()`` its JSON text. See :mod:`pyasc.utils.precision`
    for the exact rules behind each field.

    Attributes:
        passed: no mismatching element.
        golden_shape, result_shape: the shapes (always equal in a report:
            different shapes raise :class:`CompareInputError`).
        golden_dtype, result_dtype: dtype names.
        dtype_match: both dtypes equal (when not, ``warnings`` says so).
        compute_dtype: what values were compared in: ``"float64"``,
            ``"int64"``/``"uint64"`` (exact) or ``"python-int"`` (exact).
        rtol, atol: the tolerances.
        size: number of elements.
        mismatch_count, mismatch_percent: mismatching elements (percent of size; 0 when empty).
        max_abs_error, max_abs_error_index: largest ``|result - golden|`` over
            finite pairs and its index (None when there is none).
        mean_abs_error: mean of ``|result - golden|`` over finite pairs.
        max_rel_error, max_rel_error_index, mean_rel_error: the same for
            ``|result - golden| / |golden|`` over finite pairs with golden != 0.
        rel_error_excluded: finite pairs left out of the relative statistics
            because golden is 0.
        cosine_similarity: in float64 over finite pairs (1.0 for two zero vectors).
        golden_nan_count, result_nan_count, golden_inf_count, result_inf_count:
            NaN / +-Inf elements on each side.
        nan_mismatch_count: positions where exactly one side is NaN.
        inf_mismatch_count: positions where one side is +-Inf, neither is
            NaN, and the values differ.
        mismatches: the first ``max_print`` mismatching elements (C order).
        max_print: the limit used for ``mismatches``.
        warnings: e.g. a dtype mismatch.
    """

    passed: bool
    golden_shape: Tuple[int, ...]
    result_shape: Tuple[int, ...]
    golden_dtype: str
    result_dtype: str
    dtype_match: bool
    compute_dtype: str
    rtol: float
    atol: float
    size: int
    mismatch_count: int
    mismatch_percent: float
    max_abs_error: Any
    max_abs_error_index: Optional[Tuple[int, ...]]
    mean_abs_error: float
    max_rel_error: float
    max_rel_error_index: Optional[Tuple[int, ...]]
    mean_rel_error: float
    rel_error_excluded: int
    cosine_similarity: float
    golden_nan_count: int
    result_nan_count: int
    golden_inf_count: int
    result_inf_count: int
    nan_mismatch_count: int
    inf_mismatch_count: int
    mismatches: List[Mismatch]
    max_print: int
    warnings: List[str]

    # ------------------------------------------------------------ output
    def to_dict(self):
        """All fields as a plain dict (mismatches as dicts, indices as tuples;
        floats may be NaN/Inf -- :meth:`to_json` spells those as strings)."""
        return dataclasses.asdict(self)

    def to_json(self, indent=None):
        """The report as strict JSON text: one object with every field of
        :meth:`to_dict`; non-finite floats become ``"nan"``, ``"inf"``, ``"-inf"``."""
        return json.dumps(_json_safe(self.to_dict()), indent=indent, allow_nan=False)

    def __str__(self):
        lines = []
        verdict = "PASS" if self.passed else "FAIL"
        lines.append(f"{verdict}: {self.mismatch_count} of {self.size} elements mismatch "
                     f"({_fmt_percent(self.mismatch_percent)})")
        lines.append(f"  shape              : golden {_fmt_shape(self.golden_shape)}, "
                     f"result {_fmt_shape(self.result_shape)} (match)")
        dt = "match" if self.dtype_match else "MISMATCH"
        lines.append(f"  dtype              : golden {self.golden_dtype}, result {self.result_dtype} "
                     f"({dt}; compared in {self.compute_dtype})")
        lines.append(f"  criterion          : |result - golden| <= atol + rtol * |golden|, "
                     f"rtol={self.rtol:g}, atol={self.atol:g}; NaN == NaN")
        lines.append(f"  max abs error      : {self._fmt_err_at(self.max_abs_error, self.max_abs_error_index)}")
        lines.append(f"  mean abs error     : {_fmt_err(self.mean_abs_error)}")
        lines.append(f"  max rel error      : {self._fmt_err_at(self.max_rel_error, self.max_rel_error_index)}")
        excl = (f" ({self.rel_error_excluded} position(s) with golden == 0 excluded)"
                if self.rel_error_excluded else "")
        lines.append(f"  mean rel error     : {_fmt_err(self.mean_rel_error)}{excl}")
        lines.append(f"  cosine similarity  : {self.cosine_similarity:.12f}")
        lines.append(f"  NaN / Inf          : golden {self.golden_nan_count} NaN, {self.golden_inf_count} Inf; "
                     f"result {self.result_nan_count} NaN, {self.result_inf_count} Inf")
        lines.append(f"  NaN / Inf disagree : {self.nan_mismatch_count} NaN, {self.inf_mismatch_count} Inf")
        if self.mismatches:
            shown = len(self.mismatches)
            lines.append(f"  first {shown} of {self.mismatch_count} mismatching element(s):")
            rows = [("index", "golden", "result", "abs error", "rel error")]
            for m in self.mismatches:
                rows.append((_fmt_shape(m.index), _fmt_value(m.golden, self.golden_dtype),
                             _fmt_value(m.result, self.result_dtype), _fmt_err(m.abs_error),
                             _fmt_err(m.rel_error)))
            widths = [max(len(r[c]) for r in rows) for c in range(5)]
            for r in rows:
                lines.append("    " + "  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                                                for c, (cell, w) in enumerate(zip(r, widths))).rstrip())
        elif self.mismatch_count and self.max_print == 0:
            lines.append("  (mismatching elements not listed: max_print is 0)")
        for w in self.warnings:
            lines.append(f"  warning: {w}")
        return "\n".join(lines)

    def _fmt_err_at(self, value, index):
        if index is None:
            return f"{_fmt_err(value)}"
        return f"{_fmt_err(value)} at {_fmt_shape(index)}"


# -------------------------------------------------------------------- compare


def compare(golden, result, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, max_print=DEFAULT_MAX_PRINT):
    """Compares ``result`` against ``golden`` element by element.

    Args:
        golden: the reference (anything :func:`numpy.asarray` accepts,
            including pyasc arrays).
        result: the values to check; must have golden's shape.
        rtol, atol: tolerances (finite, >= 0): an element agrees when
            ``|result - golden| <= atol + rtol * |golden|``.
        max_print: how many mismatching elements the report lists (>= 0).

    Returns:
        :class:`CompareReport` (``report.passed``, ``str(report)``, ``report.to_dict()``).

    Raises:
        CompareInputError: different shapes (both are named), unsupported
            dtypes, invalid tolerances or ``max_print``.
    """
    rtol = _check_tol(rtol, "rtol")
    atol = _check_tol(atol, "atol")
    if isinstance(max_print, bool) or not isinstance(max_print, (int, np.integer)) or max_print < 0:
        raise CompareInputError(f"max_print must be an integer >= 0, got {max_print!r}")
    max_print = int(max_print)
    g = _as_array(golden, "golden")
    r = _as_array(result, "result")
    if g.shape != r.shape:
        hint = (f"; both have {g.size} elements -- pass the intended shape (e.g. --shape) or reshape"
                if g.size == r.size else "")
        raise CompareInputError(f"shape mismatch: golden {_fmt_shape(g.shape)} vs result {_fmt_shape(r.shape)}{hint}")
    gk = _kind(g.dtype, "golden")
    rk = _kind(r.dtype, "result")
    exact_int = gk == "i" and rk == "i"
    warnings = []
    dtype_match = g.dtype == r.dtype
    if not dtype_match:
        wide = np.longdouble in (g.dtype.type, r.dtype.type)
        how = "exactly as integers" if exact_int else f"after casting both to {'longdouble' if wide else 'float64'}"
        warnings.append(f"dtype mismatch: golden {_dtype_name(g.dtype)} vs result {_dtype_name(r.dtype)}; "
                        f"values compared {how}")
    if exact_int:
        fields = _compare_int(g, r, rtol, atol, max_print)
    else:
        fields = _compare_float(g, r, rtol, atol, max_print)
    size = int(g.size)
    count = fields.pop("mismatch_count")
    return CompareReport(
        passed=count == 0,
        golden_shape=tuple(int(d) for d in g.shape),
        result_shape=tuple(int(d) for d in r.shape),
        golden_dtype=_dtype_name(g.dtype),
        result_dtype=_dtype_name(r.dtype),
        dtype_match=bool(dtype_match),
        rtol=rtol,
        atol=atol,
        size=size,
        mismatch_count=count,
        mismatch_percent=(100.0 * count / size) if size else 0.0,
        max_print=max_print,
        warnings=warnings,
        **fields,
    )


def _check_tol(value, name):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise CompareInputError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0:
        raise CompareInputError(f"{name} must be finite and >= 0, got {value!r}")
    return v


def _as_array(x, name):
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x)
    except Exception as e:  # noqa: BLE001 - ragged lists and the like
        raise CompareInputError(f"{name}: cannot make an array of it: {e}") from None


def _dtype_name(dtype):
    if dtype.kind == "V" and dtype.names is None and not _ml_kind(dtype):
        return dtype.str  # raw void data, e.g. '|V2'
    return str(dtype)


def _ml_kind(dtype):
    """'f' / 'i' for ml_dtypes types (kind 'V' to NumPy), else None."""
    if dtype.kind != "V" or dtype.names is not None:
        return None
    try:
        ml_dtypes.finfo(dtype)
        return "f"
    except Exception:  # noqa: BLE001
        pass
    try:
        ml_dtypes.iinfo(dtype)
        return "i"
    except Exception:  # noqa: BLE001
        return None


def _kind(dtype, name):
    if dtype.kind == "b" or dtype.kind in "iu":
        return "i"
    if dtype.kind == "f":
        return "f"
    ml = _ml_kind(dtype)
    if ml:
        return ml
    if dtype.kind == "c":
        raise CompareInputError(f"{name}: complex dtype {dtype} is not supported; compare .real and .imag separately")
    if dtype.kind == "V" and dtype.names is None:
        raise CompareInputError(
            f"{name}: raw void dtype {dtype.str} (np.save stores bfloat16/float8 arrays this way); "
            f"give its real dtype (pyasc-compare --dtype, or load_array(..., dtype=...))")
    raise CompareInputError(f"{name}: dtype {dtype} is not supported (numbers and bool only)")


def _indices(flat, shape):
    """N-d index tuples of the flat (C-order) positions ``flat``."""
    if len(flat) == 0:
        return []
    if len(shape) == 0:
        return [() for _ in flat]
    cols = np.unravel_index(np.asarray(flat, dtype=np.intp), shape)
    return [tuple(int(c[i]) for c in cols) for i in range(len(flat))]


def _index(flat, shape):
    return _indices([flat], shape)[0]


def _cosine(a, b):
    """Cosine similarity of two float64 vectors, scaled to avoid overflow."""
    sa = float(np.max(np.abs(a))) if a.size else 0.0
    sb = float(np.max(np.abs(b))) if b.size else 0.0
    if sa == 0.0 and sb == 0.0:
        return 1.0
    if sa == 0.0 or sb == 0.0:
        return 0.0
    a = a / sa
    b = b / sb
    c = float(np.dot(a, b)) / (math.sqrt(float(np.dot(a, a))) * math.sqrt(float(np.dot(b, b))))
    return min(1.0, max(-1.0, c))


def _rel_stats(d, absg, flat_pos, shape):
    """max/mean of d/|g| over |g| != 0; returns (max, index, mean, excluded)."""
    nz = absg != 0
    excluded = int(d.size - np.count_nonzero(nz))
    if excluded:
        d, absg, flat_pos = d[nz], absg[nz], (flat_pos[nz] if flat_pos is not None else np.flatnonzero(nz))
    if d.size == 0:
        return 0.0, None, 0.0, excluded
    with np.errstate(over="ignore", invalid="ignore"):
        rel = d / absg
    i = int(np.argmax(rel))
    pos = int(flat_pos[i]) if flat_pos is not None else i
    return float(rel[i]), _index(pos, shape), float(np.mean(rel)), excluded


def _compare_float(g, r, rtol, atol, max_print):
    shape = g.shape
    # float64 holds every narrower float exactly; long double only itself.
    ft = np.longdouble if np.longdouble in (g.dtype.type, r.dtype.type) else np.float64
    g64 = np.asarray(g, dtype=ft).reshape(-1)
    r64 = np.asarray(r, dtype=ft).reshape(-1)
    gnan, rnan = np.isnan(g64), np.isnan(r64)
    ginf, rinf = np.isinf(g64), np.isinf(r64)
    both_finite = ~(gnan | rnan | ginf | rinf)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = np.abs(r64 - g64)
        absg = np.abs(g64)
        close = diff <= atol + rtol * absg
    all_finite = bool(both_finite.all())
    if not all_finite:
        nonfinite_agree = (gnan & rnan) | (g64 == r64)
        close = np.where(both_finite, close, nonfinite_agree)
    mismatch = ~close
    count = int(np.count_nonzero(mismatch))

    # statistics over finite pairs
    if all_finite:
        d_f, absg_f, g_f, r_f, flat_pos = diff, absg, g64, r64, None
    else:
        flat_pos = np.flatnonzero(both_finite)
        d_f, absg_f, g_f, r_f = diff[flat_pos], absg[flat_pos], g64[flat_pos], r64[flat_pos]
    if d_f.size:
        i = int(np.argmax(d_f))
        max_abs = float(d_f[i])
        max_abs_index = _index(int(flat_pos[i]) if flat_pos is not None else i, shape)
        mean_abs = float(np.mean(d_f))
    else:
        max_abs, max_abs_index, mean_abs = 0.0, None, 0.0
    max_rel, max_rel_index, mean_rel, excluded = _rel_stats(d_f, absg_f, flat_pos, shape)

    mismatches = []
    if count and max_print:
        first = np.flatnonzero(mismatch)[:max_print]
        for pos, idx in zip(first, _indices(first, shape)):
            gv, rv = float(g64[pos]), float(r64[pos])
            if math.isnan(gv) or math.isnan(rv):
                ae = re_ = math.nan
            elif math.isinf(gv) or math.isinf(rv):
                ae = re_ = math.inf
            else:
                ae = float(diff[pos])
                re_ = ae / abs(gv) if gv != 0 else (0.0 if ae == 0 else math.inf)
            mismatches.append(Mismatch(idx, gv, rv, ae, re_))

    return dict(
        compute_dtype=np.dtype(ft).name,
        mismatch_count=count,
        max_abs_error=max_abs,
        max_abs_error_index=max_abs_index,
        mean_abs_error=mean_abs,
        max_rel_error=max_rel,
        max_rel_error_index=max_rel_index,
        mean_rel_error=mean_rel,
        rel_error_excluded=excluded,
        cosine_similarity=_cosine(g_f, r_f),
        golden_nan_count=int(np.count_nonzero(gnan)),
        result_nan_count=int(np.count_nonzero(rnan)),
        golden_inf_count=int(np.count_nonzero(ginf)),
        result_inf_count=int(np.count_nonzero(rinf)),
        nan_mismatch_count=int(np.count_nonzero(gnan ^ rnan)),
        inf_mismatch_count=int(np.count_nonzero((ginf | rinf) & ~(gnan | rnan) & (g64 != r64))),
        mismatches=mismatches,
    )


def _int_domain(a):
    """An integer/bool array as int64, or uint64 when it is uint64."""
    if a.dtype == np.uint64:
        return a.reshape(-1)
    return np.asarray(a, dtype=np.int64).reshape(-1)  # bool, int8..int64, uint8..uint32, ml_dtypes int4


def _compare_int(g, r, rtol, atol, max_print):
    shape = g.shape
    gi, ri = _int_domain(g), _int_domain(r)
    # Bring both sides into one exact domain.
    if gi.dtype != ri.dtype:
        u, s = (gi, ri) if gi.dtype == np.uint64 else (ri, gi)
        if u.size == 0 or int(u.max()) <= _I64_MAX:
            gi, ri = gi.astype(np.int64), ri.astype(np.int64)
        elif int(s.min()) >= 0:
            gi, ri = gi.astype(np.uint64), ri.astype(np.uint64)
        else:
            gi, ri = gi.astype(object), ri.astype(object)
    domain = "python-int" if gi.dtype == object else str(gi.dtype)

    if domain == "int64":
        gu, ru = gi.view(np.uint64), ri.view(np.uint64)
        diff = np.where(ri >= gi, ru - gu, gu - ru)  # exact: modular uint64 subtraction
    elif domain == "uint64":
        diff = np.where(ri >= gi, ri - gi, gi - ri)
    else:
        diff = np.abs(ri - gi)  # Python integers
    absg = np.abs(gi.astype(np.float64))
    thr = atol + rtol * absg  # finite: tolerances and |golden| are finite
    if domain == "python-int":
        close = np.asarray(diff <= thr, dtype=bool)  # int <= float is exact in Python
    else:
        # An integer diff is <= thr exactly when it is <= floor(thr).
        big = thr >= _U64_MAX_AS_FLOAT
        thr_u = np.where(big, 0.0, np.floor(thr)).astype(np.uint64)
        close = big | (diff <= thr_u)
    mismatch = ~close
    count = int(np.count_nonzero(mismatch))

    if diff.size:
        i = int(np.argmax(diff))
        max_abs = int(diff[i])
        max_abs_index = _index(i, shape)
        diff_f = diff.astype(np.float64)
        mean_abs = float(np.mean(diff_f))
    else:
        max_abs, max_abs_index, mean_abs = 0, None, 0.0
        diff_f = np.zeros(0)
    max_rel, max_rel_index, mean_rel, excluded = _rel_stats(diff_f, absg, None, shape)

    mismatches = []
    if count and max_print:
        first = np.flatnonzero(mismatch)[:max_print]
        for pos, idx in zip(first, _indices(first, shape)):
            gv, rv, ae = int(gi[pos]), int(ri[pos]), int(diff[pos])
            re_ = ae / abs(gv) if gv != 0 else math.inf
            mismatches.append(Mismatch(idx, gv, rv, ae, re_))

    return dict(
        compute_dtype=domain,
        mismatch_count=count,
        max_abs_error=max_abs,
        max_abs_error_index=max_abs_index,
        mean_abs_error=mean_abs,
        max_rel_error=max_rel,
        max_rel_error_index=max_rel_index,
        mean_rel_error=mean_rel,
        rel_error_excluded=excluded,
        cosine_similarity=_cosine(gi.astype(np.float64), ri.astype(np.float64)),
        golden_nan_count=0,
        result_nan_count=0,
        golden_inf_count=0,
        result_inf_count=0,
        nan_mismatch_count=0,
        inf_mismatch_count=0,
        mismatches=mismatches,
    )


# -------------------------------------------------------------------- files


def parse_dtype(name):
    """A dtype from its name: NumPy names and codes (``float32``, ``<f4``,
    ``int8``, ``bool``) and the ml_dtypes types (``bfloat16``, ``float8_e4m3fn``, ...)."""
    if isinstance(name, np.dtype):
        return name
    text = str(name).strip()
    try:
        return np.dtype(getattr(ml_dtypes, text))
    except (AttributeError, TypeError):
        pass
    try:
        dt = np.dtype(text)
    except TypeError:
        raise CompareInputError(f"unknown dtype {name!r}") from None
    if dt.kind in "OV" and not _ml_kind(dt):
        raise CompareInputError(f"dtype {name!r} is not a numeric dtype")
    if dt.itemsize == 0:  # U0, S0, V0: no bytes per element, nothing to compare
        raise CompareInputError(f"dtype {name!r} has item size 0; give a sized dtype (float32, int8, ...)")
    return dt


def parse_shape(text):
    """A shape from ``"4,5"``, ``"4x5"``, ``"(4, 5)"``, ``"[4, 5]"`` or ``"()"``
    (one ``-1`` allowed); a tuple/list of ints is returned as a tuple."""
    if isinstance(text, (tuple, list)):
        return tuple(int(d) for d in text)
    s = str(text).strip().strip("()[]").replace("x", ",").replace("X", ",").replace(" ", "")
    parts = [p for p in s.split(",") if p != ""]
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise CompareInputError(f"invalid shape {text!r}; write it like 4,5 or 4x5") from None
    if any(d < -1 for d in dims) or dims.count(-1) > 1:
        raise CompareInputError(f"invalid shape {text!r}: dimensions must be >= 0 (one -1 allowed)")
    return dims


def _split_npz_key(spec):
    if os.path.exists(spec) or ":" not in spec:
        return spec, None
    path, key = spec.rsplit(":", 1)
    if path.lower().endswith(".npz"):
        return path, key
    return spec, None


def load_array(spec, dtype=None, shape=None):
    """Reads an array from a file, never unpickling.

    * ``x.npy`` -- NumPy array file (``allow_pickle=False``: an object array
      raises). When ``dtype`` is given and the file holds raw void data (how
      ``np.save`` stores bfloat16 and float8 arrays, e.g. ``|V2``), the data
      is reinterpreted as ``dtype``; otherwise ``dtype``/``shape`` are ignored.
    * ``x.npz:key`` -- the array ``key`` of an ``.npz`` archive. The key is
      required (a missing one raises, listing the keys present).
    * any other file -- raw binary (e.g. ``.bin``): ``dtype`` is required;
      ``shape`` is optional (default 1-D) and must match the element count;
      the byte count must be a multiple of the item size.

    Raises:
        CompareInputError: missing or unreadable file, bad format, missing key,
            pickled data, size/shape mismatch, missing dtype for raw data.
    """
    spec = os.fspath(spec)
    path, key = _split_npz_key(spec)
    if not os.path.exists(path):
        raise CompareInputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CompareInputError(f"{path}: is a directory, not a file")
    dt = parse_dtype(dtype) if dtype is not None else None
    lower = path.lower()
    try:
        if lower.endswith(".npz"):
            _check_magic(path, (b"PK\x03\x04", b"PK\x05\x06"), "an .npz (zip) archive")
            return _load_npz(path, key, dt)
        if key is not None:
            raise CompareInputError(f"{spec}: ':key' applies to .npz files only")
        if lower.endswith(".npy"):
            _check_magic(path, (b"\x93NUMPY",), "an .npy file")
            return _reinterpret(np.load(path, allow_pickle=False), dt, path)
        return _load_raw(path, dt, shape)
    except CompareInputError:
        raise
    except ValueError as e:
        if "max_header_size" in str(e):  # NumPy refuses .npy headers over 10,000 bytes
            raise CompareInputError(
                f"{spec}: cannot read: its .npy header is larger than NumPy's limit "
                f"(numpy.lib.format max_header_size, 10000 bytes): {str(e).splitlines()[0]} "
                f"-- typically a structured dtype with very many fields; pyasc-compare does not "
                f"raise the limit") from None
        if "allow_pickle" in str(e):
            raise CompareInputError(
                f"{spec}: holds an object array (pickled Python objects); pyasc-compare never "
                f"unpickles (allow_pickle=False) -- save numeric arrays instead") from None
        raise CompareInputError(f"{spec}: cannot read: {e}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError) as e:
        raise CompareInputError(f"{spec}: cannot read: {e}") from None


def _check_magic(path, magics, what):
    with open(path, "rb") as f:
        head = f.read(max(len(m) for m in magics))
    if not any(head.startswith(m) for m in magics):
        hint = " (it looks like a pickle, which is never loaded)" if head[:1] == b"\x80" else ""
        raise CompareInputError(f"{path}: cannot read: not {what}{hint}")


def _reinterpret(a, dt, path):
    if dt is None or a.dtype.kind != "V" or a.dtype.names is not None or _ml_kind(a.dtype):
        return a
    if a.dtype.itemsize != dt.itemsize:
        raise CompareInputError(
            f"{path}: cannot reinterpret {a.dtype.str} data as {_dtype_name(dt)} "
            f"(item sizes {a.dtype.itemsize} and {dt.itemsize} differ)")
    return a.view(dt)


def _load_npz(path, key, dt):
    with np.load(path, allow_pickle=False) as z:
        keys = list(z.files)
        if key is None:
            raise CompareInputError(
                f"{path}: an .npz archive needs a key: write {path}:KEY (keys: {', '.join(keys) or 'none'})")
        if key not in keys:
            raise CompareInputError(f"{path}: no array {key!r} in the archive (keys: {', '.join(keys) or 'none'})")
        return _reinterpret(z[key], dt, f"{path}:{key}")


def _load_raw(path, dt, shape):
    if dt is None:
        raise CompareInputError(f"{path}: a raw binary file needs --dtype (and optionally --shape)")
    nbytes = os.path.getsize(path)
    if nbytes % dt.itemsize:
        raise CompareInputError(
            f"{path}: {nbytes} bytes is not a multiple of the {_dtype_name(dt)} item size {dt.itemsize}")
    with open(path, "rb") as f:
        data = f.read()
    a = np.frombuffer(data, dtype=dt).copy()
    if shape is None:
        return a
    dims = parse_shape(shape)
    count = a.size
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or count % known:
            raise CompareInputError(f"{path}: {count} elements do not fit shape {_fmt_shape(dims)}")
    elif math.prod(dims) != count:
        raise CompareInputError(
            f"{path}: {count} {_dtype_name(dt)} elements ({nbytes} bytes) do not match shape "
            f"{_fmt_shape(dims)} ({math.prod(dims)} elements)")
    return a.reshape(dims)


# -------------------------------------------------------------------- formatting


def _fmt_shape(shape):
    if shape is None:
        return "-"
    shape = tuple(shape)
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _fmt_percent(p):
    if p == 0:
        return "0%"
    if p < 0.001:
        return f"{p:.2e}%"
    return f"{p:.4g}%"


def _fmt_err(v):
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.6g}"


def _fmt_value(v, dtype_name):
    """A value in its own dtype's shortest form (float32 0.1 -> '0.1')."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        try:
            if np.dtype(dtype_name) == np.bool_:
                return str(bool(v))
        except TypeError:
            pass
        return str(int(v))
    try:
        dt = np.dtype(dtype_name)
        if dt.kind == "f" or _ml_kind(dt) == "f":
            return str(dt.type(v))
        if dt.kind in "iub" and float(v).is_integer():  # an integer side of a float comparison
            return str(bool(v)) if dt.kind == "b" else str(int(v))
    except Exception:  # noqa: BLE001 - fall back to float64 repr
        pass
    return repr(float(v))


def _json_safe(obj):
    if isinstance(obj, float):
        if math.isnan(obj):
            return "nan"
        if math.isinf(obj):
            return "inf" if obj > 0 else "-inf"
        return obj
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj
