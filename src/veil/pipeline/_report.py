"""The JSON report of a release: every figure in it is checked against the written file.

The keys are a stable contract (``docs/anonymization.md``).  Nothing secret
goes in: no seed unless one was asked for (then with :data:`SEED_WARNING`),
no key, no record value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from veil.pipeline._policy import unlisted_warnings
from veil.pipeline._suppressed import star_valued

__all__ = ["release_report", "lattice_section", "SEED_WARNING"]

#: Utility metrics that need no hierarchy (computed on the released classes of
#: a local recoding); the full-domain metrics need one level per attribute.
_RECODING_METRICS = ("discernibility", "avg-class-size", "classification")
#: Utility figures local-recoding algorithms compute themselves: report name ->
#: key of ``Recoding.details`` (Mondrian's NCP, MDAV's SSE/SST).
_RECODING_FIGURES = {"ncp": "ncp", "sse_sst": "information_loss"}

#: The warning a reproducible (seeded) row order carries in the summary and the report.
SEED_WARNING = (
    "The row order was drawn from the seed given; anyone who knows the seed can undo the shuffle "
    "and link released rows to input rows. Publish such a release only if the seed stays secret."
)


def release_report(dataset, models, problem, outcome, verified, data, star, mode, columns, *, weights, shuffle, seed,
                   missing_sensitive="value"):
    """The JSON report; every figure in it is checked against the written file."""
    from veil.models._shown import evaluate_shown, missing_only_diverse
    from veil.risk import assess

    suppressed = int(star.sum())
    order: dict[str, Any] = {"shuffled": bool(shuffle), "reproducible": seed is not None}
    warnings = []
    if shuffle and seed is not None:
        order["seed"] = int(seed)
        warnings.append(SEED_WARNING)
    if not shuffle:
        warnings.append("The rows are in input order; the order can link released rows to input rows.")
    if mode == "blank" and suppressed:
        warnings += [f"Column {name!r} has the value '*', which is also how a suppressed record's value is written "
                     "(suppressed: blank): a reader of the file cannot tell the two apart; recode that value, or use "
                     "suppressed: drop." for name in star_valued(problem.base)]
    warnings += unlisted_warnings(columns)
    warnings += missing_only_diverse(verified, models, missing=missing_sensitive)
    report = {
        "transformation": dict(outcome.transformation),
        "records": dataset.n_records,
        "records_out": len(data),
        "suppressed": suppressed,
        "suppressed_dropped": dataset.n_records - len(data),
        "input_suppressed": int(problem.base.input_suppressed),
        "suppressed_records": mode,
        "missing_sensitive": missing_sensitive,
        "suppression_limit": problem.suppression_limit,
        "classes_released": int(verified.n_classes),
        "models": [m.name for m in models],
        "metric": problem.metric,
        "achieved": evaluate_shown(verified, missing=missing_sensitive).to_dict(),
        "utility": _utility(problem, outcome, verified, weights, _kept_classes(problem, outcome, star)),
        "risk_before": _risk_before(problem, outcome, star),
        "risk_after": assess(verified, qi_subsets_max_size=0).to_dict(),
        "search": {
            "algorithm": outcome.algorithm,
            "nodes_total": outcome.nodes_total,
            "nodes_checked": outcome.nodes_checked,
            "nodes_refuted": None if outcome.search is None else outcome.search.extra.get("nodes_refuted"),
            "seconds": round(outcome.seconds, 6),
        },
        "lattice": lattice_section(outcome.algorithm, outcome.search, dataset.quasi_identifiers,
                                   transformation=outcome.transformation, nodes_total=outcome.nodes_total),
        "columns": [c.to_dict() for c in columns],
        "output_order": order,
        "warnings": warnings,
        "verified": True,
        "seconds_total": 0.0,
    }
    if outcome.recoding is not None:
        report["recoding"] = {
            "algorithm": outcome.recoding.algorithm,
            "groups": int(outcome.recoding.groups),
            "details": _public_details(outcome.recoding.algorithm, outcome.recoding.details),
        }
        _blank_rule(report, outcome.recoding.details)
    return _with_ledger(report, outcome)


def _with_ledger(report: dict[str, Any], outcome: Any) -> dict[str, Any]:
    """A release charged to a privacy budget (safepub) reports the ledger's spend at the top level."""
    details = outcome.recoding.details if outcome.recoding is not None else {}
    if "ledger" in details:
        report["ledger"] = details["ledger"]
    return report


def _blank_rule(report: dict[str, Any], details: Mapping[str, Any]) -> None:
    """Local suppression: k is what the release meets when a blanked cell matches any value (the rule it
    is verified under); the class counts and risks beside it read '*' as one more value, which
    overstates the risk, and the report says so."""
    if "missing_rule" not in details or "k_achieved" not in details:
        return
    report["achieved"]["k"] = int(details["k_achieved"])
    report["achieved"]["k_rule"] = str(details["missing_rule"])
    report["warnings"].append("classes_released and risk_after count a blanked cell ('*') as a value of its own; "
                              "under the release's rule a blank matches any value, so each record matches at least "
                              f"{int(details['k_achieved']):,} records and the risks shown are upper bounds.")


