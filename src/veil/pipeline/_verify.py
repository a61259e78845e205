"""Verification of a written release, independent of the pipeline that made it.

After the released table is written to its temporary file, :func:`verify_written`
reads the file back (one read) and checks, from the file alone plus the input:

* the columns are exactly the published ones of the report's ``columns``;
* the row counts: ``records_out`` rows, ``suppressed`` rows with ``*`` in every
  quasi-identifier (none when they are dropped), ``records = records_out +
  suppressed_dropped``; the suppression limit;
* with ``suppressed: blank`` every sensitive value of a suppressed row is ``*``;
* the classes rebuilt from the file's labels meet every requested model (and,
  with ``keep``, the suppressed group meets the sensitive models), and their
  number is the report's ``classes_released``;
* every released value corresponds to its input record (the in-memory row
  correspondence, never written): a full-domain QI is the original's
  generalization at the reported level; a local recoding's label contains the
  original (an interval ``[a-b]``, an ancestor in the hierarchy, or, for
  microaggregation, the mean of its group); sensitive values are the original's.

Any failure raises :class:`~veil.errors.VerificationError`; the caller then
publishes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED
from veil.dataset import MISSING
from veil.errors import VerificationError

__all__ = ["verify_written", "read_written", "verify_release_table"]

_INTERVAL = re.compile(r"^\[\s*(-?[0-9.eE+]+)\s*-\s*(-?[0-9.eE+]+)\s*\]$")


def _fail(what: str) -> VerificationError:
    return VerificationError(f"The written release does not match its report: {what}. Nothing was published.")


def read_written(path: Path) -> pd.DataFrame:
    """The written file, every cell as text (``""`` for an empty cell)."""
    if path.suffix.lower() in (".parquet", ".pq"):
        return pd.read_parquet(path)
    # pyarrow's parser: the same cells as pandas' C parser, without a Python string per cell
    # (7x faster and a third less memory on 2M rows)
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[], encoding="utf-8", engine="pyarrow")


def _text(values: pd.Series | np.ndarray) -> np.ndarray:
    """Cells as the CSV writer writes them: text, missing as ``""``."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):  # text already: no per-cell str()
        return values.fillna("").to_numpy(dtype=object)
    series = pd.Series(values, dtype=object)
    out = np.array(series.astype(str).to_numpy(dtype=object), dtype=object, copy=True)
    out[series.isna().to_numpy()] = ""
    return out


def _encode(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, texts)``: each cell's code over the distinct cell texts (those of :func:`_text`).

    A text column is hashed once (Arrow's dictionary encoding, through
    ``pandas.factorize``) and only its distinct values become Python strings;
    other columns are turned to text first (``1`` and ``1.0`` hash alike but
    read differently).  Equal texts have equal codes.
    """
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):
        raw, uniques = pd.factorize(values)
        texts = np.append(np.asarray(uniques, dtype=object), "")  # a missing cell (code -1) reads ""
        remap, distinct = pd.factorize(texts)  # "" may be a value too: one code per text
        return remap[raw].astype(np.int64), np.asarray(distinct, dtype=object)
    raw, distinct = pd.factorize(_text(values))
    return raw.astype(np.int64), np.asarray(distinct, dtype=object)


def _positions(texts: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The code of each of ``wanted`` among the (distinct) ``texts``, -1 where absent."""
    return pd.Index(texts, dtype=object).get_indexer(np.asarray(wanted, dtype=object))


