"""``asc.adv`` math and normalisation (hicann/pyasc's ``asc.language.adv.math`` / ``normalization``):
element-wise library functions over LocalTensors, ``power`` / ``xor`` / ``axpy`` and ``rmsnorm``, each
one call of the kernel API in ``include/asc/kernel/adv_ops.h`` (``AscendC::Acos`` ... ``AscendC::RmsNorm``).

Signatures: ``f(dst, src, count=None, temp_buffer=None, is_reuse_source=False)`` (``count`` defaults
to dst's size; the temporary buffer is accepted and unused: the CPU functions need none);
``exp(dst, src, count, taylor_expand_level, ...)`` is the library ``AscendC::Exp<T, level>``: level 0
the exponential, level n exp(floor(x)) times the n-term Taylor polynomial of the fraction (CANN's
formula, so its truncation error too);
``rmsnorm(dst, src, gamma, epsilon, tiling, temp_buffer=None, basic_block=False)`` reads the row
count (``b_length * s_length``), ``h_length`` and ``original_h_length`` from the RmsNormTiling.
"""

from __future__ import annotations

from ..codegen.context import builtin, require
from ..codegen.errors import KernelTypeError
from .core import Value, float32, int32, uint32
from .struct import Field, Struct, StructValue

_UNARY = {"acos": "Acos", "acosh": "Acosh", "asin": "Asin", "asinh": "Asinh", "atan": "Atan", "atanh": "Atanh",
          "ceil": "Ceil", "cos": "Cos", "cosh": "Cosh", "digamma": "Digamma", "erf": "Erf", "erfc": "Erfc",
          "floor": "Floor", "frac": "Frac", "lgamma": "Lgamma", "log": "Log", "round": "Round", "sign": "Sign",
          "sin": "Sin", "sinh": "Sinh", "tan": "Tan", "tanh": "Tanh", "trunc": "Trunc"}

__all__ = sorted(list(_UNARY) + ["exp", "power", "xor", "axpy", "rmsnorm", "RmsNormTiling"])


def _local(v, api, what):
    if getattr(v, "dtype", None) is None or not hasattr(v, "expr"):
        raise KernelTypeError(f"asc.adv.{api}: '{what}' must be a LocalTensor, got {v!r}")
    return v


def _args(tr, api, dst, srcs, count, temp_buffer):
    _local(dst, api, "dst")
    for i, s in enumerate(srcs):
        _local(s, api, f"src{i}" if len(srcs) > 1 else "src")
        if s.dtype.name != dst.dtype.name:
            raise KernelTypeError(f"asc.adv.{api}: src dtype {s.dtype} differs from dst dtype {dst.dtype}")
    parts = [dst.expr] + [s.expr for s in srcs]
    if temp_buffer is not None:
        parts.append(_local(temp_buffer, api, "temp_buffer").expr)
    if count is not None:
        parts.append(tr.cx(count, uint32))
    return ", ".join(parts)


def _make_unary(name, cpp):
    def f(dst, src, count=None, temp_buffer=None, is_reuse_source=False):
        tr = require(f"asc.adv.{name}")
        tr.emit(f"AscendC::{cpp}({_args(tr, name, dst, [src], count, temp_buffer)});")

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``AscendC::{cpp}``: dst = {name}(src) element-wise over ``count`` elements (default: dst's "
                 "size); half inputs computed in float, float in double.")
    return builtin(f)


for _n, _c in _UNARY.items():
    globals()[_n] = _make_unary(_n, _c)
del _n, _c


@builtin
def exp(dst, src, count, taylor_expand_level=0, temp_buffer=None, is_reuse_source=False):
    """``AscendC::Exp<T, taylor_expand_level>``: dst = exp(src) over ``count`` elements for level 0; for
    level n in 1..255, exp(floor(x)) * sum_{i<=n} f**i / i! with f = x - floor(x) (CANN's formula,
    evaluated in float as the NPU's library does)."""
    tr = require("asc.adv.exp")
    if isinstance(taylor_expand_level, Value):
        raise KernelTypeError("asc.adv.exp: taylor_expand_level is a compile-time int")
    level = int(taylor_expand_level)
    if not 0 <= level <= 255:
        raise KernelTypeError(f"asc.adv.exp: taylor_expand_level must be in [0, 255], got {level}")
    _args(tr, "exp", dst, [src], None, None)
    if dst.dtype.name not in ("float16", "float32"):
        raise KernelTypeError(f"asc.adv.exp takes float16 or float32 tensors, got {dst.dtype}")
    tr.emit(f"AscendC::Exp<{dst.dtype.cpp}, {level}>({dst.expr}, {src.expr}, {tr.cx(count, uint32)});")


