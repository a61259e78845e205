"""The Evaluate page: ``veil split``'s hold-out and ``veil evaluate``'s attacks on workspace files,
the same figures as the CLI with the same seed; refusals are one line."""

from __future__ import annotations

import json
import re

import pandas as pd
from typer.testing import CliRunner

from veil.cli import app as cli


def _people(n=400):
    return "age,sex,town,job,income\n" + "".join(
        f"{20 + i % 40},{'FM'[i % 2]},{'ABCD'[i % 4]},{'xyz'[i % 3]},{(i * 37) % 1009}\n" for i in range(n))


def _setup(client, app):
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", _people().encode())})
    page = client.post(f"/evaluate/split?csrf={client.csrf}", data={"source": "people.csv", "share": "0.25",
                                                                    "seed": "4"})
    assert page.status_code == 200 and 'id="split-done"' in page.text
    root = app.state.workspace.root
    train = pd.read_csv(root / "people-release-from.csv")
    held = pd.read_csv(root / "people-control.csv")
    assert (len(train), len(held)) == (300, 100)
    release = train.assign(income=train["income"] + train.index % 5 - 2)  # a perturbed release of the training part
    app.state.workspace.write_bytes("release.csv", release.to_csv(index=False).encode())
    return root


def test_split_equals_veil_split_with_the_same_seed(web, tmp_path):
    client, app = web
    root = _setup(client, app)
    run = CliRunner().invoke(cli, ["split", str(root / "people.csv"), "--control", "0.25", "--seed", "4",
                                   "-o", str(tmp_path / "a.csv"), "--control-out", str(tmp_path / "b.csv")])
    assert run.exit_code == 0, run.output
    assert (root / "people-release-from.csv").read_bytes() == (tmp_path / "a.csv").read_bytes()
    assert (root / "people-control.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_attacks_equal_veil_evaluate_with_the_same_seed(web, tmp_path):
    client, app = web
    root = _setup(client, app)
    page = client.get("/evaluate")
    chosen = {name: re.search(rf'id="eval-{name}">.*?<option selected>([^<]+)<', page.text, re.S).group(1)
              for name in ("original", "release", "control")}
    assert chosen == {"original": "people.csv", "release": "release.csv", "control": "people-control.csv"}
    answer = client.post(f"/evaluate/run?csrf={client.csrf}", follow_redirects=False, data={
        "original": "people-release-from.csv", "release": "release.csv", "control": "people-control.csv",
        "attacks": ["singling-out", "linkability", "inference"], "n_attacks": "60", "seed": "7",
        "secret": ["job"]})
    assert answer.status_code == 303
    assert app.state.jobs.wait(300).status == "done", app.state.jobs.job.error
    page = client.get("/evaluate")
    out = tmp_path / "e.json"
    run = CliRunner().invoke(cli, ["evaluate", str(root / "people-release-from.csv"), str(root / "release.csv"),
                                   "--control", str(root / "people-control.csv"), "--attacks",
                                   "singling-out,linkability,inference", "--n-attacks", "60", "--seed", "7",
                                   "--secret", "job", "--json", str(out)])
    assert run.exit_code == 0, run.output
    expected = json.loads(out.read_text())
    assert json.loads((root / "evaluation.json").read_text()) == expected
    names = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">", page.text)
    assert names == ["singling out, univariate", "singling out, multivariate", "linkability", "inference of job"]
    risk = expected["linkability"]["risk"]
    assert f"{100 * risk:.1f}%" in page.text
    assert client.get("/evaluate/download/evaluation.html").status_code == 200


