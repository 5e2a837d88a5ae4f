# Generates the Chebyshev coefficients of the erf/erfc kernels -> src/kernel/simd/math_erf-inl.h (run with mpmath installed; output pasted there).
import mpmath as mp
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
