"""``veil explore``: sweep parameters, report privacy and utility per point, draw the Pareto frontier.

Progress (the sweep's points, then the lattice view) goes to stderr through the
CLI's shared display (:mod:`veil.cli._progress`), off with ``--quiet``; stdout
holds the table of points, or with ``--json -`` the JSON document alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veil.cli._app import (app, console, err_console, esc, parse_assignments, refuse_beside_config, split_list,
                           user_errors)
from veil.cli._hierarchy_options import (
    attach_hierarchies,
    auto_hierarchies_option,
    hierarchy_files,
    hierarchy_option,
    parse_hierarchy_options,
    quote_name,
    refuse_stray,
)
from veil.cli._reading_options import na_values_of, na_values_option

_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
_PLOT_FORMATS = {".png": "png", ".svg": "svg"}
#: The options that may be given beside a configuration: the sweep and the outputs.  The others
#: (--qi, --hierarchy, --auto-hierarchies, --kind, --sep, --na-values, and any added later) describe the data,
#: which it sets.
_BESIDE_CONFIG = ("sensitive", "k", "l_values", "t_values", "suppression", "algorithm", "metric", "label",
                  "classifier", "random_state", "json_out", "plot", "no_lattice", "html", "quiet")
#: ``--json -``: the JSON document on stdout (and nothing else there).
STDOUT = Path("-")


def _inputs(ctx: typer.Context, target: Path, hierarchy: list[str] | None) -> tuple[list[Path], Any]:
    """Every file the command reads (checked against the outputs before work) and the configuration, if any
    (a data option beside it refused first)."""
    if target.suffix.lower() in _CONFIG_SUFFIXES:
        refuse_beside_config(ctx, target, allowed=_BESIDE_CONFIG, keys={
            "qi": "attributes", "hierarchy": "attributes.COL.hierarchy", "kind": "attributes.COL.kind",
            "sep": "input.sep", "na_values": "input.na_values", "auto_hierarchies": "attributes.COL.hierarchy: auto"})
    files = [target, *(Path(f) for f in hierarchy_files(hierarchy))]
    if target.suffix.lower() not in _CONFIG_SUFFIXES:
        return files, None
    from veil.config import load_config

    config = load_config(target)
    return [*files, Path(config.input.path)], config


def _dataset(target: Path, config: Any, *, qi: str | None, sensitive: list[str], hierarchy: list[str] | None,
             auto: bool, kind: list[str] | None, sep: str | None, na_values: str | None,
             quiet: bool) -> tuple[Any, dict[str, Any]]:
    """The dataset with its hierarchies (as ``veil anonymize`` builds them) and the configuration's defaults."""
    from veil.dataset import Dataset
    from veil.errors import ParameterError

    if config is not None:
        from veil.release import dataset_from_config

        return dataset_from_config(config), {"metric": config.metric, "suppression": config.suppression_limit}
    qis = split_list(qi, "--qi")
    if not qis:
        raise ParameterError("--qi is required when exploring a data file (or pass a configuration file).")
    refuse_stray(parse_hierarchy_options(hierarchy), qis)
    kinds = parse_assignments(kind, "--kind")
    data = Dataset.read(target, sep=sep, na_values=na_values_of(na_values, target), quasi_identifiers=qis,
                        sensitive=sensitive, kinds=kinds or None)
    data = attach_hierarchies(data, hierarchy, auto=auto, kinds=kinds, to=err_console, show=not quiet)  # stdout: table/JSON
    missing = [name for name in qis if name not in data.hierarchies]
    if missing:
        raise ParameterError(f"No hierarchy for quasi-identifier {missing[0]!r}: add --hierarchy {quote_name(missing[0])}=SPEC "
                             "(a file, or a builder such as interval:5,10 or auto), or --auto-hierarchies.")
    return data, {}


def _lattice(data: Any, spec: Any, exploration: Any, chosen: int | None) -> Any:
    """The lattice view of the chosen point, when it is a feasible lattice search with a drawable lattice."""
    from veil.errors import ParameterError
    from veil.explore import lattice_view

    if chosen is None:
        return None
    point = exploration.points[chosen]
    if point["parameters"]["algorithm"] != "lattice" or not point["transformation"]:
        return None
    try:
        return lattice_view(data, spec.models(point["parameters"]), suppression_limit=point["parameters"]["suppression"],
                            optimum=[point["transformation"][q] for q in data.quasi_identifiers])
    except ParameterError as exc:  # too large to draw node by node
        exploration.notes.append(f"lattice view skipped: {exc}")
        return None


