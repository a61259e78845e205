"""Attribute roles and kinds, and the schema (moved to :mod:`veil.data`; this path keeps working)."""

from veil.data._schema import Attribute, Kind, Role, Schema

__all__ = ["Role", "Kind", "Attribute", "Schema"]
