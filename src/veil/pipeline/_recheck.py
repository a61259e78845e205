"""The released table re-checked from its labels: the verification step of the one pipeline.

:func:`verify` rebuilds the class table from the released rows (the QIs read as the released
labels, flat hierarchies) and checks every model on it, by code that does not share the search's
state (:mod:`veil.pipeline._judge`).  The in-memory back-end (:class:`veil.pipeline.MemoryRows`)
runs it on the released frame and the check of the written file
(:func:`veil.pipeline.verify_written`) on the file's rows; :func:`veil.anonymization.verify` is
this function.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.models import PrivacyModel

__all__ = ["verify"]


def verify(
    data: pd.DataFrame,
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str | None = None,
    suppressed: str = "blank",
    suppressed_rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    missing_sensitive: str = "value",
) -> ClassTable:
    """Rebuild the class table from released rows and check every model on it.

    The QIs are read as the released labels (flat hierarchies): the check
    does not trust the search.  Every released row is in a class: records with
    ``*`` in every QI (the suppressed ones, when published) are one class like
    any other, and every model judges the release as it shows it
    (:mod:`veil.models._shown`: a withheld ``*`` is not a value, the reference
    distribution is the released values').  ``suppressed_rows`` marks the
    suppressed rows (default: ``*`` in every QI); ``suppressed`` says how the
    release shows them: left out (``drop``), their sensitive values withheld
    (``blank``, whatever ``data`` holds there) or kept (``keep``).

    ``weights`` gives each row of ``data`` the number of released rows it
    stands for (the written file's rows counted by their cells, batch by
    batch: :func:`veil.pipeline.verify_written`); default one each.

    Raises
    ------
    VerificationError
        A model fails on the released table.
    """
    from veil.pipeline._judge import verify_release

    return verify_release(data, dataset, models, label=label, weights=weights, missing=missing_sensitive,
                          suppressed=suppressed, suppressed_rows=suppressed_rows)
