"""Headers that claim huge pictures (issue 20): a JPEG's SOF may say up to 65500 x 65500 pixels in a
few hundred bytes. decode_jpeg refuses more than 2^30 pixels before allocating anything, with the
size in the message, as decode_png already did (32769 x 32768 is the first size past the cap)."""
import struct

import numpy as np
import pytest

import pyasc as asc


def small_jpeg():
    rng = np.random.default_rng(3)
    return bytearray(asc.image.encode_jpeg(rng.integers(0, 256, (16, 24, 3), dtype=np.uint8), quality=90))


def with_size(data, width, height):
    """The encoded JPEG with its frame header (SOF0..SOF2) claiming width x height."""
    i = 2
    while i + 4 <= len(data):
        assert data[i] == 0xFF
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            data[i + 5:i + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        i += 2 + length
    raise AssertionError("no SOF marker")


@pytest.mark.parametrize("width,height", [(65500, 65500), (40000, 30000), (32769, 32768)])
def test_huge_jpeg_header_is_refused_before_allocating(width, height):
    data = with_size(small_jpeg(), width, height)
    with pytest.raises(asc.AscendValueError, match=rf"\[decode_jpeg\] .*unsupported size {width}x{height}"):
        asc.image.decode_jpeg(data)
    with pytest.raises(asc.AscendValueError, match="unsupported size"):
        asc.image.decode_image(data)


def test_unchanged_jpeg_still_decodes():
    out = asc.image.decode_jpeg(bytes(small_jpeg()))
    assert np.asarray(out).shape == (16, 24, 3)
