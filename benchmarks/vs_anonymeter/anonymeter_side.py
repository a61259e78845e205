"""Anonymeter's side of the comparison; runs in Anonymeter's own virtual environment (not veil's).

Reads a JSON job on stdin ({"original", "release", "control", "n_attacks", "n_cols", "aux",
"link_aux", "secret", "runs"}) and prints a JSON result: each attack's risk, interval, rates and
time (median over runs).
"""

import json
import statistics
import sys
import time
import warnings

import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

warnings.filterwarnings("ignore")
job = json.load(sys.stdin)
ori, syn, ctl = (pd.read_csv(job[k]) for k in ("original", "release", "control"))


def figures(evaluator, **kw):
    res = evaluator.results(confidence_level=0.95)
    if getattr(res, "n_attacks", 1) == 0:
        return {"error": "no attack could be made"}
    risk = evaluator.risk(confidence_level=0.95, **kw)
    return {"risk": risk.value, "ci": list(risk.ci), "main": res.attack_rate.value,
            "control": None if res.control_rate is None else res.control_rate.value,
            "baseline": res.baseline_rate.value}


out, times = {}, {"singling_out": [], "linkability": [], "inference": []}
for run in range(job["runs"]):
    t = time.perf_counter()
    for mode in ("univariate", "multivariate"):
        try:
            so = SinglingOutEvaluator(ori=ori, syn=syn, control=ctl, n_attacks=job["n_attacks"], n_cols=job["n_cols"])
            so.evaluate(mode=mode)
            out[f"singling_out.{mode}"] = figures(so)
        except Exception as exc:  # Anonymeter fails on some releases (e.g. its issue 32): recorded, not fatal
            out[f"singling_out.{mode}"] = {"error": f"{type(exc).__name__}: {str(exc)[:120]}"}
    times["singling_out"].append(time.perf_counter() - t)
    t = time.perf_counter()
    try:
        link = LinkabilityEvaluator(ori=ori, syn=syn, control=ctl, n_attacks=job["n_attacks"],
                                    aux_cols=tuple(job["link_aux"]), n_neighbors=1)
        link.evaluate(n_jobs=2)
        out["linkability"] = figures(link)
    except Exception as exc:
        out["linkability"] = {"error": f"{type(exc).__name__}: {str(exc)[:120]}"}
    times["linkability"].append(time.perf_counter() - t)
    t = time.perf_counter()
    try:
        inf = InferenceEvaluator(ori=ori, syn=syn, control=ctl, aux_cols=job["aux"], secret=job["secret"],
                                 n_attacks=job["n_attacks"])
        inf.evaluate(n_jobs=2)
        out[f"inference.{job['secret']}"] = figures(inf)
    except Exception as exc:
        out[f"inference.{job['secret']}"] = {"error": f"{type(exc).__name__}: {str(exc)[:120]}"}
    times["inference"].append(time.perf_counter() - t)
print(json.dumps({"results": out, "seconds": {k: statistics.median(v) for k, v in times.items()}}))
