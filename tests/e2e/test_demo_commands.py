"""``veil demo`` prints next commands; each one, pasted as printed, must work."""

import os
import re
import shlex
import subprocess
import sys

import pytest

#: The ``veil`` script, run with this interpreter (and the PYTHONPATH the tests run under).
VEIL = [sys.executable, "-c", "from veil.cli import main; main()"]
_COMMAND = re.compile(r"(?:^|[:$>]\s+)(veil\s+[a-z][a-z-]*(?=\s|$).*?)\s*$")


def veil(*args, cwd):
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}  # a narrow, non-terminal console, as when piped
    return subprocess.run([*VEIL, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_printed_next_commands_work_when_pasted(tmp_path):
    demo = veil("demo", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    commands = [m.group(1) for line in demo.stdout.splitlines() if (m := _COMMAND.search(line))]
    assert commands, f"veil demo printed no next command:\n{demo.stdout}"
    for command in commands:
        words = shlex.split(command)  # as a POSIX shell would split the pasted line
        assert words[0] == "veil"
        run = veil(*words[1:], cwd=tmp_path)
        assert run.returncode == 0, f"{command!r} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
        assert "Traceback" not in run.stderr
