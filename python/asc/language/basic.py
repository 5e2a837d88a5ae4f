"""The basic kernel API (hicann/pyasc's ``asc.language.basic``): each function
emits the Ascend C call of the same meaning (``asc.add`` → ``AscendC::Add``).

Vector instructions take hicann/pyasc's three forms:

* count form ``asc.add(dst, src0, src1, count)``;
* mask + repeat form ``asc.add(dst, src0, src1, mask, repeat_times, repeat_params)``
  with ``mask`` an int (the first ``mask`` lanes of each repeat) or a list of
  two 64-bit words (a bit mask);
* the same with ``is_set_mask=False``: the mask register (``set_vector_mask``)
  gives the lanes.
"""

from __future__ import annotations

from ..codegen.context import builtin, require
from ..codegen.errors import KernelTypeError
from .core import Value, _scalar, _Tensor, dtype_of, int1, int32, int64, uint8, uint16, uint32, uint64, float32
from .types import _ParamStruct

_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min",
           "bitwise_and": "And", "bitwise_or": "Or", "add_relu": "AddRelu", "sub_relu": "SubRelu",
           "mul_add_dst": "MulAddDst", "fused_mul_add": "FusedMulAdd", "fused_mul_add_relu": "FusedMulAddRelu"}
_UNARY = {"exp": "Exp", "ln": "Ln", "abs": "Abs", "relu": "Relu", "sqrt": "Sqrt", "rsqrt": "Rsqrt",
          "reciprocal": "Reciprocal", "bitwise_not": "Not", "neg": "Neg"}
_SCALAR = {"adds": "Adds", "muls": "Muls", "maxs": "Maxs", "mins": "Mins", "leaky_relu": "LeakyRelu",
           "shift_left": "ShiftLeft", "shift_right": "ShiftRight", "axpy": "Axpy"}

__all__ = sorted(list(_BINARY) + list(_UNARY) + list(_SCALAR) + [
    "data_copy", "data_copy_pad", "duplicate", "cast", "compare", "compare_scalar", "select", "reduce_sum",
    "reduce_max", "reduce_min", "whole_reduce_sum", "whole_reduce_max", "whole_reduce_min", "block_reduce_sum",
    "block_reduce_max", "block_reduce_min", "pair_reduce_sum", "gather", "scatter", "brcb", "transpose",
    "gather_mask", "sort32", "sort", "extract", "concat", "create_vec_index", "mmad", "load_data",
    "load_data_with_transpose", "fixpipe", "set_flag", "wait_flag", "pipe_barrier", "set_atomic_add",
    "set_atomic_max", "set_atomic_min", "set_atomic_none", "set_atomic_type", "printf", "dump_tensor",
    "get_block_idx", "get_block_num", "get_sub_block_idx", "get_sub_block_num", "get_task_ratio",
    "ascend_is_aic", "ascend_is_aiv", "get_system_cycle", "set_vector_mask", "reset_mask", "set_mask_count",
    "set_mask_norm", "scalar_cast", "scalar_count_leading_zero", "scalar_get_count_of_value", "init_soc_state",
    "sync_all", "ib_set", "ib_wait", "cross_core_set_flag", "cross_core_wait_flag", "wait_pre_block",
    "notify_next_block", "data_sync_barrier", "trap", "get_data_block_size_in_bytes", "init_const_value",
    "set_load_data_padding_value", "get_sys_workspace", "trans_data_to_5hd", "mrg_sort", "get_mrg_sort_result",
    "bilinear_interpolation"])


def _tensor(v, api, what="dst"):
    if not isinstance(v, _Tensor) or v.dtype is None:
        raise KernelTypeError(f"asc.{api}: '{what}' must be a LocalTensor or GlobalTensor, got {v!r}")
    return v


def _mask(tr, mask):
    if isinstance(mask, (list, tuple)):
        if len(mask) != 2:
            raise KernelTypeError(f"a bit mask is a list of two 64-bit words, got {len(mask)} values")
        name = tr.fresh("mask")
        tr.emit(f"uint64_t {name}[2] = {{{tr.cx(mask[0], uint64)}, {tr.cx(mask[1], uint64)}}};")
        return name
    return tr.cx(mask, uint64)


def _params_expr(tr, p, cls=None):
    if isinstance(p, _ParamStruct) and p.expr is not None:
        return p.expr
    if isinstance(p, _ParamStruct):  # made outside the kernel: rebuild it here
        return type(p)(**p._given).expr
    raise KernelTypeError(f"expected {cls.__name__ if cls else 'a parameter struct'}, got {p!r}")


