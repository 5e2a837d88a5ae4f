"""Fits the rational of src/nn/activation.cc's exact gelu kernel (not run by the build).

    python src/nn/gelu_coeffs.py [M N [A]]     (default 4 5 14.5)

R(a) = Q(a) exp(a^2 / 2), Q(a) = Phi(-a) = 0.5 erfc(a / sqrt 2), is approximated on [0, A] by
P_M(a) / D_N(a) (D's constant term 1) with minimal maximum *relative* error: linearised
weighted least squares (P - R D = 0 weighted by 1 / (R D_prev)) with Lawson's weight updates,
in float64 against math.erfc; then the coefficients are rounded to float32 and the error is
reported again. Prints the coefficients for gelu_detail::kGeluP / kGeluD.
"""

import math
import sys

import numpy as np


def fit(m, n, top, iters=200):
    k = 4000
    a = np.sort(np.concatenate([(np.cos(np.linspace(0, np.pi, k))[::-1] + 1) / 2 * top, np.linspace(0, top, k)]))
    r = np.array([0.5 * math.erfc(v / math.sqrt(2)) * math.exp(v * v / 2) for v in a])

    def value(c):
        return np.polyval(c[:m + 1][::-1], a) / np.polyval(np.concatenate([[1.0], c[m + 1:]])[::-1], a)

    den = np.ones_like(a)
    lw = np.ones_like(a)
    best = (np.inf, None)
    cols = [a ** j for j in range(m + 1)] + [-r * a ** j for j in range(1, n + 1)]
    mat = np.stack(cols, 1)
    for _ in range(iters):
        w = lw / (r * den)
        c, *_ = np.linalg.lstsq(mat * w[:, None], r * w, rcond=None)
        den = np.polyval(np.concatenate([[1.0], c[m + 1:]])[::-1], a)
        err = np.abs(value(c) - r) / r
        if err.max() < best[0]:
            best = (err.max(), c.copy())
        lw = lw * np.sqrt(err) + 1e-300
        lw /= lw.sum()
    c32 = best[1].astype(np.float32).astype(np.float64)
    return best[0], c32, (np.abs(value(c32) - r) / r).max()


def main():
    m, n = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (4, 5)
    top = float(sys.argv[3]) if len(sys.argv) > 3 else 14.5
    err, c, err32 = fit(m, n, top)
    print(f"({m}, {n}) on [0, {top}]: max relative error {err:.3e} ({err / 2 ** -24:.2f} ulp), "
          f"float32 coefficients {err32:.3e} ({err32 / 2 ** -24:.2f} ulp)")
    print("kGeluP =", [float(v) for v in c[:m + 1]])
    print("kGeluD =", [1.0] + [float(v) for v in c[m + 1:]])


if __name__ == "__main__":
    main()
