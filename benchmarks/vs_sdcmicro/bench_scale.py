"""veil alone at scale (issue 34's targets): individual risk with weights on 1M records, and SUDA2 on a
10M-row Parquet file whose rows DuckDB groups (the search reads only the class table).

    .venv/bin/python benchmarks/vs_sdcmicro/bench_scale.py [--rows 10000000] [--scratch /tmp]

Individual risk: Adult's 8 keys repeated to 1M records, random weights in [1, 300).  SUDA2: each key
drawn independently from its distribution in Adult (so the big file has sample uniques to find; Adult
repeated would have none).  Wall and CPU seconds; noisy.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

KEYS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--scratch", type=Path, default=Path("/tmp"))
    args = parser.parse_args()
    from veil.classes import ClassTable
    from veil.dataset import Dataset
    from veil.datasets import load_adult
    from veil.engines import class_table
    from veil.risk import individual_risk, suda2

    adult = load_adult().frame[KEYS]
    million = pd.concat([adult] * (1_000_000 // len(adult) + 1), ignore_index=True).iloc[:1_000_000].copy()
    million["w"] = np.random.default_rng(0).uniform(1, 300, len(million))
    dataset = Dataset.from_pandas(million, quasi_identifiers=KEYS)
    _, wall, cpu = timed(lambda: individual_risk(dataset, weight="w"))
    out = {"individual_risk_1m": {"wall_s": wall, "cpu_s": cpu, "encoded_before": False}}
    _, wall, cpu = timed(lambda: individual_risk(dataset, weight="w"))
    out["individual_risk_1m_encoded"] = {"wall_s": wall, "cpu_s": cpu}
    parquet = args.scratch / f"adult_{args.rows}.parquet"
    if not parquet.exists():
        rng = np.random.default_rng(1)
        big = pd.DataFrame({name: pd.Categorical(rng.choice(adult[name].to_numpy(), size=args.rows))
                            for name in KEYS})
        big.to_parquet(parquet, index=False)
        del big
    table, wall, cpu = timed(lambda: class_table(parquet, KEYS, engine="duckdb"))
    out["duckdb_class_table"] = {"rows": args.rows, "classes": table.n_classes, "wall_s": wall, "cpu_s": cpu}
    for size in (4, None):
        _, wall, cpu = timed(lambda: suda2(table, max_size=size))
        out[f"suda2_max_{size or 'all'}"] = {"wall_s": wall, "cpu_s": cpu}
    assert isinstance(table, ClassTable)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
