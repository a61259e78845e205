"""The seeds' worked examples of re-identification risk, to the exact figure.

Each case cites its seed and shows the arithmetic.
"""

from __future__ import annotations

import math

import pytest

from veil.classes import ClassTable
from veil.datasets import load_age_sex_state, load_din_table, load_patients_3anonymous
from veil.risk import (
    alpha_distinct,
    assess,
    background_knowledge_attack,
    distinction,
    homogeneity_attack,
    journalist_risk,
    marketer_risk,
    prosecutor_risk,
    quasi_identifier_ranking,
    separation,
)


@pytest.fixture(scope="module")
def five():
    return ClassTable.from_dataset(load_age_sex_state())


@pytest.fixture(scope="module")
def din():
    return ClassTable.from_dataset(load_din_table())


# --- seed 004, "Quasi-Identifiers (QIDs) Distinction / Separation" (5-row age/sex/state table)

def test_age_distinction_is_3_of_5(five):
    # ages {20, 30, 40, 20, 40}: 3 distinct values among 5 -> 3/5 = 0.6
    assert distinction(five, ["age"]) == 3 / 5


def test_age_separation_is_8_of_10(five):
    # C(5,2) = 10 pairs; (20,20) and (40,40) not separated -> 8/10 = 0.8
    assert separation(five, ["age"]) == pytest.approx(0.8, abs=1e-15)


def test_sex_state_distinction_is_4_of_5(five):
    # {(F,CA),(F,CA),(F,TX),(M,NY),(M,CA)}: 4 distinct -> 4/5 = 0.8
    assert distinction(five, ["sex", "state"]) == 4 / 5


def test_sex_state_separation_is_9_of_10(five):
    # only the pair ((F,CA),(F,CA)) is not separated -> 9/10 = 0.9
    assert separation(five, ["sex", "state"]) == pytest.approx(0.9, abs=1e-15)


def test_age_is_a_0_6_distinct_qi_but_not_0_7(five):
    # "Age is a 0.6-distinct attribute": removing 40% (2 records) makes it a key
    chosen = {s.attributes for s in alpha_distinct(five, alpha=0.6, max_size=1)}
    assert ("age",) in chosen and ("state",) in chosen and ("sex",) not in chosen  # sex: 2/5
    assert ("age",) not in {s.attributes for s in alpha_distinct(five, alpha=0.7, max_size=1)}


# --- seed 004, "QIDs Distinction and Separation in ARX" (11-row DIN table)

@pytest.mark.parametrize(
    ("attributes", "dist", "sep"),
    [
        # Gender: 2 values / 11 = 18.18182%; M=7, F=4: 1 - (21 + 6)/55 = 28/55 = 50.90909%
        (("Gender",), 2 / 11, 28 / 55),
        # YOB: 6 values / 11 = 54.54545%; 1979x3, 1995x3, 1987x2 -> 1 - (3+3+1)/55 = 48/55 = 87.27273%
        (("YOB",), 6 / 11, 48 / 55),
        # (Gender, YOB): 8 classes / 11 = 72.72727%; M1979x3, F1995x2 -> 1 - (3+1)/55 = 51/55 = 92.72727%
        (("Gender", "YOB"), 8 / 11, 51 / 55),
    ],
)
def test_arx_quasi_identifier_view(din, attributes, dist, sep):
    assert distinction(din, attributes) == pytest.approx(dist, abs=1e-15)
    assert separation(din, attributes) == pytest.approx(sep, abs=1e-15)
    assert round(100 * distinction(din, attributes), 5) == round(100 * dist, 5)


def test_arx_view_as_a_ranking(din):
    ranking = quasi_identifier_ranking(din)
    # sorted by separation: (Gender, YOB) 92.73% > YOB 87.27% > Gender 50.91%
    assert [s.attributes for s in ranking] == [("Gender", "YOB"), ("YOB",), ("Gender",)]
    assert [round(100 * s.separation, 5) for s in ranking] == [92.72727, 87.27273, 50.90909]
    assert [round(100 * s.distinction, 5) for s in ranking] == [72.72727, 54.54545, 18.18182]


# --- seed 004, "Measuring Re-Identification Risk: Prosecutor Model"

