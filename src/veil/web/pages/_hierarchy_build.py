"""The Hierarchies page's work: a builder choice as the config's ``hierarchy`` entry, the hierarchy
the release would build from it, and the preview of its levels.

Everything goes through the library's own path: the table is read by
:func:`veil.release.dataset_from_config`, a hierarchy is built by
:func:`veil.config.build_hierarchies` (so ``auto`` chooses as the release chooses), the groups of
one column are :func:`veil.hierarchy.level_counts`, and the classes of all quasi-identifiers
together are a :class:`veil.classes.ClassTable` generalized to the chosen levels.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from veil.errors import ColumnNotFoundError, ConfigError, ParameterError
from veil.web._workspace import safe_name
from veil.web.pages._roles_config import input_of, validated
from veil.web.pages.data import file_key

__all__ = ["BUILDER_FORMS", "quasi_identifiers", "entry_of", "form_of", "hierarchy_of", "preview", "csv_text",
           "hierarchy_files", "check_covers", "saved_entry", "check_qi", "UPLOADED", "search_levels", "SAVED", "shown_entry"]

#: The builders of the spec grammar (veil.hierarchy.BUILDERS) as the form offers them: a label,
#: what the parameters field holds, and its default.
BUILDER_FORMS: dict[str, dict[str, str]] = {
    "auto": {"label": "auto (chosen from the values)", "params": "", "default": ""},
    "interval": {"label": "intervals (numbers)", "params": "widths per level, each a multiple of the one before "
                 "(5,10,20), or quantiles=4,2", "default": "5,10,20"},
    "round": {"label": "rounding (numbers)", "params": "steps per level (10,100)", "default": "10,100"},
    "mask": {"label": "masking (codes, ZIP)", "params": "characters masked per level, from the right", "default": "1"},
    "date": {"label": "dates", "params": "levels among month, year, decade", "default": "month,year"},
    "ordered": {"label": "ordered categories", "params": "neighbours merged in runs of (2,4)", "default": "2,4"},
    "group": {"label": "grouping rare categories", "params": "fewer records than these become (other) (5,20)",
              "default": "5,20"},
    "suppress": {"label": "suppress (the value, then *)", "params": "", "default": ""},
    "file": {"label": "hierarchy file (ARX layout)", "params": "", "default": ""},
    "taxonomy": {"label": "taxonomy file (parent,child lines)", "params": "", "default": ""},
}
#: The builder choice of a hierarchy a configuration holds in its own keys (``intervals: {...}``,
#: ``flat: true``, ...): used as it is saved.
SAVED = "saved"
#: How many labels of each level the preview shows.
EXAMPLES = 6
#: state.results: the hierarchy files uploaded on the page (listed whatever their name).
UPLOADED = "hierarchies.uploaded"
#: A file name that says it holds a hierarchy (the bundled ``adult_hierarchy_age.csv``, a download
#: ``age-hierarchy.csv``, a ``taxonomy`` file).
_HIERARCHY_NAME = re.compile(r"hierarch|taxonom", re.IGNORECASE)
#: The files a run writes (``run-3-release.csv``): never a hierarchy.
_RUN_OUTPUT = re.compile(r"run-\d+-")


def quasi_identifiers(config: dict[str, Any]) -> list[str]:
    """The quasi-identifiers of the saved roles (a ParameterError before the roles are saved)."""
    attributes = config.get("attributes")
    if not attributes:
        raise ParameterError("save the roles first (Roles): hierarchies are built for the quasi-identifiers.")
    return [n for n, a in attributes.items() if a.get("role") == "quasi-identifier"]


def check_qi(config: dict[str, Any], qi: str) -> None:
    qis = quasi_identifiers(config)
    if qi not in qis:
        raise ColumnNotFoundError(f"{qi!r} is not a quasi-identifier; the quasi-identifiers are: "
                                  f"{', '.join(qis) or 'none (set them on the Roles page)'}.")


def hierarchy_files(workspace) -> list[str]:
    """The CSV files of the workspace that look like hierarchy files: named so (``hierarchy``,
    ``taxonomy``), uploaded on the page, or named by the configuration; never the open table nor
    a run's output."""
    config = workspace.state.config
    named = set(workspace.state.results.get(UPLOADED, ()))
    for name, attribute in (config.get("attributes") or {}).items():
        if isinstance(attribute, dict) and attribute.get("role") == "quasi-identifier":
            try:
                named.update(_files(_entry(config, name)))
            except (ValueError, TypeError, AttributeError, ConfigError):
                continue  # an entry the page cannot read names no file here
    return [f for f in workspace.files() if f.lower().endswith(".csv") and f != workspace.state.data
            and not _RUN_OUTPUT.match(f) and (_HIERARCHY_NAME.search(f) or f in named)]


def search_levels(config: dict[str, Any], qi: str) -> tuple[int | None, int | None]:
    """The levels the run's search may choose for ``qi`` (``min_level``, ``max_level``; None: any)."""
    attribute = config["attributes"][qi]
    return attribute.get("min_level"), attribute.get("max_level")


