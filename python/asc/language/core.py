"""The core of the kernel language: dtypes, enums, constants and the values a
kernel computes with (``GlobalAddress``, ``GlobalTensor``, ``LocalTensor``,
scalars), as hicann/pyasc's ``asc.language.core`` names them.

Inside an ``@asc.jit`` kernel these objects stand for C++ values of the
Ascend C kernel API (``kernel_operator.h``, namespace ``AscendC``): each one
carries the C++ expression that computes it; calling their methods emits the
matching C++ statement into the kernel being translated.
"""

from __future__ import annotations

import builtins
import enum
from typing import Generic, TypeVar

import numpy as np

from ..codegen.context import builtin, current, require
from ..codegen.errors import CompilationError, KernelTypeError

__all__ = [
    "DataType", "float16", "half", "float32", "float64", "double", "bfloat16", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "int1", "bool_", "dtype_of",
    "TPosition", "HardEvent", "PipeID", "CubeFormat", "RoundMode", "CMPMODE", "SELMODE", "ReduceOrder",
    "TransposeType", "Hardware", "MaskMode",
    "ConstExpr", "GlobalAddress", "GlobalTensor", "LocalTensor", "LocalTensorAuto", "LocalMemAllocator",
    "ShapeInfo", "array", "Value", "Scalar", "range", "static_range", "property", "ceildiv",
    "TOTAL_L1_SIZE", "TOTAL_L0A_SIZE", "TOTAL_L0B_SIZE", "TOTAL_L0C_SIZE", "TOTAL_UB_SIZE", "DEFAULT_C0_SIZE",
    "ONE_BLK_SIZE", "ONE_REPEAT_BYTE_SIZE", "BLOCK_CUBE", "get_shape_size",
]


# ---------------------------------------------------------------- dtypes

class DataType:
    """A scalar type of the kernel language (``asc.float32``, ``asc.half`` ...).

    ``sizeof()`` is its size in bytes; ``cpp`` the C++ type of the kernel API.
    """

    __slots__ = ("name", "cpp", "np", "size", "kind")

    def __init__(self, name, cpp, np_dtype, size, kind):
        self.name, self.cpp, self.np, self.size, self.kind = name, cpp, np_dtype, size, kind

    def sizeof(self) -> int:
        """Size in bytes (``sizeof(T)``)."""
        return self.size

    def is_float(self) -> bool:
        """True for floating-point types."""
        return self.kind == "f"

    def is_int(self) -> bool:
        """True for signed and unsigned integers."""
        return self.kind in "iu"

    def __repr__(self):
        return f"asc.{self.name}"

    def __eq__(self, other):
        return isinstance(other, DataType) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (dtype_of, (self.name,))


float16 = DataType("float16", "half", "float16", 2, "f")
half = float16
float32 = DataType("float32", "float", "float32", 4, "f")
float64 = DataType("float64", "double", "float64", 8, "f")
double = float64
bfloat16 = DataType("bfloat16", "bfloat16_t", "bfloat16", 2, "f")
int8 = DataType("int8", "int8_t", "int8", 1, "i")
int16 = DataType("int16", "int16_t", "int16", 2, "i")
int32 = DataType("int32", "int32_t", "int32", 4, "i")
int64 = DataType("int64", "int64_t", "int64", 8, "i")
uint8 = DataType("uint8", "uint8_t", "uint8", 1, "u")
uint16 = DataType("uint16", "uint16_t", "uint16", 2, "u")
uint32 = DataType("uint32", "uint32_t", "uint32", 4, "u")
uint64 = DataType("uint64", "uint64_t", "uint64", 8, "u")
int1 = DataType("int1", "bool", "bool", 1, "b")
bool_ = int1

_BY_NAME = {d.name: d for d in (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16,
                                uint32, uint64, int1)}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "bool": int1})


def dtype_of(x) -> DataType:
    """The language dtype of a name, a NumPy dtype or a DataType."""
    if isinstance(x, DataType):
        return x
    if isinstance(x, str) and x in _BY_NAME:
        return _BY_NAME[x]
    try:
        name = np.dtype(x).name
    except TypeError:
        name = str(x).replace("torch.", "")
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise KernelTypeError(f"dtype {x!r} has no kernel type (supported: {', '.join(sorted(_BY_NAME))})")


# ---------------------------------------------------------------- enums

