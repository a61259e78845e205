"""Seed 004's LKC example (Fung et al., *Introduction to PPDP*, ch. 6; Mohammed et al., KDD 2009) run by
HDTDS (Algorithm 6.3.1) with Age grown at runtime, replayed here by hand, step by step.

Everything below is typed from the seed or derived by hand: the raw table, Table 6.2, the taxonomy
(Job: ANY_Job -> Blue-collar {Non-Technical {Janitor, Mover}, Technical {Carpenter, Technician}},
White-collar {Manager, Professional {Doctor, Lawyer}}; Sex: ANY_Sex -> M, F; Age: intervals grown
by binary splits), an LKC checker written from the seed's definition ("for any qid with
|qid| <= L, |T[qid]| >= K and conf(qid -> s) <= C"), and every InfoGain with its arithmetic.
veil's run must agree with that replay at every step.

What the replay shows about Table 6.2: veil ends at Table 6.2 with ONE more specialization,
Non-Technical -> {Janitor, Mover}, and no faithful HDTDS can end at Table 6.2 itself:

* the seed's loop runs "while some candidate v in the cut is valid" and "terminates when there are
  no more valid candidates"; in Table 6.2 the candidate Non-Technical is still valid (the table
  with records 1, 6 -> Janitor and 3, 5 -> Mover meets L=2, K=2, C=50 %, checked below), so
  Table 6.2 is not a point where the loop stops;
* nor can the greedy choice have passed it over: Table 6.2 has ANY_Sex specialized, whose InfoGain
  (0.003431) is below Non-Technical's (0.311278); InfoGain depends on the value only, and
  Non-Technical's specialization is valid in every table coarser than Table 6.2 (anti-monotone), so
  while Non-Technical is in the cut the greedy step takes it before ANY_Sex;
* a "beneficial" rule (Fung, Wang & Yu, ICDE 2005: only specializations whose records hold more
  than one class; the authors' TDS code: only scores > 0) does not stop Non-Technical (3 Y, 1 N;
  InfoGain 0.311 > 0) and would even remove a step Table 6.2 shows: White-collar -> Professional
  has InfoGain 0 (all five records N).
Table 6.2 is the seed's illustration of a cut ("according to this cut, attribute Job can have one
of the following values: Non-technical, Technical, Manager, Professional"), not the algorithm's end.
"""

from __future__ import annotations

import itertools
import math

import pandas as pd
import pytest

from veil.algorithms.tds import top_down_specialization
from veil.dataset import Dataset
from veil.datasets import load_lkc_patients
from veil.models import LKCPrivacy

L, K, C = 2, 2, 0.5
QIS = ("Job", "Sex", "Age")

# The seed's raw table (records 1..11) and its Table 6.2 ("Anonymous data (L = 2, K = 2, C = 50%)").
# The seed prints the intervals as "[30 – 60)"; veil writes "[30-60)".
RAW = pd.DataFrame({
    "Job": ["Janitor", "Doctor", "Mover", "Lawyer", "Mover", "Janitor", "Doctor", "Lawyer", "Doctor",
            "Carpenter", "Technician"],
    "Sex": ["M", "M", "M", "M", "M", "M", "M", "F", "F", "F", "F"],
    "Age": [34, 58, 34, 24, 58, 44, 24, 58, 44, 63, 63],
    "Transfuse": ["Y", "N", "Y", "N", "N", "Y", "N", "N", "N", "Y", "Y"],
    "Surgery": ["Transgender", "Plastic", "Transgender", "Vascular", "Urology", "Plastic", "Urology",
                "Plastic", "Vascular", "Vascular", "Plastic"],
})
TABLE_6_2 = pd.DataFrame({
    "Job": ["Non-Technical", "Professional", "Non-Technical", "Professional", "Non-Technical",
            "Non-Technical", "Professional", "Professional", "Professional", "Technical", "Technical"],
    "Sex": ["M", "M", "M", "M", "M", "M", "M", "F", "F", "F", "F"],
    "Age": ["[30-60)", "[30-60)", "[30-60)", "[1-30)", "[30-60)", "[30-60)", "[1-30)", "[30-60)", "[30-60)",
            "[60-99)", "[60-99)"],
})

