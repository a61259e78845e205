"""The release configuration behind the Roles and Hierarchies pages.

``state.config`` is the document ``veil anonymize CONFIG`` reads; these helpers change its
``attributes`` and ``deidentify`` keys and check the result the way the CLI does:
:class:`veil.config.ReleaseConfig` (its pydantic errors joined into one line, as
``veil anonymize`` joins them) and :func:`veil.config.check_consistency`.  What the release does
with each column comes from the release policy itself (:func:`veil.release.policy_from_config`).
"""

from __future__ import annotations

import copy
import os
import typing
from typing import Any

from veil.errors import ConfigError

__all__ = ["ROLES", "KINDS", "WITHHELD", "IDENTIFIER_ACTIONS", "PLACEHOLDER_MODELS", "default_attributes",
           "with_roles", "validated", "treatments", "action_of", "KEY_VARIABLE", "key_missing", "input_of",
           "PUBLISHED_AS_IS", "allowed_of", "release_policy"]

#: A column left out of ``attributes``: withheld by the release policy (never written).
WITHHELD = "withheld"
#: The environment variable the keyed pseudonyms read their key from (docs/deidentification.md).
KEY_VARIABLE = "VEIL_PSEUDONYM_KEY"
#: What to do with an identifier: its ``deidentify.columns`` entry (None: dropped by its role).
IDENTIFIER_ACTIONS: dict[str, dict[str, str] | None] = {
    "drop": None,
    "pseudonymize": {"action": "pseudonymize"},
    "pseudonymize-random": {"action": "pseudonymize", "method": "random"},
}
#: The roles whose column is published as it is, the only ones ``allow_identifiers`` may name (a
#: withheld column too when the configuration keeps unlisted columns).
PUBLISHED_AS_IS = ("sensitive", "insensitive")
#: The models a check uses while the Models page has set none (never written to the state).
PLACEHOLDER_MODELS = [{"type": "k-anonymity", "k": 5}]


def _literal(field: str) -> tuple[str, ...]:
    from veil.config import AttributeSpec

    return typing.get_args(AttributeSpec.model_fields[field].annotation)


#: The roles a release configuration allows, and the kinds.
ROLES: tuple[str, ...] = _literal("role")
KINDS: tuple[str, ...] = _literal("kind")


def default_attributes(columns: list[dict]) -> dict[str, dict[str, Any]]:
    """The scanner's suggested roles, ``auto`` hierarchies for the quasi-identifiers."""
    return {c["name"]: _entry(c["role"], None, {}) for c in columns}


