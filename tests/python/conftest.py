import os
import subprocess
import sys
import textwrap

import pytest


@pytest.fixture
def run_python():
    """Runs a Python snippet in a fresh interpreter (for env-var and shutdown tests).

    Returns the CompletedProcess; fails the test on timeout instead of hanging.
    """

    def run(code, env=None, timeout=60):
        full_env = dict(os.environ)
        for key in ("ASC_LOG_LEVEL", "PYASC_DEBUG", "ASC_NUM_CORES", "ASC_UB_SIZE", "ASC_MEMORY_LIMIT"):
            full_env.pop(key, None)
        full_env.update(env or {})
        try:
            return subprocess.run(
                [sys.executable, "-c", textwrap.dedent(code)],
                env=full_env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"subprocess timed out after {timeout}s (deadlock?)\nstdout: {e.stdout}\nstderr: {e.stderr}")

    return run


@pytest.fixture(params=["lazy", "eager"])
def mode(request):
    """Runs the test once with lazy graphs (the default) and once eagerly; yields the mode's name."""
    import pyasc as asc

    previous = asc.is_eager()
    asc.set_eager(request.param == "eager")
    yield request.param
    asc.set_eager(previous)
