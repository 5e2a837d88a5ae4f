"""uint8 bilinear / bicubic in OpenCV's 16-bit fixed point (src/image/resample_fixed.cc).

The reference is a NumPy model of cv::resize's arithmetic written from its description:
coordinates and Keys' coefficients (a = -0.75) in float32, weights x 2048 rounded half to even
into int16; horizontal sums exact in int; bilinear vertical ``(mulhi(s0 >> 4, b0) + mulhi(s1 >> 4,
b1) + 2) >> 2`` (the horizontal coordinate clamped to the image, the vertical one not: only its
rows are clamped); bicubic vertical ``float32(s) * (b / 2^22)`` summed innermost first, rounded
half to even. asc.image.resize must equal the model bit for bit (every width 1..33, channels
1..5, up and down scale, batches, views, thread splits), stay within 1 LSB of the rounded float64
formula, and -- where OpenCV is installed in build/bench/site (``make bench-setup``) -- equal
cv2.resize's INTER_LINEAR bit for bit and stay within 1 LSB of its INTER_CUBIC (which cv2 runs
through Intel IPP for 1, 3 and 4 channels)."""

import os
import sys

import numpy as np
import pytest

import pyasc as asc
from test_image_resample_simd import reference
from test_image_resize_modes import check, picture

F = np.float32


def _cubic(x):
    a = F(-0.75)
    one = F(1)
    c0 = ((a * (x + one) - F(5) * a) * (x + one) + F(8) * a) * (x + one) - F(4) * a
    c1 = ((a + F(2)) * x - (a + F(3))) * x * x + one
    c2 = ((a + F(2)) * (one - x) - (a + F(3))) * (one - x) * (one - x) + one
    return [c0, c1, c2, one - c0 - c1 - c2]


def axis(n_in, n_out, cubic, clamp):
    """(indices [n_out, K], int weights [n_out, K]) as cv::resize computes them."""
    scale = 1.0 / (n_out / n_in)
    f = ((np.arange(n_out) + 0.5) * scale - 0.5).astype(F)
    s = np.floor(f).astype(np.int64)
    f = (f - s.astype(F)).astype(F)
    if cubic:
        cs = _cubic(f)
        idx = np.stack([s - 1 + k for k in range(4)], 1)
    else:
        if clamp:
            lo, hi = s < 0, s >= n_in - 1
            f = np.where(lo | hi, F(0), f).astype(F)
            s = np.where(lo, 0, np.where(hi, n_in - 1, s))
        cs = [F(1) - f, f]
        idx = np.stack([s, s + 1], 1)
    wts = np.stack([np.rint((c * F(2048)).astype(F)).astype(np.int64) for c in cs], 1)
    return np.clip(idx, 0, n_in - 1), wts


def model(img, oh, ow, mode):
    """OpenCV's fixed-point resize of an HxWxC uint8 image."""
    cubic = mode == "bicubic"
    h, w, c = img.shape
    iy, wy = axis(h, oh, cubic, False)
    ix, wx = axis(w, ow, cubic, True)
    rows = (img.astype(np.int64)[:, ix, :] * wx[None, :, :, None]).sum(2)  # [h, ow, c]
    picked = rows[iy]  # [oh, K, ow, c]
    if not cubic:
        s = picked >> 4
        v = ((s[:, 0] * wy[:, 0, None, None]) >> 16) + ((s[:, 1] * wy[:, 1, None, None]) >> 16)
        return np.clip((v + 2) >> 2, 0, 255).astype(np.uint8)
    b = (wy.astype(F) * F(1.0 / (1 << 22))).astype(F)
    p = picked.astype(F)
    acc = p[:, 3] * b[:, 3, None, None]
    for k in (2, 1, 0):
        acc = (p[:, k] * b[:, k, None, None] + acc).astype(F)
    return np.clip(np.rint(acc), 0, 255).astype(np.uint8)


def same(got, want):
    got = np.asarray(got)
    assert got.dtype == np.uint8 and got.shape == want.shape
    bad = np.argwhere(got != want)
    assert bad.size == 0, (len(bad), bad[:5].tolist(), got[tuple(bad[0])], want[tuple(bad[0])])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("c", [1, 2, 3, 4, 5])
