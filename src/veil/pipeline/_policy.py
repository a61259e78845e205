"""The release policy: which columns a release publishes, and how.

Everything veil writes is public, so what a release publishes is decided here,
once, before any work starts, for every algorithm and engine:

* an ``identifier`` column is **dropped**; it is published only when an
  explicit action pseudonymized it beforehand (``pseudonymized``), never copied;
* a column with no declared role is **withheld** (``dropped``) unless the user
  declares it ``insensitive`` or asks for ``keep_unlisted``; then it is
  released ``unchanged`` and the summary and the report say so;
* a published column that :func:`veil.sanitize.scan` flags as a direct
  identifier (an e-mail, an SSN, a column unique per row named like an id, ...)
  is refused with a :class:`~veil.errors.IdentifierLeakError` unless the user
  allows it by name (``allow_identifiers``);
* quasi-identifiers are ``generalized`` (the report adds the ``level`` for a
  full-domain transformation) and sensitive attributes are released
  ``unchanged`` (suppressed records' values follow the ``suppressed`` mode,
  see :data:`SUPPRESSED_MODES`).

The outcome, one :class:`ColumnTreatment` per input column, is the report's
``columns`` list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from veil.errors import ParameterError, SchemaError

__all__ = [
    "ReleasePolicy", "ColumnTreatment", "TREATMENTS", "SUPPRESSED_MODES", "DEFAULT_SUPPRESSED",
    "IdentifierLeakError", "suppressed_mode", "unlisted_warnings",
]

#: What a release does to a column (the report's ``columns[].treatment``).
TREATMENTS = ("generalized", "pseudonymized", "dropped", "unchanged", "masked", "noised")
#: What a release does with the suppressed records: leave them out (``drop``);
#: publish them with ``*`` in every QI and every sensitive value withheld as
#: ``*`` (``blank``); or publish their sensitive values (``keep``), in which
#: case the suppressed group is a class that must satisfy the sensitive models.
SUPPRESSED_MODES = ("drop", "blank", "keep")
#: The default: suppressed rows stay (the row count is kept) but say nothing.
DEFAULT_SUPPRESSED = "blank"
#: The role reported for a column that no declaration names.
UNLISTED = "unlisted"


# values per column the release's identifier scan matches against patterns: a pattern flags a column
# when at least half its values match, and at 1,000 values the standard error of that share is at most
# 1.6 points (sqrt(0.25 / 1000)); ten times the sample cost 0.14 s on Adult's one unchanged column
IDENTIFIER_SCAN_SAMPLE = 1_000


class IdentifierLeakError(SchemaError):
    """A column that would be published looks like a direct identifier."""


def suppressed_mode(value: str | None, *, drop_suppressed: bool = False) -> str:
    """The ``suppressed`` mode, checked (``drop_suppressed=True`` is the old name of ``drop``).

    Raises
    ------
    ParameterError
        Not one of :data:`SUPPRESSED_MODES`, or it contradicts ``drop_suppressed``.

    Examples
    --------
    >>> suppressed_mode(None), suppressed_mode(None, drop_suppressed=True), suppressed_mode("keep")
    ('blank', 'drop', 'keep')
    """
    if value is None:
        return "drop" if drop_suppressed else DEFAULT_SUPPRESSED
    if value not in SUPPRESSED_MODES:
        raise ParameterError(
            f"The 'suppressed' parameter must be one of {', '.join(SUPPRESSED_MODES)}. Got {value!r} instead."
        )
    if drop_suppressed and value != "drop":
        raise ParameterError(f"drop_suppressed asks for suppressed='drop' but suppressed={value!r} was given.")
    return value


@dataclass(frozen=True)
class ColumnTreatment:
    """One column of a release: its declared role and what the release does to it."""

    name: str
    role: str
    treatment: str
    level: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "role": self.role, "treatment": self.treatment}
        if self.level is not None:
            out["level"] = int(self.level)
        return out


@dataclass(frozen=True)
class ReleasePolicy:
    """The user's decisions about columns, applied in one place by the pipeline.

    Parameters
    ----------
    keep_unlisted : bool, default False
        Release columns with no declared role unchanged (else they are withheld).
    allow_identifiers : sequence of str
        Columns the identifier scan may flag that the user publishes anyway.
    actions : mapping of str to str
        Columns an explicit action already transformed (``pseudonymized``,
        ``masked``, ``noised``): their treatment in the report.  An identifier
        column is published only with ``pseudonymized`` here.
    scan : bool, default True
        Run the identifier scan on the published columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil import Dataset
    >>> frame = pd.DataFrame({"name": ["Ann", "Bob"], "zip": ["1", "2"], "note": ["a", "b"]})
    >>> ds = Dataset.from_pandas(frame, quasi_identifiers=["zip"], identifiers=["name"])
    >>> [c.treatment for c in ReleasePolicy().columns(ds)]
    ['dropped', 'generalized', 'dropped']
    """

    keep_unlisted: bool = False
    allow_identifiers: tuple[str, ...] = ()
    actions: Mapping[str, str] = field(default_factory=dict)
    scan: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow_identifiers", tuple(str(c) for c in self.allow_identifiers))
        for name, treatment in self.actions.items():
            if treatment not in TREATMENTS:
                raise ParameterError(
                    f"The treatment of column {name!r} must be one of {', '.join(TREATMENTS)}. Got {treatment!r} instead."
                )

    def columns(self, dataset: Any) -> list[ColumnTreatment]:
        """One :class:`ColumnTreatment` per column of ``dataset``, in its order."""
        schema = dataset.schema
        return self.treatments(dataset.columns, {n: schema[n].role.value for n in dataset.columns if n in schema})

    def treatments(self, names: Iterable[str], roles: Mapping[str, str]) -> list[ColumnTreatment]:
        """One :class:`ColumnTreatment` per column of ``names``, in that order, from the declared
        ``roles`` (``{column: role}``; a column not in it is unlisted).

        The one decision of every release path: :meth:`columns` reads the roles of a
        :class:`~veil.dataset.Dataset`, a release through an engine those of its
        configuration for the columns of its input file.

        Examples
        --------
        >>> [c.treatment for c in ReleasePolicy().treatments(["id", "zip", "note"], {"id": "identifier",
        ...                                                  "zip": "quasi-identifier"})]
        ['dropped', 'generalized', 'dropped']
        >>> [c.treatment for c in ReleasePolicy(keep_unlisted=True).treatments(["note"], {})]
        ['unchanged']
        """
        out = []
        for name in names:
            role = roles.get(name, UNLISTED)
            action = self.actions.get(name)
            if role == "identifier":
                treatment = "pseudonymized" if action == "pseudonymized" else "dropped"
            elif role == "quasi-identifier":
                treatment = "generalized"
            elif role == UNLISTED and not self.keep_unlisted:
                treatment = "dropped"
            else:
                treatment = action or "unchanged"
            out.append(ColumnTreatment(name, role, treatment))
        self._check_allowances(out)
        return out

    def _check_allowances(self, columns: list[ColumnTreatment]) -> None:
        """Refuse an allowance that would do nothing: ``allow_identifiers`` publishes a column the scan
        flags, so it must name a column published as it is (not dropped, not generalized)."""
        treatment = {c.name: c for c in columns}
        for name in self.allow_identifiers:
            column = treatment.get(name)
            if column is None:
                why = "which is not a column of the table"
            elif column.treatment == "dropped":
                why = ("an identifier, dropped and never published" if column.role == "identifier" else
                       "withheld: it has no declared role (declare it insensitive, or keep_unlisted)")
            elif column.treatment == "generalized":
                why = "a quasi-identifier, published generalized and never scanned"
            else:
                continue
            raise ParameterError(f"--allow-identifier (allow_identifiers) names {name!r}, {why}; the allowance "
                                 "would do nothing. Remove it.")

    def published(self, dataset: Any) -> list[str]:
        """The columns the release writes, in input order."""
        return [c.name for c in self.columns(dataset) if c.treatment != "dropped"]

    def check_identifiers(self, frame: "pd.DataFrame | Mapping[str, pd.Series]", columns: Iterable[str]) -> None:
        """Refuse to publish a column that the identifier scan flags, unless allowed by name.

        ``frame``: the table, or its columns by name (:meth:`veil.data.Dataset.columns_of`).

        Pseudonymized columns and the allowed ones are not scanned.  Value patterns
        are matched on a sample of :data:`IDENTIFIER_SCAN_SAMPLE` values per column
        (uniqueness on the whole column); the error
        names the column and the kind found, never a value.

        Raises
        ------
        IdentifierLeakError
        """
        found = self.flagged_identifiers(frame, columns)
        if found:
            name = found[0]
            raise IdentifierLeakError(
                f"Column {name!r} looks like a direct identifier and would be published; drop it (role "
                f"identifier), or publish it anyway with --allow-identifier {name} "
                f"(config allow_identifiers: [{name}])."
            )


    def flagged_identifiers(self, frame: "pd.DataFrame | Mapping[str, pd.Series]", columns: Iterable[str]) -> list[str]:
        """The columns of ``columns`` that the identifier scan flags as direct identifiers and that
        are not allowed by name (nor pseudonymized), in the scan's order: what
        :meth:`check_identifiers` refuses."""
        if not self.scan:
            return []
        from veil.sanitize import rows_of, scan_columns

        names = [c for c in columns if c not in self.allow_identifiers and self.actions.get(c) != "pseudonymized"]
        # every column is scanned as text; a text column (pandas' str or string dtype, a
        # categorical of text, or an encoded one's TextCodes: Dataset.columns_of(encoded=True)) is
        # that already, with the same values either way, so it is not converted (0.7 ms per Adult column)
        parts = {name: _as_string(frame[name]) for name in dict.fromkeys(names)}
        n_rows = rows_of(next(iter(parts.values()))) if parts else 0
        if not n_rows:
            return []
        return list(scan_columns(parts, n_rows, sample_size=IDENTIFIER_SCAN_SAMPLE).direct_identifiers)


def _as_string(column: Any) -> Any:
    """``column`` as text: as it is when it holds text already (a text column's
    :class:`~veil.data.TextCodes` too), else ``astype("string")``."""
    from veil.data import TextCodes
    from veil.sanitize import is_text

    if isinstance(column, TextCodes):
        return column
    return column if is_text(column) and column.dtype != object else column.astype("string")


def unlisted_warnings(columns: Iterable[ColumnTreatment]) -> list[str]:
    """The report's warnings for the columns with no declared role: withheld (the default), or released
    unchanged (``keep_unlisted``), in memory and through an engine alike; none when there is none."""
    columns = list(columns)
    withheld = [c.name for c in columns if c.role == UNLISTED and c.treatment == "dropped"]
    unchanged = [c.name for c in columns if c.role == UNLISTED and c.treatment == "unchanged"]
    out = []
    if withheld:
        out.append(f"Columns with no declared role were withheld (not released): {', '.join(withheld)}. "
                   "Declare them insensitive to release them unchanged, or quasi-identifiers to generalize them.")
    if unchanged:
        out.append(f"Columns with no declared role released unchanged: {', '.join(unchanged)}.")
    return out


def published_frame(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` restricted to the published ``columns`` (in that order)."""
    return frame.loc[:, list(columns)]
