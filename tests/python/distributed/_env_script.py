"""Run by test_launcher.py under pyasc-run: prints the launcher's variables, then checks them
against MPI's view through pyasc.distributed."""
import os
import sys

keys = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "ASC_NUM_CORES")
sys.stdout.write("ENV " + " ".join(f"{k}={os.environ.get(k)}" for k in keys) + " ARGS=" + ",".join(sys.argv[1:]) + "\n")
sys.stdout.flush()
import pyasc as asc  # noqa: E402
import pyasc.distributed as dist  # noqa: E402

dist.init_process_group("hccl", init_method="env://", timeout=30)
assert dist.get_rank() == int(os.environ["RANK"]) and dist.get_world_size() == int(os.environ["WORLD_SIZE"])
assert dist.get_local_rank() == int(os.environ["LOCAL_RANK"])
assert asc.get_device_properties(0).num_cores == int(os.environ["ASC_NUM_CORES"]), asc.get_device_properties(0)
print(f"MAIN {__name__} rank={dist.get_rank()}", flush=True)
dist.destroy_process_group()
