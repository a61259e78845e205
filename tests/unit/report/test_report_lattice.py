"""The lattice block of the anonymize report: the search's own record, honest against every node judged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veil
from veil.algorithms._lattice_record import search_record
from veil.algorithms._nodes import Evaluator, limit_records
from veil.algorithms.lattice import Lattice, search
from veil.classes import ClassTable
from veil.errors import InfeasibleError, ParameterError
from veil.models import EqualDistanceTCloseness, KAnonymity
from veil.pipeline._report import lattice_section
from veil.testing import anonymization_inputs
from veil.utility import get_metric

KEYS = ("satisfying", "failing", "not_evaluated")


def test_record_sums_each_outcome_per_height():
    # a 2 x 3 lattice: heights 0 (0,0); 1 (0,1) (1,0); 2 (0,2) (1,1); 3 (1,2)
    nodes = Lattice((0, 0), (1, 2)).nodes()
    outcome = np.array([-1, -1, 1, 0, 1, 0], dtype=np.int8)  # rows (0,0) (0,1) (0,2) (1,0) (1,1) (1,2)
    record = search_record(nodes, outcome)
    assert record == {"heights": [0, 1, 2, 3], "satisfying": [0, 0, 2, 0], "failing": [1, 1, 0, 0],
                      "not_evaluated": [0, 1, 0, 1]}


def test_record_starts_at_the_lowest_allowed_height():
    nodes = Lattice((1, 2), (2, 2)).nodes()  # (1,2) height 3, (2,2) height 4
    assert search_record(nodes, np.array([0, 1], dtype=np.int8))["heights"] == [3, 4]


def _truth(classes, models, limit):
    """Every node judged (the exhaustive reference): satisfied or not, and its height."""
    evaluator = Evaluator(classes, models, limit_records(classes, limit), lambda c: 0.0, cache_size=0)
    nodes = Lattice(tuple(0 for _ in classes.hierarchies), tuple(h.height for h in classes.hierarchies)).nodes()
    satisfied = np.array([evaluator.evaluate(tuple(int(x) for x in n), need_loss=False).satisfied for n in nodes])
    return nodes.sum(axis=1), satisfied


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs=anonymization_inputs(max_rows=30, max_models=2),
       limit=st.sampled_from([0.0, 0.1, 0.5]),
       metric=st.sampled_from(["loss", "height", "discernibility"]))
def test_the_record_never_claims_more_than_the_lattice_holds(inputs, limit, metric):
    """All three strategies (monotone + additive, mixed, non-additive): per height, the nodes
    recorded satisfying are at most the nodes that truly satisfy, the failing at most the truly
    failing, the three outcomes sum to the height's nodes, and the judged ones are the nodes checked."""
    dataset, models = inputs
    classes = ClassTable.from_dataset(dataset)
    spec = get_metric(metric)
    try:
        found = search(classes, models, loss=lambda c: spec.loss(c, k=2), metric_name=metric,
                       suppression_limit=limit)
    except (InfeasibleError, ParameterError):
        return
    record = found.extra["lattice"]
    heights, satisfied = _truth(classes, models, limit)
    for i, h in enumerate(record["heights"]):
        at = heights == h
        assert record["satisfying"][i] <= int((satisfied & at).sum())
        assert record["failing"][i] <= int((~satisfied & at).sum())
        assert sum(record[key][i] for key in KEYS) == int(at.sum())
    assert sum(record["satisfying"]) + sum(record["failing"]) == found.nodes_checked
    chosen = record["heights"].index(sum(found.node))
    assert record["satisfying"][chosen] >= 1  # the optimum was judged, not inferred


@pytest.fixture(scope="module")
def adult():
    return veil.datasets.load_adult()