def test_prosecutor_before_deidentification(din):
    # classes (Gender, YOB): sizes 3,1,2,1,1,1,1,1 -> lowest 1/3, highest 1/1, average 8/11
    risk = prosecutor_risk(din)
    assert risk.highest == 1.0
    assert risk.lowest == pytest.approx(1 / 3, abs=1e-15)
    assert round(risk.lowest, 2) == 0.33
    assert risk.average == 8 / 11


def test_prosecutor_after_generalizing_yob_to_decades(din):
    # (Male,1970-1979) F=3; (Male,1980-1989), (Female,1990-1999), (Female,1980-1989), (Male,1990-1999) F=2
    # -> lowest 1/3, highest 1/2, average 5 classes / 11 records = 5/11 (seed: "= 0.45")
    decades = din.generalize({"YOB": 1})
    risk = prosecutor_risk(decades)
    assert risk.highest == 0.5
    assert risk.lowest == pytest.approx(1 / 3, abs=1e-15)
    assert risk.average == 5 / 11


def test_alice_in_the_decade_table(din):
    # Alice (Female, 1987) falls in (Female, 1980-1989), F = 2 -> P = 1/2
    decades = din.generalize({"YOB": 1})
    labels = decades.labels()
    row = labels[(labels["Gender"] == "Female") & (labels["YOB"] == "1980-1989")]
    assert row["count"].tolist() == [2]
    assert 1 / row["count"].iloc[0] == 0.5


def test_journalist_equals_highest_prosecutor_and_marketer_the_average(din):
    # seed: "P_journalist = Highest P_prosecutor" (no population given), "p_marketer = Average P_prosecutor"
    decades = din.generalize({"YOB": 1})
    assert journalist_risk(decades).highest == prosecutor_risk(decades).highest == 0.5
    assert journalist_risk(decades).case == "sample"
    assert marketer_risk(decades).average == 5 / 11


def test_report_matches_the_seed(din):
    data = assess(din.generalize({"YOB": 1})).to_dict()
    assert data["records"] == 11 and data["classes"] == 5
    assert data["prosecutor"]["highest"] == 0.5 and data["prosecutor"]["average"] == 5 / 11
    assert data["journalist"]["case"] == "sample"
    assert data["sample_uniques"] == 0.0  # every decade class has at least 2 records


# --- seed 004 / seed 001, homogeneity and background knowledge (Machanavajjhala et al. 2007, Fig. 2)

def test_bob_is_exposed_by_homogeneity():
    # Bob (47678, 27) -> class (476**, 2*): Cancer x3, homogeneous: 3 exposed records of 10
    result = homogeneity_attack(load_patients_3anonymous())
    assert result.homogeneous_classes == 1
    assert result.exposed_records == 3
    assert result.exposed_fraction == 0.3


def test_umeko_is_exposed_by_background_knowledge():
    # Umeko (47653, 31) -> class (476**, 3*): Heart Disease x2, Viral Infection x2.
    # "Japanese rarely have heart disease": prior(HD) = 0, the other three values 1/3 each.
    # posterior(VI) = (1/3 * 2) / (1/3 * 2 + 0 * 2) = 1; gain = 1 - 1/3 = 2/3.
    classes = ClassTable.from_dataset(load_patients_3anonymous())
    result = background_knowledge_attack(classes, {"Heart Disease": 0.0}, confidence=1.0)
    labels = classes.labels()
    umeko = int(((labels["Zipcode"] == "476**") & (labels["Age"] == "3*")).to_numpy().nonzero()[0][0])
    vi = list(result.labels).index("Viral Infection")
    assert result.posterior[umeko, vi] == 1.0
    assert result.gain[umeko] == pytest.approx(2 / 3, abs=1e-15)
    # Bob's class is Cancer x3 already: posterior 1, gain 1 - 1/3; the two are the disclosed classes
    assert result.disclosed_classes == 2 and result.exposed_records == 7
    assert math.isclose(result.largest_gain, 2 / 3)


# --- seed 002, "Open DataBase": the 7-user table, its k-anonymous version, HI and the success rate

def _seed002(anonymized: bool):
    import pandas as pd

    from veil.dataset import Dataset

    if anonymized:
        rows = [("professor", "m", "35-40", "high")] * 3 + [("artist", "f", "30-35", "low")] * 4
    else:
        rows = [("engineer", "m", "35", "high"), ("engineer", "m", "38", "high"), ("lawyer", "f", "38", "low"),
                ("writer", "f", "30", "low"), ("writer", "f", "30", "high"), ("dancer", "f", "30", "high"),
                ("dancer", "f", "30", "high")]
    frame = pd.DataFrame(rows, columns=["job", "sex", "age", "discrete"])
    frame.insert(0, "pseudo", [f"U{i}" for i in range(1, 8)])
    return Dataset.from_pandas(frame, identifiers=["pseudo"], quasi_identifiers=["job", "sex", "age"],
                               sensitive=["discrete"])


