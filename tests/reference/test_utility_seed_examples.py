"""The worked utility examples of the seeds, reproduced exactly.

Seed 004 (section "Data Utility"): precision with HGV = 4, discernibility of
the 5-row table (DM = 13), average equivalence class size, and the entropy
examples of InfoGain.  Seed 003 (Kifer & Gehrke summary): discernibility with
|D| per suppressed tuple, and the classification metric.
"""

from __future__ import annotations

import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.hierarchy import Hierarchy
from veil.utility import (
    average_class_size,
    classification_metric,
    discernibility,
    info_gain,
    label_entropy,
    precision,
)

# Seed 004, "Utility Metrics: Discernibility": the released 5-row table
DM_TABLE = pd.DataFrame(
    {
        "Age": ["[20-30]", "[20-30]", ">40", ">40", ">40"],
        "Gender": ["M", "M", "*", "*", "*"],
        "ID": ["60800***", "60800***", "60790***", "60790***", "60790***"],
    }
)


def dm_classes() -> ClassTable:
    return ClassTable.from_pandas(DM_TABLE, quasi_identifiers=["Age", "Gender", "ID"])


def test_seed004_discernibility_is_13():
    # Seed 004: EC ([20-30], M, 60800***) -> 2^2 = 4; EC (>40, *, 60790***) -> 3^2 = 9;
    # DM(D) = 4 + 9 = 13
    assert discernibility(dm_classes()) == 13


def test_seed003_discernibility_charges_table_size_per_suppressed_tuple():
    # Seed 003: "sum of squares of anonymized groups, plus |D| times the number of suppressed
    # tuples".  Suppress the class of 2 in the 5-row table: 3^2 + 5 x 2 = 19
    classes = dm_classes()
    suppressed = classes.suppress(classes.counts == 2)
    assert discernibility(suppressed) == 9 + 5 * 2


def test_seed004_average_class_size():
    # Seed 004: C_AVG = (total #registers / total #ECs) / k; 5 records in 2 ECs, k = 2:
    # (5 / 2) / 2 = 1.25
    assert average_class_size(dm_classes(), k=2) == 1.25
    # with k = 1 it is the plain average size 2.5
    assert average_class_size(dm_classes(), k=1) == 2.5


# Seed 004, "Utility Metrics: Precision": a ZIP hierarchy of height HGV = 4 where 10547 has
# height 0, 10*** height 2 and the top (ZIP code ALL) height 4.
ZIP = Hierarchy.from_rows(
    [
        ["10547", "1054*", "10***", "1****", "ALL"],
        ["10548", "1054*", "10***", "1****", "ALL"],
        ["10601", "1060*", "10***", "1****", "ALL"],
    ]
)


@pytest.mark.parametrize(
    "level, distortion",
    [
        (0, 0 / 4),  # 10547: height 0 -> distortion 0/4 (no distortion)
        (2, 2 / 4),  # 10***: height 2 -> distortion 2/4
        (4, 4 / 4),  # ZIP code ALL: height 4 -> distortion 4/4 (suppression)
    ],
)
def test_seed004_precision_distortion_of_one_zip(level, distortion):
    frame = pd.DataFrame({"zip": ["10547"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], hierarchies={"zip": ZIP})
    # one record, one attribute: Prec = 1 - (h / HGV) / (1 x 1)
    assert precision(classes.generalize((level,))) == 1 - distortion


def test_seed004_precision_of_a_table():
    frame = pd.DataFrame({"zip": ["10547", "10548", "10601", "10601"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], hierarchies={"zip": ZIP})
    # all four records at 10*** (h = 2 of HGV = 4): Prec = 1 - (4 x 2/4) / (4 x 1) = 0.5
    assert precision(classes.generalize((2,))) == 0.5
    # suppress the two 1060* records at level 1, then generalize to 10***: 2 records at h = 2 and
    # 2 suppressed at h = HGV: Prec = 1 - (2 x 2/4 + 2 x 4/4) / (4 x 1) = 0.25
    fine = classes.generalize((1,))
    one_suppressed = fine.suppress(fine.labels()["zip"].eq("1060*").to_numpy()).generalize((2,))
    assert precision(one_suppressed) == 0.25


def test_seed004_entropy_examples():
    # Seed 004: |T["F"]| = 10, Freq(cancer) = 10, Freq(no cancer) = 0:
    # E = -(10/10 log2(10/10) + 0/10 log2(0/10)) = 0 -> "F" is deterministic
    assert label_entropy([10, 0]) == 0.0
    # Freq(cancer) = 5, Freq(no cancer) = 5: E = -(5/10 log2(5/10) + 5/10 log2(5/10))
    # = -(-0.5 - 0.5) = 1 -> "F" is uniformly distributed
    assert label_entropy([5, 5]) == 1.0


def test_seed004_info_gain_of_a_specialization():
    # Score(v) = E(T[v]) - sum_c |T[c]|/|T[v]| E(T[c]).  Specializing v = "*" into the seed's
    # two "F" examples (children of 10 records each, E = 0 and E = 1):
    # T[v] has 15 cancer, 5 no cancer: E = -(3/4 log2 3/4 + 1/4 log2 1/4) = 0.8112781244591328;
    # InfoGain = 0.8112781244591328 - (10/20 x 0 + 10/20 x 1) = 0.3112781244591328
    assert info_gain([15, 5], [[10, 0], [5, 5]]) == pytest.approx(0.3112781244591328, abs=1e-15)


def test_seed003_classification_metric():
    # Seed 003: penalty 1 per suppressed tuple, and 1 per tuple whose class label differs from
    # its group's majority.  Groups: (>40, *, 60790***) labels yes, yes, no -> 1 penalty;
    # ([20-30], M, 60800***) labels no, no -> 0; then suppress the second group: +2.
    frame = DM_TABLE.assign(label=["no", "no", "yes", "yes", "no"])
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["Age", "Gender", "ID"], sensitive=["label"])
    # CM = (0 suppressed + 1 minority tuple) / 5
    assert classification_metric(classes, "label") == 1 / 5
    suppressed = classes.suppress(classes.counts == 2)
    # CM = (2 suppressed + 1 minority tuple) / 5
    assert classification_metric(suppressed, "label") == 3 / 5
