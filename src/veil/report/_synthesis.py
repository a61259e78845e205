"""The HTML page of ``veil synthesize --html``: what the synthetic table costs and what it protects.

One self-contained page (inline CSS, no script, no image, no external file)
built from the same JSON report the machines read (``--json``), so the two
never disagree: the guarantee in words with ε, δ and ρ, where each column's
domain came from, the marginal errors, the evaluation against withheld
records, the ledger, and the note that differential privacy bounds every
attacker while the attacks measure some.  Every figure the report marks as
computed from the real records (``outside_dp``) is shown under a warning that
it is the data steward's and not covered by the guarantee; a public report
(``--public-report``) has none.  The page quotes no record value: the report
holds column names, figures and counts only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from veil.report._evaluation import evaluation_rows
from veil.report._format import as_dict, format_value, percent

__all__ = ["render_synthesis_html"]

_SOURCES = {"user": "given by the user (--domain or --bins)",
            "dp": "learned under differential privacy (part of the budget)"}
_WAYS = (("1way", "1-way marginals"), ("2way", "2-way marginals"), ("3way", "3-way marginals"))


def _guarantee(report: Mapping[str, Any]) -> str:
    eps, dlt = format_value(report.get("epsilon")), format_value(report.get("delta"))
    return (f"For any two tables that differ in one person's record, every output of this synthesis (the synthetic "
            f"rows and every figure of this page not marked as computed from the real records) is at most e^{eps} "
            f"times as likely from one table as from the other, except with probability {dlt}. Whatever is "
            "computed from the synthetic table afterwards keeps that guarantee.")


def _privacy_rows(report: Mapping[str, Any]) -> list[dict[str, str]]:
    noise = as_dict(report.get("noise"))
    return [{"label": label, "value": format_value(value), "note": note} for label, value, note in (
        ("algorithm", str(report.get("algorithm", "")).upper(), ""),
        ("ε (epsilon)", report.get("epsilon"), "as OpenDP's conversion certifies it for ρ"),
        ("δ (delta)", report.get("delta"), ""),
        ("ρ (zero-concentrated DP)", report.get("rho"), "the budget the noise was calibrated to"),
        ("synthetic rows", report.get("rows"), "a noisy estimate of the number of records"),
        ("σ of the 1-way marginals", noise.get("sigma_1way"), "per cell"),
        ("σ of the 2-way marginals", noise.get("sigma_2way"), "per cell"),
    ) if value is not None and value != ""]


def _error_rows(report: Mapping[str, Any]) -> list[dict[str, str]]:
    errors = as_dict(report.get("marginal_error"))
    rows = [{"label": label, "value": format_value(errors.get(key))} for key, label in _WAYS if key in errors]
    if report.get("workload_error") is not None:
        rows.append({"label": "workload error", "value": format_value(report.get("workload_error"))})
    return rows


def _attack_rows(evaluation: Mapping[str, Any]) -> list[dict[str, str]]:
    rows = []
    for name, r in evaluation_rows(evaluation):
        ci = r.get("ci") or [None, None]
        rows.append({"name": name, "risk": percent(r.get("risk")), "ci": f"{percent(ci[0])} – {percent(ci[1])}",
                     "main": percent(r.get("main")), "control": percent(r.get("control")),
                     "baseline": percent(r.get("baseline")), "n": format_value(r.get("n_attacks")),
                     "note": "" if r.get("meaningful", True) else "no better than random guessing: says nothing"})
    return rows


def _utility(evaluation: Mapping[str, Any]) -> dict[str, Any] | None:
    utility = as_dict(evaluation.get("utility"))
    if not utility:
        return None
    rows = [{"name": name, **{k: percent(as_dict(s).get(k)) for k in ("u_san", "u_max", "u_base")}}
            for name, s in as_dict(utility.get("classifiers")).items()]
    return {"target": format_value(utility.get("target")), "rows": rows, "note": format_value(utility.get("note"))
            if utility.get("note") else "", "records": as_dict(utility.get("records"))}


def _ledger_rows(ledger: Mapping[str, Any]) -> list[dict[str, str]]:
    rows = [{"label": "dataset", "value": format_value(ledger.get("dataset"))},
            {"label": "composition", "value": format_value(ledger.get("composition"))}]
    for key in ("budget", "spent", "remaining"):
        part = as_dict(ledger.get(key))
        rows.append({"label": key, "value": f"ε = {format_value(part.get('epsilon'))}, "
                                           f"δ = {format_value(part.get('delta'))}"})
    rows.append({"label": "charges on the ledger", "value": format_value(ledger.get("spends"))})
    return rows


def _view(report: Mapping[str, Any]) -> dict[str, Any]:
    import veil

    evaluation = as_dict(report.get("evaluation"))
    holdout = as_dict(report.get("holdout"))
    notes = {str(k): format_value(v) for k, v in as_dict(report.get("notes")).items()}
    notes.update({f"evaluation › {k}": format_value(v) for k, v in as_dict(evaluation.get("notes")).items()})
    return {
        "version": veil.__version__, "public": bool(report.get("public_report")),
        "outside": [str(k) for k in report.get("outside_dp") or []],
        "guarantee": _guarantee(report), "privacy": _privacy_rows(report),
        "domains": [{"column": str(c), "source": _SOURCES.get(str(s), format_value(s))}
                    for c, s in as_dict(report.get("domain_source")).items()],
        "errors": _error_rows(report), "errors_real": "marginal_error" in (report.get("outside_dp") or []),
        "evaluation": bool(evaluation), "attacks": _attack_rows(evaluation), "utility": _utility(evaluation),
        "holdout": {"share": percent(holdout.get("share")), "records": format_value(holdout.get("records"))}
        if holdout else None,
        "dp_note": evaluation.get("note") or ("Differential privacy bounds every attacker, whatever they know; "
                                              "an attack evaluation would measure some attackers only."),
        "ledger": _ledger_rows(as_dict(report.get("ledger"))) if report.get("ledger") else [],
        "notes": notes, "raw": json.dumps(report, indent=2, allow_nan=False, default=str),
    }


def render_synthesis_html(report: Mapping[str, Any]) -> str:
    """The synthesis report (the ``--json`` of ``veil synthesize``) as one self-contained HTML page.

    Examples
    --------
    >>> page = render_synthesis_html({"algorithm": "mst", "epsilon": 1.0, "delta": 1e-9, "rho": 0.015,
    ...     "rows": 100, "domain_source": {"sex": "user"}, "marginal_error": {"1way": None},
    ...     "ledger": None, "evaluation": None, "public_report": True, "outside_dp": []})
    >>> "public report" in page and "e^1 times" in page
    True
    """
    from veil.report._html import environment

    return environment().get_template("synthesis.html.j2").render(view=_view(report))