def test_seed002_hypothetical_information_of_the_open_database():
    from veil.risk import hypothetical_information

    # classes of (job, sex, age): sizes 1, 1, 1, 2 (writer f 30), 2 (dancer f 30); k = min |A(o)| = 1
    # HI = log2 7 - (1/7) sum_j f_j log2 f_j = log2 7 - (2*1 + 2*1)/7 = 2.807355 - 0.571429 = 2.235926
    result = hypothetical_information(_seed002(anonymized=False))
    assert result.bits == pytest.approx(math.log2(7) - 4 / 7, rel=1e-12)
    assert result.bits == pytest.approx(2.235926, abs=1e-6)
    assert result.entropy == pytest.approx(math.log2(7), rel=1e-12)


def test_seed002_hypothetical_information_after_k_anonymity():
    from veil.risk import hypothetical_information

    # classes: 3 professors, 4 artists (k = 3). HI = log2 7 - (3 log2 3 + 4 log2 4)/7
    # = 2.807355 - (4.754888 + 8)/7 = 2.807355 - 1.822127 = 0.985228 = H(3/7, 4/7)
    result = hypothetical_information(_seed002(anonymized=True))
    assert result.bits == pytest.approx(-(3 / 7) * math.log2(3 / 7) - (4 / 7) * math.log2(4 / 7), rel=1e-12)
    assert result.bits == pytest.approx(0.985228, abs=1e-6)


def test_seed002_success_rate_after_n_attempts():
    from veil.risk import hypothetical_information, success_rate

    # the seed: success rate 1 - (1 - H)^n. With H the share of the identity's entropy one observation
    # reveals on the k-anonymous table: H = 0.985228 / 2.807355 = 0.350946
    result = hypothetical_information(_seed002(anonymized=True))
    h = 0.985228 / 2.807355
    assert result.fraction == pytest.approx(h, abs=1e-6)
    # n = 1: H itself; n = 3: 1 - 0.649054^3 = 1 - 0.273430 = 0.726570
    assert result.success_rate(1) == pytest.approx(result.fraction, rel=1e-12)
    assert result.success_rate(3) == pytest.approx(0.726570, abs=1e-5)
    assert success_rate(h, 0) == 0.0 and success_rate(1.0, 5) == 1.0
    # on the original table more is revealed per attempt: 2.235926 / 2.807355 = 0.796453 -> n = 2: 0.958569
    assert hypothetical_information(_seed002(anonymized=False)).success_rate(2) == pytest.approx(0.958569, abs=1e-5)


def test_seed002_perceived_information_of_a_dataset():
    import pandas as pd

    from veil.dataset import Dataset
    from veil.risk import perceived_information

    # the probabilistic database: U2 watches comedy 60% / drama 40%, U1 the reverse. Profiling rows:
    # U2 comedy x3, drama x2; U1 comedy x2, drama x3. Testing rows: U2 comedy, U1 drama.
    # Pr_p[U2 | comedy] = .6*.5 / (.6*.5 + .4*.5) = .6, Pr_p[U1 | drama] = .6
    # PI = H[U] + 1/2 log2 .6 + 1/2 log2 .6 = 1 + log2 0.6 = 0.263034
    users = ["U2"] * 5 + ["U1"] * 5 + ["U2", "U1"]
    genre = ["comedy"] * 3 + ["drama"] * 2 + ["comedy"] * 2 + ["drama"] * 3 + ["comedy", "drama"]
    data = Dataset.from_pandas(pd.DataFrame({"pseudo": users, "genre": genre}), identifiers=["pseudo"],
                               quasi_identifiers=["genre"])
    test = [False] * 10 + [True, True]
    result = perceived_information(data, test=test)
    assert result.bits == pytest.approx(1 + math.log2(0.6), rel=1e-12)
    assert result.bits == pytest.approx(0.263034, abs=1e-6)
    assert perceived_information(users, genre, test=test).bits == result.bits
