"""Known findings of the namespace fuzzer (fuzz_harness.py): the finding classes
(``pattern_of``), matching a finding against known_findings.py, and writing that table from
long-run results (``--make-known``).
"""

from __future__ import annotations

import json
import os
import re
import sys


from fuzz_cases import BAD, parse_case
from fuzz_classify import classify


_NUMERICS = {"median", "nanmedian", "gcd", "lcm", "power", "pad", "spacing", "histogram", "histogram2d",
             "histogramdd", "histogram_bin_edges"}
_INTERNAL = r"pyasc builtins\.(AttributeError|KeyError|NameError|AssertionError|ZeroDivisionError|UnboundLocalError)"


def pattern_of(case, cat, detail):
    """(pattern id, issue item, reason) of a finding: the finding classes of the known table."""
    name = case[1]
    if cat == "hang":
        return ("hang-chunk", "issue 20 item 15 (fuzz finding)",
                "the driver's worker made no progress in this case and was killed")
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
            for text, detail in r["found"].get(cat, []):
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
