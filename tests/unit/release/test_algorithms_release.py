"""Choosing the algorithm: ``anonymize(algorithm=...)``, the config's ``algorithm`` keys,
``veil anonymize --algorithm``; every algorithm's output is verified and reported."""

import json

import pytest
from typer.testing import CliRunner

from veil.anonymization import ALGORITHMS, anonymize
from veil.cli import app
from veil.config import load_config
from veil.datasets import adult_path, load_adult
from veil.errors import ConfigError, ParameterError
from veil.models import DistinctLDiversity, KAnonymity

runner = CliRunner()
QIS = "sex,age,race,marital-status,education,native-country,workclass,occupation"
BASE = f"""
input: {{path: {adult_path()}, sep: ";"}}
attributes:
  sex: {{role: quasi-identifier, hierarchy: {{file: {adult_path('adult_hierarchy_sex.csv')}}}}}
  age: {{role: quasi-identifier, kind: numeric, hierarchy: {{intervals: {{widths: [10, 20]}}}}}}
  salary-class: {{role: sensitive}}
models:
  - {{type: k-anonymity, k: 5}}
"""


def _adult_flags(tmp_path, *extra):
    args = ["anonymize", adult_path(), "--qi", QIS, "--sensitive", "salary-class", "--sep", ";"]
    for q in QIS.split(","):
        args += ["--hierarchy", f"{q}={adult_path(f'adult_hierarchy_{q}.csv')}"]
    return args + list(extra)


def _write_config(tmp_path, text):
    path = tmp_path / "release.yaml"
    path.write_text(text)
    return path
MODELS = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]


def test_datafly_is_verified_and_no_better_than_the_optimum():
    adult = load_adult()
    greedy = anonymize(adult, MODELS, suppression_limit=0.05, algorithm="datafly", seed=1)
    optimal = anonymize(adult, MODELS, suppression_limit=0.05, seed=1)
    assert greedy.report["search"]["algorithm"] == "datafly"
    assert greedy.report["verified"] and greedy.report["achieved"]["k"] >= 5
    assert greedy.report["utility"]["loss"] >= optimal.report["utility"]["loss"] - 1e-12
    assert greedy.report["search"]["nodes_checked"] < optimal.report["search"]["nodes_checked"]


def test_unknown_algorithm_and_options():
    adult = load_adult()
    with pytest.raises(ParameterError, match="'algorithm' parameter must be one of lattice"):
        anonymize(adult, MODELS, algorithm="flash")
    with pytest.raises(ParameterError, match="takes no options"):
        anonymize(adult, MODELS, options={"strict": False})
    assert ALGORITHMS[0] == "lattice"


def test_config_algorithm_keys(tmp_path):
    config = load_config(_write_config(tmp_path, BASE + "algorithm: datafly\n"))
    assert config.algorithm == "datafly"
    with pytest.raises(ConfigError, match="algorithm must be one of lattice, datafly, mondrian, tds, mdav"):
        load_config(_write_config(tmp_path, BASE + "algorithm: flash\n"))
    with pytest.raises(ConfigError, match="algorithm_options: the lattice algorithm takes no options"):
        load_config(_write_config(tmp_path, BASE + "algorithm_options: {strict: false}\n"))
    with pytest.raises(ConfigError, match="label: the tds algorithm needs a class label"):
        load_config(_write_config(tmp_path, BASE + "algorithm: tds\n"))
    with pytest.raises(ConfigError, match="the mdav algorithm aggregates numeric quasi-identifiers; 'sex'"):
        load_config(_write_config(tmp_path, BASE + "algorithm: mdav\n"))


def test_cli_algorithm_flag(tmp_path):
    report = tmp_path / "r.json"
    result = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "--suppression", "0.05", "--algorithm", "datafly",
                                             "--json", str(report), "--seed", "1"))
    assert result.exit_code == 0, result.output
    assert "datafly" in result.output
    assert json.loads(report.read_text())["search"]["algorithm"] == "datafly"
    bad = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "--algorithm", "datafly", "--option", "x=1"))
    assert bad.exit_code == 2 and "takes no options" in bad.output


def test_cli_algorithm_flag_refused_with_a_config(tmp_path):
    path = _write_config(tmp_path, BASE)
    result = runner.invoke(app, ["anonymize", str(path), "--algorithm", "datafly"])
    assert result.exit_code == 2 and "set it in the configuration ('algorithm')" in result.output


