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
    hang         a worker made no progress for --hang-timeout s (default 300) and was
                 killed (found by the driver); the run goes on with the next chunk

Run ``python fuzz_harness.py --examples N [--seed S] [--chunk C] [--json F]`` (or the
env variables PYASC_FUZZ_EXAMPLES / PYASC_FUZZ_SEED through the pytest test) for the
long mode: chunk k (C cases in one worker process) draws with hypothesis seed
S*1000 + k, so runs with different S never repeat each other's chunks; --json is
rewritten after every chunk (a stopped run keeps its totals). PYASC_FUZZ_NAMES
restricts the names (e.g. PYASC_FUZZ_NAMES=names_a_l.txt).
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


def run_examples(n, seed, progress_path=None, derandomize=False, results_path=None, cases_path=None, skip=0):
    """Runs n hypothesis-drawn cases in this process, or the cases of `cases_path`
    (CI: a fixed list, since hypothesis' draws after the first few cases depend on
    more than the seed) from its `skip`-th distinct case on; returns {category: [(case, detail)]}.

    The progress file gets "#START" once the imports are done, then per case its repr
    before the case runs and "#R<TAB>[category, detail]" (JSON) after it: the driver
    reads the finished cases of a child that died or hung from it, and the case it died in."""
    found = {c: [] for c in CATEGORIES}
    counts = {c: 0 for c in CATEGORIES}
    prog = open(progress_path, "w", buffering=1) if progress_path else None
    seen = set()
    # self-tests of the driver (test_fuzz_namespace): abort / hang at the k-th case (1-based, over the
    # whole case list when it is resumed with `skip`)
    abort_at = int(os.environ.get("PYASC_FUZZ_ABORT_AT", "0"))
    hang_at = int(os.environ.get("PYASC_FUZZ_HANG_AT", "0"))
    if prog:
        prog.write("#START\n")

    def one(case, key):
        if prog:
            prog.write(key + "\n")
        if skip + len(seen) == abort_at:
            os.abort()
        if skip + len(seen) == hang_at:
            time.sleep(3600)
        cat, detail = classify(case)
        counts[cat] += 1
        if cat not in ("ok", "both_raise"):
            found[cat].append((case, detail))
        if prog:
            prog.write("#R\t" + json.dumps([cat, detail if cat not in ("ok", "both_raise") else ""]) + "\n")

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
        for j, key in enumerate(dict.fromkeys(read_cases(cases_path))):
            if j >= skip:
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


# Chunk k of a run with --seed S draws with hypothesis seed S * CHUNK_SEED_STRIDE + k: two runs with
# different S never share a chunk seed (with seeds S, S+1, ... per chunk, runs started with nearby
# seeds repeated each other's cases) as long as a run has fewer than CHUNK_SEED_STRIDE chunks.
CHUNK_SEED_STRIDE = 1000
# A worker whose progress file has not grown for this long is hung (no case legitimately takes it:
# the huge-view cases run in children limited to 1.5 s + a 15 s retry per mode); it is killed, the
# case it was in is a "hang" finding, and the run goes on with the next chunk.
HANG_TIMEOUT = 300.0
# Before its first line a worker imports pyasc/hypothesis: on a loaded machine that alone can take a minute.
STARTUP_TIMEOUT = 180.0


def limit_worker_memory():
    """Caps a worker's address space (PYASC_FUZZ_WORKER_GB, default half the machine's memory): a
    legitimate but huge result -- bincount([2**31 - 1]) is 16 GiB for NumPy and again for pyasc --
    then fails as MemoryError in the case instead of the kernel's OOM killer ending the whole chunk
    (fuzz seed 10401: a 24 GiB machine, the worker killed with signal 9)."""
    import resource

    gb = float(os.environ.get("PYASC_FUZZ_WORKER_GB", "0") or 0)
    if gb <= 0:
        try:
            with open("/proc/meminfo") as f:
                total_kb = next(int(ln.split()[1]) for ln in f if ln.startswith("MemTotal:"))
            gb = total_kb / 2 ** 20 / 2
        except (OSError, StopIteration, ValueError):
            return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = int(gb * 2 ** 30)
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))


def chunk_seed(seed, k):
    """The hypothesis seed of chunk k (0-based) of a run started with --seed `seed`."""
    if not 0 <= k < CHUNK_SEED_STRIDE:
        raise ValueError(f"chunk {k}: a run has at most {CHUNK_SEED_STRIDE} chunks (use a larger --chunk)")
    return seed * CHUNK_SEED_STRIDE + k


def _read_progress(path):
    """[(case repr, category or None, detail)] of a worker's progress file, None: still running."""
    rows, started = [], False
    if not os.path.exists(path):
        return rows, started
    with open(path) as f:
        for ln in f.read().splitlines():
            if ln == "#START":
                started = True
            elif ln.startswith("#R\t") and rows and rows[-1][1] is None:
                try:
                    cat, detail = json.loads(ln[3:])
                except ValueError:  # (a line cut by the kill)
                    continue
                rows[-1] = (rows[-1][0], cat, detail)
            elif ln and not ln.startswith("#"):
                rows.append((ln, None, ""))
    return rows, started


def _run_worker(cmd, prog, timeout, hang_timeout):
    """Runs a worker in its own process group; kills the group when the progress file stops
    growing for `hang_timeout` s (or the whole chunk exceeds `timeout`). (rc, stderr tail, hang
    reason or None)."""
    import signal
    import tempfile

    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        t0 = last_change = time.monotonic()
        size, hang = -1, None
        while p.poll() is None:
            time.sleep(0.2)
            now = time.monotonic()
            cur = os.path.getsize(prog) if os.path.exists(prog) else -1
            if cur != size:
                size, last_change = cur, now
            limit = hang_timeout if size > 0 else max(hang_timeout, STARTUP_TIMEOUT)
            if now - last_change > limit:
                hang = f"no progress for {limit:.0f} s"
            elif timeout is not None and now - t0 > timeout:
                hang = f"chunk exceeded {timeout} s"
            if hang:
                os.killpg(p.pid, signal.SIGKILL)  # (the worker and its fork()ed case children)
                p.wait()
                break
        err.seek(0)
        return p.returncode, err.read()[-2000:], hang


