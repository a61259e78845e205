"""Fixtures of the DP tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def record_selection(monkeypatch):
    """``record_selection(module)`` replaces ``module.partition_selection`` by a selection that
    keeps every candidate (threshold 2, no noise) and returns the list in which each call's
    candidate counts are recorded: what a query asks the threshold to judge."""

    def install(module) -> list[dict]:
        seen: list[dict] = []

        def spy(epsilon, delta, d_in):
            def meas(counts):
                seen.append(dict(counts))
                return counts
            return meas, 2, d_in[1] / epsilon

        monkeypatch.setattr(module, "partition_selection", spy)
        return seen

    return install
