"""Property: ``veil risk``, ``veil anonymize`` and ``veil check`` read a table with the same ``--na-values``
the same way.

For a random table whose cells are missing words, look-alikes and plain values, and a random
``--na-values`` list: the classes and k ``veil risk --na-values X`` reports on the input are the
ones ``veil anonymize --na-values X`` reports for the identity generalization, the ones ``veil check
--na-values X`` finds in that release, and the ones counted here from the cells (a cell is missing
when it is empty or one of X; every missing cell of a column is one value).  Before, ``risk`` had no
``--na-values`` and read the default words whatever the release read.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from veil.cli import app
from veil.data import DEFAULT_NA_VALUES

CELLS = ["NA", "None", "N/A", "null", "a", "b", ""]
WORDS = ["NA", "None", "N/A", "null", "a"]


def _invoke(*args: object) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)


def _expected(rows: list[tuple[str, str]], words: tuple[str, ...]) -> tuple[int, int]:
    """(classes, k) of the rows, a cell in ``words`` (or empty) read as the column's one missing value."""
    missing = set(words) | {""}
    sizes: dict[tuple, int] = {}
    for row in rows:
        key = tuple(None if cell in missing else cell for cell in row)
        sizes[key] = sizes.get(key, 0) + 1
    return len(sizes), min(sizes.values())


@pytest.mark.slow  # 20 examples of three commands: about 15 s
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(CELLS), st.sampled_from(CELLS)), min_size=1, max_size=25),
       words=st.none() | st.lists(st.sampled_from(WORDS), unique=True, max_size=4))
def test_risk_anonymize_and_check_agree_on_the_classes(tmp_path, rows, words):
    table = tmp_path / "t.csv"
    # a row number in every row: a row of empty cells would be a blank line, which the reader skips
    table.write_text("n,p,q\n" + "".join(f"{i},{p},{q}\n" for i, (p, q) in enumerate(rows)))
    option = [] if words is None else ["--na-values", ",".join(words)]
    read = DEFAULT_NA_VALUES if words is None else ("", *words)
    classes, k = _expected(rows, read)

    _invoke("risk", table, "--qi", "p,q", "--max-qi-size", "0", "--json", tmp_path / "risk.json", *option)
    risk = json.loads((tmp_path / "risk.json").read_text())
    assert (risk["classes"], risk["prosecutor"]["highest"]) == (classes, 1 / k)

    _invoke("anonymize", table, "--qi", "p,q", "--hierarchy", "p=mask:1", "--hierarchy", "q=mask:1", "-k", "1",
            "-o", tmp_path / "r.csv", "--json", tmp_path / "a.json", "-q", *option)
    released = json.loads((tmp_path / "a.json").read_text())
    assert released["transformation"] == {"p": 0, "q": 0}
    assert (released["achieved"]["classes"], released["achieved"]["k"]) == (classes, k)

    _invoke("check", tmp_path / "r.csv", "--qi", "p,q", "--json", tmp_path / "c.json", *option)
    checked = json.loads((tmp_path / "c.json").read_text())
    assert (checked["classes"], checked["k"]) == (classes, k)
