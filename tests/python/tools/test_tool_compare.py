"""asc.utils.compare and pyasc-compare: every outcome and exit status."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from pyasc.tools import compare as cli
from pyasc.utils import CompareInputError, CompareReport, compare

INF, NAN = math.inf, math.nan


# ------------------------------------------------------------------ API: criterion


def test_identical_arrays_pass():
    g = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    rep = compare(g, g.copy())
    assert isinstance(rep, CompareReport)
    assert rep.passed
    assert rep.mismatch_count == 0 and rep.mismatch_percent == 0.0
    assert rep.max_abs_error == 0.0 and rep.mean_abs_error == 0.0
    assert rep.max_rel_error == 0.0 and rep.mean_rel_error == 0.0
    assert rep.cosine_similarity == pytest.approx(1.0, abs=1e-15)
    assert rep.golden_shape == rep.result_shape == (2, 3, 4)
    assert rep.golden_dtype == rep.result_dtype == "float32"
    assert rep.dtype_match and rep.warnings == []
    assert rep.compute_dtype == "float64"
    assert rep.mismatches == []
    assert str(rep).startswith("PASS")


def test_api_is_reachable_from_package():
    assert asc.utils.compare is compare
    assert asc.utils.CompareReport is CompareReport
    assert set(asc.utils.__all__) <= set(dir(asc.utils))


def test_tolerance_boundary_is_inclusive():
    # |r - g| <= atol + rtol * |g| with exactly representable numbers.
    g = np.array([1.0, 4.0])
    assert compare(g, np.array([1.5, 4.0]), rtol=0, atol=0.5).passed
    assert compare(g, np.array([1.0, 5.0]), rtol=0.25, atol=0).passed
    assert compare(g, np.array([1.0, 6.0]), rtol=0.25, atol=1.0).passed
    rep = compare(g, np.array([1.0, np.nextafter(6.0, 7.0)]), rtol=0.25, atol=1.0)
    assert not rep.passed and rep.mismatch_count == 1


def test_golden_is_the_reference_for_rtol():
    # rtol scales |golden|, not |result| (asymmetric like numpy.isclose(result, golden)).
    assert compare(np.array([10.0]), np.array([11.0]), rtol=0.1, atol=0).passed
    assert not compare(np.array([9.0]), np.array([10.0]), rtol=0.1, atol=0).passed  # 1 > 0.1 * 9


def test_agrees_with_numpy_isclose_on_random_data():
    rng = np.random.default_rng(0)
    g = rng.standard_normal(5000)
    r = g + rng.standard_normal(5000) * 1e-5
    specials = np.array([NAN, INF, -INF, 0.0, -0.0, 1e-300])
    g[rng.integers(0, 5000, 200)] = rng.choice(specials, 200)
    r[rng.integers(0, 5000, 200)] = rng.choice(specials, 200)
    for rtol, atol in [(1e-5, 1e-8), (1e-4, 1e-6), (0.0, 0.0), (1e-2, 0.0)]:
        rep = compare(g, r, rtol=rtol, atol=atol, max_print=10**6)
        expect = ~np.isclose(r, g, rtol=rtol, atol=atol, equal_nan=True)
        assert rep.mismatch_count == int(expect.sum())
        assert [m.index[0] for m in rep.mismatches] == list(np.flatnonzero(expect))


def test_defaults_are_numpys():
    assert asc.utils.precision.DEFAULT_RTOL == 1e-5
    assert asc.utils.precision.DEFAULT_ATOL == 1e-8
    assert compare(np.array([1.0]), np.array([1.0 + 0.9e-5])).passed
    assert not compare(np.array([1.0]), np.array([1.0 + 1.1e-5])).passed


# ------------------------------------------------------------------ NaN / Inf


def test_nan_and_inf_rules():
    g = np.array([NAN, NAN, NAN, 1.0, INF, INF, INF, -INF, 2.0, 3.0])
    r = np.array([NAN, 1.0, INF, NAN, INF, -INF, 1e308, -INF, INF, 3.0])
    rep = compare(g, r, rtol=1e300, atol=1e300, max_print=100)  # no tolerance absorbs Inf/NaN
    bad = [m.index for m in rep.mismatches]
    assert bad == [(1,), (2,), (3,), (5,), (6,), (8,)]
    assert rep.mismatch_count == 6
    assert rep.nan_mismatch_count == 3  # (1) NaN vs 1, (2) NaN vs Inf, (3) 1 vs NaN
    assert rep.inf_mismatch_count == 3  # +Inf vs -Inf, Inf vs 1e308, 2 vs Inf
    assert (rep.golden_nan_count, rep.result_nan_count) == (3, 2)
    assert (rep.golden_inf_count, rep.result_inf_count) == (4, 5)
    by_index = {m.index: m for m in rep.mismatches}
    assert math.isnan(by_index[(1,)].abs_error) and math.isnan(by_index[(1,)].rel_error)
    assert by_index[(5,)].abs_error == INF and by_index[(5,)].rel_error == INF
    assert by_index[(5,)].golden == INF and by_index[(5,)].result == -INF


def test_nan_at_same_positions_passes():
    g = np.array([[1.0, NAN], [INF, -INF]], dtype=np.float32)
    rep = compare(g, g.copy())
    assert rep.passed
    assert rep.nan_mismatch_count == rep.inf_mismatch_count == 0
    assert rep.golden_nan_count == 1 and rep.golden_inf_count == 2


def test_statistics_cover_finite_pairs_only():
    g = np.array([1.0, 2.0, NAN, 4.0, INF])
    r = np.array([1.5, 2.0, 3.0, 4.0, 5.0])
    rep = compare(g, r)
    assert rep.max_abs_error == 0.5 and rep.max_abs_error_index == (0,)
    assert rep.mean_abs_error == pytest.approx(0.5 / 3)
    assert rep.max_rel_error == 0.5 and rep.max_rel_error_index == (0,)
    assert math.isfinite(rep.cosine_similarity)


def test_all_nonfinite_has_no_statistics():
    rep = compare(np.array([NAN, INF]), np.array([NAN, INF]))
    assert rep.passed
    assert rep.max_abs_error_index is None and rep.max_rel_error_index is None
    assert rep.cosine_similarity == 1.0


# ------------------------------------------------------------------ errors and indices


def test_max_errors_and_nd_indices():
    g = np.ones((3, 4, 5), dtype=np.float32)
    r = g.copy()
    r[1, 2, 3] = 1.25  # largest absolute error
    r[2, 0, 1] = 0.9
    g[0, 1, 2], r[0, 1, 2] = 0.01, 0.02  # largest relative error (1.0)
    rep = compare(g, r)
    assert rep.max_abs_error == 0.25 and rep.max_abs_error_index == (1, 2, 3)
    assert rep.max_rel_error == pytest.approx(1.0, rel=1e-6) and rep.max_rel_error_index == (0, 1, 2)
    assert rep.mismatch_count == 3
    assert rep.mismatch_percent == pytest.approx(5.0)
    assert [m.index for m in rep.mismatches] == [(0, 1, 2), (1, 2, 3), (2, 0, 1)]  # C order
    m = rep.mismatches[1]
    assert (m.golden, m.result, m.abs_error, m.rel_error) == (1.0, 1.25, 0.25, 0.25)
    assert all(isinstance(i, int) for i in m.index)
    text = str(rep)
    assert text.startswith("FAIL: 3 of 60")
    assert "(1, 2, 3)" in text and "1.25" in text


def test_relative_error_skips_zero_golden():
    g = np.array([0.0, 0.0, 2.0, -0.0])
    r = np.array([0.0, 1e-3, 2.2, 0.0])
    rep = compare(g, r)
    assert rep.rel_error_excluded == 3
    assert rep.max_rel_error == pytest.approx(0.1) and rep.max_rel_error_index == (2,)
    assert rep.mean_rel_error == pytest.approx(0.1)
    zero = [m for m in rep.mismatches if m.index == (1,)][0]
    assert zero.rel_error == INF and zero.abs_error == pytest.approx(1e-3)
    assert "golden == 0 excluded" in str(rep)
    assert compare(np.array([0.0]), np.array([1e-9]), rtol=0, atol=1e-8).passed  # atol governs zeros


def test_max_print():
    g = np.zeros(50)
    r = np.arange(50, dtype=np.float64)
    assert len(compare(g, r).mismatches) == 10
    rep = compare(g, r, max_print=3)
    assert [m.index for m in rep.mismatches] == [(1,), (2,), (3,)]
    assert rep.mismatch_count == 49
    rep = compare(g, r, max_print=0)
    assert rep.mismatches == [] and not rep.passed
    with pytest.raises(CompareInputError):
        compare(g, r, max_print=-1)


# ------------------------------------------------------------------ cosine similarity


def test_cosine_similarity():
    a = np.array([1.0, 2.0, 3.0])
    assert compare(a, -a).cosine_similarity == pytest.approx(-1.0)
    assert compare(a, 2 * a, rtol=10).cosine_similarity == pytest.approx(1.0)
    assert compare(np.array([1.0, 0.0]), np.array([0.0, 1.0]), atol=2).cosine_similarity == pytest.approx(0.0)
    assert compare(np.zeros(4), np.zeros(4)).cosine_similarity == 1.0
    assert compare(np.zeros(4), np.ones(4)).cosine_similarity == 0.0
    assert compare(np.ones(4), np.zeros(4)).cosine_similarity == 0.0
    big = np.array([1e300, -1e300, 1e300])  # squares overflow without scaling
    assert compare(big, big).cosine_similarity == pytest.approx(1.0)
    tiny = np.array([1e-310, 2e-310])
    assert compare(tiny, tiny).cosine_similarity == pytest.approx(1.0)


# ------------------------------------------------------------------ dtypes


def test_integers_are_compared_exactly():
    g = np.array([2**53 + 1, 7], dtype=np.int64)
    r = np.array([2**53, 7], dtype=np.int64)  # equal in float64
    rep = compare(g, r, rtol=0, atol=0.5)
    assert not rep.passed and rep.compute_dtype == "int64"
    assert rep.max_abs_error == 1 and isinstance(rep.max_abs_error, int)
    assert rep.mismatches[0].golden == 2**53 + 1 and rep.mismatches[0].result == 2**53


def test_integer_extremes_do_not_overflow():
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    rep = compare(np.array([lo, hi, 0]), np.array([hi, lo, 0]), rtol=0, atol=0)
    assert rep.mismatch_count == 2
    assert rep.max_abs_error == 2**64 - 1
    assert [m.abs_error for m in rep.mismatches] == [2**64 - 1, 2**64 - 1]
    rep = compare(np.array([2**64 - 1], dtype=np.uint64), np.array([0], dtype=np.uint64), rtol=0, atol=0)
    assert rep.compute_dtype == "uint64" and rep.max_abs_error == 2**64 - 1
    rep = compare(np.array([-1, 5], dtype=np.int64), np.array([2**64 - 1, 5], dtype=np.uint64), rtol=0, atol=0)
    assert rep.compute_dtype == "python-int" and rep.max_abs_error == 2**64
    assert not rep.dtype_match and "dtype mismatch" in rep.warnings[0]
    assert compare(np.array([3], np.int8), np.array([3], np.uint64)).passed


def test_integer_tolerance_is_exact():
    g = np.array([10**17], dtype=np.int64)
    assert compare(g, g + 10, rtol=1e-16, atol=0).passed  # 10 <= 1e-16 * 1e17
    assert not compare(g, g + 11, rtol=1e-16, atol=0).passed
    assert compare(np.array([5]), np.array([7]), rtol=0, atol=2).passed
    assert not compare(np.array([5]), np.array([8]), rtol=0, atol=2.999).passed


def test_bool_arrays():
    g = np.array([True, False, True])
    rep = compare(g, np.array([True, True, True]))
    assert rep.mismatch_count == 1 and rep.mismatches[0].index == (1,)
    assert rep.mismatches[0].golden == 0 and rep.mismatches[0].result == 1
    assert "False" in str(rep) and "True" in str(rep)
    assert compare(g, g.copy()).passed


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32])
def test_low_precision_floats_in_float64(dtype):
    g = np.array([1.0, 2.0, 3.0, 0.1], dtype=dtype)
    r = g.copy()
    r[2] = dtype(3.5)
    rep = compare(g, r)
    assert rep.compute_dtype == "float64"
    assert rep.golden_dtype == np.dtype(dtype).name
    assert rep.mismatch_count == 1 and rep.max_abs_error == 0.5
    assert rep.mismatches[0].golden == 3.0 and rep.mismatches[0].result == 3.5
    assert compare(g, g.copy()).passed


def test_dtype_mismatch_warns_and_compares_in_float64():
    g = np.array([1.0, 2.5], dtype=np.float32)
    rep = compare(g, g.astype(np.float16))
    assert rep.passed and not rep.dtype_match
    assert rep.warnings and "float32" in rep.warnings[0] and "float16" in rep.warnings[0]
    assert "warning: dtype mismatch" in str(rep)
    rep = compare(np.array([1, 2], np.int32), np.array([1.0, 2.5]))
    assert rep.compute_dtype == "float64" and rep.mismatch_count == 1


def test_unsupported_dtypes_are_bad_input():
    with pytest.raises(CompareInputError, match="complex"):
        compare(np.ones(2, complex), np.ones(2, complex))
    with pytest.raises(CompareInputError, match="not supported"):
        compare(np.array(["a"]), np.array(["a"]))
    with pytest.raises(CompareInputError):
        compare(np.array([1, None], dtype=object), np.array([1, 2]))


# ------------------------------------------------------------------ shapes


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(CompareInputError) as e:
        compare(np.zeros((2, 3)), np.zeros((3, 2)))
    assert "(2, 3)" in str(e.value) and "(3, 2)" in str(e.value)
    with pytest.raises(CompareInputError, match=r"\(4,\).*\(5,\)"):
        compare(np.zeros(4), np.zeros(5))
    assert isinstance(e.value, ValueError)


def test_empty_and_zero_d():
    rep = compare(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32))
    assert rep.passed and rep.size == 0 and rep.mismatch_percent == 0.0
    assert rep.max_abs_error_index is None and rep.cosine_similarity == 1.0
    rep = compare(np.float32(1.0), np.float32(2.0))
    assert not rep.passed and rep.mismatches[0].index == () and rep.max_abs_error_index == ()


def test_invalid_tolerances():
    for kw in ({"rtol": -1}, {"atol": -1e-9}, {"rtol": NAN}, {"atol": INF}, {"rtol": "x"}):
        with pytest.raises(CompareInputError):
            compare(np.ones(2), np.ones(2), **kw)


# ------------------------------------------------------------------ report object


def test_to_dict_and_json():
    g = np.array([[1.0, 2.0], [3.0, 0.0]])
    r = np.array([[1.0, NAN], [3.5, 1.0]])
    rep = compare(g, r)
    d = rep.to_dict()
    for key in ("passed", "golden_shape", "result_shape", "golden_dtype", "result_dtype", "dtype_match",
                "rtol", "atol", "size", "mismatch_count", "mismatch_percent", "max_abs_error",
                "max_abs_error_index", "mean_abs_error", "max_rel_error", "max_rel_error_index",
                "mean_rel_error", "cosine_similarity", "nan_mismatch_count", "inf_mismatch_count",
                "golden_nan_count", "result_nan_count", "golden_inf_count", "result_inf_count",
                "mismatches", "warnings", "rel_error_excluded", "compute_dtype"):
        assert key in d, key
    assert d["passed"] is False and d["mismatch_count"] == 3
    assert d["mismatches"][0]["index"] == (0, 1)
    j = json.loads(rep.to_json())
    assert j["mismatches"][0]["result"] == "nan" and j["mismatches"][0]["index"] == [0, 1]
    assert j["mismatches"][2]["rel_error"] == "inf"
    assert j["max_abs_error_index"] == [1, 1]


# ------------------------------------------------------------------ CLI (in process)


def _run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    g = np.arange(12, dtype=np.float32).reshape(3, 4)
    r = g.copy()
    r[2, 1] += 0.5
    np.save(tmp_path / "golden.npy", g)
    np.save(tmp_path / "same.npy", g)
    np.save(tmp_path / "result.npy", r)
    return tmp_path


def test_cli_pass(files, capsys):
    code, out, _ = _run([files / "golden.npy", files / "same.npy", "--rtol", "1e-4", "--atol", "1e-6"], capsys)
    assert code == 0
    assert "PASS" in out and "golden.npy" in out


def test_cli_mismatch(files, capsys):
    code, out, _ = _run([files / "golden.npy", files / "result.npy"], capsys)
    assert code == 1
    assert "FAIL: 1 of 12" in out and "(2, 1)" in out and "9.5" in out
    code, out, _ = _run([files / "golden.npy", files / "result.npy", "--atol", "0.5"], capsys)
    assert code == 0


def test_cli_json(files, capsys):
    code, out, _ = _run([files / "golden.npy", files / "result.npy", "--json", "--max-print", "1"], capsys)
    assert code == 1
    d = json.loads(out)
    assert d["passed"] is False and d["exit_code"] == 1 and d["mismatch_count"] == 1
    assert d["max_abs_error_index"] == [2, 1] and len(d["mismatches"]) == 1
    assert d["golden_file"].endswith("golden.npy")
    code, out, _ = _run([files / "golden.npy", files / "same.npy", "--json"], capsys)
    assert code == 0 and json.loads(out)["passed"] is True


def test_cli_missing_file(files, capsys):
    code, out, err = _run([files / "nope.npy", files / "result.npy"], capsys)
    assert code == 2 and "nope.npy: no such file" in err and out == ""
    code, out, err = _run([files / "golden.npy", files / "nope.npy", "--json"], capsys)
    assert code == 2
    d = json.loads(out)
    assert d["passed"] is False and d["exit_code"] == 2 and "no such file" in d["error"]


def test_cli_shape_mismatch(files, capsys):
    np.save(files / "other.npy", np.zeros((4, 3), np.float32))
    code, _, err = _run([files / "golden.npy", files / "other.npy"], capsys)
    assert code == 2 and "shape mismatch" in err and "(3, 4)" in err and "(4, 3)" in err


def test_cli_unreadable_files(files, capsys):
    (files / "garbage.npy").write_bytes(b"this is not an npy file")
    code, _, err = _run([files / "garbage.npy", files / "golden.npy"], capsys)
    assert code == 2 and "garbage.npy" in err and "cannot read" in err
    (files / "garbage.npz").write_bytes(b"PK nope")
    code, _, err = _run([files / "garbage.npz:a", files / "golden.npy"], capsys)
    assert code == 2 and "garbage.npz" in err
    code, _, err = _run([files, files / "golden.npy"], capsys)
    assert code == 2 and "directory" in err
    whole = (files / "golden.npy").read_bytes()
    (files / "truncated.npy").write_bytes(whole[: len(whole) - 7])
    code, _, err = _run([files / "truncated.npy", files / "golden.npy"], capsys)
    assert code == 2 and "truncated.npy" in err
    import pickle

    (files / "pickle.npy").write_bytes(pickle.dumps([1.0, 2.0]))
    code, _, err = _run([files / "pickle.npy", files / "golden.npy"], capsys)
    assert code == 2 and "pickle" in err


def test_cli_refuses_pickles(files, capsys):
    np.save(files / "objects.npy", np.array([1, "x", None], dtype=object), allow_pickle=True)
    code, _, err = _run([files / "objects.npy", files / "golden.npy"], capsys)
    assert code == 2 and "pickle" in err
    np.savez(files / "objects.npz", a=np.array([{"k": 1}], dtype=object))
    code, _, err = _run([f"{files / 'objects.npz'}:a", files / "golden.npy"], capsys)
    assert code == 2 and "pickle" in err


def test_cli_npz_keys(files, capsys):
    g = np.load(files / "golden.npy")
    np.savez(files / "g.npz", out=g, other=np.zeros(2))
    np.savez(files / "r.npz", out=g + 1e-9)
    code, out, _ = _run([f"{files / 'g.npz'}:out", f"{files / 'r.npz'}:out"], capsys)
    assert code == 0
    code, _, err = _run([f"{files / 'g.npz'}:missing", f"{files / 'r.npz'}:out"], capsys)
    assert code == 2 and "'missing'" in err and "out" in err and "other" in err
    code, _, err = _run([files / "g.npz", f"{files / 'r.npz'}:out"], capsys)
    assert code == 2 and "needs a key" in err
    code, _, err = _run([f"{files / 'golden.npy'}:x", files / "golden.npy"], capsys)
    assert code == 2


def test_cli_raw_bin(files, capsys):
    g = np.arange(12, dtype=np.float16)
    r = g.copy()
    r[7] = 100
    g.tofile(files / "g.bin")
    r.tofile(files / "r.bin")
    code, out, _ = _run([files / "g.bin", files / "r.bin", "--dtype", "float16", "--shape", "3,4"], capsys)
    assert code == 1 and "(1, 3)" in out and "golden float16" in out
    code, out, _ = _run([files / "g.bin", files / "g.bin", "--dtype", "float16"], capsys)
    assert code == 0 and "(12,)" in out  # 1-D without --shape
    code, out, _ = _run([files / "g.bin", files / "r.bin", "--dtype", "float16", "--shape", "2x-1", "--json"],
                        capsys)
    assert code == 1 and json.loads(out)["golden_shape"] == [2, 6]
    # raw vs .npy, per-file dtype
    np.save(files / "g32.npy", g.astype(np.float32))
    code, out, _ = _run([files / "g32.npy", files / "g.bin", "--result-dtype", "float16"], capsys)
    assert code == 0 and "dtype mismatch" in out


def test_cli_raw_bin_errors(files, capsys):
    np.arange(10, dtype=np.float32).tofile(files / "g.bin")
    code, _, err = _run([files / "g.bin", files / "g.bin"], capsys)
    assert code == 2 and "--dtype" in err
    code, _, err = _run([files / "g.bin", files / "g.bin", "--dtype", "float32", "--shape", "3,4"], capsys)
    assert code == 2 and "10" in err and "(3, 4)" in err
    code, _, err = _run([files / "g.bin", files / "g.bin", "--dtype", "float64", "--shape", "5"], capsys)
    assert code == 0  # 40 bytes = 5 float64
    (files / "odd.bin").write_bytes(b"\0" * 6)
    code, _, err = _run([files / "odd.bin", files / "odd.bin", "--dtype", "float32"], capsys)
    assert code == 2 and "not a multiple" in err
    code, _, err = _run([files / "g.bin", files / "g.bin", "--dtype", "nonsense"], capsys)
    assert code == 2 and "nonsense" in err
    code, _, err = _run([files / "g.bin", files / "g.bin", "--dtype", "float32", "--shape", "a,b"], capsys)
    assert code == 2 and "shape" in err
    (files / "empty.bin").write_bytes(b"")
    code, out, _ = _run([files / "empty.bin", files / "empty.bin", "--dtype", "float32"], capsys)
    assert code == 0 and "0 of 0" in out


def test_cli_bfloat16_npy_via_void(files, capsys):
    g = np.array([1.0, 2.0, 3.0], dtype=ml_dtypes.bfloat16)
    np.save(files / "bf.npy", g)  # stored as |V2
    code, _, err = _run([files / "bf.npy", files / "bf.npy"], capsys)
    assert code == 2 and "--dtype" in err and "V2" in err
    code, out, _ = _run([files / "bf.npy", files / "bf.npy", "--dtype", "bfloat16"], capsys)
    assert code == 0 and "bfloat16" in out
    code, _, err = _run([files / "bf.npy", files / "bf.npy", "--dtype", "float32"], capsys)
    assert code == 2 and "item sizes" in err


def test_cli_bad_options(files, capsys):
    args = [files / "golden.npy", files / "same.npy"]
    for extra in (["--rtol", "-1"], ["--atol", "nan"], ["--max-print", "-2"]):
        code, _, err = _run(args + extra, capsys)
        assert code == 2 and err, extra
    with pytest.raises(SystemExit) as e:
        cli.main([str(files / "golden.npy")])  # missing argument: argparse
    assert e.value.code == 2
    capsys.readouterr()


def test_cli_max_print(files, capsys):
    g = np.zeros(30)
    np.save(files / "z.npy", g)
    np.save(files / "o.npy", g + 1)
    code, out, _ = _run([files / "z.npy", files / "o.npy", "--max-print", "4"], capsys)
    assert code == 1 and "first 4 of 30" in out and "(4,)" not in out
    code, out, _ = _run([files / "z.npy", files / "o.npy", "--max-print", "0"], capsys)
    assert code == 1 and "first" not in out


# ------------------------------------------------------------------ entry points


def _subprocess(args, **kw):
    env = dict(os.environ)
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, **kw)


def test_python_m_entry_point(files):
    p = _subprocess([sys.executable, "-m", "pyasc.tools.compare", files / "golden.npy", files / "result.npy"])
    assert p.returncode == 1, p.stderr
    assert "FAIL" in p.stdout
    p = _subprocess([sys.executable, "-m", "pyasc.tools.compare", files / "golden.npy", files / "missing.npy"])
    assert p.returncode == 2 and "no such file" in p.stderr


def test_console_script_installed(files):
    script = Path(sys.executable).parent / "pyasc-compare"
    if not script.exists():
        pytest.skip("pyasc-compare not installed next to this interpreter")
    p = _subprocess([str(script), files / "golden.npy", files / "same.npy", "--json"])
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["passed"] is True


@pytest.mark.parametrize("dtype", ["U0", "S0", "U", "S"])
def test_cli_zero_itemsize_dtype_is_bad_input(files, capsys, dtype):
    # Issue 20.12: --dtype U0 / S0 raised ZeroDivisionError (exit 1, "mismatch") while
    # sizing the raw file; a dtype without bytes is bad input (exit 2) naming the dtype.
    np.arange(4, dtype=np.float32).tofile(files / "g.bin")
    code, _, err = _run([files / "g.bin", files / "g.bin", "--dtype", dtype], capsys)
    assert code == 2
    assert repr(dtype) in err and "item size 0" in err
    proc = subprocess.run([sys.executable, "-m", "pyasc.tools.compare", str(files / "g.bin"), str(files / "g.bin"),
                           "--dtype", dtype], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_large_npy_header_reports_the_header_limit(files, capsys):
    # Issue 20.12: a .npy whose header exceeds NumPy's 10,000-byte limit was reported as
    # "holds an object array". It is a plain structured float32 array with 800 fields.
    dt = np.dtype([(f"f{i}", "<f4") for i in range(800)])
    np.save(files / "wide.npy", np.zeros(3, dtype=dt))
    with pytest.raises(ValueError, match="max_header_size"):
        np.load(files / "wide.npy", allow_pickle=False)  # NumPy's own refusal
    code, _, err = _run([files / "wide.npy", files / "golden.npy"], capsys)
    assert code == 2
    assert "header" in err and "10000" in err and "max_header_size" in err
    assert "object array" not in err and "pickled" not in err
    # a small structured header still reads (only the size is refused)
    np.save(files / "narrow.npy", np.zeros(3, dtype=[("a", "<f4"), ("b", "<f4")]))
    code, _, err = _run([files / "narrow.npy", files / "narrow.npy"], capsys)
    assert "max_header_size" not in err
