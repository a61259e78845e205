"""A QI given as a categorical is read from its own codes (``build(columns=...)``, the check's
path for a released frame): the class table is the one its encoding gives, to the bit."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.anonymization import anonymize, verify
from veil.classes import build
from veil.classes._build import categorical_codes, code_counts
from veil.data import Kind
from veil.datasets import load_adult
from veil.dataset import Dataset
from veil.errors import VerificationError
from veil.models import KAnonymity

LABELS = ["b", "a", "*", "c", "é", "10", "9"]


def _same(one, other):
    assert one.codes.tolist() == other.codes.tolist()
    assert one.counts.tolist() == other.counts.tolist()
    assert [h.labels[0].tolist() for h in one.hierarchies] == [h.labels[0].tolist() for h in other.hierarchies]
    if one.n_classes:  # (with no class, every record arrived suppressed: no row has one)
        assert one.row_classes().tolist() == other.row_classes().tolist()
    assert (one.suppressed, one.n_records) == (other.suppressed, other.n_records)
    for name, hist in one.sensitive.items():
        assert hist.counts.tolist() == other.sensitive[name].counts.tolist()
        assert hist.overall.tolist() == other.sensitive[name].overall.tolist()


@st.composite
def frames(draw):
    n = draw(st.integers(1, 40))
    columns = {}
    for name in ("q", "r"):
        categories = draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=len(LABELS), unique=True))
        codes = draw(st.lists(st.integers(0, len(categories) - 1), min_size=n, max_size=n))
        columns[name] = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(pd.Index(categories, dtype="str")))
    columns["s"] = pd.Series(draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n)), dtype="str")
    frame = pd.DataFrame(columns)
    stars = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    for name in ("q", "r"):  # some rows '*' in every QI (a suppressed record)
        if "*" in frame[name].cat.categories:
            frame.loc[np.array(stars), name] = "*"
    return frame


@settings(max_examples=150, deadline=None)
@given(frame=frames(), left_out=st.booleans(), numeric=st.booleans())
def test_codes_read_as_they_are_give_the_encodings_table(frame, left_out, numeric):
    kinds = {}
    if numeric and not frame["q"].cat.categories.isin(["b", "a", "*", "c", "é"]).any():
        kinds = {"q": "numeric"}  # ordered by value: 9 before 10
    def dataset():
        return Dataset.from_pandas(frame, quasi_identifiers=["q", "r"], sensitive=["s"], kinds=kinds)
    star = ((frame["q"] == "*") & (frame["r"] == "*")).to_numpy() if left_out else None
    if star is not None and star.all():
        return  # no record left in a class: verify checks the all-'*' table instead
    encoded = build(dataset(), suppressed_rows=star)
    read = build(dataset(), suppressed_rows=star, columns={"q": frame["q"], "r": frame["r"]})
    _same(read, encoded)


def test_a_column_with_a_missing_cell_or_of_numbers_is_left_to_the_encoding():
    missing = pd.Series(pd.Categorical(["a", None, "b"]))
    assert categorical_codes(missing, "q", Kind.CATEGORICAL) is None
    assert categorical_codes(pd.Series(pd.Categorical([1, 2, 1])), "q", Kind.CATEGORICAL) is None
    assert categorical_codes(pd.Series(["a", "b"], dtype="str"), "q", Kind.CATEGORICAL) is None


def test_unread_categories_are_no_labels_and_the_rest_are_sorted_for_the_kind():
    column = pd.Series(pd.Categorical.from_codes([2, 0, 2], dtype=pd.CategoricalDtype(
        pd.Index(["10", "7", "9"], dtype="str"))))
    encoded, ordered, rank = categorical_codes(column, "q", Kind.NUMERIC)
    assert ordered.tolist() == ["9", "10"] and rank.tolist() == [1, -1, 0]
    assert encoded.counts.tolist() == [1, 0, 2] and not encoded.every_label_occurs
    many = pd.Series(pd.Categorical([str(i) for i in range(40)] * 2))  # counted by bincount
    assert categorical_codes(many, "q", Kind.CATEGORICAL)[0].counts.tolist() == [2] * 40


@pytest.fixture(scope="module")
def release():
    adult = load_adult()
    result = anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=3)
    assert all(isinstance(result.data[name].dtype, pd.CategoricalDtype) for name in adult.quasi_identifiers)
    return adult, result


def _check(adult, frame, result):
    star = (frame[list(adult.quasi_identifiers)] == "*").all(axis=1).to_numpy()
    return verify(frame, adult, [KAnonymity(k=5)], suppressed_rows=star)


def test_the_released_categoricals_pass_and_read_as_their_text(release):
    adult, result = release
    by_codes = _check(adult, result.data, result)
    _same(by_codes, _check(adult, result.data.astype("str"), result))


def test_a_released_cell_changed_by_its_code_is_caught(release):
    # one record moved to a label of its own: a class of one, below k
    adult, result = release
    frame = result.data.copy()
    row = int(np.flatnonzero((frame["age"] != "*").to_numpy())[0])
    frame["age"] = frame["age"].cat.add_categories(["999"])
    frame.loc[row, "age"] = "999"
    with pytest.raises(VerificationError):
        _check(adult, frame, result)


def test_relabelled_categories_are_read_as_the_cells_they_make(release):
    # the codes kept, two categories swapped: every cell of both labels changes, and the
    # check judges the cells (the same classes, relabelled: still 5-anonymous)
    adult, result = release
    frame = result.data.copy()
    categories = list(frame["sex"].cat.categories)
    male, female = categories.index("Male"), categories.index("Female")
    categories[male], categories[female] = "Female", "Male"  # '*' stays '*'
    frame["sex"] = frame["sex"].cat.rename_categories(categories)
    assert (frame["sex"].astype("str") != result.data["sex"].astype("str")).any()
    checked = _check(adult, frame, result)
    assert sorted(checked.counts.tolist()) == sorted(_check(adult, result.data, result).counts.tolist())
    assert _check(adult, frame.astype("str"), result).counts.tolist() == checked.counts.tolist()


@settings(max_examples=80, deadline=None)
@given(n_codes=st.integers(1, 20), dtype=st.sampled_from([np.int8, np.int16, np.int32]), data=st.data())
def test_code_counts_by_comparing_or_bincount_are_the_bincount(n_codes, dtype, data):
    codes = np.array(data.draw(st.lists(st.integers(0, n_codes - 1), max_size=60)), dtype=dtype)
    expected = np.bincount(codes.astype(np.int64), minlength=n_codes)
    got = code_counts(codes, n_codes)
    assert got.dtype == np.int64 and got.tolist() == expected.tolist()


@settings(max_examples=80, deadline=None)
@given(sizes=st.lists(st.integers(1, 50), min_size=1, max_size=6), seed=st.integers(0, 2**16),
       m=st.integers(0, 30), wide=st.booleans())
def test_leaf_codes_are_the_unpacked_values_leaves(sizes, seed, m, wide):
    from veil.classes._grouping import pack_codes, unpack_codes

    rng = np.random.default_rng(seed)
    values = [rng.integers(0, size, m).astype(np.int32) for size in sizes]
    keys = pack_codes(iter(values), sizes)
    keys = keys.astype(np.int64) if wide else keys
    leaves = [rng.permutation(size).astype(np.int32) - 1 for size in sizes]  # -1: a value not needed
    unpacked = unpack_codes(keys, sizes)
    expected = np.column_stack([leaf.take(unpacked[:, i]) for i, leaf in enumerate(leaves)]).reshape(m, len(sizes))
    got = unpack_codes(keys, sizes, maps=leaves)
    assert got.dtype == np.int32 and got.flags["C_CONTIGUOUS"] and got.tolist() == expected.tolist()


def test_a_key_space_past_62_bits_binds_the_released_categoricals_from_their_rows():
    # 7 released QIs of 600 categories each (600**7 > 2**62): grouped through the leaf-code matrix,
    # so each categorical is bound from its rows' codes first; one category per column unread,
    # '*' read by the suppressed rows alone
    rng = np.random.default_rng(11)
    n, names = 3000, [f"q{i}" for i in range(7)]
    categories = [f"v{j:03d}" for j in range(599)] + ["*"]
    codes = rng.integers(0, 598, size=(n, 7))  # category 598 never read
    star = rng.random(n) < 0.1
    codes[star] = 599
    frame = pd.DataFrame({name: pd.Categorical.from_codes(codes[:, i], dtype=pd.CategoricalDtype(
        pd.Index(categories, dtype="str"))) for i, name in enumerate(names)})
    frame["s"] = pd.Series(rng.choice(["x", "y"], n), dtype="str")

    def dataset():
        return Dataset.from_pandas(frame, quasi_identifiers=names, sensitive=["s"])
    read = build(dataset(), suppressed_rows=star, columns={name: frame[name] for name in names})
    assert np.prod([float(h.n_values(0)) for h in read.hierarchies]) > 2.0 ** 62
    assert all("*" not in h.labels[0].tolist() and "v598" not in h.labels[0].tolist() for h in read.hierarchies)
    _same(read, build(dataset(), suppressed_rows=star))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_factorize_keys_numbers_groups_by_first_appearance(dtype):
    from veil.classes import factorize_keys

    key = np.array([70, 3, 70, 5, 3, 3, 9], dtype=dtype)
    inverse, keys = factorize_keys(key)
    assert inverse.dtype == np.int64 and keys.dtype == np.int64
    assert inverse.tolist() == [0, 1, 0, 2, 1, 1, 3] and keys.tolist() == [70, 3, 5, 9]
