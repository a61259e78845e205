"""Run every ``benchmarks/bench_*.py`` in turn (``make bench``).

Each script runs in its own process with the same Python, with a 10-minute
timeout.  Its output is printed as it comes; a failure (non-zero exit or
timeout) is reported and the next script still runs.  Exits non-zero if any
script failed.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

TIMEOUT_S = 600
HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if not scripts:
        print(f"No bench_*.py scripts in {HERE}.", file=sys.stderr)
        return 1
    failed: list[tuple[str, str]] = []
    for script in scripts:
        print(f"=== {script.name} ===", flush=True)
        start = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, str(script)], cwd=HERE.parent, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            failed.append((script.name, f"timed out after {TIMEOUT_S} s"))
            print(f"--- {script.name}: TIMED OUT after {TIMEOUT_S} s", flush=True)
            continue
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            failed.append((script.name, f"exit code {proc.returncode}"))
            print(f"--- {script.name}: FAILED (exit code {proc.returncode}) in {seconds:.1f} s", flush=True)
        else:
            print(f"--- {script.name}: ok in {seconds:.1f} s", flush=True)
        print(flush=True)
    print(f"{len(scripts) - len(failed)} of {len(scripts)} benchmark scripts succeeded.")
    for name, why in failed:
        print(f"  FAILED: {name} ({why})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
