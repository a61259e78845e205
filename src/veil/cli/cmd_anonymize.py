"""``veil anonymize``: a release from a configuration file, or from flags for the common case."""

from __future__ import annotations

from pathlib import Path

import typer

from veil.cli._app import app, err_console, esc, parse_assignments, refuse_beside_config, split_list, user_errors
from veil._lazy import require as require_extra
from veil.cli._hierarchy_options import (auto_hierarchies_option, hierarchy_option, hierarchy_specs,
                                         parse_hierarchy_options)
from veil.cli._reading_options import na_values_of, na_values_option
from veil.cli._registry_help import algorithm_help, metric_help, option_help, require_help

_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def _pairs(values: list[str] | None, option: str, sensitive: list[str]) -> dict[str, str]:
    """Parse ``ATTRIBUTE:VALUE`` options such as ``-l salary-class:2`` (a quoted name may hold a
    colon or a comma: ``-l '"salary: class":2'``); a bare ``-l 2`` applies to the one sensitive
    attribute of ``--sensitive``, and is refused when there are several or none."""
    from veil.cli._lists import split_named
    from veil.errors import ParameterError

    out = {}
    for value in values or []:
        name, sep, rest = split_named(value, ":", option, last=True)
        if not sep and rest.strip():
            if len(sensitive) != 1:
                raise ParameterError(
                    f"{option} {value} names no sensitive attribute and --sensitive gives "
                    f"{'none' if not sensitive else len(sensitive)}: give {option} SENSITIVE:{value} "
                    f"(e.g. {option} {(sensitive or ['salary-class'])[0]}:{value}).")
            name, sep, rest = sensitive[0], ":", rest.strip()
        if not sep or not name or not rest:
            raise ParameterError(f"{option} expects SENSITIVE:VALUE (e.g. salary-class:2), or VALUE with one "
                                 f"--sensitive. Got {value!r} instead.")
        if name in out:
            raise ParameterError(f"{option} gives {name!r} twice; give one value per attribute.")
        out[name] = rest
    return out


