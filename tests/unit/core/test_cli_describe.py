from typer.testing import CliRunner

from veil import __version__
from veil.cli import app

runner = CliRunner()


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_describe_adult():
    result = runner.invoke(app, ["describe", "src/veil/datasets/data/adult/adult.csv"])
    assert result.exit_code == 0, result.output
    assert "30,162 rows" in result.output and "numeric" in result.output


def test_describe_ragged_file(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n3\n")
    result = runner.invoke(app, ["describe", str(path)])
    assert result.exit_code == 2
    assert "line 3" in result.output
