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
  original (a numeric interval ``[a-b]``, a range ``[first-last]`` of labels
  in the column's order (:mod:`veil.pipeline._ranges`: dates, ordinals,
  categories split in label order), an ancestor in the hierarchy, or, for
  microaggregation, the mean of its group); sensitive values are the original's.

A full-domain release is read in batches of rows
(:func:`~veil.pipeline._read_back.written_batches`: a CSV file of up to 256 MB read
at once by Arrow's multithreaded reader and cut into batches, a larger one streamed
by Arrow's CSV reader, Parquet by record batches), so a large file is never held
whole next to the table it came from: each batch is checked row
by row against its input records, and its rows are counted by the cells the
models read (every quasi-identifier, sensitive attribute and label, and
whether the row is suppressed); the counts are summed over the batches into
one class table (:func:`veil.pipeline._recheck.verify` with ``weights``) on which
every model is checked.  A local recoding's file is read whole (a
microaggregated value is checked against the mean of its whole group).
The checks are raised in the order listed above, whichever batch shows them.

Any failure raises :class:`~veil.errors.VerificationError`; the caller then
publishes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, factorize_keys
from veil.dataset import MISSING
from veil.errors import VerificationError
from veil.pipeline._ranges import in_label_range
from veil.pipeline._read_back import read_written, written_batches

__all__ = ["verify_written", "read_written", "verify_release_table", "written_batches"]

_INTERVAL = re.compile(r"^\[\s*(-?[0-9.eE+]+)\s*-\s*(-?[0-9.eE+]+)\s*\]$")


def _fail(what: str) -> VerificationError:
    return VerificationError(f"The written release does not match its report: {what}. Nothing was published.")


def _text(values: pd.Series | np.ndarray) -> np.ndarray:
    """Cells as the CSV writer writes them: text, missing as ``""``."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):  # text already: no per-cell str()
        return values.fillna("").to_numpy(dtype=object)
    series = pd.Series(values, dtype=object)
    out = np.array(series.astype(str).to_numpy(dtype=object), dtype=object, copy=True)
    out[series.isna().to_numpy()] = ""
    return out


def _encode(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, texts)``: each cell's code (int32) over the distinct cell texts (those of :func:`_text`).

    A text column is hashed once (Arrow's dictionary encoding, through
    ``pandas.factorize``) and only its distinct values become Python strings;
    other columns are turned to text first (``1`` and ``1.0`` hash alike but
    read differently).  Equal texts have equal codes.
    """
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):
        raw, uniques = pd.factorize(values)
        texts = np.append(np.asarray(uniques, dtype=object), "")  # a missing cell (code -1) reads ""
        remap, distinct = pd.factorize(texts)  # "" may be a value too: one code per text
        return remap.astype(np.int32)[raw], np.asarray(distinct, dtype=object)
    raw, distinct = pd.factorize(_text(values))
    return raw.astype(np.int32), np.asarray(distinct, dtype=object)


