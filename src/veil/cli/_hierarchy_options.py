"""The ``--hierarchy COL=SPEC`` and ``--auto-hierarchies`` options, shared by anonymize, risk, check and explore.

Each command declares the two options with :func:`hierarchy_option` and
:func:`auto_hierarchies_option` and then needs one call:
:func:`hierarchy_specs` (anonymize: specs for the release config, ``auto``
already resolved so the config is reproducible) or :func:`attach_hierarchies`
(risk, check, explore: hierarchies on a loaded dataset).  Both print what was chosen and why;
:func:`refuse_stray` refuses a spec for a column that would ignore it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veil.cli._app import console, esc, split_list
from veil.cli._lists import split_items, split_named
from veil.errors import HierarchyError, ParameterError

__all__ = ["hierarchy_option", "auto_hierarchies_option", "parse_hierarchy_options", "hierarchy_specs",
           "attach_hierarchies", "print_hierarchy_choices", "refuse_stray", "quote_name",
           "hierarchy_files"]

_HELP = ("COL=SPEC: a hierarchy file (ARX-style CSV) or a builder: interval:5,10,20, interval:quantiles=4,2, "
         "mask:1, date:month,year, round:10,100, group:2,10, suppress, taxonomy:FILE, auto. Repeat per column.")


def hierarchy_option() -> Any:
    """The ``--hierarchy`` option (repeatable)."""
    return typer.Option(None, "--hierarchy", help=_HELP)


def auto_hierarchies_option() -> Any:
    """The ``--auto-hierarchies`` flag."""
    return typer.Option(False, "--auto-hierarchies",
                        help="Give every quasi-identifier without --hierarchy an automatic one (printed).")


def _items(option: str) -> list[str]:
    """``a=x.csv,b=mask:1`` (several in one option, as before) → two items; ``age=interval:5,10`` stays one."""
    parts = split_items(option, "--hierarchy") if '"' in option else [p.strip() for p in option.split(",")]
    several = len(parts) > 1 and all(_named(p)[1] and _named(p)[0].strip().replace("_", "").replace(
        "-", "").replace(" ", "").replace(",", "").isalnum() for p in parts)
    return parts if several else [option]


def _named(item: str) -> tuple[str, str, str]:
    """``COL=SPEC`` split at its first ``=`` (after a quoted name: ``"zip, code"=mask:1``)."""
    return split_named(item, "=", "--hierarchy")


def parse_hierarchy_options(values: list[str] | None) -> dict[str, str]:
    """``["age=interval:5,10", "zip=mask:1"]`` → ``{"age": "interval:5,10", "zip": "mask:1"}``, each spec checked.

    Raises
    ------
    ParameterError
        An option is not ``COL=SPEC`` or names a column twice.
    HierarchyError
        A spec does not parse (the message names the column).
    """
    from veil.hierarchy import parse_spec

    out: dict[str, str] = {}
    for value in (item for option in values or [] for item in _items(option)):
        name, sep, spec = _named(value)
        name, spec = name.strip(), spec.strip()
        if not sep or not name or not spec:
            raise ParameterError(f"--hierarchy expects COL=SPEC (e.g. age=interval:5,10). Got {value!r} instead.")
        if name in out:
            raise ParameterError(f"--hierarchy gives column {name!r} twice; give one spec per column.")
        try:
            parse_spec(spec)
        except HierarchyError as exc:
            raise HierarchyError(f"--hierarchy {name}: {exc}") from None
        out[name] = spec
    return out


def hierarchy_files(values: list[str] | None) -> list[str]:
    """The files that ``--hierarchy`` options read (ARX files, taxonomies), for the writer's inputs."""
    from veil.hierarchy import parse_spec

    return [f for spec in parse_hierarchy_options(values).values() for f in parse_spec(spec).files]


