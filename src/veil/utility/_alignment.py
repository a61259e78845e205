"""Put a shuffled full-domain release back in the original's row order.

Workload utility compares classifiers on the *same* held-out records in the
original table and in the release.  ``veil.anonymize`` shuffles the released
rows, so the release's row ``i`` is not the original's row ``i``.  A
full-domain generalization with class suppression is, however, a function of
each record's QI values: given the level of every quasi-identifier, the
released version of record ``i`` is its QI values mapped through the
hierarchies (or ``*`` everywhere when its class was suppressed).  So the
release is rebuilt row by row from the original and the levels, and the
rebuilt table is then **checked** against the release given: both must hold
the same multiset of rows (over the columns they share), else the release was
not produced from this original by this recoding and an error says so.

Nothing here reads a row in Python: the recoding is the class table's
``generalize``/``suppress``/``apply`` and the comparison hashes whole rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import Dataset
from veil.errors import HierarchyError, ParameterError, VerificationError

__all__ = ["align_release", "infer_levels"]


def _text(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The columns as text, missing values as one label (hashing compares text)."""
    return pd.DataFrame({c: frame[c].astype(object).where(frame[c].notna(), "\x00NA").astype(str) for c in columns})


def _suppressed_rows(frame: pd.DataFrame, quasi_identifiers: Sequence[str]) -> np.ndarray:
    star = np.ones(len(frame), dtype=np.bool_)
    for name in quasi_identifiers:
        star &= frame[name].astype(str).to_numpy() == SUPPRESSED
    return star


def _base(original: Dataset, quasi_identifiers: Sequence[str]) -> ClassTable:
    missing = [q for q in quasi_identifiers if q not in original.hierarchies]
    if missing:
        raise HierarchyError(
            f"No hierarchy for the quasi-identifier(s) {', '.join(map(repr, missing))}: the release cannot be "
            "matched to the original without them (give the hierarchies, or a release in the original's row order)."
        )
    dataset = original.with_roles(quasi_identifiers=list(quasi_identifiers))
    return ClassTable.from_dataset(dataset)


def infer_levels(original: Dataset, release: pd.DataFrame, *, quasi_identifiers: Sequence[str]) -> dict[str, int]:
    """The lowest level of each QI whose labels include every released label.

    Parameters
    ----------
    original : Dataset
        The original table with a hierarchy per quasi-identifier.
    release : pandas.DataFrame
        The released table (any row order).
    quasi_identifiers : sequence of str

    Returns
    -------
    dict of str to int

    Raises
    ------
    VerificationError
        A QI's released labels are found at no level of its hierarchy.
    """
    base = _base(original, quasi_identifiers)
    star = _suppressed_rows(release, quasi_identifiers)
    levels: dict[str, int] = {}
    for i, name in enumerate(quasi_identifiers):
        released = set(release.loc[~star, name].astype(str).unique())
        hierarchy = base.hierarchies[i]
        leaves = np.unique(base.codes[:, i])
        for level in range(hierarchy.height + 1):
            present = set(map(str, hierarchy.labels[level][hierarchy.maps[level][leaves]]))
            if released <= present:
                levels[name] = level
                break
        else:
            raise VerificationError(
                f"The released values of {name!r} are not the labels of any level of its hierarchy; "
                "the release was not generalized with it (pass the levels, or a release in row order)."
            )
    return levels


def _check_same_rows(
    rebuilt: pd.DataFrame, release: pd.DataFrame, star: np.ndarray, *,
    quasi_identifiers: Sequence[str], columns: Sequence[str], levels: Mapping[str, int],
) -> None:
    """Raise unless ``rebuilt`` and ``release`` hold the same rows (suppressed ones possibly dropped)."""
    rebuilt_star = _suppressed_rows(rebuilt, quasi_identifiers)
    dropped = int(rebuilt_star.sum()) - int(star.sum())
    if dropped not in (0, int(rebuilt_star.sum())) or len(rebuilt) - len(release) != dropped:
        raise VerificationError(
            f"The release has {len(release)} rows ({int(star.sum())} suppressed); rebuilding it from the "
            f"original at levels {dict(levels)} gives {len(rebuilt)} ({int(rebuilt_star.sum())} suppressed). "
            "It is not this original's full-domain release (a local recoding needs a release in row order)."
        )
    compare = rebuilt if dropped == 0 else rebuilt.loc[~rebuilt_star]
    mine = np.sort(pd.util.hash_pandas_object(_text(compare, columns), index=False).to_numpy())
    theirs = np.sort(pd.util.hash_pandas_object(_text(release, columns), index=False).to_numpy())
    if not np.array_equal(mine, theirs):
        raise VerificationError(
            f"The release's rows are not those of the original generalized at levels {dict(levels)}: "
            "it is not this original's full-domain release (a local recoding needs a release in row order)."
        )


