"""The Data page: open the bundled Adult, an upload or a workspace file; the columns table shows counts only."""

from __future__ import annotations

from veil.datasets import load_adult


def test_open_adult_shows_every_column_with_counts_and_no_value(web):
    client, app = web
    page = client.post(f"/open/adult?csrf={client.csrf}")
    assert page.status_code == 200
    adult = load_adult().frame
    for column in adult.columns:
        assert f'data-column="{column}"' in page.text
    assert ">2<" in page.text  # sex has 2 distinct values
    for value in ("Never-married", "Bachelors", "Private"):  # values are never shown unasked
        assert value not in page.text


def test_upload_opens_the_file_and_keeps_it_in_the_private_workspace(web, tmp_path):
    client, app = web
    body = "name,age,zip\nAnn,34,12345\nBob,45,12346\n"
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", body.encode())})
    assert page.status_code == 200 and 'data-column="zip"' in page.text
    assert (app.state.workspace.root / "people.csv").read_text() == body
    assert (app.state.workspace.root.stat().st_mode & 0o777) == 0o700
