"""asc.image: JPEG/PNG decoding and the classification preprocessing, on the host, in C++.

::

    import pyasc as asc
    img = asc.image.decode_image("cat.jpg")                  # HWC uint8 RGB, EXIF orientation applied
    batch = asc.image.preprocess(["a.jpg", "b.jpg"])        # [2, 3, 224, 224] float32, ImageNet mean/std
    dec = asc.ImageDecoder(num_threads=0)                    # reusable batch decoder (all cores)
    batch = dec.preprocess(list_of_jpeg_bytes, resize=256, crop=224)

Decoding is libjpeg-turbo (JPEG) and libpng (PNG) in src/image; a batch decodes on all cores
in parallel with the GIL released. :func:`preprocess` is decode + one fused pass per image
(resize the shorter side, centre crop, ``(x / 255 - mean) / std``, HWC -> CHW) that reads the
decoded pixels once and never materialises the resized image; for JPEGs it decodes at the
smallest DCT scale (1/8 .. 1) that still covers the resize target (``dct_scaling=True``, as
Pillow's ``draft`` and OpenCV's ``IMREAD_REDUCED_*``), which is most of its speed on large
images. Bilinear sampling is OpenCV's ``INTER_LINEAR`` (half-pixel centres, no antialiasing);
:func:`resize` also has OpenCV's bicubic and area modes and Pillow's antialiased filters
(docs/image.md).

Corrupt or truncated images raise :class:`~pyasc.AscendValueError` naming the file (or
``image <i>`` for bytes); libjpeg's "premature end" and "corrupt data" warnings are errors here.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["decode_jpeg", "decode_png", "decode_image", "encode_jpeg", "encode_png", "resize", "center_crop", "crop",
           "convert_color", "normalize", "preprocess", "ImageDecoder", "IMAGENET_MEAN", "IMAGENET_STD"]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
_MODES = {"RGB": 0, "BGR": 1, "GRAY": 2, "L": 2}


_C_IMAGE = []


def _C():
    if not _C_IMAGE:
        from . import _C

        _C_IMAGE.append(_C.image)
    return _C_IMAGE[0]


def _err(cls, op, msg, code="INVALID_PARAM"):
    from .ops._util import _err as make

    return make(cls, code, f"[{op}] {msg}")


def _mode(mode, op):
    m = _MODES.get(str(mode).upper())
    if m is None:
        raise _err("AscendValueError", op, f"mode must be one of 'RGB', 'BGR', 'GRAY', got {mode!r}")
    return m


def _items(images, op):
    """(list of bytes, list of names, was a list) from one image or a list: bytes-like or paths."""
    single = not isinstance(images, (list, tuple))
    seq = [images] if single else list(images)
    data, names = [], []
    for i, x in enumerate(seq):
        if isinstance(x, (bytes, bytearray, memoryview)):
            data.append(bytes(x))
            names.append(f"image {i}")
        elif isinstance(x, np.ndarray) and x.dtype == np.uint8 and x.ndim == 1:
            data.append(x.tobytes())
            names.append(f"image {i}")
        elif isinstance(x, (str, os.PathLike)):
            p = os.fspath(x)
            try:
                with open(p, "rb") as f:
                    data.append(f.read())
            except OSError as e:
                raise _err("AscendValueError", op, f"cannot read '{p}': {e.strerror or e}", "INVALID_FILE") from None
            names.append(p)
        else:
            raise _err("AscendTypeError", op, f"image {i}: expected bytes or a file path, got {type(x).__name__}")
    return data, names, single


def _decode(images, mode, apply_exif_orientation, num_threads, op, kind=None):
    data, names, single = _items(images, op)
    if kind is not None:
        for d, n in zip(data, names):
            if _C().sniff(d) != kind:
                raise _err("AscendValueError", op, f"{n}: not a {kind.upper()} image", "INVALID_FILE")
    out = _C().decode(data, names, _mode(mode, op), bool(apply_exif_orientation), 0, int(num_threads))
    return out[0] if single else out


def decode_jpeg(data, mode="RGB", apply_exif_orientation=True, num_threads=0):
    """Decodes JPEG bytes (or a path, or a list: decoded in parallel) into HWC uint8 (C = 3, or 1 for
    ``mode='GRAY'``); ``mode`` 'RGB' | 'BGR' | 'GRAY'; EXIF orientation applied unless disabled."""
    return _decode(data, mode, apply_exif_orientation, num_threads, "decode_jpeg", "jpeg")


def decode_png(data, mode="RGB", num_threads=0):
    """Decodes PNG bytes (or a path, or a list) into HWC uint8; 16-bit and palette images are
    converted to 8-bit, alpha is dropped (composited on black, libpng's simplified API)."""
    return _decode(data, mode, False, num_threads, "decode_png", "png")


def decode_image(data, mode="RGB", apply_exif_orientation=True, num_threads=0):
    """JPEG or PNG by content (see :func:`decode_jpeg`); a list decodes on ``num_threads`` threads
    (0: all cores)."""
    return _decode(data, mode, apply_exif_orientation, num_threads, "decode_image")


def encode_jpeg(img, quality=75):
    """JPEG bytes of an HWC (C = 1 or 3, RGB) or HW uint8 image."""
    import pyasc as asc

    return _C().encode_jpeg(asc.ascontiguousarray(asc.asarray(img)), int(quality))


def encode_png(img):
    """PNG bytes of an HWC (C = 1 or 3, RGB) or HW uint8 image (lossless)."""
    import pyasc as asc

    return _C().encode_png(asc.ascontiguousarray(asc.asarray(img)))


def _hwc(img, op):
    import pyasc as asc

    a = asc.asarray(img)
    if a.ndim == 2:
        a = a[:, :, None]
    if a.ndim != 3 or str(a.dtype) != "uint8":
        raise _err("AscendValueError" if str(a.dtype) == "uint8" else "AscendTypeError", op,
                   f"expected an HxWxC uint8 image, got {a.dtype} shape {tuple(a.shape)}",
                   "INVALID_SHAPE" if str(a.dtype) == "uint8" else "INVALID_DTYPE")
    return asc.ascontiguousarray(a)


def _size_of(size, h, w, op):
    if isinstance(size, int):
        if size <= 0:
            raise _err("AscendValueError", op, f"size must be positive, got {size}")
        return (size, max(1, int(size * w / h))) if h <= w else (max(1, int(size * h / w)), size)
    if len(size) != 2 or any(int(s) <= 0 for s in size):
        raise _err("AscendValueError", op, f"size must be an int or (height, width) > 0, got {size!r}")
    return int(size[0]), int(size[1])


_U8, _F32 = np.dtype(np.uint8), np.dtype(np.float32)
_INTERP = {"nearest": 0, "bilinear": 1, "linear": 1, "bicubic": 2, "cubic": 2, "area": 3}


def resize(img, size, interpolation="bilinear", antialias=False, num_threads=0):
    """Resizes an HW, HWC or NHWC image, uint8 or float32 (same dtype out).

    ``size``: an int (the shorter side, aspect kept) or (h, w). ``interpolation``:

    * ``'nearest'``: OpenCV's INTER_NEAREST (source index ``floor(dst * scale)``);
    * ``'bilinear'``: OpenCV's INTER_LINEAR (half-pixel centres, clamped borders);
    * ``'bicubic'``: OpenCV's INTER_CUBIC (Keys' kernel a = -0.75, half-pixel centres,
      replicated borders; float32 results may overshoot the input range, uint8 ones saturate);
    * ``'area'``: OpenCV's INTER_AREA: the exact box average (fractional weights at the box ends
      for non-integer ratios) when both sides shrink, otherwise OpenCV's area-upscale bilinear rule.

    ``antialias=True`` (bilinear/bicubic; ignored for nearest and area, as torchvision does) uses
    Pillow's / torchvision's antialiased filters instead: the triangle or the cubic (a = -0.5)
    kernel stretched by the downscale ratio, taps outside the image dropped and the weights
    renormalised. uint8 bilinear and bicubic use OpenCV's 16-bit fixed point (11-bit weights,
    integer horizontal sums, OpenCV's vertical rounding): bilinear is bit-equal to
    ``cv2.resize(INTER_LINEAR)``; bicubic follows OpenCV's own INTER_CUBIC arithmetic (bit-equal
    with cv2 for 2 and 5 channels; for 1/3/4 the cv2 wheels run Intel IPP: within 1 LSB); both
    lie within 1 LSB of the rounded float64 formula. The other uint8 modes are rounded half up from float32 sums (within 1 LSB of the
    float64 formula); float32 results are within 1e-5 relative of it. Separable: a
    horizontal then a vertical pass over precomputed weights, output rows split over
    ``num_threads`` threads (0: all cores); bilinear and bicubic run vectorised (Highway dynamic
    dispatch, each source row filtered horizontally once per thread)."""
    op = "image.resize"
    # NumPy input (the common case) goes to the C++ side as it is, through as few Python steps
    # as possible: wrapping it as a pyasc array first cost ~35 us a call, as much as a
    # 1080p -> 224 bilinear resize itself
    if type(img) is np.ndarray:
        a = img
    else:
        import pyasc as asc

        a = asc.asarray(img)
    squeeze = a.ndim == 2
    if squeeze:
        a = a[:, :, None]
    dt = a.dtype
    if not ((dt == _U8 or dt == _F32) if type(a) is np.ndarray else str(dt) in ("uint8", "float32")):
        raise _err("AscendTypeError", op, f"expected uint8 or float32 pixels, got {dt} shape {tuple(a.shape)}",
                   "INVALID_DTYPE")
    shape = a.shape
    if len(shape) not in (3, 4) or min(shape[-3:]) <= 0:
        raise _err("AscendValueError", op, f"expected a non-empty HxW, HxWxC or NxHxWxC image, got shape "
                   f"{tuple(np.shape(img))}", "INVALID_SHAPE")
    mode = _INTERP.get(interpolation.lower()) if isinstance(interpolation, str) else None
    if mode is None:
        raise _err("AscendValueError", op, f"interpolation must be one of 'nearest', 'bilinear', 'bicubic', 'area', "
                   f"got {interpolation!r}")
    h, w = _size_of(size, shape[-3], shape[-2], op)
    if len(shape) == 4 and shape[0] == 0:
        import pyasc as asc

        return asc.asarray(np.empty((0, h, w, shape[3]), str(dt)))
    if type(a) is np.ndarray:
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
    else:
        a = _contiguous(a)
    out = _C().resample(a, h, w, mode, bool(antialias), int(num_threads))
    return out[:, :, 0] if squeeze else out


def _contiguous(a):
    import pyasc as asc

    return asc.ascontiguousarray(a)


def crop(img, top, left, height, width):
    """``img[top:top + height, left:left + width]`` (a view), checked against the image size."""
    h, w = img.shape[0], img.shape[1]
    if top < 0 or left < 0 or height <= 0 or width <= 0 or top + height > h or left + width > w:
        raise _err("AscendValueError", "image.crop", f"window ({top}, {left}, {height}, {width}) is not inside the "
                   f"{h}x{w} image", "INVALID_SHAPE")
    return img[top:top + height, left:left + width]


def center_crop(img, size):
    """The centre ``size`` (int or (h, w)) window of an HWC image, torchvision's offsets."""
    ch, cw = (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))
    h, w = img.shape[0], img.shape[1]
    return crop(img, int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0)), ch, cw)


