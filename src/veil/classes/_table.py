"""The class table (:class:`ClassTable`): see :mod:`veil.classes` for what it holds and how it is derived."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property

import numpy as np
import pandas as pd

from veil.classes._build import build_fields
from veil.classes._grouping import KeyedInverse, group_codes, regroup_codes
from veil.classes._histogram import DERIVED_HISTOGRAMS, SensitiveHistogram, roll_up_histograms
from veil.classes._release import apply_to_rows
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError
from veil.hierarchy import Hierarchy
from veil.schema import Kind

__all__ = ["ClassTable", "build"]


class ClassTable:
    """Equivalence classes of a table's quasi-identifiers at some generalization.

    Do not construct directly: use :meth:`from_dataset` (or :meth:`from_pandas`),
    then :meth:`generalize`, :meth:`project` and :meth:`suppress`, which return
    new tables and never modify this one.

    Attributes
    ----------
    quasi_identifiers : tuple of str
    hierarchies : tuple of Hierarchy
        One per QI (a QI given no hierarchy gets a flat one: value, then ``*``).
    levels : tuple of int
        The generalization level of each QI.
    codes : numpy.ndarray of int32, shape (n_classes, n_qi)
    counts : numpy.ndarray of int64, shape (n_classes,)
    n_records : int
        Records of the table, suppressed ones included.
    suppressed : int
        Records suppressed (input-suppressed ones included).
    input_suppressed : int
        Records that arrived already suppressed (``*`` in every QI).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": ["20", "30", "40", "20", "40"],
    ...                       "sex": ["F", "F", "F", "M", "M"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["age", "sex"])
    >>> classes.n_classes, int(classes.counts.min())
    (5, 1)
    """

    def __init__(
        self,
        *,
        quasi_identifiers: tuple[str, ...],
        hierarchies: tuple[Hierarchy, ...],
        levels: tuple[int, ...],
        codes: np.ndarray | Callable[[], np.ndarray],
        counts: np.ndarray,
        n_records: int,
        suppressed: int,
        input_suppressed: int,
        base: "ClassTable | None",
        base_map: np.ndarray | None = None,
        parent: "ClassTable | None" = None,
        inverse: np.ndarray | Callable[[], np.ndarray] | None = None,
        sensitive: Mapping[str, SensitiveHistogram] | None = None,
        row_class: np.ndarray | None = None,
    ) -> None:
        self.quasi_identifiers = quasi_identifiers
        self.hierarchies = hierarchies
        self.levels = levels
        self._codes: np.ndarray | None = None if callable(codes) else codes
        self._codes_factory: Callable[[], np.ndarray] | None = codes if callable(codes) else None
        self.counts = counts
        self.n_records = n_records
        self.suppressed = suppressed
        self.input_suppressed = input_suppressed
        self._base = base
        # base_map: base class -> class here (-1 suppressed); derived lazily from
        # the parent's map and the regrouping ``inverse`` (parent class -> class here)
        self._base_map_value = base_map
        self._parent = parent
        self._inverse = inverse
        self._row_class = row_class
        self._level_columns: dict[tuple[int, int], np.ndarray] = {}
        # the parent's histograms, when it has them, so that this table's are
        # rolled up from the parent's classes instead of the base's (only the
        # histograms are kept, not the parent, so no chain of tables stays alive)
        self._parent_histograms: dict[str, SensitiveHistogram] | None = None
        self._histogram_parent: ClassTable | None = None
        # a retained table is kept for many derivations (the base, a search's hub
        # tables): it caches its rolled-up level columns and its children may
        # keep a reference to it to roll their histograms up from it
        self._retained = base is None
        if sensitive is not None:
            self.__dict__["sensitive"] = dict(sensitive)
        elif parent is not None and inverse is not None:
            if "sensitive" in parent.__dict__:
                self._parent_histograms = parent.__dict__["sensitive"]
            elif parent._retained:
                self._histogram_parent = parent

    @property
    def codes(self) -> np.ndarray:
        """``(n_classes, n_qi)`` int32: each class's QI codes at the current levels."""
        if self._codes is None:
            assert self._codes_factory is not None
            self._codes = self._codes_factory()
            self._codes_factory = None
        return self._codes

    @property
    def base_map(self) -> np.ndarray:
        """``(base.n_classes,)`` int64: each class of :attr:`base`, the class here holding its
        records, or -1 when they are suppressed (built on first use, then kept; do not modify it).
        """
        if self._base_map_value is None:
            assert self._parent is not None and self._inverse is not None
            parent_map = self._parent.base_map
            inverse = self._regrouping()
            if len(inverse) == 0:  # every parent class was suppressed
                self._base_map_value = np.full(len(parent_map), -1, dtype=np.int64)
            else:
                self._base_map_value = np.where(parent_map >= 0, inverse[np.maximum(parent_map, 0)], -1)
            self._parent = self._inverse = None
        return self._base_map_value

    def _regrouping(self) -> np.ndarray:
        """The parent class -> class here index (built on first use when it was given as a function)."""
        if callable(self._inverse):
            self._inverse = self._inverse()
        assert self._inverse is not None
        return self._inverse

    @cached_property
    def _positive_counts(self) -> bool:
        return bool(self.n_classes == 0 or self.counts.min() > 0)

    def _level_column(self, i: int, level: int) -> np.ndarray:
        """Attribute ``i``'s class codes rolled up to ``level`` (int32; cached on retained tables)."""
        column = self._level_columns.get((i, level))
        if column is None:
            h, current = self.hierarchies[i], self.levels[i]
            raw = self.codes[:, i]
            column = np.ascontiguousarray(raw if level == current else h.rollup(current, level)[raw], dtype=np.int32)
            if self._retained:
                self._level_columns[(i, level)] = column
        return column

    def retain(self) -> "ClassTable":
        """Keep this table for many derivations: cache its rolled-up columns, let children roll up from it."""
        self._retained = True
        return self

    # ------------------------------------------------------------------ build
    @classmethod
    def from_dataset(
        cls,
        dataset: Dataset,
        *,
        quasi_identifiers: Sequence[str] | None = None,
        sensitive: Sequence[str] | None = None,
        hierarchies: Mapping[str, Hierarchy] | None = None,
        weights: np.ndarray | None = None,
        suppressed_rows: np.ndarray | None = None,
    ) -> "ClassTable":
        """Build the class table of ``dataset`` (the only pass over its rows).

        Parameters as in :func:`build`; ``weights`` gives
        each row its number of records (:func:`veil.engines.class_table_from_counts`),
        ``suppressed_rows`` the rows left out as suppressed (default: ``*`` in every QI).

        Raises
        ------
        ColumnNotFoundError, SchemaError, HierarchyError
            Unknown columns, a column both QI and sensitive, missing values
            with ``missing="error"``, or a value a hierarchy does not cover.
        """
        return build(dataset, quasi_identifiers=quasi_identifiers, sensitive=sensitive,
                     hierarchies=hierarchies, weights=weights, suppressed_rows=suppressed_rows)

    @classmethod
    def from_pandas(
        cls,
        frame: pd.DataFrame,
        *,
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
        hierarchies: Mapping[str, Hierarchy] | None = None,
        kinds: Mapping[str, Kind | str] | None = None,
        missing: str = "value",
    ) -> "ClassTable":
        """Build from a DataFrame in one call (wraps it in a :class:`Dataset`)."""
        dataset = Dataset.from_pandas(
            frame, quasi_identifiers=quasi_identifiers, sensitive=sensitive, kinds=kinds,
            missing=missing,  # type: ignore[arg-type]
        )
        return cls.from_dataset(dataset, hierarchies=hierarchies)

    # ------------------------------------------------------------------ facts
    n_classes = property(lambda self: len(self.counts), doc="The number of classes.")

    @property
    def n_retained(self) -> int:
        """Records not suppressed (the sum of class sizes)."""
        return int(self.counts.sum())

    @property
    def base(self) -> "ClassTable":
        """The table at level 0 this one was derived from (itself for a base)."""
        return self if self._base is None else self._base

    def hierarchy(self, name: str) -> Hierarchy:
        try:
            return self.hierarchies[self.quasi_identifiers.index(name)]
        except ValueError:
            raise ColumnNotFoundError(f"{name!r} is not a quasi-identifier of this class table.") from None

    @cached_property
    def sensitive(self) -> dict[str, SensitiveHistogram]:
        """Per-class histograms of each sensitive attribute (derived lazily).

        Rolled up from the parent's classes when the parent has its histograms
        (a generalization regroups whole classes), else from the base table's;
        their bytes count in :data:`~veil.classes._histogram.DERIVED_HISTOGRAMS`.
        """
        parent = None if self._inverse is None else (
            self._parent_histograms if self._histogram_parent is None else self._histogram_parent.sensitive)
        if parent is not None:  # summed by key when the grouping kept its keys
            source, mapping = parent, self._inverse if isinstance(self._inverse, KeyedInverse) else self._regrouping()
        else:
            source, mapping = self.base.sensitive, self.base_map
        self._parent_histograms = None
        self._histogram_parent = None
        return DERIVED_HISTOGRAMS.keep(self, roll_up_histograms(source, mapping, self.n_classes))

    def labels(self) -> pd.DataFrame:
        """One row per class: its QI labels at the current levels and its ``count``."""
        data = {}
        for i, (name, h, level) in enumerate(zip(self.quasi_identifiers, self.hierarchies, self.levels)):
            data[name] = h.labels[level][self.codes[:, i]]
        frame = pd.DataFrame(data)
        frame["count"] = self.counts
        return frame

    def __repr__(self) -> str:
        return (
            f"ClassTable({self.n_classes} classes, {self.n_records} records, "
            f"{self.suppressed} suppressed, levels={dict(zip(self.quasi_identifiers, self.levels))})"
        )

    # -------------------------------------------------------------- transform
    def _check_levels(self, levels: Sequence[int] | Mapping[str, int]) -> tuple[int, ...]:
        if isinstance(levels, Mapping):
            unknown = [k for k in levels if k not in self.quasi_identifiers]
            if unknown:
                raise ColumnNotFoundError(f"{unknown[0]!r} is not a quasi-identifier of this class table.")
            levels = [int(levels.get(q, 0)) for q in self.quasi_identifiers]
        levels = tuple(int(l) for l in levels)
        if len(levels) != len(self.quasi_identifiers):
            raise ParameterError(
                f"Expected {len(self.quasi_identifiers)} levels (one per quasi-identifier). "
                f"Got {len(levels)} instead."
            )
        for name, h, level in zip(self.quasi_identifiers, self.hierarchies, levels):
            if not 0 <= level <= h.height:
                raise ParameterError(
                    f"The level of {name!r} must be an int in [0, {h.height}]. Got {level} instead."
                )
        return levels

    def generalize(self, levels: Sequence[int] | Mapping[str, int]) -> "ClassTable":
        """The class table at another generalization (a level per QI).

        Rolls up from this table when every level is at least its own (cheaper),
        else starts from the base table.  Suppressed records stay suppressed.
        """
        levels = self._check_levels(levels)
        if all(b >= a for a, b in zip(self.levels, levels)):
            source = self
        else:
            if self.suppressed != self.input_suppressed:
                raise ParameterError(
                    "Cannot generalize a suppressed class table to finer levels; "
                    "generalize the unsuppressed table and suppress again."
                )
            source = self.base
            if source.quasi_identifiers != self.quasi_identifiers:
                source = source.project(self.quasi_identifiers)
        return source.roll_up(levels)

    def roll_up(self, levels: tuple[int, ...]) -> "ClassTable":
        """The class table at ``levels``, each at least this table's own and at most its
        hierarchy's height, rolled up from this table's classes.

        :meth:`generalize` without its checks, for a search that generates valid levels
        itself and judges thousands of nodes: ``levels`` must be a tuple of ints, one per
        QI, none below this table's level (unchecked: a wrong level gives a wrong table).
        """
        if levels == self.levels:
            return self
        radices = [h.n_values(l) for h, l in zip(self.hierarchies, levels)]
        grouped = regroup_codes(lambda i: self._level_column(i, levels[i]), radices, self.counts,
                                positive=self._positive_counts)
        return self._derive(grouped.codes, grouped.inverse, levels=levels, n_groups=grouped.n_groups,
                            counts=grouped.counts)

    def _derive(
        self, codes: np.ndarray | Callable[[], np.ndarray], inverse: np.ndarray | Callable[[], np.ndarray], *,
        levels: tuple[int, ...],
        quasi_identifiers: tuple[str, ...] | None = None,
        hierarchies: tuple[Hierarchy, ...] | None = None,
        n_groups: int | None = None,
        counts: np.ndarray | None = None,
    ) -> "ClassTable":
        if counts is None:  # summed here unless the grouping already did (then ``inverse`` may be lazy)
            g = len(codes) if n_groups is None else n_groups  # type: ignore[arg-type]
            counts = np.rint(np.bincount(inverse, weights=self.counts, minlength=g)).astype(np.int64)  # type: ignore[arg-type]
        return ClassTable(
            quasi_identifiers=self.quasi_identifiers if quasi_identifiers is None else quasi_identifiers,
            hierarchies=self.hierarchies if hierarchies is None else hierarchies,
            levels=levels,
            codes=codes,
            counts=counts,
            n_records=self.n_records,
            suppressed=self.suppressed,
            input_suppressed=self.input_suppressed,
            base=self.base,
            parent=self,
            inverse=inverse,
        )

    def regroup(
        self, groups: np.ndarray, codes: np.ndarray, *, levels: Sequence[int], hierarchies: Sequence[Hierarchy],
    ) -> "ClassTable":
        """The table whose classes merge this table's: class ``i`` joins class ``groups[i]``.

        For recodings that are not a generalization along this table's own
        hierarchies (a top-down specialization's cuts, say): ``codes[j]`` are
        the QI codes of new class ``j`` at ``levels`` of ``hierarchies``.
        Counts and sensitive histograms are summed from this table's classes.
        """
        groups = np.asarray(groups, dtype=np.int64)
        if groups.shape != (self.n_classes,):
            raise ParameterError(
                f"regroup needs one group per class ({self.n_classes}). Got shape {groups.shape} instead."
            )
        return self._derive(codes, groups, levels=tuple(levels), hierarchies=tuple(hierarchies), n_groups=len(codes))

    def project(self, quasi_identifiers: Iterable[str]) -> "ClassTable":
        """The class table over a subset of the QIs (at their current levels).

        Projecting a table derived from a parent projection shares its work:
        the classes of ``(a, b)`` are regrouped from those of ``(a, b, c)``.
        """
        names = tuple(quasi_identifiers)
        index = []
        for name in names:
            if name not in self.quasi_identifiers:
                raise ColumnNotFoundError(f"{name!r} is not a quasi-identifier of this class table.")
            index.append(self.quasi_identifiers.index(name))
        if len(set(names)) != len(names):
            raise ParameterError("A quasi-identifier is listed twice in the projection.")
        hierarchies = tuple(self.hierarchies[i] for i in index)
        levels = tuple(self.levels[i] for i in index)
        matrix = self.codes[:, index] if index else np.zeros((self.n_classes, 0), np.int32)
        radices = [h.n_values(l) for h, l in zip(hierarchies, levels)]
        codes, inverse = group_codes(np.ascontiguousarray(matrix), radices)
        return self._derive(codes, inverse, levels=levels, quasi_identifiers=names, hierarchies=hierarchies)

    def suppress(self, mask: np.ndarray) -> "ClassTable":
        """Suppress the classes where ``mask`` is true: their records are counted
        in :attr:`suppressed` and leave the classes."""
        mask = np.asarray(mask, dtype=np.bool_)
        if mask.shape != (self.n_classes,):
            raise ParameterError(
                f"The suppression mask must have one entry per class ({self.n_classes}). "
                f"Got shape {mask.shape} instead."
            )
        if not mask.any():
            return self
        keep = ~mask  # a new array: the lazy parts below do not see later changes to ``mask``

        def new_index() -> np.ndarray:  # class here -> class of the new table (-1 suppressed)
            index = np.cumsum(keep, dtype=np.int64) - 1
            index[~keep] = -1
            return index

        counts = self.counts[keep]
        table = ClassTable(
            quasi_identifiers=self.quasi_identifiers,
            hierarchies=self.hierarchies,
            levels=self.levels,
            codes=lambda: np.compress(keep, self.codes, axis=0),  # most suppressed tables of a search are never read
            counts=counts,
            n_records=self.n_records,
            suppressed=self.suppressed + (self.n_retained - int(counts.sum())),
            input_suppressed=self.input_suppressed,
            base=self.base,
            parent=self,  # the base map is derived lazily: class here -> new_index
            inverse=new_index,
        )
        if "sensitive" in self.__dict__:  # filtered now; derived again through the base map if dropped
            table.__dict__["sensitive"] = DERIVED_HISTOGRAMS.keep(
                table, {k: h.take_classes(keep) for k, h in self.__dict__["sensitive"].items()})
            table._parent_histograms = table._histogram_parent = None  # this table's parent's are not held
        return table

    def suppressed_group(self) -> "ClassTable | None":
        """The suppressed records as one class (``*`` in every QI), or ``None`` if there are none.

        Its sensitive histograms are the whole table's minus the released
        classes' (input-suppressed records included): the records an attacker
        sees when suppressed records are published with their sensitive values.
        """
        n, top = int(self.n_records - self.counts.sum()), tuple(h.height for h in self.hierarchies)
        if n <= 0:
            return None
        return ClassTable(quasi_identifiers=self.quasi_identifiers, hierarchies=self.hierarchies, levels=top,
                          codes=np.zeros((1, len(top)), dtype=np.int32), counts=np.array([n], dtype=np.int64),
                          n_records=n, suppressed=0, input_suppressed=0, base=self.base,
                          sensitive={name: h.remainder() for name, h in self.sensitive.items()})

    # ------------------------------------------------------------------ rows
    def row_classes(self) -> np.ndarray:
        """For each record of the original table, its class here, or -1 if suppressed."""
        row_class = self.base._row_class
        assert row_class is not None
        if self._base is None or not len(self.base_map):  # a base table (its map the identity), or every
            return row_class.copy()                        # record arrived suppressed: no class to map to
        return np.where(row_class >= 0, self.base_map[np.maximum(row_class, 0)], -1)

    def apply(self, dataset: Dataset, *, drop_suppressed: bool = False) -> pd.DataFrame:
        """Apply this table's transformation to ``dataset``'s rows (the final step).

        Each QI is replaced by its generalized label; suppressed records get
        :data:`SUPPRESSED` in every QI (or are dropped with ``drop_suppressed``).
        Other columns are unchanged.  Row order is kept (shuffle separately).
        """
        return apply_to_rows(self, dataset, drop_suppressed=drop_suppressed)


def build(
    dataset: Dataset,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    weights: np.ndarray | None = None,
    suppressed_rows: np.ndarray | None = None,
    columns: Mapping[str, pd.Series] | None = None,
) -> ClassTable:
    """The class table of ``dataset`` (parameters and errors: :func:`veil.classes._build.build_fields`)."""
    return ClassTable(**build_fields(dataset, quasi_identifiers=quasi_identifiers, sensitive=sensitive,
                                     hierarchies=hierarchies, weights=weights, suppressed_rows=suppressed_rows,
                                     columns=columns))
