"""Classification of one fuzz case (fuzz_harness.py): ``classify`` runs a case with NumPy
and pyasc (lazy, eager) and applies the rules below, each of which says why NumPy's own answer is
not the reference for that input (CPU- or order-dependent answers, NumPy accidents, bfloat16
promotion, ...).
"""

from __future__ import annotations

import itertools
import re
import warnings


import ml_dtypes
import numpy as np

import pyasc as asc

from fuzz_cases import CATEGORIES, ULP, _has, _huge, build, np_dtype
from fuzz_compare import (_Crash, _Hang, _call, _call_isolated, _compare, _compare_arrays, _float_info, _is_unclear,
                          _matches, _name_key, _normalize, _target)


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


def _object_or_str_value(s):
    """Whether spec s is a Python value NumPy can only hold as an object or string array."""
    if s[0] != "py":
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(s[1]).dtype.kind in "OUS"
    except Exception:  # noqa: BLE001 - (a ragged list: not such a value)
        return False


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
    # (also where NumPy answers but its answer depends on the order: result_type(uint8, bfloat16,
    # 1.5) is float64, result_type(bfloat16, uint8, 1.5) bfloat16 -- same rule: some order's answer)
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
        if ref.exc is not None and not isinstance(ref.exc, np.exceptions.DTypePromotionError) or case[3]:
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
                re.search(r"unsupported dtype (object|<U|\|S)", str(got.exc)) and _has(case, _object_or_str_value):
            # NumPy holds a value it has no number for -- a str ('<U'), None or a tuple mixing a str
            # (object / '<U'), an integer beyond int64/uint64 (object) -- as such an array and fails
            # later on that path (delete('abc', 5) and delete(None, idx): its IndexError; extract(c,
            # 2**100): take's); pyasc has no string or object arrays and refuses the value where it is
            # converted, naming its dtype -- while both reject the input
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
    if d and _bf16_promotion_ok(case, ref, got):
        return "ok", ""
    if d and _BF16_NAN_FNS.get(case[1]) and case[0] == "fn" and \
            _has(case, lambda s: s[0] == "arr" and s[1] == "bfloat16"):
        # pyasc's nan-functions ignore bfloat16 NaNs (tests/python/array/test_nanreduce.py); NumPy's
        # _replace_nan masks np.inexact types only, so its nansum/nanmean/... of bfloat16 are the
        # plain reductions. The reference is then NumPy's nan-function on the float32 upcast, rounded
        # back to bfloat16 (as test_nanreduce does), and pyasc must equal it -- or on the float64
        # upcast where NumPy's own answer is wider than float32 (nanvar(bf16, mean=<float64>) is
        # np.var's float64 deviations: float32 steps are no reference at float64's tolerance)
        for up in (np.float32, np.float64):
            ref_up = _bf16_as_f32_ref(case, up)
            if ref_up is not None and not _compare(_round_bf16(ref_up, ref.value), got.value, case):
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
    if d and not re.match(r"(\[\d+\] )*(dtype|shape|length)", d) and _lu_nonfinite_ok(case, ref, got):
        return "ok", ""
    if d and not re.match(r"(\[\d+\] )*(dtype|shape|length)", d) and _power_half_ok(case, got):
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
                          "polymul", "vecdot",  # (np.polymul is np.convolve; vecdot uses the ?dotc kernels)
                          # linalg.matrix_power(a, 2) is matmul(a, a), yet for the (2, 2, 2) complex a of fuzz
                          # seed 20111 NumPy's matrix_power is all nan+nanj where its own np.matmul(a, a) has
                          # inf+infj/-inf-infj in the second matrix: the same kernel-dependent non-finite parts
                          "matrix_power",
                          # np.matvec(complex (2,1,5), float with inf/NaN) is nan+infj where NumPy's own einsum
                          # and sum(a * b) give -inf+infj (its gufunc inner loop): the same class
                          "matvec", "vecmat"}


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


