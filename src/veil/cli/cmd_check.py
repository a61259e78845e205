"""``veil check FILE``: the achieved level of every privacy model, and requirements on them."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from veil.cli._reading_options import na_values_of, na_values_option
from veil.cli._registry_help import require_help
from veil.cli._app import (
    EXIT_REQUIREMENT_FAILED,
    app,
    console,
    esc,
    input_files,
    parse_assignments,
    split_list,
    user_errors,
)
from veil.cli._hierarchy_options import (
    attach_hierarchies,
    auto_hierarchies_option,
    hierarchy_files,
    parse_hierarchy_options,
)
from veil.cli._no_class import (
    empty_file_report,
    header_only_columns,
    judge_without_classes,
    no_class_notes,
    no_class_payload,
    no_class_requested_levels,
)

#: ``--require`` keys that need ``--population`` (clauses ``KEY OP NUMBER``, like the others).
POPULATION_REQUIREMENT_KEYS: dict[str, str] = {
    "k_map": "k-map: the smallest population class matching a released class",
    "delta_min": "delta-presence: the smallest |T_E|/|P_E| over released classes",
    "delta_max": "delta-presence: the largest |T_E|/|P_E| over released classes",
}

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq,
}

_POPULATION_FACTS = {
    "k_map": (
        "El Emam & Dankar: min over released classes E of |P_E|, the population records carrying "
        "E's quasi-identifier labels (matched by label, as given: the population must be "
        "generalized like the released table)"
    ),
    "delta_presence": (
        "Nergiz, Atzori & Clifton: |T_E|/|P_E| per released class, an exact integer ratio rounded "
        "once; delta_min and delta_max are its smallest and largest values; suppressed records "
        "are not a class"
    ),
}


def _fmt(value: object) -> str:
    if value is None:
        return "none (unattainable)"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.6g}"
    return str(value)


def _parse_cli_requirements(text: str, *, population: bool) -> list[Any]:
    """The ``--require`` clauses in order: a :class:`~veil.models.Requirement`, or a
    ``(key, op, value, clause)`` tuple for a key that needs the population (judged here).

    Every clause is parsed by :func:`~veil.models.parse_requirements` (the registry's grammar).
    """
    from veil.errors import ParameterError
    from veil.models import parse_requirements

    out: list[Any] = []
    for r in parse_requirements(text):  # the registry's grammar; population keys are judged here
        if r.needs_population and not population:
            raise ParameterError(f"The requirement {r.clause!r} needs a population table; give one (--population FILE).")
        out.append((r.key, r.op, r.value, r.clause) if r.needs_population else r)
    return out


def _population_levels(classes: Any, path: Path, qis: list[str], *, sep: str | None, encoding: str) -> dict[str, Any]:
    """k-map and δ-presence of ``classes`` against the population file ``path``.

    The population is matched by the released table's labels, as they are: it
    must carry the released table's generalization (a released ``4767*`` matches
    a population ``4767*``, not ``47677``).
    """
    import numpy as np

    from veil.dataset import Dataset
    from veil.errors import ColumnNotFoundError, VeilError
    from veil.models._population import population_counts

    try:
        frame = Dataset.read(path, sep=sep, encoding=encoding).frame
    except VeilError as exc:  # name the option: the released table is read the same way
        raise type(exc)(f"--population: {exc}") from None
    absent = [q for q in qis if q not in frame.columns]
    if absent:
        raise ColumnNotFoundError(
            f"The population file {str(path)!r} has no quasi-identifier column "
            f"{', '.join(map(repr, absent))}; its columns are: {', '.join(map(str, frame.columns))}."
        )
    if classes is not None and classes.n_classes:
        # raises naming only the number of released classes the population lacks (no record values)
        sizes = population_counts(classes, frame, "--population")
        ratios = classes.counts.astype(np.float64) / sizes.astype(np.float64)  # |T_E| <= |P_E|, never 0/0
        k_map, delta_min, delta_max = int(sizes.min()), float(ratios.min()), float(ratios.max())
    else:  # no class (every record suppressed, or a file of a header): no level (see veil.cli._no_class)
        k_map, delta_min, delta_max = None, None, None
    return {
        "population_records": int(len(frame)),
        "k_map": k_map,
        "delta_presence": {"delta_min": delta_min, "delta_max": delta_max},
    }


def _judge_population(requirement: tuple[str, str, float, str], levels: dict[str, Any]) -> Any:
    from veil.models import RequirementResult

    key, op, value, clause = requirement
    actual = float(levels["k_map"] if key == "k_map" else levels["delta_presence"][key])
    return RequirementResult(clause, bool(_OPS[op](actual, value)), actual)


def _refuse_with_engine(engine: str, *, population: Path | None, hierarchy: list[str] | None,
                        auto_hierarchies: bool, encoding: str, missing: str) -> None:
    """Options that need the rows in memory, refused with ``--engine duckdb|spark``."""
    from veil.errors import ParameterError

    given = [name for name, on in (("--population", population is not None), ("--hierarchy", bool(hierarchy)),
                                   ("--auto-hierarchies", auto_hierarchies), ("--missing error", missing == "error"))
             if on]
    if given:
        raise ParameterError(f"{given[0]} needs the table in memory; it cannot be used with --engine {engine}. "
                             "Use --engine local.")
    if encoding.strip().lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise ParameterError(f"--engine {engine} reads UTF-8 files only. Got --encoding {encoding!r}; convert the file first.")


_MISSING_SENSITIVE = typer.Option(
    "value", "--missing-sensitive", help="A missing sensitive value is a 'value' of its own (default) or "
    "'ignore'd: it adds no diversity and is not in the reference distribution.",
)
_BLANKS = typer.Option(
    "value", "--blanks", help="A '*' in a QI is a 'value' of its own (default), or 'match-any' value when classes "
    "are counted (sdcMicro's rule, the rule of --algorithm local-suppression): then k is each record's compatible "
    "records.",
)
_NON_STRICT = typer.Option(
    False, "--non-strict", help="Recursive (c,l) with r1 <= c*tail (the seed) instead of r1 < c*tail.",
)
_ENGINE = typer.Option(
    "local", "--engine", help="Who groups the rows: local (in memory, default), duckdb (files larger "
    "than memory) or spark; the models run on the class table either way.",
)


@app.command("check")
def check_command(
    file: Path = typer.Argument(..., readable=False, help="A CSV or Parquet file (original or anonymized)."),
    qi: str = typer.Option(..., "--qi", help="Quasi-identifiers, comma-separated."),
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive attributes, comma-separated."),
    hierarchy: list[str] = typer.Option(
        None, "--hierarchy", help="NAME=FILE.csv (ARX-style); repeatable. On a sensitive attribute: "
        "hierarchical t-closeness. Also a builder spec: interval:5,10, mask:1, date:month,year, auto, ...",
    ),
    auto_hierarchies: bool = auto_hierarchies_option(),
    kind: list[str] = typer.Option(
        None, "--kind", help="NAME=categorical|ordinal|numeric|date; repeatable (numeric: ordered t-closeness).",
    ),
    require: str = typer.Option(
        None, "--require", help=require_help('Exit 1 when one fails. With --population also k_map, delta_min, '
                                             'delta_max (e.g. "k_map>=3, delta_max<=0.5").'),
    ),
    population: Path = typer.Option(
        None, "--population", help="The population table (CSV or Parquet, read like FILE) the released "
        "table was drawn from; adds k-map and delta-presence. It needs the QI columns, generalized "
        "exactly like FILE (labels are matched as they are: a released 4767* matches a population 4767*, "
        "not 47677).",
    ),
    json_out: Path = typer.Option(None, "--json", help="Write the report as JSON to this file."),
    sep: str = typer.Option(None, "--sep", help="CSV separator (default: detected)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="CSV text encoding."),
    missing: str = typer.Option("value", "--missing", help="A missing QI value is a 'value' of its own or an 'error'."),
    missing_sensitive: str = _MISSING_SENSITIVE,
    na_values: str = na_values_option(),
    recursive_l: int = typer.Option(2, "--recursive-l", help="The l of recursive (c,l)-diversity's reported c."),
    non_strict: bool = _NON_STRICT,
    engine: str = _ENGINE,
    blanks: str = _BLANKS,
) -> None:
    """Report which privacy models a table satisfies and at what level (k, l, c, t, delta, alpha, beta;
    k-map and delta-presence with --population)."""
    from veil.algorithms.local_suppression._release import report_under_blanks
    from veil.models._shown import check_missing_sensitive
    from veil.pipeline import Outputs

    with user_errors():
        # every input named, and the --json destination refused if it is one of them, before any work
        outputs = Outputs({"json": json_out}, inputs=input_files(file, population, *hierarchy_files(hierarchy)))
        clauses, qis = _check_options(missing, require, qi, population=population)
        check_missing_sensitive(missing_sensitive, "--missing-sensitive")
        sens = split_list(sensitive, "--sensitive")
        reading = {"sep": sep, "encoding": encoding, "missing": missing,
                   "na_values": na_values_of(na_values, file, population)}
        classes, report = _classes_and_report(file, qis, sens, engine=engine, population=population,
                                              hierarchy=hierarchy, auto_hierarchies=auto_hierarchies, kind=kind,
                                              reading=reading, recursive_l=recursive_l, strict=not non_strict,
                                              missing_sensitive=missing_sensitive)
        report = report_under_blanks(blanks, classes, report)
        levels, results, payload = _judged(classes, report, clauses, population, qis, reading, missing_sensitive)
        with outputs:
            if json_out is not None:
                outputs.write_json("json", payload)
            outputs.commit()
    _print_check_report(file, report, levels)
    _print_requirements(results, blank=not report.classes)


def _judged(classes: Any, report: Any, clauses: list[Any], population: Path | None, qis: list[str],
            reading: dict[str, Any], missing_sensitive: str) -> tuple[Any, list[Any], dict]:
    """The population levels, the clauses judged on the table as it shows itself, and the --json payload."""
    from veil.models._shown import shown

    levels = None if population is None else _population_levels(_without_star_class(classes), population, qis,
                                                                    sep=reading["sep"], encoding=reading["encoding"])
    view = None if classes is None else shown(classes, missing=missing_sensitive)
    results = [_judge(c, report, view, levels) for c in clauses]
    payload = _check_payload(report, view, clauses, levels, results)
    payload["missing_sensitive"] = missing_sensitive
    return levels, results, payload


def _classes_and_report(file: Path, qis: list[str], sens: list[str], *, engine: str, population: Path | None,
                        hierarchy: list[str] | None, auto_hierarchies: bool, kind: list[str] | None,
                        reading: dict[str, Any], recursive_l: int, strict: bool,
                        missing_sensitive: str) -> tuple[Any, Any]:
    """The file's class table and its report as the file shows it (:func:`~veil.models._shown.evaluate_shown`);
    no table (None) and a report of no class for a file with a header and no row (``--suppressed drop`` of
    a table whose every record is suppressed)."""
    from veil.models._shown import evaluate_shown

    sep, encoding = reading["sep"], reading["encoding"]
    columns = header_only_columns(file, sep=sep, encoding=encoding)
    if columns is not None:
        return None, empty_file_report(columns, qis, sens, kinds=parse_assignments(kind, "--kind"),
                                       hierarchies=list(parse_hierarchy_options(hierarchy)), recursive_l=recursive_l,
                                       strict=strict, source=repr(str(file)))
    classes = _check_classes(file, qis, sens, engine=engine, population=population, hierarchy=hierarchy,
                             auto_hierarchies=auto_hierarchies, kind=kind, reading=reading)
    return classes, evaluate_shown(classes, missing=missing_sensitive, recursive_l=recursive_l, strict=strict)


def _judge(clause: Any, report: Any, classes: Any, levels: dict[str, Any] | None) -> Any:
    """One ``--require`` clause judged: with no class, or a sensitive clause whose attributes no class shows a
    value of, as veil anonymize decides (veil.cli._no_class: it holds vacuously in its model's direction)."""
    population = isinstance(clause, tuple) and (levels is None or levels["k_map"] is None)
    if not report.classes or population or _unshown(clause, report, classes):
        return judge_without_classes(clause, report, classes)
    return _judge_population(clause, levels) if isinstance(clause, tuple) else clause.judge(report, classes)


def _unshown(clause: Any, report: Any, view: Any) -> bool:
    """Whether ``clause`` reads sensitive attributes and no class of ``view`` shows a value of any of them."""
    from veil.models._shown import judged

    if isinstance(clause, tuple) or view is None or not clause.needs_sensitive or not report.sensitive:
        return False
    names = [clause.attribute] if clause.attribute in report.sensitive else list(report.sensitive)
    return not any(judged(view, name).any() for name in names)


def _check_options(missing: str, require: str | None, qi: str, *, population: Path | None) -> tuple[list[Any], list[str]]:
    """--missing checked, the --require clauses parsed and the --qi names split (at least one)."""
    from veil.errors import ParameterError

    if missing not in ("value", "error"):
        raise ParameterError(f"--missing must be 'value' or 'error'. Got {missing!r} instead.")
    clauses = [] if require is None else _parse_cli_requirements(require, population=population is not None)
    qis = split_list(qi, "--qi")
    if not qis:
        raise ParameterError("--qi needs at least one quasi-identifier.")
    return clauses, qis


def _check_classes(file, qis, sens, *, engine, population, hierarchy, auto_hierarchies, kind, reading):
    """The class table of FILE, every row in a class (an all-'*' group is one: k is computed on what
    the file shows): built in memory (local) or by the engine, which groups and counts the rows."""
    import numpy as np

    from veil.classes import ClassTable
    from veil.models._shown import WITHHELD

    kinds = parse_assignments(kind, "--kind")
    if engine.strip().lower() == "local":
        dataset = _read_dataset(file, qis, sens, kinds=kinds or None, **reading)
        dataset = attach_hierarchies(dataset, hierarchy, auto=auto_hierarchies, kinds=kinds)
        withheld = {name: h.with_value(WITHHELD) for name, h in dataset.hierarchies.items() if name in sens}
        return ClassTable.from_dataset(dataset, hierarchies=withheld,  # a withheld '*' is read, then left out
                                       suppressed_rows=np.zeros(dataset.n_records, dtype=np.bool_))
    _refuse_with_engine(engine, population=population, hierarchy=hierarchy,
                        auto_hierarchies=auto_hierarchies, encoding=reading["encoding"], missing=reading["missing"])
    return _engine_classes(file, qis, sens, engine=engine, sep=reading["sep"], kinds=kinds,
                           na_values=reading["na_values"])


def _read_dataset(file: Path, qis: list[str], sens: list[str], *, kinds: Any, sep: str | None, encoding: str,
                  missing: str, na_values: tuple[str, ...]) -> Any:
    """FILE read with the missing words ``na_values``; in a QI, two different missing words stay two values
    (:func:`veil.data.missing_as_null`: a reader of the file sees two)."""
    from veil.data import missing_as_null, read_table
    from veil.dataset import Dataset

    table = read_table(file, sep=sep, encoding=encoding, na_values=())
    table = missing_as_null(table, na_values, by_spelling=qis)
    domains = _withheld_domains({name: table.column(name).unique().to_pylist() for name in sens if name in
                                 table.column_names}, kinds or {})
    return Dataset.from_arrow(table, quasi_identifiers=qis, sensitive=sens, kinds=kinds, missing=missing,
                              domains=domains)


def _withheld_domains(values: dict[str, list[Any]], kinds: dict[str, str]) -> dict[str, list[str]]:
    """For a numeric or date sensitive attribute holding the withheld ``*`` (a blanked suppressed
    record's value), its values in their kind's order, so that ``*`` is read (then left out of every
    figure, veil.models._shown) instead of refused as a value of another kind."""
    import numpy as np

    from veil.data import Kind, sort_labels
    from veil.models._shown import WITHHELD

    out = {}
    for name, found in values.items():
        kind = str(kinds.get(name, "")).lower()
        if kind in ("numeric", "date") and WITHHELD in found:
            present = np.array([v for v in found if v is not None and v == v and v != WITHHELD], dtype=object)
            out[name] = sort_labels(present.astype(str), Kind(kind), None, name).tolist()
    return out


def _engine_classes(file: Path, qis: list[str], sens: list[str], *, engine: str, sep: str | None,
                    kinds: dict[str, str], na_values: tuple[str, ...]) -> Any:
    """The class table of FILE grouped and counted by ``engine``, every row in a class."""
    import numpy as np

    from veil.engines import Source, class_table_from_counts, get_engine

    resolved = get_engine(engine)
    try:
        counts = resolved.group_count(Source.from_path(file, sep=sep, na_values=na_values), qis, sens)
    finally:
        if hasattr(resolved, "close"):
            resolved.close()
    domains = _withheld_domains({name: counts[name].unique().tolist() for name in sens}, kinds)
    return class_table_from_counts(counts, quasi_identifiers=qis, sensitive=sens, kinds=kinds, domains=domains,
                                   suppressed_rows=np.zeros(len(counts), dtype=np.bool_))


def _without_star_class(classes: Any) -> Any:
    """``classes`` less a class with ``*`` in every QI (suppressed records: not matched in a population)."""
    if classes is None or not classes.n_classes:
        return classes
    from veil.models._shown import star_classes

    return classes.suppress(star_classes(classes))


def _check_payload(report, classes, clauses, levels, results) -> dict:
    """The --json payload: the report, the requested levels, the population levels and the requirements."""
    from veil.models import requested_levels

    payload = report.to_dict()
    if report.classes:
        payload.update(requested_levels([c for c in clauses if not isinstance(c, tuple)], report, classes, list(payload)))
    else:
        payload.update(no_class_requested_levels(clauses, list(payload)))
    if levels is not None:  # new keys after "quasi_identifiers", before "sensitive"
        at = list(payload).index("sensitive")
        items = list(payload.items())
        payload = dict(items[:at] + list(levels.items()) + items[at:])
        payload["facts"].update(_POPULATION_FACTS)
    payload["requirements"] = [r.to_dict() for r in results]
    return payload if report.classes else no_class_payload(payload)


def _print_check_report(file, report, levels) -> None:
    """The table of model levels, then the notes; with no class every per-class level reads "—"."""
    fmt = _fmt if report.classes else _no_level
    title = (
        f"{esc(file.name)}: {report.records:,} records, {report.classes:,} classes, "
        f"{report.suppressed_records:,} suppressed ({report.input_suppressed:,} in the input)"
    )
    table = Table(title=title)
    table.add_column("model")
    table.add_column("level", justify="right")
    table.add_column("notes")
    table.add_row("k-anonymity", fmt(report.k), "smallest class")
    table.add_row("max prosecutor risk", fmt(report.max_prosecutor_risk), "1/k")
    table.add_row("average risk", fmt(report.average_risk), "classes / retained records")
    if levels is not None:
        table.add_section()
        table.add_row(
            "k-map", fmt(levels["k_map"]),
            f"smallest population match ({levels['population_records']:,} population records)",
        )
        presence = levels["delta_presence"]
        table.add_row(
            "δ-presence", f"δmin={fmt(presence['delta_min'])}, δmax={fmt(presence['delta_max'])}",
            "|T_E|/|P_E| over released classes",
        )
    for name, s in report.sensitive.items():
        _add_sensitive_rows(table, name, s, strict=report.strict, fmt=fmt)
    console.print(table)
    notes = list(report.notes) if report.classes else no_class_notes(report.notes)
    for note in notes + [n for s in report.sensitive.values() for n in s.notes]:
        console.print(f"[yellow]note:[/] {esc(note)}", highlight=False)


def _no_level(value: object) -> str:
    """A per-class level of a table with no class: there is none."""
    return "—"


def _add_sensitive_rows(table, name, s, *, strict: bool, fmt: Callable[[object], str] = _fmt) -> None:
    """One section of rows for a sensitive attribute."""
    op = "<" if strict else "<="
    table.add_section()
    name = esc(f"[{name}]")  # "[diagnosis]" would otherwise be read as a markup tag and vanish
    table.add_row(f"distinct l-diversity {name}", fmt(s.distinct_l), f"{s.distinct_values} distinct values in table")
    table.add_row(f"entropy l-diversity {name}", fmt(s.entropy_l), "exp(min class entropy), natural log")
    table.add_row(
        f"recursive (c,{s.recursive_l})-diversity {name}", fmt(s.recursive_c),
        f"smallest c; r1 {op} c*sum(r_i, i>={s.recursive_l})" + (" (c must exceed it)" if strict else ""),
    )
    if s.ordered:
        table.add_row(f"t-closeness, ordered {name}", fmt(s.t_ordered), "EMD, ordered distance /(m-1)")
    else:
        table.add_row(f"t-closeness, equal {name}", fmt(s.t_equal), "EMD, equal distance")
    if s.t_hierarchical is not None:
        table.add_row(f"t-closeness, hierarchical {name}", fmt(s.t_hierarchical), "EMD, hierarchy distance")
    table.add_row(f"δ-disclosure {name}", fmt(s.delta_disclosure), "ln, every value; holds for δ above it")
    table.add_row(
        f"δ-disclosure, present values {name}", fmt(s.delta_disclosure_present_values), "ln, ARX/pycanon variant",
    )
    table.add_row(f"(α,k)-anonymity {name}", f"α={fmt(s.alpha)}, k={fmt(s.alpha_k)}", "largest value share")
    table.add_row(f"basic β-likeness {name}", fmt(s.beta_likeness), "largest relative gain")
    table.add_row(f"enhanced β-likeness {name}", fmt(s.enhanced_beta_likeness), "cap -ln q(s)")


def _print_requirements(results, *, blank: bool = False) -> None:
    """The requirements table; exit 1 when one is not met."""
    if not results:
        return
    req = Table(title="requirements")
    req.add_column("clause")
    req.add_column("level", justify="right")
    req.add_column("met")
    for r in results:
        req.add_row(esc(r.clause), _no_level(r.actual) if blank else _fmt(r.actual), ("[green]yes[/]" if r.met else "[red]no[/]") + (f" ({r.note})" if r.note else ""))
    console.print(req)
    if not all(r.met for r in results):
        raise typer.Exit(EXIT_REQUIREMENT_FAILED)