def test_missing_sensitive_values_are_verified():
    """Regression: the verification re-encoded the missing-value label twice."""
    import pandas as pd

    from veil.dataset import Dataset
    from veil.hierarchy import Hierarchy
    from veil.models import EqualDistanceTCloseness

    frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", None, "y", "x"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"]).with_hierarchies(
        {"q": Hierarchy.flat(["a", "b"], name="q")})
    result = anonymize(dataset, [KAnonymity(k=2), EqualDistanceTCloseness(sensitive="s", t=1.0)], seed=0)
    assert result.report["verified"] and result.data["s"].isna().sum() == 1


@pytest.mark.parametrize("algorithm,options", [("mondrian", {}), ("mondrian", {"strict": False}), ("tds", {})])
def test_local_recodings_are_verified_and_reported(algorithm, options):
    adult = load_adult()
    result = anonymize(adult, [KAnonymity(k=5)], algorithm=algorithm, options=options, label="salary-class", seed=2)
    report = result.report
    assert report["verified"] and report["achieved"]["k"] >= 5
    assert report["transformation"] == {} and report["search"]["nodes_checked"] is None
    assert report["search"]["nodes_refuted"] is None
    assert 1 <= report["recoding"]["groups"] <= adult.n_records // 5  # every group holds at least k records
    assert report["records_out"] == adult.n_records
    # the released classes are at least k: discernibility >= k * n (no suppression)
    assert report["utility"]["discernibility"] >= 5 * adult.n_records
    assert report["utility"]["loss"] is None
    json.dumps(report)  # JSON-serializable
    # row order is shuffled: the released rows are not aligned with the input
    same = (result.data["salary-class"].to_numpy() == adult.frame["salary-class"].to_numpy()).mean()
    assert same < 0.9


def test_mondrian_figure_and_option_errors():
    adult = load_adult()
    result = anonymize(adult, [KAnonymity(k=10)], algorithm="mondrian", seed=0)
    assert 0 < result.report["utility"]["ncp"] < 1
    assert result.report["utility"]["ncp"] == result.report["recoding"]["details"]["ncp"]
    with pytest.raises(ParameterError, match="Bad option for the mondrian algorithm"):
        anonymize(adult, [KAnonymity(k=10)], algorithm="mondrian", options={"bogus": 1})
    with pytest.raises(ParameterError, match="Level bounds apply to full-domain algorithms"):
        anonymize(adult, [KAnonymity(k=10)], algorithm="mondrian", max_levels={"age": 1})


def test_mdav_on_numeric_quasi_identifier():
    adult = load_adult().with_roles(quasi_identifiers=["age"], sensitive=["salary-class"])
    result = anonymize(adult, [KAnonymity(k=5)], algorithm="mdav", seed=0)
    assert result.report["achieved"]["k"] >= 5
    assert 0 <= result.report["utility"]["sse_sst"] < 0.01
    with pytest.raises(ParameterError, match="mdav algorithm needs a k-anonymity model"):
        anonymize(adult, [DistinctLDiversity(sensitive="salary-class", l=2)], algorithm="mdav")


def test_tds_needs_a_label():
    with pytest.raises(ParameterError, match="needs a class label"):
        anonymize(load_adult(), [KAnonymity(k=5)], algorithm="tds")


def test_cli_mondrian_with_option(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    result = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "--algorithm", "mondrian", "--option", "strict=false",
                                             "-o", str(out), "--json", str(report), "--seed", "1"))
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    assert payload["search"]["algorithm"] == "mondrian" and payload["recoding"]["details"]["strict"] is False
    check = runner.invoke(app, ["check", str(out), "--qi", QIS, "--sensitive", "salary-class", "--require", "k>=5"])
    assert check.exit_code == 0, check.output


def test_cli_html_report_and_config_key(tmp_path):
    html = tmp_path / "r.html"
    result = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "--suppression", "0.05", "--html", str(html)))
    assert result.exit_code == 0, result.output
    assert "<img" in html.read_text() and str(html) in result.output
    config = load_config(_write_config(tmp_path, BASE + "output: {html: out/r.html}\n"))
    from veil.release import run_config

    _, written = run_config(config)
    assert (tmp_path / "out" / "r.html").exists() and written["html"].endswith("r.html")
    refused = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "--html", adult_path()))
    assert refused.exit_code == 2


