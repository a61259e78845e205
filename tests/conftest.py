"""Shared fixtures."""

from __future__ import annotations

import pytest
from hypothesis import settings

from veil.datasets import load_adult

# No per-example time limit: on a loaded 2-core CI machine an example's first run can take longer
# than hypothesis's 200 ms default, and the rerun's faster time then reads as a "flaky" failure.
# The suite's time is bounded by the run's own timeout, not by a per-example clock.
settings.register_profile("veil", deadline=None)
settings.load_profile("veil")


@pytest.fixture(scope="session")
def adult():
    """The bundled Adult dataset (8 QIs, salary-class sensitive) with hierarchies."""
    return load_adult()
