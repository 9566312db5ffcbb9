"""Oracle for the report's intervals: statsmodels' Wilson 95 % interval for every k ≤ n ≤ 60.
Run once in a scratch venv (pip install statsmodels); tests never call Python."""
import json, os
from statsmodels.stats.proportion import proportion_confint
out = {str(n): [list(map(float, proportion_confint(k, n, alpha=0.05, method="wilson"))) for k in range(n + 1)]
       for n in range(1, 61)}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "wilson95.json"), "w") as f:
    json.dump(out, f)
    f.write("\n")