def _entry(role: str, kind: str | None, previous: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": role}
    if kind:
        entry["kind"] = kind
    if role == "quasi-identifier":
        for key in ("domain", "min_level", "max_level", "weight"):
            if key in previous and previous.get("role") == role:
                entry[key] = previous[key]
        entry["hierarchy"] = previous.get("hierarchy") or {"spec": "auto"}
    elif role == "sensitive" and previous.get("hierarchy") and previous.get("role") == role:
        entry["hierarchy"] = previous["hierarchy"]  # hierarchical t-closeness reads it
    return entry


def action_of(config: dict[str, Any], column: str) -> str:
    """The identifier action a configuration holds for ``column`` (``drop`` when none)."""
    spec = ((config.get("deidentify") or {}).get("columns") or {}).get(column)
    for name, entry in IDENTIFIER_ACTIONS.items():
        if entry is not None and spec == entry:
            return name
    return "drop"


def allowed_of(config: dict[str, Any]) -> set[str]:
    """The columns the configuration publishes although the identifier scan flags them."""
    allowed = config.get("allow_identifiers")
    return {str(c) for c in allowed} if isinstance(allowed, list) else set()


def with_roles(config: dict[str, Any], choices: dict[str, tuple[str, str, str | None]],
               allowed: set[str] | None = None) -> dict[str, Any]:
    """A copy of ``config`` with ``attributes``, ``deidentify`` and ``allow_identifiers`` from
    ``{column: (role, action, kind)}`` and the columns the steward checked (``allowed``; the
    configuration's own when None).

    Role :data:`WITHHELD` leaves the column out (the release withholds it); an identifier's action
    other than ``drop`` becomes its ``deidentify.columns`` entry.  A quasi-identifier keeps its
    hierarchy (``auto`` when it had none).  ``allow_identifiers`` keeps the checked columns that
    are published as they are (an allowance on any other would be refused by the release).
    """
    out = copy.deepcopy(config)
    allowed = allowed_of(config) if allowed is None else set(allowed)
    as_is = (*PUBLISHED_AS_IS, WITHHELD) if config.get("keep_unlisted") else PUBLISHED_AS_IS
    allow = [c for c, (role, _, _) in choices.items() if c in allowed and role in as_is]
    if allow:
        out["allow_identifiers"] = allow
    else:
        out.pop("allow_identifiers", None)
    before = out.get("attributes") or {}
    section = dict(out.get("deidentify") or {})
    actions = dict(section.get("columns") or {})
    attributes = {}
    for column, (role, action, kind) in choices.items():
        if role not in (*ROLES, WITHHELD):
            raise ConfigError(f"attributes.{column}.role must be one of {', '.join(ROLES)} (or {WITHHELD}). "
                              f"Got {role!r} instead.")
        if kind and kind not in KINDS:
            raise ConfigError(f"attributes.{column}.kind must be one of {', '.join(KINDS)}. Got {kind!r} instead.")
        if action not in IDENTIFIER_ACTIONS:
            raise ConfigError(f"deidentify.columns.{column}: the action must be one of "
                              f"{', '.join(IDENTIFIER_ACTIONS)}. Got {action!r} instead.")
        if isinstance(actions.get(column), dict) and actions[column].get("action") == "pseudonymize":
            del actions[column]
        if role == "identifier" and IDENTIFIER_ACTIONS[action] is not None:
            actions[column] = dict(IDENTIFIER_ACTIONS[action])
        if role != WITHHELD:
            attributes[column] = _entry(role, kind, before.get(column, {}))
    out["attributes"] = attributes
    if actions:
        section["columns"] = actions
    else:
        section.pop("columns", None)
    if section:
        out["deidentify"] = section
    else:
        out.pop("deidentify", None)
    return out


def release_policy(workspace, config: dict[str, Any], columns: list[str], frame=None) -> tuple[dict, str | None]:
    """``(treatments, error)``: what the release does with each column (:func:`treatments`) and the
    CLI's one-line error when the configuration does not pass its checks; the treatments are still
    given when only the consistency check fails (no quasi-identifier yet, say)."""
    from veil.errors import VeilError

    try:
        return treatments(validated(workspace, config), columns, frame), None
    except VeilError as exc:
        error = f"error: {exc}"
    try:
        return treatments(validated(workspace, config, consistent=False), columns, frame), error
    except VeilError:
        return {}, error


def validated(workspace, config: dict[str, Any], *, consistent: bool = True):
    """``config`` as a :class:`veil.config.ReleaseConfig` (relative paths in the workspace), checked
    as ``veil anonymize`` checks it (``consistent=False``: its schema only); the Models page's
    models, or :data:`PLACEHOLDER_MODELS`."""
    from pydantic import ValidationError

    from veil.config import ReleaseConfig, check_consistency

    payload = {**config, "input": input_of(workspace, config), "base_dir": str(workspace.root)}
    if not payload.get("models"):
        payload["models"] = PLACEHOLDER_MODELS
    try:
        release = ReleaseConfig(**payload)
    except ValidationError as exc:
        raise ConfigError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None
    if consistent:
        check_consistency(release)
    return release


def input_of(workspace, config: dict[str, Any]) -> dict[str, Any]:
    """The configuration's ``input`` section with the open table of the workspace as its path (and
    separator), as the Run page writes it: a configuration pasted without ``input``, or naming
    another path, is read against the table that is open."""
    state = workspace.state
    section = config.get("input")
    section = dict(section) if isinstance(section, dict) else {}
    if state.data is None:
        return section
    section["path"] = state.data
    if state.sep:
        section["sep"] = state.sep
    return section


def treatments(release, columns: list[str], frame=None) -> dict[str, dict[str, str]]:
    """Per column, what the release policy does with it (``generalized``, ``dropped``,
    ``pseudonymized``, ``unchanged``, ...) and, given the table, whether the identifier scan would
    refuse to publish it."""
    from veil.release import policy_from_config

    policy = policy_from_config(release)
    roles = {name: attribute.role for name, attribute in release.attributes.items()}
    decided = policy.treatments(columns, roles)
    flagged = set()
    if frame is not None:
        as_is = [c.name for c in decided if c.treatment not in ("dropped", "generalized", "pseudonymized")]
        flagged = set(policy.flagged_identifiers(frame, as_is))
    allowed = set(release.allow_identifiers)
    return {c.name: {"treatment": c.treatment, "role": c.role, "refused": c.name in flagged,
                     "shown": _shown(c.treatment, c.role, c.name in allowed)} for c in decided}


def _shown(treatment: str, role: str, allowed: bool) -> str:
    if treatment == "dropped":
        return "dropped (an identifier is never written)" if role == "identifier" else "withheld (not released)"
    if treatment == "generalized":
        return "generalized"
    if treatment == "unchanged" and role not in ROLES:  # keep_unlisted: a withheld column is published
        return "published as it is (no role: the configuration keeps unlisted columns)"
    if treatment == "unchanged":
        return "published as it is (you checked it)" if allowed else "published as it is"
    return treatment


def key_missing(config: dict[str, Any]) -> bool:
    """Whether a keyed pseudonym is asked for and the server's environment has no key."""
    actions = ((config.get("deidentify") or {}).get("columns") or {}).values()
    keyed = any(a.get("action") == "pseudonymize" and a.get("method", "hmac") == "hmac" for a in actions)
    return keyed and not os.environ.get(KEY_VARIABLE)

