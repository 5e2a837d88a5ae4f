"""pyasc-run: the mpirun command it builds, and the variables each rank gets."""

import os
import re
import sys
import types

import pytest

from _mpi_helpers import HERE, mpi_env, needs_mpi, run_job
from pyasc.tools import run as launcher


def _args(argv):
    return launcher._parser().parse_args(argv)


def test_build_command_one_machine():
    cmd = launcher.build_command(_args(["-n", "3", "train.py", "--epochs", "2", "-x"]), {"ASC_NUM_CORES": "8",
                                                                                       "HOME": "/root"})
    assert cmd[1:3] == ["-n", "3"]
    assert ["--bind-to", "none"] == cmd[cmd.index("--bind-to"):cmd.index("--bind-to") + 2]
    assert "-x" in cmd and "ASC_NUM_CORES" in cmd and "HOME" not in cmd  # only pyasc/path variables travel
    assert cmd[-4:] == ["train.py", "--epochs", "2", "-x"]
    # each rank runs the launcher file as a script (not -m: that would import pyasc first)
    assert cmd[-7] == sys.executable and cmd[-6] == os.path.abspath(launcher.__file__)
    assert cmd[-5] == launcher._WORKER_FLAG
    if (os.cpu_count() or 1) < 3:
        assert "--oversubscribe" in cmd


def test_build_command_hostfile_and_module(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("# cluster\nnode1 slots=4\nnode2 slots=4\n")
    args = _args(["-n", "8", "--hostfile", str(hosts), "-m", "pkg.train", "--lr", "0.1"])
    cmd = launcher.build_command(args, {})
    assert cmd[cmd.index("--hostfile") + 1] == str(hosts)
    assert "--oversubscribe" not in cmd
    assert cmd[-4:] == ["-m", "pkg.train", "--lr", "0.1"]
    assert launcher._master_addr(args) == "node1"


def test_launcher_errors(tmp_path, monkeypatch):
    with pytest.raises(SystemExit, match="-n must be >= 1"):
        launcher.build_command(_args(["-n", "0", "x.py"]), {})
    with pytest.raises(SystemExit, match="names no host"):
        (tmp_path / "empty").write_text("# nothing\n")
        launcher._master_addr(types.SimpleNamespace(host=None, hostfile=str(tmp_path / "empty")))
    monkeypatch.setattr(launcher.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="mpirun not found"):
        launcher.build_command(_args(["-n", "2", "x.py"]), {})


@needs_mpi
def test_pyasc_run_sets_rank_variables_and_splits_cores():
    env = mpi_env({"ASC_NUM_CORES": "4"})
    cmd = [sys.executable, "-m", "pyasc.tools.run", "-n", "2", os.path.join(HERE, "_env_script.py"), "a", "--b"]
    p, secs = run_job(cmd, env, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    # ranks' lines may interleave in mpirun's output: match the fields, not lines
    envs = sorted(re.findall(r"RANK=(\d+) WORLD_SIZE=(\d+) LOCAL_RANK=(\d+) LOCAL_WORLD_SIZE=(\d+) "
                             r"MASTER_ADDR=(\S+?) MASTER_PORT=(\d+) ASC_NUM_CORES=(\d+) ARGS=(a,--b)", p.stdout))
    assert len(envs) == 2, p.stdout
    for r, (rank, size, lrank, lsize, addr, port, cores, _) in enumerate(envs):
        assert (rank, size, lrank, lsize) == (str(r), "2", str(r), "2")
        assert cores == "2"  # 4 cores given to the launcher, 2 local ranks
        assert addr == "127.0.0.1" and int(port) > 0 and port == envs[0][5]
    assert sorted(re.findall(r"MAIN (\S+) rank=(\d)", p.stdout)) == [("__main__", "0"), ("__main__", "1")]
