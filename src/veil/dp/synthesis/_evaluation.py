"""What a synthetic table protects and what it is worth, measured against records it never saw.

``veil synthesize --holdout SHARE`` withholds records before the synthesis
(:func:`split_holdout`); ``--evaluate`` then measures, with the real records,

* the attacks of :func:`veil.evaluate.evaluate` (singling out, linkability,
  inference), the synthetic table as the release, the training part as the
  original and the withheld records as the control;
* the workload utility of ``--target`` (:func:`synthesis_utility`): each
  classifier of :data:`veil.utility.CLASSIFIERS` trained on the synthetic table
  and tested on the withheld records, beside the same classifier trained on the
  real training records.

The split costs no privacy budget: every record is withheld independently with
probability ``share`` (OS randomness, never ``--seed``), so a record added to
the table changes the training part by at most that record, and the synthesis
of the training part is (ε, δ)-DP with respect to the whole table.  The figures
computed here read the real records: they are the data steward's, outside the
guarantee (see :mod:`veil.dp.synthesis._evaluation_report`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil.data import format_labels
from veil.dp.synthesis._domain import ColumnDomain, numbers
from veil.dp.synthesis._learn import OTHER
from veil.errors import ColumnNotFoundError, ParameterError, VeilError

__all__ = ["SynthesisHoldout", "split_holdout", "published_labels", "synthesis_attacks", "synthesis_utility",
           "evaluate_synthesis", "DP_NOTE"]

#: The plain note every evaluation carries.
DP_NOTE = ("Differential privacy bounds every attacker, whatever they know and however they attack; these attacks "
           "measure some attackers on this one table. A low risk here is evidence, not the guarantee.")
#: The most attack targets per attack (as ``veil anonymize --evaluate``).
MAX_ATTACKS = 500
#: The most candidate predicates the multivariate singling-out attack draws (``veil evaluate``'s 10,000,000
#: would take minutes on a synthetic table of few distinct rows, where unique predicates are rare).
MAX_PREDICATES = 1_000_000
#: The attacks run on a synthetic table (the contract's keys of ``evaluation``).
ATTACKS = ("singling-out", "linkability", "inference")


@dataclass(frozen=True, slots=True)
class SynthesisHoldout:
    """``--holdout SHARE [--holdout-out PATH] [--evaluate] [--target COL]``, checked together.

    ``share`` of the records is withheld before the synthesis; ``path`` (optional) receives them
    (as private as the input); with ``evaluate`` the attacks and, for ``target``, the workload
    utility are measured against them.  Withholding records that are neither written nor used is
    refused, as is a ``target`` without ``evaluate``.
    """

    share: float
    path: str | None = None
    evaluate: bool = False
    target: str | None = None

    def __post_init__(self) -> None:
        share = self.share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.0 < share < 1.0:
            raise ParameterError(f"--holdout must be a share of the records in (0, 1); got {share!r}.")
        if self.path is None and not self.evaluate:
            raise ParameterError("--holdout withholds records from the synthesis: give --holdout-out to keep them "
                                 "as a control set, or --evaluate to measure the release against them.")
        if self.target is not None and not self.evaluate:
            raise ParameterError("--target names the column the workload utility predicts: it needs --evaluate.")


def holdout_options(share: float | None, path: Any, evaluate: bool, target: str | None) -> SynthesisHoldout | None:
    """The CLI's holdout options as one :class:`SynthesisHoldout` (``None`` without ``--holdout``)."""
    if share is None:
        for flag, given in (("--holdout-out", path is not None), ("--evaluate", evaluate),
                            ("--target", target is not None)):
            if given:
                raise ParameterError(f"{flag} needs --holdout SHARE: the records withheld from the synthesis.")
        return None
    return SynthesisHoldout(share, None if path is None else str(path), evaluate, target)