def _config_from_flags(
    file: Path, *, qi: list[str], sensitive: list[str], hierarchy: list[str] | None, auto_hierarchies: bool,
    kinds: dict[str, str], k: int | None, l_diversity: dict[str, str], t_closeness: dict[str, str],
    suppression: float, metric: str, label: str | None, sep: str | None, seed: int | None, shuffle: bool,
    drop_suppressed: bool, target: str | None = None, algorithm: str = "lattice",
    options: dict[str, object] | None = None, engine: str = "local", identifiers: list[str] | None = None,
    insensitive: list[str] | None = None, suppressed: str | None = None, keep_unlisted: bool = False,
    allow_identifiers: list[str] | None = None, require: str | None = None, max_nodes: int | None = None,
    missing_sensitive: str = "value", na_values: str | None = None,
):
    """The release configuration the data-file flags describe, checked as a configuration file is.

    The roles are checked first (a column given two roles is refused), then the hierarchies are
    made (``auto`` resolved on ``file`` with the local engine: one read of the data)."""
    from veil.config import ReleaseConfig, check_consistency
    from veil.errors import ConfigError, ParameterError
    from pydantic import ValidationError

    if not qi:
        raise ParameterError("--qi is required when anonymizing a data file (or pass a configuration file).")
    from veil.models import parse_requirements, requirement_models

    requirements = parse_requirements(require) if require is not None else []
    named = [r.attribute for r in requirements if r.attribute is not None]
    check_roles([(n, "quasi-identifier", "--qi") for n in qi] + [(n, "sensitive", "--sensitive") for n in sensitive]
                + [(n, "sensitive", "-l") for n in l_diversity] + [(n, "sensitive", "-t") for n in t_closeness]
                + [(n, "sensitive", "--require") for n in named]
                + [(n, "identifier", "--identifier") for n in identifiers or []]
                + [(n, "insensitive", "--insensitive") for n in insensitive or []])
    sensitive = list(dict.fromkeys(sensitive + list(l_diversity) + list(t_closeness) + named))
    for option, names in (("--hierarchy", parse_hierarchy_options(hierarchy)), ("--kind", kinds)):
        stray = [n for n in names if n not in qi and n not in sensitive]
        if stray:  # before any hierarchy is built
            raise ParameterError(f"{option} names {stray[0]!r}, which is neither a quasi-identifier (--qi) nor a "
                                 "sensitive attribute (--sensitive, -l, -t, --require); it would do nothing.")
    if auto_hierarchies and algorithm == "safepub":  # before `auto` reads the data and prints what it saw
        raise ParameterError("--auto-hierarchies builds hierarchies from the data; a differentially private release "
                             "(safepub) needs every hierarchy fixed before the data is read: give files (--hierarchy "
                             "COL=FILE, written once by `veil hierarchy build` and reviewed).")
    hierarchies = hierarchy_specs(hierarchy, auto=auto_hierarchies, quasi_identifiers=qi, kinds=kinds, sep=sep,
                                  file=file if engine == "local" else None, na_values=na_values_of(na_values, file))
    attributes = _attributes(qi, sensitive, hierarchies, kinds, algorithm, identifiers, insensitive, options)
    models = _flag_models(k, l_diversity, t_closeness, kinds)
    models.extend(requirement_models(requirements, sensitive=sensitive, kinds=kinds))
    if not models:
        raise ParameterError("No privacy model: give at least one of -k, -l, -t or --require (or a configuration file).")
    try:
        config = ReleaseConfig(
            input={"path": str(file.resolve()), "sep": sep,
                   "na_values": None if na_values is None else list(na_values_of(na_values, file))},
            attributes=attributes, models=models, suppression_limit=suppression, metric=metric, label=label, target=target,
            algorithm=algorithm, algorithm_options=options or {}, engine=engine,
            output={"shuffle": shuffle, "drop_suppressed": drop_suppressed},
            seed=seed, suppressed=suppressed, keep_unlisted=keep_unlisted,
            allow_identifiers=list(allow_identifiers or []), max_nodes=max_nodes, missing_sensitive=missing_sensitive,
        )
    except ValidationError as exc:
        raise ConfigError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None
    check_consistency(config)
    return config


def check_roles(roles: list[tuple[str, str, str]]) -> None:
    """``(column, role, flag)`` for every column a role flag names: a column given two roles is
    refused, naming it and both flags (``--qi age,sex --sensitive sex`` dropped ``sex`` from the
    quasi-identifiers and published it ungeneralized).

    Raises
    ------
    ParameterError
        A column is given two roles.
    """
    from veil.errors import ParameterError

    seen: dict[str, tuple[str, str]] = {}
    for name, role, flag in roles:
        first_role, first_flag = seen.setdefault(name, (role, flag))
        if first_role != role:
            raise ParameterError(f"Column {name!r} is given two roles, {first_role} ({first_flag}) and {role} "
                                 f"({flag}); a column has one role: name it in one of {first_flag} and {flag}.")


def _attributes(qi: list[str], sensitive: list[str], hierarchies: dict[str, str], kinds: dict[str, str],
                algorithm: str, identifiers: list[str] | None, insensitive: list[str] | None,
                options: dict[str, object] | None = None) -> dict[str, dict]:
    """The configuration's ``attributes`` from the role flags (a QI without a hierarchy refused when needed:
    not a categorical one that Mondrian splits in label order, ``--option categorical=ordered``)."""
    from veil.algorithms import ALGORITHMS
    from veil.config import hierarchy_entry
    from veil.errors import ParameterError

    in_label_order = algorithm == "mondrian" and str((options or {}).get("categorical", "")).strip() == "ordered"
    attributes: dict[str, dict] = {}
    for name in qi:
        kind = kinds.get(name, "categorical")
        spec = ALGORITHMS.get(algorithm)
        needs = (spec is not None and spec.full_domain) or algorithm == "tds" or (
            algorithm == "mondrian" and kind == "categorical" and not in_label_order)
        if name not in hierarchies and needs:
            raise ParameterError(f"No hierarchy for quasi-identifier {name!r}: add --hierarchy {name}=SPEC "
                                 "(a file, or a builder such as interval:5,10 or auto), or --auto-hierarchies.")
        attributes[name] = {"role": "quasi-identifier", "kind": kind}
    for name in sensitive:
        attributes[name] = {"role": "sensitive", "kind": kinds.get(name, "categorical")}
    for name in hierarchies:
        attributes[name]["hierarchy"] = hierarchy_entry(hierarchies[name])
    for role, names in (("identifier", identifiers or []), ("insensitive", insensitive or [])):
        for name in names:
            attributes[name] = {"role": role}
    return attributes


