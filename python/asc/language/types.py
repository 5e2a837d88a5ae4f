"""Parameter structs of the kernel API (``DataCopyParams``, repeat params,
``Nd2NzParams``, ``MmadParams`` ...), hicann/pyasc's names and argument order.

Inside a kernel, constructing one declares the C++ struct
(``AscendC::DataCopyParams`` ...) and sets the given fields; outside a kernel
it is a plain record.
"""

from __future__ import annotations

from ..codegen.context import current
from ..codegen.errors import KernelTypeError
from .core import (Value, dtype_of, int1, int32, uint8, uint16, uint32, uint64)

__all__ = ["DataCopyParams", "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyPadParams",
           "BinaryRepeatParams", "UnaryRepeatParams", "Nd2NzParams", "LoadData2DParams",
           "LoadData2dTransposeParams", "MmadParams", "FixpipeParamsV220", "GatherMaskParams", "BrcbRepeatParams"]


class _ParamStruct(Value):
    _cpp = ""
    _fields = ()  # (python name, C++ name, dtype, default)

    def __init__(self, *args, **kwargs):
        names = [f[0] for f in self._fields]
        if len(args) > len(names):
            raise KernelTypeError(f"{type(self).__name__} takes at most {len(names)} arguments, got {len(args)}")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise KernelTypeError(f"{type(self).__name__} has no field '{k}' (fields: {', '.join(names)})")
            if k in given:
                raise KernelTypeError(f"{type(self).__name__}: field '{k}' given twice")
            given[k] = v
        self._given = given
        tr = current()
        if tr is None:
            self.expr = None
            return
        name = tr.fresh(type(self).__name__[0].lower() + "params")
        tr.emit(f"{self._cpp_type()} {name};")
        for py, cpp, dt, _ in self._fields:
            if py in given:
                tr.emit(f"{name}.{cpp} = {tr.cx(given[py], dt)};")
        self._init(name, var=True)

    def _cpp_type(self):
        return self._cpp

    def cpp_type(self):
        return self._cpp_type()

    def __getattr__(self, name):
        for py, _, _, default in type(self)._fields:
            if py == name:
                return self.__dict__.get("_given", {}).get(py, default)
        raise AttributeError(name)

    def _getfield(self, name):
        from .core import _scalar  # noqa: PLC0415
        for py, cpp, dt, _ in self._fields:
            if py == name:
                return _scalar(f"{self.expr}.{cpp}", dt)
        raise KernelTypeError(f"{type(self).__name__} has no field '{name}'")

    def _setfield(self, name, v):
        tr = current()
        for py, cpp, dt, _ in self._fields:
            if py == name:
                tr.emit(f"{self.expr}.{cpp} = {tr.cx(v, dt)};")
                return
        raise KernelTypeError(f"{type(self).__name__} has no field '{name}'")


def _ps(name, cpp, fields, doc):
    cls = type(name, (_ParamStruct,), {"_cpp": cpp, "_fields": tuple(fields), "__doc__": doc, "__module__": __name__})
    return cls


DataCopyParams = _ps("DataCopyParams", "AscendC::DataCopyParams", [
    ("block_count", "blockCount", uint16, 1), ("block_len", "blockLen", uint16, 0),
    ("src_stride", "srcStride", uint16, 0), ("dst_stride", "dstStride", uint16, 0)],
    "``AscendC::DataCopyParams``: bursts of 32-byte blocks (count, length, gaps in blocks).")
DataCopyExtParams = _ps("DataCopyExtParams", "AscendC::DataCopyExtParams", [
    ("block_count", "blockCount", uint16, 1), ("block_len", "blockLen", uint32, 0),
    ("src_stride", "srcStride", uint32, 0), ("dst_stride", "dstStride", uint32, 0), ("rsv", "rsv", uint32, 0)],
    "``AscendC::DataCopyExtParams`` (DataCopyPad: lengths in bytes).")
DataCopyPadParams = _ps("DataCopyPadParams", "AscendC::DataCopyPadParams", [
    ("is_pad", "isPad", int1, False), ("left_padding", "leftPadding", uint8, 0),
    ("right_padding", "rightPadding", uint8, 0), ("padding_value", "paddingValue", uint64, 0)],
    "``AscendC::DataCopyPadParams``.")


class DataCopyPadExtParams(_ParamStruct):
    """``AscendC::DataCopyPadExtParams<T>`` (its dtype is taken from ``dtype=`` or the padding value's tensor)."""
    _fields = (("is_pad", "isPad", int1, False), ("left_padding", "leftPadding", uint8, 0),
               ("right_padding", "rightPadding", uint8, 0), ("padding_value", "paddingValue", None, 0))

    def __init__(self, *args, dtype=None, **kwargs):
        self._dt = dtype_of(dtype) if dtype is not None else None
        super().__init__(*args, **kwargs)

    def _cpp_type(self):
        from .core import float32  # noqa: PLC0415
        return f"AscendC::DataCopyPadExtParams<{(self._dt or float32).cpp}>"


