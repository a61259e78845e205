"""Attacks that match targets to released records: linkability and inference (Anonymeter), and
veil's own linkage, homogeneity and distance-based record linkage in the same frame.

Each attack is run on ``n_attacks`` targets drawn from the original and, in the
same way, from the control: the control's success is what any sample of the
population would give away, the original's beyond it is what the release leaks.

* **Linkability**: the attacker holds two tables about the same people with
  disjoint columns ``A`` and ``B``.  A target is linked when the release holds a
  record among the ``n_neighbors`` nearest to its ``A`` part that is also among
  the nearest to its ``B`` part.  Baseline: random records.
* **Inference**: the attacker knows the target's auxiliary columns and guesses
  the secret from the nearest released record.  A categorical guess succeeds
  when it equals (covers) the secret, a ``*`` never does; a numeric guess when
  ``|guess - secret| <= tolerance × |guess|`` (Anonymeter's rule).  Baseline:
  the secret of a random released record.
* **Linkage** (Sweeney 2002): the target's known columns match exactly one
  released record (distance 0).
* **Homogeneity** (Machanavajjhala et al. 2007): every released record that
  matches the target's known columns has the same secret, and it is the target's.
* **Record linkage** (distance-based, as sdcMicro's ``dRisk``): the target's
  nearest released record is strictly nearer than the second nearest, and its
  secret is the target's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veil.evaluate._columns import Tables
from veil.evaluate._neighbors import matches, nearest, nearest_and_ties, patterns
from veil.evaluate._rates import AttackResult, attack_result

__all__ = ["linkability", "inference", "linkage", "homogeneity", "record_linkage"]


def _targets(tables: Tables, side: str, n: int, rng: np.random.Generator) -> np.ndarray:
    size = len(next(iter(getattr(tables, side).values())))
    return rng.choice(size, size=n, replace=False)


def _sides(tables: Tables) -> tuple[str, ...]:
    return ("original", "control") if tables.control is not None else ("original",)


def linkability(tables: Tables, columns_a: Sequence[str], columns_b: Sequence[str], *, n_attacks: int,
                n_neighbors: int, confidence: float, rng: np.random.Generator) -> AttackResult:
    """Anonymeter's linkability attack; the risk against the control."""
    k = min(n_neighbors, tables.n_release)
    counts = {}
    for side in _sides(tables):
        rows = _targets(tables, side, n_attacks, rng)
        near_a = nearest(tables, columns_a, tables.take(side, rows, columns_a), k)
        near_b = nearest(tables, columns_b, tables.take(side, rows, columns_b), k)
        counts[side] = int(_linked(near_a, near_b).sum())
    random_a = rng.integers(0, tables.n_release, (n_attacks, k))
    random_b = rng.integers(0, tables.n_release, (n_attacks, k))
    baseline = int(_linked(random_a, random_b).sum())
    return attack_result(n_attacks, counts["original"], baseline, counts.get("control"), confidence)


def _linked(near_a: np.ndarray, near_b: np.ndarray) -> np.ndarray:
    """Per target: does any of its ``A`` neighbours appear among its ``B`` neighbours?"""
    same = (near_a[:, :, None] == near_b[:, None, :]) & (near_a[:, :, None] >= 0)
    return same.any(axis=(1, 2))


def _guessed(tables: Tables, secret: str, truth: np.ndarray, guess_rows: np.ndarray, tolerance: float) -> np.ndarray:
    """Per target: does the released secret of ``guess_rows`` give away the target's secret ``truth``?"""
    column = tables.columns[secret]
    guesses = tables.release[secret][guess_rows]
    if column.numeric:
        both_missing = np.isnan(truth) & np.isnan(guesses)
        with np.errstate(invalid="ignore"):
            close = np.abs(guesses - truth) <= tolerance * np.abs(guesses)
        return (close & ~np.isnan(guesses)) | both_missing
    hit = column.cover.covers(truth, guesses)[np.arange(len(truth)), np.arange(len(truth))]
    return hit & ~column.cover.covers_all[guesses]


def inference(tables: Tables, aux: Sequence[str], secret: str, *, n_attacks: int, tolerance: float,
              confidence: float, rng: np.random.Generator) -> AttackResult:
    """Anonymeter's inference attack on ``secret`` from ``aux``; the risk against the control."""
    counts = {}
    for side in _sides(tables):
        rows = _targets(tables, side, n_attacks, rng)
        near = nearest(tables, aux, tables.take(side, rows, aux), 1)[:, 0]
        counts[side] = int(_guessed(tables, secret, getattr(tables, side)[secret][rows], near, tolerance).sum())
    baseline = _random_guesses(tables, secret, n_attacks, tolerance, rng)
    return attack_result(n_attacks, counts["original"], baseline, counts.get("control"), confidence)