# NumPy's LU-based linalg functions: LAPACK's getrf (through OpenBLAS) and what is built on it, and
# the Cholesky factor (potrf: its NaN pattern is OpenBLAS's complex division/scaling kernels')
_LU_LINALG = {"det", "slogdet", "inv", "solve", "tensorinv", "tensorsolve", "matrix_power", "cholesky"}


def _finite_input(case):
    """Whether every float/complex array argument of the case is finite (False: one holds NaN/inf)."""
    for spec in list(case[2]) + [v for _, v in case[3]]:
        try:
            v = build(spec, np)
            if isinstance(v, np.ndarray) and v.dtype.kind in "fcV" and v.size and \
                    not np.isfinite(v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)).all():
                return False
        except Exception:  # noqa: BLE001
            pass
    return True


def _lu_nonfinite_ok(case, ref, got):
    """Whether pyasc's det/slogdet/inv/solve/tensorinv/tensorsolve/matrix_power of a matrix holding
    NaN/inf equals NumPy's at every position where neither result is NaN. LAPACK leaves non-finite
    input unspecified and NumPy's NaN pattern is the pivot search of the OpenBLAS kernel the CPU
    dispatches to: numpy's bundled OpenBLAS (Haswell kernel) answers idamax([1, nan, 2]) = 2 (the
    NaN), idamax([nan, 1]) = 1 (the NaN), idamax([1, nan]) = 1 (the 1), and a NaN among 21 entries
    by SIMD lane; getrf then either pivots on the NaN (it spreads) or on a zero (an exact-singular
    report: det([[nan, 0], [-0, 0]]) is 0 in NumPy, nan by pivoting on the NaN). So which entries
    are NaN is no reference -- where both results hold a number (inf included) they must still
    agree by the usual comparison, as must dtype and shape (compared before this rule); finite input
    is never judged here."""
    if case[0] != "linalg" or case[1] not in _LU_LINALG or got.exc is not None or ref.exc is not None:
        return False
    if _finite_input(case):
        return False
    if case[1] == "matrix_power":
        # only a negative power inverts (LU pivoting); a power >= 0 is repeated matmul, where NaN
        # positions are no pivot route's and stay compared (test_harness_matrix_power_complex_inf_rule)
        spec = case[2][1] if len(case[2]) > 1 else dict(case[3]).get("n")
        if not (isinstance(spec, tuple) and spec[0] == "py" and isinstance(spec[1], int) and spec[1] < 0):
            return False

    def arrays(v):
        if isinstance(v, tuple) and v and v[0] == "array":
            return [v[1]]
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], (list, tuple)):
            out = []
            for x in v[1]:
                sub = arrays(x)
                if sub is None:
                    return None
                out += sub
            return out
        return None

    ea, ga = arrays(ref.value), arrays(got.value)
    if not ea or ga is None or len(ea) != len(ga):
        return False
    if case[1] == "slogdet" and len(ea) == 2 and all(np.shape(x) == np.shape(ea[1]) for x in ea + ga):
        # (sign, logabsdet) of one matrix are one answer: a NaN logabsdet's sign is the pivot route's
        # (NumPy: 0 with -inf for an exact-singular report, +-1 with NaN for a NaN pivot)
        skip = np.isnan(np.asarray(ea[1], np.float64)) | np.isnan(np.asarray(ga[1], np.float64))
        ea = [np.asarray(x)[~skip] for x in ea]
        ga = [np.asarray(x)[~skip] for x in ga]
    for e, g in zip(ea, ga):
        e, g = np.asarray(e), np.asarray(g)
        if e.shape != g.shape or e.dtype != g.dtype:
            return False
        if e.dtype.kind not in "fcV":
            if not np.array_equal(e, g):
                return False
            continue
        wide = np.complex128 if e.dtype.kind == "c" else np.float64
        both = ~np.isnan(e.astype(wide)) & ~np.isnan(g.astype(wide))
        if _compare(("array", e[both]), ("array", g[both]), case) is not None:
            return False
    return True


