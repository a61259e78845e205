"""The evaluation reads a real value by the label a release writes (issue #36): a Parquet date or
timestamp is matched to a synthetic table's label (``veil.data.format_labels``: ``2021-03-04`` for a
midnight, ``2021-03-04 12:30:00.250000`` to the microsecond), not to pandas' own text
(``2021-03-04 00:00:00.000``), so the holdout attacks of ``veil synthesize --holdout --evaluate``
compare the same labels.  Before, no timestamp of the table below met its released label."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from veil.data import format_labels, read_table
from veil.evaluate._columns import MISSING, encode_tables, texts

N = 300
MIDNIGHT = dt.datetime(2021, 3, 4)
NOON = dt.datetime(2021, 3, 4, 12, 30, 0, 250000)
LATER = dt.datetime(2021, 3, 5, 8, 0)


def _people(path) -> pd.DataFrame:
    """300 records read as ``veil synthesize`` reads a Parquet file locally: a date (every 10th
    missing), a timestamp at midnight (i % 3 == 0), at 12:30:00.25 (1) or 2021-03-05 08:00 (2)."""
    day = [None if i % 10 == 9 else dt.date(2021, 3, 4) + dt.timedelta(days=i % 2) for i in range(N)]
    at = [(MIDNIGHT, NOON, LATER)[i % 3] for i in range(N)]
    sex = ["F" if i % 4 < 2 else "M" for i in range(N)]
    pq.write_table(pa.table({"day": pa.array(day, pa.date32()), "at": pa.array(at, pa.timestamp("us")),
                             "sex": pa.array(sex)}), path)
    return read_table(path, typed=False).to_pandas()


def _covered(tables, name: str) -> int:
    """How many original records some released label of ``name`` covers (the attacks' matching)."""
    column = tables.columns[name]
    return int(column.cover.covers(tables.original[name], np.arange(len(column.labels))).any(axis=1).sum())


def test_texts_are_the_release_labels_of_a_parquet_date_and_timestamp(tmp_path):
    frame = _people(tmp_path / "people.parquet")
    assert str(frame["at"].dtype).startswith("datetime64")
    assert list(texts(frame["at"])[:3]) == ["2021-03-04", "2021-03-04 12:30:00.250000", "2021-03-05 08:00:00"]
    assert list(texts(frame["day"])[8:10]) == ["2021-03-04", MISSING]
    for name in ("day", "at"):
        labels = format_labels(frame[name])
        assert (texts(frame[name]) == labels.where(labels.notna(), MISSING).to_numpy(dtype=object)).all()


def test_the_evaluation_matches_real_dates_and_timestamps_to_the_released_labels(tmp_path):
    original = _people(tmp_path / "people.parquet")
    # a release as veil synthesize writes it (its labels as text): the midnight, the 12:30:00.25
    release = pd.DataFrame({"day": ["2021-03-04", "2021-03-05"], "at": ["2021-03-04", "2021-03-04 12:30:00.250000"],
                            "sex": ["F", "M"]})
    tables = encode_tables(original, None, release, ["day", "at", "sex"])
    assert not tables.columns["at"].numeric and not tables.columns["day"].numeric
    assert _covered(tables, "at") == 200  # i % 3 in (0, 1): 100 + 100 records; 2021-03-05 08:00 not released
    assert _covered(tables, "day") == 270  # every present date: 30 of the 300 are missing
    assert _covered(tables, "sex") == 300


@pytest.mark.parametrize("domain", ["user", "learned"])
def test_a_synthetic_table_of_parquet_timestamps_meets_its_real_values(tmp_path, domain):
    from veil.dp import synthesize

    original = _people(tmp_path / "people.parquet")
    given = {"day": ["2021-03-04", "2021-03-05"], "at": ["2021-03-04", "2021-03-04 12:30:00.250000",
                                                         "2021-03-05 08:00:00"], "sex": ["F", "M"]}
    result = synthesize(original, epsilon=100, delta=1e-6, domain=given if domain == "user" else {"sex": ["F", "M"]},
                        seed=3)
    synthetic = result.frame
    tables = encode_tables(original, None, synthetic, ["day", "at", "sex"])
    for name in ("day", "at"):
        published = set(synthetic[name].astype(str))
        expected = int(format_labels(original[name]).isin(published).sum())  # by the release's own labels
        assert expected >= 100, (name, published)  # at ε = 100 every category of 100+ records is released
        assert _covered(tables, name) == expected


def test_numbers_and_booleans_keep_their_texts():
    assert list(texts(pd.Series([3.0, 2.5, np.inf, None, 3.0]))) == ["3", "2.5", "inf", MISSING, "3"]
    assert list(texts(pd.Series([True, None, False], dtype=object))) == ["True", MISSING, "False"]
    assert list(texts(pd.Series([40, None], dtype="Int64"))) == ["40", MISSING]
