"""Kept for the old import path: the attacks live in :mod:`veil.risk.attacks`, one module per attack."""

from veil.risk.attacks import *  # noqa: F401,F403 - the old path re-exports every attack
from veil.risk.attacks import __all__  # noqa: F401
from veil.risk.attacks._homogeneity import _histogram  # noqa: F401 - used by veil.risk._disclosure
