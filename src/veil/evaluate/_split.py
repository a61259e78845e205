"""Hold out a control set: records of the population that are never released."""

from __future__ import annotations

import numpy as np
import pandas as pd

from veil._validation import check_real
from veil.errors import ParameterError

__all__ = ["split"]


def split(frame: pd.DataFrame, control: float = 0.2, *, seed: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split ``frame`` at random into the records to release from and a control set.

    ``control`` is the control's share, in (0, 1); each part keeps the input's row order.  Without
    ``seed`` the draw comes from OS randomness (a seed would let anyone redo the split).

    Examples
    --------
    >>> import pandas as pd
    >>> train, held = split(pd.DataFrame({"a": range(10)}), 0.2, seed=1)
    >>> len(train), len(held)
    (8, 2)
    """
    share = check_real("control", control, "split", low=0.0, high=1.0, closed="neither")
    n = len(frame)
    held = int(round(n * share))
    if held < 1 or held >= n:
        raise ParameterError(f"A control share of {share} of {n:,} records leaves one part empty; "
                             "give a share that keeps records on both sides.")
    rng = np.random.default_rng(seed)
    mask = np.zeros(n, dtype=np.bool_)
    mask[rng.choice(n, size=held, replace=False)] = True
    return frame.iloc[np.flatnonzero(~mask)], frame.iloc[np.flatnonzero(mask)]
