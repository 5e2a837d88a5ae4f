"""asc.image: PNG decoding against a PNG written here by hand (zlib + struct), JPEG round trips,
EXIF orientation against NumPy's flips/rotations, resize and the fused preprocessing against a
NumPy transcription of OpenCV's INTER_LINEAR, and clear errors for damaged files."""

import struct
import zlib

import numpy as np
import pytest

import pyasc as asc


def picture(h, w, seed=0):
    """A smooth colour picture with a little noise (JPEG-friendly, every channel different)."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    rng = np.random.default_rng(seed)
    r = 128 + 100 * np.sin(x / 7.0) * np.cos(y / 11.0)
    g = 255 * x / max(w - 1, 1)
    b = 255 * y / max(h - 1, 1)
    img = np.stack([r, g, b], -1) + rng.normal(0, 2, (h, w, 3))
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def png_by_hand(img):
    """A PNG (8-bit RGB or gray, filter 0 rows) built from the specification, not by libpng."""
    h, w = img.shape[:2]
    color = 2 if img.ndim == 3 else 0

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def with_exif(jpeg, orientation):
    """``jpeg`` with an APP1 EXIF block (big-endian TIFF, IFD0 = one Orientation entry) after SOI."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1,
                                                                                     orientation, 0) + b"\0\0\0\0"
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def numpy_linear(img, oh, ow):
    """OpenCV's INTER_LINEAR in float64: src = (dst + 0.5) * scale - 0.5, clamped, no antialiasing."""
    h, w = img.shape[:2]

    def axis(n_in, n_out):
        s = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        s = np.clip(s, 0, n_in - 1)
        i0 = np.floor(s).astype(int)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, s - i0

    y0, y1, wy = axis(h, oh)
    x0, x1, wx = axis(w, ow)
    f = img.astype(np.float64)
    top = f[y0][:, x0] * (1 - wx)[None, :, None] + f[y0][:, x1] * wx[None, :, None]
    bot = f[y1][:, x0] * (1 - wx)[None, :, None] + f[y1][:, x1] * wx[None, :, None]
    return top * (1 - wy)[:, None, None] + bot * wy[:, None, None]


def test_png_decode_matches_the_pixels():
    img = picture(37, 53)
    got = np.asarray(asc.image.decode_png(png_by_hand(img)))
    np.testing.assert_array_equal(got, img)
    np.testing.assert_array_equal(np.asarray(asc.image.decode_image(png_by_hand(img), mode="BGR")), img[..., ::-1])
    gray = img[..., 1].copy()
    assert np.asarray(asc.image.decode_png(png_by_hand(gray), mode="GRAY")).shape == (37, 53, 1)
    np.testing.assert_array_equal(np.asarray(asc.image.decode_png(png_by_hand(gray), mode="GRAY"))[..., 0], gray)
    # our encoder round-trips exactly too
    np.testing.assert_array_equal(np.asarray(asc.image.decode_png(asc.image.encode_png(img))), img)


def test_jpeg_round_trip_and_modes(tmp_path):
    img = picture(64, 96)
    data = asc.image.encode_jpeg(img, quality=95)
    assert data[:3] == b"\xff\xd8\xff"
    rgb = np.asarray(asc.image.decode_jpeg(data))
    assert rgb.shape == (64, 96, 3) and rgb.dtype == np.uint8
    assert np.abs(rgb.astype(int) - img).mean() < 3.0
    np.testing.assert_array_equal(np.asarray(asc.image.decode_jpeg(data, mode="BGR")), rgb[..., ::-1])
    gray = np.asarray(asc.image.decode_jpeg(data, mode="GRAY"))
    assert gray.shape == (64, 96, 1)
    want_gray = rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    assert np.abs(gray[..., 0] - want_gray).mean() < 2.0
    p = tmp_path / "pic.jpg"
    p.write_bytes(data)
    np.testing.assert_array_equal(np.asarray(asc.image.decode_image(str(p))), rgb)


