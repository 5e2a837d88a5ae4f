"""pyasc-info: version, build options, devices, memory and environment (like ``npu-smi info``).

Usage::

    pyasc-info            # tables
    pyasc-info --json     # one JSON object (asc.utils.collect_info())
    pyasc-info --cann-home   # the folder of set_env.sh (CANN's ${install_path}/cann)
    source "$(pyasc-info --cann-home)/set_env.sh"
    python -m pyasc.tools.info

The data come from :func:`pyasc.utils.collect_info`.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main", "format_info", "cann_home"]


def cann_home():
    """The installed package's counterpart of CANN's ``${install_path}/cann``:
    the folder with ``set_env.sh``, ``bin/asc-cc`` (the ASC language's
    compiler driver) and ``lib/cmake/ASC`` (``find_package(ASC)``).
    Raises ``FileNotFoundError`` naming the folder when the package was
    installed without it (an in-tree checkout, not ``pip install``)."""
    import os

    home = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cann")
    if not os.path.isfile(os.path.join(home, "set_env.sh")):
        raise FileNotFoundError(f"pyasc-info --cann-home: {home}/set_env.sh is missing "
                                "(install the package: pip install . or scripts/dev_install.sh)")
    return home


def _bytes(n):
    """'192 KiB', '1.50 GiB', '0 B' (binary units)."""
    n = int(n)
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if n % size == 0 else f"{v:.2f} {unit}"
    return f"{n} B"


def _widths(title, header, rows, inner=0):
    """Column widths of a table, the last column widened to fill ``inner`` (or the title)."""
    cols = len(header)
    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(cols)]
    need = max(inner, len(title))
    have = sum(widths) + 3 * (cols - 1)
    if need > have:
        widths[-1] += need - have
    return widths


def _table(title, header, rows, inner=0):
    """An npu-smi style box: a title line, a header row, then rows."""
    widths = _widths(title, header, rows, inner)
    inner = sum(widths) + 3 * (len(widths) - 1)
    sep = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    strong = "+" + "+".join("=" * (w + 2) for w in widths) + "+"
    out = ["+" + "-" * (inner + 2) + "+", f"| {title.ljust(inner)} |", sep]
    out.append("| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |")
    out.append(strong)
    for r in rows:
        out.append("| " + " | ".join(str(v).ljust(w) for v, w in zip(r, widths)) + " |")
    out.append(sep)
    return out


def _tables(tables):
    """Renders (title, header, rows) tables with one common width, like npu-smi."""
    inner = 0
    for title, header, rows in tables:
        widths = _widths(title, header, rows)
        inner = max(inner, sum(widths) + 3 * (len(widths) - 1))
    lines = []
    for title, header, rows in tables:
        lines += _table(title, header, rows, inner)[(1 if lines else 0):]
    return lines


def format_info(info):
    """The human report of ``pyasc-info`` for an :func:`~pyasc.utils.collect_info` dict."""
    from ..utils.info import ENVIRONMENT_VARIABLES

    tables = []
    b = info["build"]
    title = (f"pyasc-info    pyasc {info['version']}    Python {info['python']}    "
             f"NumPy {info['numpy']}    ml_dtypes {info['ml_dtypes']}")
    override = b.get("simd_target_override")
    compiled = b.get("simd_targets_compiled") or []
    selected = b.get("simd_target") or "unknown"
    if not override:
        selected += " (best this CPU supports)"
    elif override.strip().upper() in {"AVX3", "AVX2", "SSE4", "SCALAR", "EMU128"}:
        selected += f" (capped by ASC_SIMD_TARGET={override})"
    else:
        selected += f" (ASC_SIMD_TARGET={override!r} ignored: not AVX3, AVX2, SSE4 or SCALAR)"
    rows = [
        ["SIMD targets compiled", " ".join(compiled) or "unknown"],
        ["SIMD target selected", selected],
        ["BLAS", f"{b.get('blas', '')} ({b['blas_num_threads']} threads)" if b.get("blas_num_threads")
         else b.get("blas", "")],
        ["Compiler", b.get("compiler", "")],
        ["Platform", info["platform"]],
        ["CPU", f"{info['cpu']} ({info['hardware_threads']} hardware threads)"],
        ["Log level", info["log_level"]],
    ]
    tables.append((title, ["Build", "Value"], rows))

    rows = []
    for d in info["devices"]:
        rows.append([d["device_id"], d["name"], d["num_cores"], _bytes(d["ub_size"]), _bytes(d["l1_size"]),
                     _bytes(d["l0a_size"]), _bytes(d["l0b_size"]), _bytes(d["l0c_size"])])
    tables.append(("Devices (buffer sizes per AI core)",
                   ["Device", "Name", "AI cores", "UB", "L1", "L0A", "L0B", "L0C"], rows))

    rows = []
    for d in info["devices"]:
        m = d["memory"]
        limit = _bytes(d["memory_limit"]) + ("" if m.get("limit_bytes") else " (= total)")
        rows.append([d["device_id"], _bytes(d["total_memory"]), limit,
                     f"{_bytes(m['allocated_bytes'])} / {_bytes(m['peak_allocated_bytes'])}",
                     f"{_bytes(m['reserved_bytes'])} / {_bytes(m['peak_reserved_bytes'])}",
                     m["active_blocks"], m["allocation_count"], m["oom_count"]])
    tables.append(("Memory pool (sizes now / peak)",
                   ["Device", "Total", "Limit", "Allocated", "Reserved", "Blocks", "Allocations", "OOMs"], rows))

    rows = []
    for name, value in info["environment"].items():
        shown = "(unset)" if value is None else (repr(value) if value == "" or value != value.strip() else value)
        rows.append([name, shown, ENVIRONMENT_VARIABLES.get(name, "")])
    tables.append(("Environment (as this process sees it)", ["Variable", "Value", "Meaning"], rows))
    return "\n".join(_tables(tables))


def main(argv=None):
    """Runs ``pyasc-info`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    p = argparse.ArgumentParser(prog="pyasc-info",
                                description="pyasc version, build options, devices, memory and environment.")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument("--cann-home", action="store_true",
                   help="print the folder holding set_env.sh (CANN's ${install_path}/cann) and exit")
    args = p.parse_args(argv)
    if args.cann_home:
        try:
            print(cann_home())
        except FileNotFoundError as e:
            print(e, file=sys.stderr)
            return 1
        return 0
    from ..utils.info import collect_info

    info = collect_info()
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(format_info(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
