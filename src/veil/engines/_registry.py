"""Engines by name."""

from __future__ import annotations

from typing import Any

from veil.engines._protocol import Engine
from veil.errors import ParameterError

__all__ = ["ENGINES", "get_engine"]

#: The engine names :func:`get_engine` knows, default first.
ENGINES: tuple[str, ...] = ("local", "duckdb", "spark")


def get_engine(engine: "str | Engine" = "local", **options: Any) -> Engine:
    """The engine called ``engine`` (``local``, ``duckdb`` or ``spark``), or ``engine`` itself.

    Parameters
    ----------
    engine : str or Engine
        A name of :data:`ENGINES`, or an engine object (returned as is).
    **options
        Keyword arguments of the engine's constructor (e.g. ``memory_limit``
        for ``duckdb``, ``master`` for ``spark``); only with a name.

    Raises
    ------
    ParameterError
        An unknown name, or options given with an engine object.

    Examples
    --------
    >>> get_engine("duckdb", memory_limit="1GB").name
    'duckdb'
    """
    if not isinstance(engine, str):
        if isinstance(engine, Engine):
            if options:
                raise ParameterError("Engine options are given by name only; configure the engine object instead.")
            return engine
        raise ParameterError(
            f"The 'engine' parameter must be one of {{{', '.join(map(repr, ENGINES))}}} or an engine object. "
            f"Got {engine!r} instead."
        )
    name = engine.strip().lower()
    if name == "local":
        from veil.engines._local import LocalEngine

        if options:
            raise ParameterError(f"The local engine takes no options. Got {', '.join(sorted(options))}.")
        return LocalEngine()
    if name == "duckdb":
        from veil.engines._duckdb import DuckDBEngine

        return _construct(DuckDBEngine, options)
    if name == "spark":
        from veil.engines._spark import SparkEngine

        return _construct(SparkEngine, options)
    raise ParameterError(
        f"The 'engine' parameter must be one of {{{', '.join(map(repr, ENGINES))}}}. Got {engine!r} instead."
    )


def _construct(cls: Any, options: dict[str, Any]) -> Engine:
    try:
        return cls(**options)
    except TypeError as exc:
        raise ParameterError(f"Bad option for {cls.__name__}: {exc}.") from None
