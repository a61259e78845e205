"""The verification's judgement of a released table: its classes as a reader sees them, every model on them.

Both verifications (the in-memory frame, :func:`veil.anonymization.verify`, and the
written file, :func:`veil.pipeline.verify_written`) rebuild the class table from the
released rows alone, the quasi-identifiers read as their released labels, and every
released row in a class: a group of rows with ``*`` in every quasi-identifier (the
suppressed records published with ``blank`` or ``keep``) is a class like any other.
The requested models are then judged as the release shows them
(:mod:`veil.models._shown`): the figures are those ``veil check`` computes from the
file.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import MISSING, Dataset
from veil.errors import VerificationError
from veil.models._shown import WITHHELD, star_classes
from veil.pipeline._suppressed import check_models
from veil.pipeline._suppressed import suppressed_rows as suppressed_star

__all__ = ["release_classes", "verify_release"]


def release_classes(data: pd.DataFrame, dataset: Dataset, sensitive: Sequence[str],
                    weights: np.ndarray | None = None, *, every: bool = True) -> ClassTable:
    """The class table of released rows (``weights``: each row's count), every row in a class,
    the QIs as flat labels, the sensitive values in the input's order (``every`` false: the
    rows with ``*`` in every QI left out, for a release of no row, judged as the records it
    suppressed).

    Raises
    ------
    VerificationError
        A released sensitive value is not one of the input's (nor a withheld ``*``).
    """
    from veil.classes import build

    kinds = {name: dataset.schema.kind(name).value for name in sensitive if name in dataset.schema}
    # the input's value order (ordered t-closeness); the missing-value label is added back by the encoding
    domains = {name: [str(v) for v in dataset.encode(name).labels if str(v) != MISSING] for name in sensitive}
    released = Dataset.from_pandas(data, quasi_identifiers=dataset.quasi_identifiers, sensitive=list(sensitive),
                                   kinds=kinds, domains=domains, missing=dataset.missing)
    # a withheld '*' (suppressed: blank) is read, then left out of every figure (veil.models._shown)
    hierarchies = {name: dataset.hierarchies[name].with_value(WITHHELD) for name in sensitive if name in dataset.hierarchies}
    # a QI released as a categorical is read from its own codes (what its encoding would read), not re-encoded
    qis = released.columns_of(dataset.quasi_identifiers)
    kept = np.zeros(released.n_records, dtype=np.bool_) if every else None  # none left out: an all-'*' group is a class
    classes = build(released, hierarchies=hierarchies, weights=weights, suppressed_rows=kept, columns=qis)
    star = star_classes(classes)
    for name in sensitive:
        hist = classes.sensitive[name]
        known = pd.Index(dataset.encode(name).labels).get_indexer(hist.labels) >= 0
        withheld = ~known & (np.asarray(hist.labels, dtype=object) == WITHHELD)  # only the '*' rows withhold
        if hist.value_totals()[~known & ~withheld].any() or _held_outside(hist, withheld, star):
            raise VerificationError(f"A released value of {name!r} is not one of the input's.")
    return classes


def _held_outside(hist: object, values: np.ndarray, star: np.ndarray) -> bool:
    """Does a class that is not all-``*`` hold one of ``values`` (from the (class, value) pairs that
    occur: no classes × values matrix)?"""
    if not values.any():
        return False
    pairs = hist.pairs
    return bool((values[pairs.values] & ~star[pairs.classes] & (pairs.counts > 0)).any())


def _as_released(data: pd.DataFrame, star: np.ndarray, sensitive: Sequence[str], mode: str,
                 weights: np.ndarray | None) -> tuple[pd.DataFrame, np.ndarray | None]:
    """``data`` as the release in ``mode`` shows its suppressed rows ``star``: left out (``drop``),
    their sensitive values withheld (``blank``: ``*``, when the rows still hold them), or as they are."""
    if not star.any() or mode == "keep":
        return data, weights
    if mode == "drop":
        return data.loc[~star].reset_index(drop=True), None if weights is None else np.asarray(weights)[~star]
    shown = [name for name in sensitive if (data[name][star].astype(str) != WITHHELD).any()]
    if shown:
        data = data.assign(**{name: data[name].astype(object).where(~star, WITHHELD) for name in shown})
    return data, weights


def verify_release(data: pd.DataFrame, dataset: Dataset, models: Sequence[object], *, label: str | None = None,
                   weights: np.ndarray | None = None, missing: str = "value", suppressed: str = "blank",
                   suppressed_rows: np.ndarray | None = None) -> ClassTable:
    """Rebuild the class table of released rows (:func:`release_classes`) and judge every model on it.

    The suppressed rows (``suppressed_rows``, default ``*`` in every QI) are shown as the mode
    ``suppressed`` publishes them: left out (``drop``), their sensitive values withheld (``blank``)
    or kept (``keep``); published, they are one class.  A release of no row (every record
    suppressed and dropped) has no class: it is judged as the input's records, all suppressed.

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    sensitive = list(dataset.sensitive)
    if label is not None and label not in sensitive and label in data.columns:
        sensitive.append(label)
    star = suppressed_star(data, dataset.quasi_identifiers) if suppressed_rows is None else np.asarray(
        suppressed_rows, dtype=np.bool_)
    data, weights = _as_released(data, star, sensitive, suppressed, weights)
    rows = len(data) if weights is None else int(np.asarray(weights, dtype=np.int64).sum())
    if rows == 0:  # no class released
        data, weights = dataset.frame.copy(), None
        for name in dataset.quasi_identifiers:
            data[name] = SUPPRESSED
    classes = release_classes(data, dataset, sensitive, weights, every=rows > 0)
    check_models(models, classes, missing=missing)
    return classes
