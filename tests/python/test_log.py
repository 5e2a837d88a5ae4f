import pytest

import pyasc as asc


@pytest.fixture
def restore_level():
    level = asc.get_log_level()
    yield
    asc.set_log_level(level)


def test_set_and_get(restore_level):
    for name in ("debug", "info", "warning", "error", "off"):
        asc.set_log_level(name)
        assert asc.get_log_level() == name
    asc.set_log_level("WARN")
    assert asc.get_log_level() == "warning"
    asc.set_log_level(0)
    assert asc.get_log_level() == "debug"
    asc.set_log_level("3")
    assert asc.get_log_level() == "error"


def test_invalid_levels(restore_level):
    for bad in ("verbose", 7, -1, 1.5, None):
        with pytest.raises(asc.AscendValueError):
            asc.set_log_level(bad)


def test_default_is_warning(run_python):
    r = run_python("import pyasc as asc; print(asc.get_log_level())")
    assert r.stdout.strip() == "warning", r.stderr


@pytest.mark.parametrize(
    "env,expected",
    [({"PYASC_DEBUG": "1"}, "debug"), ({"ASC_LOG_LEVEL": "info"}, "info"),
     ({"ASC_LOG_LEVEL": "error", "PYASC_DEBUG": "1"}, "error")],
)
def test_environment(run_python, env, expected):
    r = run_python("import pyasc as asc; print(asc.get_log_level())", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == expected


def test_debug_logs_reach_stderr(run_python):
    r = run_python(
        "import pyasc as asc; s = asc.Stream(); s.synchronize()",
        env={"PYASC_DEBUG": "1"},
    )
    assert r.returncode == 0, r.stderr
    assert "[pyasc " in r.stderr and " D " in r.stderr


def test_debug_logs_graph_decisions(run_python):
    # A fused flush logs its groups; a one-node graph logs the direct path.
    r = run_python(
        """
        import numpy as np, pyasc as asc
        asc.set_eager(False)
        # asc.array copies: ops on arrays that share NumPy memory run at the call.
        a = asc.array(np.arange(100000, dtype=np.float32))
        r = a * 2 + 1
        s = (a - 3).sum()
        asc.eval(r, s)
        b = asc.array(np.arange(10, dtype=np.float32))
        t = b + 5
        t.eval()
        """,
        env={"PYASC_DEBUG": "1"},
    )
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "] " in ln and " graph]" in ln.split("] ")[0] + "]"]
    text = "\n".join(lines)
    assert "nodes recorded" in text and "groups" in text, r.stderr
    # Both expressions read `a`: one pass computes both (a map output and a sum).
    assert "group 0/1 mode=reduce_all domain=(100000) ops=multiply+add+subtract+sum" in text, r.stderr
    assert "enqueued on stream" in text or "runs inline" in text, r.stderr
    assert "one-node graph ran directly" in text, r.stderr


def test_no_graph_logs_by_default(run_python):
    r = run_python(
        """
        import numpy as np, pyasc as asc
        a = asc.asarray(np.ones(10, np.float32))
        asc.eval(a * 2 + 1)
        """
    )
    assert r.returncode == 0, r.stderr
    assert "graph" not in r.stderr
