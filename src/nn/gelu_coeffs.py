"""Fits the rational of src/nn/activation.cc's exact gelu kernel (not run by the build).

    python src/nn/gelu_coeffs.py [M N [A]]     (default 4 5 14.5)

R(a) = Q(a) exp(a^2 / 2), Q(a) = Phi(-a) = 0.5 erfc(a / sqrt 2), is approximated on [0, A] by
P_M(a) / D_N(a) (D's constant term 1, P's fixed to R(0) = 0.5) with minimal maximum *relative*
error: linearised weighted least squares (P - R D = 0 weighted by 1 / (R D_prev)) with Lawson's
weight updates, in float64 against math.erfc. The coefficients are then rounded to float32 one
at a time (highest degrees first, alternating P and D), the others refitted after each rounding,
which keeps the float32 rational at 0.30 ulp where rounding all at once gives 0.50. Prints the
coefficients for gelu_detail::kGeluP / kGeluD.
"""

import math
import sys

import numpy as np


def main():
    m, n = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) > 2 else (4, 5)
    top = float(sys.argv[3]) if len(sys.argv) > 3 else 14.5
    k = 4000
    a = np.sort(np.concatenate([(np.cos(np.linspace(0, np.pi, k))[::-1] + 1) / 2 * top, np.linspace(0, top, k)]))
    r = np.array([0.5 * math.erfc(v / math.sqrt(2)) * math.exp(v * v / 2) for v in a])
    mat = np.stack([a ** j for j in range(m + 1)] + [-r * a ** j for j in range(1, n + 1)], 1)

    def value(c):
        return np.polyval(c[:m + 1][::-1], a) / np.polyval(np.concatenate([[1.0], c[m + 1:]])[::-1], a)

    def fit(fixed, iters=150):
        free = [j for j in range(m + 1 + n) if j not in fixed]
        rhs = r - sum(mat[:, j] * v for j, v in fixed.items())
        den = np.ones_like(a)
        lw = np.ones_like(a)
        best = (np.inf, None)
        for _ in range(iters):
            w = lw / (r * den)
            c, *_ = np.linalg.lstsq(mat[:, free] * w[:, None], rhs * w, rcond=None)
            full = np.zeros(m + 1 + n)
            full[free] = c
            for j, v in fixed.items():
                full[j] = v
            den = np.polyval(np.concatenate([[1.0], full[m + 1:]])[::-1], a)
            err = np.abs(value(full) - r) / r
            if err.max() < best[0]:
                best = (err.max(), full.copy())
            lw = lw * np.sqrt(err) + 1e-300
            lw /= lw.sum()
        return best

    fixed = {0: 0.5}
    e64, c = fit(fixed)
    order = []
    for i in range(max(m, n)):  # D_n, P_m, D_{n-1}, P_{m-1}, ...
        if n - i >= 1:
            order.append(m + n - i)
        if m - i >= 1:
            order.append(m - i)
    for j in order:
        fixed[j] = float(np.float32(c[j]))
        _, c = fit(fixed)
    c32 = c.astype(np.float32).astype(np.float64)
    e32 = (np.abs(value(c32) - r) / r).max()
    print(f"({m}, {n}) on [0, {top}]: max relative error {e64:.3e} ({e64 / 2 ** -24:.2f} ulp) in float64, "
          f"{e32:.3e} ({e32 / 2 ** -24:.2f} ulp) with the float32 coefficients")
    print("kGeluP =", [float(v) for v in c32[:m + 1]])
    print("kGeluD =", [1.0] + [float(v) for v in c32[m + 1:]])


if __name__ == "__main__":
    main()
