"""The ``veil`` command line.

Each command is a module ``cmd_<name>.py`` in this package that registers on
:data:`veil.cli._app.app`; they are imported here in name order.
"""

from __future__ import annotations

import importlib
import pkgutil

from veil.cli._app import app

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("cmd_")):
    importlib.import_module(f"{__name__}.{_module}")


def main() -> None:
    """Entry point of the ``veil`` script."""
    app()


__all__ = ["app", "main"]
