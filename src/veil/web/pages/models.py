"""Models: the privacy models, the suppression limit, the metric and the algorithm, in forms
generated from the registries (:mod:`veil.web.pages._forms`), with sdcApp's live count of the
records that violate k = 2, 3 and 5 before anonymization.

The answers are written to the release configuration in progress (``state.config``) under the
configuration's own keys: ``models`` (the list ``veil anonymize CONFIG`` reads), ``suppression_limit``,
``metric``, ``algorithm``, ``algorithm_options`` (typed values from the fields the algorithm's declared
options generate, :mod:`veil.web.pages._algorithm_fields`), ``label`` and ``target``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from veil.errors import ConfigError, VeilError
from veil.web._render import render, workspace_of
from veil.web.pages import _hierarchy_build as hb
from veil.web.pages.data import off_loop
from veil.web.pages._algorithm_fields import algorithm_forms, read_algorithm_options, typed_options
from veil.web.pages._forms import (DEFAULTS, bound_settings, check_models, in_page_words, metric_choices, model_forms,
                                   parse_models)

__all__ = ["NAV", "ROUTES", "settings", "violations", "roles", "attributes", "VIOLATION_KS"]

NAV = ("Models", "/models")
#: The k of the violation counts (sdcApp's "records violating 2-, 3- and 5-anonymity").
VIOLATION_KS = (2, 3, 5)


def settings(workspace) -> dict[str, Any]:
    """The models, limit, metric and algorithm in progress (the defaults where nothing was chosen)."""
    config = workspace.state.config
    return {key: config.get(key, value) for key, value in DEFAULTS.items()} | {
        "label": config.get("label"), "target": config.get("target")}


def attributes(workspace) -> tuple[dict[str, Any], bool]:
    """The configuration's ``attributes`` and ``False``; before the Roles page was saved, the
    scanner's suggested roles with ``auto`` hierarchies (the Roles page's own defaults) and ``True``."""
    saved = workspace.state.config.get("attributes")
    if saved is not None or workspace.state.data is None:
        return saved or {}, False
    from veil.web.pages._roles_config import default_attributes
    from veil.web.pages.data import column_summary

    return default_attributes(column_summary(workspace)), True


def roles(workspace) -> dict[str, list[str]]:
    """Column names by role, from the configuration's ``attributes`` (see :func:`attributes`)."""
    out: dict[str, list[str]] = {"quasi-identifier": [], "sensitive": [], "insensitive": [], "identifier": []}
    for name, spec in attributes(workspace)[0].items():
        role = spec.get("role") if isinstance(spec, dict) else getattr(spec, "role", None)
        out.setdefault(str(role), []).append(name)
    return out


def violations(sizes: np.ndarray, ks=VIOLATION_KS) -> list[dict[str, Any]]:
    """For each k: the records in classes smaller than k, and their share of the records in classes.

    Examples
    --------
    >>> [v["records"] for v in violations(np.array([1, 2, 4, 7]))]
    [1, 3, 7]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    out = []
    for k in ks:
        records = int(sizes[sizes < k].sum())
        out.append({"k": k, "records": records, "share": records / total if total else 0.0,
                    "classes": int((sizes < k).sum())})
    return out


def before_counts(workspace) -> list[dict[str, Any]] | None:
    """The violation counts of the input on its quasi-identifiers at level 0 (cached per file and QIs);
    ``None`` before a table and its quasi-identifiers are chosen."""
    qis = roles(workspace)["quasi-identifier"]
    if workspace.state.data is None or not qis:
        return None
    key = (workspace.state.data, tuple(qis))
    cached = workspace.state.results.get("violations_before")
    if cached is not None and cached[0] == key:
        return cached[1]
    from veil.dataset import Dataset
    from veil.risk._sizes import class_sizes

    dataset = Dataset.read(workspace.existing(workspace.state.data), sep=workspace.state.sep, quasi_identifiers=qis)
    counts = violations(class_sizes(dataset).counts)
    workspace.state.results["violations_before"] = (key, counts)
    return counts


async def _page(request: Request, chosen: dict[str, Any], *, error: str | None = None, status: int = 200):
    workspace = workspace_of(request)
    counts = await off_loop(workspace, before_counts, workspace)  # a read of the table: off the server's loop
    by_role = roles(workspace)
    others = [n for role in ("sensitive", "insensitive") for n in by_role.get(role, [])]
    return render(request, "models.html.j2", status=status, error=error, chosen=chosen,
                  forms=model_forms(chosen["models"], by_role["sensitive"], tables(workspace)),
                  algorithms=algorithm_forms(chosen["algorithm"], chosen.get("algorithm_options")),
                  metrics=metric_choices(), qis=by_role["quasi-identifier"], sensitive=by_role["sensitive"],
                  others=others, counts=counts,
                  suggested=attributes(workspace)[1])


def tables(workspace) -> list[str]:
    """The workspace's tables a model may take by file (a population): not the open table (a table
    is not its own population), nor a hierarchy or a run's release."""
    return [f for f in workspace.files()
            if f != workspace.state.data and "_hierarchy_" not in f and not f.startswith("run-")]