# The Job taxonomy as child -> parent.
PARENT = {
    "Janitor": "Non-Technical", "Mover": "Non-Technical", "Carpenter": "Technical", "Technician": "Technical",
    "Doctor": "Professional", "Lawyer": "Professional",
    "Non-Technical": "Blue-collar", "Technical": "Blue-collar", "Manager": "White-collar",
    "Professional": "White-collar", "Blue-collar": "ANY_Job", "White-collar": "ANY_Job",
}


def H(*counts: int) -> float:
    """Entropy (bits) of a class histogram: -sum p log2 p."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def release(job_cut: set[str], sex_split: bool, age_points: list[int]) -> pd.DataFrame:
    """The raw table generalized to a cut: each Job value to its ancestor in ``job_cut``, Sex kept or
    ANY_Sex, Age to its interval among ``age_points`` (e.g. [1, 30, 60, 99])."""
    def job(value: str) -> str:
        while value not in job_cut:
            value = PARENT[value]
        return value

    def age(value: int) -> str:
        low, high = next((a, b) for a, b in itertools.pairwise(age_points) if a <= value < b)
        return f"[{low}-{high})"

    return pd.DataFrame({
        "Job": [job(v) for v in RAW["Job"]],
        "Sex": list(RAW["Sex"]) if sex_split else ["ANY_Sex"] * len(RAW),
        "Age": [age(v) for v in RAW["Age"]],
        "Surgery": RAW["Surgery"],
    })


def lkc_violations(table: pd.DataFrame) -> list[tuple[tuple[str, ...], int, int]]:
    """Every qid of at most L QI values with |T[qid]| < K or conf(qid -> Transgender) > C, as
    (qid, |T[qid]|, Transgender records): the seed's definition, over all qid sizes 1..L."""
    bad = []
    for size in range(1, L + 1):
        for columns in itertools.combinations(QIS, size):
            for key, group in table.groupby(list(columns))["Surgery"]:
                n, transgender = len(group), int((group == "Transgender").sum())
                if n < K or transgender / n > C:
                    bad.append((key if isinstance(key, tuple) else (key,), n, transgender))
    return bad


# The run, by hand (L = 2, K = 2, C = 50 %).  Transfuse: Y = {1, 3, 6, 10, 11}, N = the other six.
# InfoGain(v) = E(T[v]) - sum_c |T[c]| / |T[v]| * E(T[c]), with E(T) = H(5 Y, 6 N) = 0.994030.
ANY_JOB = H(5, 6) - 6 / 11 * H(5, 1) - 5 / 11 * H(0, 5)   # Blue {1,3,5,6,10,11} 5Y 1N; White {2,4,7,8,9} 5N
AGE_99_AT_60 = H(5, 6) - 9 / 11 * H(3, 6)                 # [1-60) = ages 24, 34, 44, 58: 3Y 6N; [60-99) 2Y
AGE_99_AT_30 = H(5, 6) - 9 / 11 * H(5, 4)                 # [1-30) = {4, 7} 2N; [30-99) 5Y 4N
AGE_99_AT_40 = H(5, 6) - 4 / 11 * H(2, 2) - 7 / 11 * H(3, 4)  # [1-40) {1,3,4,7} 2Y 2N; [40-99) 3Y 4N
AGE_99_AT_50 = H(5, 6) - 6 / 11 * H(3, 3) - 5 / 11 * H(2, 3)  # [1-50) {1,3,4,6,7,9} 3Y 3N; [50-99) 2Y 3N
AGE_60_AT_50 = H(3, 6) - 6 / 9 * H(3, 3)                  # [1-50) 3Y 3N; [50-60) = 58 {2, 5, 8} 3N
AGE_60_AT_30 = H(3, 6) - 7 / 9 * H(3, 4)                  # [1-30) 2N; [30-60) {1,2,3,5,6,8,9} 3Y 4N
AGE_60_AT_40 = H(3, 6) - 4 / 9 * H(2, 2) - 5 / 9 * H(1, 4)  # [1-40) {1,3,4,7} 2Y 2N; [40-60) {2,5,6,8,9} 1Y 4N
AGE_30_60_AT_50 = H(3, 4) - 4 / 7 * H(3, 1)               # [30-50) {1,3,6,9} 3Y 1N; [50-60) 3N
AGE_30_60_AT_40 = H(3, 4) - 5 / 7 * H(1, 4)               # [30-40) {1,3} 2Y; [40-60) 1Y 4N
BLUE = H(5, 1) - 4 / 6 * H(3, 1)                          # Non-Technical {1,3,5,6} 3Y 1N; Technical {10,11} 2Y
NON_TECHNICAL = H(3, 1) - 2 / 4 * H(1, 1)                 # Janitor {1, 6} 2Y; Mover {3, 5} 1Y 1N
ANY_SEX = H(5, 6) - 7 / 11 * H(3, 4) - 4 / 11 * H(2, 2)   # M {1..7} 3Y 4N; F {8..11} 2Y 2N
ZERO = 0.0  # Technical (2Y), Professional (5N), White-collar (5N): one class, InfoGain 0

