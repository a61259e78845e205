"""A sensitive column with thousands of values (issue #33, item 1): memory follows the records.

A wage survey's income as sensitive attribute (27,000 distinct values on 61,697 rows) made
k=5 + distinct 2-diversity take minutes and 18.7 GB: every class table held a dense classes x
values histogram.  The table here has the same shape, smaller: incomes written as text with a
decimal (``"52313.0"``), thousands of them, a few blank, next to survey-like quasi-identifiers.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.models import DistinctLDiversity, EntropyLDiversity, OrderedDistanceTCloseness, evaluate

from tests.faults.conftest import invoke

ROWS, VALUES = 12_000, 5_000
QIS = ["age", "sex", "education", "marital", "occupation", "children", "year"]


def _survey(rows: int = ROWS, values: int = VALUES, seed: int = 5) -> pd.DataFrame:
    """Survey-shaped rows: ordered categories with number prefixes, counts written as ``"2.0"``, and an
    income of ``values`` distinct amounts written as text, 3% blank (never the only copy of a value)."""
    rng = np.random.default_rng(seed)
    pool = np.round(rng.choice(np.arange(50_000, 3_000_000), size=values, replace=False) / 10, 1)
    income = np.char.mod("%.1f", np.concatenate([pool, pool[rng.zipf(1.6, rows - values) % values]])).astype(object)
    income[values + rng.choice(rows - values, rows * 3 // 100, replace=False)] = ""
    order = rng.permutation(rows)
    return pd.DataFrame({
        "age": rng.integers(18, 81, rows).astype(str),
        "sex": rng.choice(["1. Male", "2. Female"], rows),
        "education": rng.choice(["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad",
                                 "5. Advanced Degree"], rows),
        "marital": rng.choice(["1. Never Married", "2. Married", "3. Widowed", "4. Divorced"], rows),
        "occupation": rng.choice([f"{i}. occupation" for i in range(1, 13)], rows),
        "children": np.char.mod("%.1f", rng.poisson(1.2, rows).clip(0, 6)),
        "year": rng.integers(2003, 2010, rows).astype(str),
        "income": income[order],
    })


@pytest.fixture(scope="module")
def survey_csv(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("survey") / "wages.csv"
    _survey().to_csv(path, index=False)
    return str(path)


def test_histograms_hold_the_pairs_not_classes_times_values(survey_csv):
    """Built, rolled up and suppressed, each histogram's bytes stay within a few words per record
    (a dense one of the base table is classes x 5,000 x 8 bytes: about 450 MB), and so does the
    peak of everything allocated on the way, the models' arithmetic included."""
    frame = pd.read_csv(survey_csv, dtype=str, keep_default_na=False)
    dataset = Dataset.from_pandas(frame.replace({"income": {"": None}}), quasi_identifiers=QIS,
                                  sensitive=["income"], kinds={"income": "numeric"})
    tracemalloc.start()
    try:
        base = ClassTable.from_dataset(dataset)
        tables = [base, base.generalize([1, 0, 0, 0, 0, 0, 0]), base.generalize([1, 0, 1, 0, 1, 0, 0])]
        tables.append(tables[-1].suppress(tables[-1].counts < 3))
        levels = [(DistinctLDiversity("income", l=2).achieved_level(t), EntropyLDiversity("income", l=2).achieved_level(t),
                   OrderedDistanceTCloseness("income", t=0.5).achieved_level(t), evaluate(t).to_dict())
                  for t in tables]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert base.n_classes > 10_000  # almost every record its own class: classes x values is ~6e7 cells
    for table in tables:
        hist = table.sensitive["income"]
        assert hist.n_values == VALUES + 1  # the blank is a value of its own (missing)
        assert not hist.is_dense
        assert hist.nbytes <= 24 * ROWS, (table, hist.nbytes)  # int32 class, int32 value, int64 count per pair
        assert hist.pairs.n_pairs <= ROWS
    assert peak < 48 << 20, f"peak {peak / 2**20:.0f} MiB"
    assert [round(level[0]) for level in levels][:1] == [1]  # the base table: a class of one record
    assert all(level[3]["sensitive"]["income"]["distinct_values"] == VALUES + 1 for level in levels)


@pytest.mark.slow
def test_anonymize_with_l_diversity_on_many_values(survey_csv, tmp_path):
    """The whole command, as the wage survey's user ran it, within a small memory peak."""
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    tracemalloc.start()
    try:
        result = invoke("anonymize", survey_csv, "--qi", ",".join(QIS), "--sensitive", "income",
                        "--kind", "income=numeric", "--auto-hierarchies", "-k", "5", "-l", "income:2",
                        "--require", "entropy_l[income]>=2", "-o", out, "--json", report, "-q", "--seed", "3")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.text
    assert peak < 160 << 20, f"peak {peak / 2**20:.0f} MiB"
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(released) == ROWS
