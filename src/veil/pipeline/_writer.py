"""The one output writer: every file veil writes goes through :class:`Outputs`.

A command names all its inputs and all its outputs up front.  Before any work
starts, :class:`Outputs` refuses a destination that is an input (same resolved
path, or the same file through a link) or another destination, a folder, or an
unwritable place.  Each output is then written to a hidden temporary file beside
its destination (same filesystem, so the final rename is atomic), the caller
verifies what it wrote, and :meth:`Outputs.commit` fsyncs every file and renames
them all into place while holding a lock on each destination folder, so two
concurrent runs leave one complete set of outputs, never a mix.

On any failure (an exception, Ctrl-C) every temporary file is removed and no
destination is touched; a rename that fails while the set is renamed (a destination that cannot
be replaced) undoes the renames already made, so each destination holds what it held before.  A process killed with SIGKILL cannot clean up; its
temporary files carry its process id, and the next :class:`Outputs` that writes
into the same folder removes those of processes that no longer run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from veil.errors import OutputError

__all__ = ["Outputs", "publishing", "remove_stale_temporaries", "check_destination"]

PathLike = str | os.PathLike[str]

#: The characters of a destination's name kept in its temporaries' names.
TEMP_BASE = 100
_TEMP = re.compile(r"^\..+\.veil-(\d+)-[0-9a-f]{12}(\..*)?$")  # any suffix: an engine's parts folder too


def temporary_name(name: str, suffix: str | None = None) -> str:
    """A hidden name for a temporary beside a file called ``name``: this process's id,
    a random part, and ``name``'s extension (or ``suffix``).

    The base is cut to :data:`TEMP_BASE` characters, so that a temporary of a
    temporary (an engine writing the release's temporary file) stays within the
    file system's 255-character limit however long the name.

    >>> import re; bool(_TEMP.match(temporary_name("release.csv")))
    True
    >>> len(temporary_name("r" * 250 + ".parquet")) < 160
    True
    """
    suffix = Path(name).suffix if suffix is None else suffix
    return f".{name.lstrip('.')[:TEMP_BASE]}.veil-{os.getpid()}-{secrets.token_hex(6)}{suffix}"


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(folder: Path) -> None:
    """Remove veil temporary files in ``folder`` whose writing process no longer runs."""
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            match = _TEMP.match(entry.name)
            if match and int(match.group(1)) != os.getpid() and not _alive(int(match.group(1))):
                _remove(entry)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def check_destination(out: Path) -> list[Path]:
    """Refuse a destination that is a folder, or whose folder is a file, cannot be made or written.

    A missing folder is created; returns the folders so made, deepest first (:class:`Outputs`
    removes them again when nothing is published).

    Raises
    ------
    OutputError
    """
    if out.is_dir():
        raise OutputError(f"Cannot write {str(out)!r}: it is a folder; give a file name.")
    folder = out.parent
    made = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"Cannot write {str(out)!r}: {str(parent)!r} is not a folder.")
            break
        made.append(parent)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"Cannot write {str(out)!r}: cannot create the folder {str(folder)!r} ({exc.strerror}).") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"Cannot write {str(out)!r}: the folder {str(folder)!r} is not writable.")
    return made


class Outputs:
    """The outputs of one command, checked before work and published together.

    Parameters
    ----------
    destinations : mapping of str to path or None
        Each output's role (``"data"``, ``"json"``, ``"html"``, ...) and its
        destination; ``None`` means the output is not requested.
    inputs : iterable of path or None
        Every file the command reads (data, hierarchies, population, config,
        ledger, ...); ``None`` entries are ignored.

    Raises
    ------
    OutputError
        A destination is an input, two destinations are the same file, or a
        destination cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with Outputs({"json": folder / "report.json"}, inputs=[folder / "data.csv"]) as out:
    ...     _ = out.write_json("json", {"k": 5})
    ...     out.commit()
    >>> (folder / "report.json").read_text().strip().splitlines()[1].strip()
    '"k": 5'
    """

    def __init__(self, destinations: Mapping[str, PathLike | None], *, inputs: Iterable[PathLike | None] = ()) -> None:
        self._dest: dict[str, Path] = {
            role: Path(path).expanduser().absolute() for role, path in destinations.items() if path is not None
        }
        sources = [Path(p).expanduser().absolute() for p in inputs if p is not None]
        self._temp: dict[str, Path] = {}
        self._committed = False
        #: Folders made for the destinations, removed again (when empty) unless the outputs are published.
        self._made: list[Path] = []
        try:
            self._check(sources)
        except BaseException:
            self._remove_made()
            raise
        for folder in {p.parent for p in self._dest.values()}:
            remove_stale_temporaries(folder)

    def _check(self, sources: list[Path]) -> None:
        """Every destination against every input and every other destination; its folder made."""
        roles = list(self._dest)
        for i, role in enumerate(roles):
            out = self._dest[role]
            for source in sources:
                if _same_file(out, source):
                    raise OutputError(
                        f"The {role} output {str(out)!r} is an input of this command; veil never overwrites an input."
                    )
            for other in roles[:i]:
                if _same_file(out, self._dest[other]):
                    raise OutputError(f"The {role} and {other} outputs are the same file {str(out)!r}; give each its own path.")
            self._made += check_destination(out)

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self._committed:
            self.discard()

    def __contains__(self, role: str) -> bool:
        return role in self._dest

    def destination(self, role: str) -> Path | None:
        """The final path of ``role``, or ``None`` when that output was not requested."""
        return self._dest.get(role)

    def temporary(self, role: str) -> Path:
        """A fresh temporary path beside ``role``'s destination, removed unless committed.

        It keeps the destination's extension (so writers pick the same format).  The file is
        created empty and readable by its owner only (0600), so that what a killed run leaves
        beside the destination, unverified, is not readable by other users; :meth:`commit`
        gives it the mode a new file gets (umask) as it publishes it.
        """
        out = self._dest[role]
        if role in self._temp:
            _remove(self._temp.pop(role))
        tmp = out.with_name(temporary_name(out.name))
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError as exc:
            raise OutputError(f"Cannot write {str(out)!r}: {exc.strerror}.") from None
        self._temp[role] = tmp
        return tmp

    def write(self, role: str, write: Callable[[Path], None]) -> Path:
        """Call ``write(tmp)`` on a temporary path for ``role`` and return that path."""
        tmp = self.temporary(role)
        try:
            write(tmp)
        except OutputError:
            raise
        except OSError as exc:  # permissions, a full disk, an I/O error: one line, nothing published
            _remove(tmp)
            raise OutputError(f"Cannot write {str(self._dest[role])!r}: {exc.strerror or exc}.") from None
        return tmp

    def write_text(self, role: str, text: str) -> Path:
        """Write ``text`` (UTF-8) as ``role``'s temporary file."""
        return self.write(role, lambda tmp: tmp.write_text(text, encoding="utf-8"))

    def write_json(self, role: str, payload: Any) -> Path:
        """Write ``payload`` as indented JSON (no NaN) as ``role``'s temporary file."""
        return self.write_text(role, json.dumps(payload, indent=2, allow_nan=False) + "\n")

    def commit(self) -> None:
        """Fsync every written file and rename them all into place, under folder locks.

        Raises
        ------
        OutputError
            An output was requested but never written, or the rename failed.
        """
        missing = [role for role in self._dest if role not in self._temp]
        if missing:
            raise OutputError(f"Internal error: the outputs {missing} were never written; nothing was published.")
        for role, tmp in self._temp.items():  # the data reach the disk before any lock is taken
            _fsync(tmp)
            if not _TEMP.match(self._dest[role].name):  # a temporary of a temporary stays private
                _publishable(tmp)
        with contextlib.ExitStack() as stack:
            for folder in sorted({str(p.parent) for p in self._dest.values()}):
                fd = os.open(folder, os.O_RDONLY)
                stack.callback(os.close, fd)
                _lock(fd, folder)
            _replace_all({self._dest[role]: tmp for role, tmp in self._temp.items()})
            for folder in {p.parent for p in self._dest.values()}:
                _fsync_entry(folder)  # the renames themselves (the folder's entries, not its files)
        self._committed = True
        self._temp.clear()

    def discard(self) -> None:
        """Remove every temporary file written so far, and the folders made for the outputs when
        they are left empty (nothing is published)."""
        for tmp in self._temp.values():
            _remove(tmp)
        self._temp.clear()
        self._remove_made()

    def _remove_made(self) -> None:
        for folder in sorted(self._made, key=lambda p: len(p.parts), reverse=True):  # a folder holding anything stays
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._made.clear()


def _replace_all(renames: Mapping[Path, Path]) -> None:
    """Rename each temporary onto its destination (``{destination: temporary}``), all or none.

    Each destination that exists is first kept under a hidden name beside it (a hard link, or a
    copy where the file system refuses the link), so that when a later rename fails the ones
    already made are undone: every destination then holds what it held before (or is absent
    again), and no set of outputs is left half published.  The kept files are removed once
    every rename is made.

    Raises
    ------
    OutputError
        A destination cannot be kept or replaced; nothing is published.
    """
    kept: dict[Path, Path | None] = {}
    try:
        for out in renames:
            kept[out] = _keep(out)
        done: list[Path] = []
        try:
            for out, tmp in renames.items():
                os.replace(tmp, out)
                done.append(out)
        except BaseException as exc:  # a failed rename, Ctrl-C: the renames made are undone
            undone = _undo(done, kept)
            if not isinstance(exc, OSError):
                raise
            raise OutputError(f"Cannot write {str(out)!r}: {exc.strerror}; nothing was published"
                              + ("." if not undone else f" (and {', '.join(repr(str(u)) for u in undone)} could "
                                 "not be put back as they were).")) from None
    finally:
        for backup in kept.values():
            if backup is not None:
                _remove(backup)


def _keep(out: Path) -> Path | None:
    """A hidden copy of ``out`` beside it (a hard link where possible), or None when ``out`` does not exist."""
    if not os.path.lexists(out):
        return None
    backup = out.with_name(temporary_name(out.name))
    try:
        os.link(out, backup, follow_symlinks=False)
    except OSError:
        try:
            shutil.copy2(out, backup, follow_symlinks=False)
        except OSError as exc:
            _remove(backup)
            raise OutputError(f"Cannot write {str(out)!r}: {exc.strerror}; nothing was published.") from None
    return backup


def _undo(done: Iterable[Path], kept: Mapping[Path, Path | None]) -> list[Path]:
    """Put back what each destination of ``done`` held (remove it when it did not exist); the
    destinations that could not be put back."""
    failed = []
    for out in done:
        backup = kept[out]
        try:
            if backup is None:
                out.unlink()
            else:
                os.replace(backup, out)
        except OSError:
            failed.append(out)
    return failed


def _publishable(path: Path) -> None:
    """Give a private temporary file the mode a new file gets (0666 less the umask) before it is published."""
    if path.is_file() and not path.is_symlink():
        with contextlib.suppress(OSError):
            os.chmod(path, 0o666 & ~_umask())


def _umask() -> int:
    """This process's umask, read without changing it (Linux), else by setting it back at once."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync(path: Path) -> None:
    """Fsync a written temporary: a file, or a folder an engine wrote (its files, then itself)."""
    if path.is_dir() and not path.is_symlink():
        for child in path.rglob("*"):
            if child.is_file():
                _fsync_entry(child)
    _fsync_entry(path)


def _fsync_entry(path: Path) -> None:
    """Fsync one file or one folder's entries (never what a folder holds)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _lock(fd: int, folder: str) -> None:
    """Take the folder's exclusive lock; say so in the log when another veil run holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        logging.getLogger("veil").warning("waiting for another veil run to finish publishing into %s", folder)
        fcntl.flock(fd, fcntl.LOCK_EX)


@contextlib.contextmanager
def publishing(destinations: Mapping[str, PathLike | None], *, inputs: Iterable[PathLike | None] = ()) -> Iterator[Outputs]:
    """``with publishing(...) as out:`` : an :class:`Outputs` that commits when the block ends without error."""
    with Outputs(destinations, inputs=inputs) as out:
        yield out
        out.commit()
