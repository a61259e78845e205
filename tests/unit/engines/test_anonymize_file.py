"""``anonymize_file``: the same result as ``veil.anonymize`` in memory, verified, no partial files."""

from __future__ import annotations

import os

import pandas as pd
import pytest

import veil
from veil.anonymization import verify
from veil.dataset import Dataset
from veil.engines import DuckDBEngine, anonymize_file
from veil.errors import (
    ColumnNotFoundError,
    HierarchyError,
    InfeasibleError,
    OutputError,
    ParameterError,
    VerificationError,
)
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity

from .conftest import KINDS, QIS, SENSITIVE

K5 = [KAnonymity(k=5)]
K5_L2 = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]


def assert_close(actual, expected, path="report"):
    """Equal, floats to 1e-12 relative (sums over classes in another order differ in the last bit)."""
    if isinstance(expected, dict):
        assert actual.keys() == expected.keys(), path
        for key in expected:
            assert_close(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), path
        for i, (a, b) in enumerate(zip(actual, expected)):
            assert_close(a, b, f"{path}[{i}]")
    elif isinstance(expected, float):
        assert actual == pytest.approx(expected, rel=1e-12, abs=1e-12, nan_ok=True), path
    else:
        assert actual == expected, path


def run(path, output, models, *, hierarchies, engine="duckdb", **options):
    return anonymize_file(
        path, engine=engine, quasi_identifiers=QIS, sensitive=SENSITIVE, hierarchies=hierarchies,
        models=models, suppression_limit=0.05, output=output, kinds=KINDS, **options,
    )


@pytest.mark.parametrize("models", [K5, K5_L2], ids=["k5", "k5-l2"])
def test_duckdb_adult_matches_in_memory_and_verifies(models, adult, adult_csv, tmp_path):
    """Adult, 8 QIs, 5% suppression: the transformation and suppressed count of
    veil.anonymize, and an output that passes veil's own verification."""
    expected = veil.anonymize(adult, models, suppression_limit=0.05, seed=3, suppressed="keep").report
    out = tmp_path / "adult.csv"
    report = run(adult_csv, out, models, hierarchies=adult.hierarchies, seed=3)
    assert report["transformation"] == expected["transformation"]
    assert report["suppressed"] == expected["suppressed"]
    assert report["records"] == report["records_out"] == 30_162
    assert report["verified"] is True and report["engine"] == "duckdb"
    for key in ("achieved", "utility", "risk_before", "risk_after", "models", "metric", "input_suppressed"):
        assert_close(report[key], expected[key], key)
    assert report["search"]["nodes_checked"] == expected["search"]["nodes_checked"]
    assert os.listdir(tmp_path) == ["adult.csv"]
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    verify(released, adult, models)  # raises if a model fails
    assert (released[QIS] == "*").all(axis=1).sum() == expected["suppressed"]


def test_local_engine_output_is_the_in_memory_output(adult, adult_csv, tmp_path):
    result = veil.anonymize(adult, K5_L2, suppression_limit=0.05, seed=9, suppressed="keep")
    out = tmp_path / "adult.parquet"
    run(adult_csv, out, K5_L2, hierarchies=adult.hierarchies, engine="local", seed=9)
    # in memory the released QIs and the sensitive column are categoricals, in the file text: the cells must match
    expected = result.data.astype({name: "str" for name in [*QIS, *adult.sensitive]})
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected, check_dtype=False)


def test_drop_suppressed_reconciles_rows(adult, adult_csv, tmp_path):
    report = run(adult_csv, tmp_path / "adult.csv", K5_L2, hierarchies=adult.hierarchies,
                 engine=DuckDBEngine(threads=1), drop_suppressed=True)
    assert report["records_out"] + report["suppressed_dropped"] == report["records"]
    assert report["suppressed_dropped"] == report["suppressed"] > 0
    released = pd.read_csv(tmp_path / "adult.csv", dtype=str, keep_default_na=False)
    assert len(released) == report["records_out"] and not (released[QIS] == "*").all(axis=1).any()