def test_every_width_up_to_33_is_the_fixed_point_model(mode, c):
    for w in range(1, 34):
        img = picture(9 if w % 2 else 5, w, c, seed=w)
        for ow in sorted({1, 2, max(1, w // 3), w, w + 1, 2 * w + 1, 3 * w + 7}):
            oh = (7, 2, 19)[w % 3]
            same(asc.image.resize(img, (oh, ow), mode), model(img, oh, ow, mode))
            # (the 1 LSB bound vs float64 over this sweep: test_image_resample_simd.py)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("src,dst", [((1080, 1920), (224, 224)), ((224, 224), (512, 512)), ((97, 131), (13, 29)),
                                     ((13, 29), (97, 131)), ((61, 47), (200, 9)), ((1, 1), (3, 5)), ((5, 3), (1, 1))])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_issue_sizes_and_odd_ratios(mode, src, dst, c):
    img = picture(*src, c=c, seed=src[1] + c)
    got = asc.image.resize(img, dst, mode)
    same(got, model(img, *dst, mode))
    if src[0] * src[1] < 10 ** 5:  # the dense float64 matrices of the big ones take too long
        check(img, got, reference(img, *dst, mode))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_extremes_saturate(mode):
    # full-contrast steps and checkerboards: bicubic overshoots both ways and saturates, the
    # int16 rows of bilinear reach their largest value (255 * 2048 >> 4)
    img = np.zeros((17, 23, 3), np.uint8)
    img[:, 11:] = 255
    img[::2, ::2, 1] = 255
    for size in [(5, 31), (40, 9), (17, 24), (3, 3)]:
        got = asc.image.resize(img, size, mode)
        same(got, model(img, *size, mode))
        check(img, got, reference(img, *size, mode))
    full = np.full((9, 9, 4), 255, np.uint8)
    assert (np.asarray(asc.image.resize(full, (20, 3), mode)) == 255).all()


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_batches_views_and_threads(mode):
    imgs = np.stack([picture(45, 70, 3, seed=s) for s in range(3)])
    got = np.asarray(asc.image.resize(imgs, (20, 33), mode))
    for i in range(3):
        same(got[i], model(imgs[i], 20, 33, mode))
    big = picture(80, 90, 4, seed=3)
    for v in [big[::2, 1::3, :3], big[5:60, 7:80][::-1], big.transpose(1, 0, 2), big[:, :, 1:2]]:
        same(asc.image.resize(v, (21, 34), mode), model(np.ascontiguousarray(v), 21, 34, mode))
    img = picture(300, 257, 3, seed=9)
    want = model(img, 301, 255, mode)
    for t in (1, 2, 5):
        same(asc.image.resize(img, (301, 255), mode, num_threads=t), want)


def _cv2():
    site = os.path.join(os.path.dirname(__file__), "..", "..", "..", "build", "bench", "site")
    if os.path.isdir(site) and site not in sys.path:
        sys.path.append(site)
    return pytest.importorskip("cv2", reason="OpenCV is installed by make bench-setup (build/bench/site)")


@pytest.mark.parametrize("c", [1, 2, 3, 4, 5])
def test_bilinear_is_bit_equal_to_cv2_and_bicubic_within_1_lsb(c):
    cv2 = _cv2()
    rng = np.random.default_rng(c)
    for (h, w), (oh, ow) in [((108, 192), (22, 23)), ((40, 40), (97, 101)), ((37, 29), (13, 50)), ((64, 64), (29, 29)),
                             ((270, 480), (224, 224)), ((224, 224), (512, 512)), ((2, 3), (1, 1)), ((1, 1), (5, 5))]:
        img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
        lin = cv2.resize(img, (ow, oh), interpolation=cv2.INTER_LINEAR).reshape(oh, ow, c)
        same(asc.image.resize(img, (oh, ow), "bilinear"), lin)
        cub = cv2.resize(img, (ow, oh), interpolation=cv2.INTER_CUBIC).reshape(oh, ow, c).astype(int)
        got = np.asarray(asc.image.resize(img, (oh, ow), "bicubic")).astype(int)
        assert np.abs(got - cub).max() <= 1
