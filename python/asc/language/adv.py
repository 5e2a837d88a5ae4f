"""The advanced kernel API (hicann/pyasc's ``asc.language.adv``): the
high-level ``Matmul`` (``AscendC::Matmul``) with ``register_matmul`` and its
tiling struct ``TCubeTiling``.

MIX kernels (a Matmul without ``@asc.jit(matmul_cube_only=True)``) run, as
the hardware does, one cube and two vector instances per block: the kernel is
launched with 3 x ``core_num`` CPU blocks; ``asc.get_block_idx()`` in a
vector instance is ``2 * block + sub_block`` and the cube instance leaves the
kernel at ``register_matmul`` (its work, the matrix product, is done by the
Matmul calls of the vector instances).
"""

from __future__ import annotations

from ..codegen.context import builtin, require
from ..codegen.errors import KernelTypeError
from .core import CubeFormat, TPosition, Value, dtype_of, float32, int32, uint8, uint32
from .struct import Field, Struct, StructValue

__all__ = ["Matmul", "MatmulType", "MatmulConfig", "register_matmul", "TCubeTiling", "SoftmaxTiling",
           "RmsNormTiling", "get_normal_config", "get_mdl_config", "get_basic_config", "get_mm_config",
           "get_special_basic_config", "get_special_mdl_config", "get_ib_share_norm_config", "softmax", "quant",
           "rms_norm", "rmsnorm", "exp", "power", "xor", "axpy", "acos", "acosh", "asin", "asinh", "atan",
           "atanh", "ceil", "cos", "cosh", "digamma", "erf", "erfc", "floor", "frac", "lgamma", "log", "round",
           "sign", "sin", "sinh", "tan", "tanh", "trunc"]


_TCUBE_LAYOUT = ("usedCoreNum", "M", "N", "Ka", "Kb", "singleCoreM", "singleCoreN", "singleCoreK", "baseM", "baseN",
                 "baseK", "depthA1", "depthB1", "stepM", "stepN", "isBias", "transLength", "iterateOrder",
                 "shareMode", "shareL1Size", "shareL0CSize", "shareUbSize", "batchM", "batchN", "singleBatchM",
                 "singleBatchN", "stepKa", "stepKb", "depthAL1CacheUB", "depthBL1CacheUB", "dbL0A", "dbL0B",
                 "dbL0C", "reserved")


class TCubeTiling(Struct):
    """The Matmul tiling (``TCubeTiling``): hicann/pyasc's field names, the C++ members of
    ``include/asc/kernel/matmul_tiling.h``. The layout/batch fields the CPU struct lacks stay on the host."""

    _cpp = "TCubeTiling"
    _layout = _TCUBE_LAYOUT
    used_core_num = Field(int32, 0, "usedCoreNum")
    m = Field(int32, 0, "M")
    n = Field(int32, 0, "N")
    k_a = Field(int32, 0, "Ka")
    k_b = Field(int32, 0, "Kb")
    single_core_m = Field(int32, 0, "singleCoreM")
    single_core_n = Field(int32, 0, "singleCoreN")
    single_core_k = Field(int32, 0, "singleCoreK")
    base_m = Field(int32, 0, "baseM")
    base_n = Field(int32, 0, "baseN")
    base_k = Field(int32, 0, "baseK")
    depth_a1 = Field(int32, 0, "depthA1")
    depth_b1 = Field(int32, 0, "depthB1")
    step_m = Field(int32, 0, "stepM")
    step_n = Field(int32, 0, "stepN")
    is_bias = Field(int32, 0, "isBias")
    trans_length = Field(int32, 0, "transLength")
    iterate_order = Field(int32, 0, "iterateOrder")
    share_mode = Field(int32, 0, "shareMode")
    share_l1_size = Field(int32, 0, "shareL1Size")
    share_l0c_size = Field(int32, 0, "shareL0CSize")
    share_ub_size = Field(int32, 0, "shareUbSize")
    batch_m = Field(int32, 0, "batchM")
    batch_n = Field(int32, 0, "batchN")
    single_batch_m = Field(int32, 0, "singleBatchM")
    single_batch_n = Field(int32, 0, "singleBatchN")
    step_k_a = Field(int32, 0, "stepKa")
    step_k_b = Field(int32, 0, "stepKb")
    depth_a_l1_cache_ub = Field(int32, 0, "depthAL1CacheUB")
    depth_b_l1_cache_ub = Field(int32, 0, "depthBL1CacheUB")
    db_l0a = Field(int32, 0, "dbL0A")
    db_l0b = Field(int32, 0, "dbL0B")
    db_l0c = Field(int32, 0, "dbL0C")
    a_layout_info_b = Field(int32, 0, None)
    a_layout_info_s = Field(int32, 0, None)
    a_layout_info_n = Field(int32, 0, None)
    a_layout_info_g = Field(int32, 0, None)
    a_layout_info_d = Field(int32, 0, None)
    b_layout_info_b = Field(int32, 0, None)
    b_layout_info_s = Field(int32, 0, None)
    b_layout_info_n = Field(int32, 0, None)
    b_layout_info_g = Field(int32, 0, None)
    b_layout_info_d = Field(int32, 0, None)
    c_layout_info_b = Field(int32, 0, None)
    c_layout_info_s1 = Field(int32, 0, None)
    c_layout_info_n = Field(int32, 0, None)
    c_layout_info_g = Field(int32, 0, None)
    c_layout_info_s2 = Field(int32, 0, None)
    batch_num = Field(int32, 0, None)


