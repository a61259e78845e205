"""``veil anonymize``: a release from a configuration file, or from flags for the common case."""

from __future__ import annotations

from pathlib import Path

import typer

from veil.cli._app import app, err_console, parse_assignments, split_list, user_errors
from veil._lazy import require as require_extra
from veil.cli._hierarchy_options import auto_hierarchies_option, hierarchy_option, hierarchy_specs, refuse_with_config
from veil.cli._registry_help import metric_help, require_help

_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def _pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse ``ATTRIBUTE:VALUE`` options such as ``-l salary-class:2`` (a quoted name may hold a
    colon or a comma: ``-l '"salary: class":2'``)."""
    from veil.cli._lists import split_named
    from veil.errors import ParameterError

    out = {}
    for value in values or []:
        name, sep, rest = split_named(value, ":", option, last=True)
        if not sep or not name or not rest:
            raise ParameterError(f"{option} expects SENSITIVE:VALUE (e.g. salary-class:2). Got {value!r} instead.")
        out[name] = rest
    return out


def _config_from_flags(
    file: Path, *, qi: list[str], sensitive: list[str], hierarchies: dict[str, str], kinds: dict[str, str],
    k: int | None, l_diversity: dict[str, str], t_closeness: dict[str, str], suppression: float, metric: str,
    label: str | None, sep: str | None, seed: int | None, shuffle: bool, drop_suppressed: bool, target: str | None = None,
    algorithm: str = "lattice", options: dict[str, object] | None = None, engine: str = "local",
    identifiers: list[str] | None = None, insensitive: list[str] | None = None, suppressed: str | None = None,
    keep_unlisted: bool = False, allow_identifiers: list[str] | None = None, require: str | None = None,
    missing_sensitive: str = "value", na_values: str | None = None,
):
    """The release configuration the data-file flags describe, checked as a configuration file is."""
    from veil.config import ReleaseConfig, check_consistency
    from veil.data import parse_na_values
    from veil.errors import ConfigError, ParameterError
    from pydantic import ValidationError

    if not qi:
        raise ParameterError("--qi is required when anonymizing a data file (or pass a configuration file).")
    from veil.models import parse_requirements, requirement_models

    requirements = parse_requirements(require) if require is not None else []
    named = [r.attribute for r in requirements if r.attribute is not None]
    sensitive = list(dict.fromkeys(sensitive + list(l_diversity) + list(t_closeness) + named))
    attributes = _attributes(qi, sensitive, hierarchies, kinds, algorithm, identifiers, insensitive)
    models = _flag_models(k, l_diversity, t_closeness, kinds)
    models.extend(requirement_models(requirements, sensitive=sensitive, kinds=kinds))
    if not models:
        raise ParameterError("No privacy model: give at least one of -k, -l, -t or --require (or a configuration file).")
    try:
        config = ReleaseConfig(
            input={"path": str(file.resolve()), "sep": sep,
                   "na_values": None if na_values is None else list(parse_na_values(na_values))},
            attributes=attributes, models=models, suppression_limit=suppression, metric=metric, label=label, target=target,
            algorithm=algorithm, algorithm_options=options or {}, engine=engine,
            output={"shuffle": shuffle, "drop_suppressed": drop_suppressed},
            seed=seed, suppressed=suppressed, keep_unlisted=keep_unlisted,
            allow_identifiers=list(allow_identifiers or []), missing_sensitive=missing_sensitive,
        )
    except ValidationError as exc:
        raise ConfigError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None
    check_consistency(config)
    return config


def _attributes(qi: list[str], sensitive: list[str], hierarchies: dict[str, str], kinds: dict[str, str],
                algorithm: str, identifiers: list[str] | None, insensitive: list[str] | None) -> dict[str, dict]:
    """The configuration's ``attributes`` from the role flags (a QI without a hierarchy refused when needed)."""
    from veil.algorithms import ALGORITHMS
    from veil.config import hierarchy_entry
    from veil.errors import ParameterError

    attributes: dict[str, dict] = {}
    for name in qi:
        kind = kinds.get(name, "categorical")
        spec = ALGORITHMS.get(algorithm)
        needs = (spec is not None and spec.full_domain) or algorithm == "tds" or (
            algorithm == "mondrian" and kind == "categorical")
        if name not in hierarchies and needs:
            raise ParameterError(f"No hierarchy for quasi-identifier {name!r}: add --hierarchy {name}=SPEC "
                                 "(a file, or a builder such as interval:5,10 or auto), or --auto-hierarchies.")
        attributes[name] = {"role": "quasi-identifier", "kind": kind}
        if name in hierarchies:
            attributes[name]["hierarchy"] = hierarchy_entry(hierarchies[name])
    for name in sensitive:
        attributes[name] = {"role": "sensitive", "kind": kinds.get(name, "categorical")}
    for role, names in (("identifier", identifiers or []), ("insensitive", insensitive or [])):
        for name in names:
            if name in attributes:
                raise ParameterError(f"Column {name!r} is given two roles; a column has one role.")
            attributes[name] = {"role": role}
    return attributes


