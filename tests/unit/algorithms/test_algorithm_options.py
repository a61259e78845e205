"""The options each algorithm declares in the registry: one check, one message shape, every value the
algorithms accepted before still accepted, and the declarations agree with the algorithms' own defaults."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from veil.algorithms import ALGORITHMS, register_algorithm
from veil.algorithms._options import check_options, shown_options
from veil.errors import ParameterError
from veil.models._facts import Param, invalid_values

DOCS = Path(__file__).resolve().parents[3] / "docs" / "anonymization.md"


def declared(name: str) -> dict[str, Param]:
    return {p.name: p for p in ALGORITHMS[name].options}


@pytest.mark.parametrize(("algorithm", "options", "expected"), [
    ("mondrian", {"strict": False, "categorical": "ordered", "seed": 3}, None),
    ("mondrian", {"seed": None}, None),
    ("tds", {"score": "infogain/anonyloss", "max_iterations": 0}, None),
    ("tds", {"intervals": {"age": None, "hours": [1, 99]}}, None),
    ("tds", {"intervals": {1990: None}}, {"intervals": {"1990": None}}),  # a YAML number key is the column's name
    ("mdav", {"standardize": False}, None),
    ("local-suppression", {"importance": "zip, age,sex"}, {"importance": ["zip", "age", "sex"]}),
    ("local-suppression", {"importance": ("zip", "age")}, {"importance": ["zip", "age"]}),
    ("local-suppression", {"combs": "4,3"}, {"combs": [4, 3]}),
    ("local-suppression", {"combs": 2}, {"combs": [2]}),
    ("local-suppression", {"combs": [4, "3"]}, {"combs": [4, 3]}),
    ("safepub", {"score": "granularity", "search": "walk", "steps": 10, "walk_share": 1}, {
        "score": "granularity", "search": "walk", "steps": 10, "walk_share": 1.0}),
    ("safepub", {"steps": "5", "walk_share": "0.5"}, {"steps": 5, "walk_share": 0.5}),  # numbers as text, as before
])
def test_every_value_accepted_before_is_accepted_and_typed(algorithm, options, expected):
    assert ALGORITHMS[algorithm].check_options(options) == (options if expected is None else expected)


def test_an_object_option_passes_to_the_algorithm_unchanged():
    accountant = object()
    assert ALGORITHMS["safepub"].check_options({"accountant": accountant})["accountant"] is accountant


@pytest.mark.parametrize(("algorithm", "options", "message"), [
    ("mondrian", {"strict": "maybe"}, "The 'strict' option of mondrian must be a bool. Got 'maybe' instead."),
    ("mondrian", {"seed": -1}, "The 'seed' option of mondrian must be an int in [0, inf). Got -1 instead."),
    ("mondrian", {"categorical": "tree"},
     "The 'categorical' option of mondrian must be one of {'hierarchy', 'ordered'}. Got 'tree' instead."),
    ("tds", {"max_iterations": 1.5}, "The 'max_iterations' option of tds must be an int in [0, inf). Got 1.5 instead."),
    ("tds", {"intervals": ["age"]}, "The 'intervals' option of tds must be a mapping of names. Got ['age'] instead."),
    ("mdav", {"standardize": "no"}, "The 'standardize' option of mdav must be a bool. Got 'no' instead."),
    ("local-suppression", {"importance": 3}, "The 'importance' option of local-suppression must be a list of str "
                                             "(or one text, comma-separated). Got 3 instead."),
    ("local-suppression", {"combs": "4,0"}, "The 'combs' option of local-suppression must be a list of int in "
                                            "[1, inf) (or one text, comma-separated). Got '4,0' instead."),
    ("safepub", {"walk_share": 0}, "The 'walk_share' option of safepub must be a float in (0, 1]. Got 0 instead."),
    ("safepub", {"steps": True}, "The 'steps' option of safepub must be an int in [1, inf). Got True instead."),
    ("safepub", {"search": "everything"},
     "The 'search' option of safepub must be one of {'auto', 'lattice', 'walk'}. Got 'everything' instead."),
    ("mondrian", {"bogus": 1},
     "Bad option for the mondrian algorithm: 'bogus' is not one of its options (strict, categorical, seed)."),
    ("lattice", {"strict": False}, "The lattice algorithm takes no options. Got 'strict'."),
])
def test_a_bad_option_is_refused_with_one_line_naming_it_its_rule_and_the_value(algorithm, options, message):
    with pytest.raises(ParameterError) as caught:
        ALGORITHMS[algorithm].check_options(options)
    assert str(caught.value) == message


@pytest.mark.parametrize("name", [n for n, spec in ALGORITHMS.items() if spec.options])
def test_every_declared_option_refuses_the_values_that_break_it(name):
    """The meta-test of the models' parameters, on the algorithms' options: each wrong type and each
    side of each interval is refused with the one shape."""
    for param in shown_options(ALGORITHMS[name].options):
        for value in invalid_values(param):
            if isinstance(value, str) and param.kind in ("int", "float"):
                continue  # a number written as text is read as the number ("5"): not invalid for an option
            with pytest.raises(ParameterError, match=rf"^The '{param.name}' option of {re.escape(name)} must be "):
                check_options(name, ALGORITHMS[name].options, {param.name: value})


def test_the_declarations_agree_with_the_algorithms_own_defaults_and_choices():
    from veil.algorithms.microaggregation import mdav
    from veil.algorithms.mondrian import mondrian
    from veil.algorithms.safepub._run import DEFAULT_STEPS, DEFAULT_WALK_SHARE, SCORES, SEARCHES
    from veil.algorithms.tds import top_down_specialization
    from veil.algorithms.tds._loop import SCORES as TDS_SCORES

    for name, function in (("mondrian", mondrian), ("tds", top_down_specialization), ("mdav", mdav)):
        signature = inspect.signature(function).parameters
        for param in declared(name).values():
            assert signature[param.name].default == param.default, (name, param.name)
    assert declared("mondrian")["categorical"].choices == ("hierarchy", "ordered")
    assert declared("tds")["score"].choices == tuple(TDS_SCORES)
    safepub = declared("safepub")
    assert (safepub["steps"].default, safepub["walk_share"].default) == (DEFAULT_STEPS, DEFAULT_WALK_SHARE)
    assert safepub["search"].choices == SEARCHES and safepub["score"].choices == SCORES
    assert safepub["score"].default == "smooth" and safepub["search"].default == "auto"


def test_an_algorithm_registered_with_options_is_checked_and_listed_in_the_help():
    from veil.cli._registry_help import option_help

    register_algorithm("dummy-algorithm", lambda problem: None,
                       options=(Param("depth", "int", low=2, high=9, default=4, help="how deep"),))
    try:
        assert ALGORITHMS["dummy-algorithm"].check_options({"depth": "7"}) == {"depth": 7}
        with pytest.raises(ParameterError, match=r"^The 'depth' option of dummy-algorithm must be an int in \[2, 9\]"):
            ALGORITHMS["dummy-algorithm"].check_options({"depth": 10})
        assert "dummy-algorithm: depth (an int in [2, 9], default 4)" in option_help(full=True)
    finally:
        ALGORITHMS.pop("dummy-algorithm")


def test_an_algorithm_that_declares_no_options_but_takes_them_gets_them_unchecked():
    register_algorithm("dummy-free", lambda problem: None)
    try:
        assert ALGORITHMS["dummy-free"].check_options({"anything": [1, 2]}) == {"anything": [1, 2]}
    finally:
        ALGORITHMS.pop("dummy-free")


def test_the_cli_help_and_the_docs_table_list_every_declared_option():
    from veil.cli._registry_help import option_help

    text = option_help(full=True)
    docs = DOCS.read_text(encoding="utf-8")
    table = docs[docs.index("## Algorithm options"):]
    rows = {(m.group(1), m.group(2)): m.group(3) for m in re.finditer(r"^\| `([a-z-]+)` \| `([a-z_]+)` \| (.*)$",
                                                                        table, re.M)}
    for name, spec in ALGORITHMS.items():
        for param in shown_options(spec.options):
            assert f"{param.name} ({param.rule}," in text, (name, param.name)
            assert (name, param.name) in rows, f"docs/anonymization.md has no row for {name} {param.name}"
            assert param.rule.replace("|", "\\|") in rows[(name, param.name)], (name, param.name)
    assert len(rows) == sum(len(shown_options(s.options)) for s in ALGORITHMS.values())


def test_param_rejects_an_inconsistent_declaration():
    with pytest.raises(ValueError):
        Param("mode", "choice")  # a choice without choices
    with pytest.raises(ValueError):
        Param("k", "int", choices=(1, 2))
    with pytest.raises(ValueError):
        Param("sizes", "list", item="float")
