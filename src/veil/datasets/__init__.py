"""Bundled data: the Adult benchmark with its hierarchies, and the seeds' example tables.

Every loader returns a :class:`~veil.dataset.Dataset` with its schema (roles
and kinds) and, where the source gives them, its generalization hierarchies.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from veil.dataset import Dataset
from veil.hierarchy import Hierarchy, from_csv, intervals, taxonomy

__all__ = [
    "ADULT_QUASI_IDENTIFIERS",
    "load_adult",
    "adult_path",
    "load_din_table",
    "load_age_sex_state",
    "load_lkc_patients",
    "load_lkc_patients_anonymized",
    "load_patients_3anonymous",
    "load_job_sex_age",
]

#: The 8 quasi-identifiers of the standard Adult set-up (ARX's benchmark).
ADULT_QUASI_IDENTIFIERS: tuple[str, ...] = (
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
)


def adult_path(name: str = "adult.csv") -> str:
    """The path of a bundled Adult file (``adult.csv`` or ``adult_hierarchy_<qi>.csv``)."""
    return str(resources.files("veil.datasets").joinpath("data", "adult", name))


def load_adult(
    *, quasi_identifiers: tuple[str, ...] = ADULT_QUASI_IDENTIFIERS, sensitive: tuple[str, ...] = ("salary-class",),
) -> Dataset:
    """The UCI Adult data (30,162 records) with ARX's 8 QI hierarchies.

    ``sex, age, race, marital-status, education, native-country, workclass,
    occupation`` are the quasi-identifiers and ``salary-class`` the sensitive
    attribute by default (the set-up of the literature and ARX's benchmarks);
    ``occupation`` with the other 7 as QIs is the other common choice.

    Data: Becker & Kohavi (1996), UCI Machine Learning Repository, CC BY 4.0.
    Hierarchies: from the ARX anonymization tool, Apache License 2.0.
    """
    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    hierarchies = {
        name: from_csv(adult_path(f"adult_hierarchy_{name}.csv"), name=name)
        for name in ADULT_QUASI_IDENTIFIERS + ("salary-class",)
        if name in quasi_identifiers or name in sensitive
    }
    dataset = Dataset.from_pandas(
        frame, quasi_identifiers=quasi_identifiers, sensitive=sensitive,
        kinds={"age": "numeric"} if "age" in quasi_identifiers + sensitive else None,
    )
    return dataset.with_hierarchies(hierarchies)


def load_din_table() -> Dataset:
    """The 11-record Name / Gender / Year of birth / DIN table (seed 004, ARX example).

    ``Name`` is an identifier, ``Gender`` and ``YOB`` are quasi-identifiers
    and ``DIN`` (drug identification number) is sensitive.  ``YOB`` has a
    decade hierarchy (``1979 → 1970-1979 → *``), the generalization of the
    seed's "after de-identification" table.
    """
    frame = pd.DataFrame(
        {
            "Name": ["John Smith", "Alan Patel", "Hercules Green", "Gill Stringer", "Alice Smith",
                     "Bill Nash", "Albert Blackwell", "Beverly McCulsky", "Douglas Henry",
                     "Freda Shields", "Fred Thompson"],
            "Gender": ["Male", "Male", "Male", "Female", "Female", "Male", "Male", "Female", "Male",
                       "Female", "Male"],
            "YOB": ["1979", "1982", "1979", "1995", "1987", "1995", "1998", "1984", "1979", "1995", "1987"],
            "DIN": ["2046059", "716839", "2241497", "2046059", "392537", "363766", "544981", "293512",
                    "544981", "596612", "725765"],
        }
    )
    yob = intervals(frame["YOB"], widths=[10], label_format="{low}-{last}", name="YOB")
    return Dataset.from_pandas(
        frame, identifiers=["Name"], quasi_identifiers=["Gender", "YOB"], sensitive=["DIN"],
        kinds={"YOB": "numeric"}, hierarchies={"YOB": yob},
    )


def load_age_sex_state() -> Dataset:
    """The 5-record age / sex / state table of the distinction and separation example (seed 004)."""
    frame = pd.DataFrame(
        {
            "age": ["20", "30", "40", "20", "40"],
            "sex": ["Female", "Female", "Female", "Male", "Male"],
            "state": ["CA", "CA", "TX", "NY", "CA"],
        }
    )
    return Dataset.from_pandas(frame, quasi_identifiers=["age", "sex", "state"], kinds={"age": "numeric"})


#: The Job taxonomy of the LKC example (Fung et al., Introduction to PPDP, ch. 6).
JOB_TAXONOMY = {
    "ANY_Job": {
        "Blue-collar": {"Non-Technical": ["Janitor", "Mover"], "Technical": ["Carpenter", "Technician"]},
        "White-collar": {"Professional": ["Doctor", "Lawyer"]},
    }
}


def _lkc_hierarchies() -> dict[str, Hierarchy]:
    return {
        "Job": taxonomy(JOB_TAXONOMY, name="Job"),
        "Sex": Hierarchy.from_rows([["M", "ANY_Sex"], ["F", "ANY_Sex"]], name="Sex"),
        "Age": intervals(
            ["24", "34", "44", "58", "63"], cuts=[[1, 30, 60, 99], [1, 60, 99], [1, 99]],
            label_format="[{low}-{high})", name="Age",
        ),
    }


def load_lkc_patients() -> Dataset:
    """The 11-record Job / Sex / Age / Transfuse / Surgery table of the LKC example (seed 004).

    QIs: Job, Sex, Age; class attribute: Transfuse (insensitive); sensitive:
    Surgery (the sensitive value is ``Transgender``).  Hierarchies: the Job
    taxonomy (Janitor, Mover → Non-Technical; Carpenter, Technician →
    Technical; Doctor, Lawyer → Professional; then Blue-/White-collar) and Age
    intervals [1-30), [30-60), [60-99).
    """
    frame = pd.DataFrame(
        {
            "ID": [str(i) for i in range(1, 12)],
            "Job": ["Janitor", "Doctor", "Mover", "Lawyer", "Mover", "Janitor", "Doctor", "Lawyer",
                    "Doctor", "Carpenter", "Technician"],
            "Sex": ["M"] * 7 + ["F"] * 4,
            "Age": ["34", "58", "34", "24", "58", "44", "24", "58", "44", "63", "63"],
            "Transfuse": ["Y", "N", "Y", "N", "N", "Y", "N", "N", "N", "Y", "Y"],
            "Surgery": ["Transgender", "Plastic", "Transgender", "Vascular", "Urology", "Plastic",
                        "Urology", "Plastic", "Vascular", "Vascular", "Plastic"],
        }
    )
    return Dataset.from_pandas(
        frame, identifiers=["ID"], quasi_identifiers=["Job", "Sex", "Age"], sensitive=["Surgery"],
        insensitive=["Transfuse"], kinds={"Age": "numeric"}, hierarchies=_lkc_hierarchies(),
    )


def load_lkc_patients_anonymized() -> Dataset:
    """Table 6.2 of the LKC example: the anonymized table meeting L=2, K=2, C=50% (seed 004)."""
    frame = pd.DataFrame(
        {
            "ID": [str(i) for i in range(1, 12)],
            "Job": ["Non-Technical", "Professional", "Non-Technical", "Professional", "Non-Technical",
                    "Non-Technical", "Professional", "Professional", "Professional", "Technical", "Technical"],
            "Sex": ["M"] * 7 + ["F"] * 4,
            "Age": ["[30-60)", "[30-60)", "[30-60)", "[1-30)", "[30-60)", "[30-60)", "[1-30)", "[30-60)",
                    "[30-60)", "[60-99)", "[60-99)"],
            "Transfuse": ["Y", "N", "Y", "N", "N", "Y", "N", "N", "N", "Y", "Y"],
            "Surgery": ["Transgender", "Plastic", "Transgender", "Vascular", "Urology", "Plastic",
                        "Urology", "Plastic", "Vascular", "Vascular", "Plastic"],
        }
    )
    return Dataset.from_pandas(
        frame, identifiers=["ID"], quasi_identifiers=["Job", "Sex", "Age"], sensitive=["Surgery"],
        insensitive=["Transfuse"],
    )


def load_patients_3anonymous() -> Dataset:
    """The 3-anonymous Zipcode / Age / Disease patient table of the homogeneity and
    background-knowledge attacks (seed 004; Machanavajjhala et al. 2007, Fig. 2).

    Bob (47678, 27) falls in the first class, all Cancer: homogeneity attack.
    Umeko (47653, 31) falls in the last class (Heart Disease ×2, Viral
    Infection ×2); knowing that Japanese rarely have heart disease reveals her
    disease: background-knowledge attack.
    """
    frame = pd.DataFrame(
        {
            "Zipcode": ["476**"] * 3 + ["4790*"] * 3 + ["476**"] * 4,
            "Age": ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 4,
            "Disease": ["Cancer", "Cancer", "Cancer", "Flu", "Heart Disease", "Cancer",
                        "Heart Disease", "Heart Disease", "Viral Infection", "Viral Infection"],
        }
    )
    return Dataset.from_pandas(frame, quasi_identifiers=["Zipcode", "Age"], sensitive=["Disease"])


def load_job_sex_age() -> Dataset:
    """The 7-record pseudo / job / sex / age / discrete table (seed 002).

    QIs: job, sex, age; sensitive: ``discrete`` (high / low).  The seed's
    generalized version maps engineer, lawyer → professional and writer,
    dancer → artist, ages to 35-40 and 30-35 (see the hierarchies).
    """
    frame = pd.DataFrame(
        {
            "pseudo": [f"U{i}" for i in range(1, 8)],
            "job": ["engineer", "engineer", "lawyer", "writer", "writer", "dancer", "dancer"],
            "sex": ["m", "m", "f", "f", "f", "f", "f"],
            "age": ["35", "38", "38", "30", "30", "30", "30"],
            "discrete": ["high", "high", "low", "low", "high", "high", "high"],
        }
    )
    hierarchies = {
        "job": taxonomy({"*": {"professional": ["engineer", "lawyer"], "artist": ["writer", "dancer"]}}, name="job"),
        "sex": Hierarchy.from_rows([["m", "*"], ["f", "*"]], name="sex"),
        "age": intervals(frame["age"], widths=[5], origin=0, label_format="{low}-{high}", name="age"),
    }
    return Dataset.from_pandas(
        frame, identifiers=["pseudo"], quasi_identifiers=["job", "sex", "age"], sensitive=["discrete"],
        kinds={"age": "numeric"}, hierarchies=hierarchies,
    )
