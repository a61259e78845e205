"""What a release shows a privacy model: the one definition the search, the verification and ``check`` use.

A model is judged on the classes a reader of the release sees, and on the
sensitive values the release shows:

* **Classes.**  Released records that share their quasi-identifier values are
  one class, whatever made them so: a group of records with ``*`` in every
  quasi-identifier (suppressed records published with ``suppressed: blank`` or
  ``keep``) is a class like any other, and k counts it.
* **Shown values.**  A sensitive cell that reads ``*`` (:data:`WITHHELD`: the
  value of a suppressed record withheld by ``suppressed: blank``) is not a
  value: it adds no diversity and no weight to any distribution.  A missing
  value is a value of its own under ``missing_sensitive: value`` (the
  default) and is not a value under ``missing_sensitive: ignore``
  (:data:`MISSING_SENSITIVE`).
* **Reference distribution.**  The models that compare a class with the whole
  table (t-closeness, δ-disclosure, β-likeness: ``compared_with == "shown"``)
  compare it with the distribution of the values the release shows, over
  every released record (the suppressed group included under ``keep``; under
  ``blank`` and ``drop`` the suppressed records' values are not shown, so they
  are not in it).  Its value domain is the values shown: a value that no
  released record shows is not in it (ordered distances are normalised by the
  number of values shown, less one).
* **A class that shows no value** of a sensitive attribute (every cell
  withheld, or missing under ``ignore``) discloses none of its values: the
  models of that attribute do not judge it (k still does).  The others judge
  a class by the values it shows: a share (α) is of those values.

Every figure follows from the release alone, so ``veil check`` of a release
reports the figures ``veil anonymize`` verified.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from veil.classes import SUPPRESSED, ClassTable, SensitiveHistogram
from veil.dataset import MISSING
from veil.errors import ParameterError

__all__ = ["WITHHELD", "MISSING_SENSITIVE", "SHOWN", "check_missing_sensitive", "shown", "judged", "judged_table",
           "judge_on", "holds", "star_classes", "failing_models", "evaluate_shown", "missing_only_diverse"]

#: A sensitive cell that reads this is a withheld value (``suppressed: blank``), not a value.
WITHHELD = SUPPRESSED

#: How a missing sensitive value counts: as a value of its own, or not at all.
MISSING_SENSITIVE = ("value", "ignore")

#: The ``compared_with`` fact of a model whose reference is the distribution the release shows.
SHOWN = "shown"


def check_missing_sensitive(value: object, owner: str = "missing_sensitive") -> str:
    """``value`` if it is one of :data:`MISSING_SENSITIVE`, else a :class:`ParameterError`."""
    if value not in MISSING_SENSITIVE:
        raise ParameterError(f"{owner} must be 'value' or 'ignore'. Got {value!r} instead.")
    return str(value)


def _shown_histogram(hist: SensitiveHistogram, missing: str, reference: str) -> SensitiveHistogram:
    """``hist`` over the values shown (module docstring); ``reference`` is ``"classes"`` (the
    classes' shown values) or ``"all"`` (``hist.overall``: every record's, suppressed ones too)."""
    labels = np.asarray(hist.labels, dtype=object)
    value = labels != WITHHELD
    if missing == "ignore":
        value &= labels != MISSING
    totals = hist.value_totals()
    if reference == "classes":
        overall = np.asarray(totals[value], dtype=np.int64)
    else:
        overall = np.asarray(hist.overall if value.all() else hist.overall[value], dtype=np.int64)
    present = overall > 0
    if value.all() and present.all() and np.array_equal(overall, hist.overall):
        return hist
    kept = np.flatnonzero(value)[present]
    position = np.full(len(labels), -1, dtype=np.int64)
    position[kept] = np.arange(len(kept))
    # no classes × values matrix: the (class, value) pairs are re-coded (SensitiveHistogram.with_domain)
    return hist.with_domain(hist.labels[kept], position, overall=overall[present])


def class_totals(hist: SensitiveHistogram) -> np.ndarray:
    """Records per class that show a value of ``hist`` (int64), from the pairs that occur."""
    if hist.is_dense:
        return hist.counts.sum(axis=1).astype(np.int64)
    pairs = hist.pairs
    return np.bincount(pairs.classes, weights=pairs.counts, minlength=hist.n_classes).astype(np.int64)


def shown(classes: ClassTable, *, missing: str = "value", reference: str = "classes") -> ClassTable:
    """``classes`` with each sensitive histogram over the values the release shows.

    Parameters
    ----------
    classes : ClassTable
    missing : {"value", "ignore"}
        Whether a missing sensitive value is a value (:data:`MISSING_SENSITIVE`).
    reference : {"classes", "all"}
        The reference distribution: the classes' shown values (a release's class table, or a
        search's node with ``blank`` or ``drop``), or every record's (``keep``: the
        suppressed records show their values too).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"q": ["a", "a", "*"], "s": ["x", "y", "*"]})
    >>> table = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> shown(table).sensitive["s"].labels.tolist()
    ['x', 'y']
    """
    check_missing_sensitive(missing)
    histograms = classes.sensitive
    out = {name: _shown_histogram(hist, missing, reference) for name, hist in histograms.items()}
    if all(out[name] is histograms[name] for name in out):
        return classes
    return _table(classes, out)


def judged(view: ClassTable, name: str) -> np.ndarray:
    """Which classes of ``view`` (a :func:`shown` table) show some value of ``name``: those its models judge."""
    return class_totals(view.sensitive[name]) > 0


def judged_table(view: ClassTable, name: str) -> ClassTable:
    """``view`` with only the classes that show some value of ``name`` (:func:`judged`), each class's
    size the number of values it shows (a share, such as (α,k)'s, is of the values shown)."""
    table = view.suppress(~judged(view, name))
    sizes = class_totals(table.sensitive[name])
    if np.array_equal(sizes, table.counts):
        return table
    return _table(table, table.sensitive, counts=sizes)


def _table(classes: ClassTable, histograms: dict, *, counts: np.ndarray | None = None) -> ClassTable:
    """``classes`` with other sensitive histograms (and class sizes)."""
    return ClassTable(
        quasi_identifiers=classes.quasi_identifiers, hierarchies=classes.hierarchies, levels=classes.levels,
        codes=lambda: classes.codes, counts=classes.counts if counts is None else counts,
        n_records=classes.n_records, suppressed=classes.suppressed, input_suppressed=classes.input_suppressed,
        base=classes.base, sensitive=histograms,
    )


def judge_on(model: object, view: ClassTable, classes: ClassTable | None = None) -> ClassTable:
    """The table ``model`` is judged on: for a model that reads a sensitive attribute, the classes of
    the :func:`shown` table ``view`` that show a value of it; for the others, every class of
    ``classes`` (the table ``view`` was made from; default ``view``)."""
    name = getattr(model, "sensitive", None)
    if getattr(model, "needs_sensitive", False) and isinstance(name, str) and name in view.sensitive:
        return judged_table(view, name)
    table = view if classes is None else classes
    if getattr(model, "needs_population", False):  # suppressed records are not a class of the population
        return table.suppress(star_classes(table))
    return table


def holds(model: object, view: ClassTable, classes: ClassTable | None = None) -> bool:
    """Whether ``model`` holds on ``view`` (a :func:`shown` table of ``classes``): on the table
    :func:`judge_on` gives it, vacuously when that has no class."""
    table = judge_on(model, view, classes)
    if not table.n_classes:  # no class to judge (none released, or none shows a value of the attribute)
        return True
    return bool(model.check(table))  # type: ignore[attr-defined]


def failing_models(models: Iterable[object], classes: ClassTable, *, missing: str = "value") -> list[object]:
    """The models that ``classes`` (every released record in a class) fails, judged as the release shows."""
    view = shown(classes, missing=missing)
    return [m for m in models if not holds(m, view, classes)]


def star_classes(classes: ClassTable) -> np.ndarray:
    """Which classes read ``*`` in every quasi-identifier (suppressed records, or a class generalized
    to ``*`` everywhere: a reader of the release cannot tell them apart)."""
    star = np.ones(classes.n_classes, dtype=np.bool_)
    for i, (h, level) in enumerate(zip(classes.hierarchies, classes.levels)):
        star &= (np.asarray(h.labels[level], dtype=object) == SUPPRESSED)[classes.codes[:, i]]
    return star


def evaluate_shown(classes: ClassTable, *, missing: str = "value", sensitive: Sequence[str] | None = None,
                   recursive_l: int = 2, strict: bool = True):
    """:func:`~veil.models.evaluate` of ``classes`` as the release shows them: k and the risks on every
    class, each sensitive attribute's levels on its judged classes against the shown distribution."""
    from veil.models._report import evaluate

    view = shown(classes, missing=missing)
    names = list(view.sensitive) if sensitive is None else list(sensitive)
    report = evaluate(view, sensitive=[], recursive_l=recursive_l, strict=strict)
    levels = {}
    for name in names:
        table = judged_table(view, name)
        level = evaluate(table, sensitive=[name], recursive_l=recursive_l, strict=strict).sensitive[name]
        if view.n_classes and not table.n_classes:
            level = replace(level, notes=level.notes + (
                f"no class shows a value of {name!r} (every value withheld or missing): its models hold vacuously, "
                "its levels are reported as 0",))
        levels[name] = level
    stars = int(classes.counts[star_classes(classes)].sum()) if classes.n_classes else 0
    if not stars:
        return replace(report, sensitive=levels)
    note = (f"{stars} record(s) read '*' in every quasi-identifier (suppressed): they are one class of the table, "
            "which k counts; a sensitive value '*' is withheld, not a value")
    return replace(report, sensitive=levels, suppressed_records=report.suppressed_records + stars,
                   input_suppressed=report.input_suppressed + stars, notes=report.notes + (note,))


def missing_only_diverse(classes: ClassTable, models: Sequence[object], *, missing: str = "value") -> list[str]:
    """Warnings for the classes that meet an l-diversity model only because a missing value counts
    as a value (``missing_sensitive: value``): they hold fewer than ``l`` distinct values besides
    the missing one.  Counts only, no value."""
    if missing != "value":
        return []
    view = shown(classes, missing="value")
    warnings = []
    for model in models:
        name, l = getattr(model, "sensitive", None), getattr(model, "l", None)
        if not isinstance(name, str) or name not in view.sensitive or not isinstance(l, (int, float)):
            continue
        hist = view.sensitive[name]
        is_missing = np.asarray(hist.labels, dtype=object) == MISSING
        if not is_missing.any():
            continue
        missing_held = (hist.columns(np.flatnonzero(is_missing)) > 0).sum(axis=1)
        besides = hist.distinct() - missing_held
        flagged = int(((besides < l) & (besides + missing_held >= l)).sum())
        if flagged:
            warnings.append(
                f"Column {name!r}: {flagged} class(es) meet {model.name} only because a missing value counts as a "  # type: ignore[attr-defined]
                f"value (missing_sensitive: value); they hold fewer than {l:g} distinct values besides it. Use "
                "missing_sensitive: ignore (--missing-sensitive ignore) to count only values that are present."
            )
    return warnings