def _split_forms(api, args, kwargs, n_fixed_after=0):
    """(count, mask, repeat_times, params, is_set_mask, extra) of a vector call."""
    kw = dict(kwargs)
    count = kw.pop("count", kw.pop("cal_count", None))
    mask = kw.pop("mask", None)
    repeat = kw.pop("repeat_times", kw.pop("repeat_time", None))
    params = kw.pop("repeat_params", kw.pop("params", None))
    is_set_mask = kw.pop("is_set_mask", True)
    args = list(args)
    if count is None and mask is None:
        if len(args) == 1:
            count = args.pop(0)
        elif len(args) >= 3:
            mask, repeat, params = args[:3]
            args = args[3:]
            if args:
                is_set_mask = args.pop(0)
        elif len(args) == 2 and repeat is None:
            mask, repeat = args
            args = []
        elif len(args) == 2:
            count, is_set_mask = args
            args = []
        elif len(args) == 0:
            raise KernelTypeError(f"asc.{api}: give a count or mask, repeat_times and repeat_params")
    elif count is not None and args:
        is_set_mask = args.pop(0)
    elif mask is not None and args:
        if repeat is None:
            repeat = args.pop(0)
        if params is None and args:
            params = args.pop(0)
    if kw:
        raise KernelTypeError(f"asc.{api}: unexpected argument(s) {', '.join(kw)}")
    return count, mask, repeat, params, is_set_mask, args


def _set_mask_tmpl(d, is_set_mask):
    if isinstance(is_set_mask, Value):
        raise KernelTypeError("is_set_mask must be a compile-time bool")
    return "" if is_set_mask else f"<{d.cpp}, false>"


def _vec(api, cpp, dst, srcs, args, kwargs, scalar=None, has_scalar=False):
    tr = require(f"asc.{api}")
    _tensor(dst, api)
    for i, s in enumerate(srcs):
        _tensor(s, api, f"src{i}" if len(srcs) > 1 else "src")
    count, mask, repeat, params, is_set_mask, rest = _split_forms(api, args, kwargs)
    if rest:
        raise KernelTypeError(f"asc.{api}: too many arguments")
    parts = [dst.expr] + [s.expr for s in srcs]
    if has_scalar:
        parts.append(tr.cx(scalar, srcs[0].dtype if srcs else dst.dtype))
    if count is not None:
        parts.append(tr.cx(count, int32))
    else:
        parts += [_mask(tr, mask), tr.cx(repeat, uint8), _params_expr(tr, params)]
    tr.emit(f"AscendC::{cpp}{_set_mask_tmpl(dst.dtype, is_set_mask)}({', '.join(parts)});")


def _make_binary(name, cpp):
    def f(dst, src0, src1, *args, **kwargs):
        _vec(name, cpp, dst, [src0, src1], args, kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``AscendC::{cpp}``: dst = {name}(src0, src1) element-wise.\n\n"
                 f"``{name}(dst, src0, src1, count)`` or ``{name}(dst, src0, src1, mask, repeat_times, "
                 "repeat_params, is_set_mask=True)``.")
    return builtin(f)


def _make_unary(name, cpp):
    def f(dst, src, *args, **kwargs):
        _vec(name, cpp, dst, [src], args, kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``AscendC::{cpp}``: dst = {name}(src) element-wise.\n\n"
                 f"``{name}(dst, src, count)`` or ``{name}(dst, src, mask, repeat_times, repeat_params)``.")
    return builtin(f)


def _make_scalar(name, cpp):
    def f(dst, src, scalar, *args, **kwargs):
        _vec(name, cpp, dst, [src], args, kwargs, scalar=scalar, has_scalar=True)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``AscendC::{cpp}``: element-wise with a scalar.\n\n"
                 f"``{name}(dst, src, scalar, count)`` or ``{name}(dst, src, scalar, mask, repeat_times, "
                 "repeat_params)``.")
    return builtin(f)


for _n, _c in _BINARY.items():
    globals()[_n] = _make_binary(_n, _c)
for _n, _c in _UNARY.items():
    globals()[_n] = _make_unary(_n, _c)
for _n, _c in _SCALAR.items():
    globals()[_n] = _make_scalar(_n, _c)


# ---------------------------------------------------------------- data movement

@builtin
def data_copy(dst, src, *args, count=None, repeat_params=None, intri_params=None, **kwargs):
    """``AscendC::DataCopy``: ``data_copy(dst, src, count)``, ``data_copy(dst, src, repeat_params=DataCopyParams)``
    or ``data_copy(dst, src, intri_params=Nd2NzParams)`` between GM and local tensors."""
    tr = require("asc.data_copy")
    _tensor(dst, "data_copy")
    _tensor(src, "data_copy", "src")
    params = repeat_params if repeat_params is not None else intri_params
    params = kwargs.pop("params", params)
    if kwargs:
        raise KernelTypeError(f"asc.data_copy: unexpected argument(s) {', '.join(kwargs)}")
    if args:
        if len(args) != 1:
            raise KernelTypeError("asc.data_copy takes (dst, src, count) or (dst, src, params)")
        if isinstance(args[0], _ParamStruct):
            params = args[0]
        else:
            count = args[0]
    if params is not None:
        tr.emit(f"AscendC::DataCopy({dst.expr}, {src.expr}, {_params_expr(tr, params)});")
    elif count is not None:
        tr.emit(f"AscendC::DataCopy({dst.expr}, {src.expr}, {tr.cx(count, uint32)});")
    else:
        raise KernelTypeError("asc.data_copy needs a count or a parameter struct")