class SoftmaxTiling(Struct):
    """SoftMax's tiling (``AscendC::SoftMaxTiling``); the CPU SoftMax reads the shape from the source tensor's
    shape info and needs none of these fields."""
    _cpp = "AscendC::SoftMaxTiling"
    _layout = ("srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize",
               "reduceM", "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize", "tailReduceSize")
    src_m = Field(uint32, 0, "srcM")
    src_k = Field(uint32, 0, "srcK")
    src_size = Field(uint32, 0, "srcSize")
    out_max_m = Field(uint32, 0, "outMaxM")
    out_max_k = Field(uint32, 0, "outMaxK")
    out_max_size = Field(uint32, 0, "outMaxSize")
    split_m = Field(uint32, 0, "splitM")
    split_k = Field(uint32, 0, "splitK")
    split_size = Field(uint32, 0, "splitSize")
    reduce_m = Field(uint32, 0, "reduceM")
    reduce_k = Field(uint32, 0, "reduceK")
    reduce_size = Field(uint32, 0, "reduceSize")
    range_m = Field(uint32, 0, "rangeM")
    tail_m = Field(uint32, 0, "tailM")
    tail_split_size = Field(uint32, 0, "tailSplitSize")
    tail_reduce_size = Field(uint32, 0, "tailReduceSize")


class MatmulType:
    """One Matmul operand: position, format, dtype, transposed (``AscendC::MatmulType``)."""

    def __init__(self, position=TPosition.GM, format=CubeFormat.ND, dtype=float32,  # noqa: A002
                 is_trans=False, layout=None, ib_share=False):
        if isinstance(is_trans, Value) or isinstance(dtype, Value):
            raise KernelTypeError("MatmulType takes compile-time values (dtype, is_trans)")
        self.position, self.format, self.dtype, self.is_trans = position, format, dtype_of(dtype), bool(is_trans)

    @property
    def cpp(self):
        return (f"AscendC::MatmulType<{self.position.cpp}, {self.format.cpp}, {self.dtype.cpp}, "
                f"{'true' if self.is_trans else 'false'}>")