def convert_color(img, code):
    """'RGB2BGR' / 'BGR2RGB' (channel reversal), 'RGB2GRAY' / 'BGR2GRAY' (ITU-R 601 weights, rounded
    to uint8), 'GRAY2RGB' / 'GRAY2BGR' (replicated)."""
    import pyasc as asc

    a = asc.asarray(img)
    code = str(code).upper()
    if code in ("RGB2BGR", "BGR2RGB"):
        return a[..., ::-1]
    if code in ("RGB2GRAY", "BGR2GRAY"):
        wts = (0.299, 0.587, 0.114) if code == "RGB2GRAY" else (0.114, 0.587, 0.299)
        f = a.astype(asc.float32)
        g = f[..., 0] * wts[0] + f[..., 1] * wts[1] + f[..., 2] * wts[2]
        return asc.clip(asc.round(g), 0, 255).astype(asc.uint8)
    if code in ("GRAY2RGB", "GRAY2BGR"):
        g = a if a.ndim == 2 else a[..., 0]
        return asc.stack([g, g, g], axis=-1)
    raise _err("AscendValueError", "image.convert_color", f"unknown conversion {code!r}")


def normalize(img, mean=IMAGENET_MEAN, std=IMAGENET_STD, scale=1.0 / 255.0, layout="NCHW", dtype="float32"):
    """``(img * scale - mean) / std`` of an HWC or NHWC uint8 image as float, in ``layout`` ('NCHW'
    or 'NHWC'); pyasc elementwise ops, so the chain fuses into one pass when read."""
    import pyasc as asc

    a = asc.asarray(img)
    if a.ndim not in (3, 4):
        raise _err("AscendValueError", "image.normalize", f"expected HWC or NHWC, got shape {tuple(a.shape)}",
                   "INVALID_SHAPE")
    c = a.shape[-1]
    m = np.asarray(mean, np.float32).reshape(-1)
    s = np.asarray(std, np.float32).reshape(-1)
    if m.size not in (1, c) or s.size not in (1, c):
        raise _err("AscendValueError", "image.normalize", f"mean/std have {m.size}/{s.size} values for {c} channels")
    y = (a.astype(asc.float32) * np.float32(scale) - asc.asarray(m)) / asc.asarray(s)
    if layout == "NCHW":
        y = asc.moveaxis(y, -1, -3)
    elif layout != "NHWC":
        raise _err("AscendValueError", "image.normalize", f"layout must be 'NCHW' or 'NHWC', got {layout!r}")
    return y.astype(dtype)


