"""Fault corpus of ``veil synthesize --workload`` (issue #36, AIM): a workload naming an unknown
column, an empty marginal or a column twice is one line, exit 2, nothing written, nothing spent."""

import pytest

from .test_synthesize_input import work  # noqa: F401 - the table and domain both fault files read


def _args(work, workload, algorithm="aim"):
    return ["synthesize", work / "data.csv", "--epsilon", "1", "--algorithm", algorithm, "--workload", workload,
            "--domain", work / "domain.json", "--bins", "age=0:100:10", "--identifiers", "name",
            "-o", work / "out.csv", "--json", work / "report.json",
            "--budget-file", work / "ledger.json", "--budget", "3", "--budget-delta", "1e-6"]


@pytest.mark.parametrize("workload, mentions", [
    ("sex,zip", ["--workload", "'zip'"]),
    ("sex,name", ["--workload", "'name'"]),  # an identifier is not synthesized
    ("sex,city;;age", ["--workload", "marginal 2 is empty"]),
    ("sex,,city", ["--workload", "empty column name"]),
    ("sex,city,sex", ["--workload", "'sex' twice"]),
    ("", ["--workload", "empty"]),
])
@pytest.mark.parametrize("algorithm", ["aim", "mst"])
def test_bad_workload_is_refused(faults, work, workload, mentions, algorithm):
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, workload, algorithm))
    faults.assert_refused(outcome, before, faults.snapshot(work), *mentions)