class MatmulConfig:
    """A Matmul configuration (hicann/pyasc's ``MatmulConfig``); the CPU Matmul has one (CFG_NORM)."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def get_normal_config(*a, **k):
    """CFG_NORM."""
    return MatmulConfig(*a, **k)


get_mdl_config = get_basic_config = get_mm_config = get_special_basic_config = get_normal_config
get_special_mdl_config = get_ib_share_norm_config = get_normal_config


class _Iterate(Value):
    copyable = False

    def _with_loop(self):
        tr = require("Matmul.iterate")
        cnt = tr.fresh("count")
        return f"for (int64_t {cnt} = 0; {self._cond_expr}; ++{cnt}) {{", cnt


class Matmul(Value):
    """``AscendC::Matmul<A, B, C, BIAS>``: C = A x B (+ bias) over the tiling's pieces.

    ``with matmul.iterate() as count:`` runs its body once per baseM x baseN
    piece (``count`` = 0, 1, ...), after which ``get_tensor_c`` fetches it.
    """

    copyable = False

    def __init__(self, a, b, c, bias=None, matmul_config=None, callback=None):
        tr = require("asc.adv.Matmul")
        types = [a.cpp, b.cpp, c.cpp] + ([bias.cpp] if bias is not None else [])
        self.a, self.b, self.c, self.bias = a, b, c, bias
        name = tr.fresh("matmul")
        tr.emit(f"AscendC::Matmul<{', '.join(types)}> {name};")
        self._init(name, var=True)
        tr.uses_matmul = True

    def _call(self, api, cpp, *args):
        tr = require(f"Matmul.{api}")
        tr.emit(f"{self.expr}.{cpp}({', '.join(args)});")

    @builtin
    def init(self, tiling, pipe=None):
        """``Init(&tiling, pipe)``."""
        self._call("init", "Init", _tiling_ptr(tiling), *([f"&{pipe.expr}"] if pipe is not None else []))

    @builtin
    def set_tensor_a(self, tensor, is_transpose_a=False):
        """``SetTensorA(tensor, is_transpose_a)``: A in GM or local memory."""
        tr = require("Matmul.set_tensor_a")
        self._call("set_tensor_a", "SetTensorA", tensor.expr, tr.cx(is_transpose_a))

    @builtin
    def set_tensor_b(self, tensor, is_transpose_b=False):
        """``SetTensorB(tensor, is_transpose_b)``."""
        tr = require("Matmul.set_tensor_b")
        self._call("set_tensor_b", "SetTensorB", tensor.expr, tr.cx(is_transpose_b))

    @builtin
    def set_bias(self, tensor):
        """``SetBias(tensor)``: C = A x B + bias."""
        self._call("set_bias", "SetBias", tensor.expr)

    @builtin
    def disable_bias(self):
        """``DisableBias()``."""
        self._call("disable_bias", "DisableBias")

    @builtin
    def set_tail(self, tail_m=-1, tail_n=-1, tail_k=-1):
        """``SetTail(m, n, k)``: this block's piece is smaller than the tiling's single-core shape."""
        tr = require("Matmul.set_tail")
        self._call("set_tail", "SetTail", tr.cx(tail_m, int32), tr.cx(tail_n, int32), tr.cx(tail_k, int32))

    @builtin
    def set_org_shape(self, org_m, org_n, org_ka, org_kb=None, org_kc=0):
        """``SetOrgShape``: the full matrices' shapes (row strides)."""
        tr = require("Matmul.set_org_shape")
        args = [org_m, org_n, org_ka] + ([org_kb] if org_kb is not None else [])
        self._call("set_org_shape", "SetOrgShape", *(tr.cx(x, int32) for x in args))

    @builtin
    def set_single_shape(self, single_m, single_n, single_k):
        """``SetSingleShape``: this block's piece."""
        tr = require("Matmul.set_single_shape")
        self._call("set_single_shape", "SetSingleShape", *(tr.cx(x, int32) for x in (single_m, single_n, single_k)))

    @builtin
    def set_workspace(self, *args):
        """Accepted; the CPU Matmul needs no workspace."""
        return None

    @builtin
    def set_hf32(self, *args):
        """Accepted; float32 products are exact-accumulated in float32."""
        return None

    @builtin
    def iterate(self, en_partial_sum=False):
        """One more piece: a context manager (``with mm.iterate() as count:``) or a bool."""
        tr = require("Matmul.iterate")
        return _Iterate._make("", _cond_expr=f"{self.expr}.Iterate({tr.cx(en_partial_sum)})")

    @builtin
    def get_tensor_c(self, tensor, en_atomic=0, en_sequential_write=False):
        """``GetTensorC(tensor, en_atomic, en_sequential_write)``: the current piece into GM or a local tensor."""
        tr = require("Matmul.get_tensor_c")
        self._call("get_tensor_c", "GetTensorC", tensor.expr, tr.cx(en_atomic, uint8), tr.cx(en_sequential_write))

    @builtin
    def iterate_all(self, tensor, en_atomic=0, en_sequential_write=False, wait_iterate=True, fake_msg=False):
        """``IterateAll(tensor, en_atomic)``: every piece into ``tensor`` (GM)."""
        tr = require("Matmul.iterate_all")
        self._call("iterate_all", "IterateAll", tensor.expr, tr.cx(en_atomic, uint8), tr.cx(en_sequential_write))

    @builtin
    def wait_iterate_all(self):
        """Nothing to wait for (synchronous on the CPU)."""
        return None

    @builtin
    def end(self):
        """``End()``."""
        self._call("end", "End")