def _check_tables(workspace, models: list[dict[str, Any]]) -> None:
    """Each table a model names is a file of the workspace (the one-line error otherwise)."""
    from veil._config_tables import TABLE_KEYS

    for spec in models:
        for key in TABLE_KEYS:
            if isinstance(spec.get(key), str):
                workspace.existing(spec[key])


async def page(request: Request):
    return await _page(request, settings(workspace_of(request)))


def _limit(text: Any) -> Any:
    """The suppression limit from the form, a percentage (5 -> 0.05)."""
    try:
        return round(float(str(text).strip()) / 100.0, 12)
    except ValueError:
        raise ConfigError(f"suppression_limit: {str(text)[:40]!r} is not a percentage (0 to 100).") from None


def _chosen(form: Any) -> dict[str, Any]:
    """The form's answers; the algorithm's options read from its declared fields (checked by :func:`_check`)."""
    blank = lambda name: (str(form.get(name) or "").strip() or None)  # noqa: E731
    models = parse_models(form)
    algorithm = bound_settings(models).get("algorithm") or str(form.get("algorithm", "lattice"))
    return {"models": models, "suppression_limit": _limit(form.get("suppression", "0")),
            "metric": str(form.get("metric", "loss")), "algorithm": algorithm,
            "algorithm_options": read_algorithm_options(form, algorithm), "label": blank("label"),
            "target": blank("target")}


def _check(chosen: dict[str, Any], sensitive: list[str]) -> None:
    """The configuration's own rules for these keys (the CLI's messages); the algorithm's options typed."""
    from veil.algorithms import ALGORITHMS
    from veil.utility import METRICS

    check_models(chosen["models"], sensitive, chosen["algorithm"])
    if not 0.0 <= chosen["suppression_limit"] <= 1.0:
        raise ConfigError("suppression_limit must be between 0% and 100%.")
    if chosen["metric"] not in METRICS:
        raise ConfigError(f"metric must be one of {', '.join(METRICS)}. Got {chosen['metric']!r} instead.")
    if chosen["algorithm"] not in ALGORITHMS:
        raise ConfigError(f"algorithm must be one of {', '.join(ALGORITHMS)}. Got {chosen['algorithm']!r} instead.")
    if chosen["algorithm_options"] and not ALGORITHMS[chosen["algorithm"]].takes_options:
        raise ConfigError(f"algorithm_options: the {chosen['algorithm']} algorithm takes no options.")
    chosen["algorithm_options"] = typed_options(chosen["algorithm"], chosen["algorithm_options"])


async def save(request: Request):
    workspace = workspace_of(request)
    form = await request.form()
    try:
        chosen = _chosen(form)
    except VeilError as exc:
        return await _page(request, settings(workspace), error=f"error: {in_page_words(str(exc))}", status=400)
    bound = bound_settings(chosen["models"])  # e.g. dp: SafePub, a 100% limit, suppressed records dropped
    chosen.update({k: v for k, v in bound.items() if k in chosen})
    try:
        _check(chosen, roles(workspace)["sensitive"])
        _check_tables(workspace, chosen["models"])
    except VeilError as exc:
        return await _page(request, chosen, error=f"error: {in_page_words(str(exc))}", status=400)
    if chosen["algorithm"] == "safepub":  # hierarchies fixed before the data is read, as files the steward saw
        try:
            await off_loop(workspace, hb.freeze, workspace, workspace.state.config)
        except VeilError as exc:
            return await _page(request, chosen, error=f"error: {in_page_words(str(exc))}", status=400)
    with workspace.lock:
        config = workspace.state.config
        if "suppressed" in bound:
            config["suppressed"] = bound["suppressed"]
        for key, value in chosen.items():
            if key in ("label", "target") and value is None:
                config.pop(key, None)
            else:
                config[key] = value
    return RedirectResponse("/run", status_code=303)


async def add_table(request: Request):
    """Put a table into the workspace for a model that takes one by file (a population), without
    opening it: the open table and the choices so far stay."""
    from veil.errors import ParameterError
    from veil.web.pages.data import save_upload

    workspace = workspace_of(request)
    item = (await request.form()).get("file")
    if getattr(item, "filename", None) == workspace.state.data:
        raise ParameterError(f"{item.filename!r} is the open table's name: upload the population under another name.")
    await save_upload(workspace, item)
    return RedirectResponse("/models#more-models", status_code=303)


ROUTES = [
    Route("/models", page, methods=["GET"]),
    Route("/models", save, methods=["POST"]),
    Route("/models/table", add_table, methods=["POST"]),
]
