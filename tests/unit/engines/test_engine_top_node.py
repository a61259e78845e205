"""A release at the top node through an engine: its one class reads '*' in every QI, like
suppressed records, and is a class of the file all the same (it was refused as a bug)."""

from __future__ import annotations

import pandas as pd
import pytest

from veil.engines import anonymize_file
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity


@pytest.mark.parametrize("engine", ["local", "duckdb"])
@pytest.mark.parametrize("mode", ["blank", "keep", "drop"])
def test_the_top_node_is_released_with_its_one_class(tmp_path, engine, mode):
    data = tmp_path / "in.csv"
    data.write_text("a,b,s\n1,x,p\n2,y,q\n3,x,p\n4,y,q\n5,z,p\n6,z,q\n")
    hierarchies = {"a": Hierarchy.flat(list("123456"), name="a"), "b": Hierarchy.flat(list("xyz"), name="b")}
    out = tmp_path / "out.csv"
    report = anonymize_file(data, engine=engine, quasi_identifiers=["a", "b"], sensitive=["s"],
                            hierarchies=hierarchies, models=[KAnonymity(k=6), DistinctLDiversity(sensitive="s", l=2)],
                            suppression_limit=0.0, output=out, suppressed=mode, seed=1)
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert report["verified"] is True and report["suppressed"] == 0
    assert (released[["a", "b"]] == "*").all().all()
    assert sorted(released["s"]) == ["p", "p", "p", "q", "q", "q"]  # published: the one class meets 2-diversity
