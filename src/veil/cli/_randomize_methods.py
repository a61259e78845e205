"""The two methods of ``veil randomize``: PRAM and αβ, from flags to a release and its report part.

Used by :mod:`veil.cli.cmd_randomize` only.  Each method checks its own flags
(the transition files of PRAM, the (α, β) / (d, γ) pair of αβ), calls
:mod:`veil.algorithms.randomization`, and returns the release, its part of the
JSON report, the summary rows and the warnings to print.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Optional

from veil.errors import ParameterError

#: Condition number above which pram_estimate refuses a matrix (kept in step with it).
_SINGULAR = 1e12
#: Tolerance of a transition row sum (the library's).
_ROW_SUM_TOL = 1e-9


def check_p(p: float) -> float:
    """The PRAM keep probability ``--p``, in (0, 1]."""
    if not math.isfinite(p) or not 0.0 < p <= 1.0:
        raise ParameterError(
            f"The '--p' option (keep probability) of veil randomize must be a float in (0, 1]. Got {p!r} instead."
        )
    return p


# ---------------------------------------------------------------------- PRAM
def _read_transition(column: str, path: Path, categories: list[str]):
    """Read a transition-matrix CSV: header = categories, one row per original category.

    The rows follow the header's order, or carry their category in a first
    label column (recognised by an empty corner cell or by text entries).
    Entries must be finite and nonnegative, each row must sum to 1, and the
    categories must be exactly the column's.
    """
    import pandas as pd

    from veil.dataset import read_csv

    where = f"--transition {column}={path}"
    frame = read_csv(path, na_values=(), row_labels=True)
    rows, header, frame = _matrix_labels(frame, where)
    values = _matrix_entries(frame, rows, header, where)
    _check_categories(header, categories, column, where)
    return pd.DataFrame(values, index=rows, columns=header)


def _matrix_labels(frame, where: str):
    """The row labels, the header and the numeric part of a transition-matrix CSV, shape checked."""
    import pandas as pd

    header = [str(c) for c in frame.columns]
    labelled = len(header) > 1 and (
        header[0].strip() == "" or bool(pd.to_numeric(frame.iloc[:, 0], errors="coerce").isna().any())
    )
    if labelled:  # a first column of row labels: empty corner cell, or text
        rows = [str(v) for v in frame.iloc[:, 0]]
        header = header[1:]
        frame = frame.iloc[:, 1:]
        if len(rows) == len(header) and sorted(rows) != sorted(header):
            raise ParameterError(
                f"{where}: the row labels (first column) must be the header's categories, each once."
            )
    else:
        rows = header
    if len(header) != len(frame):
        raise ParameterError(
            f"{where}: a transition matrix is square, one row per category of the header. "
            f"Got {len(header)} categories and {len(frame)} rows instead."
        )
    if len(set(header)) != len(header):
        raise ParameterError(f"{where}: the header lists a category twice; list each once.")
    return rows, header, frame


def _matrix_entries(frame, rows: list[str], header: list[str], where: str):
    """The entries as floats: finite, nonnegative, each row summing to 1."""
    import numpy as np
    import pandas as pd

    values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    bad = np.argwhere(~np.isfinite(values) | (values < 0))
    if len(bad):
        i, j = bad[0]
        raise ParameterError(
            f"{where}: every entry must be a finite number in [0, 1]. The entry in row {rows[i]!r}, "
            f"column {header[j]!r} is {frame.iat[i, j]!r}."
        )
    sums = values.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > _ROW_SUM_TOL)
    if len(off):
        raise ParameterError(
            f"{where}: each row is a probability distribution and must sum to 1 (to {_ROW_SUM_TOL:g}). "
            f"The row of {rows[off[0]]!r} sums to {float(sums[off[0]])!r}; write the entries with more digits."
        )
    return values


def _check_categories(header: list[str], categories: list[str], column: str, where: str) -> None:
    """The header must list exactly the column's categories."""
    unknown = [c for c in header if c not in categories]
    if unknown:
        raise ParameterError(
            f"{where}: {unknown[0]!r} is not a category of column {column!r}"
            + (f" (nor are {len(unknown) - 1} other header label(s))" if len(unknown) > 1 else "")
            + f"; the header must list exactly the column's {len(categories)} categories."
        )
    absent = [c for c in categories if c not in header]
    if absent:
        raise ParameterError(
            f"{where}: the header lacks the category {absent[0]!r} of column {column!r}"
            + (f" (and {len(absent) - 1} other(s))" if len(absent) > 1 else "")
            + f"; the header must list exactly the column's {len(categories)} categories."
        )


