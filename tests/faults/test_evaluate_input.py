"""Bad input to `veil split` and `veil evaluate`: one line, exit 2, nothing written, inputs unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def tables(folder):
    rng = np.random.default_rng(0)
    def make(n):
        return pd.DataFrame({"a": np.char.add("v", rng.integers(0, 30, n).astype(str)),
                             "b": rng.integers(0, 90, n), "s": rng.choice(["x", "y"], n)})
    original, control, release = make(1000), make(200), make(1000)
    for name, frame in (("o.csv", original), ("c.csv", control), ("r.csv", release)):
        frame.to_csv(folder / name, index=False)
    return original


@pytest.mark.parametrize(("case", "args", "mentions"), [
    ("overlapping control", ["o.csv", "r.csv", "--control", "o.csv"], ("also records of the original",)),
    ("control too small", ["o.csv", "r.csv", "--control", "c.csv", "--n-attacks", "300"], ("control has 200",)),
    ("secret the attacker knows", ["o.csv", "r.csv", "--control", "c.csv", "--n-attacks", "100", "--secret", "s", "--aux", "a,s"],
     ("'s'", "unknown to the attacker")),
    ("unknown attack", ["o.csv", "r.csv", "--attacks", "guessing"], ("Unknown attack 'guessing'",)),
    ("empty release", ["o.csv", "empty.csv"], ("no records",)),
    ("columns that do not match", ["o.csv", "extra.csv"], ("'z'", "not a column of the original")),
    ("bad halves", ["o.csv", "r.csv", "--aux", "a;"], ("two disjoint",)),
])
def test_evaluate_refuses(faults, tmp_path, case, args, mentions):
    tables(tmp_path)
    (tmp_path / "empty.csv").write_text("a,b,s\n*,*,*\n")
    pd.read_csv(tmp_path / "r.csv").assign(z=1).to_csv(tmp_path / "extra.csv", index=False)
    before = faults.snapshot(tmp_path)
    if case == "empty release":
        args = [*args, "--aux", "a,b"]  # every record suppressed ('*' in every QI)
        (tmp_path / "rep.json").write_text('{"columns": [{"name": "a", "role": "quasi-identifier"}, '
                                           '{"name": "b", "role": "quasi-identifier"}]}')
        before = faults.snapshot(tmp_path)
        args = [*args, "--report", "rep.json"]
        mentions = ("suppressed",)
    paths = [str(tmp_path / a) if a.endswith((".csv", ".json")) else a for a in args]
    outcome = faults.invoke("evaluate", *paths, "--json", tmp_path / "out.json", "--html", tmp_path / "out.html")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *mentions)


@pytest.mark.parametrize(("share", "mentions"), [("0", ("control",)), ("1", ("control",)), ("0.0001", ("empty",))])
def test_split_refuses_a_share_that_empties_a_part(faults, tmp_path, share, mentions):
    tables(tmp_path)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("split", tmp_path / "o.csv", "--control", share, "-o", tmp_path / "t.csv",
                            "--control-out", tmp_path / "h.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *mentions)


@pytest.mark.parametrize(("flags", "mentions"), [
    (["--holdout", "0.2"], ("--holdout and --holdout-out go together",)),
    (["--evaluate"], ("--evaluate", "--holdout")),
    (["--holdout", "1.5", "--holdout-out", "c.out.csv"], ("holdout",)),
    (["--holdout", "0.2", "--holdout-out", "c.out.csv", "--engine", "duckdb"], ("local engine",)),
])
def test_anonymize_refuses_a_bad_holdout(faults, tmp_path, flags, mentions):
    tables(tmp_path)
    before = faults.snapshot(tmp_path)
    flags = [str(tmp_path / f) if f.endswith(".csv") else f for f in flags]
    outcome = faults.invoke("anonymize", tmp_path / "o.csv", "--qi", "a,b", "--auto-hierarchies", "-k", "2",
                            "-o", tmp_path / "out.csv", *flags)
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *mentions)
