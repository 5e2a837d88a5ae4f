"""The vectorised separable resample of asc.image.resize (bilinear / bicubic, src/image/
resample_simd.cc) around the SIMD width: every source width 1..33 (so each vector tail and the
row-end pixels the 4-byte loads must not read past), channels 1/2/3/4/5 (3 and 4 take the
per-pixel vector path, the others the gather path), up and down scale with odd ratios, batches,
non-contiguous views, thread splits and the scalar / SSE4 targets. References: the float64 dense
matrices of test_image_resize_modes (OpenCV's INTER_LINEAR / INTER_CUBIC formulas); uint8 within
1 LSB of the rounded float64 result, float32 within 1e-5 relative."""

import os
import subprocess
import sys

import numpy as np
import pytest

import pyasc as asc
from test_image_resize_modes import apply, check, cubic_matrix, linear_matrix, picture

MATRIX = {"bilinear": linear_matrix, "bicubic": cubic_matrix}


def reference(img, oh, ow, mode):
    h, w = img.shape[:2]
    return apply(img, MATRIX[mode](h, oh), MATRIX[mode](w, ow))


def check_f32(got, want):
    got = np.asarray(got)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("c", [1, 2, 3, 4, 5])
def test_uint8_every_width_up_to_33(mode, c):
    for w in range(1, 34):
        img = picture(7, w, c, seed=w)
        for ow in sorted({1, max(1, w // 2), w, 2 * w + 1, w + 7}):
            oh = 3 if w % 2 else 11
            check(img, asc.image.resize(img, (oh, ow), mode), reference(img, oh, ow, mode))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_float32_every_width_up_to_33(mode, c):
    rng = np.random.default_rng(c)
    for w in range(1, 34):
        img = rng.random((6, w, c), dtype=np.float32)
        for ow in sorted({1, max(1, w // 3), 2 * w + 3, w + 9}):
            check_f32(asc.image.resize(img, (9, ow), mode), reference(img, 9, ow, mode))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("src,dst", [((97, 131), (13, 29)), ((13, 29), (97, 131)), ((61, 47), (200, 9)),
                                     ((120, 160), (37, 300)), ((33, 33), (32, 34))])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_odd_ratios_up_and_down(mode, src, dst, c):
    img = picture(*src, c=c, seed=src[0] + c)
    check(img, asc.image.resize(img, dst, mode), reference(img, *dst, mode))
    f = img.astype(np.float32) / 255
    check_f32(asc.image.resize(f, dst, mode), reference(f, *dst, mode))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_batches_match_each_image(mode):
    imgs = np.stack([picture(29, 41, 3, seed=s) for s in range(4)])
    got = np.asarray(asc.image.resize(imgs, (17, 63), mode))
    assert got.shape == (4, 17, 63, 3)
    for i in range(4):
        check(imgs[i], got[i], reference(imgs[i], 17, 63, mode))
        np.testing.assert_array_equal(got[i], np.asarray(asc.image.resize(imgs[i], (17, 63), mode)))
    f = imgs.astype(np.float32)
    gf = np.asarray(asc.image.resize(f, (40, 23), mode))
    for i in range(4):
        check_f32(gf[i], reference(f[i], 40, 23, mode))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_non_contiguous_views(mode):
    big = picture(80, 90, 4, seed=3)
    views = [big[::2, 1::3, :3], big[5:60, 7:80][::-1], big.transpose(1, 0, 2), big[:, :, 1]]
    for v in views:
        want = reference(v if v.ndim == 3 else v[:, :, None], 21, 34, mode)
        got = np.asarray(asc.image.resize(v, (21, 34), mode))
        check(np.ascontiguousarray(v), got if v.ndim == 3 else got[:, :, None], want)
        np.testing.assert_array_equal(got, np.asarray(asc.image.resize(np.ascontiguousarray(v), (21, 34), mode)))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_thread_split_is_bit_equal(mode):
    # each thread filters the source rows of its own output rows: the rows shared at a block
    # boundary are filtered twice, with the same result
    img = picture(300, 257, 3, seed=9)
    for size in [(700, 500), (90, 61), (301, 255)]:
        one = np.asarray(asc.image.resize(img, size, mode, num_threads=1))
        for t in (2, 3, 7):
            np.testing.assert_array_equal(np.asarray(asc.image.resize(img, size, mode, num_threads=t)), one)


def test_uint8_extremes_saturate_and_round_half_up():
    img = np.zeros((5, 9, 3), np.uint8)
    img[:, 5:] = 255  # a full-contrast step: bicubic overshoots both ways
    got = np.asarray(asc.image.resize(img, (5, 31), "bicubic"))
    want = reference(img, 5, 31, "bicubic")
    assert want.max() > 255 and want.min() < 0
    check(img, got, want)
    # exactly half way between two levels rounds up (the reference libraries' fixed point)
    two = np.array([[[10], [11]]], np.uint8)
    assert np.asarray(asc.image.resize(two, (1, 4), "bilinear"))[0, :, 0].tolist() == [10, 10, 11, 11]
    mid = np.asarray(asc.image.resize(np.array([[[10], [11]]], np.uint8), (1, 1), "bilinear"))
    assert int(mid[0, 0, 0]) == 11  # 10.5 -> 11


_TARGET_SCRIPT = r"""
import numpy as np, pyasc as asc, sys
sys.path.insert(0, sys.argv[1])
from test_image_resample_simd import reference
from test_image_resize_modes import check, picture
for mode in ("bilinear", "bicubic"):
    for c in (1, 3, 4):
        for w in (1, 3, 4, 5, 8, 9, 17, 33):
            img = picture(6, w, c, seed=w)
            for ow in (1, w + 5, 2 * w + 1):
                check(img, asc.image.resize(img, (4, ow), mode), reference(img, 4, ow, mode))
                f = img.astype(np.float32)
                np.testing.assert_allclose(np.asarray(asc.image.resize(f, (4, ow), mode)),
                                           reference(f, 4, ow, mode), rtol=1e-5, atol=1e-3)
print("ok")
"""


@pytest.mark.parametrize("target", ["SCALAR", "SSE4"])
def test_fallback_targets(target):
    env = dict(os.environ, ASC_SIMD_TARGET=target)
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", _TARGET_SCRIPT, here], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
