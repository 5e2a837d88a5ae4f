"""pyasc-run: the mpirun command it builds, and the variables each rank gets."""

import os
import sys
import types

import pytest

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


# The variables each rank gets (RANK, ..., the ASC_NUM_CORES split) are checked in the 2-rank
# launch of test_collectives.py, which runs through pyasc-run: one process start-up for both.
