"""asc.image.resize's bicubic / area / antialiased modes, float32 and batches, each against an
independent float64 NumPy implementation of the reference library's formula (OpenCV's
INTER_CUBIC / INTER_AREA / INTER_LINEAR, Pillow's antialiased filters), written here from the
formulas rather than from the weight tables of src/image/resample.cc (dense matrices, direct
box integrals). uint8 results must be within 1 LSB of the rounded float64 result."""

import numpy as np
import pytest

import pyasc as asc


def picture(h, w, c=3, seed=0):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    base = (np.sin(yy / 3.0)[..., None] * 60 + np.cos(xx / 5.0)[..., None] * 60 + 128)
    img = base + rng.integers(-40, 41, size=(h, w, c))
    return np.clip(img, 0, 255).astype(np.uint8)


def keys(x, a):
    x = np.abs(x)
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a, 0.0))


def cubic_matrix(n_in, n_out):
    """OpenCV INTER_CUBIC as a dense [n_out, n_in] matrix: the four taps around the half-pixel
    source coordinate, Keys' a = -0.75, indices clamped (replicated border)."""
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        s = (o + 0.5) * n_in / n_out - 0.5
        f = np.floor(s)
        for k in range(-1, 3):
            m[o, int(np.clip(f + k, 0, n_in - 1))] += keys(s - (f + k), -0.75)
    return m


def linear_matrix(n_in, n_out):
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        s = min(max((o + 0.5) * n_in / n_out - 0.5, 0.0), n_in - 1)
        f = int(np.floor(s))
        m[o, f] += 1 - (s - f)
        m[o, min(f + 1, n_in - 1)] += s - f
    return m


def box_matrix(n_in, n_out):
    """Exact box average: output o covers [o * r, (o + 1) * r) of the source, r = n_in / n_out;
    each source pixel [i, i + 1) weighs its overlap with the box."""
    r = n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        lo, hi = o * r, (o + 1) * r
        for i in range(int(np.floor(lo)), min(int(np.ceil(hi)), n_in)):
            m[o, i] = max(0.0, min(hi, i + 1) - max(lo, i))
        m[o] /= m[o].sum()
    return m


def area_up_matrix(n_in, n_out):
    """OpenCV INTER_AREA on an axis that is not downscaled on both sides: linear interpolation
    from sx = floor(o * scale) with fx = frac(max(0, (o + 1) - (sx + 1) / scale))."""
    scale = n_in / n_out
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        sx = int(np.floor(o * scale))
        fx = (o + 1) - (sx + 1) * (n_out / n_in)
        fx = 0.0 if fx <= 0 else fx - np.floor(fx)
        if sx >= n_in - 1:
            sx, fx = n_in - 1, 0.0
        m[o, sx] += 1 - fx
        m[o, min(sx + 1, n_in - 1)] += fx
    return m


def pillow_matrix(n_in, n_out, bicubic):
    """Pillow's antialiased resampling: filter support * max(scale, 1) around (o + 0.5) * scale,
    taps inside the image only, weights renormalised."""
    scale = n_in / n_out
    fs = max(scale, 1.0)
    support = (2.0 if bicubic else 1.0) * fs
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        c = (o + 0.5) * scale
        i = np.arange(max(int(c - support + 0.5), 0), min(int(c + support + 0.5), n_in))
        x = (i - c + 0.5) / fs
        wts = keys(x, -0.5) if bicubic else np.maximum(0, 1 - np.abs(x))
        m[o, i] = wts / wts.sum()
    return m


def apply(img, my, mx):
    f = img.astype(np.float64)
    return np.einsum("oh,hwc,pw->opc", my, f, mx, optimize=True)  # two contractions, not one 5-index loop


def check(img, got, want):
    got = np.asarray(got)
    assert got.dtype == img.dtype and got.shape == want.shape
    if img.dtype == np.uint8:
        diff = np.abs(got.astype(int) - np.round(np.clip(want, 0, 255)).astype(int))
        assert diff.max() <= 1, diff.max()
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


SIZES = [((45, 70), (20, 33)), ((45, 70), (90, 141)), ((64, 64), (16, 16)), ((37, 53), (37, 53)),
         ((50, 31), (7, 29)), ((9, 8), (1, 1)), ((1, 5), (3, 2))]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("src,dst", SIZES)
def test_bicubic_is_inter_cubic(src, dst, dtype):
    img = picture(*src).astype(dtype)
    got = asc.image.resize(img, dst, interpolation="bicubic")
    check(img, got, apply(img, cubic_matrix(src[0], dst[0]), cubic_matrix(src[1], dst[1])))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("src,dst", SIZES)
def test_area_is_inter_area(src, dst, dtype):
    img = picture(*src).astype(dtype)
    got = asc.image.resize(img, dst, interpolation="area")
    if src[0] >= dst[0] and src[1] >= dst[1]:
        want = apply(img, box_matrix(src[0], dst[0]), box_matrix(src[1], dst[1]))
    else:
        want = apply(img, area_up_matrix(src[0], dst[0]), area_up_matrix(src[1], dst[1]))
    check(img, got, want)


def test_area_integer_ratio_is_the_block_mean():
    img = picture(48, 60, seed=3)
    got = np.asarray(asc.image.resize(img.astype(np.float32), (12, 20), interpolation="area"))
    want = img.astype(np.float64).reshape(12, 4, 20, 3, 3).mean(axis=(1, 3))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("bicubic", [False, True])
