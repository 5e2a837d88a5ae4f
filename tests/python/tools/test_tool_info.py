"""asc.utils.collect_info and pyasc-info: the fields and both output forms."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

import pyasc as asc
from pyasc.tools import info as cli
from pyasc.utils import ENVIRONMENT_VARIABLES, collect_info

EXPECTED_ENV = [
    "ASC_NUM_CORES", "ASC_UB_SIZE", "ASC_MEMORY_LIMIT", "ASC_SPIN_US", "ASC_SIMD_TARGET",
    "ASC_KERNEL_ELIDE", "PYASC_DEBUG", "ASC_LOG_LEVEL", "PYASC_LOG_FILE", "ASCEND_DEBUG",
    "ASCEND_DUMP_GRAPH", "ASCEND_DUMP_GRAPH_PATH",
]
X86 = platform.machine() in ("x86_64", "AMD64", "i686")


def test_collect_info_fields():
    info = collect_info()
    assert info["version"] == asc.__version__
    assert info["python"] == platform.python_version()
    assert info["numpy"] and info["ml_dtypes"]
    assert info["hardware_threads"] == os.cpu_count()
    b = info["build"]
    assert b["simd_targets_compiled"], "compiled Highway targets unknown"
    assert b["simd_target"] in b["simd_targets_compiled"]
    assert b["simd_target"] == asc._C.build_info()["simd_target"]
    if X86:
        assert b["simd_targets_compiled"][-1] in ("SCALAR", "EMU128")
        assert {"AVX2", "SSE4"} <= set(b["simd_targets_compiled"])
        assert "AVX3_DL" not in b["simd_targets_compiled"]  # disabled in CMakeLists.txt
    assert b["blas"]
    assert b["compiler"]
    assert b["simd_target_override"] == (os.environ.get("ASC_SIMD_TARGET") or None)
    assert info["log_level"] == asc.get_log_level()
    json.dumps(info)  # serialisable


def test_collect_info_devices_and_memory():
    info = collect_info()
    assert len(info["devices"]) == asc.device_count() == 1
    d = info["devices"][0]
    props = asc.get_device_properties().to_dict()
    for key, value in props.items():
        assert d[key] == value, key
    for key in ("num_cores", "ub_size", "l1_size", "l0a_size", "l0b_size", "l0c_size", "memory_limit"):
        assert d[key] > 0
    stats = d["memory"]
    assert set(stats) == set(asc.memory_stats())
    assert stats["limit_bytes"] == asc.memory_stats()["limit_bytes"]


def test_collect_info_environment(monkeypatch):
    assert list(ENVIRONMENT_VARIABLES) == EXPECTED_ENV
    for name in EXPECTED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASCEND_DUMP_GRAPH_PATH", "/tmp/graphs")
    monkeypatch.setenv("ASC_SPIN_US", "7")
    env = collect_info()["environment"]
    assert list(env) == EXPECTED_ENV
    assert env["ASCEND_DUMP_GRAPH_PATH"] == "/tmp/graphs" and env["ASC_SPIN_US"] == "7"
    assert all(env[n] is None for n in EXPECTED_ENV if n not in ("ASCEND_DUMP_GRAPH_PATH", "ASC_SPIN_US"))
    text = cli.format_info(collect_info())
    line = [ln for ln in text.splitlines() if "ASCEND_DUMP_GRAPH_PATH" in ln][0]
    assert "/tmp/graphs" in line
    line = [ln for ln in text.splitlines() if "| ASC_NUM_CORES" in ln][0]
    assert "(unset)" in line


def test_human_output(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    info = collect_info()
    for text in ("pyasc-info", f"pyasc {asc.__version__}", "SIMD targets compiled", "SIMD target selected",
                 "BLAS", "Devices", "AI cores", "UB", "L1", "L0A", "L0B", "L0C", "Memory pool", "Limit",
                 "Environment", "192 KiB" if "ASC_UB_SIZE" not in os.environ else "UB"):
        assert text in out, text
    assert " ".join(info["build"]["simd_targets_compiled"]) in out
    for name in EXPECTED_ENV:
        assert name in out
    lines = out.splitlines()
    assert len({len(ln) for ln in lines}) == 1, "table lines have one width"
    assert all(ln[0] in "+|" and ln[-1] in "+|" for ln in lines)


def test_json_output(capsys):
    assert cli.main(["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["version"] == asc.__version__
    assert d["devices"][0]["num_cores"] == asc.get_device_properties().num_cores
    assert set(d["environment"]) == set(EXPECTED_ENV)
    assert "simd_target" in d["build"] and "simd_targets_compiled" in d["build"]


def _run(args, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in EXPECTED_ENV}
    env.update(env_extra)
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.skipif(not X86, reason="x86 target names")
def test_simd_override_and_env_in_fresh_process():
    p = _run([sys.executable, "-m", "pyasc.tools.info", "--json"],
             {"ASC_SIMD_TARGET": "sse4", "ASC_NUM_CORES": "3", "ASC_MEMORY_LIMIT": "64M"})
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["build"]["simd_target"] == "SSE4"
    assert d["build"]["simd_target_override"] == "sse4"
    dev = d["devices"][0]
    assert dev["num_cores"] == 3
    assert dev["memory_limit"] == dev["memory"]["limit_bytes"] == 64 << 20
    assert d["environment"]["ASC_NUM_CORES"] == "3"
    p = _run([sys.executable, "-m", "pyasc.tools.info"], {"ASC_SIMD_TARGET": "SCALAR"})
    assert p.returncode == 0, p.stderr
    assert "SCALAR (capped by ASC_SIMD_TARGET=SCALAR)" in p.stdout


def test_console_script_installed():
    script = Path(sys.executable).parent / "pyasc-info"
    if not script.exists():
        pytest.skip("pyasc-info not installed next to this interpreter")
    p = _run([str(script), "--json"], {})
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["version"] == asc.__version__
