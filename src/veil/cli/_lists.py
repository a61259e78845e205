"""Comma-separated CLI lists (``--qi age,sex``) and ``NAME=VALUE`` / ``NAME:VALUE`` items.

A column name that holds a comma (or the item's separator) is quoted as in a
CSV row: ``--qi '"zip, code",age'`` names ``zip, code`` and ``age``; a quote
inside a quoted name is doubled (``"say ""hi"" twice"``).  Text with no quote parses
exactly as it always did: split at every comma, each part stripped, blanks
dropped.  A quote left open, or text after a closing quote, is refused with a
:class:`~veil.errors.ParameterError` that names the option.
"""

from __future__ import annotations

import csv

__all__ = ["split_list", "split_items", "split_named"]

_QUOTE = '"'


def _malformed(option: str, text: str, why: str) -> Exception:
    from veil.errors import ParameterError

    return ParameterError(
        f"{option}: malformed quoting in {text!r}: {why}. Quote a name that holds a comma as in a CSV "
        'row ("zip, code",age), with a doubled quote for a quote inside it.'
    )


def _closing_quote(text: str, i: int) -> int:
    """The index of the quote that closes the quoted name opening at ``text[i]`` (a doubled quote is part
    of the name), or -1 when it is left open."""
    j = i + 1
    while j < len(text):
        if text[j] == _QUOTE:
            if text[j + 1:j + 2] != _QUOTE:
                return j
            j += 1  # a doubled quote inside the name
        j += 1
    return -1


def split_items(value: str | None, option: str = "the list") -> list[str]:
    """The comma-separated items of ``value``, split outside quotes, quotes kept, each stripped,
    blanks dropped (``'"a,b"=x,c=y'`` -> ``['"a,b"=x', 'c=y']``)."""
    if not value:
        return []
    if _QUOTE not in value:
        return [part.strip() for part in value.split(",") if part.strip()]
    parts, start, i = [], 0, 0
    while i <= len(value):
        if i == len(value) or value[i] == ",":
            parts.append(value[start:i])
            start = i + 1
        elif value[i] == _QUOTE and not value[start:i].strip():  # a quote opens a name only at an item's start
            i = _closing_quote(value, i)
            if i < 0:
                raise _malformed(option, value, "a quote is left open")
        i += 1
    return [part.strip() for part in parts if part.strip()]


def _unquote(item: str, option: str) -> str:
    """One stripped item read as a CSV field: ``"zip, code"`` -> ``zip, code``; unquoted text as it is."""
    if not item.startswith(_QUOTE):
        return item
    try:
        rows = list(csv.reader([item], strict=True))
    except csv.Error as exc:
        raise _malformed(option, item, str(exc)) from None
    if len(rows) != 1 or len(rows[0]) != 1:
        raise _malformed(option, item, "one quoted name expected")
    return rows[0][0]


def split_list(value: str | None, option: str = "the list") -> list[str]:
    """Split a comma-separated CLI list (``"age,sex"``), dropping blanks.

    CSV-style quoting names a column holding a comma: ``'"zip, code",age'`` ->
    ``['zip, code', 'age']``.  ``option`` (``"--qi"``) names the option in the
    error for a malformed quote (exit 2).
    """
    names = [_unquote(item, option) for item in split_items(value, option)]
    return [name for name in names if name.strip()]


def split_named(item: str, sep: str, option: str, *, last: bool = False) -> tuple[str, str, str]:
    """``(name, sep, rest)`` of ``NAME<sep>VALUE``, as :meth:`str.partition` (``last``:
    :meth:`str.rpartition`) splits it when the name is not quoted; a quoted name
    (``"zip, code"=categorical``) is unquoted, and the separator must follow its closing quote."""
    text = item.strip()
    if not text.startswith(_QUOTE):
        return item.rpartition(sep) if last else item.partition(sep)
    i = _closing_quote(text, 0)
    if i < 0:
        raise _malformed(option, item, "a quote is left open")
    name, tail = _unquote(text[:i + 1], option), text[i + 1:].lstrip()
    if tail and not tail.startswith(sep):
        raise _malformed(option, item, f"{sep!r} must follow the quoted name")
    return name, sep if tail else "", tail[len(sep):].strip()
