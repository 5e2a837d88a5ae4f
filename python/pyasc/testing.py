"""Testing helpers: :func:`gradcheck` (torch.autograd.gradcheck's name and tolerances).

``asc.testing.gradcheck(fn, inputs)`` compares the reverse-mode gradients of :mod:`pyasc.autograd`
with central finite differences computed in float64. Every other name is ``numpy.testing``'s
(``asc.testing.assert_allclose(pyasc_array, expected)`` works: NumPy reads pyasc arrays).
"""

from __future__ import annotations

import numpy as _np

__all__ = ["gradcheck", "GradcheckError"]


def _asc():
    import pyasc

    return pyasc


class GradcheckError(AssertionError):
    """Analytic and numerical gradients differ (raised by :func:`gradcheck`)."""


def _to_host(x):
    asc = _asc()
    if isinstance(x, asc.ndarray):
        return x.numpy()
    return _np.asarray(x)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, argnums=None, seed=0,
              kwargs=None):
    """Checks ``pyasc.vjp(func, ...)`` against central finite differences in float64.

    ``inputs``: a tuple of arrays (or one array). Floating inputs are converted to float64 (the check
    needs the precision, as torch's gradcheck asks for double inputs) and differentiated unless
    ``argnums`` names the ones to differentiate; other inputs (integer targets, ...) are passed
    unchanged. The outputs (an array or a tuple of arrays) are contracted with a random cotangent
    ``v`` (fixed ``seed``): the analytic ``v^T J`` from :func:`pyasc.vjp` must match, for every
    element ``x_k``, ``(s(x + eps e_k) - s(x - eps e_k)) / 2 eps`` with ``s = sum(v * func(x))``,
    within ``atol + rtol * |numerical|``.

    Returns True; on a mismatch raises :class:`GradcheckError` naming the input, the element index
    and both values (or returns False with ``raise_exception=False``).
    """
    asc = _asc()
    kwargs = kwargs or {}
    if not isinstance(inputs, (tuple, list)):
        inputs = (inputs,)
    host = []
    for a in inputs:
        h = _to_host(a) if isinstance(a, (asc.ndarray, _np.ndarray, list, float)) else a
        if isinstance(h, _np.ndarray) and h.dtype.kind in "fc":
            h = h.astype(_np.float64 if h.dtype.kind == "f" else _np.complex128)
        host.append(h)
    if argnums is None:
        argnums = tuple(i for i, h in enumerate(host) if isinstance(h, _np.ndarray) and h.dtype.kind == "f")
    elif isinstance(argnums, int):
        argnums = (argnums,)
    if not argnums:
        raise _asc().errors.AscendValueError(asc.ErrorCode.INVALID_PARAM,
                                             "[gradcheck] no floating input to differentiate")
    dev = [asc.asarray(h) if isinstance(h, _np.ndarray) else h for h in host]

    def call(args):
        out = func(*args, **kwargs)
        return out if isinstance(out, tuple) else (out,)

    outs0 = call(dev)
    rng = _np.random.default_rng(seed)
    vs = [rng.standard_normal(tuple(o.shape)).astype(_np.float64) for o in outs0]

    def s(args):
        return float(sum(_np.sum(v * _to_host(o).astype(_np.float64)) for v, o in zip(vs, call(args))))

    diff_args = [dev[i] for i in argnums]

    def partial(*xs):
        args = list(dev)
        for i, x in zip(argnums, xs):
            args[i] = x
        out = func(*args, **kwargs)
        return out

    out, vjp_fn = asc.vjp(partial, *diff_args)
    cot = tuple(asc.asarray(v) for v in vs) if isinstance(out, tuple) else asc.asarray(vs[0])
    analytic = [_to_host(g) for g in vjp_fn(cot)]
    for pos, i in enumerate(argnums):
        base = host[i]
        num = _np.zeros(base.shape, _np.float64)
        for k in _np.ndindex(base.shape):
            args = list(dev)
            xp = base.copy()
            xp[k] += eps
            args[i] = asc.asarray(xp)
            fp = s(args)
            xm = base.copy()
            xm[k] -= eps
            args[i] = asc.asarray(xm)
            fm = s(args)
            num[k] = (fp - fm) / (2 * eps)
        an = analytic[pos].astype(_np.float64)
        bad = _np.abs(an - num) > atol + rtol * _np.abs(num)
        if bad.any() or an.shape != num.shape:
            k = tuple(int(j) for j in _np.argwhere(bad)[0]) if bad.any() else ()
            msg = (f"[gradcheck] input {i} (shape {base.shape}): analytic and numerical gradients differ at "
                   f"index {k}: analytic {an[k] if bad.any() else an.shape}, numerical "
                   f"{num[k] if bad.any() else num.shape} ({int(bad.sum())} of {bad.size} elements beyond "
                   f"atol={atol}, rtol={rtol})")
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def __getattr__(name):
    # numpy.testing's helpers (assert_allclose, assert_array_equal, ...) under asc.testing
    import numpy.testing as _npt

    try:
        return getattr(_npt, name)
    except AttributeError:
        raise AttributeError(f"module 'pyasc.testing' has no attribute {name!r}") from None
