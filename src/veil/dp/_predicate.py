"""A small, safe query language: ``where`` predicates and ``veil query`` strings.

Grammar (case-insensitive keywords; never ``eval``)::

    query     := "count" [where]
               | ("sum" | "mean") column [where]
               | "sum" column "by" column [where]
               | "quantile" number column [where]
               | "histogram" column ("," column)* [where]
    where     := "where" predicate
    predicate := conj ("or" conj)*
    conj      := atom ("and" atom)*
    atom      := "not" atom | "(" predicate ")" | column op literal
               | column "in" "(" literal ("," literal)* ")"
    op        := "=" | "==" | "!=" | "<" | "<=" | ">" | ">="
    column    := NAME | `any name in backquotes`
    literal   := NUMBER | 'string' | "string" | NAME (a bare word is a string)

Predicates evaluate vectorised on a DataFrame to a boolean mask.  Missing
values never match a comparison (but do match ``!=``'s negation via ``not``).
Predicates are typed: a number is compared only with a numeric column (ints,
floats, decimals) and a string only with any other column, through the text
labels the engines compare (:mod:`veil.dp._columns`: a bool column's values are
``True``/``False``, a date's ``YYYY-MM-DD``); anything else is a
:class:`~veil.errors.SchemaError` naming the column.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Union

import numpy as np
import pandas as pd

from veil.dp._columns import is_number_column, number_values, text_labels
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["Comparison", "Membership", "Not", "BoolOp", "Predicate", "parse_predicate",
           "QuerySpec", "parse_query"]

_TOKEN = re.compile(
    r"\s*(?:(?P<num>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)"
    r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<bq>`[^`]+`)"
    r"|(?P<op><=|>=|!=|==|=|<|>)"
    r"|(?P<punct>[(),\[\]])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*))"
)

_OPS = {"=": operator.eq, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
        "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_KEYWORDS = {"and", "or", "not", "in", "where"}
#: The size a predicate may have: comparisons and memberships in all, values of one
#: membership, and nesting depth of ``not`` and parentheses.  A bound stated in
#: docs/dp.md: deeper nesting overflowed Python's stack, and some 1,000 terms ran
#: DuckDB's planner out of memory.
MAX_TERMS = 100
MAX_VALUES = 1000
MAX_DEPTH = 20


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str


def _tokenize(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ParameterError(
                f"Cannot parse the query at character {pos + 1}: {text[pos:pos + 20]!r}. "
                "Use: column op literal, joined by and/or (ops: = != < <= > >= in)."
            )
        kind = m.lastgroup or ""
        out.append(_Tok(kind, m.group(kind)))
        pos = m.end()
    return out


@dataclass(frozen=True)
class Comparison:
    """``column op literal``."""

    column: str
    op: str
    value: Any

    def __str__(self) -> str:
        return f"{_name(self.column)} {self.op} {_lit(self.value)}"

    @property
    def columns(self) -> frozenset[str]:
        return frozenset({self.column})

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        return _Operand(_column(frame, self.column)).compare(self.op, self.value)


@dataclass(frozen=True)
class Membership:
    """``column in (v1, v2, ...)``."""

    column: str
    values: tuple[Any, ...]

    def __str__(self) -> str:
        return f"{_name(self.column)} in ({', '.join(_lit(v) for v in self.values)})"

    @property
    def columns(self) -> frozenset[str]:
        return frozenset({self.column})

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        operand = _Operand(_column(frame, self.column))
        out = np.zeros(len(frame), dtype=bool)
        numbers = [v for v in self.values if _is_number(v)]
        for group in (numbers, [v for v in self.values if not _is_number(v)]):
            if group:  # one vectorised isin per kind of literal, not one pass per value
                out |= operand.isin(group)
        return out


@dataclass(frozen=True)
class Not:
    """``not predicate``."""

    operand: "Predicate"

    def __str__(self) -> str:
        return f"not ({self.operand})"

    @property
    def columns(self) -> frozenset[str]:
        return self.operand.columns

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        return ~self.operand.mask(frame)


@dataclass(frozen=True)
class BoolOp:
    """``a and b and ...`` or ``a or b or ...``."""

    op: str
    operands: tuple["Predicate", ...]

    def __str__(self) -> str:
        return f" {self.op} ".join(
            f"({p})" if isinstance(p, BoolOp) else str(p) for p in self.operands)

    @property
    def columns(self) -> frozenset[str]:
        return frozenset().union(*(p.columns for p in self.operands))

    def mask(self, frame: pd.DataFrame) -> np.ndarray:
        masks = [p.mask(frame) for p in self.operands]
        return np.logical_and.reduce(masks) if self.op == "and" else np.logical_or.reduce(masks)


Predicate = Union[Comparison, Membership, Not, BoolOp]


def _name(column: str) -> str:
    return column if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", column) else f"`{column}`"


def _lit(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame.columns:
        raise ColumnNotFoundError(
            f"The column {name!r} is not in the table; available columns: "
            f"{', '.join(map(str, frame.columns))}."
        )
    return frame[name]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


class _Operand:
    """A column as a predicate compares it, the way the engines do (:mod:`veil.engines._filter`).

    A number literal compares with the values of a number column (ints, floats,
    decimals: :func:`~veil.dp._columns.is_number_column`); a text literal with the
    text labels of any other column (:func:`~veil.dp._columns.text_labels`: a bool is
    ``'True'``/``'False'``, a date ``YYYY-MM-DD``), so that ``flag = True`` matches a
    bool column's true values.  A missing value never matches.

    Raises
    ------
    SchemaError
        A number compared with a column that does not hold numbers (text, bools,
        dates), or text with a number column (the message names the column and
        its type, never a value of it).
    """

    def __init__(self, col: pd.Series) -> None:
        self.col = col
        self.numeric = is_number_column(col)
        self._labels: pd.Series | None = None
        self._present = col.notna().to_numpy(dtype=bool)
        self._untyped = not self._present.any()  # no value at all (an empty table): either literal, no match

    def _side(self, value: Any) -> tuple[Any, Any]:
        """The column's side of a comparison with ``value``, and the value as compared."""
        col = self.col
        if _is_number(value):
            if not self.numeric:
                what = ("holds True/False values" if pd.api.types.is_bool_dtype(col)
                        or pd.api.types.infer_dtype(col, skipna=True) == "boolean" else "holds text")
                hint = ("compare it with True or False" if what.startswith("holds True")
                        else f"quote the literal ('{value}') to compare text")
                raise SchemaError(
                    f"The column {col.name!r} {what}, but the predicate compares it with the number "
                    f"{value!r}; {hint}."
                )
            if pd.api.types.is_numeric_dtype(col):
                return col, value
            return pd.Series(number_values(col), index=col.index), value
        if isinstance(value, (str, bool, np.bool_)):
            if self.numeric:
                raise SchemaError(
                    f"The column {col.name!r} is numeric, but the predicate compares it with the text "
                    f"{str(value)!r}; write a number."
                )
            if self._labels is None:
                labels = text_labels(col)
                self._labels = labels.where(labels.notna(), "")
            return self._labels, str(value)
        return col, value  # another Python object (a Timestamp, ...): compared as it is

    def isin(self, values: list[Any]) -> np.ndarray:
        """Rows equal to one of ``values`` (literals of one kind: numbers, or not numbers)."""
        if self._untyped:
            return np.zeros(len(self.col), dtype=bool)
        side, _ = self._side(values[0])  # the type check, once for the kind
        if not all(isinstance(v, (str, bool, np.bool_)) or _is_number(v) for v in values):
            return np.logical_or.reduce([self.compare("=", v) for v in values])
        literals = [str(v) for v in values] if side is self._labels else values
        return np.asarray(side.isin(literals), dtype=bool) & self._present

    def compare(self, op: str, value: Any) -> np.ndarray:
        if self._untyped:
            return np.zeros(len(self.col), dtype=bool)
        side, literal = self._side(value)
        with np.errstate(invalid="ignore"):
            try:
                res = _OPS[op](side, literal)
            except TypeError:
                raise ParameterError(
                    f"Cannot compare column {self.col.name!r} with {op} to a "
                    f"{type(value).__name__} literal."
                ) from None
        res = res.fillna(False) if hasattr(res, "fillna") else res
        return np.asarray(res, dtype=bool) & self._present


