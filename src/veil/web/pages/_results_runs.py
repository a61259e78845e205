"""The runs of this session, in order: each with its number, start time, configuration summary,
status and (once done) its headline figures, so the Run and Results pages can say which run a
figure or a download is from, and whether the configuration in progress is still the one it ran.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from veil.report._format import as_dict, format_value

__all__ = ["begin", "end", "runs", "latest", "summary_line"]


def summary_line(config: Any) -> str:
    """One line of what a configuration asks: its models, suppression limit and algorithm."""
    from veil.config import build_model

    models = []
    for i, spec in enumerate(config.models):
        try:
            models.append(build_model(dict(spec), f"models[{i}]").name)
        except Exception:  # noqa: BLE001 - a summary never fails a page: the type stands for the model
            models.append(str(spec.get("type")))
    return (f"{', '.join(models)}; suppression limit {config.suppression_limit * 100:g}%; "
            f"algorithm {config.algorithm}")


def runs(workspace) -> list[dict[str, Any]]:
    """The runs of this session, oldest first (the list lives in ``state.results["history"]``)."""
    return workspace.state.results.setdefault("history", [])


def latest(workspace) -> dict[str, Any] | None:
    """The last run started, whatever became of it."""
    history = runs(workspace)
    return history[-1] if history else None


def begin(workspace, number: int, text: str, config: Any, files: dict[str, str]) -> None:
    """Record that run ``number`` started with the configuration document ``text``."""
    entry = {"number": number, "time": dt.datetime.now(dt.timezone.utc).strftime("%H:%M:%S UTC"),
             "text": text, "summary": summary_line(config), "status": "running", "files": files,
             "k": None, "suppressed": None, "records_out": None}
    with workspace.lock:
        runs(workspace).append(entry)


def end(workspace, number: int, status: str, report: dict[str, Any] | None = None) -> None:
    """Record how run ``number`` ended (``done``, ``failed`` or ``cancelled``) and, when done, its figures."""
    with workspace.lock:
        for entry in runs(workspace):
            if entry["number"] == number:
                entry["status"] = status
                if report is not None:
                    entry["k"] = format_value(as_dict(report.get("achieved")).get("k"))
                    entry["suppressed"] = format_value(report.get("suppressed"))
                    entry["records_out"] = format_value(report.get("records_out"))
