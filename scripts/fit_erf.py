import numpy as np, math
from numpy.polynomial import chebyshev as C
erf = np.vectorize(math.erf)
f32 = np.float32
def ulps(got, want):
    want32 = want.astype(np.float32)
    sp = np.spacing(np.abs(want32)).astype(np.float64)
    return np.max(np.abs(got.astype(np.float64) - want) / sp)
# region A: |x| < 1: erf(x) = x * P(x^2)
xs = np.linspace(0, 1, 20001)[1:]
for deg in (5, 6, 7):
    # weighted least squares for relative error: fit erf(x)/x as poly in x^2
    u = xs*xs
    y = erf(xs)/xs
    c = np.polynomial.polynomial.polyfit(u, y, deg)
    # evaluate in float32 Horner
    x32 = xs.astype(f32); u32 = x32*x32
    p = f32(c[-1])
    for k in range(deg-1, -1, -1):
        p = (p*u32 + f32(c[k])).astype(f32)
    got = (x32*p).astype(f32)
    print("A deg", deg, "max ulp", ulps(got, erf(x32.astype(np.float64))))
    if deg == 6: cA = c
# region B: 1 <= x < 4 : erf(x) poly in t = (x - 2.5)/1.5 ; fit 1-erf? fit erf directly
xs = np.linspace(1, 4, 60001)
for deg in (10, 12, 14, 16):
    t = (xs - 2.5) / 1.5
    y = 1 - erf(xs)  # erfc
    c = np.polynomial.polynomial.polyfit(t, y, deg)
    x32 = xs.astype(f32); t32 = ((x32 - f32(2.5)) * f32(1/1.5)).astype(f32)
    p = f32(c[-1])
    for k in range(deg-1, -1, -1):
        p = (p*t32 + f32(c[k])).astype(f32)
    got = (f32(1) - p).astype(f32)
    print("B deg", deg, "max ulp", ulps(got, erf(x32.astype(np.float64))))
print("A", ", ".join("%.9ef" % v for v in cA))
xs = np.linspace(1, 4, 60001); t = (xs - 2.5) / 1.5
cB = np.polynomial.polynomial.polyfit(t, 1 - erf(xs), 12)
print("B", ", ".join("%.9ef" % v for v in cB))
