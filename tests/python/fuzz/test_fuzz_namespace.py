"""Differential fuzzing of the public namespace against NumPy (tests/python/fuzz/fuzz_harness.py).

CI mode: the fixed case list ci_cases.txt (800 derandomized hypothesis draws
written by `fuzz_harness.py --write-cases`; a fixed list because hypothesis'
draws after the first few cases depend on more than the seed) in a child
process (a crash there is reported with the case it was running instead of
killing pytest). The test fails on any crash, wrong result, silent accept or
unclear error that is not in fuzz_harness.KNOWN; every KNOWN entry's
reproducer is rerun and must still show its category, so an entry whose bug
was fixed fails until it is removed.

Long mode: PYASC_FUZZ_EXAMPLES=<n> [PYASC_FUZZ_SEED=<s>] runs n random cases
(in child processes, restarted after a crash) and prints the summary table and
every non-OK case with a reproducer line; it fails on unknown findings too.
"""

import json
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import fuzz_harness as fh  # noqa: E402

CI_EXAMPLES = 800
CI_SEED = 0
CI_CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ci_cases.txt")


def _unknown(result):
    out = []
    for cat in fh.BAD:
        for case, detail in result["found"][cat]:
            try:
                c = fh.parse_case(case)
            except (ValueError, SyntaxError, NameError):
                c = None
            if c is None or fh.known_match(c, cat, detail) is None:
                out.append(f"{cat}: {detail}\n    repro: python {fh.__file__} --case \"{case}\"")
    return out


def test_fuzz_namespace_ci():
    examples = int(os.environ.get("PYASC_FUZZ_EXAMPLES", "0"))
    if examples:
        seed = int(os.environ.get("PYASC_FUZZ_SEED", "0"))
        result = fh.drive(examples, seed, derandomize=False, chunk=2000)
    else:
        # (a case that makes no progress for 120 s is a hang finding; no limit on the whole list,
        # whose time depends on the machine's load)
        result = fh.drive(0, CI_SEED, hang_timeout=120, cases_path=CI_CASES)
    print(fh.summary(result))
    tried = sum(result["counts"].values())
    expected = examples // 2 if examples else len(fh.read_cases(CI_CASES))
    assert tried >= expected, f"only {tried} cases ran"
    assert result["counts"]["ok"] > tried // 5, "too few comparable cases: the generator is broken"
    unknown = _unknown(result)
    assert not unknown, f"{len(unknown)} new findings (fix them or add them to fuzz_harness.KNOWN):\n" + \
        "\n".join(unknown[:40])


def test_known_findings_still_reproduce():
    """Every known finding is asserted: its case must still classify as its
    category and pattern; a fixed one fails here until its entry is removed."""
    # (an empty table is the goal: every finding fixed; the file itself must be there)
    assert os.path.exists(os.path.join(os.path.dirname(os.path.abspath(fh.__file__)), "known_findings.py")), \
        "known_findings.py is missing"
    known = fh._load_known()
    stale = []
    for e in known:
        modes = ("lazy",) if e["pattern"] == "hang-huge" else ("lazy", "eager")
        cat, detail = fh.classify(e["case"], modes=modes)
        if cat != e["category"] or fh.pattern_of(e["case"], cat, detail)[0] != e["pattern"]:
            stale.append(f"{e['kind']} {e['name']} ({e['category']}/{e['pattern']}, {e['issue']}) now: {cat} "
                         f"{detail[:120]}\n    case={e['case']!r}")
    assert not stale, f"{len(stale)} known findings changed (fixed? then remove their entries from " \
        "tests/python/fuzz/known_findings.py):\n" + "\n".join(stale)


