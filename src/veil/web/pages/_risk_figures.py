"""The figures of the Risk page: ``veil risk``'s report, computed by the library calls the command
makes (:mod:`veil.cli.cmd_risk`, :mod:`veil.cli._risk_sdc`), and its pictures drawn by the HTML
report's plot helpers (:mod:`veil.report._plots`).

The report is the ``veil risk --json`` object: :func:`veil.risk.assess` on the class table, the
``individual_risk`` (and ``household_risk``) of :func:`veil.risk.individual_risk`, and with SUDA
the ``suda2`` object of :func:`veil.risk.suda2`.  Nothing here quotes a value of the table: the
pictures show class sizes, risks and column names only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from veil.errors import ParameterError

__all__ = ["RiskAsk", "risk_report", "risk_pictures", "qi_subset_size"]

#: ``veil risk``'s default QI ranking: every subset up to this many QIs, else subsets of 3.
ALL_SUBSETS_UP_TO = 10
LARGE_DEFAULT_SIZE = 3


@dataclass(frozen=True)
class RiskAsk:
    """What the steward asked: ``veil risk``'s options of the same names."""

    qis: tuple[str, ...]
    sensitive: tuple[str, ...] = ()
    threshold: float = 0.2
    population_fraction: float | None = None
    weight: str | None = None
    household: str | None = None
    risk_method: str = "approx"
    suda: bool = False
    suda_max_size: int | None = None
    dis_fraction: float = 0.01

    def check(self) -> None:
        """Refuse, before the job starts, what ``veil risk`` refuses before reading (its messages)."""
        if self.suda_max_size is not None and not 1 <= self.suda_max_size <= len(self.qis):
            raise ParameterError(f"--suda-max-size must be between 1 and {len(self.qis)} (the number of --qi "
                                 f"columns). Got {self.suda_max_size} instead.")
        if not 0.0 < self.dis_fraction <= 1.0:
            raise ParameterError(f"--dis-fraction must be in (0, 1]. Got {self.dis_fraction} instead.")

    def as_json(self) -> dict[str, Any]:
        return {"qi": list(self.qis), "sensitive": list(self.sensitive), "threshold": self.threshold,
                "population_fraction": self.population_fraction, "weight": self.weight,
                "household": self.household, "risk_method": self.risk_method, "suda": self.suda,
                "suda_max_size": self.suda_max_size, "dis_fraction": self.dis_fraction}


def qi_subset_size(n_qis: int) -> int:
    """``veil risk``'s default ``--max-qi-size``: all subsets up to 10 QIs, else subsets of at most 3."""
    return n_qis if n_qis <= ALL_SUBSETS_UP_TO else LARGE_DEFAULT_SIZE


def risk_report(path: Path, sep: str | None, ask: RiskAsk,
                progress: Callable[[str, Any, Any], None] | None = None) -> tuple[dict[str, Any], Any]:
    """The ``veil risk --json`` report of the table at ``path`` and its class sizes, as the command
    computes them (``--engine local``)."""
    from veil.classes import ClassTable
    from veil.dataset import Dataset
    from veil.risk import assess, individual_risk, suda2

    if not ask.qis:
        raise ParameterError("choose at least one quasi-identifier (--qi).")
    step = progress or (lambda phase, done=None, total=None: None)
    step("read")
    dataset = Dataset.read(path, sep=sep, quasi_identifiers=list(ask.qis), sensitive=list(ask.sensitive))
    step("classes")
    classes = ClassTable.from_dataset(dataset)
    step("assess")
    report = assess(classes, population_fraction=ask.population_fraction, threshold=ask.threshold,
                    qi_subsets_max_size=qi_subset_size(len(ask.qis)), sensitive=list(ask.sensitive))
    step("individual risk")
    individual = individual_risk(dataset, weight=ask.weight, household=ask.household, method=ask.risk_method)
    payload: dict[str, Any] = {**report.to_dict(), "individual_risk": individual.to_dict()}
    if individual.household_risk is not None:
        payload["household_risk"] = individual.household_dict()
    if ask.suda:
        found = suda2(classes, max_size=ask.suda_max_size, dis_fraction=ask.dis_fraction,
                      progress=lambda done, total: step("suda2", done, total))
        payload["suda2"] = found.to_dict()
    return payload, classes


def risk_pictures(report: dict[str, Any], class_sizes: Any) -> dict[str, str | None]:
    """PNG data URIs: the risk bars, the class-size histogram, the individual-risk histogram and
    SUDA2's attribute contributions (None where the report has no such part)."""
    import numpy as np

    from veil.report._plots import band_chart, class_size_chart

    individual = report["individual_risk"]["histogram"]
    edges = individual["edges"]
    bins = [f"{a:g}–{b:g}" for a, b in zip(edges, edges[1:])]
    pictures: dict[str, str | None] = {
        "class_sizes": class_size_chart(np.asarray(class_sizes), None),
        "individual": band_chart(bins, [("records", individual["counts"])], ylabel="records",
                                 title="individual risk of each record"),
        "suda": None,
    }
    suda = report.get("suda2")
    if suda is not None and suda["attribute_contribution"]:
        names = sorted(suda["attribute_contribution"], key=lambda n: -suda["attribute_contribution"][n])
        pictures["suda"] = band_chart(names, [("contribution", [suda["attribute_contribution"][n] for n in names])],
                                      ylabel="% of the SUDA score", title="attribute contributions (SUDA2)")
    return pictures
