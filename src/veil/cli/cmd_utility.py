"""``veil utility``: workload utility of a release (Brickell & Shmatikov's U_base, U_san, U_max, A_acc)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veil.cli._app import app, console, esc, parse_assignments, read_json_report, split_list, user_errors
from veil.cli._reading_options import na_values_of, na_values_option


def _report_facts(path: Path | None, report: dict[str, Any] | None) -> tuple[list[str], dict[str, int] | None]:
    """The QIs and full-domain levels of an anonymize JSON report (``[]``/``None`` without one),
    each checked for its shape: a malformed entry is a :class:`DataFormatError` naming it."""
    from veil.errors import DataFormatError

    if report is None:
        return [], None
    levels = report.get("transformation") or None
    if levels is not None and not (isinstance(levels, dict) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in levels.values())):
        raise DataFormatError(f"The report {str(path)!r} has a malformed 'transformation': it must map each "
                              "quasi-identifier to its level (an integer >= 0).")
    if levels:
        return [str(k) for k in levels], {str(k): v for k, v in levels.items()}
    achieved = report.get("achieved")
    qis = achieved.get("quasi_identifiers") if isinstance(achieved, dict) else None
    if qis is not None and not (isinstance(qis, list) and all(isinstance(q, str) for q in qis)):
        raise DataFormatError(f"The report {str(path)!r} has a malformed 'achieved.quasi_identifiers': it must "
                              "be a list of column names.")
    if not qis:
        raise DataFormatError(f"The report {str(path)!r} names no quasi-identifiers (no 'transformation').")
    return list(qis), None


def _report_words(report: dict[str, Any] | None) -> tuple[str, ...] | None:
    """The missing words the release read its input with (its report's ``provenance.config.input.na_values``),
    or ``None`` when the report names none (the default words)."""
    provenance = (report or {}).get("provenance")
    config = provenance.get("config") if isinstance(provenance, dict) else None
    source = config.get("input") if isinstance(config, dict) else None
    words = source.get("na_values") if isinstance(source, dict) else None
    if isinstance(words, list) and all(isinstance(word, str) for word in words):
        return tuple(dict.fromkeys(["", *words]))
    return None


def _report_hierarchies(path: Path, report: dict[str, Any], original: Path, data: Any,
                        missing: list[str]) -> dict[str, Any]:
    """The hierarchies of ``missing`` QIs as the release's configuration (the report's
    ``provenance.config``) built them, over the original's values; a hierarchy file named there is
    read from the report's folder, else the original's."""
    from pydantic import ValidationError

    from veil.config import ReleaseConfig, build_hierarchies, hierarchy_inputs
    from veil.errors import DataFormatError, ParameterError

    provenance = report.get("provenance")
    config = provenance.get("config") if isinstance(provenance, dict) else None
    attributes = config.get("attributes") if isinstance(config, dict) else None
    if not isinstance(attributes, dict) or not all(
            isinstance(attributes.get(q), dict) and attributes[q].get("hierarchy") for q in missing):
        raise ParameterError(f"The report {str(path)!r} does not say how the hierarchies of "
                             f"{', '.join(map(repr, missing))} were built: give --hierarchy NAME=FILE for each.")
    folders = list(dict.fromkeys([path.resolve().parent, original.resolve().parent]))
    try:
        configs = [ReleaseConfig.model_validate({**config, "base_dir": str(folder),
                                                 "attributes": {q: attributes[q] for q in missing}})
                   for folder in folders]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise DataFormatError(f"The report {str(path)!r} has a malformed 'provenance.config'"
                              f"{' at ' + where if where else ''}: {first['msg'].rstrip('.')}.") from None
    for candidate in configs:
        if all(Path(f).is_file() for f in hierarchy_inputs(candidate)):
            return dict(build_hierarchies(candidate, data).hierarchies)
    files = ", ".join(sorted({Path(f).name for f in hierarchy_inputs(configs[0])}))
    raise ParameterError(f"The hierarchy file(s) {files} the report names are not beside the report or the "
                         "original: give --hierarchy NAME=FILE for each quasi-identifier.")


def _table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"workload utility, target {esc(result['target'])}")
    for column in ("classifier", "U_base", "U_san", "U_max", "U_max - U_san", "U_san / U_max"):
        table.add_column(column, justify="left" if column == "classifier" else "right")
    for name, s in result["classifiers"].items():
        ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
        table.add_row(name, f"{s['u_base']:.4f}", f"{s['u_san']:.4f}", f"{s['u_max']:.4f}", f"{s['gap']:+.4f}", ratio)
    return table


@app.command("utility")
def utility_command(
    original: Path = typer.Argument(..., readable=False, help="The original table (CSV/Parquet) the release was made from."),
    release: Path = typer.Argument(..., readable=False, help="The released table (CSV/Parquet), shuffled or not."),
    target: str = typer.Option(..., "--target", help="The attribute the classifiers predict (not a quasi-identifier)."),
    qi: str = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated (default: from --report)."),
    report: Path = typer.Option(None, "--report", help="The release's JSON report: its QIs, levels and hierarchies."),
    hierarchy: list[str] = typer.Option(None, "--hierarchy", help="NAME=FILE.csv per QI, to match a shuffled release to the original (default: as the report built them)."),
    classifiers: str = typer.Option(
        "decision-tree,naive-bayes,logistic-regression", "--classifiers", help="Comma-separated classifier names.",
    ),
    aligned: bool = typer.Option(False, "--aligned", help="The release's rows are in the original's order (no matching)."),
    test_size: float = typer.Option(1 / 3, "--test-size", help="Share of records held out for testing, in (0, 1)."),
    random_state: int = typer.Option(0, "--random-state", help="Seed of the split and the classifiers."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of both tables (default: detected)."),
    na_values: str = na_values_option(),
    json_out: Path = typer.Option(None, "--json", help="Write the result as JSON here."),
) -> None:
    """Workload utility: classifiers trained on the original, without QIs, and on the release."""
    from veil.cli._app import load_dataset
    from veil.dataset import Dataset
    from veil.errors import ParameterError
    from veil.hierarchy import from_csv
    from veil.pipeline import Outputs
    from veil.utility import workload

    with user_errors():
        files = parse_assignments(hierarchy, "--hierarchy")
        words = na_values_of(na_values, original, release)  # both tables read with them
        with Outputs({"json": json_out}, inputs=[original, release, report, *files.values()]) as out:
            facts = read_json_report(report)
            if na_values is None:  # the words the release was made with, if its report says
                words = _report_words(facts) or words
            report_qis, levels = _report_facts(report, facts)
            qis = split_list(qi, "--qi") or report_qis
            if not qis:
                raise ParameterError("Name the quasi-identifiers with --qi, or give the release's report with --report.")
            data = load_dataset(original, quasi_identifiers=qis, sep=sep, na_values=words)
            given = {name: from_csv(file, name=name) for name, file in files.items()}
            missing = [q for q in qis if q not in given]
            if missing and facts is not None and not aligned:  # the report says how they were built
                given.update(_report_hierarchies(report, facts, original, data, missing))
            data = data.with_hierarchies(given)
            if levels is not None and set(levels) != set(qis):
                levels = None  # the report is about other QIs: infer the levels instead
            released = Dataset.read(release, sep=sep, na_values=words).frame
            result = workload(
                data, released, target=target, classifiers=split_list(classifiers, "--classifiers"), levels=levels,
                aligned=aligned, test_size=test_size, random_state=random_state,
            ).to_dict()
            if json_out is not None:
                out.write_json("json", result)
                out.commit()
    console.print(_table(result))
    console.print(f"A_acc (attacker's accuracy gain over guessing the most common value) = {result['a_acc']:.4f}")
    if json_out is not None:
        console.print(f"JSON: {esc(json_out)}")
