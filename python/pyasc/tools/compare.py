"""pyasc-compare: precision comparison of a result file against a golden file.

Usage::

    pyasc-compare golden.npy result.npy --rtol 1e-4 --atol 1e-6
    pyasc-compare golden.bin result.bin --dtype float16 --shape 32,128
    pyasc-compare golden.npz:out result.npz:out --json
    python -m pyasc.tools.compare ...

Files: ``.npy``; ``.npz`` with the array's key after a colon
(``file.npz:key``); anything else is raw binary and needs ``--dtype``
(``--shape`` optional, 1-D otherwise). Nothing is ever unpickled.

Exit status: 0 all elements agree, 1 mismatch, 2 bad input (missing or
unreadable file, different shapes, missing key, pickled data, bad options).

The criterion and every reported number are defined in
:mod:`pyasc.utils.precision` (``asc.utils.compare`` is the Python API).
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main", "build_parser"]

EXIT_PASS = 0
EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2

_EPILOG = """\
criterion: |result - golden| <= atol + rtol * |golden| (like numpy.isclose, golden
is the reference). NaN == NaN at the same position agrees; NaN vs anything else,
+Inf vs -Inf and Inf vs a number are mismatches. Floats (float16, bfloat16, ...)
are compared in float64; integers and bools exactly. Different dtypes give a
warning and are compared in float64. Statistics cover the positions where both
values are finite; relative error leaves out positions where golden == 0.

files: x.npy | x.npz:KEY | raw binary (any other name) with --dtype [--shape].
--dtype/--shape describe raw files; for .npy/.npz, --dtype only reinterprets raw
void data (np.save writes bfloat16/float8 arrays as |V2/|V1).

exit status: 0 pass, 1 mismatch, 2 bad input.
"""


def build_parser():
    """The argument parser of ``pyasc-compare``."""
    from ..utils.precision import DEFAULT_ATOL, DEFAULT_MAX_PRINT, DEFAULT_RTOL

    p = argparse.ArgumentParser(
        prog="pyasc-compare",
        description="Compare a result array with a golden array element by element.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("golden", help="golden (reference) file: .npy, .npz:KEY or raw binary")
    p.add_argument("result", help="result file to check: .npy, .npz:KEY or raw binary")
    p.add_argument("--rtol", type=float, default=DEFAULT_RTOL, help=f"relative tolerance (default {DEFAULT_RTOL:g})")
    p.add_argument("--atol", type=float, default=DEFAULT_ATOL, help=f"absolute tolerance (default {DEFAULT_ATOL:g})")
    p.add_argument("--dtype", help="dtype of raw files (float32, float16, bfloat16, int8, <f4, ...)")
    p.add_argument("--shape", help="shape of raw files, e.g. 4,5 or 4x5 (default: 1-D)")
    p.add_argument("--golden-dtype", help="dtype of the golden file only (overrides --dtype)")
    p.add_argument("--result-dtype", help="dtype of the result file only (overrides --dtype)")
    p.add_argument("--golden-shape", help="shape of the golden file only (overrides --shape)")
    p.add_argument("--result-shape", help="shape of the result file only (overrides --shape)")
    p.add_argument("--max-print", type=int, default=DEFAULT_MAX_PRINT, metavar="N",
                   help=f"list the first N mismatching elements (default {DEFAULT_MAX_PRINT}; 0: none)")
    p.add_argument("--json", action="store_true", help="print one JSON object (all fields and 'passed') instead")
    return p


def _fail(message, as_json):
    print(f"pyasc-compare: error: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"passed": False, "exit_code": EXIT_BAD_INPUT, "error": message}))
    return EXIT_BAD_INPUT


def main(argv=None):
    """Runs ``pyasc-compare`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args = build_parser().parse_args(argv)
    from ..utils.precision import CompareInputError, compare, load_array

    if args.max_print < 0:
        return _fail(f"--max-print must be >= 0, got {args.max_print}", args.json)
    try:
        golden = load_array(args.golden, dtype=args.golden_dtype or args.dtype,
                            shape=args.golden_shape or args.shape)
        result = load_array(args.result, dtype=args.result_dtype or args.dtype,
                            shape=args.result_shape or args.shape)
        report = compare(golden, result, rtol=args.rtol, atol=args.atol, max_print=args.max_print)
    except CompareInputError as e:
        return _fail(str(e), args.json)
    except MemoryError:
        return _fail("out of memory reading or comparing the arrays", args.json)

    code = EXIT_PASS if report.passed else EXIT_MISMATCH
    if args.json:
        d = report.to_dict()
        d["golden_file"] = args.golden
        d["result_file"] = args.result
        d["exit_code"] = code
        from ..utils.precision import _json_safe

        print(json.dumps(_json_safe(d), allow_nan=False))
    else:
        print(f"golden: {args.golden}")
        print(f"result: {args.result}")
        print(report)
    return code


if __name__ == "__main__":
    sys.exit(main())
