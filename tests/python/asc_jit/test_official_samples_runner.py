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
