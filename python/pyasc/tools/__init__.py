"""Command-line tools.

* ``pyasc-compare`` / ``python -m pyasc.tools.compare`` -- precision
  comparison of a result file against a golden file (:mod:`pyasc.tools.compare`).
* ``pyasc-info`` / ``python -m pyasc.tools.info`` -- version, build options,
  devices, memory and environment, like ``npu-smi info`` (:mod:`pyasc.tools.info`).
* ``pyasc-cc`` / ``python -m pyasc.tools.cc`` -- compiles Ascend C sources
  (``.asc``, ``kernel<<<...>>>`` launches) against the installed package
  (:mod:`pyasc.tools.cc`; the translation alone: :mod:`pyasc.tools.asc_translate`).
* ``pyasc-run`` / ``python -m pyasc.tools.run`` -- starts N ranks of a script for
  :mod:`pyasc.distributed` over mpirun, like torchrun (:mod:`pyasc.tools.run`).

Each module has ``main(argv=None) -> int`` (the exit status).
"""

__all__ = []