def _flag_models(k: int | None, l_diversity: dict[str, str], t_closeness: dict[str, str],
                 kinds: dict[str, str]) -> list[dict]:
    """The configuration's ``models`` from ``-k``, ``-l`` and ``-t``."""
    from veil.errors import ParameterError

    models: list[dict] = []
    if k is not None:
        models.append({"type": "k-anonymity", "k": k})
    for name, value in l_diversity.items():
        try:
            models.append({"type": "distinct-l-diversity", "sensitive": name, "l": int(value)})
        except ValueError:
            raise ParameterError(f"-l expects an integer l, as in {name}:2. Got {value!r} instead.") from None
    for name, value in t_closeness.items():
        try:
            t = float(value)
        except ValueError:
            raise ParameterError(f"-t expects a number t, as in {name}:0.2. Got {value!r} instead.") from None
        distance = "ordered-t-closeness" if kinds.get(name) in ("numeric", "ordinal", "date") else "equal-t-closeness"
        models.append({"type": distance, "sensitive": name, "t": t})
    return models


def _options(values: list[str] | None) -> dict[str, object]:
    """Parse ``--option KEY=VALUE``; values are read as YAML scalars (``false``, ``3``, ``0.5``)."""
    import yaml

    return {key: yaml.safe_load(value) for key, value in parse_assignments(values, "--option").items()}


