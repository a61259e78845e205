"""``veil anonymize --holdout``: records withheld from a release and kept as its control set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._validation import check_real
from veil.errors import ParameterError

__all__ = ["Holdout", "hold_out", "evaluate_release"]


@dataclass(frozen=True)
class Holdout:
    """Withhold a share of the records from the release and write them to ``path`` (as private as
    the input: they are never released); with ``evaluate``, attack the release against them."""

    share: float
    path: str
    evaluate: bool = False

    def __post_init__(self) -> None:
        check_real("holdout", self.share, "anonymize", low=0.0, high=1.0, closed="neither")


def hold_out(dataset: Any, share: float) -> tuple[Any, Any]:
    """The dataset of the records to release from, and the frame of the withheld ones (OS randomness:
    no seed could redo the draw)."""
    from veil.dataset import Dataset

    n = dataset.n_records
    held = int(round(n * share))
    if held < 1 or held >= n:
        raise ParameterError(f"--holdout {share} of {n:,} records leaves one part empty; give a share that keeps "
                             "records on both sides.")
    mask = np.zeros(n, dtype=np.bool_)
    mask[np.random.default_rng().choice(n, size=held, replace=False)] = True
    frame = dataset.frame
    kept = frame.iloc[np.flatnonzero(~mask)].reset_index(drop=True)
    train = Dataset(kept, dataset.schema, hierarchies=dataset.hierarchies, missing=dataset.missing)
    return train, frame.iloc[np.flatnonzero(mask)].reset_index(drop=True)


def evaluate_release(dataset: Any, release: Any, control: Any, levels: dict[str, int] | None) -> dict[str, Any]:
    """The attacks of :func:`veil.evaluate.evaluate` on a release veil just made, against its holdout."""
    from veil.evaluate._evaluate import evaluate

    n_attacks = int(min(500, len(control), dataset.n_records))
    return evaluate(dataset.frame, release, control, n_attacks=n_attacks,
                    quasi_identifiers=list(dataset.quasi_identifiers), sensitive=list(dataset.sensitive),
                    hierarchies=dataset.hierarchies, levels=levels)
