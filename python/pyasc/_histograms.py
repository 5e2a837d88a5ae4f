"""NumPy's ``lib/_histograms_impl`` names beyond :func:`pyasc.histogram` (which is in
:mod:`pyasc._sorting`): ``histogram_bin_edges`` and ``histogramdd``.

``histogramdd`` bins each coordinate with a device ``searchsorted`` over its
edges, combines the per-axis bin numbers into one flat index and counts with
``bincount`` (weights summed in float64), as one pass over the samples.
The bin-width estimators of string ``bins`` ('auto', 'fd', 'doane', 'scott',
'rice', 'sturges', 'sqrt'; used by :func:`pyasc.histogram` too) take their
statistics (ptp, std, mean, percentiles) from device reductions and apply
NumPy's formulas to those scalars; 'stone' (a cross-validation search) is not
supported. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import operator as _operator

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _sorting as _srt
from ._helpers import _NIE, _TE, _VE, _arr

__all__ = [
    "histogram_bin_edges", "histogramdd",
]


def _ptp(x):
    return float(_C.max(x)) - float(_C.min(x))


def _bw_sqrt(x):
    return _ptp(x) / _math.sqrt(x.size)


def _bw_sturges(x):
    return _ptp(x) / (_math.log2(x.size) + 1.0)


def _bw_rice(x):
    return _ptp(x) / (2.0 * x.size ** (1.0 / 3))


def _bw_scott(x):
    return (24.0 * _math.pi ** 0.5 / x.size) ** (1.0 / 3.0) * float(_C.std(x))


def _bw_doane(x):
    if x.size > 2:
        sg1 = _math.sqrt(6.0 * (x.size - 2) / ((x.size + 1.0) * (x.size + 3)))
        sigma = float(_C.std(x))
        if sigma > 0.0:
            t = _C.true_divide(_C.subtract(x, _C.mean(x)), sigma)
            g1 = float(_C.mean(_C.multiply(_C.multiply(t, t), t)))
            return _ptp(x) / (1.0 + _math.log2(x.size) + _math.log2(1.0 + abs(g1) / sg1))
    return 0.0


def _bw_fd(x):
    from ._statistics import percentile

    q = percentile(x, [75, 25])
    return 2.0 * (float(q[0]) - float(q[1])) * x.size ** (-1.0 / 3.0)


def _bw_auto(x):  # NumPy 2.4: min(max(fd, sqrt / 2), sturges)
    return min(max(_bw_fd(x), _bw_sqrt(x) / 2), _bw_sturges(x))


_ESTIMATORS = {"auto": _bw_auto, "fd": _bw_fd, "doane": _bw_doane, "scott": _bw_scott, "rice": _bw_rice,
               "sturges": _bw_sturges, "sqrt": _bw_sqrt, "stone": None}


def _estimate_bins(name, a, bins, range, weights):  # noqa: A002
    """NumPy's bin count for the estimator ``bins`` on ``a`` and the (first, last) edges it spans."""
    if bins not in _ESTIMATORS:
        raise _VE(f"[{name}] {bins!r} is not a valid estimator for `bins`")
    if weights is not None:
        raise _TE(f"[{name}] Automated estimation of the number of bins is not supported for weighted data")
    if _ESTIMATORS[bins] is None:
        raise _NIE(f"[{name}] the 'stone' estimator (a cross-validation search) is not supported by pyasc")
    x = _C.reshape(_arr(a), (-1,))
    first, last = _outer_edges(x, range, 0, name)
    if range is not None:  # the estimate uses the data inside the range only
        keep = _C.logical_and(_C.greater_equal(x, first), _C.less_equal(x, last))
        if not bool(_C.all(keep)):
            x = _C.take_rows(x, _C.nonzero(keep)[0])
    if x.size == 0:
        n = 1
    else:
        width = _ESTIMATORS[bins](_C.astype(x, _np.float64) if x.dtype.kind in "biu" else x)
        if width:
            if x.dtype.kind in "iu" and width < 1:
                width = 1
            n = int(_math.ceil((float(last) - float(first)) / width))
        else:  # e.g. fd when the interquartile range is 0
            n = 1
    return n, (first, last)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 - NumPy's name
    """The bin edges :func:`pyasc.histogram` uses for ``a`` (``numpy.histogram_bin_edges``; string
    ``bins`` name NumPy's width estimators, see the module docstring)."""
    if weights is not None:  # NumPy's _ravel_and_check_weights, before the bins are read
        a_shape = a.shape if isinstance(a, _C.ndarray) else _np.shape(a)
        w_shape = weights.shape if isinstance(weights, _C.ndarray) else _np.shape(weights)
        if tuple(w_shape) != tuple(a_shape):
            raise _VE(f"[histogram_bin_edges] weights should have the same shape as a ({tuple(w_shape)} and "
                      f"{tuple(a_shape)})")
    if isinstance(bins, str):
        bins, range = _estimate_bins("histogram_bin_edges", a, bins, range, weights)  # noqa: A001
        weights = None
    return _srt.histogram(a, bins, range, None, weights)[1]