def _risk_before(problem: Any, outcome: Any, star: Any) -> dict[str, Any] | None:
    """The input's risk on the records the release keeps (the suppressed ones counted, never described:
    ``veil.report._truth.released_input``); ``None`` when they cannot be told apart."""
    from veil.report._truth import released_input
    from veil.risk import assess

    chosen = outcome.search.classes if outcome.search is not None else None
    before = released_input(chosen, problem.base, star if len(star) else None)
    return None if before is None else assess(before, qi_subsets_max_size=0).to_dict()


def lattice_section(algorithm: str, search: Any, quasi_identifiers: Any, *, transformation: Any = None,
                    nodes_total: int | None = None) -> dict[str, Any]:
    """The report's ``lattice`` block: what the full-domain search saw, per height, and the node it chose.

    Parameters
    ----------
    algorithm : str
        The algorithm that ran (``lattice``, ``datafly``, ``mondrian``, ...).
    search : SearchResult or None
        The full-domain search's result; ``None`` for a local recoding.
    quasi_identifiers : sequence of str
        The QIs, in the order of the search's node.
    transformation, nodes_total : mapping of str to int, int, optional
        Without a search: the level per QI and the lattice's size of a
        full-domain recoding chosen otherwise (SafePub's exponential
        mechanism), reported as ``chosen`` and ``nodes_total``.

    Returns
    -------
    dict
        ``algorithm``; ``nodes_total``; ``chosen`` (``levels`` per QI and
        ``height``, the level sum); ``heights``: one entry per height with the
        nodes ``satisfying`` / ``failing`` (judged by the search) and
        ``not_evaluated`` (tagged by a monotone model or pruned by the loss
        bound), summing to ``nodes_total``; ``path``: Datafly's nodes in the
        order it visited them.  What an algorithm has not got is ``None``: a
        local recoding (Mondrian, TDS, MDAV) has no lattice, Datafly no
        ``heights``, the lattice search no ``path``.  Never a per-node list
        of the lattice: ``heights`` has one entry per level sum.
    """
    section: dict[str, Any] = {"algorithm": algorithm, "nodes_total": None, "chosen": None, "heights": None,
                               "path": None}
    names = [str(q) for q in quasi_identifiers]
    if search is None and transformation and nodes_total is not None:  # SafePub: one level per QI, no record
        levels = [int(transformation[q]) for q in names]
        section["nodes_total"] = int(nodes_total)
        section["chosen"] = {"levels": dict(zip(names, levels)), "height": sum(levels)}
    if search is None:
        return section

    def levels(node: Any) -> dict[str, Any]:
        return {"levels": dict(zip(names, (int(x) for x in node))), "height": int(sum(int(x) for x in node))}

    section["nodes_total"] = int(search.nodes_total)
    section["chosen"] = levels(search.node)
    record = search.extra.get("lattice")
    if record is not None:
        keys = ("satisfying", "failing", "not_evaluated")
        section["heights"] = [{"height": h, **{key: record[key][i] for key in keys}}
                              for i, h in enumerate(record["heights"])]
    path = search.extra.get("path")
    if path is not None:  # Datafly: every node but the last failed
        section["path"] = [{**levels(node), "satisfying": i == len(path) - 1} for i, node in enumerate(path)]
    return section


def _public_details(algorithm: str, details: Mapping[str, Any]) -> dict[str, Any]:
    """An algorithm's facts without the ledger (reported at the top level) and without a seed (no secret
    in any output), unless the algorithm's seed only breaks ties (its registry fact ``public_seed``:
    Mondrian's, which the report then shows as given)."""
    from veil.algorithms import ALGORITHMS

    spec = ALGORITHMS.get(algorithm)
    hidden = ("ledger",) if spec is not None and spec.public_seed else ("seed", "ledger")
    return {key: value for key, value in details.items() if key not in hidden}


#: Utility metrics that read the suppressed records' values (their surprise, their labels): with
#: suppression the report takes them on the records the release keeps (see docs/reports.md).
_VALUE_METRICS = ("entropy", "kl", "infogain")


def _kept_classes(problem, outcome, star) -> Any:
    """The chosen node's table of the records the release keeps (``veil.report._truth.kept_classes``)."""
    from veil.report._truth import kept_classes

    if outcome.search is None:
        return None
    return kept_classes(outcome.search.classes, problem.base, label=problem.label,
                        suppressed_rows=star if len(star) else None)


def _utility(problem, outcome, verified, weights, kept=None) -> dict[str, Any]:
    from veil.utility import METRICS, utility_report

    label, k = problem.label, problem.k
    if outcome.search is not None:
        figures = utility_report(outcome.search.classes, original=problem.base, label=label, weights=weights, k=k)
        for name in _VALUE_METRICS if kept is not None else ():  # no figure may tell the suppressed values
            if figures.get(name) is not None:
                figures[name] = METRICS[name].value(kept, label=label, weights=weights, k=k, original=None)
        return figures
    utility: dict[str, Any] = {name: None for name in METRICS}
    for name in _RECODING_METRICS:
        spec = METRICS[name]
        if (spec.needs_label and label is None) or (spec.needs_k and k is None):
            continue
        utility[name] = spec.value(verified, label=label, weights=weights, k=k, original=None)
    details = outcome.recoding.details if outcome.recoding is not None else {}
    for name, key in _RECODING_FIGURES.items():  # the algorithm's own utility figure
        if key in details:
            utility[name] = float(details[key])
    return utility