def align_release(
    original: Dataset,
    release: pd.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    levels: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """The release's version of every original record, in the original's row order.

    Parameters
    ----------
    original : Dataset
        The table that was anonymized, with a hierarchy per quasi-identifier.
    release : pandas.DataFrame
        Its full-domain release (rows in any order; suppressed records as
        ``*`` in every QI, kept or dropped).
    quasi_identifiers : sequence of str
    levels : mapping of str to int, optional
        The level of each QI (the report's ``transformation``); inferred by
        :func:`infer_levels` when not given.

    Returns
    -------
    pandas.DataFrame
        One row per original record (suppressed records with ``*`` in every
        QI even when the release dropped them), the release's columns.

    Raises
    ------
    VerificationError
        The rebuilt rows and the release's rows differ as multisets: the
        release is a local recoding, or comes from another table or recoding.
    """
    if levels is None:
        levels = infer_levels(original, release, quasi_identifiers=quasi_identifiers)
    unknown = [name for name in levels if name not in quasi_identifiers]
    if unknown or len(levels) != len(quasi_identifiers):
        raise ParameterError(
            f"The levels must name each quasi-identifier once ({', '.join(quasi_identifiers)}). "
            f"Got {', '.join(levels)} instead."
        )
    base = _base(original, quasi_identifiers)
    node = base.generalize({name: int(levels[name]) for name in quasi_identifiers})
    star = _suppressed_rows(release, quasi_identifiers)
    released = _text(release.loc[~star], quasi_identifiers).value_counts()
    classes = node.labels()
    keys = pd.MultiIndex.from_frame(_text(classes, quasi_identifiers))
    kept = released.reindex(keys).fillna(0).to_numpy(dtype=np.int64)
    rebuilt = node.suppress(kept == 0).apply(original.with_roles(quasi_identifiers=list(quasi_identifiers)))
    columns = [c for c in release.columns if c in rebuilt.columns]
    extra = [c for c in release.columns if c not in rebuilt.columns]
    if extra:
        raise VerificationError(
            f"The release has column(s) the original lacks: {', '.join(map(repr, extra))}; "
            "it was not produced from this original."
        )
    rebuilt = _blank_like(rebuilt, release, star, quasi_identifiers=quasi_identifiers, columns=columns)
    _check_same_rows(rebuilt, release, star, quasi_identifiers=quasi_identifiers, columns=columns, levels=levels)
    return rebuilt[columns].reset_index(drop=True)


def _blank_like(rebuilt: pd.DataFrame, release: pd.DataFrame, star: np.ndarray, *,
                quasi_identifiers: Sequence[str], columns: Sequence[str]) -> pd.DataFrame:
    """Blank in ``rebuilt``'s suppressed records the columns the release blanked in all of its own.

    veil's default release (``suppressed="blank"``) withholds the sensitive
    values of suppressed records (``*``); the aligned rows show them as published.
    """
    if not star.any():
        return rebuilt
    blanked = [c for c in columns if c not in quasi_identifiers and (release.loc[star, c].astype(str) == "*").all()]
    if not blanked:
        return rebuilt
    rebuilt = rebuilt.copy()
    rows = _suppressed_rows(rebuilt, quasi_identifiers)
    for name in blanked:
        rebuilt[name] = rebuilt[name].astype(object)
        rebuilt.loc[rows, name] = "*"
    return rebuilt