def _tiling_ptr(tiling):
    if isinstance(tiling, StructValue):
        return f"&{tiling.expr}"
    if tiling is None:
        return "nullptr"
    raise KernelTypeError(f"a Matmul tiling must be the kernel's TCubeTiling argument, got {tiling!r}")


@builtin
def register_matmul(pipe, workspace, matmul, tiling=None):
    """``REGIST_MATMUL_OBJ(&pipe, workspace, matmul, &tiling)``; in a MIX kernel the cube instance leaves here."""
    tr = require("asc.adv.register_matmul")
    ws = workspace.expr if isinstance(workspace, Value) else "nullptr"
    tr.emit(f"REGIST_MATMUL_OBJ(&{pipe.expr}, {ws}, {matmul.expr}, {_tiling_ptr(tiling)});")
    tr.uses_matmul = True
    if not tr.kernel_cube_only:
        tr.emit("if (__asc_mix_cube) return;")


@builtin
def quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False, config=None):
    """``AscendC::AscendQuant``: dst (int8) = saturate(rint(src * scale + offset)), computed in src's dtype."""
    tr = require("asc.adv.quant")
    if dst.dtype.name != "int8":
        raise KernelTypeError(f"asc.adv.quant writes int8, dst is {dst.dtype}")
    n = f"static_cast<uint32_t>({src.expr}.GetSize())" if count is None else tr.cx(count, uint32)
    tmp = "" if temp_buffer is None else f"{temp_buffer.expr}, "
    tr.emit(f"AscendC::AscendQuant({dst.expr}, {src.expr}, {tmp}{tr.cx(scale, float32)}, "
            f"{tr.cx(offset, float32)}, {n});")


@builtin
def softmax(dst, sum, max, src, tiling=None, temp_buffer=None, reuse_source=False,  # noqa: A002
            basic_block=False, data_format_nz=False):
    """``AscendC::SoftMax``: row softmax of src's ``set_shape_info`` shape [..., k] (rows = product of the
    other dims); sum and max get one 32-byte block per row."""
    tr = require("asc.adv.softmax")
    shape = getattr(src, "shape_info", None)
    if shape is None or not shape.shape:
        raise KernelTypeError("asc.adv.softmax needs src's shape: call src.set_shape_info(asc.ShapeInfo(...)) first")
    if data_format_nz:
        raise KernelTypeError("asc.adv.softmax: the NZ data format is not supported on the CPU device")
    dims = [tr.cx(d, uint32) for d in shape.shape]
    k = dims[-1]
    m = " * ".join(dims[:-1]) or "1u"
    tmp = "" if temp_buffer is None else f"{temp_buffer.expr}, "
    tr.emit(f"AscendC::SoftMax({dst.expr}, {sum.expr}, {max.expr}, {src.expr}, {tmp}AscendC::SoftMaxTiling{{}}, "
            f"AscendC::SoftMaxShapeInfo{{{m}, {k}, {m}, {k}}});")


from .adv_math import *  # noqa: E402,F401,F403
from .adv_math import RmsNormTiling, rmsnorm  # noqa: E402,F401

rms_norm = rmsnorm  # the name this package used before hicann/pyasc's ``rmsnorm``