BinaryRepeatParams = _ps("BinaryRepeatParams", "AscendC::BinaryRepeatParams", [
    ("dst_blk_stride", "dstBlkStride", uint8, 1), ("src0_blk_stride", "src0BlkStride", uint8, 1),
    ("src1_blk_stride", "src1BlkStride", uint8, 1), ("dst_rep_stride", "dstRepStride", uint8, 8),
    ("src0_rep_stride", "src0RepStride", uint8, 8), ("src1_rep_stride", "src1RepStride", uint8, 8)],
    "``AscendC::BinaryRepeatParams``: block and repeat strides of a binary vector instruction.")
UnaryRepeatParams = _ps("UnaryRepeatParams", "AscendC::UnaryRepeatParams", [
    ("dst_blk_stride", "dstBlkStride", uint16, 1), ("src_blk_stride", "srcBlkStride", uint16, 1),
    ("dst_rep_stride", "dstRepStride", uint8, 8), ("src_rep_stride", "srcRepStride", uint8, 8)],
    "``AscendC::UnaryRepeatParams``: block and repeat strides of a unary vector instruction.")
Nd2NzParams = _ps("Nd2NzParams", "AscendC::Nd2NzParams", [
    ("nd_num", "ndNum", uint16, 0), ("n_value", "nValue", uint16, 0), ("d_value", "dValue", uint16, 0),
    ("src_nd_matrix_stride", "srcNdMatrixStride", uint16, 0), ("src_d_value", "srcDValue", uint16, 0),
    ("dst_nz_c0_stride", "dstNzC0Stride", uint16, 0), ("dst_nz_n_stride", "dstNzNStride", uint16, 0),
    ("dst_nz_matrix_stride", "dstNzMatrixStride", uint16, 0)],
    "``AscendC::Nd2NzParams``: DataCopy GM (ND) → L1 (NZ).")
LoadData2DParams = _ps("LoadData2DParams", "AscendC::LoadData2DParams", [
    ("start_index", "startIndex", uint16, 0), ("repeat_times", "repeatTimes", uint8, 0),
    ("src_stride", "srcStride", uint16, 0), ("sid", "sid", uint8, 0), ("dst_gap", "dstGap", uint16, 0),
    ("if_transpose", "ifTranspose", int1, False), ("addr_mode", "addrMode", uint8, 0)],
    "``AscendC::LoadData2DParams``: L1 → L0A/L0B fractals.")
LoadData2dTransposeParams = _ps("LoadData2dTransposeParams", "AscendC::LoadData2dTransposeParams", [
    ("start_index", "startIndex", uint16, 0), ("repeat_times", "repeatTimes", uint8, 0),
    ("src_stride", "srcStride", uint16, 0), ("dst_gap", "dstGap", uint16, 0),
    ("dst_frac_gap", "dstFracGap", uint16, 0), ("addr_mode", "addrMode", uint8, 0)],
    "``AscendC::LoadData2dTransposeParams``.")
MmadParams = _ps("MmadParams", "AscendC::MmadParams", [
    ("m", "m", uint16, 0), ("n", "n", uint16, 0), ("k", "k", uint16, 0), ("is_bias", "isBias", int1, False),
    ("fm_offset", "fmOffset", int32, 0), ("en_ssparse", "enSsparse", int1, False),
    ("en_winograd_a", "enWinogradA", int1, False), ("en_winograd_b", "enWinogradB", int1, False),
    ("unit_flag", "unitFlag", uint8, 0), ("k_direction_align", "kDirectionAlign", int1, False),
    ("cmatrix_source", "cmatrixSource", int1, False), ("cmatrix_init_val", "cmatrixInitVal", int1, True)],
    "``AscendC::MmadParams``: m x k times k x n into L0C.")
FixpipeParamsV220 = _ps("FixpipeParamsV220", "AscendC::FixpipeParamsV220", [
    ("n_size", "nSize", uint16, 0), ("m_size", "mSize", uint16, 0), ("src_stride", "srcStride", uint16, 0),
    ("dst_stride", "dstStride", uint32, 0), ("quant_pre", "quantPre", None, None),
    ("deq_scalar", "deqScalar", uint64, 0), ("nd_num", "ndNum", uint16, 1),
    ("src_nd_stride", "srcNdStride", uint16, 0), ("dst_nd_stride", "dstNdStride", uint16, 0),
    ("relu_en", "reluEn", int1, False), ("unit_flag", "unitFlag", uint8, 0),
    ("is_channel_split", "isChannelSplit", int1, False)],
    "``AscendC::FixpipeParamsV220``: L0C → GM with layout conversion.")
GatherMaskParams = _ps("GatherMaskParams", "AscendC::GatherMaskParams", [
    ("src0_block_stride", "src0BlockStride", uint8, 1), ("repeat_times", "repeatTimes", uint16, 1),
    ("src0_repeat_stride", "src0RepeatStride", uint16, 8), ("src1_repeat_stride", "src1RepeatStride", uint8, 1)],
    "``AscendC::GatherMaskParams``.")
BrcbRepeatParams = _ps("BrcbRepeatParams", "AscendC::BrcbRepeatParams", [
    ("dst_blk_stride", "dstBlkStride", uint16, 1), ("dst_rep_stride", "dstRepStride", uint16, 8)],
    "``AscendC::BrcbRepeatParams``.")