@pytest.mark.parametrize("src,dst", SIZES)
def test_antialias_is_pillows_filter(src, dst, bicubic, dtype):
    img = picture(*src).astype(dtype)
    got = asc.image.resize(img, dst, interpolation="bicubic" if bicubic else "bilinear", antialias=True)
    check(img, got, apply(img, pillow_matrix(src[0], dst[0], bicubic), pillow_matrix(src[1], dst[1], bicubic)))


def test_antialias_removes_the_alias_of_a_fine_grating():
    # 1-pixel stripes downscaled 64 -> 13: plain bilinear samples them into a beat pattern
    # (aliasing), the antialiased filter averages ~5 stripes into an almost flat grey
    img = np.zeros((64, 64, 1), np.uint8)
    img[:, ::2] = 255
    plain = np.asarray(asc.image.resize(img, (16, 13))).astype(float)
    aa = np.asarray(asc.image.resize(img, (16, 13), antialias=True)).astype(float)
    assert plain.std() > 30 and aa.std() < 15, (plain.std(), aa.std())


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_float32_nearest_and_bilinear(mode):
    img = picture(40, 30).astype(np.float32) / 7
    got = np.asarray(asc.image.resize(img, (17, 45), interpolation=mode))
    if mode == "bilinear":
        want = apply(img, linear_matrix(40, 17), linear_matrix(30, 45))
    else:
        ys = np.floor(np.arange(17) * 40 / 17).astype(int)
        xs = np.minimum(np.floor(np.arange(45) * 30 / 45).astype(int), 29)
        want = img[ys][:, xs]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("mode,aa", [("bicubic", False), ("area", False), ("bilinear", True), ("nearest", False)])
def test_batches_grey_and_views(mode, aa):
    imgs = np.stack([picture(33, 47, seed=s) for s in range(3)])
    got = np.asarray(asc.image.resize(imgs, (11, 19), interpolation=mode, antialias=aa))
    assert got.shape == (3, 11, 19, 3)
    for i in range(3):
        np.testing.assert_array_equal(got[i], np.asarray(asc.image.resize(imgs[i], (11, 19), mode, aa)))
    # HW grey in, HW out; other channel counts (1, 2, 4, 5) take the same formula
    g = np.asarray(asc.image.resize(imgs[0, :, :, 0], (11, 19), mode, aa))
    np.testing.assert_array_equal(g, got[0, :, :, 0])
    for c in (2, 4, 5):
        wide = np.concatenate([imgs[0]] * 2, axis=2)[:, :, :c]
        np.testing.assert_array_equal(np.asarray(asc.image.resize(wide, (11, 19), mode, aa))[..., :3 if c > 3 else c],
                                      got[0][..., :3 if c > 3 else c])
    # a non-contiguous view gives what its copy gives
    view = imgs[1, ::2, 1::2]
    np.testing.assert_array_equal(np.asarray(asc.image.resize(view, (9, 8), mode, aa)),
                                  np.asarray(asc.image.resize(np.ascontiguousarray(view), (9, 8), mode, aa)))
    # an empty batch
    assert np.asarray(asc.image.resize(imgs[:0], (5, 6), mode, aa)).shape == (0, 5, 6, 3)


def test_threads_do_not_change_the_result():
    img = picture(300, 400)
    one = np.asarray(asc.image.resize(img, (97, 131), "bicubic", num_threads=1))
    many = np.asarray(asc.image.resize(img, (97, 131), "bicubic", num_threads=4))
    np.testing.assert_array_equal(one, many)


def test_uint8_saturates_and_float_keeps_the_overshoot():
    img = np.zeros((8, 8, 1), np.uint8)
    img[:, 4:] = 255  # a hard edge: the a = -0.75 kernel over- and undershoots
    f = np.asarray(asc.image.resize(img.astype(np.float32), (8, 29), "bicubic"))
    assert f.min() < -1 and f.max() > 256
    u = np.asarray(asc.image.resize(img, (8, 29), "bicubic"))
    assert u.min() == 0 and u.max() == 255


def test_bad_arguments_name_the_op_and_values():
    img = picture(10, 12)
    with pytest.raises(asc.AscendValueError, match=r"image.resize.*interpolation.*'lanczos4'"):
        asc.image.resize(img, 5, interpolation="lanczos4")
    with pytest.raises(asc.AscendValueError, match=r"image.resize.*size.*\(0, 5\)"):
        asc.image.resize(img, (0, 5), "bicubic")
    with pytest.raises(asc.AscendValueError, match=r"image.resize.*size must be positive, got -3"):
        asc.image.resize(img, -3, "area")
    with pytest.raises(asc.AscendValueError, match=r"image.resize.*65536.*70000x5"):
        asc.image.resize(img, (70000, 5), "area")
    with pytest.raises(asc.AscendTypeError, match=r"image.resize.*uint8 or float32.*int16"):
        asc.image.resize(img.astype(np.int16), 5, "bicubic")
    with pytest.raises(asc.AscendValueError, match=r"image.resize.*non-empty.*\(0, 12, 3\)"):
        asc.image.resize(img[:0], 5, "bicubic")
    with pytest.raises(asc.AscendValueError, match=r"image.resize.*shape \(2, 2, 10, 12, 3\)"):
        asc.image.resize(np.stack([np.stack([img] * 2)] * 2), 5)
