"""The engine row back-end of the pipeline: the rows stay in a file an engine reads.

The engine (:mod:`veil.engines`: ``local``, ``duckdb``, ``spark``) touches the
rows three times, each a streaming pass:

1. **group-count** the input by its quasi-identifiers and sensitive
   attributes; the class table is built from the counts
   (:func:`veil.engines.class_table_from_counts`);
2. **apply** the chosen node (:class:`~veil.engines.FullDomainRecoding`: a
   mapping per QI from original to released label, and the suppressed
   classes) into a temporary of the one writer (:func:`veil.pipeline.publishing`);
3. **verify**: group-count the written file, rebuild its class table from the
   released labels (flat: nothing of the search is trusted) and check every
   model, the row counts (input = output + dropped) and the released classes
   against the search's; only then is the file renamed to the output.  A
   failure removes it and raises :class:`~veil.errors.VerificationError`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import MISSING
from veil.errors import SchemaError, VerificationError
from veil.pipeline._released import Released
from veil.pipeline._suppressed import check_models, star_valued
from veil.pipeline._writer import Outputs, publishing

__all__ = ["EngineRows", "reader_for"]


def reader_for(engine: Any) -> Any:
    """The engine that reads a written file back for its verification.

    The Spark engine's files are read back by DuckDB (or pandas): the check
    does not run through the engine that wrote them, and Spark does not read
    the writer's hidden temporary files.
    """
    if engine.name != "spark":
        return engine
    try:
        import duckdb  # noqa: F401
    except ImportError:
        from veil.engines._local import LocalEngine

        return LocalEngine()
    from veil.engines._duckdb import DuckDBEngine

    return DuckDBEngine()


@dataclass
class EngineRows:
    """The rows of ``source`` (a :class:`veil.engines.Source`), released through ``engine`` into ``output``.

    ``hierarchies``, ``kinds`` and ``domains`` describe the attributes as for
    :func:`veil.engines.class_table_from_counts`.  ``columns`` are the columns
    written (the published ones, in the input's order; ``None``: every column).
    """

    engine: Any
    source: Any
    output: Path
    hierarchies: Mapping[str, Any]
    kinds: Mapping[str, Any] = field(default_factory=dict)
    domains: Mapping[str, Sequence[str]] | None = None
    dataset: None = None  # the rows are not in memory
    base: ClassTable | None = field(default=None, repr=False)
    outputs: Outputs | None = field(default=None, repr=False)
    columns: tuple[str, ...] | None = None

    def class_table(self, plan: Any, seconds: dict[str, float]) -> ClassTable:
        """Group-count the input, then the class table from the counts (each timed in ``seconds``)."""
        from veil.engines._classes import class_table_from_counts

        tick = time.perf_counter()
        counts = self.engine.group_count(self.source, plan.quasi_identifiers, list(plan.sensitive))
        seconds["group_count"], tick = time.perf_counter() - tick, time.perf_counter()
        self.base = class_table_from_counts(
            counts, quasi_identifiers=plan.quasi_identifiers, sensitive=list(plan.sensitive),
            hierarchies=self.hierarchies, kinds=self.kinds, domains=self.domains,
        )
        seconds["class_table"] = time.perf_counter() - tick
        star = star_valued(self.base) if plan.mode == "blank" else []
        if star:  # the engine's check counts the written file's groups: it could not tell them from blanked ones
            raise SchemaError(
                f"Column {star[0]!r} has the value {SUPPRESSED!r}, the mark that --suppressed blank writes for a "
                "suppressed record's value: through an engine the two cannot be told apart. Use --suppressed drop "
                "or keep, or --engine local, or recode that value."
            )
        return self.base

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """The one writer around apply and verify: the file is renamed into place only if both pass."""
        with publishing({"data": self.output}, inputs=[self.source.path]) as outputs:
            self.outputs = outputs
            try:
                yield
            finally:
                self.outputs = None

    def apply(self, plan: Any, problem: Any, outcome: Any) -> Released:
        """The engine writes the chosen node into the writer's temporary."""
        from veil.engines._recoding import FullDomainRecoding

        chosen = outcome.search.classes
        recoding = FullDomainRecoding.from_classes(chosen)
        unverified = self.outputs.temporary("data")
        applied = self.engine.apply(
            self.source, recoding.mappings, recoding.suppressed, unverified,
            shuffle_seed=plan.seed, drop_suppressed=plan.mode == "drop",
            blank=list(plan.sensitive) if plan.mode == "blank" else (),
            **({} if self.columns is None else {"columns": self.columns}),  # a withheld column is not written
        )
        return Released(records=problem.base.n_records, records_out=applied.records_out,
                        suppressed=int(chosen.suppressed), path=unverified)

    def verify(self, plan: Any, problem: Any, outcome: Any, released: Released) -> ClassTable | None:
        """Rebuild the class table of the written file and check it (see the module docstring);
        ``None`` when no class was released (every record suppressed, and dropped or blanked:
        the rows and the blanked cells are checked, there is no class to judge)."""
        from veil.engines._classes import class_table_from_counts
        from veil.engines._source import COUNT_COLUMN, Source

        base, chosen, drop = problem.base, outcome.search.classes, plan.mode == "drop"
        qis, sensitive = base.quasi_identifiers, list(plan.sensitive)
        if released.records_out == 0:  # the reader refuses a file with no data row: count its rows directly
            from veil.pipeline._verify import read_written

            empty = read_written(released.path)
            self._check_header(tuple(map(str, empty.columns)))
            seen = len(empty)
            _check_row_counts(seen, released.path, base, chosen, drop_suppressed=drop, records_out=0)
            return None
        written = Source.from_path(released.path, sep=",", na_values=self.source.na_values)
        self._check_header(written.columns)
        counts = reader_for(self.engine).group_count(written, qis, sensitive)
        every = counts  # every row, for the class table the release shows (below)
        seen = int(counts[COUNT_COLUMN].sum())
        _check_row_counts(seen, written.path, base, chosen, drop_suppressed=drop, records_out=released.records_out)
        if plan.mode == "blank" and sensitive:  # blanked records checked, then judged as left out
            counts = _without_blanked(counts, qis, sensitive, chosen)
            drop = True
            if not int(counts[COUNT_COLUMN].sum()):  # every record arrived suppressed: no class to judge
                return None
        # at the top node the one class reads '*' in every QI like suppressed records: when the
        # search kept it, it is a class of the file, not records left out
        top = chosen.n_classes > 0 and all(level == h.height for level, h in zip(chosen.levels, chosen.hierarchies))
        verified = class_table_from_counts(
            counts, quasi_identifiers=qis, sensitive=sensitive, suppressed_rows=np.zeros(len(counts), bool) if top else None,
            hierarchies={name: h for name, h in self.hierarchies.items() if name in sensitive},
            kinds={name: k for name, k in self.kinds.items() if name in sensitive},
            # the input's values in its order; the missing-value label is added back by the encoding
            domains={name: [v for v in base.sensitive[name].labels.tolist() if v != MISSING] for name in sensitive},
        )
        _check_classes(verified, chosen, qis, drop_suppressed=drop, na_values=written.na_values)
        _check_sensitive_values(verified, base, sensitive, drop_suppressed=drop)
        check_models(plan.searched, verified, missing=plan.missing_sensitive)
        # the release as it shows itself (veil.models._shown): every row in a class, the suppressed group too
        shown = class_table_from_counts(
            every, quasi_identifiers=qis, sensitive=sensitive, suppressed_rows=np.zeros(len(every), bool),
            hierarchies={name: h.with_value(SUPPRESSED) for name, h in self.hierarchies.items() if name in sensitive},
            kinds={name: k for name, k in self.kinds.items() if name in sensitive},
            domains={name: [v for v in base.sensitive[name].labels.tolist() if v != MISSING] for name in sensitive},
        )
        check_models(plan.models, shown, missing=plan.missing_sensitive)
        return shown

    def _check_header(self, header: tuple[str, ...]) -> None:
        """The written file holds the published columns, in the input's order, and no other."""
        expected = tuple(self.source.columns if self.columns is None else self.columns)
        if tuple(header) != expected:
            raise VerificationError(
                "The columns of the output are not the published ones. This is a bug in veil; nothing was written."
            )

    def finish(self, report: dict[str, Any], seconds: dict[str, float]) -> None:
        """The engine's keys: ``engine``, ``output``, ``classes`` (of the input) and ``seconds`` per step."""
        report.pop("columns", None)  # the caller names the file's columns (veil.release)
        report.update({"engine": self.engine.name, "output": str(self.output), "classes": int(self.base.n_classes),
                       "seconds": {name: round(value, 6) for name, value in seconds.items()}})


def _without_blanked(counts: pd.DataFrame, qis: Sequence[str], sensitive: Sequence[str],
                     chosen: ClassTable) -> pd.DataFrame:
    """The group-count of the written file less its blanked records (``*`` in every QI and every
    sensitive attribute), after checking that exactly the suppressed records are blanked and
    that no other record has a blanked sensitive value."""
    from veil.engines._source import COUNT_COLUMN

    def reads_star(names: Sequence[str]) -> np.ndarray:
        return np.logical_and.reduce([(counts[n].astype(str) == SUPPRESSED).to_numpy() for n in names])

    blanked = reads_star(qis) & reads_star(sensitive)
    partly = np.logical_or.reduce([(counts[n].astype(str) == SUPPRESSED).to_numpy() for n in sensitive]) & ~blanked
    if partly.any() or int(counts.loc[blanked, COUNT_COLUMN].sum()) != int(chosen.suppressed):
        raise VerificationError(
            "The blanked records of the output are not the suppressed ones. This is a bug in veil; "
            "nothing was written."
        )
    return counts.loc[~blanked].reset_index(drop=True)


def _label_classes(classes: pd.DataFrame, qis: Sequence[str], na_values: Sequence[str]) -> tuple[pd.DataFrame, int]:
    """Class labels and counts as a reader of the released file sees them:
    a label that is an NA text reads as missing, an all-``*`` class as suppressed."""
    from veil.engines._source import COUNT_COLUMN

    frame = classes[list(qis) + [COUNT_COLUMN]].copy()
    na = set(na_values)
    for name in qis:  # one pass over the class labels (the class table, not the rows)
        frame[name] = [MISSING if (v is None or str(v) in na) else str(v) for v in frame[name]]
    star = np.ones(len(frame), dtype=np.bool_)
    for name in qis:
        star &= (frame[name] == SUPPRESSED).to_numpy()
    stars = int(frame.loc[star, COUNT_COLUMN].sum())
    frame = frame.loc[~star].groupby(list(qis), sort=True)[COUNT_COLUMN].sum().reset_index()
    return frame, stars


def _check_classes(verified: ClassTable, chosen: ClassTable, qis: Sequence[str], *, drop_suppressed: bool,
                   na_values: Sequence[str]) -> None:
    """The released classes are those of the search, record for record."""
    expected, expected_stars = _label_classes(chosen.labels(), qis, na_values)
    actual, actual_stars = _label_classes(verified.labels(), qis, ())
    suppressed_out = actual_stars + verified.input_suppressed
    if not drop_suppressed and suppressed_out != chosen.suppressed + expected_stars:
        raise VerificationError(
            f"The output has {suppressed_out} suppressed records but the transformation suppresses "
            f"{chosen.suppressed}. This is a bug in veil; nothing was written."
        )
    if not expected.equals(actual):
        raise VerificationError(
            "The classes of the output differ from those of the chosen transformation. "
            "This is a bug in veil; nothing was written."
        )


def _check_row_counts(seen: int, written: Path, base: ClassTable, chosen: ClassTable, *,
                      drop_suppressed: bool, records_out: int) -> None:
    """Rows read back (``seen``) = rows written, and rows in = rows out + rows dropped."""
    if seen != records_out:
        raise VerificationError(
            f"Row counts do not reconcile: the engine reported {records_out} rows written but "
            f"{seen} were read back from {str(written)!r}. This is a bug in veil; nothing was written."
        )
    dropped = base.n_records - records_out
    expected_dropped = chosen.suppressed if drop_suppressed else 0
    if dropped != expected_dropped:
        raise VerificationError(
            f"Row counts do not reconcile: {base.n_records} in, {records_out} out, {chosen.suppressed} suppressed"
            f"{' and dropped' if drop_suppressed else ''}. This is a bug in veil; nothing was written."
        )


def _check_sensitive_values(released: ClassTable, base: ClassTable, sensitive: Sequence[str], *,
                            drop_suppressed: bool) -> None:
    """The released sensitive values are the input's (distributions judged against the whole input)."""
    for name in sensitive:
        hist, original = released.sensitive[name], base.sensitive[name]
        if original.labels.tolist()[-1:] == [MISSING] and hist.labels.tolist() == original.labels.tolist()[:-1]:
            # the input's missing values were all in records left out of the file: none released
            hist = hist.with_domain(original.labels, np.arange(hist.n_values), overall=np.append(hist.overall, 0))
            released.sensitive[name] = hist
        if hist.labels.tolist() != original.labels.tolist():
            raise VerificationError(f"The released values of {name!r} do not match the input's.")
        if drop_suppressed:
            # judge distributions against the whole input, suppressed records included,
            # exactly as the search did
            released.sensitive[name] = hist.with_overall(original.overall)
        elif not np.array_equal(hist.overall, original.overall):
            raise VerificationError(f"The released values of {name!r} do not match the input's.")
