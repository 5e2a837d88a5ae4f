"""Array-API spellings and NumPy aliases behave like the NumPy function they stand for,
and every public name of the namespace is exercised by some test."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import pyasc as asc

# pyasc alias -> NumPy function it must match (array API names map to NumPy's)
ALIASES = {
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "atan2": "arctan2", "pow": "power", "mod": "mod", "amax": "amax",
    "amin": "amin", "around": "around",
}


def _operand(name, xp):
    x = np.array([-0.75, -0.0, 0.0, 0.5, 0.9, np.nan, np.inf, -np.inf], np.float32)
    if name == "acosh":
        x = np.array([1.0, 1.5, 10.0, 0.5, np.nan, np.inf], np.float32)
    return xp.asarray(x)


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_alias_matches_numpy(check, name):
    ref = ALIASES[name]
    binary = name in ("atan2", "pow", "mod")

    def body(xp):
        fn = getattr(xp, name) if xp is asc else getattr(np, ref)
        x = _operand(name, xp)
        with np.errstate(all="ignore"):
            if binary:
                return fn(x, xp.asarray(np.float32(0.75)))
            if name in ("amax", "amin"):
                return fn(xp.asarray(np.arange(12.0, dtype=np.float32).reshape(3, 4)[:, ::-1]), axis=1)
            if name == "around":
                return fn(x * 10, 1)
            return fn(x)

    check(body)


def test_permute_dims_matches_transpose(check):
    check(lambda xp: (xp.permute_dims if xp is asc else np.permute_dims)(
        xp.asarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4)), (2, 0, 1)))


def test_every_public_name_is_tested():
    # A name counts as tested when some test calls it as xp./asc./np.<name> or names it as a
    # string (parametrised op lists). New public names must come with a test.
    root = pathlib.Path(__file__).resolve().parents[1]
    text = "".join(p.read_text() for p in root.rglob("*.py"))
    untested = []
    for name in asc.numeric.__all__:
        pat = r"(\b(xp|asc|pyasc|np|m|ns)\." + re.escape(name) + r"\b)|([\"']" + re.escape(name) + r"[\"'])"
        if not re.search(pat, text):
            untested.append(name)
    assert not untested, f"public names without a test: {untested}"