def _payload(exploration: Any, chosen: int | None, lattice: Any) -> dict[str, Any]:
    """The ``--json`` document: the points, the chosen point and the lattice view's counts."""
    payload = exploration.to_dict()
    payload["chosen"] = chosen
    if lattice is not None:
        payload["lattice"] = {
            "parameters": exploration.points[chosen]["parameters"], "quasi_identifiers": list(lattice.quasi_identifiers),
            "nodes": len(lattice.nodes), "counts": lattice.counts(),
            "optimum": dict(zip(lattice.quasi_identifiers, lattice.optimum or ())),
        }
    return payload


def _page(payload: dict[str, Any], drawing: Any) -> str:
    """The ``--html`` page: the same payload as ``--json``, with the figure embedded."""
    import io

    from veil.explore import save_figure
    from veil.report import render_exploration

    buffer = io.BytesIO()
    save_figure(drawing, buffer, format="png")
    return render_exploration(payload, figure_png=buffer.getvalue())


def _print(exploration: Any, chosen: int | None) -> None:
    """The table of points, then the chosen point with its level per quasi-identifier (named)."""
    from rich.table import Table

    (_, xkey, _), (_, ykey, _) = exploration.objectives
    table = Table(title=f"{len(exploration.points)} points, {sum(p['frontier'] for p in exploration.points)} on the frontier")
    for column in ("parameters", "k", xkey, ykey, "frontier"):
        table.add_column(column)
    for point in exploration.points:
        params = esc(", ".join(f"{k}={v}" for k, v in point["parameters"].items()))
        if not point["feasible"]:
            table.add_row(params, "-", "infeasible", "-", "")
            continue
        y = point["utility"].get(ykey)
        table.add_row(params, str(point["privacy"]["k"]), f"{point['privacy'][xkey]:.4f}",
                      "-" if y is None else f"{y:.4f}", "*" if point["frontier"] else "")
    console.print(table)
    if chosen is not None:
        point = exploration.points[chosen]
        params = ", ".join(f"{k}={v}" for k, v in point["parameters"].items())
        levels = ", ".join(f"{q}={level}" for q, level in (point["transformation"] or {}).items())
        console.print(f"chosen: {esc(params)}" + (f"; levels {esc(levels)}" if levels else ""), highlight=False,
                      soft_wrap=True)


def _show(document: str | None, exploration: Any, chosen: Any, written: dict[str, Path | None],
          to_stdout: bool) -> None:
    """The JSON document alone on stdout, or the table; then where each output went."""
    if document is not None:
        typer.echo(document, nl=False)
    else:
        _print(exploration, chosen)
    for role, path in written.items():
        if path is not None:
            (err_console if to_stdout else console).print(f"{role}: {esc(path)}")