def _flag_models(k: int | None, l_diversity: dict[str, str], t_closeness: dict[str, str],
                 kinds: dict[str, str]) -> list[dict]:
    """The configuration's ``models`` from ``-k``, ``-l`` and ``-t`` (the entries the Python call makes,
    :func:`veil._frame_release.model_specs`)."""
    from veil._frame_release import model_specs
    from veil.errors import ParameterError

    l_values, t_values = {}, {}
    for name, value in l_diversity.items():
        try:
            l_values[name] = int(value)
        except ValueError:
            raise ParameterError(f"-l expects an integer l, as in {name}:2. Got {value!r} instead.") from None
    for name, value in t_closeness.items():
        try:
            t_values[name] = float(value)
        except ValueError:
            raise ParameterError(f"-t expects a number t, as in {name}:0.2. Got {value!r} instead.") from None
    return model_specs(k=k, l=l_values, t=t_values, kinds=kinds)


def _options(values: list[str] | None) -> dict[str, object]:
    """Parse ``--option KEY=VALUE``; values are read as YAML (``false``, ``3``, ``0.5``), a key given
    twice refused (:func:`veil._config_text.parse_config_text`)."""
    from veil._config_text import parse_config_text

    return {key: parse_config_text(value, json_format=False, name=f"--option {key}")
            for key, value in parse_assignments(values, "--option").items()}


#: The options that may be given beside a configuration: where to write, and how much to print.
#: Every other option describes the release, which the configuration sets.
BESIDE_CONFIG = ("output", "json_out", "html_out", "quiet", "holdout", "holdout_out", "evaluate", "budget_file",
                 "budget", "budget_delta", "dataset_name")
#: The configuration key each other option stands for (the remedy the refusal names).
_CONFIG_KEYS = {
    "qi": "attributes", "sensitive": "attributes", "identifier": "attributes", "insensitive": "attributes",
    "hierarchy": "attributes.COL.hierarchy", "auto_hierarchies": "attributes.COL.hierarchy",
    "kind": "attributes.COL.kind", "k": "models", "l_diversity": "models", "t_closeness": "models",
    "require": "models", "suppression": "suppression_limit", "metric": "metric", "label": "label",
    "workload_target": "target", "sep": "input.sep", "seed": "seed", "no_shuffle": "output.shuffle",
    "drop_suppressed": "suppressed", "suppressed": "suppressed", "keep_unlisted": "keep_unlisted",
    "allow_identifier": "allow_identifiers", "algorithm": "algorithm", "option": "algorithm_options",
    "engine": "engine", "max_nodes": "max_nodes", "importance": "algorithm_options", "epsilon": "models (type: dp)",
    "delta": "models (type: dp)", "search_budget": "models (type: dp)", "na_values": "input.na_values",
    "missing_sensitive": "missing_sensitive",
}


def _holdout(share: float | None, path: Path | None, evaluate: bool) -> object:
    """The records to withhold (``--holdout`` with ``--holdout-out``), or ``None``."""
    from veil.errors import ParameterError
    from veil.evaluate import Holdout

    if (share is None) != (path is None):
        raise ParameterError("--holdout and --holdout-out go together: the share to withhold and where it goes.")
    if evaluate and share is None:
        raise ParameterError("--evaluate attacks the release against withheld records: give --holdout and "
                             "--holdout-out too (or run veil evaluate with a control set).")
    return None if share is None else Holdout(share, str(path), evaluate)


