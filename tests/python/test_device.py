import os

import pytest

import pyasc as asc

KiB = 1024


@pytest.mark.skipif("ASC_UB_SIZE" in os.environ, reason="UB size overridden")
def test_on_chip_buffer_sizes():
    p = asc.get_device_properties()
    assert p.ub_size == 196608
    assert p.l1_size == 524288
    assert p.l0a_size == 65536
    assert p.l0b_size == 65536
    assert p.l0c_size == 131072


def test_fields():
    p = asc.get_device_properties()
    assert isinstance(p, asc.DeviceProperties)
    assert p.name == "cpu"
    assert p.device_id == 0
    assert p.num_cores >= 1
    if "ASC_NUM_CORES" in os.environ:
        assert p.num_cores == int(os.environ["ASC_NUM_CORES"])
    assert p.total_memory > 0
    assert p.memory_limit > 0
    for key in ("name", "num_cores", "ub_size", "l1_size", "l0a_size", "l0b_size",
                "l0c_size", "memory_limit", "total_memory"):
        assert p[key] == getattr(p, key)
        assert key in p.keys() and key in p.to_dict()
    with pytest.raises(KeyError):
        p["nope"]


def test_memory_limit_defaults_to_total_memory():
    asc.set_memory_limit(None)
    p = asc.get_device_properties()
    assert p.memory_limit == p.total_memory


def test_device_count_and_current():
    assert asc.device_count() == 1
    assert asc.current_device() == 0
    asc.get_device_properties(0)
    with pytest.raises(asc.AscendValueError):
        asc.get_device_properties(3)


def test_environment_overrides(run_python):
    r = run_python(
        "import pyasc as asc; p = asc.get_device_properties(); print(p.num_cores, p.ub_size)",
        env={"ASC_NUM_CORES": "3", "ASC_UB_SIZE": str(128 * KiB)},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3", str(128 * KiB)]
