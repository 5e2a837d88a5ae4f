"""scripts/official_samples.py: README parsing and the out-of-scope report
(no sample is built here; the acceptance run is `make official-samples`)."""

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RUNNER = os.path.join(ROOT, "scripts", "official_samples.py")


@pytest.fixture(scope="module")
def runner():
    spec = importlib.util.spec_from_file_location("official_samples", RUNNER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


README_NPU_ONLY = """# x
## 编译运行
```bash
SCENARIO_NUM=1
mkdir -p build && cd build;
cmake .. -DSCENARIO_NUM=$SCENARIO_NUM -DCMAKE_ASC_RUN_MODE=npu -DCMAKE_ASC_ARCHITECTURES=dav-3510; make -j;
python3 ../scripts/gen_data.py
./demo
python3 ../scripts/verify_result.py output/output.bin output/golden.bin
```
| 参数 | 值 | 说明 |
| `SCENARIO_NUM` | `1`、`2` | 场景 |
"""

README_PLAIN = README_NPU_ONLY.replace(" -DCMAKE_ASC_RUN_MODE=npu", "")


def test_npu_only_readme_runs_in_cpu_mode(runner):
    plan = runner.parse_readme(README_NPU_ONLY)
    assert plan["cpu_added"]
    cmake = [s for s in plan["steps"] if "cmake" in s][0]
    assert "-DCMAKE_ASC_RUN_MODE=cpu" in cmake and "=npu" not in cmake
    assert plan["scenarios"] == ["1", "2"]
    plain = runner.parse_readme(README_PLAIN)
    cmake = [s for s in plain["steps"] if "cmake" in s][0]
    assert cmake.startswith("cmake -DCMAKE_ASC_RUN_MODE=cpu ..")


@pytest.mark.parametrize("cell,want", [
    (" `1`、`2` ", ["1", "2"]),
    (" 1、2 ", ["1", "2"]),
    (" 1, 2 ", ["1", "2"]),
    (" `1` (default), `2`, `3` ", ["1", "2", "3"]),
    (" `1`（默认）、`2`、`3`、`4` ", ["1", "2", "3", "4"]),
    (" `1`-`7` ", ["1", "2", "3", "4", "5", "6", "7"]),
    (" 1-4 ", ["1", "2", "3", "4"]),
    (" `0`~`5` ", ["0", "1", "2", "3", "4", "5"]),
    (" `1` / `2` ", ["1", "2"]),
    (" 场景编号 ", []),
])
def test_scenario_cells_lists_and_ranges(runner, cell, want):
    # The READMEs write the SCENARIO_NUM cell many ways; a range used to give
    # only its two ends and a list without backticks nothing.
    assert runner.scenario_values(cell) == want


def test_readme_range_expands(runner):
    plan = runner.parse_readme(README_NPU_ONLY.replace("`1`、`2`", "`1`-`7`"))
    assert plan["scenarios"] == [str(i) for i in range(1, 8)]


@pytest.mark.parametrize("sample,why", [
    ("examples/01_simd_cpp_api/02_features/00_framework/00_pytorch/pybind", "torch_npu"),
    ("examples/01_simd_cpp_api/02_features/99_acl_based/01_acl_invocation/aclnn_invocation", "operator-package"),
    ("examples/01_simd_cpp_api/01_utilities/08_simulator", "simulator"),
    ("examples/01_simd_cpp_api/03_basic_api/00_data_movement/broadcast_ub2l0c", "dav-2002"),
])
def test_out_of_scope_samples_have_a_reason(runner, sample, why):
    assert why in runner.out_of_scope(sample)


@pytest.mark.parametrize("sample", [
    "examples/01_simd_cpp_api/00_introduction/01_add/basic_api_memory_allocator_add",
    "examples/01_simd_cpp_api/02_features/00_framework/04_aclgraph",  # ACL graph capture: in scope
    "examples/01_simd_cpp_api/03_basic_api/00_data_movement/broadcast_ub2l0c_v2",
])
def test_in_scope_samples_are_run(runner, sample):
    assert runner.out_of_scope(sample) is None


def test_skip_is_reported_and_not_a_failure(tmp_path):
    sample = tmp_path / "examples/01_simd_cpp_api/02_features/00_framework/01_tensorflow/tensorflow_custom"
    sample.mkdir(parents=True)
    (sample / "CMakeLists.txt").write_text("project(x)\n")
    (sample / "README.md").write_text("no run block\n")
    p = subprocess.run([sys.executable, RUNNER, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SKIP examples/01_simd_cpp_api/02_features/00_framework/01_tensorflow/tensorflow_custom: needs " \
           "TensorFlow" in p.stdout
    assert "out of scope (SKIP, not run): 1 samples" in p.stdout


@pytest.mark.parametrize("text, refused", [
    ('if(NOT CMAKE_ASC_RUN_MODE MATCHES "^(npu|sim)$")\n  message(FATAL_ERROR "x")\nendif()', True),
    ('if(NOT CMAKE_ASC_RUN_MODE MATCHES "^(npu|sim|cpu)$")\n  message(FATAL_ERROR "x")\nendif()', False),
    ('set(CMAKE_ASC_RUN_MODE "npu" CACHE STRING "Run mode: npu, sim")\n', False),
    ("", False),
])
def test_cmakelists_that_refuses_cpu_is_a_skip(runner, text, refused):
    why = runner.cpu_refused(text)
    assert (why is not None) == refused
    if refused:
        assert "npu/sim" in why and "cpu" in why


def _sample_with_run_block(root, name, cmakelists):
    sample = root / "examples/01_simd_cpp_api/03_basic_api" / name
    sample.mkdir(parents=True)
    (sample / "CMakeLists.txt").write_text(cmakelists)
    (sample / "README.md").write_text(
        "## 编译运行\n```bash\nmkdir -p build && cd build\ncmake -DCMAKE_ASC_RUN_MODE=cpu ..; make -j\n./demo\n```\n")
    return sample


def test_cpu_refusing_cmakelists_is_reported_as_skip(tmp_path):
    _sample_with_run_block(tmp_path, "npu_only", 'if(NOT CMAKE_ASC_RUN_MODE MATCHES "^(npu|sim)$")\n'
                           '  message(FATAL_ERROR "npu or sim")\nendif()\n')
    p = subprocess.run([sys.executable, RUNNER, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SKIP examples/01_simd_cpp_api/03_basic_api/npu_only: needs an Ascend NPU or CANN's simulator" in p.stdout


def test_deadline_leaves_notrun_counted_apart(tmp_path):
    # A deadline already passed: no scenario starts, each is NOTRUN, none is a failure of its sample.
    _sample_with_run_block(tmp_path, "late", "project(x)\n")
    p = subprocess.run([sys.executable, RUNNER, str(tmp_path), "--deadline", "0"], capture_output=True, text=True,
                       timeout=120)
    assert "NOTRUN examples/01_simd_cpp_api/03_basic_api/late" in p.stdout, p.stdout + p.stderr
    assert "left by --deadline (NOTRUN): 1 scenarios of 1 samples" in p.stdout
    assert "FAIL" not in p.stdout
    assert p.returncode == 1  # not everything in scope ran
    bad = subprocess.run([sys.executable, RUNNER, str(tmp_path), "--deadline", "soon"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "--deadline wants HH:MM or seconds" in bad.stderr


def test_scenarios_option_runs_only_the_listed_ones(tmp_path):
    # --scenarios 2,3 of a README listing 1..3: only 2 and 3 are planned (the past
    # deadline turns each planned one into a NOTRUN line, so nothing is built).
    sample = tmp_path / "examples/01_simd_cpp_api/03_basic_api/scen"
    sample.mkdir(parents=True)
    (sample / "CMakeLists.txt").write_text("project(x)\n")
    (sample / "README.md").write_text(
        "## 编译运行\n| 参数 | 取值 |\n|---|---|\n| `SCENARIO_NUM` | `1`、`2`、`3` |\n\n```bash\n"
        "SCENARIO_NUM=1\nmkdir -p build && cd build\ncmake -DSCENARIO_NUM=$SCENARIO_NUM -DCMAKE_ASC_RUN_MODE=cpu ..;"
        " make -j\n./demo\n```\n")
    p = subprocess.run([sys.executable, RUNNER, str(tmp_path), "--deadline", "0", "--scenarios", "2,3"],
                       capture_output=True, text=True, timeout=120)
    out = p.stdout
    assert "scen [SCENARIO_NUM=2]" in out and "scen [SCENARIO_NUM=3]" in out, out + p.stderr
    assert "SCENARIO_NUM=1]" not in out
    assert "left by --deadline (NOTRUN): 2 scenarios of 1 samples" in out
