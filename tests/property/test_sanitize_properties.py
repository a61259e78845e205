"""Properties of HMAC pseudonyms: consistent within a run, different under another key."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.sanitize import pseudonymize_hmac

values = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
                  .filter(lambda s: s.strip() != ""), min_size=1, max_size=40)
keys = st.binary(min_size=16, max_size=48)


@settings(max_examples=60, deadline=None)
@given(values, keys)
def test_consistent_within_a_run(vals, key):
    s = pd.Series(vals + vals[::-1])
    out = pseudonymize_hmac(s, key=key)
    # equal (stripped) values get equal pseudonyms, different ones different pseudonyms
    stripped = s.str.strip()
    for a in range(len(s)):
        for b in range(a + 1, len(s)):
            assert (out[a] == out[b]) == (stripped[a] == stripped[b])


@settings(max_examples=60, deadline=None)
@given(values, keys, keys)
def test_another_key_gives_other_pseudonyms(vals, k1, k2):
    if k1 == k2:
        k2 = bytes([k1[0] ^ 1]) + k1[1:]
    a = pseudonymize_hmac(pd.Series(vals), key=k1)
    b = pseudonymize_hmac(pd.Series(vals), key=k2)
    assert (a != b).all()