def test_classifier_detects_each_category(monkeypatch):
    """The classifier itself: a wrong value, a silent accept, an unclear error
    and a clear error are each recognised (pyasc patched for one call)."""
    import numpy as np

    import pyasc as asc

    case = ("fn", "negative", (("arr", "float32", (3,), "c", 1, "rand"),), ())
    assert fh.classify(case)[0] == "ok"
    monkeypatch.setattr(asc, "negative", lambda x: asc.asarray(np.asarray(x) + 1))
    assert fh.classify(case)[0] == "wrong_result"
    monkeypatch.setattr(asc, "negative", lambda x: (_ for _ in ()).throw(RuntimeError("Unable to cast")))
    assert fh.classify(case)[0] == "unclear_error"
    monkeypatch.setattr(asc, "negative", lambda x: (_ for _ in ()).throw(asc.AscendNotImplementedError(200006, "x")))
    assert fh.classify(case)[0] == "clear_error"
    bad = ("fn", "negative", (("py", "abc"),), ())
    monkeypatch.setattr(asc, "negative", lambda x: asc.asarray(np.zeros(1)))
    assert fh.classify(bad)[0] == "silent_accept"
    monkeypatch.undo()
    # NaN positions, -0 vs +0 and the ULP bound of a transcendental function
    e = np.array([np.nan, 1.0, 0.0], np.float32)
    assert fh._compare_arrays(e, e.copy(), case) is None
    assert fh._compare_arrays(e, np.array([1.0, 1.0, 0.0], np.float32), case) == "NaN positions differ"
    assert "exact" in fh._compare_arrays(e, np.array([np.nan, 1.0, -0.0], np.float32), case)
    sin = ("fn", "sin", case[2], ())
    one_ulp = np.array([np.nan, np.nextafter(np.float32(1), np.float32(2)), 0.0], np.float32)
    assert fh._compare_arrays(e, one_ulp, sin) is None
    far = np.array([np.nan, 1.001, 0.0], np.float32)
    assert "ulp" in fh._compare_arrays(e, far, sin)


def _light_cases(tmp_path, n=8):
    """A case file of n cheap distinct cases (negative of small float32 arrays)."""
    cases = [repr(("fn", "negative", (("arr", "float32", (3,), "c", i, "rand"),), ())) for i in range(n)]
    path = tmp_path / "cases.txt"
    path.write_text("# light cases\n" + "".join(c + "\n" for c in cases))
    return str(path), cases


def test_driver_reports_a_crash_with_its_case(monkeypatch, tmp_path):
    """A child that dies (SIGABRT at the 3rd case) is a crash with that case as the reproducer; the
    cases before it count and the driver runs the rest of the list in a fresh child."""
    path, cases = _light_cases(tmp_path)
    monkeypatch.setenv("PYASC_FUZZ_ABORT_AT", "3")
    result = fh.drive(0, CI_SEED, cases_path=path, hang_timeout=120)
    assert result["counts"]["crash"] == 1
    (case, detail), = result["found"]["crash"]
    assert "exit -6" in detail, detail
    assert case == cases[2]
    assert result["counts"]["ok"] == len(cases) - 1, result["counts"]
    assert [c["status"] for c in result["chunks"]] == ["crash", "ok"]


def test_driver_kills_a_hung_chunk_and_goes_on(monkeypatch, tmp_path):
    """A worker that stops making progress (it sleeps in its 4th case) is killed after the hang
    timeout and reported as a hang with that case; the run goes on with the remaining cases."""
    path, cases = _light_cases(tmp_path)
    monkeypatch.setenv("PYASC_FUZZ_HANG_AT", "4")
    t = time.monotonic()
    result = fh.drive(0, CI_SEED, cases_path=path, hang_timeout=4)
    assert time.monotonic() - t < 300
    assert result["counts"]["hang"] == 1, result["counts"]
    assert result["counts"]["crash"] == 0, result["found"]["crash"]
    (case, detail), = result["found"]["hang"]
    assert case == cases[3] and "no progress for 4 s" in detail, (case, detail)
    assert result["counts"]["ok"] == len(cases) - 1, result["counts"]
    assert fh.pattern_of(fh.parse_case(case), "hang", detail)[0] == "hang-chunk"
    assert "hangs 1" in fh.summary(result)


