"""The bare Arrow and numpy kernels of a one-node release, beside veil's call and ARX (issue #16).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_kernels.py                               # without ARX
    PYTHONPATH=src python benchmarks/bench_kernels.py --arx-build /scratch/arx-build  # alternating with ARX

What is the least a Python tool built on Arrow and numpy could spend on the rows of
``benchmarks/vs_arx`` without suppression?  For one configuration's node (the one veil's search
finds), "kernels" does only the row work of a release at that node, with no search, no check of
the release, no report and no argument checks:

1. ``pyarrow.compute.dictionary_encode`` of the 8 quasi-identifiers and the sensitive column, one
   after another;
2. each quasi-identifier's codes mapped to the node's level (one ``take`` each, through a map made
   from the hierarchy's rows for the column's few distinct values);
3. the classes: the level codes packed into one int64 key, ``pandas.factorize``, ``bincount``;
   the smallest class against k, and for t-closeness the class histograms of the sensitive column
   and their largest distance (equal ground distance) against t; for l-diversity the distinct
   sensitive values per class;
4. the release: a row permutation, then each column as a pandas categorical of the level's labels.

veil's call is ``vs_arx``'s with the search handed that node (``min_levels`` = ``max_levels``).
The three alternate (kernels, veil, ARX when ``--arx-build`` is given), after warm-up; each row
prints the medians of ``--calls`` calls and the ratios to ARX.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
CONFIGS = ("k=2, 0%", "k=5, 0%", "k=10, 0%", "k=5 + distinct 2-diversity, 0%", "k=5 + equal 0.2-closeness, 0%")


class Kernels:
    """The bare row work of a release at one node (see the module's docstring)."""

    def __init__(self, table: pd.DataFrame, adult_dir: Path, qis: list[str], sensitive: str) -> None:
        self.table, self.qis, self.sensitive = table, qis, sensitive
        self.leaf_row: dict[str, dict[str, int]] = {}
        self.level: dict[str, list[tuple[np.ndarray, pd.CategoricalDtype]]] = {}
        for q in qis:  # the hierarchies read once, as a lower bound may: leaf -> row, each level's codes
            rows = pd.read_csv(adult_dir / f"adult_hierarchy_{q}.csv", sep=";", header=None, dtype=str,
                               keep_default_na=False)
            self.leaf_row[q] = {leaf: i for i, leaf in enumerate(rows[0])}
            self.level[q] = []
            for column in rows.columns:
                codes, uniques = pd.factorize(rows[column])
                self.level[q].append((codes.astype(np.int64), pd.CategoricalDtype(uniques)))

    def release(self, node: dict[str, int], k: int, l: int = 0, t: float = -1.0) -> pd.DataFrame:
        import pyarrow as pa
        import pyarrow.compute as pc

        encoded = {c: pc.dictionary_encode(pa.array(self.table[c].array)) for c in [*self.qis, self.sensitive]}
        key = np.zeros(len(self.table), dtype=np.int64)
        levels, dtypes = {}, {}
        for q in self.qis:
            leaf_row = self.leaf_row[q]
            position = np.array([leaf_row[v] for v in encoded[q].dictionary.to_pylist()])
            level_codes, dtype = self.level[q][node[q]]
            codes = level_codes.take(position).take(np.asarray(encoded[q].indices))  # the node's level, per row
            levels[q], dtypes[q] = codes, dtype
            key = key * len(dtype.categories) + codes
        classes, _ = pd.factorize(key)
        sizes = np.bincount(classes)
        ok = sizes.min() >= k
        s = np.asarray(encoded[self.sensitive].indices).astype(np.int64)
        n_s = len(encoded[self.sensitive].dictionary)
        if l or t >= 0:
            hist = np.bincount(classes * n_s + s, minlength=len(sizes) * n_s).reshape(len(sizes), n_s)
            if l:
                ok &= bool(((hist > 0).sum(axis=1) >= l).all())
            if t >= 0:
                overall = np.bincount(s, minlength=n_s) / len(s)
                ok &= bool((0.5 * np.abs(hist / sizes[:, None] - overall).sum(axis=1)).max() <= t)
        if not ok:
            raise AssertionError("the node found by veil's search fails in the bare kernels")
        order = np.random.default_rng(1).permutation(len(self.table))
        out = {q: pd.Categorical.from_codes(levels[q].take(order), dtype=dtypes[q], validate=False)
               for q in self.qis}
        out[self.sensitive] = pd.Categorical.from_codes(
            s.take(order), categories=encoded[self.sensitive].dictionary.to_pylist(), validate=False)
        return pd.DataFrame(out, copy=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-build", type=Path, help="an ARX build made by vs_arx/build_arx.sh (adds ARX)")
    parser.add_argument("--calls", type=int, default=9)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE / "vs_arx"))
    from run import CONFIGS as ALL, Arx, Veil, build  # type: ignore[import-not-found]

    from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path

    adult = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    veil = Veil({"adult": adult})
    kernels = Kernels(adult, Path(adult_path()).parent, list(ADULT_QUASI_IDENTIFIERS), "salary-class")
    arx = Arx(build(None, args.arx_build, False), str(Path(adult_path()).parent)) if args.arx_build else None
    print("| configuration | kernels ms | veil, node given ms | ARX ms | kernels / ARX | veil, node given / ARX |")
    print("|---|---|---|---|---|---|")
    try:
        for name in CONFIGS:
            config = next(c for c in ALL if c.name == name)
            spec = dict(part.split("=", 1) for part in config.spec.split(","))
            t = float(spec["t"].split(":")[1]) if "t" in spec else -1.0
            node = veil.anonymize(config)["node"]
            runs = {"kernels": lambda: _timed(lambda: kernels.release(node, int(spec["k"]), int(spec.get("l", 0)), t)),
                    "veil": lambda: veil.anonymize(config, node=node)["seconds"]}
            if arx is not None:
                command = f"anonymize {config.spec} {adult_path()}"
                runs["arx"] = lambda: arx.ask(command)["seconds"]
            times: dict[str, list[float]] = {tool: [] for tool in runs}
            for tool, run in runs.items():  # warm-up
                run()
            for _ in range(args.calls):
                for tool, run in runs.items():
                    times[tool].append(run() * 1e3)
            med = {tool: statistics.median(values) for tool, values in times.items()}
            a = med.get("arx")
            ratios = (f"{med['kernels'] / a:.2f} | {med['veil'] / a:.2f}" if a else "— | —")
            print(f"| {name} | {med['kernels']:.1f} | {med['veil']:.1f} | {a or float('nan'):.1f} | {ratios} |")
    finally:
        if arx is not None:
            arx.close()


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