@builtin
def data_copy_pad(dst, src, copy_params, pad_params=None):
    """``AscendC::DataCopyPad`` (byte-exact copies with padding)."""
    tr = require("asc.data_copy_pad")
    parts = [dst.expr, src.expr, _params_expr(tr, copy_params)]
    if pad_params is not None:
        if getattr(pad_params, "_dt", "x") is None:
            pad_params._dt = src.dtype
        parts.append(_params_expr(tr, pad_params))
    tr.emit(f"AscendC::DataCopyPad({', '.join(parts)});")


@builtin
def duplicate(dst, scalar, *args, **kwargs):
    """``AscendC::Duplicate``: ``duplicate(dst, scalar, count)`` or
    ``duplicate(dst, scalar, mask, repeat_times, dst_block_stride, dst_repeat_stride)``."""
    tr = require("asc.duplicate")
    _tensor(dst, "duplicate")
    kw = dict(kwargs)
    count = kw.pop("count", None)
    v = tr.cx(scalar, dst.dtype)
    if count is None and len(args) == 1:
        count = args[0]
    if count is not None:
        tr.emit(f"AscendC::Duplicate({dst.expr}, {v}, {tr.cx(count, int32)});")
        return
    names = ["mask", "repeat_times", "dst_block_stride", "dst_repeat_stride"]
    vals = dict(zip(names, args))
    vals.update({k: kw.pop(k) for k in list(kw) if k in names})
    if set(vals) != set(names):
        raise KernelTypeError("asc.duplicate: give a count or mask, repeat_times, dst_block_stride, "
                              "dst_repeat_stride")
    tr.emit(f"AscendC::Duplicate({dst.expr}, {v}, {_mask(tr, vals['mask'])}, {tr.cx(vals['repeat_times'], uint8)}, "
            f"{tr.cx(vals['dst_block_stride'], uint16)}, {tr.cx(vals['dst_repeat_stride'], uint8)});")


@builtin
def cast(dst, src, round_mode, *args, **kwargs):
    """``AscendC::Cast``: ``cast(dst, src, round_mode, count)`` or the mask + repeat form."""
    tr = require("asc.cast")
    count, mask, repeat, params, is_set_mask, _ = _split_forms("cast", args, kwargs)
    if count is not None:
        tr.emit(f"AscendC::Cast({dst.expr}, {src.expr}, {round_mode.cpp}, {tr.cx(count, uint32)});")
    else:
        tmpl = "" if is_set_mask else f"<{dst.dtype.cpp}, {src.dtype.cpp}, false>"
        tr.emit(f"AscendC::Cast{tmpl}({dst.expr}, {src.expr}, {round_mode.cpp}, {_mask(tr, mask)}, "
                f"{tr.cx(repeat, uint8)}, {_params_expr(tr, params)});")


# ---------------------------------------------------------------- compare / select

@builtin
def compare(dst, src0, src1, cmp_mode, *args, **kwargs):
    """``AscendC::Compare`` into a bit mask: count form or mask + repeat form."""
    tr = require("asc.compare")
    count, mask, repeat, params, is_set_mask, _ = _split_forms("compare", args, kwargs)
    if count is not None:
        tr.emit(f"AscendC::Compare({dst.expr}, {src0.expr}, {src1.expr}, {cmp_mode.cpp}, {tr.cx(count, uint32)});")
    else:
        tr.emit(f"AscendC::Compare({dst.expr}, {src0.expr}, {src1.expr}, {cmp_mode.cpp}, {_mask(tr, mask)}, "
                f"{tr.cx(repeat, uint8)}, {_params_expr(tr, params)});")


@builtin
def compare_scalar(dst, src0, scalar, cmp_mode, *args, **kwargs):
    """``AscendC::CompareScalar`` into a bit mask."""
    tr = require("asc.compare_scalar")
    count, mask, repeat, params, is_set_mask, _ = _split_forms("compare_scalar", args, kwargs)
    s = tr.cx(scalar, src0.dtype)
    if count is not None:
        tr.emit(f"AscendC::CompareScalar({dst.expr}, {src0.expr}, {s}, {cmp_mode.cpp}, {tr.cx(count, uint32)});")
    else:
        tr.emit(f"AscendC::CompareScalar({dst.expr}, {src0.expr}, {s}, {cmp_mode.cpp}, {_mask(tr, mask)}, "
                f"{tr.cx(repeat, uint8)}, {_params_expr(tr, params)});")


@builtin
def select(dst, sel_mask, src0, src1, sel_mode, *args, **kwargs):
    """``AscendC::Select``: ``src1`` a tensor (TENSOR_TENSOR) or a scalar (TENSOR_SCALAR)."""
    tr = require("asc.select")
    count, mask, repeat, params, is_set_mask, _ = _split_forms("select", args, kwargs)
    s1 = src1.expr if isinstance(src1, _Tensor) else tr.cx(src1, dst.dtype)
    head = f"AscendC::Select({dst.expr}, {sel_mask.expr}, {src0.expr}, {s1}, {sel_mode.cpp}"
    if count is not None:
        tr.emit(f"{head}, {tr.cx(count, uint32)});")
    else:
        tr.emit(f"{head}, {_mask(tr, mask)}, {tr.cx(repeat, uint8)}, {_params_expr(tr, params)});")