def check_pram_sizes(dataset, columns: list[str]) -> None:
    """Refuse a column with more categories than PRAM's dense K x K matrix allows, before any is built.

    Raises
    ------
    ParameterError
        A column has more than :data:`veil.algorithms.randomization.PRAM_MAX_CATEGORIES` distinct values.
    """
    from veil.algorithms.randomization import check_pram_categories

    for column in columns:
        encoded = dataset.encode(column)
        check_pram_categories(encoded.n_values - int(encoded.missing_code >= 0), column)


def pram_release(dataset, columns: list[str], *, p: Optional[float], transition_files: dict[str, str],
          invariant: bool, seed: Optional[int]):
    """PRAM from its flags: ``--p`` (optionally ``--invariant``) or one ``--transition`` file per column."""
    import numpy as np

    from veil.algorithms.randomization import pram
    from veil.dataset import MISSING

    if p is None and not transition_files:
        raise ParameterError("--method pram needs --p (keep probability, e.g. --p 0.8) or "
                             "--transition COLUMN=FILE.csv (a matrix per column).")
    if p is not None and transition_files:
        raise ParameterError("--p and --transition are exclusive: give --p for every column, or a "
                             "--transition matrix for every column.")
    if invariant and transition_files:
        raise ParameterError("--invariant builds the matrices from --p; it cannot be combined with --transition "
                             "(pass an invariant matrix as the --transition file instead).")
    check_pram_sizes(dataset, columns)  # a dense K x K matrix per column: before reading any matrix file
    transition = None
    if transition_files:
        extra = [c for c in transition_files if c not in columns]
        if extra:
            raise ParameterError(f"--transition names {extra[0]!r}, which is not in --columns "
                                 f"({', '.join(columns)}).")
        lacking = [c for c in columns if c not in transition_files]
        if lacking:
            raise ParameterError(f"--transition has no matrix for column {lacking[0]!r}; give one per column "
                                 "in --columns (or use --p).")
        transition = {}
        for column, file in transition_files.items():
            labels = [str(v) for v in dataset.encode(column).labels if v != MISSING]
            transition[column] = _read_transition(column, Path(file), labels)
    release = pram(dataset, columns, p=check_p(p) if p is not None else None, transition=transition,
                   invariant=invariant, seed=seed)
    transitions = release.details["transitions"]
    singular = [c for c, t in transitions.items()
                if t["matrix"] and not np.linalg.cond(np.asarray(t["matrix"])) <= _SINGULAR]
    for column, spec in transitions.items():
        spec["invertible"] = column not in singular
    report = {
        "parameters": {
            "p": p,
            "invariant": bool(invariant),
            "transition_files": {c: str(f) for c, f in transition_files.items()},
        },
        "transitions": transitions,
    }
    rows = [("parameters", f"p = {p:g}{' (invariant)' if invariant else ''}" if p is not None
             else "explicit matrices: " + ", ".join(f"{c}={Path(f).name}" for c, f in transition_files.items()))]
    notes = []
    if p == 1.0:
        notes.append("--p 1 keeps every value: the randomized columns are unchanged.")
    if singular:
        notes.append(f"the matrix of {', '.join(map(repr, singular))} is singular (e.g. p = 1/K): the original "
                     "counts cannot be estimated from this release (pram_estimate refuses it).")
    if invariant:
        notes.append("invariant matrices are built from the data: their ratios disclose the input frequencies; "
                     "publish them only if those frequencies may be published.")
    return release, report, rows, notes


