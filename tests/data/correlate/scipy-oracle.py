# Oracle for autoeval correlate: scipy.stats values on fixed inputs (run once; output stored as test data).
import json, numpy as np, scipy
from scipy import stats
rng = np.random.default_rng(34)
cases = []
def add(name, x, y):
    x = [float(v) for v in x]; y = [float(v) for v in y]
    pr = stats.pearsonr(x, y); ci = pr.confidence_interval(0.95)
    sr = stats.spearmanr(x, y); kt = stats.kendalltau(x, y)
    cases.append(dict(name=name, x=x, y=y,
        pearson=dict(r=float(pr.statistic), p=float(pr.pvalue), ci=[float(ci.low), float(ci.high)]),
        spearman=dict(rho=float(sr.statistic), p=float(sr.pvalue)),
        kendall=dict(tau=float(kt.statistic), p=float(kt.pvalue))))
add("paper-table6-humaneval-bbh", [68, 90.2, 61.6, 42.1, 62.2], [48.1, 83.1, 24.5, 23.95, 49.38])
add("n3", [0.1, 0.5, 0.4], [0.2, 0.9, 0.1])
add("n4-perfect", [1, 2, 3, 4], [10, 20, 30, 41])
add("n5-anti", [0.9, 0.7, 0.5, 0.3, 0.1], [0.1, 0.25, 0.5, 0.7, 0.8])
for n in [6, 8, 12, 20, 33]:
    x = rng.random(n); y = 0.6 * x + 0.4 * rng.random(n)
    add(f"random-n{n}-no-ties", np.round(x, 6), np.round(y, 6))
for n in [10, 25, 50]:
    x = rng.integers(0, 5, n); y = x + rng.integers(0, 3, n)
    add(f"ties-n{n}", x, y)
for n in [34, 50, 120]:
    x = rng.random(n); y = 0.3 * x + rng.random(n)
    add(f"asymptotic-n{n}", np.round(x, 8), np.round(y, 8))
# n > 33 but at most one discordant pair: the exact path.
x = list(range(40)); y = list(range(40)); y[10], y[11] = y[11], y[10]
add("exact-n40-one-discordant", x, y)
add("weak-n7", [0.3, 0.1, 0.4, 0.15, 0.9, 0.26, 0.5], [0.3, 0.5, 0.2, 0.4, 0.45, 0.1, 0.35])
add("percent-scale-n6", [12.5, 40, 33.3, 75, 50, 66.7], [20, 35, 30, 80, 41, 60])
print(json.dumps(dict(generator="scipy.stats " + scipy.__version__ + " pearsonr (+confidence_interval(0.95)), spearmanr, kendalltau (tau-b, method auto)", cases=cases), indent=1))