def quote_name(name: str) -> str:
    """A column name as a CLI list or ``COL=SPEC`` item reads it back: CSV-quoted when it holds a
    comma, a quote, ``=`` or surrounding blanks (``zip, code`` -> ``"zip, code"``)."""
    if any(c in name for c in ',"=') or name != name.strip():
        return '"' + name.replace('"', '""') + '"'
    return name


def refuse_stray(specs: dict[str, str], columns: list[str], *, option: str = "--hierarchy",
                 listed: str = "--qi") -> None:
    """Refuse a spec for a column that is not among ``columns`` (it would be ignored).

    Raises
    ------
    ParameterError
        Naming the first such column and the columns that take a hierarchy.
    """
    stray = [name for name in specs if name not in columns]
    if stray:
        raise ParameterError(
            f"{option} names the column {stray[0]!r}, which is not in {listed} ({', '.join(columns) or 'none'}); "
            f"a hierarchy is for a quasi-identifier: fix the name or add it to {listed}."
        )


def print_hierarchy_choices(sources: dict[str, str], *, to: Any = None) -> None:
    """One line: per column the spec used, and for ``auto`` what it chose and why (on ``to``, default
    stdout; on stderr the line starts ``veil:`` as the progress lines do)."""
    if sources:
        joined = "; ".join(f"{esc(c)}={esc(s)}" for c, s in sources.items())
        (to or console).print(("veil: " if to is not None else "") + "hierarchies: " + joined,
                              highlight=False, soft_wrap=True)


def hierarchy_specs(
    values: list[str] | None, *, auto: bool, quasi_identifiers: list[str], file: Path | None = None,
    kinds: dict[str, str] | None = None, sep: str | None = None, na_values: tuple[str, ...] | None = None,
) -> dict[str, str]:
    """The spec of every column for a release config, what ``auto`` chooses on ``file`` (read with the
    missing words ``na_values``, default :data:`veil.data.DEFAULT_NA_VALUES`) printed with its reason.

    A column given ``auto`` keeps the spec ``auto`` in the release config: the
    release chooses it again on the same values (the choice is deterministic)
    and records the concrete spec and its reason in the report's
    ``hierarchies`` section.  Without ``file`` (out-of-core engines) nothing
    is printed here.

    Raises
    ------
    ParameterError
        A ``--hierarchy`` names a column that is not among ``quasi_identifiers``.
    """
    specs = parse_hierarchy_options(values)
    refuse_stray(specs, quasi_identifiers)
    if auto:
        for name in quasi_identifiers:
            specs.setdefault(name, "auto")
    automatic = [c for c, s in specs.items() if s.strip().lower() == "auto"]
    if file is None or not automatic:
        return specs
    from veil.dataset import DEFAULT_NA_VALUES, Dataset
    from veil.hierarchy import auto_source, choose, column_values

    dataset = Dataset.read(file, sep=sep, na_values=DEFAULT_NA_VALUES if na_values is None else na_values,
                           quasi_identifiers=[c for c in automatic],
                           kinds={c: k for c, k in (kinds or {}).items() if c in automatic} or None)
    sources = {}
    for name in automatic:
        values_, counts = column_values(dataset, name)
        sources[name] = auto_source(choose(values_, counts, kind=(kinds or {}).get(name), name=name))
    print_hierarchy_choices(sources)
    return specs


def attach_hierarchies(dataset: Any, values: list[str] | None, *, auto: bool,
                       kinds: dict[str, str] | None = None, to: Any = None, show: bool = True) -> Any:
    """The dataset with the hierarchies of ``--hierarchy``/``--auto-hierarchies`` (their choices printed on
    ``to``, default stdout)."""
    specs = parse_hierarchy_options(values)
    if not specs and not auto:
        return dataset
    from veil.hierarchy import resolve

    resolution = resolve(dataset, specs, auto=auto, kinds=kinds)
    if show:
        print_hierarchy_choices(resolution.sources, to=to)
    return dataset.with_hierarchies(resolution.hierarchies)