def _matches(tables: Tables, known: Sequence[str], side: str, rows: np.ndarray, extra: Sequence[str] = ()):
    """The pairs (target, released pattern) at distance 0 over ``known``, the patterns' record counts
    and their codes, over the release's distinct patterns of ``known`` + ``extra``."""
    names = list(known) + [e for e in extra if e not in known]
    codes, pattern_of, _, _ = patterns(tables, names)
    sizes = np.bincount(pattern_of, minlength=len(next(iter(codes.values()))))
    ti, pi = matches(tables, known, tables.take(side, rows, known), codes)
    return ti, pi, sizes, codes


def linkage(tables: Tables, known: Sequence[str], *, n_attacks: int, confidence: float,
            rng: np.random.Generator) -> AttackResult:
    """Sweeney's linkage: a target re-identified when exactly one released record matches it."""
    counts = {}
    for side in _sides(tables):
        rows = _targets(tables, side, n_attacks, rng)
        ti, pi, sizes, _ = _matches(tables, known, side, rows)
        matched = np.bincount(ti, weights=sizes[pi], minlength=n_attacks)
        counts[side] = int((matched == 1).sum())
    return attack_result(n_attacks, counts["original"], _by_chance(tables, n_attacks), counts.get("control"),
                         confidence)


def _by_chance(tables: Tables, n_attacks: int) -> float:
    """The baseline of the linkage attacks: a random released record is the target's, 1 in n."""
    return n_attacks / max(tables.n_release, 1)


def homogeneity(tables: Tables, known: Sequence[str], secret: str, *, n_attacks: int, confidence: float,
                tolerance: float, rng: np.random.Generator) -> AttackResult:
    """The homogeneity attack: every released record matching the target holds one secret, the target's."""
    numeric = tables.columns[secret].numeric
    counts = {}
    for side in _sides(tables):
        rows = _targets(tables, side, n_attacks, rng)
        ti, pi, _, codes = _matches(tables, known, side, rows, extra=[secret])
        held = codes[secret][pi].astype(np.float64)
        if numeric:
            held = np.where(np.isnan(held), -1e308, held)  # a missing secret is a value of its own
        low, high = np.full(n_attacks, np.inf), np.full(n_attacks, -np.inf)
        np.minimum.at(low, ti, held)
        np.maximum.at(high, ti, held)
        one = np.isfinite(low) & (low == high)
        truth = getattr(tables, side)[secret][rows]
        if numeric:
            guess = np.where(low == -1e308, np.nan, low)
            right = (guess == truth) | (np.isnan(guess) & np.isnan(truth))
        else:
            guess = np.where(one, low, 0).astype(np.int64)
            cover = tables.columns[secret].cover
            right = cover.covers(truth, guess)[np.arange(n_attacks), np.arange(n_attacks)] & ~cover.covers_all[guess]
        counts[side] = int((one & right).sum())
    baseline = _random_guesses(tables, secret, n_attacks, tolerance, rng)
    return attack_result(n_attacks, counts["original"], baseline, counts.get("control"), confidence)


def _random_guesses(tables: Tables, secret: str, n_attacks: int, tolerance: float, rng: np.random.Generator) -> int:
    """Successes of guessing a target's secret from a random released record."""
    rows = _targets(tables, "original", n_attacks, rng)
    guesses = rng.integers(0, tables.n_release, n_attacks)
    return int(_guessed(tables, secret, tables.original[secret][rows], guesses, tolerance).sum())


def record_linkage(tables: Tables, known: Sequence[str], secret: str, *, n_attacks: int, confidence: float,
                   tolerance: float, rng: np.random.Generator) -> AttackResult:
    """Distance-based record linkage: a unique nearest released record that holds the target's secret."""
    counts = {}
    for side in _sides(tables):
        rows = _targets(tables, side, n_attacks, rng)
        near, at_best = nearest_and_ties(tables, known, tables.take(side, rows, known), 1)
        near = near[:, 0]
        right = _guessed(tables, secret, getattr(tables, side)[secret][rows], near, tolerance)
        counts[side] = int(((at_best == 1) & right).sum())
    return attack_result(n_attacks, counts["original"], _by_chance(tables, n_attacks), counts.get("control"),
                         confidence)
