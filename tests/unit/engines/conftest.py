"""Fixtures of the engine tests: Adult as a file, and ways to compare class tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path

QIS = list(ADULT_QUASI_IDENTIFIERS)
SENSITIVE = ["salary-class"]
KINDS = {"age": "numeric"}


@pytest.fixture(scope="session")
def adult_csv() -> str:
    """The bundled Adult CSV (``;``-separated, 30,162 rows)."""
    return adult_path()


@pytest.fixture(scope="module")
def adult_frame(adult_csv: str) -> pd.DataFrame:
    """Adult as text, as the engines read it."""
    return pd.read_csv(adult_csv, sep=";", dtype=str, keep_default_na=False)


@pytest.fixture
def noise_free(monkeypatch):
    """veil's Laplace mechanism releases its input unchanged (the scale is still computed;
    OpenDP's own noise, e.g. a partition selection's, is not patched)."""
    from veil.dp import LaplaceMechanism

    monkeypatch.setattr(LaplaceMechanism, "release", lambda self, value: value)


def canonical_counts(counts: pd.DataFrame) -> pd.DataFrame:
    """A group-count sorted by every column, missing values as a sentinel, for equality."""
    columns = [c for c in counts.columns if c != "count"]
    frame = counts.copy()
    for c in columns:
        frame[c] = frame[c].astype(object).where(frame[c].notna(), "\0missing")
    return frame.sort_values(columns).reset_index(drop=True)


def canonical_classes(classes: ClassTable) -> pd.DataFrame:
    """One row per class: QI labels, count and each sensitive histogram, sorted by the labels."""
    frame = classes.labels()
    for name, hist in classes.sensitive.items():
        for j, label in enumerate(hist.labels):
            frame[f"{name}={label}"] = hist.counts[:, j]
    return frame.sort_values(list(classes.quasi_identifiers)).reset_index(drop=True)


def assert_same_class_table(actual: ClassTable, expected: ClassTable) -> None:
    """Same classes (labels, counts, histograms), records, suppression, hierarchies and value orders."""
    assert actual.quasi_identifiers == expected.quasi_identifiers
    assert actual.n_classes == expected.n_classes
    assert actual.n_records == expected.n_records
    assert (actual.suppressed, actual.input_suppressed) == (expected.suppressed, expected.input_suppressed)
    assert sorted(actual.counts.tolist()) == sorted(expected.counts.tolist())
    for a, b in zip(actual.hierarchies, expected.hierarchies):
        assert [l.tolist() for l in a.labels] == [l.tolist() for l in b.labels]
    assert actual.sensitive.keys() == expected.sensitive.keys()
    for name in expected.sensitive:
        a, b = actual.sensitive[name], expected.sensitive[name]
        assert a.labels.tolist() == b.labels.tolist()
        np.testing.assert_array_equal(a.overall, b.overall)
        assert a.kind == b.kind
    pd.testing.assert_frame_equal(canonical_classes(actual), canonical_classes(expected))