# (state name, Job cut, Sex split, Age points) after each scored specialization.  White-collar's
# only child with records is Professional, so veil performs White-collar -> Professional for free
# (it splits no class) as soon as White-collar enters the cut.
BLUE_WHITE = {"Blue-collar", "Manager", "Professional"}
NT_T = {"Non-Technical", "Technical", "Manager", "Professional"}
LEAVES_NT = {"Janitor", "Mover", "Technical", "Manager", "Professional"}
STATES = {
    "top": ({"ANY_Job"}, False, [1, 99]),
    "1 ANY_Job": (BLUE_WHITE, False, [1, 99]),
    "2 [1-99) at 60": (BLUE_WHITE, False, [1, 60, 99]),
    "3 [1-60) at 30": (BLUE_WHITE, False, [1, 30, 60, 99]),
    "4 Blue-collar": (NT_T, False, [1, 30, 60, 99]),
    "5 Non-Technical": (LEAVES_NT, False, [1, 30, 60, 99]),
    "6 ANY_Sex": (LEAVES_NT, True, [1, 30, 60, 99]),
}


def lkc() -> LKCPrivacy:
    return LKCPrivacy(L=L, K=K, C=C, sensitive="Surgery", values=("Transgender",))


@pytest.fixture(scope="module")
def patients() -> Dataset:
    """The seed's table with the Job taxonomy and no Age taxonomy (Age grows at runtime)."""
    data = load_lkc_patients()
    frame = data.frame
    assert frame["Job"].tolist() == RAW["Job"].tolist() and frame["Sex"].tolist() == RAW["Sex"].tolist()
    assert frame["Age"].astype(int).tolist() == RAW["Age"].tolist()
    assert frame["Transfuse"].tolist() == RAW["Transfuse"].tolist()
    assert frame["Surgery"].tolist() == RAW["Surgery"].tolist()
    hierarchies = {name: h for name, h in data.hierarchies.items() if name != "Age"}
    return Dataset.from_pandas(
        frame, identifiers=["ID"], quasi_identifiers=list(QIS), sensitive=["Surgery"],
        insensitive=["Transfuse"], kinds={"Age": "numeric"}, hierarchies=hierarchies,
    )


@pytest.fixture(scope="module")
def result(patients):
    return top_down_specialization(patients, [lkc()], label="Transfuse", intervals={"Age": (1, 99)})


