import numpy as np
import pytest

from veil.errors import HierarchyError
from veil.hierarchy import Hierarchy, dates, flat, from_csv, intervals, masking, prefix, taxonomy


def test_arx_csv_adult_age(tmp_path):
    h = from_csv("src/veil/datasets/data/adult/adult_hierarchy_age.csv")
    assert h.height == 4
    assert h.n_values(0) == 100 and h.n_values(4) == 1
    # 39 → 35-39 → 30-39 → 20-39 → *
    leaf = h.leaf_index(["39"])[0]
    assert [h.label(l, h.maps[l][leaf]) for l in range(5)] == ["39", "35-39", "30-39", "20-39", "*"]


def test_csv_comma_separator_and_roundtrip(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a,x,*\nb,x,*\nc,y,*\n")
    h = from_csv(path)
    assert h.height == 2 and list(h.labels[1]) == ["x", "y"]
    out = tmp_path / "out.csv"
    h.to_csv(out)
    assert from_csv(out).to_frame().equals(h.to_frame())


def test_ragged_hierarchy_file_names_line(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("a;x;*\nb;*\n")
    with pytest.raises(HierarchyError, match="line 2"):
        from_csv(path)


def test_non_monotone_levels_rejected():
    # b's parent x at level 1 goes to two different level-2 values
    with pytest.raises(HierarchyError, match="not monotone.*'x'"):
        Hierarchy.from_rows([["a", "x", "p", "*"], ["b", "x", "q", "*"]])


def test_several_tops_rejected():
    with pytest.raises(HierarchyError, match="single value"):
        Hierarchy.from_rows([["a", "x"], ["b", "y"]])


def test_duplicate_leaf_rejected():
    with pytest.raises(HierarchyError, match="twice"):
        Hierarchy.from_rows([["a", "*"], ["a", "*"]])


def test_leaf_index_names_column_and_value():
    h = flat(["F", "M"], name="sex")
    with pytest.raises(HierarchyError, match=r"column 'sex' does not cover the value 'X'"):
        h.leaf_index(["F", "X"])


def test_intervals_widths():
    h = intervals([3, 7, 12, 38], widths=[5, 10, 20])
    frame = h.to_frame().set_index("level_0")
    assert frame.loc["7"].tolist() == ["[5, 10)", "[0, 10)", "[0, 20)", "*"]
    assert frame.loc["38"].tolist() == ["[35, 40)", "[30, 40)", "[20, 40)", "*"]


def test_intervals_non_multiple_widths_not_monotone():
    with pytest.raises(HierarchyError, match="not monotone"):
        intervals([4, 6, 9, 11], widths=[5, 7])


def test_intervals_outside_error_and_open():
    with pytest.raises(HierarchyError, match="'120' .* outside"):
        intervals([10, 120], cuts=[[0, 50, 100]])
    h = intervals([10, 120, -5], cuts=[[0, 50, 100]], outside="open")
    frame = h.to_frame().set_index("level_0")
    assert frame.loc["120", "level_1"] == ">= 100"
    assert frame.loc["-5", "level_1"] == "< 0"


def test_masking_zip():
    h = masking(["47677", "47602", "47905"])
    row = h.to_frame().iloc[0].tolist()
    assert row == ["47677", "4767*", "476**", "47***", "4****", "*****"]
    assert h.n_values(h.height) == 1


def test_prefix_credit_card():
    h = prefix(["5555555555554444"], keep=(3,))
    assert h.to_frame().iloc[0].tolist() == ["5555555555554444", "555*************", "*"]


def test_dates():
    h = dates(["2020-03-04", "1995-12-01"])
    assert h.to_frame().iloc[1].tolist() == ["1995-12-01", "1995-12", "1995", "1990-1999", "*"]
    with pytest.raises(HierarchyError, match="'yesterday'"):
        dates(["2020-01-01", "yesterday"])


def test_taxonomy_pads_shallow_leaves():
    h = taxonomy({"*": {"Pro": ["Doctor", "Lawyer"], "Other": None}})
    frame = h.to_frame().set_index("level_0")
    assert frame.loc["Doctor"].tolist() == ["Pro", "*"]
    assert frame.loc["Other"].tolist() == ["Other", "*"]


def test_rollup_composes_levels():
    h = from_csv("src/veil/datasets/data/adult/adult_hierarchy_age.csv")
    up = h.rollup(1, 3)
    np.testing.assert_array_equal(up[h.maps[1]], h.maps[3])


def test_with_value_keeps_missing_below_top():
    h = flat(["a", "b"]).with_value("<missing>")
    assert h.to_frame().iloc[-1].tolist() == ["<missing>", "*"]


def test_intervals_skip_missing_and_take_top_codes():
    # 93 // 10 * 10 = 90: "90+" and 93 share ">= 90"; blanks and None are not leaves
    h = intervals(["12", "", None, "93", "90+", "-7"], widths=[10])
    frame = h.to_frame().set_index("level_0")
    assert frame["level_1"].to_dict() == {"-7": "[-10, 0)", "12": "[10, 20)", "93": ">= 90", "90+": ">= 90"}


def test_builders_leave_missing_values_out():
    assert dates(["2020-01-05", None, ""]).leaves.tolist() == ["2020-01-05"]
    assert masking(["47677", float("nan"), "<missing>"]).leaves.tolist() == ["47677"]
    assert flat(["a", None, "b"]).leaves.tolist() == ["a", "b"]
