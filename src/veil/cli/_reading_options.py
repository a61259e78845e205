"""How a command reads its table: ``--na-values``, the one definition every reading command shares.

``veil anonymize``, ``check``, ``risk``, ``describe``, ``scan``, ``utility``, ``explore`` and
``query`` take it (docs/data.md): the cell texts read as missing, comma-separated, the empty cell
always one of them (:func:`veil.data.parse_na_values`), so ``--na-values ""`` reads a text ``NA``
as a value.  A word holding a comma is quoted as in a CSV row (``'"n, a",NA'``), as the CLI's
other lists are (:mod:`veil.cli._lists`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

__all__ = ["NA_VALUES_HELP", "na_values_option", "na_values_of"]

#: The help of ``--na-values``; the default words are :data:`veil.data.DEFAULT_NA_VALUES`.
NA_VALUES_HELP = ('Cell texts read as missing, comma-separated (default: "", NA, N/A, NaN, nan, NULL, null, None); '
                  '--na-values "" reads only empty cells as missing, so NA is a value.')

#: A character no cell text read as missing may hold: a CSV cell is one line of printable text.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def na_values_option() -> Any:
    """The ``--na-values TEXTS`` option (``None``: the default words)."""
    return typer.Option(None, "--na-values", help=NA_VALUES_HELP)


def na_values_of(text: str | None, *files: Path | None) -> tuple[str, ...]:
    """The missing words ``--na-values text`` names for the tables ``files``: :func:`veil.data.parse_na_values`'s
    for text without a quote (the default words for ``None``), a quoted word unquoted.

    Raises
    ------
    ParameterError
        A quote left open (or text after a closing quote), or a word holding a control character
        (a line break, a tab): no cell of one line reads so.  Or ``files`` are all Parquet, which
        ``--na-values`` would not change (the words are CSV cell texts; a Parquet column's missing
        values are its nulls): refused rather than ignored.
    """
    from veil.cli._lists import split_list
    from veil.data import PARQUET_SUFFIXES, parse_na_values
    from veil.errors import ParameterError

    if text is None or '"' not in text:
        words = parse_na_values(text)
    else:
        words = tuple(dict.fromkeys(["", *split_list(text, "--na-values")]))
    for word in words:
        if _CONTROL.search(word):
            raise ParameterError(f"--na-values: the word {word!r} holds a control character (a line break, a tab, "
                                 "...); give the cell texts read as missing, comma-separated.")
    tables = [Path(f) for f in files if f is not None]
    if text is not None and tables and all(f.suffix.lower() in PARQUET_SUFFIXES for f in tables):
        raise ParameterError(f"--na-values names CSV cell texts, and {tables[0].name!r} is a Parquet file, whose "
                             "missing values are its nulls: drop --na-values.")
    return words