class LeakyEngine(DuckDBEngine):
    """An engine with a bug: it forgets to suppress."""

    def apply(self, source, transformation, suppressed, output, **options):
        return super().apply(source, transformation, [], output, **options)


def test_a_failed_verification_leaves_no_file(adult, adult_csv, tmp_path):
    with pytest.raises(VerificationError, match="This is a bug in veil; nothing was written"):
        run(adult_csv, tmp_path / "adult.csv", K5, hierarchies=adult.hierarchies, engine=LeakyEngine())
    assert os.listdir(tmp_path) == []


def test_errors_are_veil_errors_and_leave_no_file(adult, adult_csv, tmp_path):
    out = tmp_path / "out.csv"
    with pytest.raises(ColumnNotFoundError, match=r"Column 'zip' is not in '.*adult.csv'"):
        anonymize_file(adult_csv, quasi_identifiers=["zip"], hierarchies={"zip": adult.hierarchies["age"]},
                       models=K5, output=out)
    with pytest.raises(OutputError, match="is the input file"):
        run(adult_csv, adult_csv, K5, hierarchies=adult.hierarchies)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="is not a folder"):
        run(adult_csv, blocker / "out.csv", K5, hierarchies=adult.hierarchies)
    with pytest.raises(HierarchyError, match=r"No hierarchy is given for the quasi-identifier\(s\) 'age'"):
        run(adult_csv, out, K5, hierarchies={k: v for k, v in adult.hierarchies.items() if k != "age"})
    ages = adult.hierarchies["age"]
    keep = [i for i, v in enumerate(ages.leaves.tolist()) if v != "39"]
    partial = Hierarchy.from_rows([[str(ages.labels[l][ages.maps[l][i]]) for l in range(ages.n_levels)] for i in keep])
    with pytest.raises(HierarchyError, match="column 'age' does not cover the value '39'"):
        run(adult_csv, out, K5, hierarchies={**adult.hierarchies, "age": partial})
    with pytest.raises(InfeasibleError):
        anonymize_file(adult_csv, quasi_identifiers=QIS, sensitive=SENSITIVE, hierarchies=adult.hierarchies,
                       models=[DistinctLDiversity(sensitive="salary-class", l=2)], suppression_limit=0.0,
                       max_levels={q: 0 for q in QIS}, output=out)
    with pytest.raises(ParameterError, match="At least one privacy model"):
        run(adult_csv, out, [], hierarchies=adult.hierarchies)
    with pytest.raises(ParameterError, match="k=40000 is larger than the table"):
        run(adult_csv, out, [KAnonymity(k=40_000)], hierarchies=adult.hierarchies)
    with pytest.raises(ParameterError, match="The metric must be one of"):
        run(adult_csv, out, K5, hierarchies=adult.hierarchies, metric="nope")
    assert os.listdir(tmp_path) == ["file"]


def test_small_table_with_missing_values_and_parquet(tmp_path):
    """Missing QI values (a value of their own), Parquet in and out."""
    frame = pd.DataFrame({
        "zip": ["47677", "47678", None, "47905", "47906", "47677", None, "47905"],
        "disease": ["flu", "hiv", "flu", "flu", "cancer", "cancer", "hiv", "hiv"],
    })
    source = tmp_path / "in.parquet"
    frame.to_parquet(source, index=False)
    zips = Hierarchy.from_rows([[z, z[:4] + "*", z[:3] + "**", "*"] for z in ["47677", "47678", "47905", "47906"]])
    report = anonymize_file(source, quasi_identifiers=["zip"], sensitive=["disease"], hierarchies={"zip": zips},
                            models=[KAnonymity(k=2)], output=tmp_path / "out.parquet", seed=1)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"],
                                  hierarchies={"zip": zips})
    expected = veil.anonymize(dataset, [KAnonymity(k=2)], seed=1)
    assert report["transformation"] == expected.transformation == {"zip": 1}
    released = pd.read_parquet(tmp_path / "out.parquet")
    assert sorted(released["zip"].dropna()) == sorted(expected.data["zip"].dropna())
    # the missing zip is released empty (missing), in memory and through the engine alike
    assert int(released["zip"].isna().sum()) == int(expected.data["zip"].isna().sum()) > 0