# ---------------------------------------------------------------- reductions

def _make_reduce(name, cpp):
    def f(dst, src, work, *args, count=None, cal_index=False, mask=None, repeat_times=None, src_rep_stride=None,
          **kwargs):
        tr = require(f"asc.{name}")
        a = list(args)
        if count is None and mask is None and len(a) in (1, 2):
            count = a[0]
            if len(a) == 2:
                cal_index = a[1]
        elif count is None and mask is None and len(a) >= 3:
            mask, repeat_times, src_rep_stride = a[:3]
            if len(a) == 4:
                cal_index = a[3]
        if cpp == "ReduceSum" and cal_index:
            raise KernelTypeError("asc.reduce_sum has no index (cal_index is for reduce_max / reduce_min)")
        idx = "" if cpp == "ReduceSum" else f", {tr.cx(bool(cal_index))}"
        if count is not None:
            tr.emit(f"AscendC::{cpp}({dst.expr}, {src.expr}, {work.expr}, {tr.cx(count, int32)}{idx});")
        else:
            m = _mask(tr, mask) if isinstance(mask, (list, tuple)) else tr.cx(mask, int32)
            tr.emit(f"AscendC::{cpp}({dst.expr}, {src.expr}, {work.expr}, {m}, "
                    f"{tr.cx(repeat_times, int32)}, {tr.cx(src_rep_stride, int32)}{idx});")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``AscendC::{cpp}``: ``{name}(dst, src, work, count, cal_index=False)`` or "
                 f"``{name}(dst, src, work, mask, repeat_times, src_rep_stride, cal_index=False)``.")
    return builtin(f)


reduce_sum = _make_reduce("reduce_sum", "ReduceSum")
reduce_max = _make_reduce("reduce_max", "ReduceMax")
reduce_min = _make_reduce("reduce_min", "ReduceMin")


def _make_whole(name, cpp, has_order):
    def f(dst, src, mask, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride, order=None):
        tr = require(f"asc.{name}")
        extra = f", {order.cpp}" if (has_order and order is not None) else ""
        tr.emit(f"AscendC::{cpp}({dst.expr}, {src.expr}, {_mask(tr, mask)}, {tr.cx(repeat_times, int32)}, "
                f"{tr.cx(dst_rep_stride, int32)}, {tr.cx(src_blk_stride, int32)}, {tr.cx(src_rep_stride, int32)}"
                f"{extra});")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``AscendC::{cpp}``: one result per repeat."
    return builtin(f)


whole_reduce_sum = _make_whole("whole_reduce_sum", "WholeReduceSum", False)
whole_reduce_max = _make_whole("whole_reduce_max", "WholeReduceMax", True)
whole_reduce_min = _make_whole("whole_reduce_min", "WholeReduceMin", True)


def _make_block(name, cpp):
    def f(dst, src, repeat_times, mask, dst_rep_stride, src_blk_stride, src_rep_stride):
        tr = require(f"asc.{name}")
        tr.emit(f"AscendC::{cpp}({dst.expr}, {src.expr}, {tr.cx(repeat_times, int32)}, {_mask(tr, mask)}, "
                f"{tr.cx(dst_rep_stride, int32)}, {tr.cx(src_blk_stride, int32)}, {tr.cx(src_rep_stride, int32)});")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``AscendC::{cpp}``: one result per 32-byte block."
    return builtin(f)


block_reduce_sum = _make_block("block_reduce_sum", "BlockReduceSum")
block_reduce_max = _make_block("block_reduce_max", "BlockReduceMax")
block_reduce_min = _make_block("block_reduce_min", "BlockReduceMin")


@builtin
def pair_reduce_sum(dst, src, repeat_times, mask, dst_rep_stride, src_blk_stride, src_rep_stride):
    """``AscendC::PairReduceSum``: sums of adjacent pairs."""
    tr = require("asc.pair_reduce_sum")
    tr.emit(f"AscendC::PairReduceSum({dst.expr}, {src.expr}, {tr.cx(repeat_times, int32)}, {_mask(tr, mask)}, "
            f"{tr.cx(dst_rep_stride, int32)}, {tr.cx(src_blk_stride, int32)}, {tr.cx(src_rep_stride, int32)});")


# ---------------------------------------------------------------- gather / sort / transpose

def _generic(api, cpp, *args, tmpl=""):
    tr = require(f"asc.{api}")
    parts = []
    for a in args:
        if isinstance(a, _ParamStruct):
            parts.append(_params_expr(tr, a))
        elif isinstance(a, (list, tuple)):
            parts.append(_mask(tr, a))
        else:
            parts.append(tr.cx(a))
    tr.emit(f"AscendC::{cpp}{tmpl}({', '.join(parts)});")


