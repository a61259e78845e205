"""The local engine: pandas and numpy, the whole table in memory (veil's default)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED
from veil.data import read_table
from veil.dataset import MISSING, format_labels
from veil.dp._predicate import Predicate
from veil.engines._filter import check_literal_types, predicate_mask
from veil.engines._output import write_into
from veil.engines._protocol import AggregatingEngine, uncovered
from veil.engines._source import COUNT_COLUMN, Source, as_source

__all__ = ["LocalEngine"]


class LocalEngine(AggregatingEngine):
    """Group-count and apply in memory with pandas and numpy.

    The table is read whole (CSV as text through :func:`veil.data.read_table`,
    Parquet through pandas), so it must fit in memory, several times over for
    the apply (the table, the released copy, the shuffled copy).  The shuffle
    is numpy's ``default_rng(seed).permutation``, exactly as
    :func:`veil.anonymize` shuffles, so for the same seed both give the same
    released rows in the same order.

    Examples
    --------
    >>> engine = LocalEngine()
    >>> engine.name
    'local'
    """

    name = "local"

    def __repr__(self) -> str:
        return "LocalEngine()"

    # ----------------------------------------------------------------- reading
    @staticmethod
    def _read(source: Source, allow_no_rows: bool = False) -> pd.DataFrame:
        if source.format == "parquet":
            return pd.read_parquet(source.path)
        # every cell as text, nothing read as missing: the na_values apply to the
        # grouped columns only, and the other columns are passed through verbatim
        return read_table(source.path, sep=source.sep, na_values=(), allow_no_rows=allow_no_rows).to_pandas()

    @staticmethod
    def _labels(frame: pd.DataFrame, source: Source, name: str) -> pd.Series:
        """Column ``name`` as text labels, ``None`` where missing."""
        if source.format == "parquet":
            values = format_labels(frame[name]).astype(object)
            missing = values.isna().to_numpy()
        else:
            values = frame[name].astype(object)
            missing = (values.isna() | values.isin(source.na_values)).to_numpy()
        out = values.to_numpy(dtype=object, copy=True)
        out[missing] = None
        if source.format == "parquet":  # dates and decimals stay objects in pandas: labels are text
            out[~missing] = [str(v) for v in out[~missing]]
        return pd.Series(out, index=frame.index, dtype=object, name=name)

    # ------------------------------------------------------------- operations
    def group_count(
        self,
        source: Source | str | os.PathLike[str],
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
    ) -> pd.DataFrame:
        """The distinct (QI..., sensitive...) combinations and their ``count``
        (see :meth:`veil.engines.Engine.group_count`)."""
        source = as_source(source)
        columns = list(quasi_identifiers) + list(sensitive)
        source.require(columns)
        frame = self._read(source)
        labels = pd.DataFrame({name: self._labels(frame, source, name) for name in columns})
        if not columns:
            return pd.DataFrame({COUNT_COLUMN: np.array([len(frame)], dtype=np.int64)})
        keys = labels.fillna(MISSING)  # groupby on a sentinel: None is not a key
        grouped = keys.groupby(columns, sort=False, dropna=False).size().reset_index(name=COUNT_COLUMN)
        _missing_as_none(grouped, columns)  # a literal MISSING label and a missing value are one label anyway
        grouped[COUNT_COLUMN] = grouped[COUNT_COLUMN].astype(np.int64)
        return grouped

    def _aggregate_rows(
        self, source: Source, by: list[str], sums: dict[str, tuple[float, float, float]],
        where: Predicate | None, kinds: dict[str, set[str]],
    ) -> pd.DataFrame:
        """The row work of :meth:`AggregatingEngine.aggregate`, in memory (the types checked on the
        whole table, then the filter)."""
        from veil.dp._sensitivity import fixed_point_exponent  # the grid of the local path's exact sum

        frame = self._read(source, allow_no_rows=True)  # a table of no row is answered, as any selection
        checked = list(dict.fromkeys([*kinds, *sums]))
        labels = pd.DataFrame({name: self._labels(frame, source, name) for name in checked}, index=frame.index)
        present = {name: int(labels[name].notna().sum()) for name in checked}
        check_literal_types(kinds, {name: present[name] - int(pd.to_numeric(labels[name], errors="coerce").notna()
                                                               .sum()) for name in checked}, present, list(sums))
        if where is not None:
            frame = frame.loc[predicate_mask(where, labels)].reset_index(drop=True)
        data = pd.DataFrame({name: self._labels(frame, source, name).fillna(MISSING) for name in by})
        data[COUNT_COLUMN] = np.ones(len(frame), dtype=np.int64)
        for name, (lo, hi, fill) in sums.items():
            raw = frame[name]
            if source.format == "csv":  # the na_values texts are missing
                raw = raw.where(~raw.isin(source.na_values), None)
            values = pd.to_numeric(raw, errors="coerce")
            clipped = np.clip(values.fillna(fill).to_numpy(dtype=np.float64), lo, hi)
            data[name] = np.rint(clipped * np.ldexp(1.0, fixed_point_exponent(lo, hi))).astype(np.int64)
        out = (data.groupby(list(by), sort=False, dropna=False).sum().reset_index() if by
               else data.sum().to_frame().T.astype(np.int64))
        for name, (lower, upper, _) in sums.items():  # grid steps back to values
            out[name] = np.ldexp(out[name].to_numpy(dtype=np.float64), -fixed_point_exponent(float(lower), float(upper)))
        _missing_as_none(out, by)
        out[COUNT_COLUMN] = out[COUNT_COLUMN].astype(np.int64)
        return out

    def _write_released(
        self, source: Source, qis: tuple[str, ...], mappings: dict[str, dict[str, str]],
        suppressed_rows: list[tuple[str, ...]], out_path: Path, seed: int, drop_suppressed: bool,
        blank: tuple[str, ...] = (), columns: tuple[str, ...] | None = None,
    ) -> int:
        """The row work of :meth:`veil.engines.Engine.apply`, in memory; the rows written
        (only the ``columns``, default every column)."""
        frame = self._read(source)
        if columns is not None:  # a withheld column is dropped as soon as it is read
            frame = frame.loc[:, list(columns)]
        n = len(frame)
        labels = {name: self._labels(frame, source, name) for name in qis}
        star = np.ones(n, dtype=np.bool_)  # arrived suppressed: '*' in every QI
        for name in qis:
            star &= (labels[name] == SUPPRESSED).to_numpy()
        released: dict[str, np.ndarray] = {}
        for name in qis:
            values = labels[name].fillna(MISSING).map(mappings[name])
            gap = values.isna().to_numpy() & ~star
            if gap.any():
                raise uncovered(name, labels[name].iloc[int(np.flatnonzero(gap)[0])])
            released[name] = values.to_numpy(dtype=object)
        suppress = star.copy()
        if suppressed_rows and n:
            if len(qis) > 1:
                index = pd.MultiIndex.from_arrays([released[q] for q in qis])
                suppress |= np.asarray(index.isin(suppressed_rows), dtype=np.bool_)
            else:
                suppress |= pd.Index(released[qis[0]]).isin([row[0] for row in suppressed_rows])
        out = frame.copy()
        for name in qis:
            column = released[name]
            column[column == MISSING] = None  # a missing value is released empty, as it came
            column[suppress] = SUPPRESSED
            out[name] = pd.array(column, dtype=object)
        for name in blank:  # suppressed: blank
            values = out[name].to_numpy(dtype=object, copy=True)
            values[suppress] = SUPPRESSED
            out[name] = pd.array(values, dtype=object)
        if drop_suppressed:
            out = out.loc[~suppress].reset_index(drop=True)
        # the shuffle of veil.anonymize: for the same seed, the same order
        rng = np.random.default_rng(seed)
        out = out.iloc[rng.permutation(len(out))].reset_index(drop=True)
        write_into(out_path, lambda tmp: _write(out, tmp))
        return len(out)


def _missing_as_none(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    """The group keys as the engines give them: ``None`` for a missing value (grouped on :data:`MISSING`)."""
    for name in columns:
        values = frame[name].to_numpy(dtype=object, copy=True)
        values[values == MISSING] = None
        frame[name] = pd.Series(values, dtype=object)


def _write(frame: pd.DataFrame, tmp: Path) -> None:
    if tmp.suffix.lower() in (".parquet", ".pq"):
        frame.to_parquet(tmp, index=False)
    else:
        frame.to_csv(tmp, index=False)