def entry_of(workspace, qi: str, builder: str, params: str, file: str) -> dict[str, str]:
    """The config's ``hierarchy`` entry for a builder and its parameters (``{file: NAME}`` for a
    hierarchy file, ``{spec: TEXT}`` otherwise), checked as the config checks it."""
    from pydantic import ValidationError

    from veil.config import HierarchySpec
    from veil.hierarchy import parse_spec

    builder = builder.strip().lower()
    if builder not in (*BUILDER_FORMS, SAVED):
        raise ConfigError(f"attributes.{qi}.hierarchy: the builder must be one of {', '.join(BUILDER_FORMS)}. "
                          f"Got {builder!r} instead.")
    if builder == SAVED:  # a configuration's own builder keys (intervals: {...}, flat: true), kept as they are
        entry = saved_entry(workspace.state.config, qi)
    elif builder in ("file", "taxonomy"):
        if not file:
            raise ConfigError(f"attributes.{qi}.hierarchy: choose or upload a {builder} file.")
        name = safe_name(file)
        workspace.existing(name)
        entry = {"file": name} if builder == "file" else {"spec": f"taxonomy:{name}"}
    elif builder in ("auto", "suppress"):
        entry = {"spec": builder}
    else:
        entry = {"spec": f"{builder}:{params.strip()}"}
    try:
        HierarchySpec(**entry)
    except ValidationError as exc:
        raise ConfigError(f"attributes.{qi}.hierarchy: " + "; ".join(e["msg"].removeprefix("Value error, ")
                                                                    for e in exc.errors())) from None
    if builder not in ("file", "taxonomy", SAVED):  # as the grammar writes it: "interval:5,10", "date:month,year"
        entry = {"spec": str(parse_spec(entry["spec"]))}
    return entry


def form_of(entry: dict[str, Any] | str | None) -> dict[str, str]:
    """The builder form's fields for a config ``hierarchy`` entry (the reverse of :func:`entry_of`)."""
    from veil.hierarchy import parse_spec

    if entry is None:
        return {"builder": "auto", "params": "", "file": ""}
    if isinstance(entry, str):
        entry = {"spec": entry}
    if entry.get("file"):
        return {"builder": "file", "params": "", "file": str(entry["file"])}
    if entry.get("spec"):
        spec = parse_spec(entry["spec"])
        if spec.builder in ("file", "taxonomy"):
            return {"builder": spec.builder, "params": "", "file": spec.path}
        text = str(spec)
        return {"builder": spec.builder, "params": text.partition(":")[2], "file": ""}
    return {"builder": SAVED, "params": "", "file": ""}  # the config's builder keys (intervals: {...}): as saved


def _base(workspace, config: dict[str, Any]):
    """The table as the release reads it (roles, kinds, missing values), cached per file and roles."""
    from veil.release import dataset_from_config

    plain = {n: {k: v for k, v in a.items() if k != "hierarchy"} for n, a in config["attributes"].items()}
    source = input_of(workspace, config)
    key = (file_key(workspace), json.dumps([source, plain], sort_keys=True, default=str))
    cached = workspace.state.results.get("hierarchies.base")
    if cached is not None and cached[0] == key:
        return cached[1]
    # the identifiers' de-identification leaves the quasi-identifiers as they are: not run here
    release = validated(workspace, {"input": source, "attributes": _with_auto(plain)})
    dataset = dataset_from_config(release.model_copy(update={"attributes": {
        n: a.model_copy(update={"hierarchy": None}) for n, a in release.attributes.items()}}))
    workspace.state.results["hierarchies.base"] = (key, dataset)
    return dataset


