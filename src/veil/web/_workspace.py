"""The workspace: the private folder a ``veil serve`` works in, and the state of its one user.

Every file the app reads or writes is inside the workspace (:meth:`Workspace.path`): a name with
a separator, ``..``, a leading dot or a NUL, and a path whose real location (symbolic links
resolved) leaves the workspace, are refused.  A workspace created by the server is temporary
(``mkdtemp``, mode 0700) and removed when the server stops; a given one is kept, and made 0700.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veil.errors import OutputError, ParameterError

__all__ = ["Workspace", "State", "MAX_UPLOAD_BYTES", "safe_name"]

#: The largest upload (bytes); ``veil serve --max-upload-mb`` changes it.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,127}$")


def safe_name(name: str) -> str:
    """``name`` if it is a plain file name (no folder, no ``..``, no leading dot), else a ParameterError."""
    text = str(name)
    if "\x00" in text or "/" in text or "\\" in text or text in (".", "..") or not _NAME.match(text):
        shown = text.replace("\x00", "\\0")[:80]
        raise ParameterError(f"file name {shown!r} is not a plain file name (letters, digits, '.', '_', '-', "
                             f"spaces; no folder, no leading dot).")
    return text


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
            given = Path(root).expanduser()
            if given.exists() and not given.is_dir():
                raise ParameterError(f"--workspace {str(given)!r} is not a folder.")
            given.mkdir(parents=True, exist_ok=True)
            self.root = given.resolve()
        os.chmod(self.root, stat.S_IRWXU)
        self.state = State()
        self.lock = threading.RLock()

    def path(self, name: str) -> Path:
        """The file ``name`` directly inside the workspace (it need not exist)."""
        target = self.root / safe_name(name)
        real = target.resolve()
        if real.parent != self.root:
            raise ParameterError(f"file name {name!r} leads outside the workspace.")
        return target

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
                if entry.resolve().parent == self.root:
                    names.append(entry.name)
        return names

    def write_bytes(self, name: str, data: bytes) -> Path:
        """Write ``data`` to ``name`` atomically (a temporary file renamed), mode 0600."""
        target = self.path(name)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise OutputError(f"cannot write {name!r} in the workspace: {exc.strerror}.") from None
        return target

    def close(self) -> None:
        """Remove a temporary workspace (a given one is kept)."""
        if self.temporary:
            shutil.rmtree(self.root, ignore_errors=True)
