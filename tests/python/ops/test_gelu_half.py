"""asc.ops.gelu on float16 / bfloat16: the chain runs in float32 between one cast in and one cast
out, so the result is the float32 gelu rounded once (within ~half an ulp of the half dtype plus
the float32 kernel's error) - not the compounded roundings of half-precision intermediates."""

import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
_verfc = np.vectorize(math.erfc, otypes=[np.float64])


def _half_ulp_err(got, ref, dt):
    nmant = 10 if dt == np.float16 else 7
    tiny = float(np.finfo(np.float16).smallest_normal) if dt == np.float16 else 1.2e-38
    _, e = np.frexp(np.maximum(np.abs(ref), tiny))
    return np.abs(got - ref) / np.ldexp(1.0, e - 1 - nmant)


@pytest.mark.parametrize("dt", [np.float16, ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_half_rounded_once(dt, approximate):
    x = np.linspace(-6, 6, 20001).astype(dt)
    x64 = x.astype(np.float64)
    if approximate == "none":
        ref = 0.5 * x64 * _verfc(-x64 / math.sqrt(2))
    else:
        ref = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
    y = F.gelu(asc.asarray(x), approximate=approximate)
    assert str(y.dtype) == np.dtype(dt).name
    got = np.asarray(y).astype(np.float64)
    keep = np.abs(ref) > (1e-4 if dt == np.float16 else 1e-30)  # float16 denormals: absolute units
    assert _half_ulp_err(got[keep], ref[keep], dt).max() <= 0.6