def split_holdout(frame: pd.DataFrame, share: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The records to synthesize from and the withheld ones: each record withheld independently with
    probability ``share`` (OS randomness: no seed can redo the draw, and it spends no budget)."""
    held = np.random.default_rng().random(len(frame)) < share
    if held.all() or not held.any():
        raise ParameterError(f"--holdout {share:g} left one part of the records empty; give a share that keeps "
                             "records on both sides.")
    return frame.iloc[np.flatnonzero(~held)].reset_index(drop=True), frame.iloc[np.flatnonzero(held)].reset_index(
        drop=True)


def label_list(dom: ColumnDomain, synthetic: pd.Series) -> list[str]:
    """Every label the column may publish, in domain order: the user's categories or bins, or the
    categories learned under DP (read back from the synthetic column) and ``(other)``."""
    if not dom.learned:
        return dom.labels
    return [*sorted(set(synthetic.astype(str)) - {OTHER}), OTHER]


def published_labels(column: pd.Series, dom: ColumnDomain, labels: Sequence[str]) -> np.ndarray:
    """Each real value as the synthesis publishes it (``None``: missing, or outside a user domain),
    the per-value map of :func:`veil.dp.synthesis._domain.encode`."""
    present = column.notna().to_numpy()
    if dom.numeric:
        values = numbers(column)
        codes = np.floor((np.clip(values, dom.low, dom.high) - dom.low) / (dom.high - dom.low) * dom.bins)
        ok = np.isfinite(codes)
        out = np.full(len(column), None, dtype=object)
        out[ok] = np.asarray(labels, dtype=object)[np.clip(codes[ok], 0, dom.bins - 1).astype(np.int64)]
        return out
    text = format_labels(column)  # as encode reads them
    known = pd.Index([x for x in labels if x != OTHER or not dom.learned], dtype=object).get_indexer(text) >= 0
    out = np.where(known & present, text.to_numpy(dtype=object), None)
    if dom.learned:  # a learned column writes every other value, missing ones too, as (other)
        out[~known | ~present] = OTHER
    return out


def _hierarchies(frame: pd.DataFrame, domains: Sequence[ColumnDomain], labels: dict[str, list[str]]) -> dict[str, Any]:
    """For each binned or learned column, the map of its real values (as the attacks read them) to their
    published labels, as a three-level hierarchy (value, label, ``*``): the generalized values the
    attacks match exactly."""
    from veil.evaluate._columns import texts
    from veil.hierarchy import Hierarchy

    out = {}
    for dom in domains:
        if not (dom.numeric or dom.learned):
            continue  # a user's categories are published as they are
        leaves = pd.unique(texts(frame[dom.name]))
        published = published_labels(pd.Series(leaves, dtype=object), dom, labels[dom.name])
        published = np.where(pd.isna(published), leaves, published)  # outside the domain: matches no label
        codes, uniques = pd.factorize(pd.Series(published, dtype=object))
        out[dom.name] = Hierarchy([np.asarray(leaves, dtype=object), np.asarray(uniques, dtype=object),
                                   np.array(["*"], dtype=object)],
                                  [np.arange(len(leaves)), codes, np.zeros(len(leaves), dtype=np.int64)],
                                  name=dom.name)
    return out


def synthesis_attacks(train: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame,
                      domains: Sequence[ColumnDomain], *, seed: int | None = None) -> dict[str, Any]:
    """Singling out, linkability and inference (:func:`veil.evaluate.evaluate`) on the synthetic table,
    the training part as the original, the withheld records as the control; real values are matched to
    the published bins and learned categories through :func:`published_labels`."""
    from veil.evaluate import evaluate

    names = [d.name for d in domains]
    labels = {d.name: label_list(d, synthetic[d.name]) for d in domains}
    both = pd.concat([train[names], control[names]], ignore_index=True)
    hierarchies = _hierarchies(both, domains, labels)
    n_attacks = int(min(MAX_ATTACKS, len(control), len(train)))
    out = evaluate(train[names], synthetic[names], control[names], attacks=ATTACKS, n_attacks=n_attacks,
                   hierarchies=hierarchies, levels={name: 1 for name in hierarchies}, seed=seed,
                   max_attempts=MAX_PREDICATES)
    return {key: out.get(key) for key in ("singling_out", "linkability", "inference", "parameters")}


def _codes(frames: Sequence[pd.DataFrame], labels: dict[str, list[str]]) -> list[np.ndarray]:
    """Each frame of labels as integer codes in domain order (-1 where a label is missing)."""
    return [np.column_stack([pd.Categorical(f[name], categories=labels[name]).codes.astype(np.int64)
                             for name in labels]) for f in frames]


def synthesis_utility(synthetic: pd.DataFrame, train: pd.DataFrame, control: pd.DataFrame,
                      domains: Sequence[ColumnDomain], target: str, *, random_state: int = 0) -> dict[str, Any]:
    """Workload utility of the synthetic table for ``target``: per classifier, ``u_san`` trained on the
    synthetic table, ``u_max`` trained on the real training records, ``u_base`` learning nothing but
    the synthetic table's most common target, all tested on the withheld records (published labels;
    records with a value outside the domain left out)."""
    from veil.utility import CLASSIFIERS, ClassifierScores
    from veil.utility._workload import classifier_accuracy

    labels = {d.name: label_list(d, synthetic[d.name]) for d in domains}
    real = [pd.DataFrame({d.name: published_labels(f[d.name], d, labels[d.name]) for d in domains})
            for f in (train, control)]
    syn, tra, ctl = _codes([synthetic.astype(str), *real], labels)
    tra, ctl = tra[(tra >= 0).all(axis=1)], ctl[(ctl >= 0).all(axis=1)]
    t = [d.name for d in domains].index(target)
    features = [j for j in range(syn.shape[1]) if j != t]
    if len(np.unique(syn[:, t])) < 2 or len(ctl) == 0:
        return {"target": target, "classifiers": None,
                "note": "the synthetic table holds one value of the target, or no withheld record fits the domain"}
    scores = {}
    for name in CLASSIFIERS:
        accuracy = {}
        for key, source, cols in (("san", syn, features), ("max", tra, features), ("base", syn, [])):
            stacked = np.vstack([source, ctl])
            rows = np.arange(len(stacked))
            accuracy[key] = classifier_accuracy(name, stacked[:, cols], stacked[:, t], rows[:len(source)],
                                                rows[len(source):], random_state)
        scores[name] = ClassifierScores(accuracy["base"], accuracy["san"], accuracy["max"]).to_dict()
    return {"target": target, "classifiers": scores,
            "records": {"synthetic": len(syn), "train": len(tra), "test": len(ctl)},
            "features": [d.name for j, d in enumerate(domains) if j != t],
            "protocol": "trained on the synthetic table (u_san), on the real training records (u_max) or on the "
                        "target alone (u_base: the synthetic table's most common value); tested on the withheld "
                        "records"}


def check_target(target: str | None, domains: Sequence[ColumnDomain], frame: pd.DataFrame) -> None:
    """Refuse, before the budget is spent, a ``--target`` that is not a synthesized column, is the only one,
    or has more classes than the workload's classifiers handle (:data:`veil.utility.MAX_TARGET_CLASSES`)."""
    from veil.utility import MAX_TARGET_CLASSES

    if target is None:
        return
    names = [d.name for d in domains]
    if target not in names:
        raise ColumnNotFoundError(f"--target {target!r} is not a synthesized column (columns: {', '.join(names)}).")
    if len(names) < 2:
        raise ParameterError(f"--target {target!r} is the only synthesized column: nothing is left to learn from.")
    dom = domains[names.index(target)]
    classes = frame[target].nunique(dropna=True) + 1 if dom.learned else dom.size
    if classes > MAX_TARGET_CLASSES:
        raise ParameterError(f"--target {target!r} has more than {MAX_TARGET_CLASSES} classes, more than workload "
                             "utility handles: predict a coarser column.")


def evaluate_synthesis(train: pd.DataFrame, synthetic: pd.DataFrame, control: pd.DataFrame,
                       domains: Sequence[ColumnDomain], *, target: str | None = None,
                       seed: int | None = None) -> dict[str, Any]:
    """The report's ``evaluation``: ``{"singling_out", "linkability", "inference", "utility", "parameters",
    "notes", "note"}``.  An attack the tables cannot support (e.g. a control too like the training part)
    is ``null`` with the reason in ``notes``, never an error: the budget is already spent."""
    notes: dict[str, str] = {}
    try:
        attacks = synthesis_attacks(train, synthetic, control, domains, seed=seed)
    except VeilError as exc:
        attacks = {"singling_out": None, "linkability": None, "inference": None, "parameters": None}
        notes["attacks"] = str(exc)
    if target is None:
        utility = None
        notes["utility"] = "no --target: the workload utility was not measured"
    else:
        utility = synthesis_utility(synthetic, train, control, domains, target)
    return {**{k: v for k, v in attacks.items() if k != "parameters"}, "utility": utility,
            "parameters": attacks["parameters"], "notes": notes, "note": DP_NOTE}
