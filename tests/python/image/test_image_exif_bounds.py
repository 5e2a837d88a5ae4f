"""EXIF blocks whose offsets point outside the block (issue 20, found reading src/image/codec.cc
for the sanitizer runs): an IFD0 offset near 2**32 wrapped the 32-bit bound check and the decoder
read 4 GiB past the APP1 payload (SIGSEGV). A malformed EXIF block is ignored, as viewers do:
the picture decodes unrotated, equal to the decode without EXIF handling."""
import struct

import numpy as np
import pytest

import pyasc as asc


def with_tiff(jpeg, tiff):
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


def picture():
    rng = np.random.default_rng(7)
    return rng.integers(0, 256, (16, 24, 3), dtype=np.uint8)


@pytest.mark.parametrize("order", ["MM", "II"])
@pytest.mark.parametrize("ifd", [0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFF0, 0x80000000, 18, 19, 20])
def test_ifd_offset_outside_the_block_is_ignored(order, ifd):
    data = asc.image.encode_jpeg(picture(), quality=90)
    plain = np.asarray(asc.image.decode_jpeg(data, apply_exif_orientation=False))
    e = ">" if order == "MM" else "<"
    # header (8 bytes) + one Orientation=6 entry at offset 8; IFD0 offset `ifd` (18 = the
    # block's length: no room for the count; 19, 20: past the end)
    tiff = order.encode() + struct.pack(e + "HI", 42, ifd) + struct.pack(e + "H", 1) + \
        struct.pack(e + "HHIHH", 0x0112, 3, 1, 6, 0) + b"\0\0\0\0"
    tiff = tiff[:18] if ifd == 18 else tiff
    got = np.asarray(asc.image.decode_jpeg(with_tiff(data, tiff)))
    np.testing.assert_array_equal(got, plain)


def test_entry_count_past_the_block_is_ignored():
    data = asc.image.encode_jpeg(picture(), quality=90)
    plain = np.asarray(asc.image.decode_jpeg(data, apply_exif_orientation=False))
    tiff = b"MM" + struct.pack(">HI", 42, 8) + struct.pack(">H", 0xFFFF) + b"\0" * 12
    np.testing.assert_array_equal(np.asarray(asc.image.decode_jpeg(with_tiff(data, tiff))), plain)


def test_valid_offset_still_applies_the_orientation():
    data = asc.image.encode_jpeg(picture(), quality=90)
    plain = np.asarray(asc.image.decode_jpeg(data, apply_exif_orientation=False))
    # IFD0 after 4 bytes of padding: the offset is honoured, orientation 6 = rotate 90 clockwise
    tiff = b"II" + struct.pack("<HI", 42, 12) + b"\0" * 4 + struct.pack("<H", 1) + \
        struct.pack("<HHIHH", 0x0112, 3, 1, 6, 0) + b"\0\0\0\0"
    np.testing.assert_array_equal(np.asarray(asc.image.decode_jpeg(with_tiff(data, tiff))), np.rot90(plain, -1))
