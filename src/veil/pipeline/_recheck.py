"""The released table re-checked from its labels: the verification step of the one pipeline.

:func:`verify` rebuilds the class table from the released rows (the QIs read as the released
labels, flat hierarchies) and checks every model on it, by code that does not share the search's
state.  The in-memory back-end (:class:`veil.pipeline.MemoryRows`) runs it on the released frame
and the check of the written file (:func:`veil.pipeline.verify_written`) on the file's rows;
:func:`veil.anonymization.verify` is this function.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable, build
from veil.classes._grouping import code_counts
from veil.dataset import MISSING, Dataset
from veil.errors import VerificationError
from veil.models import PrivacyModel
from veil.pipeline._suppressed import SuppressedGroup, check_models, sensitive_models
from veil.pipeline._suppressed import suppressed_rows as suppressed_rows_of

__all__ = ["verify", "released_classes"]


def verify(
    data: pd.DataFrame,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str | None = None,
    suppressed: str = "blank",
    suppressed_rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
) -> ClassTable:
    """Rebuild the class table from released rows and check every model on it.

    The QIs are read as the released labels (flat hierarchies): the check
    does not trust the search.  Records with ``*`` in every QI are the
    suppressed ones: with ``suppressed="keep"`` they are published with
    their sensitive values and, as one group, must meet every model that
    reads a sensitive attribute; otherwise they are left out of the check
    and the distributions are judged against the whole input.

    ``suppressed_rows`` marks the suppressed rows of ``data`` when known
    (default: the rows with ``*`` in every QI; a full-domain node can also
    generalize a class to ``*`` everywhere without suppressing it).

    ``weights`` gives each row of ``data`` the number of released rows it
    stands for (the written file's rows counted by their cells, batch by
    batch: :func:`veil.pipeline.verify_written`); default one each.

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    qis = dataset.quasi_identifiers
    sensitive = list(dataset.sensitive)
    if label is not None and label not in sensitive and label in data.columns:
        sensitive.append(label)
    left_out = None  # the suppressed rows: out of the classes, counted as suppressed (never modified)
    if suppressed != "keep":
        left_out = suppressed_rows_of(data, qis) if suppressed_rows is None else np.asarray(suppressed_rows, dtype=np.bool_)
    if weights is None:  # one record per row: the rows not left out, counted without a mask copy
        remaining = len(data) - (0 if left_out is None else int(np.count_nonzero(left_out)))
    else:
        counts = np.asarray(weights, dtype=np.int64)
        remaining = int(counts.sum() if left_out is None else counts[~left_out].sum())
    if remaining == 0:
        # every record was suppressed: check the all-'*' table it stands for
        data, weights, left_out = dataset.frame.copy(), None, None
        for name in qis:
            data[name] = SUPPRESSED
    classes = released_classes(data, dataset, sensitive, weights, left_out)
    checked = list(models)
    if suppressed == "keep" and sensitive_models(models):
        checked.append(SuppressedGroup(tuple(sensitive_models(models))))
    check_models(checked, classes)
    return classes


def released_classes(data: pd.DataFrame, dataset: Dataset, sensitive: Sequence[str],
                      weights: np.ndarray | None = None, left_out: np.ndarray | None = None) -> ClassTable:
    """The class table of released rows (``weights``: each row's count; ``left_out``: the
    suppressed rows, default ``*`` in every QI), the QIs as flat labels; distributions
    judged against the whole input (suppressed records included)."""
    kinds = {name: dataset.schema.kind(name).value for name in sensitive if name in dataset.schema}
    # the input's value order (ordered t-closeness); the missing-value label is
    # added back by the encoding itself
    domains = {name: [str(v) for v in dataset.encode(name).labels if str(v) != MISSING] for name in sensitive}
    released = Dataset.from_pandas(
        data, quasi_identifiers=dataset.quasi_identifiers, sensitive=sensitive, kinds=kinds,
        domains=domains, missing=dataset.missing,
    )
    hierarchies = {name: dataset.hierarchies[name] for name in sensitive if name in dataset.hierarchies}
    # a QI released as a categorical is read from its own codes (what its encoding would read), not re-encoded
    qis = released.columns_of(dataset.quasi_identifiers)
    classes = build(released, hierarchies=hierarchies, weights=weights, suppressed_rows=left_out, columns=qis)
    if classes.n_records - classes.suppressed < dataset.n_records:
        for name in sensitive:
            hist = classes.sensitive[name]
            original = dataset.encode(name)
            counts = code_counts(original.codes, original.n_values)
            if original.missing_code >= 0 and MISSING not in hist.labels:
                # missing values only in records left out: the input's domain has them (coded last)
                hierarchy = None if hist.hierarchy is None else hist.hierarchy.with_value(MISSING)
                hist = hist.with_domain(np.append(hist.labels, np.array([MISSING], dtype=object)),
                                        np.arange(hist.n_values), hierarchy=hierarchy)
            position = pd.Index(original.labels).get_indexer(hist.labels)
            if (position < 0).any():  # a value of the suppressed rows alone (their blanked '*'): not in any class
                if hist.value_totals()[position < 0].any():
                    raise VerificationError(f"A released value of {name!r} is not one of the input's.")
                kept = position >= 0
                hist = hist.with_domain(hist.labels[kept], np.where(kept, np.cumsum(kept) - 1, -1))
                position = position[kept]
            overall = np.where(position >= 0, counts[np.maximum(position, 0)], 0).astype(np.int64)
            if overall.sum() != dataset.n_records:  # a value only the input has: widen the domain
                raise VerificationError(f"The released values of {name!r} do not match the input's.")
            classes.sensitive[name] = hist.with_overall(overall)
    return classes
