"""Time the foundation: encoding, the class table and ``generalize``.

Run: ``.venv/bin/python benchmarks/bench_core.py``.  Prints a table and writes
``benchmarks/results/core.json``.  Measures, after the data is loaded:

* Adult (30,162 rows, 8 QIs + salary-class): encode + class table (a fresh
  :class:`~veil.dataset.Dataset` per run, since ``Dataset.encode`` caches) and
  class table only (codes already cached); median of 11 runs; target < 50 ms.
* ``ClassTable.generalize(levels)`` from Adult's base class table at every one
  of the 6,480 lattice nodes: median and p90 per call; target median < 2 ms.
  Measured twice: the first sweep fills the base table's per-level column
  cache, the second is warm (what a search sees after its first nodes).
* 1,000,000 rows (Adult replicated; age += a random int in [-2, 2] clipped to
  [17, 90] and ~1% of rows given another native country, seeded): encode +
  class table (median of 3; target < 2 s) and peak memory (target < 1 GiB),
  measured in a fresh child process (``--child-1m``) that reports its own
  ``ru_maxrss`` after the imports, after creating the frame, and after the
  build, so the figure says what it includes.
"""

from __future__ import annotations

import itertools
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.datasets import ADULT_QUASI_IDENTIFIERS, load_adult

RESULTS = Path(__file__).resolve().parent / "results" / "core.json"
N_BIG = 1_000_000
SEED = 20240611
MIB = 1024 * 1024