def test_adult_lattice_block_agrees_with_the_search_block_and_the_transformation(adult):
    result = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05)
    block, report = result.report["lattice"], result.report
    assert block["algorithm"] == report["search"]["algorithm"] == "lattice"
    assert block["nodes_total"] == report["search"]["nodes_total"] == 6480  # 2*5*2*3*4*3*3*3 levels
    assert block["chosen"]["levels"] == report["transformation"]
    assert block["chosen"]["height"] == sum(report["transformation"].values())
    heights = block["heights"]
    # Adult's hierarchy heights sum to 1+4+1+2+3+2+2+2 = 17: heights 0..17; one node at
    # 0 and at 17, eight at height 1 (each of the 8 QIs one level up)
    assert [h["height"] for h in heights] == list(range(18))
    totals = [sum(h[key] for key in KEYS) for h in heights]
    assert totals[0] == totals[17] == 1 and totals[1] == 8
    assert sum(totals) == 6480
    assert sum(h["satisfying"] + h["failing"] for h in heights) == report["search"]["nodes_checked"]
    assert block["path"] is None


def test_mixed_models_record_the_partial_failures(adult):
    """k-anonymity is monotone with suppression, t-closeness not: the mixed strategy judges
    many nodes on k alone; those failures are recorded as judged failures."""
    classes = ClassTable.from_dataset(adult)
    found = search(classes, [KAnonymity(k=5), EqualDistanceTCloseness(sensitive="salary-class", t=0.2)],
                   loss=lambda c: get_metric("loss").loss(c), metric_name="loss", suppression_limit=0.05)
    record = found.extra["lattice"]
    assert sum(record["satisfying"]) + sum(record["failing"]) == found.nodes_checked
    assert sum(record["failing"]) > 0 and sum(record["not_evaluated"]) > 0


def test_datafly_lists_its_climb_and_a_local_recoding_has_no_lattice(adult):
    datafly = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, algorithm="datafly").report
    block = datafly["lattice"]
    assert block["algorithm"] == "datafly" and block["heights"] is None
    path = block["path"]
    assert [step["height"] for step in path] == list(range(len(path)))  # one level up per step, from 0
    assert [step["satisfying"] for step in path] == [False] * (len(path) - 1) + [True]
    assert path[-1]["levels"] == block["chosen"]["levels"] == datafly["transformation"]
    mondrian = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, algorithm="mondrian").report
    assert mondrian["lattice"] == {"algorithm": "mondrian", "nodes_total": None, "chosen": None,
                                   "heights": None, "path": None}


def test_lattice_section_without_a_search_names_the_algorithm():
    assert lattice_section("mdav", None, ["age"])["algorithm"] == "mdav"


def test_the_page_draws_only_what_the_block_holds():
    from veil.report import render_html

    block = {"algorithm": "lattice", "nodes_total": 4, "chosen": {"levels": {"<b>zip": 1, "age": 0}, "height": 1},
             "heights": [{"height": 0, "satisfying": 0, "failing": 1, "not_evaluated": 0},
                         {"height": 1, "satisfying": 1, "failing": 0, "not_evaluated": 1},
                         {"height": 2, "satisfying": 0, "failing": 0, "not_evaluated": 1}],
             "path": None}
    page = render_html({"transformation": {"<b>zip": 1, "age": 0}, "lattice": block}, plots=False)
    section = page.split('<section id="lattice">')[1].split("</section>")[0]
    assert section.count("<rect class=\"lattice-") == 4  # the four non-zero counts
    assert 'data-height="1" data-status="satisfying" data-count="1"' in section
    assert section.count('id="lattice-chosen"') == 1
    assert "&lt;b&gt;zip=1, age=0" in section and "<b>zip" not in section  # a column name is escaped
    assert "Other fields" not in page  # the block is a known key

    mondrian = render_html({"transformation": {}, "lattice": {"algorithm": "mondrian", "nodes_total": None,
                                                             "chosen": None, "heights": None, "path": None}},
                           plots=False)
    section = mondrian.split('<section id="lattice">')[1].split("</section>")[0]
    assert "mondrian algorithm is a local recoding" in section and "<svg" not in section
    assert 'id="lattice"' not in render_html({"transformation": {"age": 1}}, plots=False)


def test_the_page_lists_datafly_climb(adult):
    from veil.report import render_html

    result = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, algorithm="datafly")
    page = render_html(result.report, plots=False)
    table = page.split('<table id="lattice-path">')[1].split("</table>")[0]
    assert table.count("<tr>") == len(result.report["lattice"]["path"]) + 1  # and the header row
    assert table.count("satisfying (chosen)") == 1 and "<svg" not in page.split('id="lattice"')[1]

