"""``veil demo``: the whole job on the bundled Adult data, with no arguments."""

from __future__ import annotations

from pathlib import Path

import typer

from veil.cli._app import app, console, user_errors


@app.command("demo")
def demo(
    out_dir: Path = typer.Option(Path("demo-output"), "--out", help="Folder for the anonymized CSV and the JSON and HTML reports."),
) -> None:
    """Anonymize the bundled Adult data: k=5, distinct 2-diversity on salary-class, 5% suppression."""
    from veil.anonymization import anonymize
    from veil.cli._summary import print_summary
    from veil.datasets import load_adult
    from veil.models import DistinctLDiversity, KAnonymity
    from veil.release import write_json, write_table
    from veil.report import write_html

    with user_errors():
        console.print(
            "[bold]veil demo[/]: Adult (30,162 records), QIs sex, age, race, marital-status, education, "
            "native-country, workclass, occupation; sensitive salary-class.\n"
            "Models: 5-anonymity and distinct 2-diversity; up to 5% of records suppressed; metric: loss (ILoss)."
        )
        dataset = load_adult()
        result = anonymize(
            dataset, [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)],
            suppression_limit=0.05, metric="loss", seed=0,
        )
        data_path, report_path = out_dir / "adult-anonymized.csv", out_dir / "report.json"
        html_path = out_dir / "report.html"
        write_table(result.data, data_path)
        write_json(result.report, report_path)
        write_html(result, html_path)
    print_summary(result.report, {"data": str(data_path), "report": str(report_path), "html": str(html_path)})
    console.print(f"Check it yourself: [bold]veil check {data_path} --qi sex,age,race,marital-status,education,"
                  "native-country,workclass,occupation --sensitive salary-class --require 'k>=5, l>=2'[/]",
                  soft_wrap=True)  # one line, so that it can be pasted
