# Oracle for compare --delta: statsmodels' Newcombe hybrid score interval of p1 - p2 (run once; stored as test data).
import json, statsmodels
from statsmodels.stats.proportion import confint_proportions_2indep
cases = []
for (k1, n1, k2, n2) in [(5,10,5,10),(9,10,2,10),(0,7,7,7),(12,40,30,41),(1,3,0,5),(17,17,3,20),(48,100,52,100),(0,1,1,1),(250,1000,180,900)]:
    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
    cases.append(dict(k1=k1, n1=n1, k2=k2, n2=n2, low=float(lo), high=float(hi)))
print(json.dumps(dict(generator="statsmodels " + statsmodels.__version__ + " confint_proportions_2indep(method='newcomb', compare='diff')", cases=cases), indent=1))
