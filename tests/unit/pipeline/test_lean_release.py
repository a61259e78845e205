"""The lean release path (issue #16, 10M rows under 6 GiB) gives what the long way gives.

* the released rows are built from the codes in release order (``release_rows``):
  the same cells as recoding every row (``ClassTable.apply``) and then taking them;
* the class key is packed one QI at a time, with the matrix only past 62 bits;
* the written file is read in batches (``written_batches``): the same cells as the
  whole read, and its rows counted per batch and summed give the same verdicts.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.anonymization import anonymize, verify
from veil.classes import ClassTable
from veil.classes._release import release_rows
from veil.dataset import MISSING, Dataset
from veil.errors import VerificationError
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity
from veil.pipeline import _read_back
from veil.pipeline._read_back import read_written, written_batches
from veil.pipeline._verify import verify_written
from veil.release import table_writer

CELLS = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(CELLS, CELLS, st.sampled_from(["x", "y"])), min_size=1, max_size=25),
       node=st.tuples(st.integers(0, 1), st.integers(0, 1)), k=st.integers(1, 3), seed=st.integers(0, 2**16),
       drop=st.booleans())
def test_release_rows_equals_apply_then_take(rows, node, k, seed, drop):
    frame = pd.DataFrame(rows, columns=["q", "r", "s"])
    flat = Hierarchy.flat(["a", "b", "c"])  # a, b, c, then '*'
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q", "r"], sensitive=["s"],
                                  hierarchies={"q": flat.renamed("q"), "r": flat.renamed("r")})
    table = ClassTable.from_dataset(dataset).generalize(node)
    table = table.suppress(table.counts < k)
    order = np.random.default_rng(seed).permutation(len(frame))
    if drop:
        order = order[: len(order) // 2]
    columns = ["s", "q", "r"]
    expected = table.apply(dataset).iloc[order][columns].reset_index(drop=True)
    for name in ("q", "r"):  # the release writes a missing value as an empty cell
        expected[name] = expected[name].where(expected[name] != MISSING, None)
    released = release_rows(table, dataset, order, columns)
    for name in ("q", "r", "s"):  # the QIs and the (encoded) sensitive column come as categoricals of
        assert isinstance(released[name].dtype, pd.CategoricalDtype)  # the labels some row reads
        assert set(released[name].cat.categories) == set(released[name].dropna())
    pd.testing.assert_frame_equal(released.astype({"q": "str", "r": "str", "s": "str"}), expected)


def test_class_key_past_62_bits_groups_like_pandas():
    # 7 QIs of about 580 distinct values each: 580**7 ~ 2.2e19 > 2**62 ~ 4.6e18, so the rows
    # are grouped through the (n, q) matrix; the class sizes are pandas' groupby sizes
    rng = np.random.default_rng(5)
    values = rng.integers(0, 600, size=(2000, 7))
    values[1000:] = values[:1000]  # every combination at least twice
    frame = pd.DataFrame(values.astype(str), columns=[f"q{i}" for i in range(7)])
    table = ClassTable.from_dataset(Dataset.from_pandas(frame, quasi_identifiers=list(frame.columns)))
    space = np.prod([float(h.n_values(0)) for h in table.hierarchies])
    assert space > 2.0**62
    assert sorted(table.counts.tolist()) == sorted(frame.groupby(list(frame.columns)).size().tolist())


def test_weighted_rows_give_the_table_of_the_rows(adult):
    # the file's rows counted per distinct cells: the same classes and histograms as the rows
    frame = adult.frame[list(adult.quasi_identifiers) + ["salary-class"]]
    grouped = frame.groupby(list(frame.columns), sort=False).size().reset_index(name="n")
    by_rows = verify(frame, adult, [])
    by_counts = verify(grouped[frame.columns], adult, [], weights=grouped["n"].to_numpy())
    assert by_counts.n_classes == by_rows.n_classes and by_counts.n_records == len(frame) == 30162
    assert sorted(by_counts.counts.tolist()) == sorted(by_rows.counts.tolist())
    rows = sorted(map(tuple, by_rows.sensitive["salary-class"].counts.tolist()))
    assert sorted(map(tuple, by_counts.sensitive["salary-class"].counts.tolist())) == rows


@pytest.mark.parametrize("suffix,whole", [(".csv", True), (".csv", False), (".parquet", True)])
def test_batches_read_as_the_whole_file(tmp_path, monkeypatch, suffix, whole):
    # a quoted cell may hold line breaks: with 64-byte blocks some block ends inside one
    # (before newlines_in_values, Arrow's reader stopped: "out of sync with chunker")
    frame = pd.DataFrame({"a": ["x", "", "y, z", 'say "hi"', "é", "two\nlines\nand three"] * 30,
                          "b": [str(i) for i in range(180)]})
    path = tmp_path / f"t{suffix}"
    table_writer(frame)(path)
    monkeypatch.setattr(_read_back, "READ_BLOCK", 64)  # a handful of rows per block,
    monkeypatch.setattr(_read_back, "BATCH_ROWS", 6 if suffix == ".csv" else 4)  # blocks gathered into batches
    if not whole:  # a CSV file above WHOLE_READ_BYTES is streamed block by block
        monkeypatch.setattr(_read_back, "WHOLE_READ_BYTES", 0)
    batches = list(written_batches(path))
    assert len(batches) > 3
    pd.testing.assert_frame_equal(pd.concat(batches, ignore_index=True), read_written(path))


@pytest.mark.parametrize("whole", [True, False])
def test_a_file_without_rows_is_one_empty_batch(tmp_path, monkeypatch, whole):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n")
    if not whole:
        monkeypatch.setattr(_read_back, "WHOLE_READ_BYTES", 0)
    (batch,) = written_batches(path)
    assert list(batch.columns) == ["a", "b"] and len(batch) == 0


@pytest.fixture(scope="module")
def written(adult, tmp_path_factory):
    result = anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=3)
    path = tmp_path_factory.mktemp("release") / "release.csv"
    table_writer(result.data)(path)
    return result, path


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(_read_back, "READ_BLOCK", 1 << 14)
    monkeypatch.setattr(_read_back, "BATCH_ROWS", 2000)  # Adult's release in 16 batches


def _with_last_released_row_changed(path, tmp_path, column, change):
    """A copy of the release whose last row not suppressed reads ``change(value)`` in ``column``."""
    frame = read_written(path)
    row = int(np.flatnonzero((frame["age"] != "*").to_numpy())[-1])
    frame.loc[row, column] = change(frame.at[row, column])
    tampered = tmp_path / "tampered.csv"
    table_writer(frame)(tampered)
    return tampered


def test_a_release_read_in_batches_passes(adult, written, small_batches):
    result, path = written
    assert len(list(written_batches(path))) > 10
    # classes_released is checked: a class spread over batches must count once, with all its rows
    verify_written(path, result, adult, [KAnonymity(k=5)])


def test_a_class_made_in_the_last_batch_fails_the_model(adult, written, small_batches, tmp_path):
    # the last row gets a combination of labels no other row has: a class of 1 record, which
    # only the counts summed over every batch can tell from a class spread over batches
    result, path = written
    tampered = _with_last_released_row_changed(path, tmp_path, "occupation", lambda value: "only-here")
    with pytest.raises(VerificationError, match="fails its own requested model"):
        verify_written(tampered, result, adult, [KAnonymity(k=5)])


def test_a_file_the_reader_cannot_parse_is_a_verification_error(adult, written, small_batches, tmp_path):
    # a quote opened and never closed: Arrow's reader raises; the check says so in one line
    result, path = written
    broken = tmp_path / "broken.csv"
    broken.write_bytes(path.read_bytes() + b'"Male,1\n')
    with pytest.raises(VerificationError, match="could not be read back"):
        verify_written(broken, result, adult, [KAnonymity(k=5)])


def test_a_changed_value_in_a_late_batch_is_caught(adult, written, small_batches, tmp_path):
    result, path = written
    tampered = _with_last_released_row_changed(path, tmp_path, "salary-class",
                                               lambda value: "<=50K" if value == ">50K" else ">50K")
    with pytest.raises(VerificationError, match="salary-class"):
        verify_written(tampered, result, adult, [KAnonymity(k=5)])


def test_a_missing_row_is_counted_over_the_batches(adult, written, small_batches, tmp_path):
    result, path = written
    lines = path.read_text().splitlines(keepends=True)
    tampered = tmp_path / "short.csv"
    tampered.write_text("".join(lines[:-1]))
    n = result.report["records_out"]
    with pytest.raises(VerificationError, match=f"{n - 1} rows in the file, {n} in the report"):
        verify_written(tampered, result, adult, [KAnonymity(k=5)])


def test_the_suppressed_rows_are_one_class_whose_withheld_values_read_nowhere(adult, written):
    # the suppressed rows ('*' in every QI) are one class of the release (issue #32); the '*' of
    # the blanked salary-class (only in those rows) is no value of what the release shows
    from veil.models._shown import shown

    result, _ = written
    star = (result.data["age"] == "*").to_numpy()
    assert 0 < star.sum() < len(star)
    released = verify(result.data, adult, [KAnonymity(k=5)], suppressed="blank", suppressed_rows=star)
    kept = result.data[~star].reset_index(drop=True)
    alone = verify(kept, adult, [KAnonymity(k=5)], suppressed="blank", suppressed_rows=np.zeros(len(kept), bool))
    assert released.n_classes == alone.n_classes + 1 and sorted(released.counts.tolist()) == sorted(
        alone.counts.tolist() + [int(star.sum())])
    view, alone_view = shown(released).sensitive["salary-class"], shown(alone).sensitive["salary-class"]
    assert view.labels.tolist() == ["<=50K", ">50K"]
    np.testing.assert_array_equal(view.overall, alone_view.overall)


def test_kept_suppressed_records_are_reconciled_over_the_batches(adult, small_batches, tmp_path):
    # with keep, the report's suppressed count must lie between the '*' rows the file proves
    # suppressed and all its '*' rows, both summed over every batch
    result = anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=3, suppressed="keep")
    path = tmp_path / "keep.csv"
    table_writer(result.data)(path)
    stars = int((read_written(path)[list(adult.quasi_identifiers)] == "*").all(axis=1).sum())
    assert stars == result.report["suppressed"] > 0
    verify_written(path, result, adult, [KAnonymity(k=5)])
    result.report["suppressed"] = stars + 1
    with pytest.raises(VerificationError, match=f"{stars + 1} suppressed records in the report"):
        verify_written(path, result, adult, [KAnonymity(k=5)])


def test_a_parquet_release_read_in_batches_passes(adult, written, monkeypatch, tmp_path):
    result, _ = written
    path = tmp_path / "release.parquet"
    table_writer(result.data)(path)
    monkeypatch.setattr(_read_back, "BATCH_ROWS", 5000)  # 30,162 rows in 7 batches
    assert len(list(written_batches(path))) == 7
    verify_written(path, result, adult, [KAnonymity(k=5)])
