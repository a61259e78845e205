"""Seed 003 (Kifer & Gehrke, "Injecting utility into anonymized datasets", SIGMOD 2006): the privacy
definitions for collections of marginals, on small tables worked by hand.

* Definition 4.1, k-link anonymity: every marginal's non-sensitive cells hold 0 or >= k records.
* Definition 4.2, k-combinatorial anonymity: for every combination t of non-sensitive values, either every
  table consistent with the marginals has T(t) = 0, or one has T(t) >= k.
* Definition 4.3, MaxEnt l-diversity: the maximum-entropy distribution consistent with the marginals is
  l-diverse.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.marginals import (
    achieved_k_link,
    check_k_combinatorial,
    check_marginals,
    check_maxent_l_diversity,
    k_combinatorial,
    marginal,
    maxent_l_diversity,
)


def _cube() -> ClassTable:
    # A 2 x 2 x 2 table (cells abc): 000 = 1, 001 = 1, 010 = 1, 100 = 1, 011 = 2, 101 = 2, 110 = 2, 111 = 0
    counts = {"000": 1, "001": 1, "010": 1, "100": 1, "011": 2, "101": 2, "110": 2, "111": 0}
    rows = [cell for cell, count in counts.items() for _ in range(count)]
    frame = pd.DataFrame({"a": [r[0] for r in rows], "b": [r[1] for r in rows], "c": [r[2] for r in rows]})
    return ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"])


def test_k_link_does_not_imply_k_combinatorial():
    classes = _cube()
    pairs = [marginal(classes, ["a", "b"]), marginal(classes, ["a", "c"]), marginal(classes, ["b", "c"])]
    # the 12 two-way cells: (a,b) 00: 1+1 = 2, 01: 1+2 = 3, 10: 1+2 = 3, 11: 2+0 = 2; (a,c) and (b,c) alike
    assert achieved_k_link(pairs) == 2 and check_marginals(pairs, 2)
    # The tables with these three 2-way margins are T0 + x * d, d = +1 on 000, 011, 101, 110 and -1 on the
    # others. T >= 0: 1 + x >= 0 and 0 - x >= 0 (cell 111), so x in {-1, 0}. Cell 000 holds 1 + x in {0, 1}
    # and cell 111 holds -x in {0, 1}: both are pinned to at most 1 record, yet not to 0. The others reach 2.
    result = k_combinatorial(pairs)
    assert result.attributes == ("a", "b", "c")
    assert result.most.tolist() == [[[1, 2], [2, 2]], [[2, 2], [2, 1]]]
    assert result.k == 1
    assert not check_k_combinatorial(pairs, 2) and check_k_combinatorial(pairs, 1)


def test_decomposable_marginals_reach_the_frechet_bounds():
    # (x,p) = 3, (x,q) = 1, (y,p) = 2, (y,q) = 2: a = x 4, y 4; b = p 5, q 3.
    # With two 1-way margins, max T(a,b) = min(M_a, M_b): (x,p) 4, (x,q) 3, (y,p) 4, (y,q) 3 -> k = 3
    frame = pd.DataFrame({"a": list("xxxxyyyy"), "b": list("pppqppqq")})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    ones = [marginal(classes, "a"), marginal(classes, "b")]
    result = k_combinatorial(ones)
    assert result.most.tolist() == [[4, 3], [4, 3]] and result.k == 3 == achieved_k_link(ones)
    # the 2-way marginal itself pins every cell to its count: k = 1, as its k-link level
    assert k_combinatorial([marginal(classes, ["a", "b"])]).k == 1 == achieved_k_link([marginal(classes, ["a", "b"])])


def _patients() -> Dataset:
    # a: x x x y y y ; s: A A B A B B -> classes x = {A: 2, B: 1}, y = {A: 1, B: 2}
    frame = pd.DataFrame({"a": list("xxxyyy"), "s": list("AABABB")})
    return Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])


def test_marginals_that_include_the_sensitive_attribute():
    data = _patients()
    joint = marginal(data, ["a", "s"])
    assert joint.sensitive == ("s",) and joint.non_sensitive == ("a",)
    # k-link judges NonSensitive(M): a = x 3, y 3, although the cell (x, B) holds one record
    assert joint.table["count"].tolist() == [2, 1, 1, 2]
    assert achieved_k_link([joint]) == 3 and check_marginals([joint], 3)
    # the sensitive attribute asked of a class table: the Dataset is needed
    from veil.errors import ParameterError

    with pytest.raises(ParameterError, match="needs the Dataset"):
        marginal(ClassTable.from_dataset(data), ["a", "s"])


def test_maxent_l_diversity_judges_what_the_marginals_reveal():
    data = _patients()
    joint = [marginal(data, ["a", "s"])]
    # F2 = the data: s | x = (2/3, 1/3), s | y = (1/3, 2/3). exp(H(2/3, 1/3)) = exp(0.636514) = 1.889882
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert maxent_l_diversity(joint) == pytest.approx(math.exp(h), rel=1e-9)
    assert maxent_l_diversity(joint) == pytest.approx(1.889882, abs=1e-6)
    assert maxent_l_diversity(joint, measure="distinct") == 2.0
    assert check_maxent_l_diversity(joint, 1.88) and not check_maxent_l_diversity(joint, 1.9)
    # recursive (c, 2): r1 = 2/3 < c * r2 = c/3 holds for c = 3, not for c = 2 (2/3 < 2/3 is false)
    assert check_maxent_l_diversity(joint, 2, measure="recursive", c=3)
    assert not check_maxent_l_diversity(joint, 2, measure="recursive", c=2)
    # the 1-way marginals a and s alone: F2 is their product, s | a = (1/2, 1/2) everywhere: l = 2
    apart = [marginal(data, "a"), marginal(data, "s")]
    assert maxent_l_diversity(apart) == pytest.approx(2.0, rel=1e-9)
    # a homogeneous table: x = {A, A}, y = {B, B}. The joint marginal reveals it (l = 1) ...
    frame = pd.DataFrame({"a": list("xxyy"), "s": list("AABB")})
    homogeneous = Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])
    assert maxent_l_diversity([marginal(homogeneous, ["a", "s"])], measure="distinct") == 1.0
    # ... the two 1-way marginals do not (l = 2): MaxEnt l-diversity holds where the joint table fails
    assert check_maxent_l_diversity([marginal(homogeneous, "a"), marginal(homogeneous, "s")], 2, measure="distinct")


def test_k_combinatorial_with_a_sensitive_attribute():
    data = _patients()
    # the marginals (a, s) and (s): T(a) sums over s; (a, s) fixes every cell, so T(x) = 3, T(y) = 3
    result = k_combinatorial([marginal(data, ["a", "s"]), marginal(data, "s")])
    assert result.attributes == ("a",) and result.most.tolist() == [3, 3] and result.k == 3
    assert np.array_equal(result.most, np.array([3, 3]))
