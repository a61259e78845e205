"""Taxonomy files of parent,child lines."""

import pytest

from veil.errors import HierarchyError
from veil.hierarchy import build


def write(tmp_path, text, name="tree.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_tree_with_case_insensitive_match_and_padding(tmp_path):
    write(tmp_path, "# jobs\n*,Health\n*,Chef\nHealth,Nurse\nHealth,Doctor\n")
    h = build("taxonomy:tree.csv", ["nurse", "Doctor ", "CHEF"], base_dir=tmp_path)
    rows = {r[0]: list(r[1:]) for r in h.to_frame().itertuples(index=False)}
    # Chef is one level shallower than Nurse: it stays itself on the extra level
    assert rows == {"nurse": ["Health", "*"], "Doctor ": ["Health", "*"], "CHEF": ["CHEF", "*"]}


def test_several_roots_get_a_top(tmp_path):
    write(tmp_path, "Health;Nurse\nFood;Chef\n")
    h = build("taxonomy:tree.csv", ["Nurse", "Chef"], base_dir=tmp_path)
    assert h.labels[-1].tolist() == ["*"] and h.height == 2


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    ("*,a,b\n", "line 1: expected"),
    ("*,a\nx,a\n", "line 2: 'a' already has the parent '\\*'"),
    ("a,b\nb,a\n", "cycle"),
])
def test_bad_files(tmp_path, text, fragment):
    write(tmp_path, text)
    with pytest.raises(HierarchyError, match=fragment):
        build("taxonomy:tree.csv", ["a"], base_dir=tmp_path)


def test_value_missing_from_tree_is_named(tmp_path):
    write(tmp_path, "*,Nurse\n")
    with pytest.raises(HierarchyError, match="no leaf for the value 'Pilot'"):
        build("taxonomy:tree.csv", ["Nurse", "Pilot"], base_dir=tmp_path)


def test_missing_file(tmp_path):
    with pytest.raises(HierarchyError, match="No such taxonomy file"):
        build("taxonomy:nope.csv", ["a"], base_dir=tmp_path)
