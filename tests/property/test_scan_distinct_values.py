"""The identifier scan measures each distinct value once: the same evidence as a row-by-row scan.

``veil.sanitize.scan`` hashes a text column once and matches each distinct sampled
value once, counted as often as it occurs.  This test recomputes every figure of
the value evidence row by row, in plain Python, from the scan's documented rule
(the present values are those neither missing nor empty; the sample is
``numpy.random.default_rng(seed).choice(n_present, sample_size, replace=False)``,
sorted, among them; each sampled value is stripped and matched whole), and
checks that the report carries exactly those figures, for text held as pandas'
``str``, ``string`` and ``object`` dtypes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.sanitize import KINDS, scan

# values that match some kinds' patterns (one card passes Luhn, its neighbour does not),
# plus decimal numbers, free text and values that differ only by surrounding spaces
POOL = [
    "ann@example.org", " ann@example.org", "123-45-6789", "4111111111111111", "4111111111111112",
    "10.0.0.1", "07401", "2020-01-05", "555-123-4567", "1.5", "-2.25", "John Smith",
    "a long free text value with spaces, long enough to count", "x", "y ", "",
]
VALUES = st.one_of(st.none(), st.sampled_from(POOL),
                   st.text(alphabet="abc019 .-@", max_size=8))
SAMPLE = 100  # the smallest sample scan takes: columns of 101 and more values are sampled


def reference(values: list[str | None], seed: int) -> dict:
    """The value figures of one column, row by row."""
    present = [v for v in values if v is not None and v != ""]
    n = len(present)
    if n > SAMPLE:
        positions = np.sort(np.random.default_rng(seed).choice(n, size=SAMPLE, replace=False))
        sample = [present[i] for i in positions]
    else:
        sample = present
    texts = [v.strip() for v in sample]
    shares = {}
    for kind in KINDS:
        if kind.value_regex is None or not texts:
            continue
        matched = [t for t in texts if kind.value_regex.fullmatch(t)]
        valid = matched
        if kind.check is not None and matched:
            ok = np.asarray(kind.check(pd.Series(matched, dtype="str")), dtype=bool)
            valid = [t for t, good in zip(matched, ok) if good]
        shares[kind.name] = (len(matched) / len(texts), len(valid) / len(texts))
    free = sum(len(t) >= 40 and " " in t for t in texts) / len(texts) if texts else 0.0
    return {"n_present": n, "distinct": len(set(present)), "examined": len(texts), "shares": shares,
            "free": free, "sampled": n > SAMPLE}


@settings(max_examples=150, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=260), st.integers(0, 3),
       st.sampled_from(["str", "string", "object"]))
def test_scan_evidence_equals_the_row_by_row_figures(values, seed, dtype):
    column = pd.Series(values, dtype=object if dtype == "object" else dtype)
    finding = scan(pd.DataFrame({"c": column}), sample_size=SAMPLE, seed=seed).columns["c"]
    want = reference(values, seed)
    assert finding.rows == len(values)
    assert finding.missing == len(values) - want["n_present"]
    assert finding.distinct == want["distinct"]
    for evidence in finding.evidence:
        if evidence.source == "pattern":  # the share of values matching and passing the check
            assert evidence.share == want["shares"][evidence.kind][1]
            assert (evidence.examined, evidence.sampled) == (want["examined"], want["sampled"])
        elif evidence.source == "free-text":
            assert evidence.share == want["free"]
        elif evidence.source == "uniqueness" and evidence.share != 1.0:
            assert evidence.share == want["distinct"] / want["n_present"]
    # every kind whose pattern 5 % of the sampled values match is reported with its share; a weak
    # pattern (a five-digit number looks like a ZIP code) only when most values match it
    reported = {e.kind for e in finding.evidence if e.source == "pattern"}
    strength = {kind.name: kind.pattern_strength for kind in KINDS}
    assert {k for k, (raw, valid) in want["shares"].items()
            if raw >= 0.05 and (strength[k] >= 0.5 or valid >= 0.5)} <= reported
    assert any(e.source == "free-text" for e in finding.evidence) == (want["free"] >= 0.5)