@builtin
def gather(dst, src, src_offset, src_base_addr, count, *args):
    """``AscendC::Gather``: dst[i] = src at byte offset src_offset[i] - src_base_addr."""
    _generic("gather", "Gather", dst, src, src_offset, src_base_addr, count, *args)


@builtin
def scatter(dst, src, dst_offset, dst_base_addr, count, *args):
    """``AscendC::Scatter``."""
    _generic("scatter", "Scatter", dst, src, dst_offset, dst_base_addr, count, *args)


@builtin
def brcb(dst, src, repeat_times, repeat_params):
    """``AscendC::Brcb``: each of 8 elements broadcast to a 32-byte block."""
    _generic("brcb", "Brcb", dst, src, repeat_times, repeat_params)


@builtin
def transpose(dst, src, *args):
    """``AscendC::Transpose`` (16 x 16 two-byte elements, or the extended form)."""
    _generic("transpose", "Transpose", dst, src, *args)


@builtin
def trans_data_to_5hd(dst_list, src_list, params):
    """``AscendC::TransDataTo5HD``."""
    _generic("trans_data_to_5hd", "TransDataTo5HD", dst_list, src_list, params)


@builtin
def gather_mask(dst, src0, src1_pattern, reduce_mode, mask, params, rsvd_cnt=None):
    """``AscendC::GatherMask`` (a built-in pattern number or a pattern tensor); returns the kept count."""
    tr = require("asc.gather_mask")
    cnt = tr.fresh("rsvd_cnt")
    tr.emit(f"uint64_t {cnt} = 0;")
    pat = src1_pattern.expr if isinstance(src1_pattern, _Tensor) else tr.cx(src1_pattern, uint8)
    tr.emit(f"AscendC::GatherMask({dst.expr}, {src0.expr}, {pat}, {tr.cx(reduce_mode)}, {tr.cx(mask, uint32)}, "
            f"{_params_expr(tr, params)}, {cnt});")
    return _scalar(f"int64_t({cnt})", int64)


@builtin
def sort32(dst, src0, src1, repeat_times):
    """``AscendC::Sort32``: sorts 32-element groups (value, index) descending."""
    _generic("sort32", "Sort32", dst, src0, src1, repeat_times)


@builtin
def sort(dst, concat, index, tmp, repeat_times, is_full_sort=True):
    """``AscendC::Sort<T, isFullSort>``."""
    _generic("sort", "Sort", dst, concat, index, tmp, repeat_times,
             tmpl=f"<{dst.dtype.cpp}, {'true' if is_full_sort else 'false'}>")


@builtin
def extract(dst_value, dst_index, sorted_, repeat_times):
    """``AscendC::Extract``: values and indices out of sorted proposals."""
    _generic("extract", "Extract", dst_value, dst_index, sorted_, repeat_times)


@builtin
def concat(dst, src, tmp, repeat_times):
    """``AscendC::Concat``: values into proposals."""
    _generic("concat", "Concat", dst, src, tmp, repeat_times)


@builtin
def mrg_sort(dst, src_list, params):
    """``AscendC::MrgSort``."""
    _generic("mrg_sort", "MrgSort", dst, src_list, params)


@builtin
def get_mrg_sort_result(*args):
    """``AscendC::GetMrgSortResult``."""
    _generic("get_mrg_sort_result", "GetMrgSortResult", *args)


@builtin
def create_vec_index(dst, first_value, count):
    """``AscendC::CreateVecIndex``: dst[i] = first_value + i."""
    tr = require("asc.create_vec_index")
    tr.emit(f"AscendC::CreateVecIndex({dst.expr}, {tr.cx(first_value, dst.dtype)}, {tr.cx(count, uint32)});")


# ---------------------------------------------------------------- cube

@builtin
def mmad(dst, fm, filter_, *args):
    """``AscendC::Mmad(dst, fm, filter, [bias,] params)``: L0A x L0B into L0C."""
    _generic("mmad", "Mmad", dst, fm, filter_, *args)


@builtin
def load_data(dst, src, params):
    """``AscendC::LoadData``: L1 / GM → L0A / L0B fractals."""
    _generic("load_data", "LoadData", dst, src, params)


@builtin
def load_data_with_transpose(dst, src, params):
    """``AscendC::LoadDataWithTranspose``."""
    _generic("load_data_with_transpose", "LoadDataWithTranspose", dst, src, params)


@builtin
def fixpipe(dst, src, params, *args):
    """``AscendC::Fixpipe``: L0C → GM (NZ → ND, float → dst type)."""
    _generic("fixpipe", "Fixpipe", dst, src, params, *args)


@builtin
def init_const_value(dst, params):
    """``AscendC::InitConstValue``."""
    _generic("init_const_value", "InitConstValue", dst, params)


@builtin
def set_load_data_padding_value(value):
    """``AscendC::SetLoadDataPaddingValue``."""
    _generic("set_load_data_padding_value", "SetLoadDataPaddingValue", value)


# ---------------------------------------------------------------- synchronisation

@builtin
def set_flag(event, event_id=0):
    """``AscendC::SetFlag<event>(id)`` (checked by the kernel checker; ordering is sequential on the CPU)."""
    tr = require("asc.set_flag")
    tr.emit(f"AscendC::SetFlag<{event.cpp}>({tr.cx(event_id, int32)});")


