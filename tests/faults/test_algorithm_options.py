"""Fault corpus: a bad algorithm option, on the command line (``--option KEY=VALUE``) and in a
configuration (``algorithm_options``), for every algorithm that takes options (issue #37 item 4).

Each is refused before anything is read or written, with the same one line on both paths naming
the option, what it must be and the value given. Before the options were declared in the registry,
``--option seed=-1`` (mondrian) and ``--option importance=3`` (local-suppression) ended in a
traceback, and the others were refused with a different message per algorithm (or only once the
rows were read).
"""

from __future__ import annotations

import pytest

from .conftest import CONFIG

# the corpus's configuration with its QIs only (no sensitive column) and SafePub's model and settings
DP_CONFIG = CONFIG[:CONFIG.index("  disease:")] + """models:
  - {{type: dp, epsilon: 2, delta: 0.001}}
suppression_limit: 1
suppressed: drop
{extra}
"""

MDAV_CONFIG = """\
input: {{path: data.csv, sep: ","}}
attributes:
  name: {{role: identifier}}
  age: {{role: quasi-identifier, kind: numeric}}
models:
  - {{type: k-anonymity, k: 3}}
{extra}
"""

#: (algorithm, option as --option gives it, as algorithm_options gives it, the line's words)
CASES = [
    ("mondrian", "seed=-1", "{seed: -1}", "The 'seed' option of mondrian must be an int in [0, inf). Got -1 instead."),
    ("mondrian", "strict=maybe", "{strict: maybe}", "The 'strict' option of mondrian must be a bool. Got 'maybe' instead."),
    ("mondrian", "bogus=1", "{bogus: 1}",
     "Bad option for the mondrian algorithm: 'bogus' is not one of its options (strict, categorical, seed)."),
    ("tds", "max_iterations=-1", "{max_iterations: -1}",
     "The 'max_iterations' option of tds must be an int in [0, inf). Got -1 instead."),
    ("tds", "score=gain", "{score: gain}",
     "The 'score' option of tds must be one of {'infogain', 'infogain/anonyloss'}. Got 'gain' instead."),
    ("mdav", "standardize=3", "{standardize: 3}", "The 'standardize' option of mdav must be a bool. Got 3 instead."),
    ("local-suppression", "importance=3", "{importance: 3}",
     "The 'importance' option of local-suppression must be a list of str (or one text, comma-separated). Got 3 instead."),
    ("local-suppression", "combs=0", "{combs: 0}",
     "The 'combs' option of local-suppression must be a list of int in [1, inf) (or one text, comma-separated). "
     "Got 0 instead."),
    ("safepub", "steps=0", "{steps: 0}", "The 'steps' option of safepub must be an int in [1, inf). Got 0 instead."),
    ("safepub", "walk_share=2", "{walk_share: 2}",
     "The 'walk_share' option of safepub must be a float in (0, 1]. Got 2 instead."),
]


def _flags(ws, algorithm: str, option: str) -> list[str]:
    hierarchies = [a for name, file in ws.hierarchies.items() for a in ("--hierarchy", f"{name}={file}")]
    if algorithm == "safepub":
        return ["anonymize", str(ws.data), "--qi", "zip,age,sex", "--identifier", "name", "--kind", "age=numeric",
                *hierarchies, "--epsilon", "2", "--delta", "0.001", "--suppression", "1", "--algorithm", "safepub",
                "--option", option, "-o", str(ws.out / "r.csv")]
    if algorithm == "mdav":
        return ["anonymize", str(ws.data), "--qi", "age", "--kind", "age=numeric", "--identifier", "name", "-k", "3",
                "--algorithm", "mdav", "--option", option, "-o", str(ws.out / "r.csv")]
    extra = ["--label", "note"] if algorithm == "tds" else []
    return [*ws.flags("--algorithm", algorithm, "--option", option, "-o", str(ws.out / "r.csv")), *extra]


def _config(ws, algorithm: str, options: str):
    extra = f"algorithm: {algorithm}\nalgorithm_options: {options}\noutput: {{path: out/r.csv}}\n"
    if algorithm == "tds":
        extra += "label: note\n"
    template = {"safepub": DP_CONFIG, "mdav": MDAV_CONFIG}.get(algorithm, CONFIG)
    return ws.write_config(text=template.format(extra=extra))


@pytest.mark.parametrize(("algorithm", "flag", "options", "line"), CASES)
def test_a_bad_option_is_one_line_the_same_from_the_flags_and_the_configuration(ws, faults, algorithm, flag, options,
                                                                                 line):
    before = faults.snapshot(ws.folder)
    by_flags = faults.invoke(*_flags(ws, algorithm, flag))
    faults.assert_refused(by_flags, before, faults.snapshot(ws.folder), line)
    config = _config(ws, algorithm, options)
    before = faults.snapshot(ws.folder)
    by_config = faults.invoke("anonymize", config)
    faults.assert_refused(by_config, before, faults.snapshot(ws.folder), line)
    assert by_flags.stderr.strip() == by_config.stderr.strip() == f"error: {line}"