@pytest.mark.parametrize("orientation,fn", [
    (1, lambda a: a), (2, lambda a: a[:, ::-1]), (3, lambda a: a[::-1, ::-1]), (4, lambda a: a[::-1]),
    (5, lambda a: a.transpose(1, 0, 2)), (6, lambda a: np.rot90(a, -1)),
    (7, lambda a: a[::-1, ::-1].transpose(1, 0, 2)), (8, lambda a: np.rot90(a, 1))])
def test_exif_orientation(orientation, fn):
    data = asc.image.encode_jpeg(picture(24, 40), quality=90)
    plain = np.asarray(asc.image.decode_jpeg(data))
    tagged = with_exif(data, orientation)
    np.testing.assert_array_equal(np.asarray(asc.image.decode_jpeg(tagged)), fn(plain))
    np.testing.assert_array_equal(np.asarray(asc.image.decode_jpeg(tagged, apply_exif_orientation=False)), plain)


def test_batches_decode_in_parallel_like_one_by_one():
    datas = [asc.image.encode_jpeg(picture(30 + i, 50 - i, seed=i), quality=80) for i in range(9)]
    datas.append(png_by_hand(picture(20, 20)))
    batch = asc.image.decode_image(datas, num_threads=4)
    assert len(batch) == 10
    for d, b in zip(datas, batch):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(asc.image.decode_image(d)))


def test_resize_matches_inter_linear_and_nearest():
    img = picture(45, 70)
    for oh, ow in [(20, 33), (90, 140), (45, 70), (1, 1)]:
        got = np.asarray(asc.image.resize(img, (oh, ow))).astype(int)
        want = np.round(numpy_linear(img, oh, ow)).astype(int)
        assert np.abs(got - want).max() <= 1, (oh, ow)
    got = np.asarray(asc.image.resize(img, 30))  # shorter side 30, aspect kept
    assert got.shape == (30, 46, 3)
    near = np.asarray(asc.image.resize(img, (15, 35), interpolation="nearest"))
    ys = np.minimum(np.floor(np.arange(15) * 45 / 15).astype(int), 44)
    xs = np.minimum(np.floor(np.arange(35) * 70 / 35).astype(int), 69)
    np.testing.assert_array_equal(near, img[ys][:, xs])
    with pytest.raises(asc.AscendValueError, match="interpolation must be one of.*'lanczos'"):
        asc.image.resize(img, 10, interpolation="lanczos")
    with pytest.raises(asc.AscendTypeError, match="uint8 or float32.*float64"):
        asc.image.resize(img.astype(np.float64), 10)


def reference_preprocess(img, resize, crop, mean, std):
    h, w = img.shape[:2]
    rh, rw = (resize, int(resize * w / h)) if h <= w else (int(resize * h / w), resize)
    full = numpy_linear(img, rh, rw)
    top, left = int(round((rh - crop) / 2.0)), int(round((rw - crop) / 2.0))
    c = full[top:top + crop, left:left + crop] / 255.0
    return ((c - np.array(mean)) / np.array(std)).transpose(2, 0, 1).astype(np.float32)


def test_fused_preprocess_matches_the_separate_steps():
    imgs = [picture(120, 160, 1), picture(150, 100, 2)]
    datas = [asc.image.encode_png(i) for i in imgs]  # lossless: the reference sees the same pixels
    mean, std = asc.image.IMAGENET_MEAN, asc.image.IMAGENET_STD
    got = np.asarray(asc.image.preprocess(datas, resize=64, crop=56))
    assert got.shape == (2, 3, 56, 56) and got.dtype == np.float32
    for g, img in zip(got, imgs):
        np.testing.assert_allclose(g, reference_preprocess(img, 64, 56, mean, std), rtol=1e-5, atol=1e-4)
    # BGR, another mean/std, float16 out; ImageDecoder gives the same
    bgr = np.asarray(asc.image.preprocess(datas[0], resize=64, crop=56, mode="BGR", mean=(0.5,) * 3, std=(0.25,) * 3,
                                          dtype="float16"))
    assert bgr.dtype == np.float16
    want = reference_preprocess(imgs[0][..., ::-1], 64, 56, (0.5,) * 3, (0.25,) * 3)
    np.testing.assert_allclose(bgr[0].astype(np.float32), want, rtol=2e-3, atol=2e-3)
    dec = asc.ImageDecoder(resize=64, crop=56)
    np.testing.assert_array_equal(np.asarray(dec(datas)), got)
    # separate steps through the public functions agree (rounding to uint8 in resize aside): the
    # uint8 resize is OpenCV's fixed point, within 1 LSB of the correctly rounded value, which is
    # itself within 0.5 LSB of the fused pass's unrounded float
    sep = asc.image.normalize(asc.image.center_crop(asc.image.resize(asc.image.decode_image(datas[0]), 64), 56))
    np.testing.assert_allclose(np.asarray(sep), got[0], atol=1.5 / 255 / 0.224 + 1e-5)


