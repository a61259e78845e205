"""The workspace: the private folder a ``veil serve`` works in, and the state of its one user.

Every file the app reads or writes is inside the workspace (:meth:`Workspace.path`): a name with
a separator, ``..``, a leading dot or a NUL, and a path whose real location (symbolic links
resolved) leaves the workspace, are refused.  A workspace created by the server is temporary
(``mkdtemp``, mode 0700) and removed when the server stops; a given one is kept: created 0700,
or, when it exists, already private (0700).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from veil.errors import OutputError, ParameterError

__all__ = ["Workspace", "State", "MAX_UPLOAD_BYTES", "safe_name"]

#: The largest upload (bytes); ``veil serve --max-upload-mb`` changes it.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024

#: A plain file name: a letter or digit first (no leading dot), then letters, digits, spaces and
#: ``. _ - ( ) +`` (a browser names a second download ``data (1).csv``); letters may be non-ASCII.
_NAME = re.compile(r"^[^\W_][\w.() +-]{0,127}$")
LOCK = ".veil-serve.lock"


def safe_name(name: str) -> str:
    """``name`` if it is a plain file name (no folder, no ``..``, no leading dot), else a ParameterError."""
    text = str(name)
    if "\x00" in text or "/" in text or "\\" in text or text in (".", "..") or not _NAME.fullmatch(text):
        shown = text.replace("\x00", "\\0")[:80]
        raise ParameterError(f"file name {shown!r} is not a plain file name (letters, digits, spaces, "
                             f"'.', '_', '-', '(', ')', '+'; no folder, no leading dot, at most 128 characters).")
    return text


def _given_folder(given: Path) -> Path:
    """A ``--workspace`` folder: created private, or an existing one that is private already (its
    mode is never changed: ``--workspace /tmp`` must not lock everyone else out of /tmp)."""
    if not given.exists():
        given.mkdir(parents=True, mode=stat.S_IRWXU)
        return given.resolve()
    if not given.is_dir():
        raise ParameterError(f"--workspace {str(given)!r} is not a folder.")
    mode = stat.S_IMODE(given.stat().st_mode)
    if mode & 0o077:
        raise ParameterError(f"--workspace {str(given)!r} can be read or entered by other users (mode {mode:o}); "
                             f"make it private first (chmod 700) or give a new folder (it is created private).")
    return given.resolve()


@dataclass
class State:
    """What the steward has chosen so far: the data file, the release configuration in progress
    (a dict of :class:`veil.config.ReleaseConfig`'s keys), and the last results by name."""

    data: str | None = None
    sep: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)


class Workspace:
    """A private folder and the state of the one steward who works in it."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.temporary = root is None
        if root is None:
            self.root = Path(tempfile.mkdtemp(prefix="veil-serve-")).resolve()
        else:
            self.root = _given_folder(Path(root).expanduser())
        os.chmod(self.root, stat.S_IRWXU)
        self.state = State()
        self.lock = threading.RLock()

    def path(self, name: str) -> Path:
        """The file ``name`` directly inside the workspace (it need not exist)."""
        target = self.root / safe_name(name)
        if not self.inside(target):
            raise ParameterError(f"file name {name!r} leads outside the workspace.")
        return target

    def inside(self, target: Path) -> bool:
        """Whether ``target``'s real location (every symbolic link followed) is directly in the workspace."""
        try:
            real = target.resolve()
        except (OSError, RuntimeError):  # a link loop
            return False
        return real.parent == self.root

    def existing(self, name: str) -> Path:
        """The existing regular file ``name`` inside the workspace (no link out of it)."""
        target = self.path(name)
        if not target.is_file():
            raise ParameterError(f"no file {name!r} in the workspace.")
        return target

    def files(self) -> list[str]:
        """The data files in the workspace (CSV, TSV, TXT, Parquet), by name."""
        suffixes = {".csv", ".tsv", ".txt", ".parquet", ".pq"}
        names = []
        for entry in sorted(self.root.iterdir()):
            if entry.suffix.lower() in suffixes and entry.is_file() and not entry.name.startswith("."):
                if self.inside(entry) and _NAME.fullmatch(entry.name):
                    names.append(entry.name)
        return names

    def write_bytes(self, name: str, data: bytes) -> Path:
        """Write ``data`` to ``name`` atomically (a temporary file renamed), mode 0600."""
        return self.write_stream(name, io.BytesIO(data))

    def write_stream(self, name: str, source: BinaryIO, chunk: int = 1 << 20) -> Path:
        """Copy the binary file ``source`` (an upload's ``.file``) to ``name`` in chunks, atomically:
        a temporary file in the workspace (mode 0600) renamed once complete; on any error it is
        removed, so no partial file is ever seen under ``name``."""
        target = self.path(name)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as handle:
                shutil.copyfileobj(source, handle, chunk)
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise OutputError(f"cannot write {name!r} in the workspace: {exc.strerror}.") from None
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def claim(self) -> None:
        """Hold the workspace for this server (a lock file, released when the process ends): a second
        ``veil serve`` on the same folder is refused."""
        import fcntl

        handle = open(self.root / LOCK, "a")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ParameterError(f"another veil serve is using the workspace {str(self.root)!r}; stop it or "
                                 f"choose another --workspace.") from None
        self._claim = handle
        for stale in self.root.glob(".upload-*"):  # a killed server's half-written upload
            stale.unlink(missing_ok=True)

    def close(self) -> None:
        """Release the workspace; remove it if it is temporary (a given one is kept)."""
        claim = getattr(self, "_claim", None)
        if claim is not None:
            claim.close()
            self._claim = None
        if self.temporary:
            shutil.rmtree(self.root, ignore_errors=True)
