"""Which figures of a synthesis report read the real data, and the public report that leaves them out.

Everything veil writes is assumed public, but a synthesis report also serves
the data steward, who needs to know what the release cost in accuracy and what
it protects.  Those figures are computed from the real records after the
synthesis (exact marginals, attacks and classifiers against withheld records):
they are *not* covered by the differential-privacy guarantee.  So each report
says which of its keys are such figures (``outside_dp``), and
``--public-report`` (:func:`finish_report` with ``public=True``) leaves every
one of them out: what remains (the synthetic table, ε, δ, ρ, the noisy row
count, the domains' sources, the privately selected marginals, the noise scales
and the ledger) is a function of the DP release and of public parameters only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veil.errors import ParameterError

__all__ = ["REAL_DATA_KEYS", "PUBLIC_NOTE", "ReportOptions", "finish_report", "outside_dp", "public_report",
           "synthesis_report"]

#: The report's keys whose figures are computed from the real records, outside the guarantee.
REAL_DATA_KEYS = ("marginal_error", "workload_error", "evaluation", "holdout")
#: Why a figure is absent from a public report.
PUBLIC_NOTE = "left out of the public report (--public-report): computed from the real records, not covered by DP"


def _present(key: str, value: Any) -> bool:
    """A figure is there: not ``None``; for ``marginal_error`` not only ``None`` per order; for
    ``holdout`` its ``records`` (the ``share`` is the user's)."""
    if key == "holdout" and isinstance(value, dict):
        return value.get("records") is not None
    if isinstance(value, dict):
        return any(v is not None for v in value.values())
    return value is not None


def _fingerprinted(report: dict[str, Any]) -> bool:
    """Whether the ledger's dataset key is a hash of the records (not a name the curator declared)."""
    ledger = report.get("ledger")
    return isinstance(ledger, dict) and str(ledger.get("dataset", "")).startswith("sha256:")


def outside_dp(report: dict[str, Any]) -> list[str]:
    """The keys of ``report`` holding figures computed from the real records (``ledger.dataset`` when it
    is the records' fingerprint: an exact function of the data, whatever its use as a key)."""
    keys = [k for k in REAL_DATA_KEYS if _present(k, report.get(k))]
    return [*keys, "ledger.dataset"] if _fingerprinted(report) else keys


def public_report(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with every figure computed from the real records replaced by ``null`` (the shape kept:
    ``marginal_error`` keeps its keys; ``holdout`` keeps its ``share``), each named in ``notes``."""
    out = dict(report)
    notes = dict(out.get("notes") or {})
    for key in outside_dp(report):
        notes[key] = PUBLIC_NOTE
        if key == "marginal_error":
            out[key] = {way: None for way in report[key]}
        elif key == "holdout":
            out[key] = {"share": report[key].get("share"), "records": None}
        elif key == "ledger.dataset":
            out["ledger"] = {**report["ledger"], "dataset": None}
        else:
            out[key] = None
    out.update(notes=notes, outside_dp=[], public_report=True)
    return out


def _evaluation_note(holdout: Any) -> str:
    if holdout is None:
        return ("no --holdout: no record was withheld to measure the release against "
                "(give --holdout SHARE --evaluate)")
    return "--holdout without --evaluate: the withheld records were written, not measured against"


def finish_report(report: dict[str, Any], *, holdout: Any = None, control_records: int | None = None,
                  evaluation: dict[str, Any] | None = None, public: bool = False) -> dict[str, Any]:
    """The report of ``veil synthesize``: the synthesis's own, with ``holdout`` (``{"share", "records"}``),
    ``evaluation`` (or ``null`` with its reason in ``notes``), ``outside_dp`` and ``public_report``;
    with ``public``, :func:`public_report` of it."""
    out = dict(report)
    notes = dict(out.get("notes") or {})
    if holdout is not None:
        out["holdout"] = {"share": holdout.share, "records": control_records}
    out["evaluation"] = evaluation
    if evaluation is None:
        notes["evaluation"] = _evaluation_note(holdout)
    out["notes"] = notes
    out["outside_dp"] = outside_dp(out)
    out["public_report"] = False
    return public_report(out) if public else out


def synthesis_report(result: Any, *, train: Any, control: Any = None, holdout: Any = None,
                     domains: Any = (), public: bool = False) -> dict[str, Any]:
    """The report of a synthesis of ``train`` (``result``), with the evaluation against ``control`` when
    ``holdout.evaluate`` (:func:`veil.dp.synthesis._evaluation.evaluate_synthesis`), finished by
    :func:`finish_report`."""
    evaluation = None
    if holdout is not None and holdout.evaluate and not public:
        from veil.dp.synthesis._evaluation import evaluate_synthesis

        evaluation = evaluate_synthesis(train, result.frame, control, domains, target=holdout.target)
    return finish_report(result.report, holdout=holdout, control_records=None if control is None else len(control),
                         evaluation=evaluation, public=public)


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What ``veil synthesize`` writes beside the table and the JSON: ``--html``, the withheld records
    (``--holdout``, :class:`veil.dp.synthesis._evaluation.SynthesisHoldout`) and ``--public-report``."""

    html: Path | None = None
    holdout: Any = None
    public: bool = False

    @classmethod
    def from_cli(cls, html: Path | None, share: float | None, path: Path | None, evaluate: bool,
                 target: str | None, public: bool) -> "ReportOptions":
        """The options checked together (before any file is read)."""
        from veil.dp.synthesis._evaluation import holdout_options

        if public and evaluate:
            raise ParameterError("--evaluate measures the release with the real records and --public-report leaves "
                                 "every such figure out: give one of them.")
        return cls(html, holdout_options(share, path, evaluate, target), public)

    @property
    def destinations(self) -> dict[str, Path | None]:
        """The extra outputs, for :class:`veil.pipeline.Outputs` (published with the table, or none)."""
        path = None if self.holdout is None or self.holdout.path is None else Path(self.holdout.path)
        return {"html": self.html, "control": path}

    def split(self, frame: Any, domains: Any) -> tuple[Any, Any]:
        """The records to synthesize and the withheld ones (``None`` without ``--holdout``); the target
        checked first."""
        from veil.dp.synthesis._evaluation import check_target, split_holdout

        if self.holdout is None:
            return frame, None
        check_target(self.holdout.target, domains, frame)
        return split_holdout(frame, self.holdout.share)

    def report(self, result: Any, *, train: Any, control: Any, domains: Any) -> dict[str, Any]:
        return synthesis_report(result, train=train, control=control, holdout=self.holdout, domains=domains,
                                public=self.public)

    def write(self, out: Any, report: dict[str, Any], control: Any) -> None:
        """Write the withheld records and the HTML page into ``out`` (committed with the rest)."""
        if "control" in out:
            from veil.release import table_writer

            out.write("control", table_writer(control))
        if "html" in out:
            from veil.report._synthesis import render_synthesis_html

            out.write_text("html", render_synthesis_html(report))
