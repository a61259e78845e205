"""Anonymized marginals and their k-link anonymity (Kifer & Gehrke 2006).

A *marginal* is the contingency table of a table projected on a few
attributes, each at some generalization level.  It is the class table of
that projection (``classes.project(attributes).generalize(levels)``): its
classes are the marginal's non-zero cells, so no row is touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError
from veil.hierarchy import Hierarchy
from veil.models._k_link import KLinkAnonymity

__all__ = ["Marginal", "marginal", "check_marginals", "achieved_k_link"]


@dataclass(frozen=True, eq=False)
class Marginal:
    """A count table over a few attributes, each at a generalization level.

    Build one with :func:`marginal`.  It wraps the class table of the
    projection (``classes``); its attributes, levels, hierarchies and counts
    are read from there.

    Attributes
    ----------
    classes : ClassTable
        The marginal's own class table: its quasi-identifiers are the
        marginal's attributes and its classes the non-zero cells.
    sensitive : tuple of str
        The marginal's attributes that are sensitive (Kifer & Gehrke's
        marginals may include the sensitive attribute); the others are its
        :attr:`non_sensitive` attributes, on which anonymity is judged.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("ppqq")})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    >>> marginal(classes, ["a"]).table
       a  count
    0  x      2
    1  y      2
    """

    classes: ClassTable
    sensitive: tuple[str, ...] = ()

    @property
    def attributes(self) -> tuple[str, ...]:
        """The attributes the marginal is over."""
        return self.classes.quasi_identifiers

    @property
    def non_sensitive(self) -> tuple[str, ...]:
        """The attributes that are not sensitive, in order: :math:`NonSensitive(M)`."""
        return tuple(a for a in self.attributes if a not in self.sensitive)

    def anonymity_table(self) -> ClassTable | None:
        """The class table of :attr:`non_sensitive` (the cells k-link anonymity judges), or None if there are none."""
        if not self.sensitive:
            return self.classes
        names = self.non_sensitive
        return self.classes.project(names) if names else None

    @property
    def levels(self) -> tuple[int, ...]:
        """The generalization level of each attribute."""
        return self.classes.levels

    @property
    def hierarchies(self) -> tuple[Hierarchy, ...]:
        return self.classes.hierarchies

    @property
    def codes(self) -> np.ndarray:
        """``(n_cells, n_attributes)`` codes of the non-zero cells at :attr:`levels`."""
        return self.classes.codes

    @property
    def counts(self) -> np.ndarray:
        """Records in each non-zero cell (all at least 1)."""
        return self.classes.counts

    @property
    def n_records(self) -> int:
        """The records the marginal counts (its total; suppressed records excluded)."""
        return self.classes.n_retained

    @property
    def shape(self) -> tuple[int, ...]:
        """The full domain of the marginal: values per attribute at its level."""
        return tuple(h.n_values(l) for h, l in zip(self.hierarchies, self.levels))

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per non-zero cell: the attributes' (generalized) labels and ``count``."""
        return self.classes.labels()

    def dense(self) -> np.ndarray:
        """The counts as a dense array of :attr:`shape` (zero cells included), float64."""
        out = np.zeros(self.shape, dtype=np.float64)
        if self.classes.n_classes:
            out[tuple(self.codes.T)] = self.counts
        return out

    def __repr__(self) -> str:
        levels = dict(zip(self.attributes, self.levels))
        extra = f", sensitive={list(self.sensitive)}" if self.sensitive else ""
        return f"Marginal({levels}{extra}, {self.classes.n_classes} cells, {self.n_records} records)"


def _attribute_list(attributes: str | Sequence[str]) -> tuple[str, ...]:
    names = (attributes,) if isinstance(attributes, str) else tuple(attributes)
    if not names:
        raise ParameterError("The 'attributes' parameter of marginal must name at least one attribute. Got none.")
    for name in names:
        if not isinstance(name, str):
            raise ParameterError(
                f"The 'attributes' parameter of marginal must hold column names (str). Got {name!r} instead."
            )
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ParameterError(f"The 'attributes' parameter of marginal lists {name!r} twice.")
        seen.add(name)
    return names