def test_jpeg_dct_scaling_is_close_to_the_full_decode():
    img = picture(480, 640, 3)
    data = asc.image.encode_jpeg(img, quality=95)
    fast = np.asarray(asc.image.preprocess(data, resize=112, crop=96))
    full = np.asarray(asc.image.preprocess(data, resize=112, crop=96, dct_scaling=False))
    # 1/4-scale IDCT vs full decode + bilinear: same picture, small differences (normalised units)
    assert np.abs(fast - full).mean() < 0.05


def test_normalize_and_color():
    img = picture(8, 9)
    got = np.asarray(asc.image.normalize(img, mean=(0.1, 0.2, 0.3), std=(0.5, 0.6, 0.7)))
    want = ((img / 255.0 - np.array([0.1, 0.2, 0.3])) / np.array([0.5, 0.6, 0.7])).transpose(2, 0, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(asc.image.convert_color(img, "RGB2BGR")), img[..., ::-1])
    g = np.asarray(asc.image.convert_color(img, "RGB2GRAY")).astype(int)
    assert np.abs(g - np.round(img @ np.array([0.299, 0.587, 0.114]))).max() <= 1
    np.testing.assert_array_equal(np.asarray(asc.image.center_crop(img, 4)), img[2:6, 2:6])
    with pytest.raises(asc.AscendValueError, match="not inside the 8x9 image"):
        asc.image.crop(img, 5, 0, 4, 4)


def test_damaged_files_raise_clear_errors(tmp_path):
    data = asc.image.encode_jpeg(picture(64, 64), quality=90)
    with pytest.raises(asc.AscendValueError, match=r"\[decode_jpeg\] image 0: Premature end of JPEG file"):
        asc.image.decode_jpeg(data[: len(data) // 2])
    p = tmp_path / "cut.jpg"
    p.write_bytes(data[:300])
    with pytest.raises(asc.AscendValueError, match="cut.jpg"):
        asc.image.decode_image(str(p))
    with pytest.raises(asc.AscendValueError, match="image 2"):  # the batch names the bad one
        asc.image.decode_image([data, data, data[:200], data])
    with pytest.raises(asc.AscendValueError, match="image 1"):
        asc.image.preprocess([data, b"\xff\xd8\xff" + b"\x00" * 50], resize=32, crop=32)
    png = png_by_hand(picture(16, 16))
    bad = bytearray(png)
    bad[40] ^= 0xFF  # inside IDAT: its CRC no longer matches
    with pytest.raises(asc.AscendValueError, match=r"\[decode_png\] image 0"):
        asc.image.decode_png(bytes(bad))
    with pytest.raises(asc.AscendValueError, match=r"\[decode_png\] image 0"):
        asc.image.decode_png(png[:60])
    with pytest.raises(asc.AscendValueError, match="not a JPEG or PNG image"):
        asc.image.decode_image(b"GIF89a" + b"\x00" * 30)
    with pytest.raises(asc.AscendValueError, match="not a JPEG image"):
        asc.image.decode_jpeg(png)
    with pytest.raises(asc.AscendValueError, match=r"image 0: not a JPEG or PNG image \(0 bytes"):
        asc.image.decode_image(b"")
    with pytest.raises(asc.AscendValueError, match="cannot read"):
        asc.image.decode_image(str(tmp_path / "missing.jpg"))
    with pytest.raises(asc.AscendTypeError, match="expected bytes or a file path"):
        asc.image.decode_image(3)
    with pytest.raises(asc.AscendValueError, match="larger than the resized"):
        asc.image.preprocess(data, resize=32, crop=48)
