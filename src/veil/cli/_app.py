"""The `veil` Typer application and the helpers every command shares.

Each command lives in its own module ``veil/cli/cmd_<name>.py`` and registers
itself on :data:`app` with ``@app.command()``; ``veil.cli`` imports them all.
Library code never imports this package.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

import typer
from rich.console import Console
from rich.errors import MarkupError
from rich.markup import escape
from rich.segment import Segment

from veil import __version__
from veil.cli._lists import split_items, split_list, split_named  # noqa: F401 - split_list: every command's
from veil.errors import VeilError

def _plain_option_types() -> None:
    """``--help`` shows no type for an on/off flag and an item's type for a repeatable option or a
    variadic argument.

    typer 0.29 renders a flag as ``--quiet <bool>``, as if it took a value, and a repeatable
    option as ``<list[str]>``; older versions showed neither.  Its one rendering hook
    (``display_type_rich`` of ``TyperOption`` and ``TyperArgument``) is wrapped once, for every
    command of the CLI; a typer without the hook is left as it is.
    """
    from typer import core

    for name in ("TyperOption", "TyperArgument"):
        kind = getattr(core, name, None)
        shown = getattr(kind, "display_type_rich", None)
        if shown is not None and not getattr(shown, "plain_types", False):
            kind.display_type_rich = _plain(shown)


def _plain(shown: Any) -> Any:
    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        text = shown(self, ctx)
        if isinstance(text, str) and text.startswith("<list[") and "]>" in text:
            return "<" + text[len("<list["):].replace("]>", ">", 1)
        return text

    display_type_rich.plain_types = True  # type: ignore[attr-defined]
    return display_type_rich


_plain_option_types()

app = typer.Typer(
    name="veil",
    help="Privacy-preserving data publishing: risk, privacy models, anonymization, "
    "utility and differential privacy.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



class _SafeConsole(Console):
    """A console that never crashes on markup it did not mean and never writes a control character.

    Every user string a command prints (file and column names, values, clauses)
    goes through :func:`esc` first.  As a last resort, text that still holds
    broken markup (``[/]`` with nothing open) is printed literally instead of
    raising :class:`rich.errors.MarkupError`, and a control character that
    still reaches a rendered segment (ESC, DEL, C1; Rich's own line breaks
    and control codes excepted) is written escaped (``\\x1b``), so no
    terminal escape sequence from the input reaches the terminal.
    """

    def render(self, renderable: Any, options: Any = None) -> Iterator[Segment]:
        from veil._text import UNSAFE, printable

        for segment in super().render(renderable, options):
            if segment.control or not UNSAFE.search(segment.text):
                yield segment
            else:
                yield Segment(printable(segment.text, keep="\n"), segment.style)

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 - rich's name
        try:
            super().print(*objects, **kwargs)
        except MarkupError:
            markup, self._markup = self._markup, False
            try:
                super().print(*objects, **kwargs)
            finally:
                self._markup = markup


console = _SafeConsole()
err_console = _SafeConsole(stderr=True)


def esc(value: object) -> str:
    """A user string (column or file name, value, clause) made safe to print.

    Rich markup escaped: ``[bold]x`` prints as ``[bold]x``, never bold, and
    ``[/]`` never raises; control characters written escaped
    (:func:`veil._text.printable`): ``\\x1b``, ``\\n``, so the text
    holds no terminal escape sequence and no line break.
    """
    from veil._text import printable

    return escape(printable(value))

#: Exit code for invalid input or parameters (a VeilError).
EXIT_INPUT_ERROR = 2
#: Exit code when a requirement (e.g. ``veil check --require``) is not met.
EXIT_REQUIREMENT_FAILED = 1


def _version_callback(value: bool) -> None:
    if value:
        console.print(f"veil {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True,
        help="Print veil's version and exit.",
    ),
) -> None:
    """Privacy-preserving data publishing."""


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn a :class:`VeilError` into a one-line message and exit code 2.

    The message goes through :func:`esc`: a column name holding ESC or a line
    break (from a CSV header) is written escaped, the message stays one line.
    """
    try:
        yield
    except VeilError as exc:
        err_console.print(f"[bold red]error:[/] {esc(exc)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INPUT_ERROR) from None


def given_options(ctx: typer.Context) -> dict[str, str]:
    """The options of the running command given on the command line: parameter name -> its spelling
    (``-k/--k``), read from Click's record of where each value came from, so an option
    added to a command later is seen too, and ``--suppression 0`` counts as given although it is the
    default."""
    out = {}
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name) if param.name else None
        if param.param_type_name == "option" and source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            out[param.name] = "/".join(param.opts)
    return out