class _Columns:
    """The read-back table's columns, each encoded once (:func:`_encode`), read by code."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self._encoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        if name not in self._encoded:
            self._encoded[name] = _encode(self.frame[name])
        return self._encoded[name]

    def equals(self, name: str, text: str) -> np.ndarray:
        """Whether each cell of ``name`` reads ``text``."""
        codes, texts = self.codes(name)
        return codes == _positions(texts, np.array([text], dtype=object))[0]

    def texts(self, name: str) -> np.ndarray:
        """Each cell of ``name`` as text (object array)."""
        codes, texts = self.codes(name)
        return texts[codes]


def verify_written(path: Path, result: Any, dataset: Any, models: Sequence[Any], *, label: str | None = None) -> None:
    """Re-read ``path`` and check it against ``result.report`` and the input (see the module docstring).

    Raises
    ------
    VerificationError
    """
    verify_release_table(read_written(path), result, dataset, models, label=label)


def verify_release_table(frame: pd.DataFrame, result: Any, dataset: Any, models: Sequence[Any],
                         *, label: str | None = None) -> None:
    """The checks of :func:`verify_written` on a table read back from the file."""
    from veil.anonymization import verify

    report = result.report
    published = [c["name"] for c in report["columns"] if c["treatment"] != "dropped"]
    if [str(c) for c in frame.columns] != published:
        raise _fail("the columns differ from the published ones")
    qis = list(dataset.quasi_identifiers)
    rows = result.source_rows
    if rows is None or len(rows) != len(frame):
        raise _fail(f"{len(frame)} rows in the file, {report['records_out']} in the report")
    cells = _Columns(frame)  # each column hashed once; the checks below compare codes
    star = np.ones(len(frame), dtype=np.bool_)
    for name in qis:
        star &= cells.equals(name, SUPPRESSED)
    mode = report["suppressed_records"]
    suppressed = _suppressed_rows(cells, star, rows, dataset, report, mode)
    _check_counts(frame, suppressed, report)
    if mode == "blank":
        for name in dataset.sensitive:
            if not np.all(cells.equals(name, SUPPRESSED)[suppressed]):
                raise _fail(f"a suppressed record publishes its value of {name!r}")
    classes = verify(frame, dataset, models, label=label, suppressed=mode, suppressed_rows=suppressed)
    if not star.all() and classes.n_classes != report["classes_released"]:
        raise _fail(f"{classes.n_classes} classes in the file, {report['classes_released']} in the report")
    _check_values(cells, star, rows, dataset, report, mode)


def _suppressed_rows(cells, star, rows, dataset, report, mode) -> np.ndarray:
    """The suppressed rows, read from the file: ``*`` in every QI where the
    record's generalization at the reported levels is not ``*`` everywhere
    (a node may generalize a whole class to ``*``), and, with ``blank``,
    ``*`` rows whose sensitive values are withheld."""
    levels = report["transformation"]
    if not levels:
        return star
    everywhere = np.ones(len(star), dtype=np.bool_)
    for name in dataset.quasi_identifiers:
        codes, per_code = _generalized(dataset, name, int(levels[name]), rows)
        everywhere &= (per_code == SUPPRESSED)[codes]
    suppressed = star & ~everywhere
    if mode == "blank" and dataset.sensitive:
        withheld = np.ones(len(star), dtype=np.bool_)
        for name in dataset.sensitive:
            withheld &= cells.equals(name, SUPPRESSED)
        suppressed |= star & everywhere & withheld
    elif mode == "keep":
        # an all-'*' class and the suppressed group look alike in the file: the
        # report's figure must lie between what the file proves and what it allows
        low, high = int(suppressed.sum()), int(star.sum())
        if not low <= report["suppressed"] <= high:
            raise _fail(f"{report['suppressed']} suppressed records in the report, between {low} and {high} in the file")
        return star
    return suppressed


def _check_counts(frame: pd.DataFrame, star: np.ndarray, report: Mapping[str, Any]) -> None:
    n_out, n_star = len(frame), int(star.sum())
    keep = report["suppressed_records"] == "keep" and report["transformation"]
    if n_out != report["records_out"]:
        raise _fail(f"{n_out} rows in the file, {report['records_out']} in the report")
    if report["records"] != n_out + report["suppressed_dropped"]:
        raise _fail("records in != records out + suppressed records dropped")
    if report["suppressed_records"] == "drop":
        if n_star or report["suppressed_dropped"] != report["suppressed"]:
            raise _fail("suppressed records were to be dropped")
    elif (n_star != report["suppressed"] and not keep) or report["suppressed_dropped"]:
        raise _fail(f"{n_star} suppressed rows in the file, {report['suppressed']} in the report")
    eligible = report["records"] - report["input_suppressed"]
    newly = report["suppressed"] - report["input_suppressed"]
    if newly > np.floor(report["suppression_limit"] * eligible + 1e-9):
        raise _fail(
            f"{newly} records suppressed, over the limit of {report['suppression_limit']:.2%} of {eligible}"
        )


def _check_values(cells, star, rows, dataset, report, mode) -> None:
    """Every released value against its input record (compared by code: the
    released column's code of the expected text, -1 when no cell reads it)."""
    original = dataset.frame
    levels = report["transformation"]
    for name in dataset.quasi_identifiers:
        if levels:
            codes, texts = cells.codes(name)
            input_codes, per_code = _generalized(dataset, name, int(levels[name]), rows)
            bad = ~star & (codes != _positions(texts, per_code)[input_codes])
        else:
            bad = ~star & ~_covers(dataset, name, cells.texts(name), rows, report)
        if bad.any():
            level = f" at level {levels[name]}" if levels else ""
            raise _fail(f"a released value of {name!r} is not its record's generalization{level}")
    checked = ~star if mode != "keep" else np.ones(len(star), dtype=np.bool_)
    for c in report["columns"]:
        if c["treatment"] != "unchanged" or c["role"] == "quasi-identifier":
            continue
        column = original[c["name"]]
        input_codes, input_texts = _encode(column if isinstance(column.dtype, pd.StringDtype) else column.to_numpy())
        codes, texts = cells.codes(c["name"])
        differs = codes != _positions(texts, input_texts)[input_codes[rows]]
        if c["role"] != "sensitive":
            checked_here = np.ones(len(star), dtype=np.bool_)
        else:
            checked_here = checked
        if np.any(checked_here & differs):
            raise _fail(f"a released value of {c['name']!r} is not its record's")


def _generalized(dataset: Any, name: str, level: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, per_code)``: the input codes of ``name`` for the rows ``rows``, and the
    text of each code's generalization at ``level`` (from the hierarchy; None for a
    code these rows do not use): row ``i`` reads ``per_code[codes[i]]``."""

    h = dataset.hierarchies[name]
    encoded = dataset.encode(name)
    if encoded.missing_code >= 0:
        h = h.with_value(MISSING)
    codes = encoded.codes[rows]
    # by code: each distinct value of these rows generalized once
    used = np.flatnonzero(np.bincount(codes, minlength=encoded.n_values) > 0)
    leaf = np.asarray(h.leaf_index(encoded.labels[used], column=name))
    per_code = np.empty(encoded.n_values, dtype=object)
    per_code[used] = _text(np.asarray(h.labels[level], dtype=object)[h.maps[level][leaf]])
    per_code[per_code == MISSING] = ""  # a missing value is released as an empty cell
    return codes, per_code


def _covers(dataset: Any, name: str, released: np.ndarray, rows: np.ndarray, report: Mapping[str, Any]) -> np.ndarray:
    """Whether each local-recoding label contains its record's original value."""
    encoded = dataset.encode(name)
    original = _text(encoded.labels[encoded.codes[rows]])
    original[original == MISSING] = ""  # a missing value is released as an empty cell
    ok = (released == original) | (released == SUPPRESSED)
    h = dataset.hierarchies.get(name)
    if h is not None:
        try:
            leaf = np.asarray(h.leaf_index(pd.unique(original[~ok]), column=name)) if (~ok).any() else None
        except Exception:  # a value the hierarchy does not cover: judged by the other rules
            leaf = None
        if leaf is not None:
            position = pd.Index(pd.unique(original[~ok])).get_indexer(original)
            for level in range(1, h.height + 1):
                labels = _text(np.asarray(h.labels[level], dtype=object)[h.maps[level][leaf]])
                hit = (position >= 0) & (released == labels[np.maximum(position, 0)])
                ok |= hit
    if ok.all():
        return ok
    numbers = pd.to_numeric(pd.Series(original), errors="coerce").to_numpy(dtype=float)
    low, high = _intervals(released)
    ok |= (numbers >= low) & (numbers <= high)
    if not ok.all() and report.get("recoding", {}).get("algorithm") == "mdav":
        ok |= _group_means(released, numbers)
    return ok


def _intervals(released: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    parts = pd.Series(released, dtype=object).str.extract(_INTERVAL)
    return (pd.to_numeric(parts[0], errors="coerce").to_numpy(dtype=float),
            pd.to_numeric(parts[1], errors="coerce").to_numpy(dtype=float))


def _group_means(released: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Microaggregation: each released value is the mean of the originals released with it."""
    value = pd.to_numeric(pd.Series(released), errors="coerce").to_numpy(dtype=float)
    means = pd.Series(numbers).groupby(pd.Series(released)).transform("mean").to_numpy(dtype=float)
    return np.isclose(value, means, rtol=1e-6, atol=1e-6)
