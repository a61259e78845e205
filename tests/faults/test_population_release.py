"""k-map and δ-presence through the one release path.

Reproductions: ``veil.anonymize(dataset, [KMap(k, population=...)])`` found a transformation and then
failed its own verification ("N class(es) of the table are larger than the matching population
class"): the release is re-checked on its written labels, which the original population did not
carry. A release configuration could not name a population at all. Both now work; a configuration
that names none, or a missing file, is a one-line error that writes nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veil
from veil.dataset import Dataset
from veil.models import DeltaPresence, KMap

CONFIG = """input: {path: people.csv}
attributes:
  age: {role: quasi-identifier, kind: numeric, hierarchy: {spec: "interval:5,10,20"}}
  sex: {role: quasi-identifier, hierarchy: {flat: true}}
  disease: {role: sensitive}
models: [MODEL]
suppression_limit: 0.05
output: {path: out.csv, report: report.json}
"""


def _population(n=1500, seed=3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n), "sex": rng.choice(["f", "m"], n),
                         "disease": rng.choice(["flu", "hiv", "cold"], n)})


def test_the_library_releases_under_k_map_and_delta_presence():
    population = _population()
    sample = population.sample(250, random_state=2).reset_index(drop=True)
    dataset = Dataset.from_pandas(sample, quasi_identifiers=["age", "sex"], sensitive=["disease"])
    dataset = dataset.with_hierarchies({"age": veil.hierarchy.build("interval:5,10,20", [str(v) for v in
                                                                                          sorted(sample["age"].unique())],
                                                                    name="age"),
                                        "sex": veil.hierarchy.flat(["f", "m"], name="sex")})
    result = veil.anonymize(dataset, [KMap(k=12, population=population),
                                      DeltaPresence(delta_min=0.0, delta_max=0.4, population=population)],
                            suppression_limit=0.05)
    width = {0: 1, 1: 5, 2: 10, 3: 20}[result.transformation["age"]]
    assert result.transformation["sex"] == 0 and width > 1
    released = result.data[result.data["age"] != "*"]
    low = population["age"] // width * width
    people = population.assign(age=[f"[{a}, {a + width})" for a in low])
    counts = released.groupby(["age", "sex"]).size()
    matched = people.groupby(["age", "sex"]).size().reindex(counts.index)
    assert matched.min() >= 12 and (counts / matched).max() <= 0.4


@pytest.mark.parametrize(("model", "mentions"), [
    ("{type: k-map, k: 3}", ("models[0].population", "k-map needs the population table")),
    ("{type: delta-presence, delta_min: 0, delta_max: 0.5, population: gone.csv}",
     ("models[0].population", "gone.csv")),
])
def test_a_configuration_without_its_population_is_refused(tmp_path, faults, model, mentions):
    population = _population()
    population.sample(250, random_state=2).to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "config.yaml").write_text(CONFIG.replace("MODEL", model))
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", tmp_path / "config.yaml")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *mentions)
