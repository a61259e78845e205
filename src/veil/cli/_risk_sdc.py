"""``veil risk``'s statistical-disclosure-control figures: individual risk (weights, households) and SUDA2."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import typer
from rich.table import Table

from veil.cli._app import console, esc

__all__ = ["SdcOptions", "SdcFigures", "sdc_figures", "print_sdc", "sdc_option"]

#: ``veil risk``'s SDC options: parameter -> (default, flag, help).
_OPTIONS: dict[str, tuple[Any, str, str]] = {
    "weight": (None, "--weight", "Sampling-weight column (numbers >= 1) for the individual risk; without it "
               "every weight is 1."),
    "household": (None, "--household", "Household id column: adds the household risk."),
    "risk_method": ("approx", "--risk-method", "Individual risk of classes of more than 2 records: approx "
                    "(sdcMicro's default) or exact."),
    "per_record": (None, "--per-record", "Write one line per record (row, fk, Fk, risk; with --suda also "
                   "suda_score, dis_suda) to this CSV file."),
    "suda": (False, "--suda", "Add SUDA2: minimal sample uniques, SUDA and DIS-SUDA scores."),
    "suda_max_size": (None, "--suda-max-size", "Largest MSU SUDA2 searches (default: all QIs); implies --suda."),
    "dis_fraction": (0.01, "--dis-fraction", "Sampling fraction of the DIS-SUDA score (sdcMicro's DisFraction, "
                     "default 0.01)."),
}


def sdc_option(name: str) -> Any:
    """The Typer option of ``veil risk``'s parameter ``name``."""
    default, flag, text = _OPTIONS[name]
    return typer.Option(default, flag, help=text)


@dataclass(frozen=True)
class SdcOptions:
    """The options of ``veil risk`` this module serves."""

    weight: str | None
    household: str | None
    method: str
    suda: bool
    suda_max_size: int | None
    dis_fraction: float

    def check(self, qis: list[str], engine: str, per_record: Path | None) -> None:
        """Refuse, before any work, what cannot run (a bad option, or one that needs the rows in memory)."""
        from veil.errors import ParameterError

        if self.method not in ("approx", "exact"):
            raise ParameterError(f"--risk-method must be approx or exact. Got {self.method!r} instead.")
        if self.suda_max_size is not None and not 1 <= self.suda_max_size <= len(qis):
            raise ParameterError(f"--suda-max-size must be between 1 and {len(qis)} (the number of --qi columns). "
                                 f"Got {self.suda_max_size} instead.")
        if not 0.0 < self.dis_fraction <= 1.0:
            raise ParameterError(f"--dis-fraction must be in (0, 1]. Got {self.dis_fraction} instead.")
        if engine.strip().lower() != "local":
            given = [name for name, on in (("--weight", self.weight), ("--household", self.household),
                                           ("--per-record", per_record)) if on is not None]
            if given:
                raise ParameterError(f"{given[0]} reads the records one by one; it cannot be used with "
                                     f"--engine {engine}. Use --engine local.")


@dataclass(frozen=True, eq=False)
class SdcFigures:
    """What ``veil risk`` adds to its report: the individual risk, the household risk, SUDA2."""

    individual: Any
    individual_summary: dict[str, Any]
    suda: Any
    record_class: np.ndarray | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"individual_risk": self.individual_summary}
        if self.individual is not None and self.individual.household_risk is not None:
            out["household_risk"] = self.individual.household_dict()
        if self.suda is not None:
            out["suda2"] = self.suda.to_dict()
        return out

    def per_record(self) -> pd.DataFrame:
        """The ``--per-record`` table: row, fk, Fk, risk (+ suda_score, dis_suda), input order."""
        frame = self.individual.per_record()
        if self.suda is not None and self.record_class is not None:
            cls = self.record_class
            inside = cls >= 0
            frame["suda_score"] = np.where(inside, self.suda.score[np.maximum(cls, 0)], 0.0)
            frame["dis_suda"] = np.where(inside, self.suda.dis_score[np.maximum(cls, 0)], 0.0)
        return frame


def _summary_from_counts(counts: np.ndarray) -> dict[str, Any]:
    """The unweighted ``individual_risk`` object from class sizes alone (an engine's class table)."""
    from veil.risk._individual import HISTOGRAM_EDGES

    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    er = float(len(counts))  # sum over records of 1/f_k: one per class
    risk = 1.0 / counts
    hist, _ = np.histogram(risk, bins=np.asarray(HISTOGRAM_EDGES), weights=counts)
    return {"mean": er / n if n else 0.0, "max": float(risk.max()) if n else 0.0, "expected_reidentifications": er,
            "share": er / n if n else 0.0, "histogram": {"edges": list(HISTOGRAM_EDGES),
                                                         "counts": [int(c) for c in hist]},
            "weighted": False, "method": "approx"}


def sdc_figures(classes: Any, dataset: Any, options: SdcOptions) -> SdcFigures:
    """Individual (and household) risk from the dataset, or from the class sizes with an engine; SUDA2."""
    from veil.classes import ClassTable
    from veil.risk import individual_risk, suda2

    individual = None
    if dataset is not None:
        individual = individual_risk(dataset, weight=options.weight, household=options.household,
                                     method=options.method)
        summary = individual.to_dict()
    else:
        summary = _summary_from_counts(classes.counts)
    result = record_class = None
    if options.suda:
        from veil.cli._app import err_console
        from veil.cli._progress import phase_display

        table = classes if isinstance(classes, ClassTable) else ClassTable.from_dataset(dataset)
        with phase_display(err_console) as display:  # on stderr, once the search has run 5 s
            result = suda2(table, max_size=options.suda_max_size, dis_fraction=options.dis_fraction,
                           progress=lambda done, total: display("suda2", done, total))
        record_class = table.row_classes() if dataset is not None else None
    return SdcFigures(individual, summary, result, record_class)


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def print_sdc(figures: SdcFigures) -> None:
    """The summary tables: individual risk (and household risk), SUDA2."""
    s = figures.individual_summary
    table = Table(title="Individual risk" + (" (sampling weights)" if s["weighted"] else " (every weight 1)"),
                  show_header=True)
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("mean risk", _pct(s["mean"]))
    table.add_row("highest risk", _pct(s["max"]))
    table.add_row("expected re-identifications", f"{s['expected_reidentifications']:,.2f} ({_pct(s['share'])})")
    household = figures.to_dict().get("household_risk")
    if household is not None:
        table.add_row("household risk: mean", _pct(household["mean"]))
        table.add_row("household risk: expected re-identifications",
                      f"{household['expected_reidentifications']:,.2f} ({_pct(household['share'])})")
    console.print(table)
    if figures.suda is None:
        return
    d = figures.suda.to_dict()
    suda = Table(title=f"SUDA2 (MSUs up to size {d['max_size']})", show_header=True)
    suda.add_column("measure")
    suda.add_column("value", justify="right")
    suda.add_row("special uniques (records with an MSU)", f"{d['special_uniques']:,}")
    suda.add_row("highest SUDA score", f"{d['max_score']:g}")
    suda.add_row("DIS-SUDA mean / max", f"{d['dis_suda']['mean']:.4f} / {d['dis_suda']['max']:.4f}")
    for name, pct in sorted(d["attribute_contribution"].items(), key=lambda kv: -kv[1]):
        suda.add_row(f"contribution of {esc(name)}", f"{pct:.1f}%")
    console.print(suda)
