"""The pair-marginal bound that refutes nodes before their table is built (veil.algorithms._pairs)."""

import pandas as pd
import pytest

import veil.algorithms._nodes as nodes_module
import veil.algorithms._pairs as pairs_module
from veil.algorithms._pairs import PairBound, pair_bound
from veil.algorithms.lattice import search
from veil.classes import ClassTable
from veil.errors import InfeasibleError
from veil.hierarchy import Hierarchy
from veil.models import (
    DistinctLDiversity, EntropyLDiversity, EqualDistanceTCloseness, KAnonymity, RecursiveCLDiversity,
)
from veil.utility import get_metric

LOSS = get_metric("loss")


def _loss(classes):
    return LOSS.loss(classes)


def _table():
    """Three QIs, nine records; by hand, at level 0:
    pair (a, b) has cells x-p: 4, x-q: 3, y-q: 2; pair (a, c): x-u: 7, y-v: 2; pair (b, c): p-u: 4, q-u: 3, q-v: 2."""
    frame = pd.DataFrame({"a": list("xxxxxxxyy"), "b": list("ppppqqqqq"), "c": list("uuuuuuuvv")})
    return ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"])


def test_the_bound_counts_the_records_of_small_cells_on_the_first_pair_that_refutes():
    classes = _table()
    bound = PairBound(classes, 3, 0)
    assert bound.pairs == [(0, 1), (0, 2), (1, 2)]
    # (a, b): the cell y-q holds 2 < 3 records, so at least those 2 are suppressed
    assert bound.refutes((0, 0, 0)) == 2
    # with a at '*', (a, b) has cells p: 4, q: 5 and (a, c) u: 7, v: 2: (a, c) refutes
    assert bound.refutes((1, 0, 0)) == 2
    assert bound.order[0] == 1  # the pair that refuted last is asked first
    # b and c at '*': every pair's cells hold 7 and 2 (a) or 9: a's y is still too small
    assert bound.refutes((0, 1, 1)) == 2
    assert bound.refutes((1, 1, 1)) == 0


def test_a_node_that_no_pair_refutes_is_not_refuted_and_the_limit_is_respected():
    classes = _table()
    assert PairBound(classes, 2, 0).refutes((0, 0, 0)) == 0  # every cell holds 2 or more
    # with 2 records allowed to be suppressed, 2 small records do not refute the node
    assert PairBound(classes, 3, 2).refutes((0, 0, 0)) == 0
    assert PairBound(classes, 4, 2).refutes((0, 0, 0)) == 5  # x-q 3 + y-q 2 on (a, b)


def test_a_pair_of_attributes_is_the_whole_table_so_the_bound_is_exact():
    frame = pd.DataFrame({"a": list("xxxyyz"), "b": list("ppqqqq")})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    bound = PairBound(classes, 2, 0)
    for node in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        table = classes.generalize(node)
        exact = int(table.counts[table.counts < 2].sum())
        assert bound.refutes(node) == exact


def test_models_declare_the_fewest_records_a_class_can_hold():
    assert KAnonymity(k=7).smallest_class == 7
    assert DistinctLDiversity(sensitive="s", l=3).smallest_class == 3
    assert EntropyLDiversity(sensitive="s", l=2.5).smallest_class == 2  # floor(l)
    assert RecursiveCLDiversity(sensitive="s", c=3.0, l=3).smallest_class == 3
    assert EqualDistanceTCloseness(sensitive="s", t=0.2).smallest_class == 1


def test_the_search_refutes_nodes_at_zero_suppression_only_when_every_model_sets_a_floor(adult):
    classes = ClassTable.from_dataset(adult)
    found = search(classes, [KAnonymity(k=5)], loss=_loss, metric_name="loss", suppression_limit=0.0)
    assert found.extra["nodes_refuted"] > 0
    with_limit = search(classes, [KAnonymity(k=5)], loss=_loss, metric_name="loss", suppression_limit=0.01)
    assert with_limit.extra["nodes_refuted"] == 0


