"""Property: a release shows no group smaller than k, and ``veil check`` agrees with ``anonymize``.

Issue #32 (item 2 and "What it must show") and issue #33 (item 2): under every ``--suppressed``
mode (blank, drop, keep) and every model combination (k alone; k and each sensitive-attribute
model), with missing values counted or not (``missing_sensitive``):

* no group of released records that share their QI values, the suppressed group included, is
  smaller than the requested k;
* ``veil check`` of every release that ``anonymize`` verified passes the same requirements
  (exit 0) and reports the same figures (k, classes, every level of the sensitive attribute).

The requirements are given to both commands as one ``--require`` text, as the README's steps do.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import veil
from veil.cli import app
from veil.errors import InfeasibleError, ParameterError
from veil.models import parse_requirements, registry, requirement_models
from veil.testing import datasets

#: k plus each sensitive-attribute model (None: k alone); the numbers are the clause's.
SENSITIVE = [None, "l[s0]>=2", "entropy_l[s0]>=1.5", "c[s0]<=3", "t[s0]<=0.4", "t_equal[s0]<=0.3",
             "delta_present[s0]<=1.2", "alpha[s0]<=0.7", "beta[s0]<=1.5"]


def _models(text: str, kind: str) -> list:
    return [registry.build(entry) for entry in
            requirement_models(parse_requirements(text), sensitive=["s0"], kinds={"s0": kind})]


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), mode=st.sampled_from(["blank", "drop", "keep"]), k=st.integers(2, 4),
       clause=st.sampled_from(SENSITIVE), limit=st.sampled_from([0.0, 0.1, 0.3]),
       missing_sensitive=st.sampled_from(["value", "ignore"]), kind=st.sampled_from(["categorical", "numeric"]))
def test_no_released_group_below_k_and_check_agrees(tmp_path_factory, data, mode, k, clause, limit,
                                                      missing_sensitive, kind):
    dataset = data.draw(datasets(min_rows=6, max_rows=40, n_qi=(1, 3), n_sensitive=1, sensitive_values=4,
                                 missing=data.draw(st.booleans()), sensitive_kind=kind))
    require = f"k>={k}" + ("" if clause is None else f", {clause}")
    try:
        result = veil.anonymize(dataset, _models(require, kind), suppression_limit=limit, suppressed=mode,
                                missing_sensitive=missing_sensitive, seed=1)
    except (InfeasibleError, ParameterError):
        assume(False)
    folder = tmp_path_factory.mktemp("release")
    path = folder / "release.csv"
    result.data.to_csv(path, index=False)
    released = pd.read_csv(path, dtype=str, keep_default_na=False)
    qis = list(dataset.quasi_identifiers)
    if len(released):
        assert released.groupby(qis).size().min() >= k  # the '*' group included: every group is a class
    report = folder / "check.json"
    run = CliRunner().invoke(app, ["check", str(path), "--qi", ",".join(qis), "--sensitive", "s0", "--kind",
                                   f"s0={kind}", "--missing-sensitive", missing_sensitive, "--require", require,
                                   "--json", str(report)])
    assert run.exit_code == 0, run.output
    checked, achieved = json.loads(report.read_text()), result.report["achieved"]
    if achieved is None or not len(released):
        return
    assert (checked["k"], checked["classes"]) == (achieved["k"], achieved["classes"])
    assert checked["sensitive"]["s0"] == achieved["sensitive"]["s0"]
