"""Attribute roles and kinds, and the schema that assigns them to columns.

A *quasi-identifier* (QI) cannot identify a person by itself but can in
combination with other QIs and outside data (Sweeney's linkage attack); a
*sensitive* attribute is what a person does not want linked to them; an
*identifier* identifies by itself (name, SSN) and must be removed or
pseudonymized before release; everything else is *insensitive*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from veil.errors import ColumnNotFoundError, SchemaError

__all__ = ["Role", "Kind", "Attribute", "Schema"]


class Role(str, Enum):
    """What an attribute is to an attacker."""

    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


class Kind(str, Enum):
    """How an attribute's values are ordered and generalized.

    ``categorical`` values have no order (ground distance: equal);
    ``ordinal`` values have a declared order; ``numeric`` values are numbers
    ordered by value; ``date`` values are dates ordered in time.
    """

    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    NUMERIC = "numeric"
    DATE = "date"

    @property
    def ordered(self) -> bool:
        """Whether the kind has a natural order (used by ordered t-closeness)."""
        return self is not Kind.CATEGORICAL


@dataclass(frozen=True)
class Attribute:
    """One column's role and kind.

    Parameters
    ----------
    name : str
        The column name.
    role : Role
        Identifier, quasi-identifier, sensitive or insensitive.
    kind : Kind, default categorical
        How values are ordered.
    domain : tuple of str, optional
        The attribute's value domain, when it is wider than the values present
        in the table (t-closeness measures distances over the whole domain).
        For an ordinal attribute this is also its order, lowest first.
    """

    name: str
    role: Role
    kind: Kind = Kind.CATEGORICAL
    domain: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", Role(self.role))
        object.__setattr__(self, "kind", Kind(self.kind))
        if self.domain is not None:
            domain = tuple(str(v) for v in self.domain)
            if len(set(domain)) != len(domain):
                raise SchemaError(
                    f"The domain of attribute {self.name!r} lists a value twice; "
                    "each value must appear once."
                )
            object.__setattr__(self, "domain", domain)
        if self.kind is Kind.ORDINAL and self.domain is None:
            raise SchemaError(
                f"Attribute {self.name!r} is ordinal but has no domain: give its values "
                "in order, lowest first (domain=[...])."
            )


@dataclass(frozen=True)
class Schema:
    """The attributes of a table: one :class:`Attribute` per declared column.

    Columns that are not declared are insensitive.  A column may have one role
    only; declaring it twice is an error.
    """

    attributes: tuple[Attribute, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        seen: dict[str, Role] = {}
        for attribute in self.attributes:
            if attribute.name in seen:
                first = seen[attribute.name]
                if first is attribute.role:
                    raise SchemaError(f"Column {attribute.name!r} is declared twice as {first.value}.")
                raise SchemaError(
                    f"Column {attribute.name!r} is declared both as {first.value} and as "
                    f"{attribute.role.value}; a column has exactly one role."
                )
            seen[attribute.name] = attribute.role

    @classmethod
    def build(
        cls,
        columns: Sequence[str],
        *,
        quasi_identifiers: Iterable[str] = (),
        sensitive: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        insensitive: Iterable[str] = (),
        kinds: Mapping[str, Kind | str] | None = None,
        domains: Mapping[str, Sequence[str]] | None = None,
    ) -> "Schema":
        """Make a schema for a table with ``columns``, checking every name.

        Raises
        ------
        ColumnNotFoundError
            A named column is not in ``columns``.
        SchemaError
            A column is given two roles, or a kind is unknown.
        """
        columns = list(columns)
        known = set(columns)
        kinds = dict(kinds or {})
        domains = dict(domains or {})
        attributes: list[Attribute] = []
        for role, names in (
            (Role.IDENTIFIER, identifiers),
            (Role.QUASI_IDENTIFIER, quasi_identifiers),
            (Role.SENSITIVE, sensitive),
            (Role.INSENSITIVE, insensitive),
        ):
            for name in names:
                if name not in known:
                    raise ColumnNotFoundError(
                        f"The {role.value} column {name!r} is not in the table; "
                        f"its columns are: {', '.join(map(str, columns))}."
                    )
                kind = kinds.get(name, Kind.CATEGORICAL)
                try:
                    kind = Kind(kind)
                except ValueError:
                    allowed = ", ".join(k.value for k in Kind)
                    raise SchemaError(
                        f"The kind of column {name!r} must be one of {allowed}. Got {kind!r} instead."
                    ) from None
                domain = domains.get(name)
                attributes.append(
                    Attribute(name, role, kind, tuple(domain) if domain is not None else None)
                )
        for name in list(kinds) + list(domains):
            if name not in known:
                raise ColumnNotFoundError(
                    f"A kind or domain is given for column {name!r}, which is not in the table."
                )
        return cls(tuple(attributes))

    def __getitem__(self, name: str) -> Attribute:
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute
        raise ColumnNotFoundError(f"Column {name!r} is not declared in the schema.")

    def __contains__(self, name: object) -> bool:
        return any(a.name == name for a in self.attributes)

    def names(self, role: Role) -> tuple[str, ...]:
        """The declared columns with ``role``, in declaration order."""
        return tuple(a.name for a in self.attributes if a.role is role)

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return self.names(Role.QUASI_IDENTIFIER)

    @property
    def sensitive(self) -> tuple[str, ...]:
        return self.names(Role.SENSITIVE)

    @property
    def identifiers(self) -> tuple[str, ...]:
        return self.names(Role.IDENTIFIER)

    def kind(self, name: str) -> Kind:
        """The kind of ``name``; undeclared columns are categorical."""
        return self[name].kind if name in self else Kind.CATEGORICAL