class _CEnum(enum.Enum):
    """An enum whose members name an Ascend C enumerator (``.cpp``)."""

    @classmethod
    def _cpp_prefix(cls):
        return f"AscendC::{cls.__name__}"

    @builtins.property
    def cpp(self):  # type: ignore[misc]
        prefix = self._cpp_prefix()
        return f"{prefix}::{self.name}" if prefix else f"::{self.name}"


def _enum(name, members, prefix=None, base=_CEnum):
    cls = base(name, [(m, i) for i, m in enumerate(members)])
    if prefix is not None:
        cls._cpp_prefix = classmethod(lambda c: prefix)
    cls.__module__ = __name__
    return cls


TPosition = _enum("TPosition", ["GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2", "VECIN", "VECOUT",
                                "VECCALC", "SPM", "TSCM", "C2PIPE2GM", "C2PIPE2LOCAL"])
TPosition.LCM = TPosition.VECCALC
TPosition.SHM = TPosition.SPM
Hardware = _enum("Hardware", ["GM", "UB", "L1", "L0A", "L0B", "L0C", "BIAS", "FIXBUF"])
HardEvent = _enum("HardEvent", ["MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
                                "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
                                "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S",
                                "S_MTE3", "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX",
                                "FIX_MTE1", "FIX_FIX"])
PipeID = _enum("PipeID", ["PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL",
                          "PIPE_MTE4", "PIPE_MTE5", "PIPE_V2", "PIPE_FIX"], prefix="")
CubeFormat = _enum("CubeFormat", ["ND", "NZ", "ZN", "ZZ", "NN", "ND_ALIGN", "SCALAR", "VECTOR"])
RoundMode = _enum("RoundMode", ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                "CAST_ODD"])
CMPMODE = _enum("CMPMODE", ["LT", "GT", "EQ", "LE", "GE", "NE"])
SELMODE = _enum("SELMODE", ["VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"])
ReduceOrder = _enum("ReduceOrder", ["ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE",
                                    "ORDER_ONLY_INDEX"])
TransposeType = _enum("TransposeType", ["TRANSPOSE_TYPE_NONE", "TRANSPOSE_NZ2ND_0213", "TRANSPOSE_NZ2NZ_0213",
                                        "TRANSPOSE_NZ2NZ_012_WITH_N", "TRANSPOSE_NZ2ND_012_WITH_N",
                                        "TRANSPOSE_NZ2ND_012_WITHOUT_N", "TRANSPOSE_NZ2NZ_012_WITHOUT_N",
                                        "TRANSPOSE_ND2ND_ONLY", "TRANSPOSE_ND_UB_GM", "TRANSPOSE_GRAD_ND_UB_GM",
                                        "TRANSPOSE_ND2ND_B16", "TRANSPOSE_NCHW2NHWC", "TRANSPOSE_NHWC2NCHW"])
MaskMode = _enum("MaskMode", ["NORMAL", "COUNTER"])


def _hardware_of(pos):
    if pos in (TPosition.A1, TPosition.B1, TPosition.C1, TPosition.TSCM):
        return Hardware.L1
    return {TPosition.A2: Hardware.L0A, TPosition.B2: Hardware.L0B, TPosition.CO1: Hardware.L0C,
            TPosition.C2: Hardware.BIAS, TPosition.GM: Hardware.GM}.get(pos, Hardware.UB)


# ---------------------------------------------------------------- platform constants (asc.property)

class _Property:
    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name, self.value = name, value

    def __repr__(self):
        return f"asc.{self.name}"


# The CPU device's per-core memories (Ascend 910B sizes, include/asc/runtime/device.h).
TOTAL_L1_SIZE = _Property("TOTAL_L1_SIZE", 512 * 1024)
TOTAL_L0A_SIZE = _Property("TOTAL_L0A_SIZE", 64 * 1024)
TOTAL_L0B_SIZE = _Property("TOTAL_L0B_SIZE", 64 * 1024)
TOTAL_L0C_SIZE = _Property("TOTAL_L0C_SIZE", 128 * 1024)
TOTAL_UB_SIZE = _Property("TOTAL_UB_SIZE", 192 * 1024)
DEFAULT_C0_SIZE = _Property("DEFAULT_C0_SIZE", 32)
ONE_BLK_SIZE = _Property("ONE_BLK_SIZE", 32)
ONE_REPEAT_BYTE_SIZE = _Property("ONE_REPEAT_BYTE_SIZE", 256)
BLOCK_CUBE = _Property("BLOCK_CUBE", 16)