class _Parser:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.toks = tokens
        self.i = 0
        self.depth = 0
        self.terms = 0

    def nest(self) -> None:
        """One level deeper (``not`` or a parenthesis), refused past :data:`MAX_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParameterError(f"The predicate nests 'not' and parentheses more than {MAX_DEPTH} deep; "
                                 "write it flatter.")

    def term(self) -> None:
        """One more comparison or membership, refused past :data:`MAX_TERMS`."""
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise ParameterError(f"The predicate has more than {MAX_TERMS} comparisons; use 'column in (...)' "
                                 f"(up to {MAX_VALUES} values) or split the query.")

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def peek_kw(self, *words: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "name" and t.text.lower() in words

    def take(self) -> _Tok:
        t = self.peek()
        if t is None:
            raise ParameterError("The query ends too early; expected more after it.")
        self.i += 1
        return t

    def expect_punct(self, ch: str) -> None:
        t = self.take()
        if t.text != ch:
            raise ParameterError(f"Expected {ch!r} in the query but found {t.text!r}.")

    def column(self) -> str:
        t = self.take()
        if t.kind == "bq":
            return t.text[1:-1]
        if t.kind == "name" and t.text.lower() not in _KEYWORDS:
            return t.text
        raise ParameterError(f"Expected a column name but found {t.text!r} "
                             "(quote odd names in backquotes: `# sold`).")

    def literal(self) -> Any:
        t = self.take()
        if t.kind == "num":
            f = float(t.text)
            return int(t.text) if re.fullmatch(r"-?\d+", t.text) else f
        if t.kind == "str":
            return re.sub(r"\\(.)", r"\1", t.text[1:-1])
        if t.kind == "name" and t.text.lower() not in _KEYWORDS:
            return t.text
        raise ParameterError(f"Expected a literal value but found {t.text!r}.")

    def predicate(self) -> Predicate:
        parts = [self.conj()]
        while self.peek_kw("or"):
            self.take()
            parts.append(self.conj())
        return parts[0] if len(parts) == 1 else BoolOp("or", tuple(parts))

    def conj(self) -> Predicate:
        parts = [self.atom()]
        while self.peek_kw("and"):
            self.take()
            parts.append(self.atom())
        return parts[0] if len(parts) == 1 else BoolOp("and", tuple(parts))

    def atom(self) -> Predicate:
        if self.peek_kw("not"):
            self.take()
            self.nest()
            inner = Not(self.atom())
            self.depth -= 1
            return inner
        t = self.peek()
        if t is not None and t.text == "(":
            self.take()
            self.nest()
            p = self.predicate()
            self.expect_punct(")")
            self.depth -= 1
            return p
        self.term()
        col = self.column()
        if self.peek_kw("in"):
            self.take()
            opener = self.take()
            if opener.text not in "([":
                raise ParameterError(f"Expected '(' after 'in' but found {opener.text!r}.")
            closer = ")" if opener.text == "(" else "]"
            values = [self.literal()]
            while self.peek() is not None and self.peek().text == ",":
                self.take()
                values.append(self.literal())
                if len(values) > MAX_VALUES:
                    raise ParameterError(f"'{col} in (...)' lists more than {MAX_VALUES} values.")
            self.expect_punct(closer)
            return Membership(col, tuple(values))
        op = self.take()
        if op.kind != "op":
            raise ParameterError(
                f"Expected a comparison (= != < <= > >= in) after {col!r} but found {op.text!r}."
            )
        return Comparison(col, op.text, self.literal())

    def done(self) -> None:
        t = self.peek()
        if t is not None:
            raise ParameterError(f"Unexpected {t.text!r} at the end of the query.")


def parse_predicate(text: str) -> Predicate:
    """Parse ``"age > 40 and sex = 'F'"`` into a :data:`Predicate` (no ``eval``).

    Examples
    --------
    >>> p = parse_predicate("age > 40 and city in ('Bonn', 'Köln')")
    >>> sorted(p.columns)
    ['age', 'city']
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError("The 'where' predicate must be a non-empty string.")
    parser = _Parser(_tokenize(text))
    pred = parser.predicate()
    parser.done()
    return pred


