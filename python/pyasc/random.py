"""``pyasc.random``: reproducible random numbers on the device.

The generator is counter-based (Philox-4x32-10, src/ops/random.cc): a
:class:`Generator` is a 128-bit key (from the seed) plus a counter. Every
value of a draw depends only on the key and its position in the stream, so
blocks are generated on all cores and the results are identical for any core
count (``ASC_NUM_CORES``) and across runs. The streams are not NumPy's (same
seed, different numbers); the distributions and the API are.

``default_rng(seed)`` returns a :class:`Generator` with ``random, uniform,
normal, standard_normal, exponential, standard_exponential, integers, choice,
permutation, shuffle, bytes, spawn``. Module functions (``seed, rand, randn,
random, random_sample, uniform, normal, standard_normal, exponential,
integers, randint, permutation, shuffle, choice, bytes``, ``get_state`` /
``set_state``) use one global generator.
"""

from __future__ import annotations

import operator as _operator
import os as _os

import numpy as _np

from . import _C

_MASK64 = (1 << 64) - 1


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _mix(words):
    """Two 64-bit words (Philox key, stream id) from any sequence of 64-bit words."""
    h0, h1 = 0x243F6A8885A308D3, 0x13198A2E03707344
    for w in words:
        h0 = _splitmix64(h0 ^ w)
        h1 = _splitmix64(h1 ^ _splitmix64(w ^ 0xA4093822299F31D0))
    n = len(words)
    return _splitmix64(h0 ^ n), _splitmix64(h1 ^ (n << 1))


def _int_words(s):
    s = _operator.index(s)
    if s < 0:
        raise ValueError("Seed must be non-negative")
    words = []
    while True:
        words.append(s & _MASK64)
        s >>= 64
        if not s:
            return words


def _seed_key(seed):
    if seed is None:
        return _mix(list(_np.frombuffer(_os.urandom(32), dtype=_np.uint64).tolist()))
    if isinstance(seed, Generator):
        return seed._key0, seed._key1
    if isinstance(seed, (list, tuple)) or (hasattr(seed, "ndim") and getattr(seed, "ndim", 0) > 0):
        words = []
        for s in _np.asarray(seed).ravel().tolist():
            words.extend(_int_words(s))
            words.append(0x5851F42D4C957F2D)  # separator: [1, 2] differs from [1 + 2**64]
        return _mix(words)
    if isinstance(seed, float) or (hasattr(seed, "dtype") and _np.dtype(seed.dtype).kind == "f"):
        raise TypeError("SeedSequence expects int or sequence of ints for entropy not " + repr(seed))
    return _mix(_int_words(seed))


