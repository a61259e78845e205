"""Mondrian's judge: which models it enforces, and whether a candidate split satisfies them.

Every candidate split is judged by the requested models themselves, on a tiny
:class:`~veil.classes.ClassTable` whose classes are the candidate parts (with
the whole table's sensitive distribution as the reference of t-closeness and
the like).  When the whole table fails a model, :func:`suppression_for_root`
finds the fewest records to suppress so that the rest satisfies it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError
from veil.models import AlphaKAnonymity, DistinctLDiversity, KAnonymity, KLinkAnonymity, PrivacyModel
from veil.models.registry import class_local_models
from veil.schema import Attribute, Role, Schema

__all__ = ["CLASS_LOCAL_MODELS", "suppression_for_root", "suppressed_group_holds"]

#: The models Mondrian can enforce: those that judge each class on its own
#: (its size and its sensitive histogram against the whole table's).  A
#: partition's verdict must not depend on the other partitions (table-level
#: models such as ``AverageRisk``) nor on the released labels (``KMap``,
#: ``DeltaPresence``, ``LKCPrivacy`` match classes by QI values), because the
#: algorithm decides splits one partition at a time.  They are the built-in
#: models whose ``class_local`` fact is true, in registry order.
CLASS_LOCAL_MODELS: tuple[type[PrivacyModel], ...] = class_local_models()


# ------------------------------------------------------------------------ checks
def _check_models(models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    if isinstance(models, PrivacyModel):
        models = [models]
    models = list(models)
    if not models:
        raise ParameterError(
            "At least one privacy model is needed for mondrian (e.g. models=[KAnonymity(k=5)])."
        )
    for model in models:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(
                f"The 'models' parameter of mondrian must hold PrivacyModel instances. "
                f"Got {type(model).__name__} instead."
            )
        if not isinstance(model, CLASS_LOCAL_MODELS) and not model.judges_suppressed_group:
            supported = ", ".join(c.__name__ for c in CLASS_LOCAL_MODELS)
            raise ParameterError(
                f"mondrian cannot enforce {model.name}: it decides each split on the parts alone, so it "
                f"supports only models judged class by class ({supported}). Use the lattice search "
                "(veil.anonymize) for table-level and population-based models."
            )
    return models


def _min_class_size(models: Sequence[PrivacyModel]) -> int:
    """A size every part must reach (a necessary condition that skips hopeless splits)."""
    sizes = [1]
    for model in models:
        if isinstance(model, (KAnonymity, KLinkAnonymity, AlphaKAnonymity)):
            sizes.append(model.k)
        elif isinstance(model, DistinctLDiversity):
            sizes.append(model.l)
    return max(sizes)



def _sensitive(dataset: Dataset, models: Sequence[PrivacyModel]) -> list[str]:
    """The sensitive attributes the models read (each a column that is not a QI)."""
    names: list[str] = []
    for model in models:
        name = getattr(model, "sensitive", None)
        if not isinstance(name, str) or name in names:
            continue
        if name not in dataset.columns:
            raise ParameterError(
                f"The sensitive attribute {name!r} of {model.name} is not a column of the table; "
                f"its columns are: {', '.join(dataset.columns)}."
            )
        if name in dataset.quasi_identifiers:
            raise ParameterError(
                f"The sensitive attribute {name!r} of {model.name} is a quasi-identifier; "
                "a column has one role."
            )
        names.append(name)
    return names


_UNIT = "__record__"  # the judging table's one quasi-identifier: which kept record a class is


class _Judge:
    """Evaluates the models on candidate splits, through the class table of the records.

    One class table is built with :meth:`ClassTable.from_dataset` over a view of
    the table whose only quasi-identifier names each record (records that
    arrived suppressed are ``*``, so they count in the sensitive attributes'
    whole-table distributions and in no class).  A partition is a table of its
    records' classes (:meth:`ClassTable.suppress` of its parent's); a candidate
    split is that table regrouped by part (:meth:`ClassTable.regroup`), on which
    the models judge the parts as classes.  Judging a split costs the size of
    the partition, not of the table.
    """

    def __init__(self, dataset: Dataset, models: Sequence[PrivacyModel], sensitive: list[str],
                 keep: np.ndarray) -> None:
        self.models = list(models)
        width = len(str(len(keep)))
        ids = np.where(keep, np.char.zfill(np.arange(len(keep)).astype(str), width), SUPPRESSED)
        unit = _UNIT
        while unit in sensitive:
            unit += "_"
        frame = pd.DataFrame({unit: ids, **{name: dataset.frame[name] for name in sensitive}})
        declared = {a.name: a for a in dataset.schema.attributes}
        attributes = [Attribute(unit, Role.QUASI_IDENTIFIER)] + [
            Attribute(name, Role.SENSITIVE, dataset.schema.kind(name),
                      declared[name].domain if name in declared else None)
            for name in sensitive
        ]
        view = Dataset(frame, Schema(tuple(attributes)),
                       hierarchies={n: h for n, h in dataset.hierarchies.items() if n in sensitive},
                       missing=dataset.missing)
        # classes in record order (ids are zero-padded): class j is the j-th kept record
        self.records = ClassTable.from_dataset(view)
        self.sensitive = {name: self.records.sensitive[name] for name in sensitive}

    def subset(self, rows: np.ndarray) -> ClassTable:
        """The table of the kept records ``rows`` (ascending), one class each."""
        mask = np.ones(self.records.n_classes, dtype=np.bool_)
        mask[rows] = False
        return self.records.suppress(mask)

    def grouped(self, table: ClassTable, part: np.ndarray, n_parts: int) -> ClassTable:
        """``table`` with its classes merged by ``part``: one class per part."""
        codes = np.zeros((n_parts, 1), dtype=np.int32)
        return table.regroup(part, codes, levels=table.levels, hierarchies=table.hierarchies)

    def failing(self, table: ClassTable) -> list[PrivacyModel]:
        return [m for m in self.models if not m.check(table)]

    def allows(self, table: ClassTable, part: np.ndarray, n_parts: int) -> bool:
        grouped = self.grouped(table, part, n_parts)
        return all(m.check(grouped) for m in self.models)

    def root_failing(self, rows: np.ndarray) -> list[PrivacyModel]:
        """The models that the kept records ``rows``, as one class, fail."""
        if len(rows) == 0:
            return list(self.models)
        return self.failing(self.grouped(self.subset(rows), np.zeros(len(rows), np.int64), 1))


def _first_occurrences(codes: np.ndarray, cap: int) -> np.ndarray:
    """Mask of the rows kept when each value keeps only its first ``cap`` rows (in row order)."""
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(codes) else np.zeros(0, np.int64)
    group_start = np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes)) - group_start
    return rank < cap


def _capped_rows(judge: "_Judge", rows: np.ndarray, name: str) -> np.ndarray | None:
    """The most rows of ``rows`` that satisfy the models when each value of ``name`` keeps at most
    ``cap`` records, for the largest such cap (binary search), or None when no cap works."""
    codes = judge.sensitive[name].modes()[rows]  # each record's value (one per class), from its pairs
    most = int(np.bincount(codes).max()) if len(codes) else 0

    def passing(cap: int) -> np.ndarray | None:
        kept = rows[_first_occurrences(codes, cap)]
        return kept if len(kept) and not judge.root_failing(kept) else None

    low, high, best = 1, most - 1, None
    while low <= high:  # the largest cap that passes: fewer records removed
        middle = (low + high) // 2
        kept = passing(middle)
        if kept is not None:
            best, low = kept, middle + 1
        else:
            high = middle - 1
    return best


def suppression_for_root(judge: "_Judge", rows: np.ndarray) -> tuple[np.ndarray, list[PrivacyModel]]:
    """The rows to keep so that the whole remaining table satisfies the models, fewest removed.

    Returns the kept rows (all of ``rows`` when the table satisfies the models
    already) and the models still failing (empty on success).

    Notes
    -----
    Removing records helps only the models that read a sensitive attribute
    (k-anonymity and risk thresholds fail on too few records, which removing
    cannot cure).  For each sensitive attribute read by a failing model, the
    records of its most frequent values are capped at :math:`c` per value
    (the last ones in row order are suppressed), and :math:`c` is the largest
    cap under which every model holds.  A capped histogram is the most even
    one reachable by removing a given number of records, so for the
    l-diversity family and (α,k)-anonymity it needs the fewest removals; the
    cap is found by binary search (these models hold for every smaller cap).
    The attribute whose cap removes the fewest records is chosen.
    """
    failing = judge.root_failing(rows)
    if not failing or not len(rows):
        return rows, failing
    best: np.ndarray | None = None
    for name in dict.fromkeys(getattr(m, "sensitive", None) for m in failing):
        if not isinstance(name, str) or name not in judge.sensitive:
            continue
        kept = _capped_rows(judge, rows, name)
        if kept is not None and (best is None or len(kept) > len(best)):
            best = kept
    return (best, []) if best is not None else (rows, failing)


def suppressed_group_holds(judge: "_Judge", rows: np.ndarray, group_models: Sequence[PrivacyModel]) -> None:
    """Refuse when the records left out of ``rows`` (with those that arrived suppressed), published as
    one class, fail a model that judges that group (``judges_suppressed_group``: ``suppressed="keep"``)."""
    if not group_models:
        return
    table = judge.subset(rows)
    failing = [name for m in group_models if not m.check(table)
               for name in (m.failing(table) if hasattr(m, "failing") else [m.name])]
    if failing:
        group = table.suppressed_group()
        size = 0 if group is None else int(group.n_records)
        raise InfeasibleError(
            f"The {size} suppressed records, published with their sensitive values as one class, fail "
            f"{', '.join(failing)}; release them blanked or dropped (suppressed 'blank' or 'drop'), or relax "
            "the models."
        )