def _power_half_ok(case, got):
    """power(x, 0.5) where NumPy's float32/float64 loop meets the exponent as a broadcast scalar
    (stride 0: a Python or NumPy scalar, a 0-d array, a size-1 array broadcast) and takes sqrt(x)
    instead of pow(x, 0.5): sqrt(-inf) is nan and sqrt(-0.0) -0.0 where C99 pow gives inf and 0.0.
    NumPy disagrees with itself: np.power(x, 0.5) is nan at -inf, np.power(x, np.full(x.shape, 0.5))
    inf. pyasc's pow answer must equal NumPy's with the operands materialized (no stride 0) -- the
    same call, by the usual comparison."""
    if case[1] not in ("power", "pow") or case[0] not in ("fn", "op") or case[3] or len(case[2]) != 2 or \
            got.exc is not None or got.value[0] != "array":
        return False
    try:
        a, b = (np.asarray(build(s, np)) for s in case[2])
        if not np.any(np.asarray(b, np.float64) == 0.5) if np.asarray(b).dtype.kind in "fV" else True:
            return False
        dt = np.dtype(got.value[1].dtype)  # (the result dtype, compared before this rule: a weak 0.5 is cast)
        # (at least 1-d: a 0-d exponent is a stride-0 scalar to the loop too)
        a2, b2 = (np.array(v, dtype=dt if dt.kind in "fc" else None, copy=True, ndmin=1)
                  for v in np.broadcast_arrays(a, b))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            full = np.power(a2, b2).reshape(np.broadcast_shapes(a.shape, b.shape))
    except Exception:  # noqa: BLE001 - no second answer to compare with
        return False
    return _compare(("array", np.asarray(full)), got.value, case) is None


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
    if case[0] not in ("fn", "method", "linalg", "op") or case[1] not in _BLAS_COMPLEX_PRODUCTS:  # (op: a @ b)
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
        # (an infinity in either operand: a real inf times a complex value is a complex infinity too)
        if not any(isinstance(v, np.ndarray) and v.dtype.kind in "fc" and np.isinf(v).any() for v in ops):
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
            if isinstance(v, np.ndarray) and v.dtype.kind in "fcV" and \
                    np.isnan(v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)).any():
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
                               # nan_to_num: NumPy returns non-np.inexact input (bfloat16) unchanged,
                               # NaN and inf included; pyasc replaces them as for float16
                               "nan_to_num",
                               # NumPy's unique collapses NaNs (equal_nan) only for dtype kinds 'c', 'f',
                               # 'm', 'M': ml_dtypes' bfloat16 is kind 'V', so its NaNs stay distinct
                               # there, while pyasc treats bfloat16 as the float it is (as float16) --
                               # the same rule on the float32 upcast, which selects the same values
                               "unique", "union1d", "setxor1d", "setdiff1d", "intersect1d"), True)


def _bf16_as_f32_ref(case, up_dtype=np.float32):
    """NumPy's answer for the case with its bfloat16 arrays upcast to float32 (or ``up_dtype``;
    None if it raises)."""
    bf = np.dtype(ml_dtypes.bfloat16)
    up = lambda v: v.astype(up_dtype) if isinstance(v, np.ndarray) and v.dtype == bf else v  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                args = [up(build(x, np)) for x in case[2]]
                kw = {k: up(build(x, np)) for k, x in case[3]}
                if case[1] == "nan_to_num":  # (the infinities' defaults are bfloat16's own limits)
                    fi = ml_dtypes.finfo(bf)
                    kw.setdefault("posinf", float(fi.max))
                    kw.setdefault("neginf", float(fi.min))
                return _normalize(getattr(np, case[1])(*args, **kw))
            except Exception:  # noqa: BLE001
                return None


def _round_bf16(v32, like):
    """The float32 reference value with float32 arrays rounded to the dtype NumPy's own result has."""
    if v32[0] == "array" and like[0] == "array" and v32[1].dtype in (np.float32, np.float64):
        return ("array", v32[1].astype(like[1].dtype))
    if v32[0] in ("tuple", "list") and like[0] == v32[0] and len(v32[1]) == len(like[1]):
        return (v32[0], [_round_bf16(a, b) for a, b in zip(v32[1], like[1])])
    return v32