def maxrss_bytes() -> int:
    """Peak resident set size of this process so far.

    On Linux this is ``VmHWM`` from ``/proc/self/status``: the high-water mark
    of this process image.  ``ru_maxrss`` is not used there because Linux
    carries it over from the parent across ``fork`` + ``exec``, so a child
    started by a big parent would report the parent's peak.  Elsewhere,
    ``ru_maxrss`` (KiB on Linux, bytes on macOS).
    """
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def rss_bytes() -> int | None:
    """Current resident set size (``VmRSS``, Linux only), else None."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def fresh_dataset(frame: pd.DataFrame, hierarchies) -> Dataset:
    return Dataset.from_pandas(
        frame,
        quasi_identifiers=ADULT_QUASI_IDENTIFIERS,
        sensitive=["salary-class"],
        kinds={"age": "numeric"},
    ).with_hierarchies(hierarchies)


def timed(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def big_frame(adult: Dataset) -> pd.DataFrame:
    """Adult replicated to 1,000,000 rows, perturbed so that rows differ.

    Every value stays a leaf of Adult's hierarchies: ages stay in [17, 90]
    (the age hierarchy covers 1..100) and swapped countries are drawn from
    the countries present in Adult.
    """
    frame = adult.frame
    rng = np.random.default_rng(SEED)
    reps = -(-N_BIG // len(frame))
    big = pd.concat([frame] * reps, ignore_index=True).iloc[:N_BIG].copy()
    age = big["age"].astype(int).to_numpy() + rng.integers(-2, 3, size=N_BIG)
    big["age"] = np.clip(age, 17, 90).astype(str)
    countries = np.asarray(sorted(set(frame["native-country"].tolist())), dtype=object)
    swap = rng.random(N_BIG) < 0.01
    country = big["native-country"].to_numpy(dtype=object).copy()
    country[swap] = countries[rng.integers(0, len(countries), size=int(swap.sum()))]
    big["native-country"] = country
    return big


def child_1m() -> None:
    """Fresh process: peak memory of encode + class table on 1M in-memory rows."""
    adult = load_adult()
    after_imports = maxrss_bytes()
    frame = big_frame(adult)
    del adult
    after_frame = maxrss_bytes()
    rss_frame = rss_bytes()
    start = time.perf_counter()
    classes = ClassTable.from_dataset(fresh_dataset(frame, load_adult().hierarchies))
    seconds = time.perf_counter() - start
    after_build = maxrss_bytes()
    print(json.dumps({
        "rows": classes.n_records,
        "classes": classes.n_classes,
        "seconds": seconds,
        "maxrss_after_imports": after_imports,
        "maxrss_after_frame": after_frame,
        "rss_after_frame": rss_frame,
        "maxrss_after_build": after_build,
        "ru_maxrss_after_build": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024),
    }))


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def main() -> int:
    rows: list[tuple[str, str, str, bool | None]] = []
    results: dict[str, object] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "platform": platform.platform(),
    }

    # the memory child runs first, while this process is still small
    child = subprocess.run([sys.executable, __file__, "--child-1m"], capture_output=True, text=True, check=True)
    mem = json.loads(child.stdout.strip().splitlines()[-1])

    # ---------------------------------------------------------------- Adult
    adult = load_adult()
    frame, hierarchies = adult.frame, adult.hierarchies
    for _ in range(2):  # warm up first-call costs
        ClassTable.from_dataset(fresh_dataset(frame, hierarchies))
    enc_build = timed(lambda: ClassTable.from_dataset(fresh_dataset(frame, hierarchies)), 11)
    for name in ADULT_QUASI_IDENTIFIERS + ("salary-class",):
        adult.encode(name)
    build_only = timed(lambda: ClassTable.from_dataset(adult), 11)
    classes = ClassTable.from_dataset(adult)
    eb, bo = statistics.median(enc_build), statistics.median(build_only)
    results["adult"] = {
        "rows": classes.n_records, "classes": classes.n_classes,
        "encode_build_ms_median": eb * 1e3, "encode_build_ms_all": [t * 1e3 for t in enc_build],
        "build_only_ms_median": bo * 1e3, "build_only_ms_all": [t * 1e3 for t in build_only],
        "target_ms": 50,
    }
    rows.append(("Adult encode + class table (median of 11)", "< 50 ms", f"{eb * 1e3:.1f} ms", eb < 0.05))
    rows.append(("Adult class table only (median of 11)", "< 50 ms", f"{bo * 1e3:.1f} ms", bo < 0.05))

    # ---------------------------------------------------------- generalize
    nodes = list(itertools.product(*(range(h.height + 1) for h in classes.hierarchies)))
    sweeps = {}
    for sweep in ("cold", "warm"):
        times = []
        for node in nodes:
            start = time.perf_counter()
            classes.generalize(node)
            times.append(time.perf_counter() - start)
        sweeps[sweep] = times
    # a sweep that also materialises the (lazy) codes of each node
    with_codes = []
    for node in nodes:
        start = time.perf_counter()
        classes.generalize(node).codes
        with_codes.append(time.perf_counter() - start)
    gen = {}
    for label, times in (("cold", sweeps["cold"]), ("warm", sweeps["warm"]), ("warm_with_codes", with_codes)):
        gen[label] = {
            "median_ms": statistics.median(times) * 1e3,
            "p90_ms": pct(times, 90) * 1e3,
            "max_ms": max(times) * 1e3,
            "total_s": sum(times),
        }
    results["generalize"] = {"nodes": len(nodes), "target_median_ms": 2, **gen}
    for label, text in (("cold", "first sweep"), ("warm", "second sweep"), ("warm_with_codes", "+ .codes")):
        g = gen[label]
        rows.append((f"generalize, {len(nodes):,} nodes, {text}: median / p90", "median < 2 ms",
                     f"{g['median_ms']:.2f} / {g['p90_ms']:.2f} ms", g["median_ms"] < 2))

    # ------------------------------------------------------------- 1M rows
    big = big_frame(adult)
    big_times = []
    big_classes = None
    for _ in range(3):
        start = time.perf_counter()
        big_classes = ClassTable.from_dataset(fresh_dataset(big, hierarchies))
        big_times.append(time.perf_counter() - start)
    bt = statistics.median(big_times)
    del big
    peak = mem["maxrss_after_build"]
    results["rows_1m"] = {
        "rows": big_classes.n_records, "classes": big_classes.n_classes,
        "encode_build_s_median": bt, "encode_build_s_all": big_times, "target_s": 2,
        "child": mem, "target_peak_bytes": 1 << 30,
        "peak_over_imports_bytes": peak - mem["maxrss_after_imports"],
        "peak_over_frame_bytes": peak - mem["maxrss_after_frame"],
        "peak_over_resident_frame_bytes": (peak - mem["rss_after_frame"]) if mem.get("rss_after_frame") else None,
    }
    rows.append((f"1M rows ({big_classes.n_classes:,} classes): encode + class table (median of 3)",
                 "< 2 s", f"{bt:.2f} s", bt < 2))
    rows.append(("1M rows: peak RSS of the whole child process", "< 1 GiB",
                 f"{peak / MIB:.0f} MiB", peak < 1 << 30))
    rows.append(("1M rows: peak minus RSS after imports (frame + build)", "",
                 f"{(peak - mem['maxrss_after_imports']) / MIB:.0f} MiB", None))
    if mem.get("rss_after_frame"):
        rows.append(("1M rows: peak minus resident RSS after frame (build)", "",
                     f"{(peak - mem['rss_after_frame']) / MIB:.0f} MiB", None))
    rows.append(("1M rows: peak minus peak after frame (build beyond frame's peak)", "",
                 f"{(peak - mem['maxrss_after_frame']) / MIB:.0f} MiB", None))

    # ---------------------------------------------------------------- print
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'target':<14}  {'measured':<18}  ok")
    print("-" * (width + 42))
    for name, target, measured, ok in rows:
        flag = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:<{width}}  {target:<14}  {measured:<18}  {flag}")
    resident = mem.get("rss_after_frame")
    print(f"(child process peak RSS: after imports {mem['maxrss_after_imports'] / MIB:.0f} MiB, "
          f"after creating the frame {mem['maxrss_after_frame'] / MIB:.0f} MiB"
          + (f" (resident then: {resident / MIB:.0f} MiB)" if resident else "")
          + f", after the build {peak / MIB:.0f} MiB)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    if "--child-1m" in sys.argv[1:]:
        child_1m()
    else:
        sys.exit(main())
