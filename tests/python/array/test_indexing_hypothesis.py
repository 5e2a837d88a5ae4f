"""Hypothesis-generated shapes and index keys (ints, slices, None, Ellipsis,
integer arrays, boolean masks, lists) for getitem/setitem and broadcasting."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_both

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def array_and_key(draw):
    shape = draw(shapes)
    items = []
    used_ellipsis = False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "array", "list", "mask", "bool0"]))
        if kind == "int":
            items.append(draw(st.integers(-5, 5)))
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-5, 5)), draw(st.none() | st.integers(-5, 5)),
                               draw(st.none() | st.sampled_from([-2, -1, 1, 2, 3]))))
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            items.append(Ellipsis)
        elif kind in ("array", "list"):
            ishape = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple))
            n = int(np.prod(ishape))
            vals = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
            arr = np.array(vals, dtype=draw(st.sampled_from([np.int64, np.int32, np.int8, np.uint8]))
                           if min(vals, default=0) >= 0 else np.int64).reshape(ishape)
            items.append(("arr", arr) if kind == "array" else arr.tolist())
        elif kind == "mask":
            k = draw(st.integers(1, 2))
            mshape = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k).map(tuple))
            n = int(np.prod(mshape))
            items.append(("arr", np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool).reshape(mshape)))
        elif kind == "bool0":
            items.append(draw(st.booleans()))
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 7
    return data, items


def _key(xp, items):
    out = tuple(xp.asarray(v[1]) if isinstance(v, tuple) else v for v in items)
    return out[0] if len(out) == 1 and not isinstance(items[0], tuple) else out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(array_and_key())
def test_getitem_matches_numpy(case):
    data, items = case
    run_both(lambda xp: xp.asarray(data)[_key(xp, items)])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(array_and_key(), st.booleans())
def test_setitem_matches_numpy(case, scalar):
    data, items = case

    def f(xp):
        a = xp.array(data)
        key = _key(xp, items)
        if scalar:
            a[key] = 99.0
        else:
            shape = np.asarray(a[key]).shape if xp is np else a[key].shape
            a[key] = xp.asarray(np.arange(shape[-1] if shape else 1, dtype=np.float64)[-1 if not shape else slice(None)])
        return a

    run_both(f)


@settings(max_examples=150, deadline=None)
@given(shapes, shapes)
def test_broadcasting_shapes(s1, s2):
    a = np.arange(int(np.prod(s1)), dtype=np.int16).reshape(s1)
    b = np.arange(int(np.prod(s2)), dtype=np.float32).reshape(s2)
    run_both(lambda xp: xp.asarray(a) + xp.asarray(b))
    run_both(lambda xp: xp.broadcast_arrays(xp.asarray(a), xp.asarray(b)))