def test_the_hand_run_step_by_step():
    """Each step: the candidates in score order, the invalid ones with the qid that breaks them."""
    state = {name: release(*cut) for name, cut in STATES.items()}
    # the topmost table fails nothing: one group of 11 records, Transgender 2/11
    assert lkc_violations(state["top"]) == []
    # 1. candidates: ANY_Job 0.639473 > [1-99) at 60 0.242697 > at 30 0.183150 > at 50 0.007234
    #    > at 40 = ANY_Sex 0.003431; ANY_Job is valid: Blue-collar 6 (TG 2/6), Professional 5
    assert ANY_JOB > AGE_99_AT_60 > AGE_99_AT_30 > AGE_99_AT_50 > max(AGE_99_AT_40, ANY_SEX)
    assert lkc_violations(state["1 ANY_Job"]) == []
    # 2. [1-99) at 60 (0.242697) > at 30 (0.183150) > Blue-collar (0.109170) > ANY_Sex:
    #    <Blue-collar, [1-60)> {1,3,5,6} TG 2/4 = 50 %, <Blue-collar, [60-99)> {10, 11} -> valid
    assert AGE_99_AT_60 > max(AGE_99_AT_30, BLUE, ANY_SEX)
    assert lkc_violations(state["2 [1-99) at 60"]) == []
    # 3. [1-60) at 50 (0.251629) first: <Blue-collar, [50-60)> = {5} alone -> INVALID;
    #    then [1-60) at 30 (0.152008) > Blue-collar 0.109170 > at 40 0.072781: valid
    assert AGE_60_AT_50 > AGE_60_AT_30 > BLUE > AGE_60_AT_40 > ANY_SEX
    at_50 = release(BLUE_WHITE, False, [1, 50, 60, 99])
    assert (("Blue-collar", "[50-60)"), 1, 0) in lkc_violations(at_50)
    assert lkc_violations(state["3 [1-60) at 30"]) == []
    # 4. [30-60) at 50 (0.521641): <Blue-collar, [50-60)> = {5} -> INVALID;
    #    [30-60) at 40 (0.469565): <Blue-collar, [30-40)> = {1, 3}, both Transgender (100 %) -> INVALID;
    #    Blue-collar (0.109170) > ANY_Sex 0.003431: <Technical> {10, 11}, <Non-Technical> TG 2/4 -> valid
    assert AGE_30_60_AT_50 > AGE_30_60_AT_40 > BLUE > ANY_SEX
    assert (("Blue-collar", "[50-60)"), 1, 0) in lkc_violations(release(BLUE_WHITE, False, [1, 30, 50, 60, 99]))
    assert (("Blue-collar", "[30-40)"), 2, 2) in lkc_violations(release(BLUE_WHITE, False, [1, 30, 40, 60, 99]))
    assert lkc_violations(state["4 Blue-collar"]) == []
    # 5. Non-Technical (0.311278) > ANY_Sex (0.003431) > Technical = Professional = 0:
    #    <Janitor> {1, 6} TG 1/2, <Mover> {3, 5} TG 1/2 -> valid
    assert NON_TECHNICAL > ANY_SEX > ZERO
    assert lkc_violations(state["5 Non-Technical"]) == []
    # 6. ANY_Sex: <Professional, F> {8, 9}, <M, [1-30)> {4, 7}, <F, [60-99)> {10, 11} -> valid
    assert lkc_violations(state["6 ANY_Sex"]) == []
    # then every candidate left is invalid: Technical (<Carpenter> = {10}), Professional
    # (<Doctor, F> = {9}); [1-30) = {24} and [60-99) = {63} hold one value each (leaves): stop
    leaves = LEAVES_NT - {"Technical"} | {"Carpenter", "Technician"}
    assert (("Carpenter",), 1, 0) in lkc_violations(release(leaves, True, [1, 30, 60, 99]))
    leaves = LEAVES_NT - {"Professional"} | {"Doctor", "Lawyer"}
    assert (("Doctor", "F"), 1, 0) in lkc_violations(release(leaves, True, [1, 30, 60, 99]))