@builtin
def wait_flag(event, event_id=0):
    """``AscendC::WaitFlag<event>(id)``."""
    tr = require("asc.wait_flag")
    tr.emit(f"AscendC::WaitFlag<{event.cpp}>({tr.cx(event_id, int32)});")


@builtin
def pipe_barrier(pipe):
    """``AscendC::PipeBarrier<pipe>()``."""
    require("asc.pipe_barrier").emit(f"AscendC::PipeBarrier<{pipe.cpp}>();")


@builtin
def data_sync_barrier(*args):
    """A memory barrier (``DataSyncBarrier``): a fence on the CPU."""
    require("asc.data_sync_barrier").emit("std::atomic_thread_fence(std::memory_order_seq_cst);")


# The role flags of a MIX kernel (python/asc/runtime/jit.py): its AIC and two
# AIV parts are separate blocks of one launch (raw index % 3 == 0 is the AIC).
_MIX = "(__asc_task_ratio > 1 || __asc_mix_cube)"
_AIV_BLOCKS = ("[](uint32_t b) { return b % 3 != 0; }", "the AIV blocks")


def _not_in_mix(tr, api):
    """Refuses `api` in a MIX kernel at run time, naming the kernel's line: the
    block indices it takes are those of a pure vector kernel."""
    from ..codegen.translator import _cpp_str
    f, line, _ = tr._loc()
    tr.emit(f'if {_MIX} {{ asc_jit::assert_fail("asc.{api}: not supported in a MIX (cube + vector) kernel on the '
            f'CPU device; use asc.sync_all or a vector-only kernel", "{_cpp_str(f or "?")}", {int(line or 0)}); }}')


@builtin
def sync_all(gm_workspace=None, ub_workspace=None, used_cores=0, is_aiv_only=True):
    """``AscendC::SyncAll``: a barrier across the blocks of a launch.

    ``sync_all()`` is the hard form: every block (``is_aiv_only=True``: every
    AIV block of a MIX kernel; ``False``: the AIC blocks too) arrives before
    any goes on. ``sync_all(gm_workspace, ub_workspace, used_cores=0)`` is the
    soft form among blocks ``[0, used_cores)`` (0 = all), with CANN's
    workspace size checks (``GetBlockNum() * 32`` bytes each). The runtime
    keeps every block of such a launch resident, so any block count works; a
    block that never arrives fails the launch naming the blocks (no hang)."""
    tr = require("asc.sync_all")
    aiv_only = _const(is_aiv_only, "is_aiv_only", bool)
    if gm_workspace is not None or ub_workspace is not None:
        if gm_workspace is None or ub_workspace is None:
            raise KernelTypeError("asc.sync_all: the soft form takes both gm_workspace and ub_workspace")
        _tensor(gm_workspace, "sync_all", "gm_workspace")
        _tensor(ub_workspace, "sync_all", "ub_workspace")
        _not_in_mix(tr, "sync_all(gm_workspace, ub_workspace)")
        tr.emit(f"AscendC::SyncAll({gm_workspace.expr}, {ub_workspace.expr}, {tr.cx(used_cores, int32)});")
        return
    member, who = _AIV_BLOCKS
    if aiv_only:
        # MIX: the AIV blocks meet, the AIC part passes (CANN: isAIVOnly syncs the vector cores only).
        tr.emit(f"if {_MIX} {{ if (!__asc_mix_cube) asc::kernel::block_sync::barrier_among(\"SyncAll\", "
                f"asc::kernel::block_sync::kSyncAll, {member}, \"{who}\"); }} else {{ AscendC::SyncAll(); }}")
    else:
        tr.emit("AscendC::SyncAll<false>();")


@builtin
def ib_set(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only=True):
    """``AscendC::IBSet``: waits until block ``block_idx``'s flag for ``event_id`` in
    ``gm_workspace`` (int32, zero-initialised) is clear, then sets it."""
    tr = require("asc.ib_set")
    _tensor(gm_workspace, "ib_set", "gm_workspace")
    _tensor(ub_workspace, "ib_set", "ub_workspace")
    _not_in_mix(tr, "ib_set")
    tr.emit(f"AscendC::IBSet<{'true' if is_aiv_only else 'false'}>({gm_workspace.expr}, {ub_workspace.expr}, "
            f"{tr.cx(block_idx, int32)}, {tr.cx(event_id, int32)});")


@builtin
def ib_wait(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only=True):
    """``AscendC::IBWait``: waits until block ``block_idx``'s flag for ``event_id`` is
    set by its ``ib_set``, then clears it."""
    tr = require("asc.ib_wait")
    _tensor(gm_workspace, "ib_wait", "gm_workspace")
    _tensor(ub_workspace, "ib_wait", "ub_workspace")
    _not_in_mix(tr, "ib_wait")
    tr.emit(f"AscendC::IBWait<{'true' if is_aiv_only else 'false'}>({gm_workspace.expr}, {ub_workspace.expr}, "
            f"{tr.cx(block_idx, int32)}, {tr.cx(event_id, int32)});")


