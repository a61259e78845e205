"""``veil demo``: the whole job on the bundled Adult data, with no arguments."""

from __future__ import annotations

from pathlib import Path

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
    console.print(f"Check it yourself: [bold]veil check {paths['data']} --qi sex,age,race,marital-status,education,"
                  "native-country,workclass,occupation --sensitive salary-class --require 'k>=5, l>=2'[/]",
                  soft_wrap=True)  # one line, so that it can be pasted
