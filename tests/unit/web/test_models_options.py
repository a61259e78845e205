"""The Models page's algorithm options: fields generated from the options each algorithm declares in
the registry, the chosen algorithm's only, saved as typed values; the form round-trip through a run."""

from __future__ import annotations

import copy
import html
import re

import pytest
import yaml

from tests.unit.web.people import open_people
from veil.algorithms import ALGORITHMS, register_algorithm
from veil.config import load_config
from veil.models._facts import Param

ROLES = {"age": {"role": "quasi-identifier", "kind": "numeric", "hierarchy": {"spec": "interval:5,10,20"}},
         "sex": {"role": "quasi-identifier", "hierarchy": {"flat": True}},
         "zip": {"role": "quasi-identifier", "hierarchy": {"spec": "mask:1"}}}

DUMMY_OPTIONS = (
    Param("fast", "bool", default=True, help="go fast"),
    Param("mode", "choice", choices=("a", "b", "c"), default="b", help="which mode"),
    Param("depth", "int", low=2, high=9, default=4),
    Param("share", "float", low=0, high=1, closed="right", default=0.5),
    Param("keys", "list", optional=True, help="the keys, in order"),
    Param("sizes", "list", item="int", low=1, optional=True),
    Param("roots", "mapping", optional=True),
    Param("handle", "object", optional=True),
)


def prepared(app, **config):
    return open_people(app, copy.deepcopy(ROLES), **config)


@pytest.fixture
def dummy_algorithm():
    register_algorithm("dummy-algorithm", lambda problem: None, options=DUMMY_OPTIONS)
    try:
        yield
    finally:
        ALGORITHMS.pop("dummy-algorithm", None)


def block_of(page: str, name: str) -> str:
    start = page.index(f'id="options-{name}"')
    start = page.rindex("<fieldset", 0, start)
    return page[start:page.index("</fieldset>", start)]


def post(client, **fields):
    data = {"model": ["k-anonymity"], "k-anonymity.k": "3", "suppression": "5", "metric": "loss", **fields}
    return client.post(f"/models?csrf={client.csrf}", follow_redirects=False, data=data)


def test_an_algorithm_registered_with_options_gets_its_fields_without_web_code(web, dummy_algorithm):
    client, app = web
    workspace = prepared(app)
    page = client.get("/models").text
    assert '<option value="dummy-algorithm" data-options="yes">' in page
    block = block_of(page, "dummy-algorithm")
    assert "hidden disabled" in block.split(">")[0]  # not the chosen algorithm: shown only once chosen
    assert 'type="checkbox" name="option.dummy-algorithm.fast" id="option.dummy-algorithm.fast" value="1" checked' in block
    assert re.search(r'<select name="option.dummy-algorithm.mode"[^>]*>'
                     r'<option value="a">a</option><option value="b" selected>b</option><option value="c">c</option>', block)
    assert 'name="option.dummy-algorithm.depth" id="option.dummy-algorithm.depth" value="4" step="1" min="2" max="9" required' in block
    # (0, 1]: the open lower bound is the server's to refuse, the closed upper one the browser's too
    assert 'name="option.dummy-algorithm.share" id="option.dummy-algorithm.share" value="0.5" step="any" max="1" required' in block
    assert 'type="text" name="option.dummy-algorithm.keys"' in block and 'placeholder="comma-separated"' in block
    assert "a list of int in [1, inf) (or one text, comma-separated), optional" in block
    assert 'type="text" name="option.dummy-algorithm.roots"' in block
    assert "go fast" in block and "the keys, in order" in block and "one of {&#39;a&#39;, &#39;b&#39;, &#39;c&#39;}" in block
    assert "handle" not in block  # a Python object has no field
    answer = post(client, algorithm="dummy-algorithm", **{
        "option.dummy-algorithm.mode": "c", "option.dummy-algorithm.depth": "7", "option.dummy-algorithm.share": "0.5",
        "option.dummy-algorithm.keys": "zip, age", "option.dummy-algorithm.sizes": "3,2",
        "option.dummy-algorithm.roots": "{age: [1, 99], 1990: null}"})  # fast unticked
    assert answer.status_code == 303, answer.text
    # typed; share at its default (0.5) left out, fast unticked is not its default (True)
    assert workspace.state.config["algorithm_options"] == {
        "fast": False, "mode": "c", "depth": 7, "keys": ["zip", "age"], "sizes": [3, 2],
        "roots": {"age": [1, 99], "1990": None}}
    page = client.get("/models").text
    block = block_of(page, "dummy-algorithm")
    assert "hidden" not in block.split(">")[0]  # the chosen algorithm's fields are shown, filled with its options
    assert 'value="zip, age"' in block and 'value="3, 2"' in block and 'value="7"' in block
    assert 'name="option.dummy-algorithm.fast" id="option.dummy-algorithm.fast" value="1">' in block