def _outer_edges(col, rng, i, name="histogramdd"):
    if rng is not None:
        lo, hi = rng
        if lo > hi:
            raise _VE(f"[{name}] max must be larger than min in range parameter (range[{i}] = {rng})")
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise _VE(f"[{name}] supplied range of [{lo}, {hi}] is not finite")
    elif col.size == 0:
        lo, hi = 0, 1
    else:  # NumPy scalars of the sample's dtype: the edges get its float dtype, as NumPy's
        lo, hi = _C.min(col).numpy()[()], _C.max(col).numpy()[()]
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise _VE(f"[{name}] autodetected range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's name
    """The D-dimensional histogram of ``sample`` (an (N, D) array, or a sequence of D coordinate
    arrays) (``numpy.histogramdd``). ``bins``: a count, D counts, or D edge arrays; ``range``: D
    (min, max) pairs. Returns ``(hist, edges)``: float64 counts (weighted sums with ``weights``,
    a density with ``density``) and the list of D edge arrays. The last bin of each axis includes
    its right edge."""
    shape = getattr(sample, "shape", None)
    if shape is None and not hasattr(sample, "__iter__"):
        # NumPy's dispatcher iterates a sample without a shape (`yield from sample`): a Python scalar
        # is its TypeError
        raise _TE(f"[histogramdd] '{type(sample).__name__}' object is not iterable (sample)")
    if shape is not None and len(shape) == 2:
        s = sample if isinstance(sample, _C.ndarray) else _arr(sample)
    else:
        # NumPy's reading of anything else: atleast_2d(sample).T, so a sequence of D coordinate
        # arrays must stack into one (N, D) array (equal shapes, their common dtype); a 0-d or 1-d
        # sample is D = 1, and one of three or more dimensions is rejected.
        s = _arr(sample)
        if s.ndim > 2:
            raise _VE(f"[histogramdd] sample must be an (N, D) array or a sequence of D 1-d arrays "
                      f"(got {s.ndim} dimensions: too many values to unpack (expected 2))")
        s = _C.transpose(_C.reshape(s, (1, -1)) if s.ndim < 2 else s)
    n, d = s.shape
    # NumPy allocates nbin = np.empty(D, intp) and D-element lists before reading bins: a D beyond
    # the largest array is its ValueError, one that cannot be allocated its MemoryError (a huge
    # broadcast sample (3, 2**61) made pyasc's D-element list a bare MemoryError)
    if d > 1 << 24:
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("histogramdd", (d,), _np.dtype(_np.intp))
    try:
        nbins_arg = len(bins)
        if nbins_arg != d:
            raise _VE(f"[histogramdd] The dimension of bins must be equal to the dimension of the sample x "
                      f"({nbins_arg} != {d})")
        per_dim = list(bins)
    except TypeError:
        per_dim = d * [bins]
    if range is None:
        range = (None,) * d  # noqa: A001
    elif len(range) != d:
        raise _VE(f"[histogramdd] range argument must have one entry per dimension ({len(range)} != {d})")
    wts = None if weights is None else _arr(weights)
    edges, nbin = [], []
    for i in _builtins.range(d):
        b = per_dim[i]
        if _np.ndim(b) == 0 and not isinstance(b, _C.ndarray) or isinstance(b, _C.ndarray) and b.ndim == 0:
            if isinstance(b, str):
                raise _NIE(f"[histogramdd] bin estimators (bins={b!r}) are not supported by pyasc")
            if b < 1:
                raise _VE(f"[histogramdd] `bins[{i}]` must be positive, when an integer (got {b})")
            lo, hi = _outer_edges(s[:, i], range[i], i)
            try:
                nb = _operator.index(b)
            except TypeError:
                raise _TE(f"[histogramdd] `bins[{i}]` must be an integer, when a scalar (got {b!r})") from None
            e = _C.array(_np.linspace(lo, hi, nb + 1))  # NumPy's edges: the dtype of lo/hi with float
        else:
            e = _arr(b)
            if e.ndim != 1:
                raise _VE(f"[histogramdd] `bins[{i}]` must be a scalar or 1d array")
            if e.shape[0] > 1 and bool(_C.any(_C.greater(e[:-1], e[1:]))):
                raise _VE(f"[histogramdd] `bins[{i}]` must be monotonically increasing, when an array")
        edges.append(e)
        nbin.append(e.shape[0] + 1)  # with the two outlier bins
    if d == 0:  # NumPy's ravel_multi_index of no coordinates
        raise _VE("[histogramdd] sample has no dimensions (D = 0): object of too small depth for desired array")
    if wts is not None and n:  # NumPy's bincount checks (it ignores the weights of no samples)
        if wts.ndim != 1:
            raise _VE(f"[histogramdd] weights must be a 1-d array (got {wts.ndim} dimensions): object "
                      f"{'of too small depth' if wts.ndim == 0 else 'too deep'} for desired array")
        if not _np.can_cast(_np.dtype(wts.dtype), _np.float64, "safe"):
            raise _TE(f"[histogramdd] Cannot cast the weights from dtype({_np.dtype(wts.dtype)}) to "
                      "dtype('float64') according to the rule 'safe'")
        if wts.shape[0] != n:
            raise _VE(f"[histogramdd] The weights and list don't have the same length ({wts.shape[0]} != {n})")
        wts = _C.astype(wts, _np.float64)
    flat = _C.full((n,), 0, _np.int64)
    for i in _builtins.range(d):
        col = s[:, i]
        idx = _C.searchsorted(edges[i], col, True, None)  # digitize(right=False): edges[k-1] <= v < edges[k]
        idx = _C.where(_C.equal(col, edges[i][-1]), _C.subtract(idx, 1), idx)  # right edge joins the last bin
        flat = _C.add(_C.multiply(flat, nbin[i]), _C.astype(idx, _np.int64))
    total = 1
    for k in nbin:
        total *= k
    hist = _C.bincount(flat, wts, total) if n else _C.full((total,), 0, _np.float64)
    hist = _C.astype(_C.reshape(hist, tuple(nbin)), _np.float64)
    hist = hist[(slice(1, -1),) * d]
    if density:
        tot = _C.sum(hist)
        for i in _builtins.range(d):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            widths = _C.subtract(edges[i][1:], edges[i][:-1])
            hist = _C.true_divide(hist, _C.reshape(widths, tuple(shape)))
        hist = _C.true_divide(hist, tot)
    return hist, edges
