"""``veil.evaluate``: attack any release and measure what it leaks beyond a control set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.evaluate._columns import encode_tables, suppressed_rows
from veil.evaluate._linkage import homogeneity, inference, linkability, linkage, record_linkage
from veil.evaluate._singling_out import singling_out

__all__ = ["evaluate", "ATTACKS"]

#: The attacks :func:`evaluate` runs, by name (``--attacks``).
ATTACKS = ("singling-out", "linkability", "inference", "linkage", "homogeneity", "record-linkage")
#: The largest share of control records that may also be records of the original.
MAX_OVERLAP = 0.5


def _frame(value: Any, what: str) -> pd.DataFrame:
    from veil.dataset import Dataset

    if isinstance(value, Dataset):
        return value.frame
    if isinstance(value, pd.DataFrame):
        return value
    raise ParameterError(f"The {what} must be a DataFrame or a Dataset. Got {type(value).__name__} instead.")


def _fingerprints(frame: pd.DataFrame, names: Sequence[str]) -> np.ndarray:
    return pd.util.hash_pandas_object(frame[list(names)].astype(str), index=False).to_numpy()


def _check_tables(original: pd.DataFrame, release: pd.DataFrame, control: pd.DataFrame | None,
                  n_attacks: int) -> list[str]:
    """The columns the attacks may use; refuse tables that do not fit together."""
    if len(release) == 0:
        raise SchemaError("The release has no records; there is nothing to attack.")
    if len(original) < n_attacks:
        raise ParameterError(f"The original has {len(original):,} records, fewer than the {n_attacks:,} attacks "
                             "asked for; lower --n-attacks.")
    extra = [c for c in release.columns if c not in original.columns]
    if extra:
        raise ColumnNotFoundError(f"The release's column {extra[0]!r} is not a column of the original; the two "
                                  "files do not match.")
    if control is not None:
        if set(control.columns) != set(original.columns):
            odd = sorted(set(control.columns) ^ set(original.columns), key=str)[0]
            raise ColumnNotFoundError(f"The control and the original do not have the same columns ({odd!r} is in "
                                      "one only).")
        if len(control) < n_attacks:
            raise ParameterError(f"The control has {len(control):,} records, fewer than the {n_attacks:,} attacks "
                                 "asked for; lower --n-attacks or hold out more records (veil split --control).")
        names = list(original.columns)
        shared = np.isin(_fingerprints(control, names), _fingerprints(original, names)).mean()
        if shared > MAX_OVERLAP:
            raise ParameterError(f"{shared:.0%} of the control's records are also records of the original: a control "
                                 "must hold records that were not used to make the release (veil split --control).")
    return [c for c in release.columns if c in original.columns]


def _roles(columns: list[str], secret: Sequence[str] | None, aux: Sequence[str] | None,
           quasi_identifiers: Sequence[str], sensitive: Sequence[str]) -> tuple[list[str], list[str]]:
    for name in [*(secret or []), *(aux or [])]:
        if name not in columns:
            raise ColumnNotFoundError(f"{name!r} is not a column of both the original and the release.")
    secrets = list(secret) if secret else [s for s in sensitive if s in columns]
    known = list(aux) if aux else [q for q in quasi_identifiers if q in columns]
    if not known:
        known = [c for c in columns if c not in secrets] if secrets else list(columns)
    clash = [s for s in secrets if s in known]
    if clash:
        raise ParameterError(f"The secret column {clash[0]!r} is also one the attacker knows (--aux or a "
                             "quasi-identifier); a secret must be unknown to the attacker.")
    return known, secrets


def _mapped(hierarchies: Mapping[str, Any] | None, levels: Mapping[str, int] | None) -> dict[str, dict[str, str]]:
    """Each original value's released label, from the release's hierarchies at its levels."""
    out: dict[str, dict[str, str]] = {}
    for name, h in (hierarchies or {}).items():
        level = int((levels or {}).get(name, 0))
        if level:
            out[name] = dict(zip(map(str, h.labels[0]), map(str, h.labels[level][h.maps[level]])))
    return out


def _encode(ori: pd.DataFrame, rel: pd.DataFrame, ctl: pd.DataFrame | None, columns: list[str],
            quasi_identifiers: Sequence[str], mapped: dict[str, dict[str, str]]) -> tuple[int, Any]:
    """The number of suppressed released records, and the encoded tables."""
    suppressed = int(suppressed_rows(rel, [q for q in quasi_identifiers if q in rel.columns]).sum())
    if suppressed == len(rel):
        raise SchemaError("Every released record is suppressed; there is nothing to attack.")
    return suppressed, encode_tables(ori, ctl, rel, columns, quasi_identifiers=quasi_identifiers, mapped=mapped)


def _check_parameters(attacks: Sequence[str], n_attacks: int, n_cols: int, n_neighbors: int, confidence: float,
                      tolerance: float) -> tuple[int, int, int, float, float]:
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown:
        raise ParameterError(f"Unknown attack {unknown[0]!r}; the attacks are: {', '.join(ATTACKS)}.")
    return (check_int("n_attacks", n_attacks, "evaluate", low=1), check_int("n_cols", n_cols, "evaluate", low=1),
            check_int("n_neighbors", n_neighbors, "evaluate", low=1),
            check_real("confidence", confidence, "evaluate", low=0.0, high=1.0),
            check_real("tolerance", tolerance, "evaluate", low=0.0))


def _run(tables: Any, columns: list[str], known: list[str], secrets: list[str], halves: Any,
         attacks: Sequence[str], *, n_attacks: int, n_cols: int, n_neighbors: int, confidence: float,
         tolerance: float, rng: np.random.Generator, max_attempts: int) -> dict[str, Any]:
    """Run the chosen attacks on the encoded tables."""
    out: dict[str, Any] = {}
    common = dict(n_attacks=n_attacks, confidence=confidence, rng=rng)
    if "singling-out" in attacks:
        out["singling_out"] = {mode: singling_out(tables, known, mode=mode, n_cols=n_cols, max_attempts=max_attempts,
                                                  **common).to_dict() for mode in ("univariate", "multivariate")}
    if "linkability" in attacks and all(halves):
        out["linkability"] = linkability(tables, list(halves[0]), list(halves[1]), n_neighbors=n_neighbors,
                                         **common).to_dict()
    if "inference" in attacks:
        out["inference"] = {
            s: inference(tables, known if secrets else [c for c in columns if c != s], s, tolerance=tolerance,
                         **common).to_dict() for s in (secrets or columns)}
    own: dict[str, Any] = {}
    if "linkage" in attacks:
        own["linkage"] = linkage(tables, known, **common).to_dict()
    if "homogeneity" in attacks and secrets:
        own["homogeneity"] = {s: homogeneity(tables, known, s, tolerance=tolerance, **common).to_dict()
                              for s in secrets}
    if "record-linkage" in attacks and secrets:
        own["record_linkage"] = {s: record_linkage(tables, known, s, tolerance=tolerance, **common).to_dict()
                                 for s in secrets}
    out["attacks"] = own
    return out


def evaluate(
    original: Any, release: Any, control: Any = None, *, secret: Sequence[str] | None = None,
    aux: Sequence[str] | None = None, link_aux: tuple[Sequence[str], Sequence[str]] | None = None,
    attacks: Sequence[str] = ATTACKS, n_attacks: int = 500, n_cols: int = 3, n_neighbors: int = 1,
    confidence: float = 0.95, tolerance: float = 0.05, seed: int | None = None,
    quasi_identifiers: Sequence[str] = (), sensitive: Sequence[str] = (),
    hierarchies: Mapping[str, Any] | None = None, levels: Mapping[str, int] | None = None,
    max_attempts: int = 10_000_000,
) -> dict[str, Any]:
    """Attack ``release`` as Anonymeter does, each attack measured against ``control``.

    Parameters
    ----------
    original, release, control : DataFrame or Dataset
        The records the release was made from; the release (made by veil or any tool); records of
        the same population that were not used (``split``). Without a control, a risk is the raw rate.
    secret, aux : list of str, optional
        The columns inference guesses (default: ``sensitive``, else each column in turn) and the
        columns the attacker knows (default: ``quasi_identifiers``, else every other column).
    link_aux : (list, list), optional
        The linkability attack's two disjoint column sets; default: ``aux`` cut in two halves.
    attacks : list of str among :data:`ATTACKS`
    n_attacks, n_cols, n_neighbors : int in [1, inf)
        Targets per attack; columns of a multivariate predicate; neighbours per linkability half.
    confidence : float in [0, 1]; tolerance : float in [0, inf)
        The intervals' level; the relative tolerance of a numeric guess.
    seed : int, optional
        For a reproducible evaluation; default: OS randomness.
    quasi_identifiers, sensitive, hierarchies, levels : optional
        The release's roles, hierarchies and levels (its report): the defaults above, suppressed
        records (``*`` in every quasi-identifier), and generalized values matched exactly.

    Returns
    -------
    dict
        ``{"singling_out": {"univariate", "multivariate"}, "linkability", "inference": {COLUMN},
        "attacks": {"linkage", "homogeneity": {COLUMN}, "record_linkage": {COLUMN}}, "parameters"}``;
        each attack ``{"risk", "ci", "main", "control", "baseline", "n_attacks", "meaningful"}``.
    """
    n_attacks, n_cols, n_neighbors, confidence, tolerance = _check_parameters(
        attacks, n_attacks, n_cols, n_neighbors, confidence, tolerance)
    ori, rel = _frame(original, "original"), _frame(release, "release")
    ctl = None if control is None else _frame(control, "control")
    columns = _check_tables(ori, rel, ctl, n_attacks)
    known, secrets = _roles(columns, secret, aux, quasi_identifiers, sensitive)
    suppressed, tables = _encode(ori, rel, ctl, columns, quasi_identifiers, _mapped(hierarchies, levels))
    rng = np.random.default_rng(seed)
    n_cols = min(n_cols, len(known))
    halves = link_aux or (known[: len(known) // 2], known[len(known) // 2:])
    out = _run(tables, columns, known, secrets, halves, attacks, n_attacks=n_attacks, n_cols=n_cols,
               n_neighbors=n_neighbors, confidence=confidence, tolerance=tolerance, rng=rng,
               max_attempts=max_attempts)
    out["parameters"] = {
        "n_attacks": n_attacks, "confidence": confidence, "n_cols": n_cols, "n_neighbors": n_neighbors,
        "tolerance": tolerance, "aux": known, "linkability_aux": [list(h) for h in halves], "secrets": secrets,
        "records": len(ori), "release_records": len(rel), "suppressed_records": suppressed,
        "control_records": None if ctl is None else len(ctl), "distance": "gower",
        "generalized_by": "hierarchies" if hierarchies else "labels"}
    return out
