"""The ``--hierarchy COL=SPEC`` and ``--auto-hierarchies`` options, shared by anonymize, risk and check.

Each command declares the two options with :func:`hierarchy_option` and
:func:`auto_hierarchies_option` and then needs one call:
:func:`hierarchy_specs` (anonymize: specs for the release config, ``auto``
already resolved so the config is reproducible) or :func:`attach_hierarchies`
(risk, check: hierarchies on a loaded dataset).  Both print what was chosen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veil.cli._app import console, esc, split_list
from veil.cli._lists import split_items, split_named
from veil.errors import HierarchyError, ParameterError

__all__ = ["hierarchy_option", "auto_hierarchies_option", "parse_hierarchy_options", "hierarchy_specs",
           "attach_hierarchies", "print_hierarchy_choices", "refuse_with_config"]

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


def refuse_with_config(values: list[str] | None, auto: bool) -> None:
    """With a release configuration, the hierarchies are set in the file, not by options.

    Raises
    ------
    ParameterError
        ``--hierarchy`` or ``--auto-hierarchies`` was given.
    """
    if values or auto:
        raise ParameterError("--hierarchy and --auto-hierarchies apply to data-file mode; in a configuration, "
                             "set attributes.COL.hierarchy (e.g. hierarchy: auto).")


def print_hierarchy_choices(sources: dict[str, str]) -> None:
    """One line per column: the spec used, and for ``auto`` what it chose."""
    if sources:
        console.print("hierarchies: " + ", ".join(f"{esc(c)}={esc(s)}" for c, s in sources.items()),
                      highlight=False, soft_wrap=True)


def hierarchy_specs(
    values: list[str] | None, *, auto: bool, quasi_identifiers: list[str], file: Path | None = None,
    kinds: dict[str, str] | None = None, sep: str | None = None,
) -> dict[str, str]:
    """The spec of every column for a release config; ``auto`` is resolved on ``file`` when given.

    Resolving ``auto`` here (one read of the file) puts the concrete choice
    (``interval:5,10,20,40``) in the release config, so the run is
    reproducible, and prints it.  Without ``file`` (out-of-core engines) the
    spec stays ``auto`` and is chosen when the hierarchy is built.
    """
    specs = parse_hierarchy_options(values)
    if auto:
        for name in quasi_identifiers:
            specs.setdefault(name, "auto")
    automatic = [c for c, s in specs.items() if s.strip().lower() == "auto"]
    if file is None or not automatic:
        return specs
    from veil.dataset import Dataset
    from veil.hierarchy import choose, column_values

    dataset = Dataset.read(file, sep=sep, quasi_identifiers=[c for c in automatic],
                           kinds={c: k for c, k in (kinds or {}).items() if c in automatic} or None)
    sources = {}
    for name in automatic:
        values_, counts = column_values(dataset, name)
        specs[name] = str(choose(values_, counts, kind=(kinds or {}).get(name), name=name))
        sources[name] = f"auto ({specs[name]})"
    print_hierarchy_choices(sources)
    return specs


def attach_hierarchies(dataset: Any, values: list[str] | None, *, auto: bool,
                       kinds: dict[str, str] | None = None) -> Any:
    """The dataset with the hierarchies of ``--hierarchy``/``--auto-hierarchies`` (their choices printed)."""
    specs = parse_hierarchy_options(values)
    if not specs and not auto:
        return dataset
    from veil.hierarchy import resolve

    resolution = resolve(dataset, specs, auto=auto, kinds=kinds)
    print_hierarchy_choices(resolution.sources)
    return dataset.with_hierarchies(resolution.hierarchies)
