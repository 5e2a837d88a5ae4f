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

Modules (this file is the driver and CLI; it re-exports the others' names, so
``fuzz_harness.<name>`` reaches every helper as before the split):

    fuzz_cases.py     catalog of names, argument specs, ``build``, hypothesis strategies
    fuzz_compare.py   calling a case (in-process / time-limited child), comparing values
    fuzz_classify.py  ``classify`` and the rules for NumPy answers that are no reference
    fuzz_known.py     finding classes (``pattern_of``), known_findings.py matching/writing
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz_cases  # noqa: E402
import fuzz_classify  # noqa: E402
import fuzz_compare  # noqa: E402
import fuzz_known  # noqa: E402

# The tests (tests/python/array/test_reliability_*.py, test_fuzz_namespace.py) use the helpers as
# fuzz_harness.<name>, private ones included: every module-level name of the parts is re-exported.
for _m in (fuzz_cases, fuzz_compare, fuzz_classify, fuzz_known):
    globals().update({k: v for k, v in vars(_m).items() if not k.startswith("__")})
del _m

from fuzz_cases import CATEGORIES, _strategies, parse_case  # noqa: E402,F401  (the names the driver uses)
from fuzz_classify import classify  # noqa: E402,F401
from fuzz_known import known_match, make_known  # noqa: E402,F401

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