def test_refuting_changes_neither_the_node_nor_the_nodes_judged(adult, monkeypatch):
    classes = ClassTable.from_dataset(adult)
    for models in ([KAnonymity(k=5)], [KAnonymity(k=3), DistinctLDiversity(sensitive="salary-class", l=2)]):
        refuting = search(classes, models, loss=_loss, metric_name="loss", suppression_limit=0.0)

        class NeverRefutes(PairBound):
            def refutes(self, node):
                return 0

        with monkeypatch.context() as patch:
            patch.setattr(nodes_module, "pair_bound", NeverRefutes)
            building = search(classes, models, loss=_loss, metric_name="loss", suppression_limit=0.0)
        assert refuting.extra["nodes_refuted"] > 0 and building.extra["nodes_refuted"] == 0
        assert refuting.node == building.node
        assert refuting.loss == pytest.approx(building.loss)
        assert refuting.nodes_checked == building.nodes_checked
        assert refuting.extra["lattice"] == building.extra["lattice"]


def test_a_search_of_one_node_builds_its_table_without_counting_the_pairs(adult, monkeypatch):
    classes = ClassTable.from_dataset(adult)
    made = []

    def counted(*args):
        made.append(args)
        return pair_bound(*args)

    monkeypatch.setattr(nodes_module, "pair_bound", counted)
    full = search(classes, [KAnonymity(k=5)], loss=_loss, metric_name="loss", suppression_limit=0.0)
    assert len(made) == 1 and full.extra["nodes_refuted"] > 0  # the whole lattice: the pairs refute
    made.clear()
    pinned = search(classes, [KAnonymity(k=5)], loss=_loss, metric_name="loss", suppression_limit=0.0,
                    min_levels=full.node, max_levels=full.node)
    assert made == [] and pinned.nodes_checked == 1 and pinned.extra["nodes_refuted"] == 0
    assert pinned.node == full.node and pinned.loss == pytest.approx(full.loss)
    below = tuple(level - 1 if level else 0 for level in full.node)  # a failing node, pinned: judged from its table
    with pytest.raises(InfeasibleError):
        search(classes, [KAnonymity(k=5)], loss=_loss, metric_name="loss", suppression_limit=0.0,
               min_levels=below, max_levels=below)
    assert made == []


def test_an_infeasible_search_reports_the_exact_records_of_the_top_node():
    frame = pd.DataFrame({"a": list("xxy"), "b": list("pqq")})
    hierarchies = {name: Hierarchy.flat(sorted(set(frame[name])), name=name) for name in frame}
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"], hierarchies=hierarchies)
    with pytest.raises(InfeasibleError) as error:
        search(classes, [KAnonymity(k=5)], loss=_loss, metric_name="loss", suppression_limit=0.0)
    assert error.value.best["suppressed_records"] == 3


def test_no_bound_when_counting_the_pairs_would_visit_too_many_classes(monkeypatch):
    classes = _table()  # 3 classes, 3 pairs: 9 visits
    assert pair_bound(classes, 2, 0) is not None
    monkeypatch.setattr(pairs_module, "MAX_VISITS", 8)
    assert pair_bound(classes, 2, 0) is None
    one = ClassTable.from_pandas(pd.DataFrame({"a": list("xy")}), quasi_identifiers=["a"])
    monkeypatch.setattr(pairs_module, "MAX_VISITS", 1 << 19)
    assert pair_bound(one, 2, 0) is None  # one attribute: no pair


def test_adult_has_few_enough_classes_for_the_pairs(adult):
    classes = ClassTable.from_dataset(adult)
    assert classes.n_classes * 28 <= pairs_module.MAX_VISITS


def test_the_report_says_how_many_nodes_the_pairs_refuted(adult):
    from veil.anonymization import anonymize

    for algorithm in ("lattice", "datafly"):
        exact = anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.0, algorithm=algorithm, seed=1).report
        assert 0 < exact["search"]["nodes_refuted"] <= exact["search"]["nodes_checked"]
    with_limit = anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=1).report
    assert with_limit["search"]["nodes_refuted"] == 0


def test_a_pair_of_two_large_domains_is_left_out():
    # 300 x 300 = 90,000 cells at level 0 for 4 records: more than 4 per class plus 4,096 (dense_space)
    frame = pd.DataFrame({"a": ["a1", "a2", "a3", "a4"], "b": ["b1", "b2", "b3", "b4"], "c": list("xxyy")})
    hierarchies = {
        "a": Hierarchy.flat([f"a{i}" for i in range(300)], name="a"),
        "b": Hierarchy.flat([f"b{i}" for i in range(300)], name="b"),
        "c": Hierarchy.flat(["x", "y"], name="c"),
    }
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"], hierarchies=hierarchies)
    assert PairBound(classes, 2, 0).pairs == [(0, 2), (1, 2)]