def test_drawn_run_chunk_seeds_do_not_overlap(monkeypatch, tmp_path):
    """Chunk k of a run with seed S draws with seed S*1000+k: runs with nearby seeds share no chunk
    seed (they used S, S+1, ... and repeated each other's cases); the partial JSON is written."""
    assert fh.chunk_seed(5, 0) == 5000 and fh.chunk_seed(5, 999) == 5999 and fh.chunk_seed(6, 0) == 6000
    runs = [{fh.chunk_seed(s, k) for k in range(fh.CHUNK_SEED_STRIDE)} for s in (7, 8, 9)]
    assert not (runs[0] & runs[1]) and not (runs[1] & runs[2])
    with pytest.raises(ValueError, match="at most 1000 chunks"):
        fh.chunk_seed(7, 1000)
    monkeypatch.setenv("PYASC_FUZZ_NAMES", "fn:negative")
    out = tmp_path / "r.json"
    result = fh.drive(4, 12, chunk=2, hang_timeout=120, json_path=str(out))
    assert [c["seed"] for c in result["chunks"]] == [12000, 12001]
    assert sum(result["counts"].values()) >= 2 and not any(result["counts"][c] for c in fh.BAD), result
    assert json.loads(out.read_text())["counts"] == result["counts"]


def test_worker_memory_cap_turns_a_huge_result_into_memory_errors(monkeypatch, tmp_path):
    """bincount([2**31 - 1]) needs 16 GiB in NumPy and again in pyasc: under the worker's address-space
    cap both fail with MemoryError (both_raise) instead of the OOM killer ending the chunk."""
    case = repr(("fn", "bincount", (("py", [2 ** 31 - 1]),), ()))
    path = tmp_path / "cases.txt"
    path.write_text(case + "\n")
    monkeypatch.setenv("PYASC_FUZZ_WORKER_GB", "4")
    result = fh.drive(0, CI_SEED, cases_path=str(path), hang_timeout=120)
    assert result["counts"]["both_raise"] == 1, result


def test_numpy_loops_run_in_the_time_limited_child():
    # NumPy never returns for some inputs (its Python/C loops over an order or a wrap-mode index):
    # those cases, and only those, run in the child with the time limit
    import fuzz_cases as fc  # noqa: PLC0415

    edge = ("arr", "int64", (), "c", 42236, "edge")
    choices = ("list", (("arr", "int16", (), "c", 1107, "edge"), ("arr", "int16", (), "c", 22, "special")))
    wrap = ("fn", "choose", (edge, choices), (("mode", ("py", "wrap")),))
    assert fc._huge(wrap)
    assert not fc._huge(("fn", "choose", (edge, choices), (("mode", ("py", "clip")),)))
    assert not fc._huge(("fn", "choose", (edge, choices), ()))
    assert fc._huge(("fn", "diff", (("arr", "float64", (3,), "c", 1, "rand"),), (("n", ("py", 2 ** 63 - 1)),)))
    assert not fc._huge(("fn", "diff", (("arr", "float64", (3,), "c", 1, "rand"),), (("n", ("py", 2)),)))


def test_polydiv_remainder_is_judged_at_the_dividends_scale():
    # the remainder's rounding is ulps of |u| (no flag), a remainder off by far more still is flagged,
    # and the quotient keeps its own scale
    import numpy as np  # noqa: PLC0415

    import fuzz_compare as fcmp  # noqa: PLC0415

    case = ("fn", "polydiv", (("arr", "complex64", (3,), "c", 5, "rand"), ("arr", "complex64", (2,), "c", 7, "rand")),
            ())
    u = np.asarray(fh.build(case[2][0], np))
    q, r = np.polydiv(u, np.asarray(fh.build(case[2][1], np)))
    scale = float(np.max(np.abs(u)))

    def value(qq, rr):
        return ("tuple", [("array", qq.astype(q.dtype)), ("array", rr.astype(r.dtype))])

    ulp = np.float32(np.spacing(np.float32(scale)))
    assert fcmp._compare(value(q, r), value(q, r + 2 * ulp), case) is None
    assert fcmp._compare(value(q, r), value(q, r + 0.01 * scale), case) is not None
    assert fcmp._compare(value(q, r), value(q * (1 + 1e-3), r), case) is not None
