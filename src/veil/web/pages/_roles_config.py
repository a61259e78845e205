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
           "with_roles", "validated", "treatments", "action_of", "KEY_VARIABLE", "key_missing"]

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


def with_roles(config: dict[str, Any], choices: dict[str, tuple[str, str, str | None]]) -> dict[str, Any]:
    """A copy of ``config`` with ``attributes`` and ``deidentify`` from ``{column: (role, action, kind)}``.

    Role :data:`WITHHELD` leaves the column out (the release withholds it); an identifier's action
    other than ``drop`` becomes its ``deidentify.columns`` entry.  A quasi-identifier keeps its
    hierarchy (``auto`` when it had none).
    """
    out = copy.deepcopy(config)
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
        if actions.get(column, {}).get("action") == "pseudonymize":
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


def validated(workspace, config: dict[str, Any]):
    """``config`` as a :class:`veil.config.ReleaseConfig` (relative paths in the workspace), checked
    as ``veil anonymize`` checks it; the Models page's models, or :data:`PLACEHOLDER_MODELS`."""
    from pydantic import ValidationError

    from veil.config import ReleaseConfig, check_consistency

    payload = {**config, "base_dir": str(workspace.root)}
    if not payload.get("models"):
        payload["models"] = PLACEHOLDER_MODELS
    try:
        release = ReleaseConfig(**payload)
    except ValidationError as exc:
        raise ConfigError("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None
    check_consistency(release)
    return release


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
    return {c.name: {"treatment": c.treatment, "role": c.role, "shown": _shown(c.treatment, c.role),
                     "refused": c.name in flagged} for c in decided}


def _shown(treatment: str, role: str) -> str:
    if treatment == "dropped":
        return "dropped (an identifier is never written)" if role == "identifier" else "withheld (no role)"
    if treatment == "generalized":
        return "generalized"
    if treatment == "unchanged":
        return "published as it is"
    return treatment


def key_missing(config: dict[str, Any]) -> bool:
    """Whether a keyed pseudonym is asked for and the server's environment has no key."""
    actions = ((config.get("deidentify") or {}).get("columns") or {}).values()
    keyed = any(a.get("action") == "pseudonymize" and a.get("method", "hmac") == "hmac" for a in actions)
    return keyed and not os.environ.get(KEY_VARIABLE)