def drive(n, seed, derandomize=False, timeout=None, chunk=None, cases_path=None, hang_timeout=None,
          json_path=None):
    """Runs the cases in child processes, `chunk` cases each (chunk k draws with chunk_seed(seed, k)).
    A child that dies is a crash, one that stops making progress for `hang_timeout` s (or exceeds
    `timeout` s) is killed and is a hang, each at the case it was running; the cases it finished
    still count, and the driver goes on with a fresh child (the next chunk; with `cases_path`, the
    rest of the list). With `json_path` the totals are written after every chunk, so a run that is
    stopped early still leaves its results."""
    import tempfile

    hang_timeout = HANG_TIMEOUT if hang_timeout is None else hang_timeout
    total = {c: 0 for c in CATEGORIES}
    found = {c: [] for c in CATEGORIES}
    chunks = []
    if cases_path:
        n = len(dict.fromkeys(read_cases(cases_path)))
        derandomize = True
    chunk = chunk or n
    left, k, restarts, skip = n, 0, 0, 0
    while left > 0 and restarts < 50:
        size = left if cases_path else min(left, chunk)
        s = seed if cases_path else chunk_seed(seed, k)
        with tempfile.TemporaryDirectory() as d:
            prog, res = os.path.join(d, "progress"), os.path.join(d, "result.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--examples", str(size), "--seed", str(s),
                   "--progress", prog, "--results", res] + (["--derandomize"] if derandomize else []) + \
                (["--cases", cases_path, "--skip", str(skip)] if cases_path else [])
            rc, err, hang = _run_worker(cmd, prog, timeout, hang_timeout)
            rows, started = _read_progress(prog)
            if rc == 0 and hang is None and os.path.exists(res):
                r = json.load(open(res))
                for c in CATEGORIES:
                    total[c] += r["counts"][c]
                    found[c].extend(r["found"][c])
                left -= size
                chunks.append({"seed": s, "tried": sum(r["counts"].values()), "status": "ok"})
            else:
                done = [row for row in rows if row[1] is not None]
                for key, cat, detail in done:  # the finished cases of the chunk count
                    total[cat] += 1
                    if cat not in ("ok", "both_raise"):
                        found[cat].append((key, detail))
                last = rows[-1][0] if rows and rows[-1][1] is None else \
                    "<before the first case>" if not rows else "<after the last case>"
                cat = "hang" if hang else "crash"
                msg = hang if hang else f"child exit {rc}: {err.strip().splitlines()[-1] if err.strip() else ''}"
                total[cat] += 1
                found[cat].append((last, f"chunk seed {s}: {msg}"))
                consumed = len(done) + 1
                left -= consumed
                skip += consumed
                restarts += 1
                chunks.append({"seed": s, "tried": consumed, "status": cat})
        k += 1
        if json_path:
            with open(json_path, "w") as f:
                json.dump({"counts": total, "found": found, "chunks": chunks, "finished": left <= 0}, f)
    return {"counts": total, "found": found, "chunks": chunks}


def summary(result, show=True, limit=None):
    counts = result["counts"]
    tried = sum(counts.values())
    lines = [f"tried {tried} | both-ok-equal {counts['ok']} | both-raise {counts['both_raise']} | "
             f"clear errors {counts['clear_error']} | silent accepts {counts['silent_accept']} | "
             f"unclear errors {counts['unclear_error']} | wrong results {counts['wrong_result']} | "
             f"crashes {counts['crash']} | hangs {counts.get('hang', 0)}"]
    if show:
        for c in ("hang", "crash", "wrong_result", "silent_accept", "unclear_error", "clear_error"):
            items = result["found"].get(c, [])
            for case, detail in items[:limit]:
                cs = case if isinstance(case, str) else repr(case)
                try:
                    known = known_match(parse_case(cs), c, detail)
                except (ValueError, SyntaxError, NameError, TypeError):
                    known = None
                tag = f" [known: {known['pattern']}]" if known else ""
                lines.append(f"{c}{tag}: {detail}\n    repro: python {os.path.abspath(__file__)} --case \"{cs}\"")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=int(os.environ.get("PYASC_FUZZ_EXAMPLES", "1000")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("PYASC_FUZZ_SEED", "0")),
                    help=f"run seed S: chunk k draws with hypothesis seed S*{CHUNK_SEED_STRIDE}+k")
    ap.add_argument("--derandomize", action="store_true")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--progress")
    ap.add_argument("--results")
    ap.add_argument("--skip", type=int, default=0, help="(worker) start at this case of --cases")
    ap.add_argument("--case")
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--hang-timeout", type=float, default=HANG_TIMEOUT,
                    help="kill a chunk whose worker makes no progress for this many seconds (a hang finding)")
    ap.add_argument("--json", help="write the results here (after every chunk: a stopped run keeps its totals)")
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
        limit_worker_memory()
        run_examples(a.examples, a.seed, a.progress, a.derandomize, a.results, a.cases, a.skip)
        return 0
    t = time.time()
    r = drive(a.examples, a.seed, a.derandomize, chunk=a.chunk, cases_path=a.cases, hang_timeout=a.hang_timeout,
              json_path=a.json)
    print(summary(r, limit=a.limit))
    print(f"({time.time() - t:.0f} s)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(r, finished=True), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
