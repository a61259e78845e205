"""Local suppression (sdcMicro's ``localSuppression``): k-anonymity by blanking the fewest key cells,
a blanked cell matching any value; see :mod:`veil.algorithms.local_suppression._search`."""

from veil.algorithms.local_suppression._release import BlankMatchingKAnonymity, blank_matching, run_local_suppression
from veil.algorithms.local_suppression._search import (
    LOCAL_SUPPRESSION_WORK_LIMIT,
    MISSING_RULE,
    importance_order,
    local_suppression,
)

__all__ = ["BlankMatchingKAnonymity", "blank_matching", "run_local_suppression", "local_suppression", "importance_order", "MISSING_RULE", "LOCAL_SUPPRESSION_WORK_LIMIT"]