def property(prop):  # noqa: A001 - hicann/pyasc's name
    """The value of a platform constant: ``asc.property(asc.TOTAL_L1_SIZE)``."""
    if isinstance(prop, _Property):
        return prop.value
    raise KernelTypeError(f"asc.property expects a platform constant such as asc.TOTAL_L1_SIZE, got {prop!r}")


def ceildiv(a, b):
    """``(a + b - 1) // b`` (host code and kernels)."""
    tr = current()
    if tr is not None and (isinstance(a, Value) or isinstance(b, Value)):
        return tr.call_scalar("asc_jit::ceildiv", [a, b], int64)
    return -(-a // b)


class ConstExpr(Generic[TypeVar("T")]):
    """``asc.ConstExpr[int]``: a kernel parameter whose value is compiled in.

    Each distinct value compiles its own kernel (the value is part of the
    cache key); inside the kernel it is a Python constant, so it can size
    queues, pick branches at compile time and unroll ``static_range`` loops.
    """


class range:  # noqa: A001 - hicann/pyasc's name
    """``asc.range(start, stop, step)``: a loop the kernel runs (a C++ ``for``), as Python's ``range``."""

    def __init__(self, *args):
        self.args = args


class static_range:
    """``asc.static_range(...)``: a loop unrolled at compile time (bounds must be constants)."""

    def __init__(self, *args):
        self.args = args


# ---------------------------------------------------------------- values

class Value:
    """A value computed by the kernel: ``expr`` is its C++ expression.

    ``var`` is True when ``expr`` names a C++ variable this translation
    declared; ``owner`` is the (frame, name) that owns that variable.
    """

    __asc_builtin__ = True
    copyable = True

    def _init(self, expr, var=False):
        self.expr = expr
        self.var = var
        self.owner = None
        tr = current()
        self._depth = tr.depth if tr is not None else 0
        return self

    @classmethod
    def _make(klass, expr, var=False, **attrs):  # noqa: N804 - 'cls' is an attribute name of StructValue
        v = klass.__new__(klass)
        v._init(expr, var)
        for k, a in attrs.items():
            setattr(v, k, a)
        return v

    def cpp_type(self):
        """The C++ type of the value."""
        raise NotImplementedError

    def same_type(self, other):
        """Whether ``other`` has the same C++ type (an assignment needs no new variable)."""
        return type(self) is type(other) and self.cpp_type() == other.cpp_type()

    def __bool__(self):
        raise CompilationError("the truth value of a kernel value is known only when the kernel runs: "
                               "use it in an if/while of the kernel (not in Python code evaluated at compile time)")

    def __repr__(self):
        return f"<{type(self).__name__} {self.expr}>"


class Scalar(Value):
    """A scalar the kernel computes (a C++ ``int64_t``, ``float``, ``bool``, ``half`` ...)."""

    def __init__(self, *a, **k):
        raise CompilationError("scalars are made by kernel expressions, not constructed")

    @builtins.property
    def dtype(self):
        return self._dtype

    def cpp_type(self):
        """The C++ type of the value."""
        return self._dtype.cpp

    def same_type(self, other):
        """Whether ``other`` has the same C++ type (an assignment needs no new variable)."""
        return isinstance(other, Scalar) and other._dtype == self._dtype

    @builtin
    def ceildiv(self, other):
        """``ceil(self / other)`` for integers."""
        return require("ceildiv").call_scalar("asc_jit::ceildiv", [self, other], int64)


def _scalar(expr, dtype, var=False):
    return Scalar._make(expr, var, _dtype=dtype)


class GlobalAddress(Value):
    """A pointer into global memory (a kernel's NumPy-array argument): ``x + n`` moves it by ``n`` elements.

    ``dtype`` is the element type (the array's dtype).
    """

    def __init__(self, *a, **k):
        raise CompilationError("asc.GlobalAddress is the type of array arguments; it is not constructed in kernels")

    def cpp_type(self):
        """The C++ type of the value."""
        return f"__gm__ {self.dtype.cpp}*"

    def _binop(self, op, other, reverse):
        tr = require("GlobalAddress +")
        if op in ("+", "-") and not reverse or op == "+":
            return GlobalAddress._make(f"({self.expr} {op} {tr.cx(other)})", dtype=self.dtype)
        raise KernelTypeError(f"GlobalAddress supports + and - with an integer, not {op}")


class _Tensor(Value):
    def _getitem(self, idx):
        tr = require("tensor[...]")
        if isinstance(idx, slice):
            if idx.step is not None:
                raise KernelTypeError("tensor slices with a step are not supported (use repeat parameters)")
            start = 0 if idx.start is None else idx.start
        else:
            start = idx
        return type(self)._make(f"{self.expr}[{tr.cx(start, uint64)}]", dtype=self.dtype,
                                **self._extra())

    def _extra(self):
        return {}

    @builtin
    def get_value(self, index):
        """The element at ``index`` (a scalar of the tensor's dtype)."""
        tr = require("get_value")
        return tr.tmp_scalar(f"{self.expr}.GetValue({tr.cx(index)})", self.dtype)

    @builtin
    def set_value(self, index, value):
        """Writes ``value`` (converted to the dtype) at ``index``."""
        tr = require("set_value")
        tr.emit(f"{self.expr}.SetValue({tr.cx(index)}, {tr.cx(value, self.dtype)});")

    @builtin
    def get_size(self):
        """Number of elements."""
        return _scalar(f"int64_t({self.expr}.GetSize())", int64)

    @builtin
    def get_phy_addr(self, offset=0):
        """Address of element ``offset``."""
        tr = require("get_phy_addr")
        return _scalar(f"reinterpret_cast<uint64_t>({self.expr}.GetPhyAddr({tr.cx(offset)}))", uint64)


class GlobalTensor(_Tensor):
    """A view of global memory (``AscendC::GlobalTensor<T>``).

    ``asc.GlobalTensor()`` declares one; ``set_global_buffer(address, size)``
    binds it (and fixes its dtype from the address).
    """

    copyable = False  # until bound, then a C++ variable

    def __init__(self, dtype=None):
        tr = require("asc.GlobalTensor")
        self._init(tr.fresh("gm"), var=True)
        self.dtype = None if dtype is None else dtype_of(dtype)
        self._slot = tr.placeholder()
        self._tr_depth = tr.depth
        if self.dtype is not None:
            tr.fill(self._slot, f"{self.cpp_type()} {self.expr};")
            self._slot = None

    def cpp_type(self):
        """The C++ type of the value."""
        return f"AscendC::GlobalTensor<{self.dtype.cpp}>"

    def _extra(self):
        return {"_slot": None}

    @builtin
    def set_global_buffer(self, buffer, buffer_size=None):
        """Binds the tensor to ``buffer`` (a GlobalAddress), optionally ``buffer_size`` elements long."""
        tr = require("set_global_buffer")
        if not isinstance(buffer, GlobalAddress):
            raise KernelTypeError(f"set_global_buffer expects a GlobalAddress (an array argument), got {buffer!r}")
        if self.dtype is None:
            self.dtype = buffer.dtype
        elif self.dtype != buffer.dtype:
            raise KernelTypeError(f"set_global_buffer: the tensor is {self.dtype}, the address {buffer.dtype}")
        if getattr(self, "_slot", None) is not None:
            tr.fill(self._slot, f"{self.cpp_type()} {self.expr};")
            self._slot = None
        size = "" if buffer_size is None else f", {tr.cx(buffer_size, uint64)}"
        tr.emit(f"{self.expr}.SetGlobalBuffer({buffer.expr}{size});")

    @builtin
    def set_l2_cache_hint(self, *args, **kwargs):
        """Accepted; the CPU device has no L2 cache control."""
        return None

    def _getitem(self, idx):
        if self.dtype is None:
            raise KernelTypeError("index a GlobalTensor after set_global_buffer")
        return super()._getitem(idx)


class LocalTensor(_Tensor):
    """A tensor in a core's local memory (``AscendC::LocalTensor<T>``).

    ``asc.LocalTensor(dtype, pos, addr, tile_size)`` places one at byte offset
    ``addr`` of the memory of position ``pos`` (as ``LocalMemAllocator`` does);
    queues and buffers (``alloc_tensor``, ``deque``, ``get``) return them too.
    """

    def __init__(self, dtype=None, pos=None, addr=0, tile_size=0):
        tr = require("asc.LocalTensor")
        if dtype is None or pos is None:
            raise KernelTypeError("asc.LocalTensor(dtype, pos, addr, tile_size) needs a dtype and a TPosition")
        self.dtype = dtype_of(dtype)
        name = tr.fresh("local")
        hw = _hardware_of(pos)
        tr.emit(f"{self.cpp_type()} {name} = asc_jit::local_at<{self.dtype.cpp}>({hw.cpp}, {pos.cpp}, "
                f"{tr.cx(addr, uint32)}, {tr.cx(tile_size, uint32)});")
        self._init(name, var=True)

    def cpp_type(self):
        """The C++ type of the value."""
        return f"AscendC::LocalTensor<{self.dtype.cpp}>"

    @builtin
    def reinterpret_cast(self, dtype):
        """The same memory seen as ``dtype``."""
        d = dtype_of(dtype)
        return LocalTensor._make(f"{self.expr}.template ReinterpretCast<{d.cpp}>()", dtype=d)

    @builtin
    def get_length(self):
        """Length in bytes."""
        return _scalar(f"int64_t({self.expr}.GetLength())", int64)

    @builtin
    def set_size(self, size):
        """Sets the element count."""
        tr = require("set_size")
        tr.emit(f"{self.expr}.SetSize({tr.cx(size, uint32)});")

    @builtin
    def get_position(self):
        """The tensor's TPosition as an integer."""
        return _scalar(f"int64_t({self.expr}.GetPosition())", int64)

    @builtin
    def set_shape_info(self, shape_info):
        """Recorded for the APIs that read it (the tensor's logical shape)."""
        self.shape_info = shape_info

    @builtin
    def get_shape_info(self):
        """The ShapeInfo given to set_shape_info, or None."""
        return getattr(self, "shape_info", None)


class LocalTensorAuto(LocalTensor):
    """``asc.LocalTensorAuto(dtype, shape)``: a local (UB) tensor whose memory the compiler places.

    Each allocation site gets its own UB space, taken from the top of the
    Unified Buffer downwards (TPipe buffers grow from the bottom), reserved
    the first time the site runs; a site inside a loop reuses its space.
    """

    def __init__(self, dtype, shape, pos=None):
        tr = require("asc.LocalTensorAuto")
        self.dtype = dtype_of(dtype)
        n = shape
        if isinstance(shape, (tuple, list)):
            n = 1
            for s in shape:
                n = tr.binop("*", n, s)
        site = tr.auto_site()
        name = tr.fresh("auto")
        tr.emit(f"{self.cpp_type()} {name} = asc_jit::local_auto<{self.dtype.cpp}>(&{site}, &__asc_auto_top, "
                f"{tr.cx(n, uint32)});")
        self._init(name, var=True)

    def cpp_type(self):
        """The C++ type of the value."""
        return f"AscendC::LocalTensor<{self.dtype.cpp}>"


class LocalMemAllocator(Value):
    """``AscendC::LocalMemAllocator<hw>``: bump allocation in a core memory (``alloc``)."""

    copyable = False

    def __init__(self, hardware=None):
        tr = require("asc.LocalMemAllocator")
        self.hardware = Hardware.UB if hardware is None else hardware
        name = tr.fresh("allocator")
        tr.emit(f"AscendC::LocalMemAllocator<{self.hardware.cpp}> {name};")
        self._init(name, var=True)

    @builtin
    def alloc(self, dtype, tile_size, pos=None):
        """A LocalTensor of ``tile_size`` elements of ``dtype``."""
        tr = require("LocalMemAllocator.alloc")
        d = dtype_of(dtype)
        name = tr.fresh("local")
        tr.emit(f"AscendC::LocalTensor<{d.cpp}> {name} = {self.expr}.template Alloc<{d.cpp}>("
                f"{tr.cx(tile_size, uint32)});")
        return LocalTensor._make(name, var=True, dtype=d)

    @builtin
    def get_cur_addr(self):
        """Offset in bytes of the next allocation."""
        return _scalar(f"int64_t({self.expr}.GetCurAddr())", int64)


class ShapeInfo:
    """A tensor's logical shape (``asc.ShapeInfo(asc.array(asc.int32, dims))``): a compile-time record."""

    def __init__(self, shape=None, *args):
        self.shape = tuple(getattr(shape, "values", shape) or ())


class _Array:
    def __init__(self, dtype, values):
        self.dtype = dtype_of(dtype)
        self.values = tuple(values)


def array(dtype, values):
    """A small compile-time array (``asc.array(asc.int32, (h, w))``)."""
    return _Array(dtype, values)


def get_shape_size(shape_info):
    """Product of a ShapeInfo's dims."""
    n = 1
    for d in shape_info.shape:
        n = n * d
    return n
