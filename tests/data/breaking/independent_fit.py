# Independent maximum-likelihood fit of a breaking point, for tests/data/breaking/expected.json.
# Input: a CSV with a header and rows "x,y" (x = operators, y = 1 if the sample is
# equivalent). The model is the one `report` fits: logit P(y) = a + b*ln(1 + x).
# Usage: python independent_fit.py samples.csv   (needs numpy, scipy, statsmodels)
import sys, json, numpy as np, statsmodels.api as sm
from scipy.optimize import brentq, minimize_scalar
d=np.loadtxt(sys.argv[1],delimiter=',',skiprows=1)
x,y=d[:,0],d[:,1]
t=np.log1p(x)
res=sm.Logit(y, sm.add_constant(t)).fit(disp=0, tol=1e-12, maxiter=200)
a,b=res.params
theta=-a/b  # level 0.5, on the ln(1 + x) scale
ll=res.llf
def prof(th):
    # eta = bb*(t-th); maximise over bb
    def nll(bb):
        e=bb*(t-th); return -np.sum(y*e-np.logaddexp(0,e))
    r=minimize_scalar(nll, bounds=(-50,50), method='bounded', options={'xatol':1e-12})
    return -r.fun
cut=ll-3.841458820694124/2
lo=brentq(lambda th: prof(th)-cut, t.min(), theta)
hi=brentq(lambda th: prof(th)-cut, theta, t.max())
print(json.dumps({"value":float(np.expm1(theta)),"ci":[float(np.expm1(lo)),float(np.expm1(hi))],"a":a,"b":b,"loglik":ll,"n":len(y),"scale":"ln(1+x)","tool":"statsmodels %s Logit + scipy profile"%sm.__version__}))
