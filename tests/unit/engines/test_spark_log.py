"""What the Spark driver veil starts prints: errors only, through veil's log configuration
(src/veil/engines/spark-log4j2.properties). Spark's default profile warns on every start with the
machine's host name and address ("Your hostname, vm, resolves to a loopback address ... using
192.0.2.2"), which has no place in anything veil writes."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_a_spark_run_prints_no_warning_and_not_the_machine(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,x\n2,y\n3,x\n")
    done = subprocess.run([sys.executable, "-c", "from veil.cli import main; main()", "risk", str(tmp_path / "t.csv"),
                           "--qi", "a,b", "--engine", "spark"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert " WARN " not in done.stderr and "log4j2-defaults" not in done.stderr
    assert socket.gethostname() not in done.stderr
