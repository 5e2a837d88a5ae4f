"""Host-side tiling helpers (hicann/pyasc's ``asc.lib.host``).

``MultiCoreMatmulTiling`` fills an ``asc.adv.TCubeTiling`` with pyasc's C++
``matmul_tiling::MultiCoreMatmulTiling`` (``include/asc/kernel/matmul_tiling.h``,
the same code ``.asc`` programs use), through a small shim compiled once and
kept in the kernel cache.
"""

from __future__ import annotations

import ctypes
import enum
import threading

import pyasc

__all__ = ["TPosition", "CubeFormat", "DataType", "MatrixTraverse", "MatmulApiTiling", "MultiCoreMatmulTiling",
           "PlatformAscendC", "get_ascendc_platform"]


class TPosition(enum.IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 11
    SPM = 12
    SHM = 12
    TSCM = 13


class CubeFormat(enum.IntEnum):
    ND = 0
    NZ = 1
    ZN = 2
    ZZ = 3
    NN = 4
    ND_ALIGN = 5
    SCALAR = 6
    VECTOR = 7


class DataType(enum.IntEnum):
    """ge::DataType numbering."""
    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_BF16 = 27
    DT_UNDEFINED = 28


class MatrixTraverse(enum.IntEnum):
    NOSET = 0
    FIRSTM = 1
    FIRSTN = 2


class PlatformAscendC:
    """The platform the tiling is computed for: the CPU device (its core count and the 910B memory sizes)."""

    def get_core_num(self):
        return int(pyasc.get_device_properties().num_cores)

    get_core_num_aic = get_core_num
    get_core_num_aiv = get_core_num

    def get_soc_version(self):
        return "Ascend910B1"


def get_ascendc_platform():
    """The :class:`PlatformAscendC` of the CPU device."""
    return PlatformAscendC()


_SHIM = r'''
#include <cstring>
#include "tiling/tiling_api.h"
extern "C" long long asc_host_matmul_tiling(const int* c, int* out, int multi) {
  using namespace matmul_tiling;
  MultiCoreMatmulTiling mt;
  MatmulApiTiling st;
  MatmulApiTiling& t = multi ? static_cast<MatmulApiTiling&>(mt) : st;
  if (c[0] >= 0) t.SetAType(TPosition(c[0]), CubeFormat(c[1]), DataType(c[2]), c[3] != 0);
  if (c[4] >= 0) t.SetBType(TPosition(c[4]), CubeFormat(c[5]), DataType(c[6]), c[7] != 0);
  if (c[8] >= 0) t.SetCType(TPosition(c[8]), CubeFormat(c[9]), DataType(c[10]));
  if (c[11] >= 0) t.SetBiasType(TPosition(c[11]), CubeFormat(c[12]), DataType(c[13]));
  mt.SetDim(c[14]);
  if (c[15] > 0) t.SetOrgShape(c[15], c[16], c[17], c[18]);
  t.SetShape(c[19], c[20], c[21]);
  t.SetBias(c[22] != 0);
  t.SetBufferSpace(c[23], c[24], c[25]);
  t.SetTraverse(MatrixTraverse(c[26]));
  t.SetFixSplit(c[27], c[28], c[29]);
  mt.SetSingleShape(c[30], c[31], c[32]);
  ::TCubeTiling r;
  const long long rc = t.GetTiling(r);
  std::memcpy(out, &r, sizeof r);
  return rc;
}
'''

_lib = None
_lib_lock = threading.Lock()


def _shim():
    global _lib
    with _lib_lock:
        if _lib is None:
            from ...runtime import compiler  # noqa: PLC0415
            so, _ = compiler.compile_source(_SHIM, "matmul_tiling_shim")
            lib = compiler.load_library(so)
            lib.asc_host_matmul_tiling.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
                                                   ctypes.c_int]
            lib.asc_host_matmul_tiling.restype = ctypes.c_longlong
            _lib = lib
        return _lib


class MatmulApiTiling:
    """Single-core Matmul tiling (``matmul_tiling::MatmulApiTiling``): hicann/pyasc's snake_case methods."""

    _multi = 0

    def __init__(self, platform=None):
        self._c = [-1, 0, 0, 0, -1, 0, 0, 0, -1, 0, 0, -1, 0, 0, 1, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, 0,
                   -1, -1, -1, -1, -1, -1]

    def set_a_type(self, pos, fmt, dtype, is_trans=False):
        self._c[0:4] = [int(pos), int(fmt), int(dtype), int(bool(is_trans))]
        return 0

    def set_b_type(self, pos, fmt, dtype, is_trans=False):
        self._c[4:8] = [int(pos), int(fmt), int(dtype), int(bool(is_trans))]
        return 0

    def set_c_type(self, pos, fmt, dtype):
        self._c[8:11] = [int(pos), int(fmt), int(dtype)]
        return 0

    def set_bias_type(self, pos, fmt, dtype):
        self._c[11:14] = [int(pos), int(fmt), int(dtype)]
        return 0

    def set_org_shape(self, org_m, org_n, org_ka, org_kb=None):
        self._c[15:19] = [int(org_m), int(org_n), int(org_ka), int(org_ka if org_kb is None else org_kb)]
        return 0

    def set_shape(self, m, n, k):
        self._c[19:22] = [int(m), int(n), int(k)]
        return 0

    def enable_bias(self, is_bias=False):
        self._c[22] = int(bool(is_bias))
        return 0

    set_bias = enable_bias

    def set_buffer_space(self, l1_size=-1, l0c_size=-1, ub_size=-1, bt_size=-1):
        self._c[23:26] = [int(l1_size), int(l0c_size), int(ub_size)]
        return 0

    def set_traverse(self, traverse):
        self._c[26] = int(traverse)
        return 0

    def set_fix_split(self, base_m=-1, base_n=-1, base_k=-1):
        self._c[27:30] = [int(base_m), int(base_n), int(base_k)]
        return 0

    def get_tiling(self, tiling):
        """Fills ``tiling`` (an ``asc.adv.TCubeTiling``); 0 on success, -1 when no tiling fits (reason logged)."""
        from ...language.adv import TCubeTiling  # noqa: PLC0415
        if not isinstance(tiling, TCubeTiling):
            raise TypeError(f"get_tiling expects an asc.adv.TCubeTiling, got {type(tiling).__name__}")
        cfg = (ctypes.c_int * len(self._c))(*self._c)
        out = TCubeTiling.ctype()()
        rc = _shim().asc_host_matmul_tiling(cfg, ctypes.cast(ctypes.pointer(out), ctypes.POINTER(ctypes.c_int)),
                                            self._multi)
        if rc == 0:
            for k, f in TCubeTiling._fields.items():
                if f.name in TCubeTiling._layout:
                    setattr(tiling, k, getattr(out, f.name))
        return int(rc)


class MultiCoreMatmulTiling(MatmulApiTiling):
    """Matmul tiling split over ``set_dim`` cores (``matmul_tiling::MultiCoreMatmulTiling``)."""

    _multi = 1

    def set_dim(self, dim):
        self._c[14] = int(dim)
        return 0

    def set_single_shape(self, single_m=-1, single_n=-1, single_k=-1):
        self._c[30:33] = [int(single_m), int(single_n), int(single_k)]
        return 0
