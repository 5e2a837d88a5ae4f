"""Driver of the NN benchmarks: runs every benchmarks/bench_nn_*.py module's ``run()`` and prints ratios.

Usage: PYTHONPATH=<pyasc site> python benchmarks/bench_nn.py [family ...]   (e.g. ``conv``, ``memory``).
Peers (onnxruntime) come from scripts/bench_setup.sh (``make bench-setup``).
"""

from __future__ import annotations

import glob
import importlib.util
import math
import os
import sys


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "bench_nn_*.py"))):
        fam = os.path.basename(path)[len("bench_nn_"):-3]
        if argv and fam not in argv:
            continue
        spec = importlib.util.spec_from_file_location(f"bench_nn_{fam}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        print(f"== {fam}")
        for r in mod.run():
            cells = []
            for k, v in r.items():
                if isinstance(v, float):
                    cells.append(f"{k}={v:.3g}" if not math.isnan(v) else f"{k}=n/a")
                else:
                    cells.append(f"{k}={v}")
            print("  " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
