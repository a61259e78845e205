"""Property: a DP query decides nothing from its rows (docs/dp.md, "Nothing before the noise ...").

Two tables of the same schema (the same columns, each numeric or text with at least one value)
but any rows give every query and predicate the same outcome before the noise: the same
refusal and message, or the same answer fields but the noisy value, and the same charge.
A predicate selecting some rows, all or none is just one more such pair of tables.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, parse_query
from veil.errors import VeilError

QUERIES = ["count where {p}", "sum n where {p}", "sum t where {p}", "mean n where {p}", "quantile 0.5 n where {p}",
           "histogram t where {p}", "sum n by t where {p}"]
ATOMS = ["t = 'a'", "t in ('a', 'b')", "t != 'c'", "n > 3", "n = 2", "n in (1, 5)", "t > 1", "n = 'x'"]

predicates = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(inner.map(lambda p: f"not ({p})"),
                            st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})")),
    max_leaves=4,
)


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    """A table of the one schema: ``n`` numbers, ``t`` text, each with at least one value."""
    size = draw(st.integers(1, 8))
    n = draw(st.lists(st.one_of(st.none(), st.integers(0, 9).map(float)), min_size=size, max_size=size))
    t = draw(st.lists(st.sampled_from([None, "a", "b", "c"]), min_size=size, max_size=size))
    n[0] = n[0] if n[0] is not None else 1.0
    t[-1] = t[-1] if t[-1] is not None else "c"
    return pd.DataFrame({"n": pd.Series(n, dtype=float), "t": pd.Series(t, dtype=object)})


def _fields(answer) -> dict:
    out = {k: v for k, v in answer.to_dict().items() if k != "value"}
    if answer.mechanism == "laplace+geometric":  # a mean: its scale is over its noisy count
        out.pop("noise_scale")
        out["details"] = {k: v for k, v in out["details"].items() if not k.startswith("noisy_")}
    return out


def _outcome(run) -> tuple:
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=10, delta=1e-3))
    try:
        result = ("answer", _fields(run(acc)))
    except VeilError as exc:
        result = (type(exc).__name__, str(exc))
    return result, acc.spent


def _in_memory(frame: pd.DataFrame, text: str):
    spec = parse_query(text)

    def run(acc: PrivacyAccountant):
        table = PrivateTable(frame, accountant=acc)
        if spec.kind == "count":
            return table.count(spec.where, epsilon=1.0)
        if spec.kind == "histogram":
            return table.histogram("t", categories=["a", "b"], epsilon=1.0, where=spec.where)
        bounds = {"lower": 0, "upper": 10, "epsilon": 1.0, "where": spec.where}
        if spec.by:
            return table.group_by_sum(spec.columns[0], "t", delta=1e-6, **bounds)
        if spec.kind == "quantile":
            return table.quantile(spec.columns[0], 0.5, **bounds)
        return getattr(table, spec.kind)(spec.columns[0], **bounds)
    return run


def _engine(engine: str, path: Path, frame: pd.DataFrame, text: str):
    from veil.engines import get_engine
    from veil.engines._query import engine_answer

    frame.to_csv(path, index=False)  # a missing value: an empty cell
    spec = parse_query(text)
    return lambda acc: engine_answer(get_engine(engine), path, spec, accountant=acc, epsilon=1.0, lower=0, upper=10,
                                     categories=["a", "b"] if spec.kind == "histogram" else None, delta=1e-6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=tables(), second=tables(), query=st.sampled_from(QUERIES), predicate=predicates)
def test_in_memory_outcome_depends_on_the_schema_only(first, second, query, predicate):
    text = query.format(p=predicate)
    assert _outcome(_in_memory(first, text)) == _outcome(_in_memory(second, text))


@pytest.mark.parametrize("engine", ["local", "duckdb"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(first=tables(), second=tables(), query=st.sampled_from(QUERIES[:3] + QUERIES[5:]), predicate=predicates)
def test_engine_outcome_depends_on_the_schema_only(tmp_path, engine, first, second, query, predicate):
    pytest.importorskip("duckdb")
    text = query.format(p=predicate)
    one = _outcome(_engine(engine, tmp_path / "one.csv", first, text))
    two = _outcome(_engine(engine, tmp_path / "two.csv", second, text))
    assert one == two
