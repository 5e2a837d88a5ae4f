#!/usr/bin/env python3
"""Builds and runs CANN's official asc-devkit samples the way their READMEs do.

Usage::

    scripts/official_samples.py MIRROR_DIR [--filter SUBSTR ...] [--jobs N]
                                [--timeout S] [--keep] [--arch dav-2201]
    make official-samples MIRROR=/path/to/asc-devkit   # not part of CI

MIRROR_DIR is a checkout of ``mirror-cann/asc-devkit`` or a bare git
directory of it (the fetch tool's snapshot); nothing of it is copied into
this repository. A sample is a folder under ``examples/01_simd_cpp_api`` or
``examples/02_simd_c_api`` with a ``CMakeLists.txt`` and a ``README.md``
(a sample nested in another sample's folder belongs to that one). Each is
copied into a temporary folder and run as its README says, in the CPU run
mode its README gives:

    source "$(pyasc-info --cann-home)/set_env.sh"
    <the README's run block: mkdir -p build && cd build; the README's
     cmake line with -DCMAKE_ASC_RUN_MODE=cpu; make -j;
     python3 ../scripts/gen_data.py ...; ./demo; python3 ../scripts/verify_result.py ...>

once per SCENARIO_NUM value the README's option table lists. A sample
passes when every command exits 0. One line per failure (sample, scenario,
failing step, first error line), then the counts per folder. Samples listed
in OUT_OF_SCOPE (they need an Ascend NPU with CANN's own tools, a framework
with its NPU adapter, or an architecture pyasc does not model) are reported
as SKIP with the reason and counted apart. A README that only documents the
npu run mode has its -DCMAKE_ASC_RUN_MODE=npu replaced by cpu. Exit status:
0 when everything that is in scope passed, 1 otherwise, 2 for a usage error.

``--filter`` keeps the samples whose path contains one of the substrings;
``--jobs`` runs that many samples at once (default 1: the machine is shared);
``--json FILE`` writes every result.

``--census`` is a quick triage, not the acceptance run: it only compiles
(``asc-cc -fsyntax-only``) every ``.asc`` of each sample with the folders of
the sample as include paths, ``ASCENDC_CPU_DEBUG``, the first SCENARIO_NUM
and the architecture of the README/CMakeLists, and prints the first error
(about a tenth of a full run's CPU time: no configure, no -O2, no link).
``--scan`` builds nothing: it lists each sample's first missing API found by
the regexes of SCAN_CAUSES (a static triage over all samples in seconds).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOTS = ("examples/01_simd_cpp_api", "examples/02_simd_c_api")
ERROR_RE = re.compile(r"(error|Error|ERROR|FAIL|fail|Abort|Segmentation|No such file|not found|"
                      r"undefined reference|Traceback)")


NICE = 10  # --nice: the niceness of the sample builds (the machine is shared)
DEADLINE = None  # --deadline: epoch seconds after which no further scenario starts
SCENARIOS = None  # --scenarios: the SCENARIO_NUM values to run (None: all the README lists)


class UsageError(Exception):
    pass


# ------------------------------------------------------------ the snapshot
def _is_bare(mirror):
    return os.path.isfile(os.path.join(mirror, "HEAD")) and os.path.isdir(os.path.join(mirror, "objects"))


def list_files(mirror):
    """Paths (relative, '/'-separated) of the files under ROOTS."""
    if _is_bare(mirror) or os.path.isdir(os.path.join(mirror, ".git")):
        out = subprocess.run(["git", "-C", mirror, "ls-tree", "-r", "--name-only", "HEAD", *ROOTS],
                             capture_output=True, text=True, check=True).stdout
        return out.split("\n")[:-1]
    files = []
    for root in ROOTS:
        for d, _, names in os.walk(os.path.join(mirror, root)):
            files += [os.path.relpath(os.path.join(d, n), mirror).replace(os.sep, "/") for n in names]
    return files


def export_sample(mirror, sample, files, dest):
    """Copies the files of ``sample`` into ``dest``."""
    prefix = sample + "/"
    mine = [f for f in files if f.startswith(prefix)]
    if _is_bare(mirror) or os.path.isdir(os.path.join(mirror, ".git")):
        git = subprocess.Popen(["git", "-C", mirror, "archive", "HEAD", sample], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", dest, f"--strip-components={sample.count('/') + 1}"],
                       stdin=git.stdout, check=True)
        git.stdout.close()
        if git.wait() != 0:
            raise RuntimeError(f"git archive of {sample} failed")
    else:
        for f in mine:
            out = os.path.join(dest, f[len(prefix):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            shutil.copy2(os.path.join(mirror, f), out)


def find_samples(files):
    have = set(files)
    dirs = sorted({f.rsplit("/", 1)[0] for f in files if f.endswith("/CMakeLists.txt")})
    samples = [d for d in dirs if f"{d}/README.md" in have]
    out = []
    for d in samples:
        if not any(d.startswith(o + "/") for o in out):
            out.append(d)
    return out


# ------------------------------------------------------------ the README
_FENCE = re.compile(r"^\s*```")


def code_blocks(text):
    blocks, cur = [], None
    for line in text.split("\n"):
        if _FENCE.match(line):
            if cur is None:
                cur = []
            else:
                blocks.append(cur)
                cur = None
        elif cur is not None:
            cur.append(line.strip())
    return blocks


def _strip_comment(line):
    # A '#' that starts a shell comment: at the start or after whitespace/';'.
    m = re.search(r"(^|[\s;])#", line)
    return line[:m.start()].rstrip() if m else line


def parse_readme(text):
    """The run plan of a README: ``{"steps": [...], "cpu_cmake": str,
    "scenarios": [...], "vars": {...}}`` or ``{"error": why}``."""
    # CANN's READMEs keep the commands under "编译运行" ("build and run").
    sec = text.find("编译运行")
    body = text[sec:] if sec >= 0 else text
    blocks = code_blocks(body)
    run = next((b for b in blocks if any(re.match(r"^\./\w", l) for l in b)
                and any("cmake" in l for l in b)), None)
    if run is None:
        return {"error": "README has no run block (mkdir/cmake/make/./demo)"}
    cpu = None
    for b in blocks:
        for l in b:
            if re.search(r"\bcmake\b", l) and "-DCMAKE_ASC_RUN_MODE=cpu" in l:
                cpu = _strip_comment(l)
                break
        if cpu:
            break
    cpu_added = False
    if cpu is None:
        # An npu-only README: its own cmake line plus the cpu run mode, as the
        # other READMEs say ("add -DCMAKE_ASC_RUN_MODE=cpu"); a CMakeLists that
        # refuses cpu then fails at cmake with its own message.
        line = next((_strip_comment(l) for l in run if re.search(r"\bcmake\b", l)), None)
        if line is None:
            return {"error": "README's run block has no cmake line"}
        if re.search(r"-DCMAKE_ASC_RUN_MODE=\w+", line):
            # The README names the npu (or sim) mode explicitly: the cpu mode replaces it
            # (a later -D would override an added one).
            cpu = re.sub(r"-DCMAKE_ASC_RUN_MODE=\w+", "-DCMAKE_ASC_RUN_MODE=cpu", line)
        else:
            cpu = re.sub(r"\bcmake\b", "cmake -DCMAKE_ASC_RUN_MODE=cpu", line, count=1)
        cpu_added = True
    steps, variables = [], {}
    for l in run:
        l = _strip_comment(l)
        if not l:
            continue
        m = re.match(r"^([A-Za-z_][A-Za-z_0-9]*)=(\S*)$", l)
        if m:
            variables[m.group(1)] = m.group(2)
            continue
        if l.startswith("source ") and "set_env.sh" in l:
            continue  # the runner has sourced pyasc's set_env.sh already
        if re.search(r"\bcmake\b", l):
            l = cpu
        steps.append(l)
    scenarios = []
    for line in body.split("\n"):
        if line.strip().startswith("|") and "`SCENARIO_NUM`" in line:
            cells = line.split("|")
            if len(cells) > 2:
                scenarios = scenario_values(cells[2])
            break
    if not scenarios and "SCENARIO_NUM" in variables:
        scenarios = [variables["SCENARIO_NUM"]]
    return {"steps": steps, "cpu_cmake": cpu, "cpu_added": cpu_added, "scenarios": scenarios or [None],
            "vars": variables}


def scenario_values(cell):
    """The SCENARIO_NUM values of a README option-table cell, in order: lists
    ("`1`、`2`", "1, 2", "`1` (default), `2`") and ranges ("`1`-`7`", "1-4",
    "`0`~`5`"), with or without backticks."""
    text = cell.replace("`", "")
    values = []
    for m in re.finditer(r"(\d+)\s*[-~～]\s*(\d+)|(\d+)", text):
        if m.group(3) is not None:
            values.append(int(m.group(3)))
        else:
            lo, hi = int(m.group(1)), int(m.group(2))
            values.extend(range(lo, hi + 1) if lo <= hi and hi - lo < 100 else (lo, hi))
    seen = []
    for v in values:
        if str(v) not in seen:
            seen.append(str(v))
    return seen


def _label(step):
    if re.search(r"\bcmake\b", step):
        return "cmake/make"
    if "gen_data" in step:
        return "gen_data"
    if "verify_result" in step:
        return "verify"
    if re.match(r"^\./", step):
        return "run"
    return step.split()[0] if step.split() else "?"


def script_for(plan, scenario, set_env):
    lines = ["set -o pipefail", f'source "{set_env}"']
    for k, v in plan["vars"].items():
        lines.append(f"{k}={v}")
    if scenario is not None:
        lines.append(f"SCENARIO_NUM={scenario}")
    for s in plan["steps"]:
        label = _label(s)
        lines.append(f'echo "@@STEP {label}"')
        lines.append(s)
        lines.append(f'__rc=$?; if [ $__rc -ne 0 ]; then echo "@@FAIL {label} rc=$__rc"; exit 1; fi')
    return "\n".join(lines) + "\n"


def first_error(output, label):
    lines = output.split("\n")
    start = 0
    for i, l in enumerate(lines):
        if l.startswith(f"@@STEP {label}"):
            start = i + 1
    part = [l for l in lines[start:] if not l.startswith("@@")]
    # A compiler/CMake diagnostic first, then anything that reads as an error.
    for l in part:
        if re.search(r"(error:|Error:|CMake Error|FATAL_ERROR|\[ERROR\])", l):
            return l.strip()[:300]
    for l in part:
        if ERROR_RE.search(l) and "Werror" not in l:
            return l.strip()[:300]
    tail = [l.strip() for l in part if l.strip()]
    return (tail[-1] if tail else "(no output)")[:300]


# ------------------------------------------------------------ running
def _env():
    """The READMEs' `python3` is this interpreter (it has NumPy for gen_data/verify_result)."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _read_sample_file(mirror, sample, name):
    """The text of ``sample``/``name`` in the snapshot ('' when absent)."""
    if _is_bare(mirror) or os.path.isdir(os.path.join(mirror, ".git")):
        p = subprocess.run(["git", "-C", mirror, "show", f"HEAD:{sample}/{name}"], capture_output=True, text=True,
                           errors="replace")
        return p.stdout if p.returncode == 0 else ""
    try:
        with open(os.path.join(mirror, sample, name), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def run_one(mirror, files, sample, set_env, timeout, keep, arch):
    results = []
    reason = out_of_scope(sample)
    if reason:
        return [{"sample": sample, "scenario": None, "ok": False, "skip": True, "step": "out of scope",
                 "error": "needs " + reason}]
    try:
        readme = subprocess.run(["git", "-C", mirror, "show", f"HEAD:{sample}/README.md"], capture_output=True,
                                text=True).stdout if (_is_bare(mirror) or os.path.isdir(
                                    os.path.join(mirror, ".git"))) else open(
                                        os.path.join(mirror, sample, "README.md"), encoding="utf-8").read()
    except OSError as e:
        return [{"sample": sample, "scenario": None, "ok": False, "step": "readme", "error": str(e)}]
    plan = parse_readme(readme)
    if "error" in plan:
        return [{"sample": sample, "scenario": None, "ok": False, "step": "readme", "error": plan["error"]}]
    reason = cpu_refused(_read_sample_file(mirror, sample, "CMakeLists.txt"))
    if reason:
        return [{"sample": sample, "scenario": None, "ok": False, "skip": True, "step": "out of scope",
                 "error": "needs " + reason}]
    if arch:
        plan["steps"] = [s.replace("dav-2201", arch) for s in plan["steps"]]
    for sc in plan["scenarios"]:
        if SCENARIOS is not None and sc is not None and sc not in SCENARIOS:
            continue  # a targeted rerun: only the scenarios a fix touches
        if DEADLINE is not None and time.time() >= DEADLINE:
            # A bounded pass on a shared machine: what the deadline left out is
            # counted apart, not as a failure of the sample.
            results.append({"sample": sample, "scenario": sc, "ok": False, "notrun": True, "step": "deadline",
                            "error": "not run: the --deadline had passed"})
            continue
        work = tempfile.mkdtemp(prefix="asc-sample-")
        t0 = time.time()
        try:
            export_sample(mirror, sample, files, work)
            script = script_for(plan, sc, set_env)
            try:
                p = subprocess.run(["nice", "-n", str(NICE), "bash", "-c", script], cwd=work, capture_output=True,
                                   text=True, errors="replace", timeout=timeout, env=_env())
                out = p.stdout + p.stderr
                ok = p.returncode == 0
            except subprocess.TimeoutExpired as e:
                out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
                out += f"\n@@FAIL timeout\nerror: timed out after {timeout} s"
                ok = False
            # A configure error that asks for dav-3510 (scenarios only that architecture has, e.g.
            # "SCENARIO_NUM=3 only supports dav-3510, not dav-2201"): rerun with it.
            if (not ok and "dav-3510" in out and "dav-2201" in script and "@@FAIL cmake/make" in out
                    and re.search(r"CMAKE_ASC_ARCHITECTURES|only supports? dav-3510", out)):
                shutil.rmtree(os.path.join(work, "build"), ignore_errors=True)
                script = script.replace("dav-2201", "dav-3510")
                p = subprocess.run(["nice", "-n", str(NICE), "bash", "-c", script], cwd=work, capture_output=True,
                                   text=True, errors="replace", timeout=timeout, env=_env())
                out, ok = p.stdout + p.stderr, p.returncode == 0
            m = re.findall(r"@@FAIL (\S+)", out)
            step = m[-1] if m else ("" if ok else "?")
            results.append({"sample": sample, "scenario": sc, "ok": ok, "step": step,
                            "error": "" if ok else first_error(out, step), "seconds": round(time.time() - t0, 1),
                            "dir": work if keep else None})
        finally:
            if not keep:
                shutil.rmtree(work, ignore_errors=True)
    return results


def _sample_arch(plan, cmakelists):
    m = re.search(r"-DCMAKE_ASC_ARCHITECTURES=(dav-\d+)", plan.get("cpu_cmake") or "")
    if m:
        return m.group(1)
    m = re.search(r'set\(\s*CMAKE_ASC_ARCHITECTURES\s+"?(dav-\d+)', cmakelists)
    return m.group(1) if m else "dav-2201"


def census_one(mirror, files, sample, set_env, timeout):
    """The first compile error of ``sample`` (``--census``)."""
    reason = out_of_scope(sample)
    if reason:
        return [{"sample": sample, "scenario": None, "ok": False, "skip": True, "step": "out of scope",
                 "error": "needs " + reason}]
    work = tempfile.mkdtemp(prefix="asc-census-")
    t0 = time.time()
    try:
        export_sample(mirror, sample, files, work)
        try:
            with open(os.path.join(work, "README.md"), encoding="utf-8", errors="replace") as f:
                plan = parse_readme(f.read())
            with open(os.path.join(work, "CMakeLists.txt"), encoding="utf-8", errors="replace") as f:
                cml = f.read()
        except OSError as e:
            return [{"sample": sample, "scenario": None, "ok": False, "step": "readme", "error": str(e)}]
        sc = (plan.get("scenarios") or [None])[0]
        srcs, incs = [], set()
        for d, _, names in os.walk(work):
            for n in sorted(names):
                if n.endswith(".asc"):
                    srcs.append(os.path.join(d, n))
                if n.endswith((".h", ".hpp")):
                    incs.add(d)
        if not srcs:
            return [{"sample": sample, "scenario": sc, "ok": False, "step": "census", "error": "no .asc source"}]
        args = [f"--npu-arch={_sample_arch(plan, cml)}", "-DASCENDC_CPU_DEBUG=1", "-fsyntax-only",
                f"-I{work}"] + [f"-I{d}" for d in sorted(incs)]
        if sc is not None:
            args.append(f"-DSCENARIO_NUM={sc}")
        cc = os.path.join(os.path.dirname(set_env), "bin", "asc-cc")
        for src in srcs:
            try:
                p = subprocess.run(["nice", "-n", str(NICE), cc, *args, src], cwd=work, capture_output=True, text=True,
                                   errors="replace", timeout=timeout, env=_env())
            except subprocess.TimeoutExpired:
                return [{"sample": sample, "scenario": sc, "ok": False, "step": "census", "error": "timed out"}]
            if p.returncode != 0:
                err = first_error(p.stdout + p.stderr, "census").replace(work + "/", "")
                return [{"sample": sample, "scenario": sc, "ok": False, "step": "census", "error": err,
                         "seconds": round(time.time() - t0, 1)}]
        return [{"sample": sample, "scenario": sc, "ok": True, "step": "", "error": "",
                 "seconds": round(time.time() - t0, 1)}]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --scan: the pieces pyasc still lacks, as regexes over a sample's sources, in
# the order a sample is listed under (its first hit). Kept in step with the
# kernel API by hand; a sample with no hit may still fail on something else.
SCAN_CAUSES = [
 ("tensor API (tensor_api/*.h)", r'tensor_api/'),
 ("C API of 02_simd_c_api beyond include/c_api's subset (asc_* intrinsics)",
  r'\basc_(?!vf_call\b|init\b|sync(_notify|_wait|_pipe|_vec|_mte2|_mte3)?\b|get_(block_idx|block_num|sub_block_idx|sub_block_id|sub_block_num|system_cycle|core_id)\b|set_(vector_mask|mask_count|mask_norm)\b|copy_(gm2ub|ub2gm|ub2ub)(_sync)?\b|copy_(gm2ub|ub2gm)_align(_sync)?\b|(add|sub|mul|div|max|min)(_sync|_scalar)?\b|(loadalign|storealign|load|store|lock|unlock|get_vf_len|abs|neg|relu|exp|sqrt|ln|floor|ceil|duplicate_scalar|arange|select|copy|gather|squeeze|pair_reduce_sum|reduce_sum_datablock|frequency_histogram_bin[01])\b|(loadalign|storealign)_postupdate\b|(gt|ge|lt|le|eq|ne)(_scalar)?\b|reduce_(sum|max|min)\b|(update|create)_mask_b(8|16|32)\b)[a-z0-9_]+\s*\('),
 ("SIMT API (simt_api, __simt_*)", r'simt_api/|__simt_vf__|__simt_callee__|asc_simt'),
 ("register API forms not implemented (unaligned/gather/scatter/histogram/cast/pack/interleave/squeeze/truncate/AddrReg/RegTraitNumTwo/other LoadDist-StoreDist)",
  r'Reg::(LoadUnAlign|StoreUnAlign|LoadUnAlignPre|StoreUnAlignPost|Gather|GatherB|Scatter|Histograms|Cast|Pack|Interleave|DeInterleave|Squeeze|CreateAddrReg|MaskGenWithRegTensor|ClearSpr|Load|Store|Mull|MulDstAdd|Axpy|Not|And|Or|ShiftLeft|ShiftRight|Prelu)\b|RegTraitNumTwo|LoadDist::DIST_(?!NORM\b|BRC_)|StoreDist::DIST_(?!NORM|FIRST_)|DataCopyMode::|MicroAPI::|DivSpecificMode'),
 ("advanced API host tiling classes as tiling-data fields (optiling::SoftMaxTiling, LayerNormTiling, TopkTiling, PadTiling, ...)",
  r'TILING_DATA_FIELD_DEF_STRUCT\(\s*(SoftMaxTiling|LayerNorm\w*Tiling|TopkTiling|PadTiling|UnPadTiling|ConfusionTransposeTiling)\b'),
 ("advanced API host tiling (Get*TmpSize / Get*TilingInfo, TensorShape)", r'AscendC::Get[A-Za-z]+TmpSize|AscendC::Get[A-Za-z]+Tiling(Info)?\b|AscendC::TensorShape'),
 ("ND-DMA / Slice / SetPadValue", r'NdDma|SliceInfo|SetPadValue'),
 ("LoadData2DParamsV2 / sparse / MX / unzip cube loads", r'LoadData2DParamsV2|LoadDataWithSparse|MmadWithSparse|LoadDataUnzip|MmadMx|LoadData2dMx|mmad_mx|load_data_2dmx'),
 ("int4b_t / hifloat8_t / fp8 / fp4 types", r'\bint4b_t\b|hifloat8_t|float8_e[45]m[23]_t|fp4x2_'),
 ("memory management (TBufPool, ListTensorDesc)", r'TBufPool|ListTensorDesc'),
 ("vector API gaps (GatherRepeatParams, Interleave, ReduceRepeat, BinaryConfig, ReduceDataBlock, PairReduceElem)", r'GatherRepeatParams|AscendC::Interleave|ReduceRepeat|BinaryConfig|AscendC::ReduceDataBlock|AscendC::PairReduceElem'),
 ("dump API (asc_dump_gm)", r'asc_dump_gm'),
 ("advanced Matmul (lib/matmul_intf.h; variants not verified)", r'lib/matmul_intf\.h'),
]


def scan_one(mirror, files, sample):
    """``(cause or None, [all causes])`` of ``sample`` (``--scan``)."""
    work = tempfile.mkdtemp(prefix="asc-scan-")
    try:
        export_sample(mirror, sample, files, work)
        txt = ""
        for d, _, names in os.walk(work):
            for n in names:
                if n.endswith((".asc", ".h", ".cpp", ".hpp", ".cc")):
                    with open(os.path.join(d, n), encoding="utf-8", errors="replace") as f:
                        txt += f.read()
        with open(os.path.join(work, "README.md"), encoding="utf-8", errors="replace") as f:
            if "error" in parse_readme(f.read()):
                return ("needs CANN tools or a framework (README has no cpu run block)", [])
        hits = [c for c, r in SCAN_CAUSES if re.search(r, txt)]
        return (hits[0] if hits else None, hits)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# Samples that need what a CPU-only pyasc legitimately does not provide (an
# Ascend NPU with CANN's own tools, a deep-learning framework with its NPU
# adapter, or an architecture the issue does not target). The runner reports
# them as SKIP with the reason and counts them apart from the failures.
OUT_OF_SCOPE = [
    (r"/01_utilities/04_profiling/msprof$", "msprof, CANN's profiler, on an Ascend NPU"),
    (r"/01_utilities/04_profiling/torch_library_report_tensor$", "PyTorch with torch_npu (and msprof)"),
    (r"/01_utilities/05_sanitizer/ms_sanitizer$",
     "mssanitizer, CANN's NPU memory checker (pyasc's counterpart is ASCEND_DEBUG=1)"),
    (r"/01_utilities/08_simulator$", "CANN's NPU simulator (CMAKE_ASC_RUN_MODE=sim)"),
    (r"/02_features/00_framework/00_pytorch/", "PyTorch with torch_npu"),
    (r"/02_features/00_framework/01_tensorflow/", "TensorFlow with CANN's TF adapter"),
    (r"/02_features/00_framework/02_onnx/", "atc, CANN's model compiler, with GE's ONNX parser plugin"),
    (r"/02_features/00_framework/03_ge/", "GE, CANN's graph engine (graph/operator_reg.h, IR registration)"),
    (r"/02_features/99_acl_based/",
     "CANN's operator-package flow (npu_op_package / custom_opp .run install into the OPP, aclnn / aclop "
     "dispatch, atc)"),
    (r"/broadcast_ub2l0c$|/region_proposal_sort$",
     "architecture dav-2002 (Atlas inference series), which pyasc does not model (dav-2201 and dav-3510 only)"),
]


def out_of_scope(sample):
    """The reason ``sample`` is out of scope, or None."""
    for pattern, reason in OUT_OF_SCOPE:
        if re.search(pattern, sample):
            return reason
    return None


_RUN_MODE_GUARD = re.compile(r'if\s*\(\s*NOT\s+CMAKE_ASC_RUN_MODE\s+MATCHES\s+"\^?\(([^)"]*)\)\$?"\s*\)')


def cpu_refused(cmakelists):
    """The reason when a sample's own CMakeLists stops with FATAL_ERROR for
    CMAKE_ASC_RUN_MODE=cpu (``if(NOT CMAKE_ASC_RUN_MODE MATCHES "^(npu|sim)$")``):
    CANN cannot run it on the CPU either. None otherwise."""
    m = _RUN_MODE_GUARD.search(cmakelists)
    if not m:
        return None
    modes = [x.strip() for x in m.group(1).split("|")]
    if "cpu" in modes:
        return None
    return ("an Ascend NPU or CANN's simulator: its CMakeLists accepts only CMAKE_ASC_RUN_MODE="
            + "/".join(modes) + " (FATAL_ERROR for cpu, in CANN as here)")


def folder_of(sample):
    parts = sample.split("/")
    return "/".join(parts[1:3])


def main(argv=None):
    ap = argparse.ArgumentParser(prog="official_samples.py", description=__doc__.split("\n")[0])
    ap.add_argument("mirror", help="asc-devkit checkout or bare git directory")
    ap.add_argument("--filter", action="append", default=[], help="keep samples whose path contains this")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per sample scenario")
    ap.add_argument("--keep", action="store_true", help="keep the temporary sample folders")
    ap.add_argument("--arch", default=None, help="replace dav-2201 in the README lines by this")
    ap.add_argument("--json", default=None, help="write all results to this file")
    ap.add_argument("--list", action="store_true", help="only list the samples and their plans")
    ap.add_argument("--nice", type=int, default=10, help="niceness added to the sample builds (default 10)")
    ap.add_argument("--scan", action="store_true",
                    help="no build: list each sample's first missing API found by regex (SCAN_CAUSES)")
    ap.add_argument("--census", action="store_true", help="only compile (-fsyntax-only): first errors, fast")
    ap.add_argument("--deadline", default=None,
                    help="HH:MM (UTC, today) or seconds from now: start no scenario after it; the ones left "
                         "are reported as NOTRUN and counted apart")
    ap.add_argument("--shuffle", type=int, default=None, metavar="SEED",
                    help="run the samples in a random order (this seed), so that a --deadline leaves a "
                         "spread of folders rather than the last ones")
    ap.add_argument("--scenarios", default=None, metavar="N[,M...]",
                    help="run only these SCENARIO_NUM values of the matched samples (a sample without "
                         "scenarios still runs)")
    ap.add_argument("--reverse", action="store_true",
                    help="run the (shuffled) list from its end: a second runner started with the same "
                         "--shuffle and --reverse meets the first in the middle")
    args = ap.parse_args(argv)
    global NICE, DEADLINE, SCENARIOS
    NICE = args.nice
    if args.scenarios:
        SCENARIOS = {x.strip() for x in args.scenarios.split(",") if x.strip()}
    if args.deadline:
        m = re.fullmatch(r"(\d{1,2}):(\d{2})", args.deadline)
        if m:
            now = time.time()
            day = now - now % 86400
            DEADLINE = day + int(m.group(1)) * 3600 + int(m.group(2)) * 60
            if DEADLINE < now - 43200:
                DEADLINE += 86400
        elif re.fullmatch(r"\d+", args.deadline):
            DEADLINE = time.time() + int(args.deadline)
        else:
            print(f"official_samples.py: --deadline wants HH:MM or seconds, not {args.deadline!r}", file=sys.stderr)
            return 2
    if not os.path.isdir(args.mirror):
        print(f"official_samples.py: no such folder: {args.mirror}", file=sys.stderr)
        return 2
    files = list_files(args.mirror)
    samples = [s for s in find_samples(files) if not args.filter or any(f in s for f in args.filter)]
    if args.shuffle is not None:
        import random
        random.Random(args.shuffle).shuffle(samples)
    if args.reverse:
        samples.reverse()
    if not samples:
        print("official_samples.py: no samples matched", file=sys.stderr)
        return 2
    home = subprocess.run([sys.executable, "-m", "pyasc.tools.info", "--cann-home"], capture_output=True,
                          text=True)
    if home.returncode != 0:
        print(f"official_samples.py: {home.stderr.strip()}", file=sys.stderr)
        return 2
    set_env = os.path.join(home.stdout.strip(), "set_env.sh")
    if args.list:
        for s in samples:
            print(s, json.dumps(parse_readme(subprocess.run(["git", "-C", args.mirror, "show",
                                                             f"HEAD:{s}/README.md"], capture_output=True,
                                                            text=True).stdout), ensure_ascii=False))
        return 0
    if args.scan:
        groups = {}
        for smp in samples:
            cause, _ = scan_one(args.mirror, files, smp)
            groups.setdefault(cause or "no known gap found", []).append(smp)
            print(f"{smp}: {cause or '-'}", flush=True)
        print()
        for cause, ss in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"{len(ss):4d}  {cause}")
        return 0
    results = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        if args.census:
            futs = [ex.submit(census_one, args.mirror, files, s, set_env, args.timeout) for s in samples]
        else:
            futs = [ex.submit(run_one, args.mirror, files, s, set_env, args.timeout, args.keep, args.arch)
                    for s in samples]
        for f in futs:
            for r in f.result():
                results.append(r)
                sc = f" [SCENARIO_NUM={r['scenario']}]" if r["scenario"] else ""
                if r["ok"]:
                    print(f"PASS {r['sample']}{sc}", flush=True)
                elif r.get("skip"):
                    print(f"SKIP {r['sample']}{sc}: {r['error']}", flush=True)
                elif r.get("notrun"):
                    print(f"NOTRUN {r['sample']}{sc}: {r['error']}", flush=True)
                else:
                    print(f"FAIL {r['sample']}{sc}: {r['step']}: {r['error']}", flush=True)
    counts = {}
    skipped = [r for r in results if r.get("skip")]
    notrun = [r for r in results if r.get("notrun")]
    for r in results:
        if r.get("skip") or r.get("notrun"):
            continue
        c = counts.setdefault(folder_of(r["sample"]), [0, 0, set(), set()])
        c[0] += r["ok"]
        c[1] += 1
        c[3].add(r["sample"])
        if not r["ok"]:
            c[2].add(r["sample"])
    print("\nfolder: passed/run (samples fully passing/samples)")
    tp = tr = 0
    for k in sorted(counts):
        p, n, bad, alls = counts[k]
        tp += p
        tr += n
        print(f"  {k}: {p}/{n} ({len(alls) - len(bad)}/{len(alls)})")
    print(f"  total: {tp}/{tr}")
    if skipped:
        print(f"  out of scope (SKIP, not run): {len(skipped)} samples")
    if notrun:
        print(f"  left by --deadline (NOTRUN): {len(notrun)} scenarios of "
              f"{len({r['sample'] for r in notrun})} samples")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, ensure_ascii=False, indent=1)
    return 0 if tp == tr and not notrun else 1


if __name__ == "__main__":
    sys.exit(main())