def refuse_beside_config(ctx: typer.Context, config: Path, *, allowed: tuple[str, ...],
                         keys: dict[str, str] | None = None) -> None:
    """Refuse every option given beside the configuration ``config`` except ``allowed`` (parameter
    names): the configuration sets what the options would, and a flag beside it is never silently
    ignored.  ``keys`` names the configuration key of an option (``{"k": "models"}``), for the remedy.

    Raises
    ------
    ParameterError
        Names every refused option and, where known, the key to set instead.
    """
    from veil.errors import ParameterError

    given = {name: spelling for name, spelling in given_options(ctx).items() if name not in allowed}
    if given:
        named = list(dict.fromkeys(keys[n] for n in given if keys and n in keys))
        kept = ["/".join(p.opts) for p in ctx.command.params if p.name in allowed]
        raise ParameterError(
            f"{', '.join(given.values())} cannot be given beside the configuration {str(config)!r}: set "
            f"{'it' if len(given) == 1 else 'them'} in the configuration"
            f"{' (' + ', '.join(map(repr, named)) + ')' if named else ''}, or give the data file and flags instead. "
            f"Beside a configuration only {', '.join(kept) or 'no option'} may be given.")


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse repeated ``NAME=VALUE`` options (e.g. ``--hierarchy age=age.csv``); a name holding a
    comma or ``=`` is quoted as in a CSV row (``'"zip, code"=categorical'``); a name given twice is refused."""
    from veil.errors import ParameterError

    out: dict[str, str] = {}
    for value in values or []:
        for item in split_items(value, option) if "," in value and value.count("=") > 1 else [value]:
            name, sep, rest = split_named(item, "=", option)
            if not sep or not name.strip() or not rest.strip():
                raise ParameterError(f"{option} expects NAME=VALUE. Got {item!r} instead.")
            if name.strip() in out:  # the later would silently replace the earlier
                raise ParameterError(f"{option} gives {name.strip()!r} twice; give one value per name.")
            out[name.strip()] = rest.strip()
    return out


def read_frame(path: Path, *, sep: str | None = None, encoding: str = "utf-8", na_values: tuple[str, ...] = ()):
    """Read a CSV/Parquet file through the one reader, every cell as text, the CSV cells ``na_values``
    missing (none by default: ``deidentify`` sees every cell as written; ``scan`` gives its --na-values).

    For the commands that look at raw values (``scan``, ``deidentify``): the
    index is numbered from 1, the first data row after the header, as messages
    count rows.
    """
    import pandas as pd

    from veil.data import read_table

    frame = read_table(path, sep=sep, encoding=encoding, na_values=na_values).to_pandas()
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    return frame


def input_files(*paths: object) -> list[Path]:
    """The paths among ``paths`` (``None`` and non-paths dropped), for :class:`veil.pipeline.Outputs`'s ``inputs``."""
    return [Path(p) for p in paths if isinstance(p, (str, Path))]


def load_dataset(
    path: Path,
    *,
    quasi_identifiers: list[str],
    sensitive: list[str] | None = None,
    identifiers: list[str] | None = None,
    hierarchy_files: dict[str, str] | None = None,
    kinds: dict[str, str] | None = None,
    sep: str | None = None,
    encoding: str = "utf-8",
    missing: str = "value",
    na_values: tuple[str, ...] | None = None,
):
    """Read a CSV/Parquet file into a :class:`veil.dataset.Dataset` with hierarchies (``na_values``: the
    cell texts read as missing, default :data:`veil.data.DEFAULT_NA_VALUES`)."""
    from veil.dataset import DEFAULT_NA_VALUES, Dataset
    from veil.hierarchy import from_csv

    dataset = Dataset.read(
        path,
        sep=sep,
        encoding=encoding,
        quasi_identifiers=quasi_identifiers,
        sensitive=sensitive or [],
        identifiers=identifiers or [],
        kinds=kinds,
        missing=missing,
        na_values=DEFAULT_NA_VALUES if na_values is None else na_values,
    )
    if hierarchy_files:
        dataset = dataset.with_hierarchies(
            {name: from_csv(file, name=name) for name, file in hierarchy_files.items()}
        )
    return dataset


def read_json_report(path: Path | None) -> dict[str, Any] | None:
    """A veil JSON report as a dict (None without one): ``--report`` of utility and evaluate."""
    from veil.evaluate._release_inputs import read_report

    return read_report(path)
