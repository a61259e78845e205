"""Output paths for engines: refuse the input as output, write into a given temporary.

An engine writes the released table into the path it is given, which in a
release is a temporary file of :class:`veil.pipeline.Outputs` (the one
writer): the pipeline verifies it and only then renames it into place.  A
failure removes what the engine wrote.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from veil.errors import OutputError

__all__ = ["check_output", "write_into", "remove_quietly"]


def check_output(output: str | os.PathLike[str], *inputs: str | os.PathLike[str]) -> Path:
    """The absolute output path, after refusing an input path or an unwritable folder.

    A missing folder is created.

    Raises
    ------
    OutputError
        ``output`` is one of ``inputs`` (the same file, also through links), its
        folder is a file, or the folder cannot be created or written.
    """
    out = Path(output).expanduser().absolute()
    for source in inputs:
        src = Path(source)
        if out.resolve() == src.resolve() or (out.exists() and src.exists() and os.path.samefile(out, src)):
            raise OutputError(f"The output {str(out)!r} is the input file; veil never overwrites its input.")
    from veil.pipeline import check_destination  # the one writer's folder checks

    check_destination(out)
    return out


def remove_quietly(path: Path) -> None:
    """Remove a file or folder if it exists (cleanup after a failure)."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def write_into(output: Path, write: Callable[[Path], None]) -> None:
    """Write ``output`` through the one writer, :class:`veil.pipeline.Outputs`.

    ``write(tmp)`` writes a temporary file beside ``output`` (named so that a
    later run sweeps it if this process is killed); it is renamed into place
    when ``write`` returns, and removed on any failure.  In a release,
    ``output`` is itself the release's temporary file, which the pipeline
    verifies before publishing.

    Raises
    ------
    OutputError
        The folder refuses the file (permissions, read-only filesystem, full disk).
    """
    from veil.pipeline import publishing

    with publishing({"data": output}) as out:
        out.write("data", write)
