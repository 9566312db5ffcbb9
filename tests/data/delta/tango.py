# Reference values for Tango's score interval for a difference of paired proportions,
# computed numerically (constrained MLE by bounded optimisation, roots by brentq),
# independently of autoeval's closed form.
import json, math
from scipy.optimize import minimize_scalar, brentq
from scipy.special import xlogy
from scipy.stats import norm

Z = norm.ppf(0.975)

def constrained_q(a, b, c, d, delta):
    lo = max(0.0, -delta); hi = (1.0 - delta) / 2.0
    def nll(q):
        return -(xlogy(a + d, 1 - 2*q - delta) + xlogy(b, q + delta) + xlogy(c, q))
    eps = 1e-15
    if hi - lo < 1e-12:
        return lo
    r = minimize_scalar(nll, bounds=(lo + eps, hi - eps), method="bounded",
                        options={"xatol": 1e-14, "maxiter": 2000})
    # the optimum may sit on a bound (a zero count)
    cands = [r.x, lo, hi]
    best = min((q for q in cands if lo <= q <= hi and 1 - 2*q - delta >= 0 and q + delta >= 0),
               key=lambda q: nll(q) if all(v > 0 or k == 0 for v, k in [(1-2*q-delta, a+d), (q+delta, b), (q, c)]) else math.inf)
    return best

def score(a, b, c, d, delta):
    n = a + b + c + d
    q = constrained_q(a, b, c, d, delta)
    v = n * (2*q + delta*(1 - delta))
    num = b - c - n*delta
    if v <= 0:
        return math.copysign(math.inf, num) if num != 0 else 0.0
    return num / math.sqrt(v)

def tango(a, b, c, d):
    n = a + b + c + d
    dh = (b - c) / n
    f_lo = lambda x: score(a, b, c, d, x) - Z
    f_hi = lambda x: score(a, b, c, d, x) + Z
    eps = 1e-12
    lo = -1.0 if f_lo(-1 + eps) <= 0 else brentq(f_lo, -1 + eps, dh, xtol=1e-14)
    hi = 1.0 if f_hi(1 - eps) >= 0 else brentq(f_hi, dh, 1 - eps, xtol=1e-14)
    return lo, hi

cases = [(10,5,2,8),(0,0,0,10),(20,0,0,0),(3,7,1,4),(43,0,1,0),(50,12,3,40),
         (0,5,0,0),(0,0,5,0),(100,30,20,50),(1,1,1,1),(5,0,9,1),(2,13,0,90)]
out = []
for a,b,c,d in cases:
    lo, hi = tango(a,b,c,d)
    out.append({"both": a, "a_only": b, "b_only": c, "neither": d, "low": lo, "high": hi})
    print(a,b,c,d, round(lo,6), round(hi,6))
json.dump({"about": "Tango (1998) score 95% interval of p_A - p_B for paired proportions, "
           "computed numerically with scipy (bounded constrained MLE, brentq); tests/data/delta/tango.py",
           "z": Z, "cases": out}, open("/tmp/ref/tango.json", "w"), indent=1)
