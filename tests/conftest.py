"""Shared fixtures."""

from __future__ import annotations

import pytest

from veil.datasets import load_adult


@pytest.fixture(scope="session")
def adult():
    """The bundled Adult dataset (8 QIs, salary-class sensitive) with hierarchies."""
    return load_adult()