@builtin
def cross_core_set_flag(flag_id, mode_id, pipe):
    """``AscendC::CrossCoreSetFlag<mode_id, pipe>(flag_id)``; mode 0 counts towards the
    barrier of every block of the launch."""
    tr = require("asc.cross_core_set_flag")
    tr.emit(f"AscendC::CrossCoreSetFlag<{int(_const(mode_id))}, {pipe.cpp}>({tr.cx(flag_id, uint16)});")


@builtin
def cross_core_wait_flag(flag_id, mode_id=0, pipe=None):
    """``AscendC::CrossCoreWaitFlag(flag_id)``: consumes a set of modes 1/2, or waits
    until every block has set a mode-0 flag."""
    tr = require("asc.cross_core_wait_flag")
    p = "PIPE_S" if pipe is None else pipe.cpp
    tr.emit(f"AscendC::CrossCoreWaitFlag<{int(_const(mode_id))}, {p}>({tr.cx(flag_id, uint16)});")


@builtin
def wait_pre_block(gm_workspace, ub_workspace):
    """``AscendC::WaitPreBlock``: the section after it runs after block ``i - 1``'s
    ``notify_next_block`` (blocks in index order, round after round)."""
    tr = require("asc.wait_pre_block")
    _not_in_mix(tr, "wait_pre_block")
    tr.emit(f"AscendC::WaitPreBlock({_tensor(gm_workspace, 'wait_pre_block', 'gm_workspace').expr}, "
            f"{_tensor(ub_workspace, 'wait_pre_block', 'ub_workspace').expr});")


@builtin
def notify_next_block(gm_workspace, ub_workspace):
    """``AscendC::NotifyNextBlock``: lets block ``i + 1``'s ``wait_pre_block`` return."""
    tr = require("asc.notify_next_block")
    _not_in_mix(tr, "notify_next_block")
    tr.emit(f"AscendC::NotifyNextBlock({_tensor(gm_workspace, 'notify_next_block', 'gm_workspace').expr}, "
            f"{_tensor(ub_workspace, 'notify_next_block', 'ub_workspace').expr});")


def _const(v, what="mode_id", kind=int):
    """A compile-time value (a Python int/bool, as ConstExpr arguments are at translation)."""
    if isinstance(v, Value) or not isinstance(v, kind):
        raise KernelTypeError(f"asc: '{what}' must be a compile-time {kind.__name__}, got {v!r}")
    return v


# ---------------------------------------------------------------- atomics

def _atomic(name, cpp):
    def f(dtype=None):
        tr = require(f"asc.{name}")
        tmpl = "" if dtype is None else f"<{dtype_of(dtype).cpp}>"
        tr.emit(f"AscendC::{cpp}{tmpl}();")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``AscendC::{cpp}<T>()``: later GM writes of the block combine ({name[11:] or 'none'})."
    return builtin(f)


set_atomic_add = _atomic("set_atomic_add", "SetAtomicAdd")
set_atomic_max = _atomic("set_atomic_max", "SetAtomicMax")
set_atomic_min = _atomic("set_atomic_min", "SetAtomicMin")
set_atomic_type = _atomic("set_atomic_type", "SetAtomicType")


@builtin
def set_atomic_none():
    """``AscendC::SetAtomicNone()``."""
    require("asc.set_atomic_none").emit("AscendC::SetAtomicNone();")


# ---------------------------------------------------------------- debug

@builtin
def printf(fmt, *args):
    """``AscendC::printf(fmt, args...)`` (``%d %u %f %x %s %p``)."""
    tr = require("asc.printf")
    if not isinstance(fmt, str):
        raise KernelTypeError("asc.printf: the format must be a string constant")
    from ..codegen.translator import _cpp_str  # noqa: PLC0415
    parts = [f'"{_cpp_str(fmt)}"'] + [f'"{_cpp_str(a)}"' if isinstance(a, str) else tr.cx(a) for a in args]
    tr.emit(f"AscendC::printf({', '.join(parts)});")


@builtin
def dump_tensor(tensor, desc, dump_size, shape_info=None):
    """``AscendC::DumpTensor(tensor, desc, dump_size)``."""
    tr = require("asc.dump_tensor")
    tr.emit(f"AscendC::DumpTensor({tensor.expr}, {tr.cx(desc, uint32)}, {tr.cx(dump_size, uint32)});")


@builtin
def trap():
    """Stops the kernel with an error (``trap``)."""
    tr = require("asc.trap")
    tr.emit('asc_jit::assert_fail("asc.trap()", __FILE__, __LINE__);')


# ---------------------------------------------------------------- system values

@builtin
def get_block_idx():
    """Index of the running block (of its kind: vector or cube instance in MIX kernels)."""
    require("asc.get_block_idx")
    return _scalar("__asc_block_idx", int64)


@builtin
def get_block_num():
    """The launch's block count (``core_num`` of ``kernel[core_num, stream]``)."""
    require("asc.get_block_num")
    return _scalar("__asc_block_num", int64)


