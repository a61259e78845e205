"""Text from the input made safe to show: control characters written visibly.

Column names come from a CSV header, so whoever wrote the file chooses them.
Everything veil shows (terminal output, error messages, the HTML report) is
treated as public: nothing in the input may move the cursor, recolour or
clear a terminal, or break a one-line message.  :func:`printable` is the one
function that does it; the CLI's consoles and error handler and the HTML
report's template all use it.  It depends on nothing but the standard library
(the CLI imports it without the report's dependencies).
"""

from __future__ import annotations

import re

__all__ = ["printable", "bounded", "UNSAFE", "QUOTE_LIMIT"]

#: The characters written escaped: C0 controls (tab, newline and ESC
#: included), DEL, C1 controls, the line and paragraph separators and the
#: bidirectional embeddings, overrides and isolates (they reorder what
#: follows them on the line).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def printable(value: object, *, keep: str = "") -> str:
    """``str(value)`` with every control character written as an escape (``\\x1b``, ``\\n``).

    Printable text, non-ASCII included (``é``, ``中文``), is kept as it is;
    only the characters of :data:`UNSAFE` change, so the result holds no
    terminal escape sequence and no line break.

    Parameters
    ----------
    value : object
        The text (anything else is turned into text with ``str``).
    keep : str, default ""
        Characters left as they are (the HTML report keeps ``"\\n\\t"``,
        white space there, for its preformatted JSON).

    Examples
    --------
    >>> printable("age\\x1b[31m,line\\nbreak")
    'age\\\\x1b[31m,line\\\\nbreak'
    >>> printable("âge 中文")
    'âge 中文'
    """
    text = str(value)
    if not UNSAFE.search(text):
        return text
    if keep:
        return UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escaped(m), text)
    return UNSAFE.sub(_escaped, text)


#: The longest quoted value a message shows whole; a longer one keeps its first
#: :data:`QUOTE_SHOWN` characters and says how long it was.
QUOTE_LIMIT = 300
QUOTE_SHOWN = 60
#: A quoted value as ``repr`` writes it (a backslash escapes the next character); possessive, so a
#: quote that never closes costs one scan, not a backtrack per character.  Every quoted value is
#: matched, short ones too, left to right: the quotes pair up as the message opened them, so the
#: text between two short values is never read as one long value.
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*+'|\"(?:[^\"\\\n]|\\.)*+\"")


def bounded(message: str) -> str:
    """``message`` with every quoted value longer than :data:`QUOTE_LIMIT` characters cut.

    Error messages quote the value they are about (``the value 'x' is not
    covered``); a value of a megabyte would make a megabyte-long line.

    Examples
    --------
    >>> bounded("the value " + repr("x" * 1000) + " is missing")
    "the value 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (1,000 characters) is missing"
    """
    if len(message) <= QUOTE_LIMIT:
        return message

    def cut(match: re.Match[str]) -> str:
        quote, inner = match.group()[0], match.group()[1:-1]
        if len(inner) < QUOTE_LIMIT:
            return match.group()
        return f"{quote}{inner[:QUOTE_SHOWN]}…{quote} ({len(inner):,} characters)"

    return _QUOTED.sub(cut, message)
