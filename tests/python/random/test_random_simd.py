"""The SIMD Philox and conversions against a NumPy reference of Philox-4x32-10 (Salmon et
al.) and of the documented conversion formulas: bit-identical streams at any position
(including the low counter word wrapping inside a SIMD vector), any core count and any
SIMD target."""

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C
from pyasc import random as ar

M64 = (1 << 64) - 1


def philox_ref(key0, key1, counter, nblocks):
    """Words (uint32, block-major) of counter blocks counter..counter+nblocks-1."""
    with np.errstate(over="ignore"):
        c = np.array([(counter + i) & M64 for i in range(nblocks)], dtype=np.uint64)
        c0 = (c & np.uint64(0xFFFFFFFF)).astype(np.uint64)
        c1 = (c >> np.uint64(32)).astype(np.uint64)
        c2 = np.full(nblocks, key1 & 0xFFFFFFFF, np.uint64)
        c3 = np.full(nblocks, key1 >> 32, np.uint64)
        k0, k1 = key0 & 0xFFFFFFFF, key0 >> 32
        mask = np.uint64(0xFFFFFFFF)
        for _ in range(10):
            p0 = c0 * np.uint64(0xD2511F53)
            p1 = c2 * np.uint64(0xCD9E8D57)
            n0 = (p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)
            n2 = (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)
            c1 = p1 & mask
            c3 = p0 & mask
            c0, c2 = n0, n2
            k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
            k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32).ravel()


def test_reference_matches_random123_known_answer():
    np.testing.assert_array_equal(philox_ref(0, 0, 0, 1), [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8])


# Counters chosen so that the low 32-bit word wraps at several offsets inside a vector.
CASES = [(0, 0, 0), (0x1234, 0xFEED, (1 << 32) - 5), (7, 9, (1 << 32) - 16), (M64, M64, M64 - 3),
         (0x299F31D0A4093822, 0x0370734413198A2E, (1 << 33) - 1)]
SIZES = [1, 3, 4, 15, 16, 17, 63, 64, 65, 2047, 2048, 2049, 70001]


@pytest.mark.parametrize("key0,key1,counter", CASES)
@pytest.mark.parametrize("n", SIZES)
def test_raw_uniform_integers_equal_reference(key0, key1, counter, n):
    words = philox_ref(key0, key1, counter, (n + 3) // 4 + n)  # enough blocks for every draw below
    raw = np.asarray(_C.random_raw([n], key0, key1, counter))
    np.testing.assert_array_equal(raw, words[:n])
    w64 = words.view(np.uint64)  # word pairs: element i of a 64-bit draw is w64[i]
    f64 = np.asarray(_C.random_uniform([n], "float64", key0, key1, counter, 0.0, 1.0))
    np.testing.assert_array_equal(f64, (w64[:n] >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)
    g = np.asarray(_C.random_uniform([n], "float64", key0, key1, counter, -3.0, 5.0))
    u = (w64[:n] >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    np.testing.assert_array_equal(g, -3.0 + 8.0 * u)
    f32 = np.asarray(_C.random_uniform([n], "float32", key0, key1, counter, 0.0, 1.0))
    np.testing.assert_array_equal(f32, (words[:n] >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24))
    for rng_, dt in ((1000, "int64"), (7, "uint8"), ((1 << 32) - 1, "uint32"), (300, "int16")):
        lo = -17 if dt in ("int64", "int16") else 0
        got = np.asarray(_C.random_integers([n], dt, key0, key1, counter, lo & M64, rng_ - 1))
        x = [int(v) for v in w64[:n]]
        exp = np.array([(lo + ((v * rng_) >> 64)) for v in x], dtype=np.int64).astype(dt)
        np.testing.assert_array_equal(got, exp)


def test_normal_box_muller_formula():
    # Box-Muller of each block: the vector log/cos/sin agree with libm to a few ULP.
    n = 4099
    key0, key1, counter = 11, 22, (1 << 32) - 9
    w64 = philox_ref(key0, key1, counter, (n + 1) // 2).view(np.uint64)
    u1 = ((w64[0::2] >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0 ** -53
    t = 6.283185307179586476925286766559 * ((w64[1::2] >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)
    r = np.sqrt(-2.0 * np.log(u1))
    exp = np.empty(2 * u1.size)
    exp[0::2] = r * np.cos(t)
    exp[1::2] = r * np.sin(t)
    got = np.asarray(_C.random_normal([n], "float64", key0, key1, counter, 0.0, 1.0))
    np.testing.assert_allclose(got, exp[:n], rtol=1e-13, atol=1e-14)
    got32 = np.asarray(_C.random_normal([n], "float32", key0, key1, counter, 1.5, 2.0))
    np.testing.assert_allclose(got32, (1.5 + 2.0 * exp[:n]).astype(np.float32), rtol=1e-6, atol=1e-6)
    # Each element depends only on its position: a draw at an offset is a suffix.
    tail = np.asarray(_C.random_normal([n - 2], "float64", key0, key1, counter + 1, 0.0, 1.0))
    np.testing.assert_array_equal(tail, got[2:])


def _digest_code(cores_env):
    return ("import hashlib, numpy as np, pyasc; from pyasc import random as ar\n"
            "g = ar.default_rng(5)\n"
            "h = hashlib.sha256()\n"
            "for a in (g.random(100003), g.random(70001, dtype=np.float32), g.integers(-9, 1000, 90001),\n"
            "          g.integers(0, 255, 65537, dtype=np.uint8), g.uniform(-2, 3, 4099), g.bytes(1001),\n"
            "          g.exponential(1.5, 5000)):\n"
            "    h.update(np.ascontiguousarray(np.asarray(a) if not isinstance(a, bytes) else np.frombuffer(a, np.uint8)).tobytes())\n"
            "print(h.hexdigest())\n")


def _run(env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, "-c", _digest_code(env_extra)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_same_stream_on_every_simd_target_and_core_count():
    ref = _run({})
    for extra in ({"ASC_SIMD_TARGET": "SCALAR"}, {"ASC_SIMD_TARGET": "SSE4"}, {"ASC_SIMD_TARGET": "AVX2"},
                  {"ASC_NUM_CORES": "1"}, {"ASC_NUM_CORES": "3"}):
        assert _run(extra) == ref, extra


def test_normal_same_for_any_core_count():
    code = ("import hashlib, numpy as np; from pyasc import random as ar; g = ar.default_rng(3);"
            "a = np.asarray(g.standard_normal(200001)); b = np.asarray(g.standard_normal(70001, dtype=np.float32));"
            "print(hashlib.sha256(a.tobytes() + b.tobytes()).hexdigest())")
    outs = set()
    for cores in ("1", "2", "3"):
        r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, ASC_NUM_CORES=cores),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout.strip())
    assert len(outs) == 1


def test_empty_and_scalar_draws():
    g = ar.default_rng(1)
    for a in (g.random(0), g.standard_normal((0, 3)), g.integers(0, 5, 0), g.random((2, 0), dtype=np.float32)):
        assert np.asarray(a).size == 0
    assert isinstance(g.standard_normal(), float)
    assert 0 <= g.integers(0, 5) < 5