def test_drop_suppressed_with_input_suppressed_rows():
    """Regression: rows that arrive with '*' in every QI are dropped too, and the row-count
    reconciliation counted only the newly suppressed ones (a false VerificationError)."""
    import pandas as pd

    from veil.dataset import Dataset
    from veil.hierarchy import Hierarchy

    frame = pd.DataFrame({"q": ["a", "a", "b", "b", "*"], "s": ["x", "y", "x", "y", "x"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"]).with_hierarchies(
        {"q": Hierarchy.flat(["a", "b"], name="q")})
    result = anonymize(dataset, [KAnonymity(k=2)], drop_suppressed=True, seed=0)
    report = result.report
    assert report["records_out"] == 4 and report["suppressed_dropped"] == 1 == report["input_suppressed"]


def test_cli_engine_duckdb_matches_in_memory(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    args = ["-k", "5", "-l", "salary-class:2", "--suppression", "0.05", "--seed", "1", "--json", str(report)]
    result = runner.invoke(app, _adult_flags(tmp_path, *args, "--engine", "duckdb", "--suppressed", "keep",
                                             "-o", str(out)))
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    memory = anonymize(load_adult(), MODELS, suppression_limit=0.05, seed=1, suppressed="keep").report
    assert payload["engine"] == "duckdb" and payload["verified"] is True
    assert payload["transformation"] == memory["transformation"] and payload["suppressed"] == memory["suppressed"]
    check = runner.invoke(app, ["check", str(out), "--qi", QIS, "--sensitive", "salary-class", "--require", "k>=5, l>=2"])
    assert check.exit_code == 0, check.output


def test_engine_refusals(tmp_path):
    from veil.release import run_config

    with pytest.raises(ConfigError, match="does not support algorithm: mondrian"):
        run_config(load_config(_write_config(tmp_path, BASE + "engine: duckdb\nalgorithm: mondrian\noutput: {path: o.csv}\n")))
    with pytest.raises(ConfigError, match="output.path: the duckdb engine writes the released table to a file"):
        run_config(load_config(_write_config(tmp_path, BASE + "engine: duckdb\n")))
    with pytest.raises(ConfigError, match="engine: Input should be 'local', 'duckdb' or 'spark'"):
        load_config(_write_config(tmp_path, BASE + "engine: polars\n"))
    assert not (tmp_path / "o.csv").exists()


def test_engine_with_builder_hierarchy(tmp_path):
    """Builders that need the column's values get them from one group-count through the engine."""
    from veil.release import run_config

    keep = "suppressed: keep\nkeep_unlisted: true\n"  # every column published, in memory and by the engine alike
    config = load_config(_write_config(tmp_path, BASE + keep + "engine: duckdb\noutput: {path: o.csv, seed: 1}\n"))
    release, written = run_config(config)
    memory, _ = run_config(load_config(_write_config(tmp_path, BASE + keep + "output: {seed: 1}\n")))
    assert release.report["transformation"] == memory.report["transformation"]
    assert release.report["suppressed"] == memory.report["suppressed"]


def test_engine_release_scans_only_the_head_of_a_parquet_input(tmp_path, monkeypatch):
    """The identifier scan of an engine release reads a sample, never the whole Parquet file
    (pandas.read_parquet of a 100M-row input took 17 GB)."""
    import pandas as pd

    from veil.release import run_config

    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    frame[["sex", "age", "salary-class"]].to_parquet(tmp_path / "adult.parquet", index=False)
    monkeypatch.setattr(pd, "read_parquet", lambda *a, **k: pytest.fail("the whole Parquet file was read"))
    text = BASE.replace(f"input: {{path: {adult_path()}, sep: \";\"}}", f"input: {{path: {tmp_path / 'adult.parquet'}}}")
    config = load_config(_write_config(tmp_path, text + "suppressed: drop\nengine: duckdb\noutput: {path: o.parquet}\n"))
    release, _ = run_config(config)
    assert release.report["verified"] is True and release.report["records"] == len(frame)


def test_a_missing_hierarchy_file_is_refused_before_the_data_is_read(tmp_path, monkeypatch):
    import veil.release
    from veil.errors import HierarchyError
    from veil.release import run_config

    text = BASE.replace("adult_hierarchy_sex.csv", "adult_hierarchy_sexx.csv")
    config = load_config(_write_config(tmp_path, text + "output: {path: o.csv}\n"))
    monkeypatch.setattr(veil.release, "dataset_from_config", lambda *a, **k: pytest.fail("the data was read"))
    with pytest.raises(HierarchyError, match="No such hierarchy file for 'sex'"):
        run_config(config)
    assert not (tmp_path / "o.csv").exists()


def test_engine_release_reports_every_phase(tmp_path):
    # the engine path once reported only the search's node count, so apply and verify
    # (most of a 100M-row run) showed as "search"
    from veil.release import run_config

    keep = "suppressed: drop\nkeep_unlisted: true\n"
    config = load_config(_write_config(tmp_path, BASE + keep + "engine: duckdb\noutput: {path: o.csv}\n"))
    seen = []
    run_config(config, progress=lambda phase, done, total: seen.append(phase))
    assert [p for p in ("encode", "search", "apply", "verify", "write") if p in seen] == [
        "encode", "search", "apply", "verify", "write"]
