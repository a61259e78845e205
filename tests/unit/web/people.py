"""The generated table the web tests open: people with age, sex and zip (and a disease on request),
written into a workspace as the open table with a configuration in progress."""

from __future__ import annotations

import numpy as np
import pandas as pd


def people(n: int = 300, seed: int = 0, *, disease: bool = False) -> pd.DataFrame:
    """``n`` people; ``disease`` adds a sensitive column (drawn last: the other columns stay the same)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(18, 90, n).astype(str), "sex": rng.choice(["f", "m"], n),
                          "zip": rng.choice(["12345", "12346", "12377", "12399"], n)})
    if disease:
        frame["disease"] = rng.choice(["flu", "hiv", "cold"], n)
    return frame


def open_people(app, attributes: dict, *, n: int = 300, seed: int = 0, disease: bool = False, **config):
    """The workspace of ``app`` with ``people(n, seed)`` as its open table and ``attributes`` and
    ``config`` as its configuration in progress."""
    workspace = app.state.workspace
    workspace.write_bytes("people.csv", people(n, seed, disease=disease).to_csv(index=False).encode())
    workspace.state.data = "people.csv"
    workspace.state.config = {"attributes": attributes, **config}
    return workspace
