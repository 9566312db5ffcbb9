import sys, json, numpy as np, statsmodels.api as sm
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit
d=np.loadtxt(sys.argv[1],delimiter=',',skiprows=1)
x,y=d[:,0],d[:,1]
res=sm.Logit(y, sm.add_constant(x)).fit(disp=0, tol=1e-12, maxiter=200)
a,b=res.params
theta=-a/b  # level 0.5
ll=res.llf
def prof(t):
    # eta = b*(x-t); maximise over b
    def nll(bb):
        e=bb*(x-t); return -np.sum(y*e-np.logaddexp(0,e))
    r=minimize_scalar(nll, bounds=(-20,20), method='bounded', options={'xatol':1e-12})
    return -r.fun
cut=ll-3.841458820694124/2
lo=brentq(lambda t: prof(t)-cut, x.min(), theta)
hi=brentq(lambda t: prof(t)-cut, theta, x.max())
print(json.dumps({"value":theta,"ci":[lo,hi],"a":a,"b":b,"loglik":ll,"n":len(y),"tool":"statsmodels %s Logit + scipy profile"%sm.__version__}))