def test_refusals_are_one_line(web):
    client, app = web
    _setup(client, app)
    for data, message in [
        ({"original": "people.csv", "release": "release.csv"}, "error: --attacks needs at least one of"),
        ({"original": "people.csv", "release": "people.csv", "attacks": ["linkability"]},
         "error: the release and the original are the same file"),
        ({"original": "people.csv", "release": "../etc/passwd", "attacks": ["linkability"]},
         "is not a plain file name"),
        ({"original": "people.csv", "release": "gone.csv", "attacks": ["linkability"]},
         "error: no file &#39;gone.csv&#39; in the workspace."),
    ]:
        answer = client.post(f"/evaluate/run?csrf={client.csrf}", data=data)
        assert answer.status_code == 400 and message in answer.text, (data, answer.text[-600:])
    assert app.state.jobs.job is None


ROLES = {"age": {"role": "quasi-identifier", "kind": "numeric", "hierarchy": {"spec": "interval:5,10,20"}},
         "sex": {"role": "quasi-identifier", "hierarchy": {"spec": "auto"}},
         "town": {"role": "quasi-identifier", "hierarchy": {"spec": "auto"}},
         "job": {"role": "sensitive"}}


def test_a_run_s_release_is_matched_through_its_hierarchies_as_veil_evaluate_does(web, tmp_path):
    """A k-anonymous release made on the Run page, evaluated with its report and its run's hierarchies: the
    figures of `veil evaluate --report --hierarchy` given the same hierarchies as files (the
    Hierarchies page's downloads) and the same seed."""
    client, app = web
    root = _setup(client, app)
    workspace = app.state.workspace
    workspace.state.data = "people-release-from.csv"
    workspace.state.config = {"attributes": ROLES}
    # the 40 combinations of age, sex and town hold 7 or 8 records each: k=10 generalizes
    saved = client.post(f"/models?csrf={client.csrf}", data={"model": ["k-anonymity"], "k-anonymity.k": "10",
                                                              "suppression": "5", "metric": "loss",
                                                              "algorithm": "lattice"})
    assert saved.status_code == 200 and saved.url.path == "/run"
    assert client.post(f"/run/start?csrf={client.csrf}", follow_redirects=False).status_code == 303
    assert app.state.jobs.wait(300).status == "done", app.state.jobs.job.error
    report = json.loads((root / "run-1-report.json").read_text())
    assert report["transformation"] and any(level > 0 for level in report["transformation"].values())
    page = client.get("/evaluate")
    chosen = {name: re.search(rf'id="eval-{name}">.*?<option selected>([^<]+)<', page.text, re.S).group(1)
              for name in ("release", "report")}
    assert chosen == {"release": "run-1-release.csv", "report": "run-1-report.json"}
    answer = client.post(f"/evaluate/run?csrf={client.csrf}", follow_redirects=False, data={
        "original": "people-release-from.csv", "release": "run-1-release.csv", "control": "people-control.csv",
        "report": "run-1-report.json", "attacks": ["linkability", "inference", "linkage"],
        "n_attacks": "60", "seed": "7"})
    assert answer.status_code == 303
    assert app.state.jobs.wait(300).status == "done", app.state.jobs.job.error
    web_result = json.loads((root / "evaluation.json").read_text())
    assert web_result["parameters"]["generalized_by"] == "hierarchies"
    files = []
    for qi in ("age", "sex", "town"):
        csv = client.get(f"/hierarchies/{qi}.csv")
        assert csv.status_code == 200
        (tmp_path / f"{qi}.csv").write_bytes(csv.content)
        files += ["--hierarchy", f"{qi}={tmp_path / f'{qi}.csv'}"]
    out = tmp_path / "e.json"
    run = CliRunner().invoke(cli, ["evaluate", str(root / "people-release-from.csv"), str(root / "run-1-release.csv"),
                                   "--control", str(root / "people-control.csv"), "--report",
                                   str(root / "run-1-report.json"), *files, "--attacks",
                                   "linkability,inference,linkage", "--n-attacks", "60", "--seed", "7",
                                   "--json", str(out)])
    assert run.exit_code == 0, run.output
    assert web_result == json.loads(out.read_text())
    assert web_result["parameters"]["aux"] == ["age", "sex", "town"] and "job" in web_result["inference"]
    assert "matched to what they cover through the run" in client.get("/evaluate").text