def preprocess(images, resize=256, crop=224, mean=IMAGENET_MEAN, std=IMAGENET_STD, scale=1.0 / 255.0, mode="RGB",
               dtype="float32", num_threads=0, apply_exif_orientation=True, dct_scaling=True):
    """The usual classification preprocessing of encoded images (bytes or paths; one or a list):
    decode -> resize the shorter side to ``resize`` (0: none) -> centre crop ``crop`` (int or (h, w))
    -> ``(x * scale - mean) / std`` -> NCHW ``dtype`` ([N, 3, h, w]; gray images give 3 equal
    planes). Decode and the fused pass run per image on ``num_threads`` threads (0: all cores)."""
    import pyasc as asc

    data, names, single = _items(images, "image.preprocess")
    ch, cw = (crop, crop) if isinstance(crop, int) else (int(crop[0]), int(crop[1]))
    m, s = [float(v) for v in np.broadcast_to(mean, 3)], [float(v) for v in np.broadcast_to(std, 3)]
    if any(v == 0 for v in s):
        raise _err("AscendValueError", "image.preprocess", f"std has a zero: {s}")
    md = _mode(mode, "image.preprocess")
    if md == 2:
        raise _err("AscendValueError", "image.preprocess", "mode must be 'RGB' or 'BGR' (3 output planes)")
    out = _C().preprocess(data, names, int(resize), ch, cw, m, s, float(scale), md, bool(apply_exif_orientation),
                          bool(dct_scaling), int(num_threads))
    if str(dtype) != "float32":
        out = out.astype(dtype)
    return out