@dataclass(frozen=True)
class QuerySpec:
    """A parsed ``veil query`` string."""

    kind: str                      # count | sum | mean | quantile | histogram
    columns: tuple[str, ...] = ()
    where: Predicate | None = None
    q: float | None = None
    text: str = ""
    by: tuple[str, ...] = ()       # the key column of ``sum COL by KEY``


def parse_query(text: str) -> QuerySpec:
    """Parse ``"count where age > 40"``, ``"sum income"``, ``"histogram sex, race"``, ...

    ``"sum COL by KEY"`` is a grouped sum over one key column (its keys listed by the
    caller, as a histogram's categories, or selected privately with a δ).

    Examples
    --------
    >>> spec = parse_query("sum income by sex where age > 40")
    >>> spec.kind, spec.columns, spec.by, str(spec.where)
    ('sum', ('income',), ('sex',), 'age > 40')
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError("The query must be a non-empty string such as 'count where age > 40'.")
    parser = _Parser(_tokenize(text))
    head = parser.take()
    kind = head.text.lower()
    if head.kind != "name" or kind not in ("count", "sum", "mean", "quantile", "histogram"):
        raise ParameterError(
            f"Unknown query {head.text!r}; use count, sum, mean, quantile or histogram."
        )
    columns: list[str] = []
    q = None
    if kind == "quantile":
        lit = parser.literal()
        if not isinstance(lit, (int, float)):
            raise ParameterError("quantile needs a number in [0, 1] first: 'quantile 0.5 age'.")
        q = float(lit)
    if kind in ("sum", "mean", "quantile", "histogram"):
        columns.append(parser.column())
        while kind == "histogram" and parser.peek() is not None and parser.peek().text == ",":
            parser.take()
            columns.append(parser.column())
    by: tuple[str, ...] = ()
    if parser.peek_kw("by"):
        if kind != "sum":
            raise ParameterError(f"'by' applies to a sum ('sum COL by KEY'); use 'histogram' to "
                                 f"count per group. Got {kind!r}.")
        parser.take()
        by = (parser.column(),)
        if parser.peek() is not None and parser.peek().text == ",":
            raise ParameterError("'sum COL by KEY' takes one key column.")
    where = None
    if parser.peek_kw("where"):
        parser.take()
        where = parser.predicate()
    parser.done()
    return QuerySpec(kind=kind, columns=tuple(columns), where=where, q=q, text=text.strip(), by=by)