def _config_mode(ctx: typer.Context, target: Path, *, output: Path | None, json_out: Path | None,
                 html_out: Path | None) -> tuple[object, list[str]]:
    """The configuration ``target``, refusing every option beside it but :data:`BESIDE_CONFIG` (an
    option added to the command later is refused too), and the notes to print once the release is
    written: a destination given by flag replaces the configuration's."""
    from veil.config import load_config

    refuse_beside_config(ctx, target, allowed=BESIDE_CONFIG, keys=_CONFIG_KEYS)
    config = load_config(target)
    notes = []
    for flag, given, key, configured in (("--output", output, "output.path", config.output.path),
                                         ("--json", json_out, "output.report", config.output.report),
                                         ("--html", html_out, "output.html", config.output.html)):
        if given is not None and configured is not None and config.resolve(configured).resolve() != given.resolve():
            notes.append(f"note: {flag} {esc(given)} replaced the configuration's {key} ({esc(configured)}).")
    return config, notes


# long because typer declares every option of the command as a parameter; the body parses and calls
# the library (veil.release.run_config)
@app.command("anonymize")
def anonymize_command(
    ctx: typer.Context,
    target: Path = typer.Argument(..., readable=False, help="A release configuration (.yaml/.json) or a data file (CSV/Parquet)."),
    qi: str = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated (data-file mode)."),
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive attributes, comma-separated."),
    hierarchy: list[str] = hierarchy_option(),
    auto_hierarchies: bool = auto_hierarchies_option(),
    kind: list[str] = typer.Option(None, "--kind", help="NAME=KIND (categorical, ordinal, numeric, date); repeatable."),
    k: int = typer.Option(None, "-k", "--k", help="k-anonymity: smallest class size."),
    l_diversity: list[str] = typer.Option(None, "-l", "--l-diversity", help="Distinct l-diversity, SENSITIVE:L (e.g. salary-class:2), or L alone with one --sensitive."),
    t_closeness: list[str] = typer.Option(None, "-t", "--t-closeness", help="t-closeness (equal or ordered distance by kind), SENSITIVE:T, or T alone with one --sensitive."),
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
    na_values: str = na_values_option(),
    missing_sensitive: str = typer.Option("value", "--missing-sensitive", help="A missing sensitive value is a 'value' of its own (default) or 'ignore'd: it adds no diversity and is not in the reference distribution."),
    identifier: str = typer.Option(None, "--identifier", help="Identifier columns, comma-separated: dropped, never copied."),
    insensitive: str = typer.Option(None, "--insensitive", help="Columns released unchanged, comma-separated."),
    keep_unlisted: bool = typer.Option(False, "--keep-unlisted", help="Release columns with no declared role unchanged (default: withheld)."),
    allow_identifier: list[str] = typer.Option(None, "--allow-identifier", help="Publish COL although the identifier scan flags it; repeatable."),
    algorithm: str = typer.Option("lattice", "--algorithm", help=algorithm_help()),
    importance: str = typer.Option(None, "--importance", help="local-suppression: every QI, comma-separated, the most important (blanked last) first."),
    option: list[str] = typer.Option(None, "--option", help=option_help()),
    engine: str = typer.Option("local", "--engine", help="local (in memory, default), duckdb (files larger than memory) or spark."),
    require: str = typer.Option(None, "--require", help=require_help("Every model asked for must hold (adds to -k, -l, -t).")),
    holdout: float = typer.Option(None, "--holdout", help="Withhold this share of the records from the release (never released) as a control set for `veil evaluate`."),
    holdout_out: Path = typer.Option(None, "--holdout-out", help="Where the withheld records go (CSV/Parquet): as private as the input."),
    evaluate: bool = typer.Option(False, "--evaluate", help="Attack the release against the withheld records (needs --holdout); the report gains 'evaluation'."),
    max_nodes: int = typer.Option(None, "--max-nodes", help="Largest generalization lattice the lattice search enumerates (default 10,000,000)."),
    epsilon: float = typer.Option(None, "--epsilon", help="safepub: the differential-privacy epsilon (> 0); adds dp(epsilon, delta) to --require."),
    delta: float = typer.Option(None, "--delta", help="safepub: the differential-privacy delta, in (0, 1)."),
    search_budget: float = typer.Option(None, "--search-budget", help="safepub: share of epsilon spent on the search, in (0, 1) (default 0.1)."),
    budget_file: Path = typer.Option(None, "--budget-file", help="safepub: charge (epsilon, delta) to this budget ledger, shared with veil query and veil synthesize."),
    budget: float = typer.Option(None, "--budget", help="safepub: total epsilon of the dataset in the ledger (the first time)."),
    budget_delta: float = typer.Option(None, "--budget-delta", help="safepub: total delta of the dataset (the first time; default: --delta times the releases --budget allows)."),
    dataset_name: str = typer.Option(None, "--dataset-name", help="safepub: the dataset's key in the ledger (default: a fingerprint of the records)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress on stderr (the summary is still printed)."),
) -> None:
    # long: a Typer command: one line per flag
    """Anonymize a table: optimal generalization and suppression, verified, with a report."""
    from veil.cli._progress import phase_display
    from veil.cli._summary import print_summary
    from veil.release import run_config
    from veil.algorithms.safepub._flags import dp_flags
    from veil.cli._safepub_ledger import safepub_charge

    with user_errors():
        if html_out is not None:
            require_extra("matplotlib", feature="--html")  # before any work: no data file without its report
        if target.suffix.lower() in _CONFIG_SUFFIXES:
            config, notes = _config_mode(ctx, target, output=output, json_out=json_out, html_out=html_out)
        else:
            notes = []
            kinds = parse_assignments(kind, "--kind")
            algorithm, require, suppression, suppressed = dp_flags(
                algorithm=algorithm, require=require, suppression=suppression, epsilon=epsilon, delta=delta,
                suppressed=suppressed, search_budget=search_budget, keep_unlisted=keep_unlisted, seed=seed)
            config = _config_from_flags(
                target, qi=split_list(qi, "--qi"), sensitive=split_list(sensitive, "--sensitive"),
                hierarchy=hierarchy, auto_hierarchies=auto_hierarchies, kinds=kinds,
                k=k, l_diversity=_pairs(l_diversity, "-l", split_list(sensitive, "--sensitive")),
                t_closeness=_pairs(t_closeness, "-t", split_list(sensitive, "--sensitive")),
                suppression=suppression, metric=metric, label=label, target=workload_target, sep=sep, seed=seed,
                shuffle=not no_shuffle, drop_suppressed=drop_suppressed,
                algorithm=algorithm, options={**_options(option), **({"importance": importance} if importance else {})},
                engine=engine, require=require,
                identifiers=split_list(identifier, "--identifier"), insensitive=split_list(insensitive, "--insensitive"),
                suppressed=suppressed, keep_unlisted=keep_unlisted, missing_sensitive=missing_sensitive, na_values=na_values,
                allow_identifiers=[c for v in allow_identifier or [] for c in split_list(v, "--allow-identifier")],
                max_nodes=max_nodes,
            )
        held = _holdout(holdout, holdout_out, evaluate)
        charge = safepub_charge(config, budget_file=budget_file, dataset_name=dataset_name, budget=budget,
                                budget_delta=budget_delta, files=(target, output, json_out, html_out, holdout_out))
        with phase_display(err_console, quiet=quiet) as progress:  # stderr: stdout keeps the summary only
            result, written = run_config(
                config, output=str(output) if output else None, report=str(json_out) if json_out else None,
                progress=progress, html=str(html_out) if html_out else None,
                config_path=target if target.suffix.lower() in _CONFIG_SUFFIXES else None, holdout=held,
                accountant=charge,
            )
    for note in notes:
        err_console.print(note, highlight=False, soft_wrap=True)
    print_summary(result.report, written)
