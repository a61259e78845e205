"""The progress protocol of a release: which phase runs, and how far it is.

A release runs in phases, in this order: ``encode`` (read the table, encode the
quasi-identifiers, build the class table), ``search`` (walk the lattice or run
the algorithm), ``apply`` (generalize, suppress, shuffle), ``verify`` (rebuild
the classes from the output and check every model) and ``write`` (write the
outputs, re-read and check the written table, publish them together).

The library reports through one callback, ``progress(phase, done, total)``:

* a call naming a phase other than the current one ends the current phase and
  starts the named one;
* ``done`` and ``total`` count the phase's units (the search's nodes checked
  out of the lattice's nodes); ``None`` when the phase has no count;
* the last phase ends when the caller stops listening (the CLI closes its
  display).

The library never prints: the CLI renders the calls (``veil.cli``), and the
default callback does nothing.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["PHASES", "Progress", "no_progress", "search_progress"]

#: The phases of a release, in the order they run.
PHASES = ("encode", "search", "apply", "verify", "write")

#: ``progress(phase, done, total)``: see the module docstring.
Progress = Callable[[str, "int | None", "int | None"], None]


def no_progress(phase: str, done: int | None, total: int | None) -> None:
    """The default callback: report nothing."""


def search_progress(progress: Progress) -> Callable[[int, int], None]:
    """The ``progress(done, total)`` callback the algorithms take, reporting as the ``search`` phase.

    Parameters
    ----------
    progress : callable
        A phase callback, ``progress(phase, done, total)``.

    Returns
    -------
    callable
        ``search(done, total)``, which calls ``progress("search", done, total)``.

    Examples
    --------
    >>> calls = []
    >>> search_progress(lambda *a: calls.append(a))(32, 6480)
    >>> calls
    [('search', 32, 6480)]
    """

    def search(done: int, total: int) -> None:
        progress("search", done, total)

    return search