def _shape(size):
    if size is None:
        return None
    if _np.ndim(size) == 0:
        shape = (_operator.index(size),)
    else:
        shape = tuple(_operator.index(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _scalar_or(arr, size):
    """NumPy returns a scalar when size is None."""
    return arr.numpy()[()] if size is None else arr


def _float_dtype(dtype, what):
    d = _np.dtype(dtype)
    if d not in (_np.dtype(_np.float32), _np.dtype(_np.float64)):
        raise TypeError(f"Unsupported dtype {d!r} for {what}")
    return d


def _is_scalar(v):
    return _np.ndim(v) == 0 and not isinstance(v, _C.ndarray) or (isinstance(v, _C.ndarray) and v.ndim == 0)


class Generator:
    """A Philox-4x32-10 stream: key (from the seed) + counter. Not thread-safe: share one
    generator between threads only with a lock, or give each thread a :meth:`spawn` child."""

    def __init__(self, key0, key1, counter=0):
        self._key0 = int(key0) & _MASK64
        self._key1 = int(key1) & _MASK64
        self._counter = int(counter) & _MASK64
        self._spawned = 0

    def __repr__(self):
        return f"Generator(Philox4x32) at 0x{id(self):X}"

    def _advance(self, n):
        """The counter block of a draw of n elements; each element uses at most one block."""
        c = self._counter
        self._counter = (c + max(int(n), 1)) & _MASK64
        return c

    # -------------------------------------------------------------- floats

    def random(self, size=None, dtype=_np.float64, out=None):
        """Floats uniform in [0, 1) (float64 or float32)."""
        d = _float_dtype(dtype, "random")
        return self._float_draw(_C.random_uniform, size, d, out, 0.0, 1.0)

    def _float_draw(self, fn, size, d, out, *params):
        if out is not None:
            if size is not None and tuple(out.shape) != _shape(size):
                raise ValueError("size must match out.shape when used together")
            shape = tuple(out.shape)
            if _np.dtype(out.dtype) != d:
                raise TypeError(f"Supplied output array has the wrong type. Expected {d}, got {out.dtype}")
        else:
            shape = _shape(size) or ()
        r = fn(list(shape), d.name, self._key0, self._key1, self._advance(_count(shape)), *params)
        if out is not None:
            out[...] = r
            return out
        return _scalar_or(r, size)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Floats uniform in [low, high) (float64); low/high may be arrays (broadcast)."""
        if _is_scalar(low) and _is_scalar(high):
            lo, hi = float(low), float(high)
            if not _np.isfinite(hi - lo):
                raise OverflowError("Range exceeds valid bounds")
            return self._float_draw(_C.random_uniform, size, _np.dtype(_np.float64), None, lo, hi)
        lo, hi = _C.asarray(low, _np.float64), _C.asarray(high, _np.float64)
        shape = _shape(size) or _np.broadcast_shapes(tuple(lo.shape), tuple(hi.shape))
        u = self.random(shape)
        return _C.add(lo, _C.multiply(_C.subtract(hi, lo), u))

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        """Standard normal floats (float64 or float32)."""
        d = _float_dtype(dtype, "standard_normal")
        return self._float_draw(_C.random_normal, size, d, out, 0.0, 1.0)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal floats with mean ``loc`` and standard deviation ``scale`` (>= 0); arrays broadcast."""
        if _is_scalar(loc) and _is_scalar(scale):
            if float(scale) < 0:
                raise ValueError("scale < 0")
            return self._float_draw(_C.random_normal, size, _np.dtype(_np.float64), None, float(loc), float(scale))
        lo, sc = _C.asarray(loc, _np.float64), _C.asarray(scale, _np.float64)
        if bool(_C.any(_C.less(sc, 0))):
            raise ValueError("scale < 0")
        shape = _shape(size) or _np.broadcast_shapes(tuple(lo.shape), tuple(sc.shape))
        return _C.add(lo, _C.multiply(sc, self.standard_normal(shape)))

    def standard_exponential(self, size=None, dtype=_np.float64, method="zig", out=None):
        """Exponential floats with scale 1 (float64 or float32); ``method`` is accepted for NumPy
        compatibility."""
        if method not in ("zig", "inv"):
            raise ValueError("method must be either 'inv' or 'zig'")
        d = _float_dtype(dtype, "standard_exponential")
        return self._float_draw(_C.random_exponential, size, d, out, 1.0)

    def exponential(self, scale=1.0, size=None):
        """Exponential floats with the given ``scale`` (>= 0)."""
        if _is_scalar(scale):
            if float(scale) < 0:
                raise ValueError("scale < 0")
            return self._float_draw(_C.random_exponential, size, _np.dtype(_np.float64), None, float(scale))
        sc = _C.asarray(scale, _np.float64)
        if bool(_C.any(_C.less(sc, 0))):
            raise ValueError("scale < 0")
        shape = _shape(size) or tuple(sc.shape)
        return _C.multiply(sc, self.standard_exponential(shape))

    # -------------------------------------------------------------- integers

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        """Integers in [low, high) (``endpoint``: [low, high]) of ``dtype``; ``high=None``: [0, low)."""
        if high is None:
            low, high = 0, low
        if not (_np.ndim(low) == 0 and _np.ndim(high) == 0):
            raise NotImplementedError("pyasc.random: integers with array bounds is not supported")
        d = _np.dtype(dtype)
        if d.kind not in "biu":
            raise TypeError(f"Unsupported dtype {d!r} for integers")
        lo, hi = _operator.index(low), _operator.index(high)
        if not endpoint:
            if lo >= hi:
                raise ValueError("low >= high")
            hi -= 1
        elif lo > hi:
            raise ValueError("low > high")
        if d.kind == "b":
            dmin, dmax = 0, 1
        else:
            info = _np.iinfo(d)
            dmin, dmax = int(info.min), int(info.max)
        if lo < dmin:
            raise ValueError(f"low is out of bounds for {d.name}")
        if hi > dmax:
            raise ValueError(f"high is out of bounds for {d.name}")
        shape = _shape(size) or ()
        r = _C.random_integers(list(shape), d.name, self._key0, self._key1, self._advance(_count(shape)),
                               lo & _MASK64, hi - lo)
        return _scalar_or(r, size)

    def bytes(self, length):  # noqa: A003 - NumPy's name
        """``length`` random bytes."""
        length = _operator.index(length)
        if length < 0:
            raise ValueError("negative dimensions are not allowed")
        words = (length + 3) // 4
        r = _C.random_raw([words], self._key0, self._key1, self._advance(words))
        return r.numpy().astype("<u4").tobytes()[:length]

    # -------------------------------------------------------------- permutations

    def _perm(self, n):
        return _C.random_permutation(n, self._key0, self._key1, self._advance(n))

    def permutation(self, x, axis=0):
        """A permuted ``range(x)`` (int x) or a shuffled copy of ``x`` along ``axis``."""
        if _np.ndim(x) == 0 and not isinstance(x, _C.ndarray):
            n = _operator.index(x)
            if n < 0:
                raise ValueError("negative dimensions are not allowed")
            return self._perm(n)
        a = _C.asarray(x)
        if a.ndim == 0:
            raise IndexError("x must be an integer or at least 1-dimensional")
        axis = _norm_axis(axis, a.ndim)
        moved = a.swapaxes(0, axis)
        r = _C.take_rows(moved, self._perm(moved.shape[0]))
        return r.swapaxes(0, axis).copy() if axis else r

    def shuffle(self, x, axis=0):
        """Shuffles the array ``x`` in place along ``axis``."""
        if not isinstance(x, _C.ndarray):
            raise TypeError("shuffle requires a pyasc.ndarray (it is modified in place)")
        if x.ndim == 0:
            raise TypeError("shuffle requires an array of at least one dimension")
        axis = _norm_axis(axis, x.ndim)
        moved = x.swapaxes(0, axis)
        moved[...] = _C.take_rows(moved, self._perm(moved.shape[0]))

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Random samples from ``range(a)`` (int a) or from the elements of ``a`` along ``axis``,
        with or without replacement, uniform or with probabilities ``p``."""
        is_int = _np.ndim(a) == 0 and not isinstance(a, _C.ndarray)
        if is_int:
            n = _operator.index(a)
            if n < 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
            pop = None
        else:
            pop = _C.asarray(a)
            if pop.ndim == 0:
                raise ValueError("a must be a sequence or an integer, not a 0-d array")
            axis = _norm_axis(axis, pop.ndim)
            pop = pop.swapaxes(0, axis)
            n = pop.shape[0]
        shape = _shape(size)
        k = 1 if shape is None else _count(shape)
        if n == 0 and k > 0:
            raise ValueError("a cannot be empty unless no samples are taken")
        cdf = None
        if p is not None:
            pp = _np.asarray(p.numpy() if isinstance(p, _C.ndarray) else p, dtype=_np.float64)
            if pp.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if pp.size != n:
                raise ValueError("a and p must have same size")
            if _np.isnan(pp).any():
                raise ValueError("probabilities contain NaN")
            if (pp < 0).any():
                raise ValueError("probabilities are not non-negative")
            if abs(float(pp.sum()) - 1.0) > _np.sqrt(_np.finfo(_np.float64).eps):
                raise ValueError("probabilities do not sum to 1")
        if not replace and k > n:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if k == 0:
            idx = _C.empty((0,), _np.int64)
        elif replace:
            if p is None:
                idx = self.integers(0, n, (k,))
            else:
                c = _np.cumsum(pp)
                c /= c[-1]
                cdf = _C.array(c)
                idx = _C.searchsorted(cdf, self.random((k,)), True, None)
                idx = _C.minimum(idx, n - 1)
        elif p is None:
            idx = self._perm(n)[:k]
        else:
            if _np.count_nonzero(pp) < k:
                raise ValueError("Fewer non-zero entries in p than size")
            # Exponential race (Efraimidis-Spirakis): the k smallest E_i / p_i are a
            # sample without replacement with probabilities p, in selection order.
            keys = _C.true_divide(self.standard_exponential((n,)), _C.array(pp))
            idx = _C.argsort(keys, -1, False)[:k]
        if shape is None:
            out = idx if pop is None else _C.take_rows(pop, idx)
            return out.numpy()[0] if pop is None or pop.ndim == 1 else out[0]
        if pop is None:
            return _C.reshape(idx, shape)
        r = _C.take_rows(pop, idx)
        r = _C.reshape(r, shape + tuple(pop.shape[1:]))
        if axis:
            # The sampled axis goes back where it was (its length is now len(shape) dims).
            order = list(range(len(shape), len(shape) + axis)) + list(range(len(shape))) + \
                list(range(len(shape) + axis, r.ndim))
            r = _C.transpose(r, tuple(order)).copy()
        return r

    # -------------------------------------------------------------- streams

    def spawn(self, n_children):
        """``n_children`` independent generators (distinct keys derived from this one's)."""
        n_children = _operator.index(n_children)
        if n_children < 0:
            raise ValueError("n_children must be non-negative")
        kids = []
        for _ in range(n_children):
            self._spawned += 1
            kids.append(Generator(*_mix([self._key0, self._key1, 0x9E3779B97F4A7C15, self._spawned])))
        return kids

    def get_state(self):
        return {"bit_generator": "Philox4x32", "state": {"key": (self._key0, self._key1),
                                                         "counter": self._counter}}

    def set_state(self, state):
        s = state["state"] if "state" in state else state
        self._key0, self._key1 = (int(v) & _MASK64 for v in s["key"])
        self._counter = int(s["counter"]) & _MASK64


def _norm_axis(axis, ndim):
    axis = _operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def default_rng(seed=None):
    """A new :class:`Generator` seeded from ``seed`` (a non-negative int, a sequence of them,
    a Generator, or None for fresh OS entropy)."""
    if isinstance(seed, Generator):
        return seed
    return Generator(*_seed_key(seed))


# ------------------------------------------------------------------ module functions

_global = Generator(*_seed_key(None))


def seed(seed=None):  # noqa: A001 - NumPy's name
    """Re-seeds the global generator (None: fresh OS entropy)."""
    k0, k1 = _seed_key(seed)
    _global._key0, _global._key1, _global._counter = k0, k1, 0


def get_state():
    """The global generator's state (a dict; pass it to :func:`set_state`)."""
    return _global.get_state()


def set_state(state):
    """Restores the global generator's state from :func:`get_state`."""
    _global.set_state(state)


def rand(*shape):
    """Uniform floats in [0, 1) of the given shape (a float when no shape)."""
    return _global.random(shape if shape else None)


def randn(*shape):
    """Standard normal floats of the given shape (a float when no shape)."""
    return _global.standard_normal(shape if shape else None)


def random(size=None):
    """Uniform floats in [0, 1)."""
    return _global.random(size)


random_sample = random
sample = random
ranf = random


def uniform(low=0.0, high=1.0, size=None):
    """Uniform floats in [low, high)."""
    return _global.uniform(low, high, size)


def normal(loc=0.0, scale=1.0, size=None):
    """Normal floats with mean ``loc`` and standard deviation ``scale``."""
    return _global.normal(loc, scale, size)


def standard_normal(size=None):
    """Standard normal floats."""
    return _global.standard_normal(size)


def exponential(scale=1.0, size=None):
    """Exponential floats with the given scale."""
    return _global.exponential(scale, size)


def standard_exponential(size=None):
    """Exponential floats with scale 1."""
    return _global.standard_exponential(size)


def integers(low, high=None, size=None, dtype=_np.int64, endpoint=False):
    """Integers in [low, high) (``endpoint``: [low, high])."""
    return _global.integers(low, high, size, dtype, endpoint)


def randint(low, high=None, size=None, dtype=int):
    """Integers in [low, high) (``high=None``: [0, low)), NumPy's legacy name."""
    return _global.integers(low, high, size, _np.int64 if dtype is int else dtype, False)


def permutation(x):
    """A permuted ``range(x)`` or a shuffled copy of ``x`` (along axis 0)."""
    return _global.permutation(x)


def shuffle(x):
    """Shuffles the pyasc array ``x`` in place along axis 0."""
    _global.shuffle(x)


def choice(a, size=None, replace=True, p=None):
    """Random samples from ``range(a)`` or the elements of ``a``."""
    return _global.choice(a, size, replace, p)


def bytes(length):  # noqa: A001 - NumPy's name
    """``length`` random bytes."""
    return _global.bytes(length)


__all__ = [
    "Generator", "default_rng", "seed", "get_state", "set_state", "rand", "randn", "random", "random_sample",
    "sample", "ranf", "uniform", "normal", "standard_normal", "exponential", "standard_exponential", "integers",
    "randint", "permutation", "shuffle", "choice", "bytes",
]
