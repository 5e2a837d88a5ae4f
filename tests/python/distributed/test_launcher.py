"""pyasc-run: the mpirun command it builds, and the variables each rank gets."""

import os
import re
import sys
import types

import pytest
from _mpi_helpers import mpi_env, needs_mpi, run_job

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


_FAKE_SSH = """#!/bin/sh
# mpirun's rsh agent for this test: every host is an alias of this machine, so "run on host"
# is "run here" (skip ssh's options, then the host name)
while [ $# -gt 0 ]; do case "$1" in -x|-T|-t|-q) shift;; -o|-p|-l) shift 2;; *) break;; esac; done
shift
exec /bin/sh -c "$*"
"""

_RANK_SCRIPT = """import os
keys = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "ASC_NUM_CORES")
print("VARS " + " ".join(os.environ.get(k, "-") for k in keys), flush=True)
import pyasc as asc
import pyasc.distributed as dist
dist.init_process_group(timeout=60)
x = asc.full(3, dist.get_rank() + 1.0)
dist.all_reduce(x)
print("SUM %d %s %d" % (dist.get_rank(), x.numpy().tolist(), dist.get_local_rank()), flush=True)
dist.destroy_process_group()
"""


@needs_mpi
def test_hostfile_two_hosts(tmp_path):
    """pyasc-run --hostfile on two hosts: 127.0.0.1 and 127.0.0.2 (a loopback alias OpenMPI
    takes for another machine), the second reached through mpirun's rsh agent (a stand-in
    for ssh that runs the command here). Each host has one slot: one local rank per host, so
    LOCAL_RANK 0 / LOCAL_WORLD_SIZE 1 on both and the cores given are not split."""
    agent = tmp_path / "fake_ssh"
    agent.write_text(_FAKE_SSH)
    agent.chmod(0o755)
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 slots=1\n127.0.0.2 slots=1\n")
    script = tmp_path / "ranks.py"
    script.write_text(_RANK_SCRIPT)
    env = mpi_env({"ASC_NUM_CORES": "2"})
    cmd = [sys.executable, "-m", "pyasc.tools.run", "-n", "2", "--hostfile", str(hosts),
           "--mpirun-args", f"--mca plm_rsh_agent {agent}", str(script)]
    p, _ = run_job(cmd, env, timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-3000:]
    vars_ = sorted(re.findall(r"VARS (\d) (\d) (\d) (\d) (\S+) (\d+)", p.stdout))
    assert vars_ == [("0", "2", "0", "1", "127.0.0.1", "2"), ("1", "2", "0", "1", "127.0.0.1", "2")], out[-3000:]
    sums = sorted(re.findall(r"SUM (\d) \[([\d., ]+)\] (\d)", p.stdout))
    assert sums == [("0", "3.0, 3.0, 3.0", "0"), ("1", "3.0, 3.0, 3.0", "0")], out[-3000:]
