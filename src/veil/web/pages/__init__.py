"""The pages of the web app, one module each, in the order of the workflow.

Each page module has ``ROUTES`` (Starlette routes) and ``NAV`` (``(label, path)`` for the
navigation bar, or ``None``).  A page is one module plus its line here.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["PAGES", "NAVIGATION", "routes"]

#: The page modules, in the navigation's order.
PAGES = ("data", "roles", "hierarchies", "models", "run", "results", "risk", "dp", "synthesize", "evaluate", "job")


def _modules():
    return [import_module(f"veil.web.pages.{name}") for name in PAGES]


def routes() -> list:
    return [route for module in _modules() for route in module.ROUTES]


NAVIGATION = tuple(module.NAV for module in _modules() if module.NAV is not None)