# marginal() is long by its numpydoc docstring (the user's reference); its body is 52 lines.
def marginal(classes_or_dataset: ClassTable | Dataset, attributes: str | Sequence[str],
             levels: Sequence[int] | Mapping[str, int] | None = None, *, sensitive: Sequence[str] | None = None) -> Marginal:
    """The marginal (count table) of some attributes at some generalization levels.

    Parameters
    ----------
    classes_or_dataset : ClassTable or Dataset
        A class table (its quasi-identifiers can be marginalized) or a dataset (any column with,
        optionally, a hierarchy; one class table is built over ``attributes``).
    attributes : str or sequence of str
        The marginal's attributes, in order; at least one, none twice.
    levels : sequence of int or mapping of str to int, optional
        A level per attribute (a sequence in the order of ``attributes``, or a mapping whose missing
        attributes keep their level).  Default: their levels in the class table (0 for a dataset).
    sensitive : sequence of str, optional
        Which of ``attributes`` are sensitive.  Default: those the dataset's schema declares
        sensitive (none for a class table, whose marginals are over its QIs).  A sensitive
        attribute needs the Dataset (a class table keeps it only as per-class histograms).

    Returns
    -------
    Marginal

    Raises
    ------
    ColumnNotFoundError
        An attribute (or a key of ``levels``) that the table does not have.
    ParameterError
        No or repeated attributes, a level outside ``[0, height]``, a wrong number of levels, finer levels
        than a suppressed class table holds, a ``sensitive`` name not in ``attributes``, or a sensitive
        attribute asked of a class table.

    Notes
    -----
    With :math:`A` the attributes and :math:`g_\\ell` their generalization,

    .. math:: M(t) = |\\{r \\in D : g_\\ell(r[A]) = t\\}|

    computed as ``classes.project(A).generalize(levels)`` (never the rows).  Records
    suppressed in the class table are in no cell; :attr:`Marginal.n_records` counts the others.

    References
    ----------
    D. Kifer and J. Gehrke, "Injecting utility into anonymized datasets", SIGMOD 2006, Section 4.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> classes = ClassTable.from_pandas(pd.DataFrame({"a": list("xxyy"), "b": list("pqpq")}), quasi_identifiers=["a", "b"])
    >>> marginal(classes, ["b"], {"b": 1}).counts
    array([4])
    """
    names = _attribute_list(attributes)
    flagged = _sensitive_of(classes_or_dataset, names, sensitive)
    projected = _source_table(classes_or_dataset, names)
    if levels is None:
        return Marginal(projected, flagged)
    return Marginal(projected.generalize(_wanted_levels(levels, names, projected)), flagged)


def _source_table(classes_or_dataset: ClassTable | Dataset, names: tuple[str, ...]) -> ClassTable:
    """The class table projected on ``names``: of the one given, or built from the Dataset."""
    if isinstance(classes_or_dataset, Dataset):
        for name in names:
            if name not in classes_or_dataset.columns:
                raise ColumnNotFoundError(
                    f"The 'attributes' parameter of marginal names {name!r}, which is not a column of the "
                    f"dataset; its columns are: {', '.join(classes_or_dataset.columns)}."
                )
        source = ClassTable.from_dataset(classes_or_dataset, quasi_identifiers=names, sensitive=())
    elif isinstance(classes_or_dataset, ClassTable):
        source = classes_or_dataset
        for name in names:
            if name in source.sensitive:
                raise ParameterError(
                    f"The marginal over {name!r}, a sensitive attribute, needs the Dataset: a class table keeps "
                    "sensitive values only as per-class histograms. Pass the Dataset to marginal()."
                )
            if name not in source.quasi_identifiers:
                raise ColumnNotFoundError(
                    f"The 'attributes' parameter of marginal names {name!r}, which is not a quasi-identifier "
                    f"of the class table; its quasi-identifiers are: {', '.join(source.quasi_identifiers)}."
                )
    else:
        raise ParameterError(
            "The 'classes_or_dataset' parameter of marginal must be a ClassTable or a Dataset. "
            f"Got {type(classes_or_dataset).__name__} instead."
        )
    return source.project(names) if source.quasi_identifiers != names else source