def test_veil_performs_the_hand_run(result):
    trace = result.details["trace"]
    assert [(s["attribute"], s["value"], s.get("split_at")) for s in trace] == [
        ("Job", "ANY_Job", None), ("Age", "[1-99)", 60), ("Age", "[1-60)", 30), ("Job", "Blue-collar", None),
        ("Job", "Non-Technical", None), ("Sex", "ANY_Sex", None),
    ]
    expected = [ANY_JOB, AGE_99_AT_60, AGE_60_AT_30, BLUE, NON_TECHNICAL, ANY_SEX]
    assert [s["score"] for s in trace] == pytest.approx(expected, abs=1e-11)
    # the same numbers rounded, typed: 0.639473, 0.242697, 0.152008, 0.109170, 0.311278, 0.003431
    assert expected == pytest.approx([0.639473, 0.242697, 0.152008, 0.109170, 0.311278, 0.003431], abs=1e-6)
    details = result.details
    assert details["specializations"] == 6
    assert details["partition_preserving"] == 1  # White-collar -> Professional
    assert details["invalidated"] == 5  # [1-60) at 50, [30-60) at 50 and at 40, Technical, Professional
    assert details["stopped"] == "no valid candidate"
    # the released table is the hand run's last state, record by record
    final = release(*STATES["6 ANY_Sex"])
    for name in QIS:
        assert result.data[name].tolist() == final[name].tolist(), name


def test_the_release_is_table_6_2_plus_one_valid_specialization(result):
    # Age and Sex: exactly Table 6.2 (the intervals grown at runtime: [1-30), [30-60), [60-99))
    assert result.data["Age"].tolist() == TABLE_6_2["Age"].tolist()
    assert result.data["Sex"].tolist() == TABLE_6_2["Sex"].tolist()
    # Job: Table 6.2's value everywhere but on Non-Technical's records {1, 3, 5, 6}, released as their
    # children Janitor, Mover (the raw value)
    non_technical = TABLE_6_2["Job"] == "Non-Technical"
    assert non_technical[non_technical].index.tolist() == [0, 2, 4, 5]
    expected_job = TABLE_6_2["Job"].where(~non_technical, RAW["Job"])
    assert result.data["Job"].tolist() == expected_job.tolist()
    assert expected_job.tolist()[:6] == ["Janitor", "Professional", "Mover", "Professional", "Mover", "Janitor"]


def test_table_6_2_is_not_an_end_point_of_hdtds():
    table = TABLE_6_2.assign(Surgery=RAW["Surgery"])
    # Table 6.2 meets the requirement (the seed's claim) ...
    assert lkc_violations(table) == []
    # ... and so does Table 6.2 with Non-Technical specialized: the qids that change are
    # <Janitor> {1,6}, <Mover> {3,5}, <Janitor, M>, <Mover, M>, <Janitor, [30-60)>, <Mover, [30-60)>,
    # each 2 records with one Transgender (1/2 = C): the candidate is valid, so the seed's loop
    # ("while some candidate v in the cut is valid") does not stop at Table 6.2
    refined = table.assign(Job=TABLE_6_2["Job"].where(TABLE_6_2["Job"] != "Non-Technical", RAW["Job"]))
    assert lkc_violations(refined) == []
    groups = refined.groupby("Job")["Surgery"].agg(lambda s: (len(s), int((s == "Transgender").sum())))
    assert groups["Janitor"] == (2, 1) and groups["Mover"] == (2, 1)
    # and the greedy order cannot skip it: Table 6.2 performed ANY_Sex, scored below Non-Technical
    # (0.003431 < 0.311278, InfoGain of the value alone), and Non-Technical's specialization is valid in
    # every coarser table (anti-monotone), so it is taken while ANY_Sex still waits
    assert ANY_SEX < NON_TECHNICAL
    assert (table["Sex"] != "ANY_Sex").all()
    # a "beneficial" rule (score > 0, or more than one class) keeps Non-Technical (3 Y, 1 N) and would
    # drop White-collar -> Professional (records 2, 4, 7, 8, 9 all N: InfoGain 0), which Table 6.2 shows
    assert NON_TECHNICAL > 0 and H(3, 1) > 0
    assert set(RAW.loc[[1, 3, 6, 7, 8], "Transfuse"]) == {"N"}
    assert set(TABLE_6_2.loc[[1, 3, 6, 7, 8], "Job"]) == {"Professional"}