@pytest.mark.parametrize(("field", "value", "message"), [
    ("depth", "10", "The 'depth' option of dummy-algorithm must be an int in [2, 9]. Got 10 instead."),
    ("share", "0", "The 'share' option of dummy-algorithm must be a float in (0, 1]. Got 0.0 instead."),
    ("mode", "d", "The 'mode' option of dummy-algorithm must be one of {'a', 'b', 'c'}. Got 'd' instead."),
    ("sizes", "3,x", "The 'sizes' option of dummy-algorithm must be a list of int in [1, inf) (or one text, "
                     "comma-separated). Got '3,x' instead."),
    ("roots", "[age]", "The 'roots' option of dummy-algorithm must be a mapping of names. Got ['age'] instead."),
])
def test_a_bad_option_is_the_cli_line_in_the_page_and_changes_nothing(web, dummy_algorithm, field, value, message):
    client, app = web
    workspace = prepared(app)
    before = copy.deepcopy(workspace.state.config)
    answer = post(client, algorithm="dummy-algorithm", **{f"option.dummy-algorithm.{field}": value})
    assert answer.status_code == 400
    assert f'role="alert">error: {message}</p>' in html.unescape(answer.text)
    assert workspace.state.config == before


def test_an_algorithm_without_options_says_so_and_saves_none(web):
    client, app = web
    workspace = prepared(app)
    page = client.get("/models").text
    assert re.search(r'<p class="muted" id="no-options">This algorithm declares no options.</p>', page)  # lattice
    assert 'id="options-lattice"' not in page and 'id="options-mondrian"' in page
    assert post(client, algorithm="lattice", **{"option.mondrian.strict": "1"}).status_code == 303
    assert workspace.state.config["algorithm_options"] == {}  # another algorithm's fields are not read


def _run(client, app) -> None:
    client.post(f"/run/start?csrf={client.csrf}")
    job = app.state.jobs.wait(300)
    assert job.status == "done", (job.as_json(), job.error)


def _downloaded(workspace) -> dict:
    """The run's configuration as `veil anonymize CONFIG` reads it."""
    path = workspace.root / f"run-{workspace.state.results['run']['number']}-config.yaml"
    return yaml.safe_load(path.read_text()), load_config(path)


def test_mondrian_options_round_trip_through_the_form_into_a_run(web):
    client, app = web
    workspace = prepared(app)
    answer = post(client, algorithm="mondrian", **{"option.mondrian.categorical": "hierarchy",
                                                   "option.mondrian.seed": "3"})  # strict unticked
    assert answer.status_code == 303, answer.text
    assert workspace.state.config["algorithm_options"] == {"strict": False, "seed": 3}  # categorical: its default
    _run(client, app)
    document, config = _downloaded(workspace)
    assert document["algorithm"] == "mondrian"
    assert document["algorithm_options"] == config.algorithm_options == {"strict": False, "seed": 3}
    details = workspace.state.results["run"]["report"]["recoding"]["details"]  # what the run used
    assert (details["strict"], details["categorical"]) == (False, "hierarchy")


def test_safepub_options_round_trip_through_the_form_into_a_run(web):
    client, app = web
    workspace = prepared(app)
    answer = post(client, algorithm="lattice", model=["dp"], **{
        "dp.epsilon": "2", "dp.delta": "1e-5", "dp.search_budget": "0.1",  # ticking dp chooses safepub
        "option.safepub.score": "granularity", "option.safepub.search": "walk", "option.safepub.steps": "20",
        "option.safepub.walk_share": "0.5"})
    assert answer.status_code == 303, answer.text
    assert workspace.state.config["algorithm"] == "safepub"
    assert workspace.state.config["algorithm_options"] == {"score": "granularity", "search": "walk", "steps": 20,
                                                           "walk_share": 0.5}
    _run(client, app)
    document, config = _downloaded(workspace)
    assert document["algorithm_options"] == config.algorithm_options == {"score": "granularity", "search": "walk",
                                                                         "steps": 20, "walk_share": 0.5}
    details = workspace.state.results["run"]["report"]["recoding"]["details"]
    assert (details["score"], details["search"], details["steps"], details["walk_share"]) == ("granularity", "walk",
                                                                                               20, 0.5)


def test_safepub_bad_steps_are_refused_in_the_page_and_change_nothing(web):
    client, app = web
    workspace = prepared(app)
    before = copy.deepcopy(workspace.state.config)
    answer = post(client, algorithm="safepub", model=["dp"], **{
        "dp.epsilon": "2", "dp.delta": "1e-5", "dp.search_budget": "0.1", "option.safepub.steps": "0"})
    assert answer.status_code == 400
    assert "error: The &#39;steps&#39; option of safepub must be an int in [1, inf). Got 0 instead." in answer.text
    assert workspace.state.config == before