def _with_auto(attributes: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {n: ({**a, "hierarchy": {"spec": "auto"}} if a.get("role") == "quasi-identifier" else a)
            for n, a in attributes.items()}


def hierarchy_of(workspace, config: dict[str, Any], qi: str, entry: dict[str, Any]):
    """``(hierarchy, source)``: what the release builds for ``qi`` from ``entry`` (cached), and what
    it came from (with what ``auto`` chose and why)."""
    from veil.config import build_hierarchies

    dataset = _base(workspace, config)
    files = [workspace.path(f) for f in _files(entry)]
    stamp = [(f.name, f.stat().st_mtime_ns) for f in files if f.is_file()]
    key = (file_key(workspace), qi, json.dumps([entry, stamp, config["attributes"][qi].get("kind")], sort_keys=True))
    cache = workspace.state.results.setdefault("hierarchies.cache", {})
    if key not in cache:
        one = {"input": input_of(workspace, config), "attributes": {qi: {**config["attributes"][qi], "hierarchy": entry}}}
        resolution = build_hierarchies(validated(workspace, one), dataset)
        if len(cache) > 64:
            cache.clear()
        cache[key] = (resolution.hierarchies[qi], resolution.sources[qi])
    return cache[key]


def _files(entry: dict[str, Any]) -> list[str]:
    from veil.hierarchy import parse_spec

    if entry.get("file"):
        return [entry["file"]]
    return list(parse_spec(entry["spec"]).files) if entry.get("spec") else []


def check_covers(workspace, config: dict[str, Any], qi: str, hierarchy) -> list:
    """The groups of each level (:func:`veil.hierarchy.level_counts`); a HierarchyError naming a
    value of the column the hierarchy does not cover."""
    from veil.hierarchy import column_values, level_counts

    values, counts = column_values(_base(workspace, config), qi)
    return level_counts(hierarchy, values, counts, column=qi, examples=EXAMPLES)


def preview(workspace, config: dict[str, Any], qi: str, entry: dict[str, Any], levels: dict[str, int],
            *, k: int = 5, show_values: bool = False) -> dict[str, Any]:
    """Per level of ``qi``'s hierarchy: its groups (classes of ``qi`` alone) and smallest group, a
    sample of labels, and the classes, smallest class and records in classes below ``k`` of all
    quasi-identifiers together, the others at their chosen ``levels``."""
    from veil.classes import ClassTable

    hierarchy, source = hierarchy_of(workspace, config, qi, entry)
    alone = check_covers(workspace, config, qi, hierarchy)
    qis = quasi_identifiers(config)
    built = {q: hierarchy if q == qi else _saved_hierarchy(workspace, config, q) for q in qis}
    chosen = {q: min(max(int(levels.get(q, 0)), 0), built[q].height) for q in qis}
    table = ClassTable.from_dataset(_base(workspace, config), quasi_identifiers=qis, sensitive=[], hierarchies=built)
    rows = []
    for summary in alone:
        together = table.generalize({**chosen, qi: summary.level})
        labels = [label for label, _ in summary.examples] if summary.level or show_values else None
        counts = together.counts
        rows.append({"level": summary.level, "groups": summary.groups, "smallest": summary.smallest,
                     "largest": summary.largest, "labels": labels, "classes": int(together.n_classes),
                     "smallest_class": int(counts.min()) if together.n_classes else 0,
                     "below_k": int(counts[counts < k].sum())})
    low, high = search_levels(config, qi)
    return {"qi": qi, "entry": entry, "source": source, "levels": rows, "chosen": chosen[qi], "k": k,
            "min_level": low, "max_level": high, "others": {q: level for q, level in chosen.items() if q != qi}}


def _saved_hierarchy(workspace, config: dict[str, Any], qi: str):
    """The hierarchy saved for another quasi-identifier (the counts of all together need it); its
    error names that quasi-identifier."""
    from veil.errors import VeilError

    try:
        return hierarchy_of(workspace, config, qi, _entry(config, qi))[0]
    except VeilError as exc:
        raise ConfigError(f"the saved hierarchy of {qi!r} (the counts of all quasi-identifiers together need it; "
                        f"fix it on its card): {exc}") from None


def _entry(config: dict[str, Any], qi: str) -> dict[str, Any]:
    entry = config["attributes"][qi].get("hierarchy") or {"spec": "auto"}
    return {"spec": entry} if isinstance(entry, str) else entry


def csv_text(hierarchy) -> str:
    """The hierarchy in the ARX layout veil reads: one row per value, one column per level, ``;``."""
    import io

    buffer = io.StringIO()
    hierarchy.to_csv(buffer, sep=";")
    return buffer.getvalue()


def shown_entry(entry: dict[str, Any]) -> str:
    """A ``hierarchy`` entry as the page shows it (and its script compares): the spec, the file,
    or the entry as compact JSON."""
    return entry.get("spec") or entry.get("file") or json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


def saved_entry(config: dict[str, Any], qi: str) -> dict[str, Any]:
    """The ``hierarchy`` entry the configuration holds for ``qi`` (``auto`` when none)."""
    return _entry(config, qi)


def freeze(workspace, config: dict[str, Any]) -> list[str]:
    """Each quasi-identifier's hierarchy built from the column's values (a builder, ``auto``) written
    as a file of the workspace and used as ``{file: NAME}``: a differentially private release (SafePub)
    needs hierarchies fixed before the data is read (docs/algorithms/safepub.md), and the steward has
    seen each one on the Hierarchies page, as `veil hierarchy build` writes one to review.  Returns the
    files written."""
    from veil.config import HierarchySpec

    written = []
    for qi in quasi_identifiers(config):
        entry = _entry(config, qi)
        if not HierarchySpec(**entry).reads_the_data():
            continue
        name = safe_name(f"{re.sub(r'[^A-Za-z0-9_-]', '_', qi) or 'column'}-hierarchy.csv")
        workspace.write_bytes(name, csv_text(hierarchy_of(workspace, config, qi, entry)[0]).encode())
        config["attributes"][qi]["hierarchy"] = {"file": name}
        written.append(name)
    if written:
        workspace.state.results[UPLOADED] = [*workspace.state.results.get(UPLOADED, ()), *written]
    return written
