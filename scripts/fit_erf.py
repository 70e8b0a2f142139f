"""Fits the coefficients of fast_math::Erf (executor/cpu/fast_math.h) and reports its
error, evaluated in float32 the way the C++ evaluates it.

    /usr/bin/python3 scripts/fit_erf.py

Two pieces, each a least-squares polynomial fit in double over a dense grid:
  |x| < 1:      erf(x) = x * P(x^2), P of degree 6 (a fit of erf(x) / x);
  1 <= |x| < 4: erf(x) = 1 - Q(t), t = |x| * (2/3) - 5/3 in [-1, 1), Q of degree 12
                (a fit of erfc);
  |x| >= 4:     1 (erf rounds to 1 in float32 from 3.92).
Prints both coefficient lists (constant term first; the C++ runs Horner from the last)
and the worst error in float32 ulps of the exact value over each piece.
"""

import math

import numpy as np

F32 = np.float32
ERF = np.vectorize(math.erf)


def horner32(coeffs, t):
    p = np.full_like(t, F32(coeffs[-1]))
    for c in coeffs[-2::-1]:
        p = (p * t + F32(c)).astype(F32)
    return p


def worst_ulps(got, x):
    want = ERF(x.astype(np.float64))
    ulp = np.spacing(np.abs(want.astype(F32))).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - want) / ulp))


def main():
    small = np.linspace(0, 1, 20001)[1:]
    p = np.polynomial.polynomial.polyfit(small * small, ERF(small) / small, 6)
    big = np.linspace(1, 4, 60001)
    q = np.polynomial.polynomial.polyfit(big * (2 / 3) - 5 / 3, 1 - ERF(big), 12)
    print("P:", ", ".join("%.9e" % v for v in p))
    print("Q:", ", ".join("%.9e" % v for v in q))

    xs = np.linspace(0, 1, 200001, dtype=F32)[1:-1]
    print("worst on (0, 1): %.2f ulp" % worst_ulps((xs * horner32(p, (xs * xs).astype(F32))).astype(F32), xs))
    xb = np.linspace(1, 4, 300001, dtype=F32)[:-1]
    t = (xb * F32(0.666666667) - F32(1.666666667)).astype(F32)
    print("worst on [1, 4): %.2f ulp" % worst_ulps((F32(1) - horner32(q, t)).astype(F32), xb))


if __name__ == "__main__":
    main()