# ---------------------------------------------------------------------- αβ
def alpha_beta_pair(alpha: Optional[float], beta: Optional[float], d: Optional[float], gamma: Optional[float]):
    """Resolve the flags into (α, β, recommended-region or None); refuse contradictions."""
    from veil.algorithms.randomization import alpha_beta_parameters, is_private

    if (alpha is None) != (beta is None):
        raise ParameterError(f"--alpha and --beta go together. Got {'--alpha' if beta is None else '--beta'} "
                             "alone; give both, or neither and --d/--gamma for the recommended pair.")
    if (d is None) != (gamma is None):
        raise ParameterError(f"--d and --gamma go together. Got {'--d' if gamma is None else '--gamma'} alone; "
                             "give both.")
    if alpha is None and d is None:
        raise ParameterError("--method alpha-beta needs --alpha and --beta, or --d and --gamma (then the "
                             "recommended pair of Theorem 4.3 is used).")
    region = alpha_beta_parameters(d, gamma) if d is not None else None
    if alpha is None:
        return region.alpha, region.beta, region
    if region is not None and not is_private(alpha, beta, d=d, gamma=gamma):
        raise ParameterError(
            f"--alpha {alpha:g} --beta {beta:g} contradict --d {d:g} --gamma {gamma:g}: Theorem 4.3 needs "
            f"beta/(alpha+beta) >= {region.min_beta_share:.6g} and alpha+beta <= {region.max_retention:.6g}; "
            f"got {beta / (alpha + beta):.6g} and {alpha + beta:.6g}. The recommended pair is "
            f"--alpha {region.alpha:.6g} --beta {region.beta:.6g} (drop --alpha/--beta to use it)."
        )
    return alpha, beta, region


def alpha_beta_release(dataset, columns: list[str], pair, *, alpha: Optional[float], d: Optional[float],
                gamma: Optional[float], seed: Optional[int]):
    """αβ with the resolved ``pair`` (α, β, region); warnings become notes."""
    from veil.algorithms.randomization import alpha_beta

    a, b, region = pair
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = alpha_beta(dataset, columns, alpha=a, beta=b, seed=seed)
    details = release.details
    inferred = [c for c, s in details["domain_sources"].items() if s == "data"]
    notes = [str(w.message) for w in caught if not (inferred and "from the values present" in str(w.message))]
    if inferred:
        notes.insert(0, f"the domain of {', '.join(map(repr, inferred))} was taken from the values present in the "
                        "data, which discloses which values occur and breaks the assumption that D is public; "
                        "pass --hierarchy NAME=FILE.csv (its leaves are the public domain).")
    private = None if region is None else True  # a pair outside the region was refused above
    report = {
        "parameters": {
            "alpha": a,
            "beta": b,
            "d": d,
            "gamma": gamma,
            "pair": "given" if alpha is not None else "recommended",
        },
        "private": private,
        "domain_size": details["domain_size"],
        "view_size": details["tuples_out"],
        "domain_sizes": details["domain_sizes"],
        "domain_sources": details["domain_sources"],
        "domains": details["domains"],
        "semantics": details["semantics"],
    }
    if region is not None:
        report["theorem_4_3"] = {"min_beta_share": region.min_beta_share, "max_retention": region.max_retention}
    rows = [("α, β", f"{a:.6g}, {b:.6g}" + (" (recommended pair)" if alpha is None else ""))]
    if region is not None:
        rows.append(("(d, γ)-privacy", f"holds for d = {d:g}, γ = {gamma:g} (Theorem 4.3)"))
    else:
        notes.append("no --d/--gamma given: (d, γ)-privacy was not assessed.")
    rows.append(("|D| / |V|", f"{details['domain_size']:,} / {details['tuples_out']:,}"))
    return release, report, rows, notes
