from veil.classes import ClassTable
from veil.datasets import (
    ADULT_QUASI_IDENTIFIERS, load_age_sex_state, load_din_table, load_job_sex_age,
    load_lkc_patients, load_lkc_patients_anonymized, load_patients_3anonymous,
)


def test_adult_bundled(adult):
    assert adult.n_records == 30162
    assert adult.quasi_identifiers == ADULT_QUASI_IDENTIFIERS
    assert set(adult.hierarchies) >= set(ADULT_QUASI_IDENTIFIERS)
    heights = [adult.hierarchies[q].height for q in ADULT_QUASI_IDENTIFIERS]
    n_nodes = 1
    for h in heights:
        n_nodes *= h + 1
    assert n_nodes == 6480  # the lattice size ARX reports for this set-up


def test_seed_tables_shapes():
    assert load_din_table().n_records == 11
    assert load_age_sex_state().n_records == 5
    assert load_lkc_patients().n_records == 11
    assert load_lkc_patients_anonymized().n_records == 11
    assert load_patients_3anonymous().n_records == 10
    assert load_job_sex_age().n_records == 7


def test_din_table_decades_match_seed():
    # seed 004: after generalizing YOB to decades the classes are 3, 2, 2, 2, 2
    ct = ClassTable.from_dataset(load_din_table()).generalize({"YOB": 1})
    assert sorted(ct.counts.tolist()) == [2, 2, 2, 2, 3]


def test_lkc_hierarchy_reproduces_table_6_2():
    ct = ClassTable.from_dataset(load_lkc_patients()).generalize({"Job": 1, "Sex": 0, "Age": 1})
    got = sorted(map(tuple, ct.labels()[["Job", "Sex", "Age", "count"]].to_numpy().tolist()))
    anonymized = load_lkc_patients_anonymized().frame
    want = sorted(
        tuple(k) + (v,) for k, v in anonymized.groupby(["Job", "Sex", "Age"]).size().items()
    )
    assert got == want
