"""asc.ops: tensor formats of the Ascend AI Core (CANN's rules).

``to_format(x, format, src_format=None, shape=None)`` converts between

* ``"NCHW"`` / ``"NHWC"``: plain 4-D layouts;
* ``"NC1HWC0"``: (N, C1, H, W, C0) with C split into C1 = ceil(C / C0) blocks of
  C0 channels, the last block zero padded. C0 = 16 for 2- and 4-byte dtypes
  (float16, bfloat16, float32, int16, int32), 32 for 1-byte dtypes (int8, uint8,
  bool) — the cube unit's 32-byte (int8) / 16-element (float16) fractal edge;
  8-byte dtypes use 16 (CANN does not define them);
* ``"FRACTAL_Z"``: the convolution weight format. A weight (N=Cout, C=Cin, H, W)
  becomes (C1 * H * W, N1, 16, C0) with N1 = ceil(N / 16):
  ``dst[(c1 * H + h) * W + w, n1, n0, c0] = weight[n1 * 16 + n0, c1 * C0 + c0, h, w]``,
  zero padded in N and C (groups = 1).

Converting back from a padded format crops to ``shape`` (the logical NCHW shape;
required from FRACTAL_Z, whose H and W are folded; default for NC1HWC0: keep the
padded C1 * C0 channels). Results are new C-contiguous arrays (the layout is the
physical order). ``FORMAT_IDS`` / :func:`format_id` give CANN's ``aclFormat`` ids
(include/acl/acl_base.h). The CPU kernels of pyasc do not use these formats
internally (oneDNN picks its own blocked layouts, e.g. nChw16c, inside a primitive).
"""

from __future__ import annotations

from ._util import _asc, _err  # noqa: F401 - shared helpers

import operator as _operator

__all__ = ["to_format", "format_id", "c0_of", "FORMAT_IDS"]

#: CANN's aclFormat ids (acl_base.h).
FORMAT_IDS = {
    "UNDEFINED": -1, "NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NC1HWC0_C04": 12,
    "HWCN": 16, "NDHWC": 27, "FRACTAL_NZ": 29, "NCDHW": 30, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33, "NC": 35,
    "NCL": 47,
}

_SUPPORTED = ("NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z")


def format_id(name):
    """CANN's aclFormat id of a format name (``format_id("NC1HWC0") == 3``)."""
    try:
        return FORMAT_IDS[str(name).upper()]
    except KeyError:
        raise _err("AscendValueError", "INVALID_PARAM", f"[format_id] unknown format {name!r}; known: "
                                                        f"{', '.join(FORMAT_IDS)}") from None


def c0_of(dtype):
    """C0 of NC1HWC0 / FRACTAL_Z for ``dtype``: 32 for 1-byte dtypes, 16 otherwise."""
    import numpy as np

    return 32 if np.dtype(dtype).itemsize == 1 else 16


def _check_format(f, what):
    if not isinstance(f, str) or f.upper() not in _SUPPORTED:
        raise _err("AscendValueError", "INVALID_PARAM",
                   f"[to_format] {what} must be one of {', '.join(_SUPPORTED)}, got {f!r}")
    return f.upper()


