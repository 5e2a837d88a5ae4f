# Generates the coefficients of the erf/erfc kernels -> src/kernel/simd/math_erf-inl.h (output
# pasted there). Needs mpmath and NumPy:
#   PYTHONPATH=build/bench/site .venv/bin/python src/kernel/simd/math_erf_coeffs.py [--fast-erf-only]
# (make bench-setup installs mpmath into build/bench/site with sympy; about 1 minute.)
#
# 1. erfc / float64 erf: Chebyshev interpolation at 70 nodes (mpmath, 60 digits), truncated
#    where the remaining terms fall below the dtype's precision.
# 2. float32 erf (math.cc ErfF32): weighted minimax fits (Lawson's iteratively reweighted least
#    squares) of
#      R(s) = erf(x)/x - 1, s = x^2, |x| < kErfSplitF32  (weight 1/(1+R): relative error of erf)
#      P(t) = log(erfc(t)), t in [kErfSplitF32, 4]       (weight erfc(t)/ulp(erf(t)): the error
#                                                        P makes in 1 - exp(P), in erf's ulps)
#    with progressive rounding: the highest coefficient is rounded to float32, the rest refitted,
#    and so on down, so the float32 constants are the fit, not a rounding of it. The script then
#    simulates the float32 evaluation (FMA Horner / Estrin as math.cc, exp correctly rounded) on
#    100,001 points and prints the maximum error in ulps; simd_math_test measures the real kernel.
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 60


def cheb(f, a, b, N):
    nodes = [mp.cos(mp.pi*(k+mp.mpf(1)/2)/N) for k in range(N)]
    vals = [f((b-a)/2*u + (b+a)/2) for u in nodes]
    c = [2*sum(vals[k]*mp.cos(mp.pi*j*(k+mp.mpf(1)/2)/N) for k in range(N))/N for j in range(N)]
    c[0] /= 2
    return c


def emit(name, c, n):
    print(f"constexpr double {name}[{n}] = {{")
    print(",\n".join("    " + repr(float(v)) for v in c[:n]) + "};")


def chebyshev_part():
    for tag, xmax, nl, ns in (("F32", 10.1, 12, 6), ("F64", 27.3, 25, 10)):
        tmin, tmax = 2/(2+mp.mpf(xmax)), mp.mpf("0.8")
        c = cheb(lambda t: mp.log(mp.erfc(2/t-2)/t) + (2/t-2)**2, tmin, tmax, 70)
        print(f"// erfc(x) = t exp(-x^2 + P(u)), t = 2/(2+x), u = t*A + B, x in [0.5, {xmax}]")
        print(f"constexpr double kErfcA{tag} = {float(2/(tmax-tmin))!r}, kErfcB{tag} = {float(-(tmin+tmax)/(tmax-tmin))!r};")
        emit(f"kErfcCheb{tag}", c, nl)
        g = lambda s: mp.erf(mp.sqrt(s))/mp.sqrt(s) if s > 0 else 2/mp.sqrt(mp.pi)
        c = cheb(g, mp.mpf(0), mp.mpf("0.25"), 30)
        print("// erf(x) = x Q(w), w = 8 x^2 - 1, |x| < 0.5")
        emit(f"kErfSmallCheb{tag}", c, ns)


# ------------------------------------------------------------------ float32 erf
SPLIT, CLAMP, DEG_SMALL, DEG_LARGE = 0.95, 4.0, 5, 6


def lawson(x, y, w, deg, fixed, iters=300):
    """Weighted minimax of sum a_k x^k ~ y; `fixed` maps degree -> a float32 value kept."""
    free = [k for k in range(deg + 1) if k not in fixed]
    V = np.vander(x, deg + 1, increasing=True)
    rhs = y - sum((V[:, k] * v for k, v in fixed.items()), np.zeros_like(y))
    A, b = V[:, free] * w[:, None], rhs * w
    lw = np.full(len(x), 1.0 / len(x))
    best = (np.inf, None)
    for _ in range(iters):
        sw = np.sqrt(lw)
        a = np.linalg.lstsq(A * sw[:, None], b * sw, rcond=None)[0]
        e = np.abs(A @ a - b)
        if e.max() < best[0]:
            best = (e.max(), a)
        lw = lw * e
        lw /= lw.sum()
    coef = np.zeros(deg + 1)
    coef[free] = best[1]
    for k, v in fixed.items():
        coef[k] = v
    return coef


def progressive_f32(x, y, w, deg):
    fixed = {}
    for k in range(deg, -1, -1):
        fixed[k] = float(np.float32(lawson(x, y, w, deg, fixed)[k]))
    return [fixed[k] for k in range(deg + 1)]


def ulp32(v):
    v = np.abs(np.asarray(v, dtype=np.float64))
    return 2.0 ** (np.floor(np.log2(np.maximum(v, 2.0**-126))) - 23)


def fma32(a, b, c):  # float32 FMA: the float64 product of two floats is exact
    return (np.float64(a) * np.float64(b) + np.float64(c)).astype(np.float32)


def simulate(small, large, x):
    f = np.float32
    s = (x * x).astype(f)
    r = np.full_like(x, small[-1])
    for c in small[-2::-1]:
        r = fma32(r, s, f(c))
    rs = fma32(r, x, x)
    t = np.minimum(np.abs(x), f(CLAMP))
    t2, c = (t * t).astype(f), [f(v) for v in large]
    q01, q23, q45 = fma32(c[1], t, c[0]), fma32(c[3], t, c[2]), fma32(c[5], t, c[4])
    q46 = fma32(c[6], t2, q45)
    p = fma32(q46, (t2 * t2).astype(f), fma32(q23, t2, q01))
    rl = np.copysign((f(1) - np.exp(p.astype(np.float64)).astype(f)).astype(f), x)
    return np.where(np.abs(x) >= f(SPLIT), rl, rs)


def fast_erf_part():
    xs = np.linspace(1e-4, SPLIT, 2000)
    R = np.array([float(mp.erf(v) / v - 1) for v in map(mp.mpf, xs)])
    small = progressive_f32(xs * xs, R, 1.0 / (1.0 + R), DEG_SMALL)
    xl = np.linspace(SPLIT, CLAMP, 2500)
    erfc = np.array([float(mp.erfc(mp.mpf(v))) for v in xl])
    large = progressive_f32(xl, np.log(erfc), erfc / ulp32(1.0 - erfc), DEG_LARGE)
    x = np.linspace(0, CLAMP + 0.5, 100001).astype(np.float32)
    ref = np.array([float(mp.erf(mp.mpf(float(v)))) for v in x])
    err = np.abs(simulate(small, large, x).astype(np.float64) - ref) / ulp32(ref)
    print(f"// float32 erf (math.cc ErfF32): |x| < {SPLIT}: x + x R(x^2); else sign(x) (1 - exp(P(min(|x|, {CLAMP})))).")
    print(f"// Weighted minimax, float32 coefficients; simulated max error {err.max():.2f} ulp (exp rounded correctly).")
    print(f"constexpr float kErfSplitF32 = {SPLIT}f, kErfClampF32 = {CLAMP}f;")
    for name, c in (("kErfSmallF32", small), ("kErfLargeF32", large)):
        print(f"constexpr float {name}[{len(c)}] = {{" + ", ".join(f"{v!r}f" for v in c) + "};")


if __name__ == "__main__":
    if "--fast-erf-only" not in sys.argv:
        chebyshev_part()
    fast_erf_part()