@builtin
def power(dst, src0, src1, count=None, temp_buffer=None, is_reuse_source=False):
    """``AscendC::Power``: dst = src0 ** src1 element-wise (float types via pow in double/float, integers
    truncated)."""
    tr = require("asc.adv.power")
    tr.emit(f"AscendC::Power({_args(tr, 'power', dst, [src0, src1], count, temp_buffer)});")


@builtin
def xor(dst, src0, src1, count=None, temp_buffer=None, is_reuse_source=False):
    """``AscendC::Xor``: dst = src0 ^ src1 element-wise (integer tensors)."""
    tr = require("asc.adv.xor")
    if dst.dtype.name.startswith(("float", "half", "bfloat")):
        raise KernelTypeError(f"asc.adv.xor takes integer tensors, got {dst.dtype}")
    tr.emit(f"AscendC::Xor({_args(tr, 'xor', dst, [src0, src1], count, temp_buffer)});")


@builtin
def axpy(dst, src, scalar, count=None, temp_buffer=None, is_reuse_source=False):
    """``Axpy``: dst = src * scalar + dst over ``count`` elements (default: dst's size), as the basic
    ``AscendC::Axpy`` (the CPU computes it in the tensor dtype either way)."""
    tr = require("asc.adv.axpy")
    _args(tr, "axpy", dst, [src], None, None)
    n = f"static_cast<int32_t>({dst.expr}.GetSize())" if count is None else tr.cx(count, int32)
    tr.emit(f"AscendC::Axpy({dst.expr}, {src.expr}, {tr.cx(scalar, src.dtype)}, {n});")


class RmsNormTiling(Struct):
    """RmsNorm's tiling (hicann/pyasc's field names; the C++ ``AscendC::RmsNormTiling`` of adv_ops.h).
    The CPU kernel reads ``b_length``, ``s_length``, ``h_length`` and ``original_h_length`` (0: h_length)."""

    _cpp = "AscendC::RmsNormTiling"
    _layout = ("bLength", "sLength", "hLength", "originalHLength", "reciprocalOfHLength", "mainBshLength",
               "mainBsLength", "mainBsLengthAlign", "loopRound", "inputTailPos", "tailBshLength", "tailBsLength")
    b_length = Field(int32, 0, "bLength")
    s_length = Field(int32, 0, "sLength")
    h_length = Field(int32, 0, "hLength")
    original_h_length = Field(int32, 0, "originalHLength")
    reciprocal_of_h_length = Field(float32, 0.0, "reciprocalOfHLength")
    main_bsh_length = Field(int32, 0, "mainBshLength")
    main_bs_length = Field(int32, 0, "mainBsLength")
    main_bs_length_align = Field(int32, 0, "mainBsLengthAlign")
    loop_round = Field(int32, 0, "loopRound")
    input_tail_pos = Field(int32, 0, "inputTailPos")
    tail_bsh_length = Field(int32, 0, "tailBshLength")
    tail_bs_length = Field(int32, 0, "tailBsLength")


@builtin
def rmsnorm(dst, src, gamma, epsilon, tiling, temp_buffer=None, basic_block=False):
    """``AscendC::RmsNorm``: per row of ``tiling.b_length * tiling.s_length`` rows of ``h_length``
    elements, dst = src / sqrt(mean(src^2) + epsilon) * gamma (the mean over ``original_h_length``)."""
    tr = require("asc.adv.rmsnorm")
    if not isinstance(tiling, StructValue):
        raise KernelTypeError(f"asc.adv.rmsnorm: tiling must be the kernel's RmsNormTiling argument, got {tiling!r}")
    if isinstance(basic_block, Value):
        raise KernelTypeError("asc.adv.rmsnorm: basic_block is a compile-time bool")
    srcs = _args(tr, "rmsnorm", dst, [src, gamma], None, temp_buffer)
    eps = tr.cx(epsilon, dst.dtype)
    tmpl = f"<{dst.dtype.cpp}, {'true' if basic_block else 'false'}>"
    tr.emit(f"AscendC::RmsNorm{tmpl}({srcs}, {eps}, {tiling.expr});")