def _wanted_levels(levels: Sequence[int] | Mapping[str, int], names: tuple[str, ...],
                   projected: ClassTable) -> tuple[int, ...]:
    """One checked level per attribute, in ``[0, height]`` (a mapping's missing attributes keep theirs)."""
    if isinstance(levels, Mapping):
        for key in levels:
            if key not in names:
                raise ColumnNotFoundError(
                    f"The 'levels' parameter of marginal names {key!r}, which is not one of the marginal's "
                    f"attributes ({', '.join(names)})."
                )
        wanted = tuple(levels.get(name, current) for name, current in zip(names, projected.levels))
    else:
        wanted = tuple(levels)
        if len(wanted) != len(names):
            raise ParameterError(
                f"The 'levels' parameter of marginal must hold one level per attribute ({len(names)}). "
                f"Got {len(wanted)} instead."
            )
    for name, level, h in zip(names, wanted, projected.hierarchies):
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 0 <= level <= h.height:
            raise ParameterError(
                f"The level of {name!r} in marginal must be an int in [0, {h.height}]. Got {level!r} instead."
            )
    return tuple(int(l) for l in wanted)


def _sensitive_of(source: object, names: tuple[str, ...], sensitive: Sequence[str] | None) -> tuple[str, ...]:
    if sensitive is None:
        declared = source.sensitive if isinstance(source, Dataset) else ()
        return tuple(n for n in names if n in declared)
    flagged = (sensitive,) if isinstance(sensitive, str) else tuple(sensitive)
    for name in flagged:
        if name not in names:
            raise ParameterError(
                f"The 'sensitive' parameter of marginal names {name!r}, which is not one of its attributes "
                f"({', '.join(names)})."
            )
    return tuple(n for n in names if n in flagged)


def _marginal_list(marginals: Sequence[Marginal] | Marginal, owner: str) -> list[Marginal]:
    items = [marginals] if isinstance(marginals, Marginal) else list(marginals)
    if not items:
        raise ParameterError(f"The 'marginals' parameter of {owner} must hold at least one Marginal. Got none.")
    for i, item in enumerate(items):
        if not isinstance(item, Marginal):
            raise ParameterError(
                f"The 'marginals' parameter of {owner} must hold Marginal objects (see veil.marginals.marginal). "
                f"Item {i} is a {type(item).__name__}."
            )
    return items


def check_marginals(marginals: Sequence[Marginal] | Marginal, k: int) -> bool:
    """Whether a collection of marginals is k-link anonymous (every non-zero cell holds ≥ k records).

    Parameters
    ----------
    marginals : Marginal or sequence of Marginal
    k : int, in [1, inf)

    Returns
    -------
    bool
        True when every marginal is k-anonymous as a table of its own
        attributes, which is exactly k-link anonymity of the collection.

    Raises
    ------
    ParameterError
        ``k`` not an int in [1, inf); no marginals or a non-Marginal item.

    Notes
    -----
    .. math:: \\forall i, \\forall t:\\ M_i(t) = 0 \\ \\vee\\ M_i(t) \\ge k

    :math:`M_i(t)` counts the records whose :math:`NonSensitive(M_i)`
    attributes are :math:`t`: a marginal that includes a sensitive attribute
    is judged on its projection onto the others.  Evaluated by
    :class:`veil.models.KLinkAnonymity` on those class tables.  Monotone under
    generalization of any marginal.  k-link anonymity does not imply
    k-combinatorial anonymity (Definition 4.2,
    :func:`~veil.marginals.check_k_combinatorial`).

    References
    ----------
    D. Kifer and J. Gehrke, SIGMOD 2006, Definition 4.1 (seed 003).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("ppqr")})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    >>> check_marginals([marginal(classes, "a"), marginal(classes, "b")], 2)
    False
    >>> check_marginals([marginal(classes, "a"), marginal(classes, "b", [1])], 2)
    True
    """
    model = KLinkAnonymity(k=k)
    items = _marginal_list(marginals, "check_marginals")
    return model.check_marginals(_anonymity_tables(items))


def achieved_k_link(marginals: Sequence[Marginal] | Marginal) -> int:
    """The largest k for which the marginals are k-link anonymous (the smallest non-zero cell).

    Agrees with :func:`check_marginals`: ``check_marginals(ms, achieved_k_link(ms))``
    is true and, unless a marginal is empty, false at the next k.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"a": list("xxxy")})
    >>> achieved_k_link(marginal(ClassTable.from_pandas(frame, quasi_identifiers=["a"]), "a"))
    1
    """
    items = _marginal_list(marginals, "achieved_k_link")
    return KLinkAnonymity(k=1).achieved_level_marginals(_anonymity_tables(items))


def _anonymity_tables(items: list[Marginal]) -> list[ClassTable]:
    """The class tables k-link anonymity judges: each marginal over its non-sensitive attributes."""
    tables = [m.anonymity_table() for m in items]
    return [t for t in tables if t is not None]