def _ceil(a, b):
    return -(-a // b)


def _to_nchw(x, src, shape, c0):
    asc = _asc()
    if src == "NCHW":
        return x
    if src == "NHWC":
        return asc.transpose(x, (0, 3, 1, 2))
    if src == "NC1HWC0":
        if x.ndim != 5 or x.shape[4] != c0:
            raise _err("AscendValueError", "INVALID_SHAPE",
                       f"[to_format] an NC1HWC0 input must be 5-D (N, C1, H, W, {c0}) for {x.dtype}, "
                       f"got shape {tuple(x.shape)}")
        n, c1, h, w, _ = x.shape
        y = asc.reshape(asc.transpose(x, (0, 1, 4, 2, 3)), (n, c1 * c0, h, w))
        c = c1 * c0 if shape is None else shape[1]
        if shape is not None and (shape[0] != n or shape[2] != h or shape[3] != w or not
                                  (c1 - 1) * c0 < c <= c1 * c0):
            raise _err("AscendValueError", "INVALID_SHAPE",
                       f"[to_format] shape {tuple(shape)} does not fit the NC1HWC0 input of shape {tuple(x.shape)}")
        return y[:, :c]
    # FRACTAL_Z
    if shape is None:
        raise _err("AscendValueError", "INVALID_PARAM",
                   "[to_format] converting from FRACTAL_Z needs shape=(N, C, H, W) (H and W are folded)")
    n, c, h, w = shape
    c1, n1 = _ceil(c, c0), _ceil(n, 16)
    if x.ndim != 4 or tuple(x.shape) != (c1 * h * w, n1, 16, c0):
        raise _err("AscendValueError", "INVALID_SHAPE",
                   f"[to_format] a FRACTAL_Z weight of logical shape {tuple(shape)} must have shape "
                   f"{(c1 * h * w, n1, 16, c0)}, got {tuple(x.shape)}")
    y = asc.reshape(x, (c1, h, w, n1, 16, c0))
    y = asc.reshape(asc.transpose(y, (3, 4, 0, 5, 1, 2)), (n1 * 16, c1 * c0, h, w))
    return y[:n, :c]


def to_format(x, format, src_format=None, shape=None):
    """Converts ``x`` to ``format`` ("NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z") with CANN's rules.

    Args:
        x: the array, in ``src_format`` (default: "NCHW" for 4-D, "NC1HWC0" for 5-D).
        format: the target format.
        shape: the logical NCHW shape when the source is padded (NC1HWC0: crop the
            channels to shape[1]; FRACTAL_Z: required).
    Returns a new C-contiguous array (zero padding in the padded formats).
    Raises AscendValueError for an unknown format, a rank or shape that does not
    match the source format, or a missing ``shape`` from FRACTAL_Z.
    """
    asc = _asc()
    x = asc.asarray(x)
    dst = _check_format(format, "format")
    if src_format is None:
        if x.ndim == 5:
            src_format = "NC1HWC0"
        elif x.ndim == 4:
            src_format = "NCHW"
        else:
            raise _err("AscendValueError", "INVALID_SHAPE",
                       f"[to_format] expected a 4-D (NCHW) or 5-D (NC1HWC0) input, got shape {tuple(x.shape)}")
    src = _check_format(src_format, "src_format")
    if src in ("NCHW", "NHWC") and x.ndim != 4:
        raise _err("AscendValueError", "INVALID_SHAPE",
                   f"[to_format] a {src} input must be 4-D, got shape {tuple(x.shape)}")
    if shape is not None:
        shape = tuple(_operator.index(v) for v in shape)
        if len(shape) != 4 or min(shape) < 0:
            raise _err("AscendValueError", "INVALID_PARAM",
                       f"[to_format] shape must be a logical NCHW shape of 4 non-negative ints, got {shape}")
    c0 = c0_of(x.dtype)
    y = _to_nchw(x, src, shape, c0)
    if dst == "NCHW":
        out = y
    elif dst == "NHWC":
        out = asc.transpose(y, (0, 2, 3, 1))
    elif dst == "NC1HWC0":
        n, c, h, w = y.shape
        c1 = _ceil(c, c0)
        if c1 * c0 != c:
            y = asc.pad(y, ((0, 0), (0, c1 * c0 - c), (0, 0), (0, 0)))
        out = asc.transpose(asc.reshape(y, (n, c1, c0, h, w)), (0, 1, 3, 4, 2))
    else:  # FRACTAL_Z
        n, c, h, w = y.shape
        c1, n1 = _ceil(c, c0), _ceil(n, 16)
        if c1 * c0 != c or n1 * 16 != n:
            y = asc.pad(y, ((0, n1 * 16 - n), (0, c1 * c0 - c), (0, 0), (0, 0)))
        y = asc.reshape(y, (n1, 16, c1, c0, h, w))
        out = asc.reshape(asc.transpose(y, (2, 4, 5, 0, 1, 3)), (c1 * h * w, n1, 16, c0))
    return asc.ascontiguousarray(out)