class ImageDecoder:
    """A reusable batch decoder (the seeds' ImageDecoder): fixed colour mode, thread count and
    preprocessing parameters; ``decode(images)`` -> list of HWC uint8, ``preprocess(images)`` ->
    NCHW float batch, ``__call__`` = ``preprocess``."""

    def __init__(self, mode="RGB", num_threads=0, apply_exif_orientation=True, resize=256, crop=224,
                 mean=IMAGENET_MEAN, std=IMAGENET_STD, scale=1.0 / 255.0, dtype="float32", dct_scaling=True):
        _mode(mode, "ImageDecoder")
        self.mode, self.num_threads, self.apply_exif_orientation = mode, int(num_threads), apply_exif_orientation
        self.resize, self.crop, self.mean, self.std, self.scale = resize, crop, mean, std, scale
        self.dtype, self.dct_scaling = dtype, dct_scaling

    def decode(self, images):
        """Decoded HWC uint8 images (a list for a list)."""
        return decode_image(images, self.mode, self.apply_exif_orientation, self.num_threads)

    def preprocess(self, images, **overrides):
        """:func:`preprocess` with this decoder's parameters (keyword arguments override them)."""
        kw = dict(resize=self.resize, crop=self.crop, mean=self.mean, std=self.std, scale=self.scale, mode=self.mode,
                  dtype=self.dtype, num_threads=self.num_threads, apply_exif_orientation=self.apply_exif_orientation,
                  dct_scaling=self.dct_scaling)
        kw.update(overrides)
        return preprocess(images, **kw)

    __call__ = preprocess