# long because typer declares every option of the command as a parameter; the body parses and calls
# the library (veil.release.run_config)
@app.command("anonymize")
def anonymize_command(
    target: Path = typer.Argument(..., readable=False, help="A release configuration (.yaml/.json) or a data file (CSV/Parquet)."),
    qi: str = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated (data-file mode)."),
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive attributes, comma-separated."),
    hierarchy: list[str] = hierarchy_option(),
    auto_hierarchies: bool = auto_hierarchies_option(),
    kind: list[str] = typer.Option(None, "--kind", help="NAME=KIND (categorical, ordinal, numeric, date); repeatable."),
    k: int = typer.Option(None, "-k", "--k", help="k-anonymity: smallest class size."),
    l_diversity: list[str] = typer.Option(None, "-l", "--l-diversity", help="Distinct l-diversity, SENSITIVE:L (e.g. salary-class:2)."),
    t_closeness: list[str] = typer.Option(None, "-t", "--t-closeness", help="t-closeness (equal or ordered distance by kind), SENSITIVE:T."),
    suppression: float = typer.Option(0.0, "--suppression", help="Largest share of records that may be suppressed, in [0, 1]."),
    metric: str = typer.Option("loss", "--metric", help=metric_help()),
    label: str = typer.Option(None, "--label", help="Class attribute for the classification/infogain metrics."),
    workload_target: str = typer.Option(None, "--target", help="Add workload utility to the report: classifiers predict this attribute (U_base, U_san, U_max, A_acc)."),
    output: Path = typer.Option(None, "-o", "--output", help="Anonymized table (.csv or .parquet), written atomically."),
    json_out: Path = typer.Option(None, "--json", help="JSON report."),
    html_out: Path = typer.Option(None, "--html", help="HTML report for people (self-contained, with plots)."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the input (default: detected)."),
    seed: int = typer.Option(None, "--seed", help="Seed of the output row shuffle (reproducible output)."),
    no_shuffle: bool = typer.Option(False, "--no-shuffle", help="Keep input row order (can link output rows to input rows)."),
    drop_suppressed: bool = typer.Option(False, "--drop-suppressed", help="Old name of --suppressed drop."),
    suppressed: str = typer.Option(None, "--suppressed", help="Suppressed records: blank (default: '*' in every QI and sensitive value), drop, or keep (their sensitive values published; the suppressed group must then meet the sensitive models)."),
    na_values: str = typer.Option(None, "--na-values", help='Cell texts read as missing, comma-separated (default: "", NA, N/A, NaN, nan, NULL, null, None); --na-values "" reads only empty cells as missing, so NA is a value.'),
    missing_sensitive: str = typer.Option("value", "--missing-sensitive", help="A missing sensitive value is a 'value' of its own (default) or 'ignore'd: it adds no diversity and is not in the reference distribution."),
    identifier: str = typer.Option(None, "--identifier", help="Identifier columns, comma-separated: dropped, never copied."),
    insensitive: str = typer.Option(None, "--insensitive", help="Columns released unchanged, comma-separated."),
    keep_unlisted: bool = typer.Option(False, "--keep-unlisted", help="Release columns with no declared role unchanged (default: withheld)."),
    allow_identifier: list[str] = typer.Option(None, "--allow-identifier", help="Publish COL although the identifier scan flags it; repeatable."),
    algorithm: str = typer.Option("lattice", "--algorithm", help="An algorithm of the registry: lattice (optimal, default), datafly, mondrian, tds, mdav."),
    option: list[str] = typer.Option(None, "--option", help="KEY=VALUE option of the algorithm (e.g. strict=false); repeatable."),
    engine: str = typer.Option("local", "--engine", help="local (in memory, default), duckdb (files larger than memory) or spark."),
    require: str = typer.Option(None, "--require", help=require_help("Every model asked for must hold (adds to -k, -l, -t).")),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress on stderr (the summary is still printed)."),
) -> None:
    # long: a Typer command: one line per flag
    """Anonymize a table: optimal generalization and suppression, verified, with a report."""
    from veil.cli._progress import phase_display
    from veil.cli._summary import print_summary
    from veil.config import load_config
    from veil.release import run_config

    with user_errors():
        if html_out is not None:
            require_extra("matplotlib", feature="--html")  # before any work: no data file without its report
        if target.suffix.lower() in _CONFIG_SUFFIXES:
            flags = (algorithm != "lattice" or option or engine != "local" or suppressed or identifier or workload_target
                     or insensitive or keep_unlisted or allow_identifier or missing_sensitive != "value"
                     or na_values is not None)
            if flags:
                from veil.errors import ParameterError

                raise ParameterError(
                    "--algorithm, --option, --engine, --suppressed, --missing-sensitive, --na-values, --identifier, "
                    "--insensitive, --keep-unlisted, --allow-identifier and --target apply to data-file mode; with a "
                    "configuration file, set 'algorithm', 'algorithm_options', 'engine', 'suppressed', 'missing_sensitive', "
                    "'input.na_values', roles, 'keep_unlisted', 'allow_identifiers' and 'target' in it."
                )
            refuse_with_config(hierarchy, auto_hierarchies)
            if require is not None:
                from veil.errors import ParameterError

                raise ParameterError("--require applies to data-file mode; with a configuration file, list the models in it.")
            config = load_config(target)
        else:
            config = _config_from_flags(
                target, qi=split_list(qi, "--qi"), sensitive=split_list(sensitive, "--sensitive"),
                hierarchies=hierarchy_specs(hierarchy, auto=auto_hierarchies, quasi_identifiers=split_list(qi, "--qi"),
                                            file=target if engine == "local" else None,
                                            kinds=parse_assignments(kind, "--kind"), sep=sep),
                kinds=parse_assignments(kind, "--kind"),
                k=k, l_diversity=_pairs(l_diversity, "-l"), t_closeness=_pairs(t_closeness, "-t"),
                suppression=suppression, metric=metric, label=label, target=workload_target, sep=sep, seed=seed,
                shuffle=not no_shuffle, drop_suppressed=drop_suppressed,
                algorithm=algorithm, options=_options(option), engine=engine, require=require,
                identifiers=split_list(identifier, "--identifier"), insensitive=split_list(insensitive, "--insensitive"),
                suppressed=suppressed, keep_unlisted=keep_unlisted, missing_sensitive=missing_sensitive, na_values=na_values,
                allow_identifiers=[c for v in allow_identifier or [] for c in split_list(v, "--allow-identifier")],
            )
        with phase_display(err_console, quiet=quiet) as progress:  # stderr: stdout keeps the summary only
            result, written = run_config(
                config, output=str(output) if output else None, report=str(json_out) if json_out else None,
                progress=progress, html=str(html_out) if html_out else None,
                config_path=target if target.suffix.lower() in _CONFIG_SUFFIXES else None,
            )
    print_summary(result.report, written)