@builtin
def get_sub_block_idx():
    """0 or 1: which vector instance of its block (MIX kernels); 0 otherwise."""
    require("asc.get_sub_block_idx")
    return _scalar("__asc_sub_block_idx", int64)


@builtin
def get_sub_block_num():
    """Vector instances per block: 2 in MIX kernels, else 1."""
    require("asc.get_sub_block_num")
    return _scalar("__asc_task_ratio", int64)


@builtin
def get_task_ratio():
    """Vector instances per cube instance: 2 in the vector instances of a MIX kernel, else 1."""
    require("asc.get_task_ratio")
    return _scalar("__asc_task_ratio", int64)


@builtin
def ascend_is_aic():
    """True in the cube instance (``ASCEND_IS_AIC``)."""
    require("asc.ascend_is_aic")
    return _scalar("__asc_is_aic", int1)


@builtin
def ascend_is_aiv():
    """True in the vector instances (``ASCEND_IS_AIV``)."""
    require("asc.ascend_is_aiv")
    return _scalar("__asc_is_aiv", int1)


@builtin
def get_system_cycle():
    """``AscendC::GetSystemCycle()``."""
    require("asc.get_system_cycle")
    return _scalar("AscendC::GetSystemCycle()", int64)


@builtin
def get_data_block_size_in_bytes():
    """32."""
    return 32


@builtin
def get_sys_workspace():
    """``GetSysWorkSpacePtr()`` (the CPU Matmul needs no system workspace)."""
    from .core import GlobalAddress, uint8 as u8  # noqa: PLC0415
    return GlobalAddress._make("AscendC::GetSysWorkSpacePtr()", dtype=u8)


@builtin
def init_soc_state():
    """Nothing to initialise on the CPU device."""
    return None


# ---------------------------------------------------------------- mask register

@builtin
def set_vector_mask(*args, dtype=None, mode=None):
    """``SetVectorMask<T, mode>(len)`` or ``(mask_high, mask_low)``."""
    tr = require("asc.set_vector_mask")
    d = dtype_of(dtype) if dtype is not None else None
    if d is None and args and isinstance(args[-1], type(float32)):
        d = args[-1]
        args = args[:-1]
    d = d or float32
    m = f", {mode.cpp}" if mode is not None else ""
    tr.emit(f"AscendC::SetVectorMask<{d.cpp}{m}>({', '.join(tr.cx(a, uint64) for a in args)});")


@builtin
def reset_mask():
    """``AscendC::ResetMask()``: all lanes."""
    require("asc.reset_mask").emit("AscendC::ResetMask();")


@builtin
def set_mask_count():
    """``AscendC::SetMaskCount()``: the mask register counts elements."""
    require("asc.set_mask_count").emit("AscendC::SetMaskCount();")


@builtin
def set_mask_norm():
    """``AscendC::SetMaskNorm()``: the mask register is a bit mask."""
    require("asc.set_mask_norm").emit("AscendC::SetMaskNorm();")


# ---------------------------------------------------------------- scalar functions

@builtin
def scalar_cast(value, dtype, round_mode=None):
    """A scalar converted to ``dtype``."""
    tr = require("asc.scalar_cast")
    d = dtype_of(dtype)
    return _scalar(f"static_cast<{d.cpp}>({tr.cx(value)})", d)


@builtin
def scalar_count_leading_zero(value):
    """Leading zero bits of a 64-bit value."""
    tr = require("asc.scalar_count_leading_zero")
    return _scalar(f"asc_jit::clz64(static_cast<uint64_t>({tr.cx(value)}))", int64)


@builtin
def scalar_get_count_of_value(value, count_value=1):
    """Number of bits equal to ``count_value`` in a 64-bit value."""
    tr = require("asc.scalar_get_count_of_value")
    bits = f"__builtin_popcountll(static_cast<uint64_t>({tr.cx(value)}))"
    return _scalar(bits if count_value else f"(64 - {bits})", int64)


@builtin
def bilinear_interpolation(dst, src0, src0_offset, src1, mask, h_repeat, repeat_mode, dst_blk_stride, v_r_offset,
                           v_repeat, shared_tmp_buffer):
    """``AscendC::BilinearInterpolation``: blocks of src0 gathered at byte offsets, scaled by src1 and summed
    over ``h_repeat`` into dst (see include/asc/kernel/adv_ops.h)."""
    tr = require("asc.bilinear_interpolation")
    if isinstance(mask, (list, tuple)):
        raise KernelTypeError("asc.bilinear_interpolation: the bit-mask form is not supported (give a lane count)")
    tr.emit(f"AscendC::BilinearInterpolation({dst.expr}, {src0.expr}, {src0_offset.expr}, {src1.expr}, "
            f"{tr.cx(mask, uint64)}, {tr.cx(h_repeat, uint8)}, {tr.cx(repeat_mode)}, {tr.cx(dst_blk_stride, uint16)}, "
            f"{tr.cx(v_r_offset, uint16)}, {tr.cx(v_repeat, uint8)}, {shared_tmp_buffer.expr});")
