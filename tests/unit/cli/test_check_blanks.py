"""`veil check --blanks match-any` agrees with a local-suppression release's verification."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from veil.cli import app


def test_check_reads_a_local_suppression_release_under_its_rule(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame({"a": rng.choice(list("pqrst"), n), "b": rng.choice(list("xyz"), n),
                          "c": rng.choice(list("uvw"), n)})
    frame.to_csv(tmp_path / "t.csv", index=False)
    runner = CliRunner()
    made = runner.invoke(app, ["anonymize", str(tmp_path / "t.csv"), "--qi", "a,b,c", "--algorithm", "local-suppression",
                               "-k", "5", "-o", str(tmp_path / "r.csv"), "--json", str(tmp_path / "r.json"), "-q"])
    assert made.exit_code == 0, made.stdout + made.stderr
    k = json.loads((tmp_path / "r.json").read_text())["achieved"]["k"]
    assert k >= 5
    args = ["check", str(tmp_path / "r.csv"), "--qi", "a,b,c", "--require", "k>=5", "--json", str(tmp_path / "c.json")]
    as_values = runner.invoke(app, args)
    under_rule = runner.invoke(app, [*args, "--blanks", "match-any"])
    assert under_rule.exit_code == 0, under_rule.stdout
    assert json.loads((tmp_path / "c.json").read_text())["k"] == k
    # read as values, a blanked cell makes classes of its own: the same file fails k>=5
    assert as_values.exit_code == 1
