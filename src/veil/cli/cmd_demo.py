"""``veil demo``: the whole job on the bundled Adult data, with no arguments."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from veil.cli._app import app, console, err_console, user_errors


@app.command("demo")
def demo(
    out_dir: Path = typer.Option(Path("demo-output"), "--out", help="Folder for the anonymized CSV and the JSON and HTML reports."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress on stderr."),
) -> None:
    """Anonymize the bundled Adult data: k=5, distinct 2-diversity on salary-class, 5% suppression."""
    from veil.anonymization import anonymize
    from veil.cli._progress import phase_display
    from veil.cli._summary import print_summary
    from veil.datasets import load_adult
    from veil.models import DistinctLDiversity, KAnonymity
    from veil.pipeline import Outputs, verify_written
    from veil.release import table_writer
    from veil.report import render_html

    with user_errors():
        console.print(
            "[bold]veil demo[/]: Adult (30,162 records), QIs sex, age, race, marital-status, education, "
            "native-country, workclass, occupation; sensitive salary-class.\n"
            "Models: 5-anonymity and distinct 2-diversity; up to 5% of records suppressed; metric: loss (ILoss)."
        )
        paths = {"data": out_dir / "adult-anonymized.csv", "report": out_dir / "report.json",
                 "html": out_dir / "report.html"}
        models = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]
        with Outputs(paths) as out, phase_display(err_console, quiet=quiet) as progress:
            progress("encode", None, None)
            dataset = load_adult()
            # no seed: the row order comes from OS randomness (a seed would undo the shuffle)
            result = anonymize(dataset, models, suppression_limit=0.05, metric="loss", progress=progress)
            progress("write", 0, 3)
            verify_written(out.write("data", table_writer(result.data)), result, dataset, models)
            progress("write", 1, 3)
            out.write_json("report", result.report)
            progress("write", 2, 3)
            out.write_text("html", render_html(result.report, classes=result.classes, original=result.classes.base))
            progress("write", 3, 3)
            out.commit()
    print_summary(result.report, {role: str(path) for role, path in paths.items()})
    console.print("[bold]What the figures mean[/]")
    for line in verdicts(result.report):
        console.print(f"  - {line}", soft_wrap=True, highlight=False)
    console.print(f"Open the HTML report in a browser: [bold]{paths['html']}[/]", soft_wrap=True)
    console.print(f"Check it yourself: [bold]veil check {paths['data']} --qi sex,age,race,marital-status,education,"
                  "native-country,workclass,occupation --sensitive salary-class --require 'k>=5, l>=2'[/]",
                  soft_wrap=True)  # one line, so that it can be pasted


def _grade(value: float, light: float, heavy: float, words: tuple[str, str, str]) -> str:
    return words[0] if value < light else words[1] if value <= heavy else words[2]


def verdicts(report: Mapping[str, Any]) -> list[str]:
    """The release's key figures in words: what each means, and whether it is good or bad.

    Examples
    --------
    >>> verdicts({"utility": {"loss": 0.31}, "achieved": {"k": 5, "sensitive": {"y": {"delta_disclosure": 0.5}}}})[0]
    'information loss 0.31: 31% of the detail of the quasi-identifiers is gone (0 keeps all of it, 1 none): moderate.'
    """
    out = []
    loss = (report.get("utility") or {}).get("loss")
    if isinstance(loss, (int, float)) and math.isfinite(loss):
        grade = _grade(loss, 0.2, 0.5, ("light", "moderate", "heavy: check that the release is still useful"))
        out.append(f"information loss {loss:.2f}: {loss:.0%} of the detail of the quasi-identifiers is gone "
                   f"(0 keeps all of it, 1 none): {grade}.")
    achieved = report.get("achieved") or {}
    k = achieved.get("k")
    if isinstance(k, (int, float)) and k >= 1:
        out.append(f"k = {k:g}: every released record shares its quasi-identifiers with at least {k - 1:g} others, "
                   f"so a record is re-identified with probability at most 1/{k:g} = {1 / k:.2g}.")
    for name, figures in (achieved.get("sensitive") or {}).items():
        delta = (figures or {}).get("delta_disclosure")
        if not isinstance(delta, (int, float)) or not math.isfinite(delta):
            continue
        grade = _grade(delta, 0.5, 1.0, ("low: a class tells little about it",
                                         "moderate",
                                         "high: a class tells much about it; bound it with t-closeness or "
                                         "δ-disclosure"))
        out.append(f"δ-disclosure {delta:.2f} on {name}: in the worst class, a value of {name} is up to "
                   f"{math.exp(delta):.3g} times more or less likely than in the whole table "
                   f"(0 would mean a class tells nothing): {grade}.")
    return out
