"""Configuration text (YAML or JSON) parsed with every mapping's keys given once.

PyYAML and :func:`json.loads` keep the last of two equal keys without a word.  In a release
configuration that is a silent change of meaning: ``ref: {role: identifier}`` and, further
down, ``ref: {role: insensitive}`` would publish the identifier, and a second ``models:`` would
replace the first.  :func:`parse_config_text` refuses a repeated key instead, naming it and its
lines (YAML) so that the user decides.  YAML merge keys (``<<: *defaults``) may still be
overridden by a key written out, as YAML intends.

Keys are compared by value, not by position: ``{type: k-anonymity, k: 5, k: 1}`` on one line is
refused as a block mapping over two lines is, and ``k`` and ``"k"`` are one key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from veil.errors import ConfigError

__all__ = ["parse_config_text", "read_config_file"]


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    """The mapping of ``node``, refusing a key it gives twice: keys compared by value (``k``,
    ``"k"`` and ``? k`` are one key), whatever the layout (block or flow, one line or several)."""
    seen: dict[Any, yaml.Mark] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        mark = key_node.start_mark
        try:
            first = seen.setdefault(key, mark)
        except TypeError:  # an unhashable key: the constructor below says so
            continue
        if first is not mark:
            also = (f"also earlier on line {first.line + 1}, column {first.column + 1}" if first.line == mark.line
                    else f"also on line {first.line + 1}")
            raise ConfigError(f"line {mark.line + 1}: the key {str(key)!r} is given twice in one mapping ({also}); "
                              "the later one would silently replace the earlier. Keep one.")
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)
# YAML 1.1 (PyYAML) reads `1e-5` as text: a float needs a dot there.  YAML 1.2 and JSON read it as
# the number everyone means (`delta: 1e-5`), so a number with an exponent and no dot is a float here.
_UniqueKeyLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$"), list("-+0123456789"))


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ConfigError(f"the key {key!r} is given twice in one object; the later one would silently "
                              "replace the earlier. Keep one.")
        out[key] = value
    return out


def parse_config_text(text: str, *, json_format: bool, name: str) -> Any:
    """The value of a YAML (or, with ``json_format``, JSON) text; ``name`` (the file's, quoted)
    starts every message.

    Raises
    ------
    ConfigError
        The text is not valid YAML/JSON, or a mapping gives a key twice.

    >>> parse_config_text("k: 5\\nmodels: [a]\\n", json_format=False, name="'c.yaml'")
    {'k': 5, 'models': ['a']}
    >>> parse_config_text("k: 5\\nk: 2\\n", json_format=False, name="'c.yaml'")
    Traceback (most recent call last):
    ...
    veil.errors.ConfigError: 'c.yaml', line 2: the key 'k' is given twice in one mapping (also on line 1); \
the later one would silently replace the earlier. Keep one.
    """
    try:
        if json_format:
            return json.loads(text, object_pairs_hook=_unique_pairs)
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except ConfigError as exc:
        raise ConfigError(f"{name}{',' if str(exc).startswith('line') else ':'} {exc}") from None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{name} is not valid {'JSON' if json_format else 'YAML'}: {exc}") from None


def read_config_file(path: Path, *, name: str) -> Any:
    """The value of the configuration file ``path``: JSON for a ``.json`` name, else YAML
    (:func:`parse_config_text`; ``name`` starts every message).

    Raises
    ------
    ConfigError
        The file cannot be read or is not UTF-8, is not valid, or a mapping gives a key twice.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read the configuration {str(path)!r}: "
                          f"{getattr(exc, 'strerror', None) or 'it is not UTF-8 text'}.") from None
    return parse_config_text(text, json_format=path.suffix.lower() == ".json", name=name)