@app.command("explore")
def explore_command(  # the work is in the helpers above and below
    ctx: typer.Context,
    target: Path = typer.Argument(..., readable=False, help="A data file (CSV/Parquet) or a release configuration (.yaml/.json)."),
    qi: str = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated (data-file mode)."),
    sensitive: str = typer.Option(None, "--sensitive", help="The sensitive attribute of the l and t models."),
    hierarchy: list[str] = hierarchy_option(),
    auto_hierarchies: bool = auto_hierarchies_option(),
    kind: list[str] = typer.Option(None, "--kind", help="NAME=KIND (categorical, ordinal, numeric, date); repeatable."),
    k: str = typer.Option(None, "--k", "-k", help="k values: START:STOP[:STEP] (inclusive) or A,B,C."),
    l_values: str = typer.Option(None, "--l", "-l", help="Distinct l-diversity values of --sensitive."),
    t_values: str = typer.Option(None, "--t", "-t", help="Equal-distance t-closeness values of --sensitive."),
    suppression: str = typer.Option(None, "--suppression", help="Suppression limits, e.g. 0,0.05 (default 0, or the config's)."),
    algorithm: str = typer.Option("lattice", "--algorithm", help="Algorithms, comma-separated (lattice, datafly, mondrian, ...)."),
    metric: str = typer.Option(None, "--metric", help="Utility metric of the searches and the frontier (default loss)."),
    label: str = typer.Option(None, "--target", help="Add workload utility: the attribute a classifier predicts."),
    classifier: str = typer.Option("decision-tree", "--classifier", help="decision-tree, naive-bayes or logistic-regression."),
    random_state: int = typer.Option(0, "--random-state", help="Seed of the workload's split and classifier."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the input (default: detected)."),
    na_values: str = na_values_option(),
    json_out: Path = typer.Option(None, "--json", help="Write the points as JSON here ('-': on stdout, alone)."),
    plot: Path = typer.Option(None, "--plot", help="Draw the frontier and the lattice view (.png or .svg)."),
    no_lattice: bool = typer.Option(False, "--no-lattice", help="Do not judge and draw the chosen point's lattice."),
    html: Path = typer.Option(None, "--html", help="Write the frontier, the lattice view and the points as an HTML page."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress on stderr."),
    max_nodes: int = typer.Option(None, "--max-nodes", help="Largest lattice each lattice search enumerates (default 10,000,000)."),
) -> None:
    """Sweep k, l, t, suppression limits and algorithms; mark and draw the privacy-utility frontier."""
    import json

    from veil.cli._progress import phase_display
    from veil.explore import chosen_point
    from veil.pipeline import Outputs

    to_stdout, document = json_out == STDOUT, None
    with user_errors():
        _check_suffixes(plot, html)
        inputs, config = _inputs(ctx, target, hierarchy)
        sensitives = split_list(sensitive, "--sensitive")
        files = {"json": None if to_stdout else json_out, "plot": plot, "html": html}
        # stderr: stdout keeps the table (or the JSON alone)
        with Outputs(files, inputs=inputs) as out, phase_display(err_console, quiet=quiet) as progress:
            data, defaults = _dataset(target, config, qi=qi, sensitive=sensitives, hierarchy=hierarchy,
                                      auto=auto_hierarchies, kind=kind, sep=sep, na_values=na_values,
                                      quiet=quiet)
            spec = _spec(data, defaults, k=k, l_values=l_values, t_values=t_values, suppression=suppression,
                         algorithm=algorithm, sensitive=sensitives, metric=metric, max_nodes=max_nodes)
            exploration = _sweep(data, spec, label=label, classifier=classifier, random_state=random_state,
                                 progress=progress)
            chosen = chosen_point(exploration)
            if not no_lattice and chosen is not None:
                progress("lattice")
            lattice = None if no_lattice else _lattice(data, spec, exploration, chosen)
            payload = _payload(exploration, chosen, lattice)
            if to_stdout:  # serialized before anything is published: a failure prints nothing
                document = json.dumps(payload, indent=2, allow_nan=False) + "\n"
            _write(out, exploration, payload, lattice, chosen, plot=plot, html=html)
    _show(document, exploration, chosen, {"JSON": files["json"], "plot": plot, "HTML": html}, to_stdout)


def _check_suffixes(plot: Path | None, html: Path | None) -> None:
    """Refuse a --plot or --html destination of another format, before any work."""
    from veil.errors import ParameterError

    if plot is not None and plot.suffix.lower() not in _PLOT_FORMATS:
        raise ParameterError(f"--plot must end in .png or .svg. Got {plot.name!r} instead.")
    if html is not None and html.suffix.lower() not in (".html", ".htm"):
        raise ParameterError(f"--html must end in .html. Got {html.name!r} instead.")


def _write(out: Any, exploration: Any, payload: dict[str, Any], lattice: Any, chosen: int | None, *,
           plot: Path | None, html: Path | None) -> None:
    """Write the plot, the page and the JSON file asked for through the one writer, then publish them."""
    from veil.explore import exploration_figure, save_figure

    drawing = exploration_figure(exploration, lattice=lattice, chosen=chosen) if plot or html else None
    if plot is not None:
        out.write("plot", lambda tmp: save_figure(drawing, tmp, format=_PLOT_FORMATS[plot.suffix.lower()]))
    if html is not None:
        out.write_text("html", _page(payload, drawing))
    if "json" in out:
        out.write_json("json", payload)
    out.commit()


def _spec(data: Any, defaults: dict, *, k: str | None, l_values: str | None, t_values: str | None,
          suppression: str | None, algorithm: str, sensitive: list[str], metric: str | None,
          max_nodes: int | None = None) -> Any:
    """The sweep the flags ask for (a configuration's suppression limit and metric as defaults)."""
    from veil.errors import ParameterError
    from veil.explore import SweepSpec, parse_values

    if len(sensitive) > 1:
        raise ParameterError(f"--sensitive names {len(sensitive)} columns; the l and t models of a sweep protect one.")

    return SweepSpec(
        k=parse_values(k, option="--k") if k else (),
        l=parse_values(l_values, option="--l") if l_values else (),
        t=parse_values(t_values, kind=float, option="--t") if t_values else (),
        suppression=parse_values(suppression, kind=float, option="--suppression") if suppression
        else (float(defaults.get("suppression", 0.0)),),
        algorithms=tuple(split_list(algorithm, "--algorithm")),
        sensitive=sensitive[0] if sensitive else (data.sensitive[0] if len(data.sensitive) == 1 else None),
        metric=metric or defaults.get("metric", "loss"), max_nodes=max_nodes,
    )


def _sweep(data: Any, spec: Any, *, label: str | None, classifier: str, random_state: int, progress: Any) -> Any:
    """Run the sweep, reporting its points as the ``sweep`` phase of the CLI's display (on stderr)."""
    from veil.explore import explore

    progress("sweep", 0, len(spec.grid()))
    return explore(data, spec, target=label, classifier=classifier, random_state=random_state,
                   progress=lambda done, total: progress("sweep", done, total))
