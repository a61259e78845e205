"""The ``veil anonymize`` flags of SafePub: ``--epsilon``, ``--delta``, ``--search-budget``."""

from __future__ import annotations

from veil.algorithms.safepub._parameters import check_privacy_parameters
from veil.errors import ParameterError

__all__ = ["dp_flags"]

_FLAGS = ("--epsilon", "--delta", "--search-budget")


def dp_flags(*, algorithm: str, require: str | None, suppression: float, suppressed: str | None, epsilon: float | None,
             delta: float | None, search_budget: float | None,
             keep_unlisted: bool = False, seed: int | None = None) -> tuple[str, str | None, float, str | None]:
    """``(algorithm, require, suppression, suppressed)`` with the differential-privacy flags folded in.

    ``--epsilon E --delta D [--search-budget S]`` adds the requirement
    ``dp(epsilon=E, delta=D, search_budget=S)``; a ``dp(...)`` requirement
    selects the safepub algorithm when ``--algorithm`` is left at its default,
    and safepub's suppression limit defaults to 1 (it suppresses every
    unsampled record and every class under k) and its suppressed records are
    dropped unless ``--suppressed`` says otherwise (a row per input record
    would publish the exact number of input records).

    Raises
    ------
    ParameterError
        ε ≤ 0, δ outside (0, 1), a search budget outside (0, 1), ``--epsilon``
        without ``--delta`` (or the reverse), ``--search-budget`` alone;
        safepub with ``--suppressed keep`` or ``--keep-unlisted`` (columns
        released outside the guarantee) or ``--seed`` (its draws are the
        operating system's; a seeded run would not be private).
    """
    from veil.models import parse_requirements

    given = [f for f, v in zip(_FLAGS, (epsilon, delta, search_budget)) if v is not None]
    if given:
        if epsilon is None or delta is None:
            raise ParameterError(f"{given[0]} needs --epsilon and --delta (the differential-privacy budget of safepub).")
        e, d, s = check_privacy_parameters(epsilon, delta, 0.1 if search_budget is None else search_budget,
                                           names=_FLAGS)
        clause = f"dp(epsilon={e!r}, delta={d!r}, search_budget={s!r})"
        require = clause if not require else f"{require}, {clause}"
    wants_dp = require is not None and any(r.key == "dp" for r in parse_requirements(require))
    if wants_dp and algorithm == "lattice":
        algorithm = "safepub"
    if algorithm == "safepub" and seed is not None:
        raise ParameterError("--seed cannot be used with safepub: its sampling and selection draw from the operating "
                             "system's randomness, and a reproducible release would not be differentially private.")
    if algorithm == "safepub" and (suppressed == "keep" or keep_unlisted):
        flag = "--suppressed keep" if suppressed == "keep" else "--keep-unlisted"
        raise ParameterError(f"{flag} cannot be used with safepub: it would publish values outside the "
                             "differential-privacy guarantee (safepub releases quasi-identifiers only).")
    if algorithm == "safepub":
        suppression = 1.0 if suppression == 0.0 else suppression
        suppressed = "drop" if suppressed is None else suppressed
    return algorithm, require, suppression, suppressed