def _positions(texts: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The code of each of ``wanted`` among the (distinct) ``texts``, -1 where absent."""
    return pd.Index(texts, dtype=object).get_indexer(np.asarray(wanted, dtype=object))


class _Columns:
    """The read-back table's columns, each encoded once (:func:`_encode`), read by code."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self._encoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def encode_all(self, names: Sequence[str]) -> None:
        """Encode ``names`` now, side by side (:func:`~veil.data.side_by_side`: Arrow's hashing
        releases the GIL), for the checks that then read them one by one."""
        from veil.data import side_by_side

        jobs = {name: partial(_encode, self.frame[name]) for name in dict.fromkeys(names) if name not in self._encoded}
        self._encoded.update(side_by_side(jobs, len(self.frame), hashing=True))

    def codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        if name not in self._encoded:
            self._encoded[name] = _encode(self.frame[name])
        return self._encoded[name]

    def missing(self, name: str) -> np.ndarray:
        """Whether each cell of ``name`` is missing (a Parquet null; a CSV cell is text, never missing)."""
        return self.frame[name].isna().to_numpy(dtype=np.bool_)

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
    import pyarrow as pa

    from veil.models._population import in_release_labels

    if result.report["transformation"]:  # a population judged in the release's labels
        models = in_release_labels(models, dataset.hierarchies, result.report["transformation"])
    try:
        batches = written_batches(path) if result.report["transformation"] else [read_written(path)]
        _verify_batches(batches, result, dataset, models, label=label)
    except (pa.ArrowException, pd.errors.ParserError) as exc:  # never a raw reader traceback
        raise VerificationError("The written release could not be read back for its check "
                                f"({type(exc).__name__}); nothing was published.") from None


def verify_release_table(frame: pd.DataFrame, result: Any, dataset: Any, models: Sequence[Any],
                         *, label: str | None = None) -> None:
    """The checks of :func:`verify_written` on a table read back from the file."""
    _verify_batches([frame], result, dataset, models, label=label)


class _Tally:
    """What the batches showed: row counts, the first failure of each per-row
    check, and the rows grouped by the cells the models read."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.rows = self.star = self.suppressed = self.proved = 0
        self.blank: str | None = None
        self.values: str | None = None
        self.parts: list[pd.DataFrame] = []

    def count(self, frame: pd.DataFrame, cells: "_Columns", suppressed: np.ndarray) -> None:
        """Group the batch's rows by the cells of :attr:`names` and ``suppressed``; keep one row per group."""
        first, inverse = _groups(cells, self.names, suppressed)
        part = frame.iloc[first][self.names].reset_index(drop=True)
        part["__suppressed"] = suppressed[first]
        part["__count"] = np.bincount(inverse, minlength=len(first)).astype(np.int64)
        self.parts.append(part)

    def classes_frame(self) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """Every batch's groups: ``(cells, suppressed, counts)``, one row per group and batch
        (the class table's builder adds up the rows of a class spread over batches)."""
        parts = pd.concat(self.parts, ignore_index=True) if len(self.parts) > 1 else self.parts[0]
        return (parts[self.names], parts["__suppressed"].to_numpy(dtype=np.bool_),
                parts["__count"].to_numpy(dtype=np.int64))


def _groups(cells: "_Columns", names: Sequence[str], flag: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: the first row of each group of rows alike in every cell of
    ``names`` (its text, and whether it is missing) and in ``flag``, and each row's group."""
    key = flag.astype(np.int64)
    space = 2
    for name in names:
        codes, texts = cells.codes(name)
        radix = 2 * max(len(texts), 1)
        if space * radix >= 1 << 62:  # renumber the groups so far before the key overflows
            key = factorize_keys(key)[0]
            space = int(key.max()) + 1 if len(key) else 1
        key = key * radix + codes * 2 + cells.missing(name)
        space *= radix
    inverse, _ = factorize_keys(key)  # groups numbered in order of first appearance
    # so a group's first row is where the running maximum of the numbers first reaches it
    first = np.flatnonzero(np.diff(np.maximum.accumulate(inverse), prepend=-1) > 0) if len(inverse) else \
        np.zeros(0, dtype=np.int64)
    return first, inverse


def _verify_batches(batches: Iterable[pd.DataFrame], result: Any, dataset: Any, models: Sequence[Any],
                    *, label: str | None = None) -> None:
    """The checks of :func:`verify_written` on the file's rows, batch by batch."""
    report = result.report
    published = [c["name"] for c in report["columns"] if c["treatment"] != "dropped"]
    qis = list(dataset.quasi_identifiers)
    rows = result.source_rows
    mode = report["suppressed_records"]
    names = qis + [n for n in dataset.sensitive if n in published]
    if label is not None and label in published and label not in names:
        names.append(label)
    expected = _Expected(dataset, report, rows)
    tally = _Tally(names)
    for frame in batches:
        if [str(c) for c in frame.columns] != published:
            raise _fail("the columns differ from the published ones")
        start = tally.rows
        tally.rows += len(frame)
        if rows is None or tally.rows > len(rows):
            continue  # more rows than released: counted, then refused below
        part = rows[start:tally.rows]
        cells = _Columns(frame)  # each column hashed once; the checks below compare codes
        cells.encode_all(names + [c["name"] for c in report["columns"] if c["treatment"] == "unchanged"])
        star = np.ones(len(frame), dtype=np.bool_)
        for name in qis:
            star &= cells.equals(name, SUPPRESSED)
        suppressed, proved = _suppressed_rows(cells, star, part, expected, dataset, mode)
        tally.star += int(star.sum())
        tally.suppressed += int(suppressed.sum())
        tally.proved += proved
        if mode == "blank" and tally.blank is None:
            for name in dataset.sensitive:
                if not np.all(cells.equals(name, SUPPRESSED)[suppressed]):
                    tally.blank = f"a suppressed record publishes its value of {name!r}"
                    break
        if tally.values is None:
            tally.values = _check_values(cells, star, part, dataset, report, mode, expected)
        tally.count(frame, cells, suppressed)
    if rows is None or tally.rows != len(rows):
        raise _fail(f"{tally.rows} rows in the file, {report['records_out']} in the report")
    if mode == "keep" and report["transformation"] and not tally.proved <= report["suppressed"] <= tally.star:
        # an all-'*' class and the suppressed group look alike in the file: the
        # report's figure must lie between what the file proves and what it allows
        raise _fail(f"{report['suppressed']} suppressed records in the report, "
                    f"between {tally.proved} and {tally.star} in the file")
    _check_counts(tally.rows, tally.suppressed, report)
    if tally.blank is not None:
        raise _fail(tally.blank)
    _judge_file(tally, dataset, models, report, label)


def _judge_file(tally: "_Tally", dataset: Any, models: Sequence[Any], report: dict, label: str | None) -> None:
    """Every model on the file's classes (counted batch by batch), and the report's class count."""
    from veil.pipeline._recheck import verify

    cells, flag, counts = tally.classes_frame()
    cells = _empty_as_missing(cells, dataset)
    if "missing_rule" in report.get("recoding", {}).get("details", {}):  # local suppression: a blank matches any value
        from veil.algorithms.local_suppression import blank_matching
        models = blank_matching(models, report["recoding"]["details"])
    classes = verify(cells, dataset, models, label=label, suppressed=report["suppressed_records"],
                     suppressed_rows=flag, weights=counts, missing_sensitive=report.get("missing_sensitive", "value"))
    if tally.star != tally.rows and classes.n_classes != report["classes_released"]:
        raise _fail(f"{classes.n_classes} classes in the file, {report['classes_released']} in the report")
    if tally.values is not None:
        raise _fail(tally.values)


def _empty_as_missing(cells: pd.DataFrame, dataset: Any) -> pd.DataFrame:
    """``cells`` with an empty cell of a column that is not a quasi-identifier read as a missing
    value where the input has missing values in that column and no empty text: a CSV writes a
    missing value as an empty cell (the per-row checks already compared it with the input's)."""
    for name in [c for c in cells.columns if c not in dataset.quasi_identifiers]:
        encoded = dataset.encode(name)
        if encoded.missing_code < 0 or bool((encoded.labels == "").any()):
            continue
        empty = (cells[name] == "").to_numpy(dtype=bool, na_value=False)
        if empty.any():
            cells = cells.assign(**{name: cells[name].where(~empty, None)})
    return cells


class _Expected:
    """What each released cell must read, from the input and the report, made once
    for every batch: each QI's generalization per input code (full-domain), and
    each unchanged column's input cells as codes over their texts."""

    def __init__(self, dataset: Any, report: Mapping[str, Any], rows: np.ndarray | None) -> None:
        self.dataset, self.levels, self.rows = dataset, report["transformation"], rows
        self._per_code: dict[str, np.ndarray] = {}
        self._input: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._batch: tuple[np.ndarray | None, dict[str, np.ndarray]] = (None, {})

    def generalized(self, name: str, part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, per_code)``: the input codes of ``name`` for the rows ``part``, and the
        text of each code's generalization at the reported level (from the hierarchy; None
        for a code no released row uses): row ``i`` reads ``per_code[codes[i]]``."""
        encoded = self.dataset.encode(name)
        if name not in self._per_code:
            assert self.rows is not None
            level = int(self.levels[name])
            h = self.dataset.hierarchies[name]
            if encoded.missing_code >= 0:
                h = h.with_value(MISSING)
            # by code: each distinct value of the released rows generalized once
            used = np.flatnonzero(np.bincount(encoded.codes[self.rows], minlength=encoded.n_values) > 0)
            leaf = np.asarray(h.leaf_index(encoded.labels[used], column=name))
            per_code = np.empty(encoded.n_values, dtype=object)
            per_code[used] = _text(np.asarray(h.labels[level], dtype=object)[h.maps[level][leaf]])
            per_code[per_code == MISSING] = ""  # a missing value is released as an empty cell
            self._per_code[name] = per_code
        if self._batch[0] is not part:  # a new batch: its rows' codes are gathered once per QI
            self._batch = (part, {})
        gathered = self._batch[1]
        if name not in gathered:
            gathered[name] = encoded.codes[part]
        return gathered[name], self._per_code[name]

    def unchanged(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, texts)`` of the input column ``name``, every row (see :func:`_encode`)."""
        if name not in self._input:
            column = self.dataset.columns_of([name])[name]
            if isinstance(column.dtype, pd.StringDtype) and name in self.dataset.quasi_identifiers + self.dataset.sensitive:
                # text already encoded by the dataset: its labels are the cells' texts
                encoded = self.dataset.encode(name)
                texts = np.where(np.arange(encoded.n_values) == encoded.missing_code, "", encoded.labels)
                self._input[name] = encoded.codes, texts.astype(object)
            else:
                self._input[name] = _encode(column if isinstance(column.dtype, pd.StringDtype) else column.to_numpy())
        return self._input[name]


def _suppressed_rows(cells, star, rows, expected, dataset, mode) -> tuple[np.ndarray, int]:
    """The suppressed rows of a batch, read from the file: ``*`` in every QI where the
    record's generalization at the reported levels is not ``*`` everywhere
    (a node may generalize a whole class to ``*``), and, with ``blank``,
    ``*`` rows whose sensitive values are withheld.  With ``keep`` every ``*`` row,
    and the number of those the file proves suppressed (the second value)."""
    if not expected.levels:
        return star, int(star.sum())
    everywhere = np.ones(len(star), dtype=np.bool_)
    for name in dataset.quasi_identifiers:
        codes, per_code = expected.generalized(name, rows)
        everywhere &= (per_code == SUPPRESSED)[codes]
    suppressed = star & ~everywhere
    if mode == "blank" and dataset.sensitive:
        withheld = np.ones(len(star), dtype=np.bool_)
        for name in dataset.sensitive:
            withheld &= cells.equals(name, SUPPRESSED)
        suppressed |= star & everywhere & withheld
    elif mode == "keep":
        return star, int(suppressed.sum())
    return suppressed, int(suppressed.sum())


def _check_counts(n_out: int, n_star: int, report: Mapping[str, Any]) -> None:
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


def _check_values(cells, star, rows, dataset, report, mode, expected) -> str | None:
    """Every released value of a batch against its input record (compared by code: the
    released column's code of the expected text, -1 when no cell reads it); the first
    mismatch, or None."""
    levels = report["transformation"]
    for name in dataset.quasi_identifiers:
        if levels:
            codes, texts = cells.codes(name)
            input_codes, per_code = expected.generalized(name, rows)
            bad = ~star & (codes != _positions(texts, per_code)[input_codes])
        else:
            bad = ~star & ~_covers(dataset, name, cells.texts(name), rows, report)
        if bad.any():
            level = f" at level {levels[name]}" if levels else ""
            return f"a released value of {name!r} is not its record's generalization{level}"
    checked = ~star if mode != "keep" else np.ones(len(star), dtype=np.bool_)
    for c in report["columns"]:
        if c["treatment"] != "unchanged" or c["role"] == "quasi-identifier":
            continue
        input_codes, input_texts = expected.unchanged(c["name"])
        codes, texts = cells.codes(c["name"])
        differs = codes != _positions(texts, input_texts)[input_codes[rows]]
        checked_here = checked if c["role"] == "sensitive" else np.ones(len(star), dtype=np.bool_)
        if np.any(checked_here & differs):
            return f"a released value of {c['name']!r} is not its record's"
    return None


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
    if not ok.all():  # a range of labels in the column's order (dates, ordinals, ordered categories)
        ok |= in_label_range(dataset, name, released, rows)
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
