"""Mondrian's judge: which models it enforces, and whether a candidate split satisfies them.

Every candidate split is judged by the requested models themselves, on a tiny
:class:`~veil.classes.ClassTable` whose classes are the candidate parts (with
the whole table's sensitive distribution as the reference of t-closeness and
the like).  When the whole table fails a model, :func:`suppression_for_root`
finds the fewest records to suppress so that the rest satisfies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from veil.classes import ClassTable, SensitiveHistogram
from veil.dataset import MISSING, Dataset
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models import (
    AlphaKAnonymity,
    BasicBetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    KLinkAnonymity,
    MaxProsecutorRisk,
    OrderedDistanceTCloseness,
    PresentValuesDeltaDisclosure,
    PrivacyModel,
    RecursiveCLDiversity,
)

__all__ = ["CLASS_LOCAL_MODELS", "suppression_for_root"]

#: The models Mondrian can enforce: those that judge each class on its own
#: (its size and its sensitive histogram against the whole table's).  A
#: partition's verdict must not depend on the other partitions (table-level
#: models such as ``AverageRisk``) nor on the released labels (``KMap``,
#: ``DeltaPresence``, ``LKCPrivacy`` match classes by QI values), because the
#: algorithm decides splits one partition at a time.
CLASS_LOCAL_MODELS: tuple[type[PrivacyModel], ...] = (
    KAnonymity,
    KLinkAnonymity,
    MaxProsecutorRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    EqualDistanceTCloseness,
    OrderedDistanceTCloseness,
    HierarchicalTCloseness,
    DeltaDisclosure,
    PresentValuesDeltaDisclosure,
    AlphaKAnonymity,
    BasicBetaLikeness,
    EnhancedBetaLikeness,
)


@dataclass(eq=False)
class _Sensitive:
    """What a candidate's class table needs of one sensitive attribute."""

    template: SensitiveHistogram  # labels, overall (whole table), kind, hierarchy
    codes: np.ndarray  # per kept row


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
        if not isinstance(model, CLASS_LOCAL_MODELS):
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



def _sensitive(dataset: Dataset, models: Sequence[PrivacyModel], keep: np.ndarray) -> dict[str, _Sensitive]:
    """The sensitive attributes the models read, with the whole table's distribution."""
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
    out: dict[str, _Sensitive] = {}
    for name in names:
        encoded = dataset.encode(name)
        overall = np.bincount(encoded.codes, minlength=encoded.n_values).astype(np.int64)
        hierarchy = dataset.hierarchies.get(name)
        if hierarchy is not None:
            if encoded.missing_code >= 0:
                hierarchy = hierarchy.with_value(MISSING)
            hierarchy.leaf_index(encoded.labels[overall > 0], column=name)
        template = SensitiveHistogram(
            name, encoded.labels, np.zeros((0, encoded.n_values), np.int64), overall,
            dataset.schema.kind(name), hierarchy,
        )
        out[name] = _Sensitive(template, encoded.codes[keep].astype(np.int64))
    return out


# ------------------------------------------------------------------ the algorithm
class _Judge:
    """Evaluates the models on a candidate split: the parts are the classes of one ClassTable."""

    def __init__(
        self, dataset: Dataset, models: Sequence[PrivacyModel], sensitive: dict[str, _Sensitive],
        input_suppressed: int,
    ) -> None:
        self.models = list(models)
        self.sensitive = sensitive
        self.qis = tuple(dataset.quasi_identifiers)
        # class-local models read only counts and histograms; the QI side of the
        # table is a placeholder (flat hierarchies, codes all 0, never read)
        self.hierarchies = tuple(Hierarchy.flat(["-"], name=q) for q in self.qis)
        self.levels = tuple(0 for _ in self.qis)
        self.n_records = dataset.n_records
        self.input_suppressed = input_suppressed

    def table(self, part: np.ndarray, n_parts: int, counts: np.ndarray, rows: np.ndarray) -> ClassTable:
        """The class table whose class ``j`` is the records ``rows[part == j]``."""
        histograms = {}
        for name, s in self.sensitive.items():
            t = s.template
            v = t.n_values
            flat = part * v + s.codes[rows]
            hist = np.bincount(flat, minlength=n_parts * v).reshape(n_parts, v)
            histograms[name] = SensitiveHistogram(name, t.labels, hist, t.overall, t.kind, t.hierarchy)
        q = len(self.qis)
        # Built directly (the documented builders start from rows): a class table of
        # the candidate parts only, with the whole table's reference distributions.
        return ClassTable(
            quasi_identifiers=self.qis,
            hierarchies=self.hierarchies,
            levels=self.levels,
            codes=lambda: np.zeros((n_parts, q), dtype=np.int32),
            counts=counts,
            n_records=self.n_records,
            suppressed=self.input_suppressed,
            input_suppressed=self.input_suppressed,
            base=None,
            base_map=np.arange(n_parts, dtype=np.int64),
            sensitive=histograms,
        )

    def failing(self, table: ClassTable) -> list[PrivacyModel]:
        return [m for m in self.models if not m.check(table)]

    def allows(self, part: np.ndarray, n_parts: int, counts: np.ndarray, rows: np.ndarray) -> bool:
        table = self.table(part, n_parts, counts, rows)
        return all(m.check(table) for m in self.models)



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
    codes = judge.sensitive[name].codes[rows]
    most = int(np.bincount(codes).max()) if len(codes) else 0

    def passing(cap: int) -> np.ndarray | None:
        kept = rows[_first_occurrences(codes, cap)]
        if len(kept) == 0:
            return None
        table = judge.table(np.zeros(len(kept), np.int64), 1, np.array([len(kept)]), kept)
        return kept if not judge.failing(table) else None

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
    root = judge.table(np.zeros(len(rows), np.int64), 1, np.array([len(rows)]), rows)
    failing = judge.failing(root) if len(rows) else list(judge.models)
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
