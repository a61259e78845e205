"""Synthetic rows in chunks: drawn, decoded and written a chunk at a time.

A synthesis of N rows never holds N rows: the fitted tree model is sampled
:data:`CHUNK_ROWS` rows at a time (each chunk's counts rounded within the
chunk, see :func:`veil.dp.synthesis._fit.allocate`), each chunk is decoded
to its public labels (dictionary arrays: the codes and the labels, no string
per row) and handed to a *sink*, and counted into a :class:`ClassTally` for
the report.  The chunks, and so the rows, depend only on the model, the
generator and the chunk size, never on where they go: the Python API
(which keeps them) and ``veil synthesize`` (which writes them with
:class:`ChunkWriter`) give the same rows for the same seed.

:class:`ChunkWriter` writes what :func:`veil.data.write_frame` writes for the
whole table: CSV byte for byte (pyarrow's writer when no label or name needs
quoting, else pandas'), Parquet with the same string columns (one row group
per chunk).  It writes to the one writer's temporary file
(:meth:`veil.pipeline.Outputs.temporary`), published with the report or not
at all.  Sampling is post-processing of the noisy marginals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from veil.dp.synthesis._domain import ColumnDomain
from veil.dp.synthesis._fit import TreeModel, sample_tree
from veil.dp.synthesis._mst import Compressed
from veil.dp.synthesis._source import ClassTally
from veil.errors import OutputError

__all__ = ["CHUNK_ROWS", "expand", "synthetic_chunks", "decode_chunk", "draw", "ChunkWriter"]

#: Synthetic rows per chunk.
CHUNK_ROWS = 1_000_000

_PARQUET = (".parquet", ".pq")


def expand(drawn: np.ndarray, parts: list[Compressed], rng: np.random.Generator) -> np.ndarray:
    """Compressed codes back to the original codes; a row in a merged ("other") cell gets one of
    the merged codes uniformly at random."""
    out = np.empty_like(drawn)
    for j, p in enumerate(parts):
        col = drawn[:, j]
        kept = col < p.support.size
        out[kept, j] = p.support[col[kept]]
        out[~kept, j] = p.other[rng.integers(0, max(p.other.size, 1), int((~kept).sum()))] if p.other.size else 0
    return out


def synthetic_chunks(tree: TreeModel, parts: list[Compressed], rows: int, rng: np.random.Generator,
                     chunk_rows: int = CHUNK_ROWS) -> Iterator[np.ndarray]:
    """``rows`` synthetic records (original codes) in chunks of ``chunk_rows`` (at least one
    chunk, empty when ``rows`` is 0)."""
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be at least 1; got {chunk_rows}.")
    start = 0
    while True:
        size = min(chunk_rows, rows - start)
        yield expand(sample_tree(tree, size, rng), parts, rng)
        start += size
        if start >= rows:
            return


def decode_chunk(codes: np.ndarray, domains: list[ColumnDomain]) -> pa.Table:
    """A chunk of codes as an Arrow table of dictionary columns (the public labels)."""
    arrays = [pa.DictionaryArray.from_arrays(pa.array(codes[:, j].astype(np.int32)), pa.array(d.labels, pa.string()))
              for j, d in enumerate(domains)]
    return pa.Table.from_arrays(arrays, names=[d.name for d in domains])


def draw(tree: TreeModel, parts: list[Compressed], domains: list[ColumnDomain], rows: int,
         rng: np.random.Generator, *, chunk_rows: int = CHUNK_ROWS,
         sink: Callable[[pa.Table], None] | None = None, tally: Any = None) -> tuple[np.ndarray | None, Any]:
    """Draw ``rows`` synthetic rows chunk by chunk: each decoded chunk goes to ``sink`` (and is
    dropped), or, without a sink, the codes of all are returned; with ``tally`` (default a
    :class:`ClassTally`) having counted them all."""
    tally = ClassTally([d.size for d in domains]) if tally is None else tally
    kept = []
    for codes in synthetic_chunks(tree, parts, rows, rng, chunk_rows):
        tally.add(codes)
        if sink is None:
            kept.append(codes)
        else:
            sink(decode_chunk(codes, domains))
    return (np.concatenate(kept) if sink is None else None), tally


def _plain(table: pa.Table, sep: str) -> bool:
    """Whether pyarrow writes the bytes pandas would: two or more columns, a one-character
    separator, and no name or label holding the separator, a quote or a line break."""
    if table.num_columns < 2 or len(sep) != 1 or len(set(table.column_names)) != table.num_columns:
        return False
    texts = list(table.column_names)
    for column in table.columns:
        texts += [str(v) for chunk in column.chunks for v in chunk.dictionary.to_pylist()] \
            if pa.types.is_dictionary(column.type) else [str(v) for v in column.to_pylist()]
    return not any(mark in text for text in texts for mark in (sep, '"', "\n", "\r"))


class ChunkWriter:
    """A sink writing decoded chunks to ``path`` (the one writer's temporary file) as
    :func:`veil.data.write_frame` writes a whole table; ``destination`` names the file in errors.
    Use as a context manager (the Parquet footer is written on exit)."""

    def __init__(self, path: str | Path, *, sep: str = ",", destination: str | Path | None = None) -> None:
        self.path, self.sep = Path(path), sep
        self.destination = Path(destination) if destination is not None else self.path
        self._parquet = self.path.suffix.lower() in _PARQUET
        self._handle = None
        self._plain: bool | None = None

    def __enter__(self) -> "ChunkWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, table: pa.Table) -> None:
        try:
            self._write(table)
        except OSError as exc:
            raise OutputError(f"Cannot write {str(self.destination)!r}: {exc.strerror or exc}.") from None

    def _write(self, table: pa.Table) -> None:
        import pyarrow.csv as pa_csv
        import pyarrow.parquet as pq

        if self._parquet:
            plain = pa.Table.from_arrays([c.cast(pa.large_string()) for c in table.columns], names=table.column_names)
            if self._handle is None:
                self._handle = pq.ParquetWriter(str(self.path), plain.schema)
            self._handle.write_table(plain)
            return
        first = self._handle is None
        if first:
            self._plain = _plain(table, self.sep)
            self._handle = open(self.path, "wb")
        if self._plain:
            if first:  # pyarrow quotes a header always; pandas does not
                self._handle.write((self.sep.join(table.column_names) + "\n").encode("utf-8"))
            pa_csv.write_csv(table, self._handle, pa_csv.WriteOptions(include_header=False, delimiter=self.sep,
                                                                       quoting_style="none"))
        else:
            frame = pd.DataFrame({n: table.column(n).to_pandas().astype(object) for n in table.column_names})
            self._handle.write(frame.to_csv(sep=self.sep, index=False, header=first).encode("utf-8"))

    def close(self) -> None:
        if self._handle is not None:
            try:
                self._handle.close()
            except OSError as exc:
                raise OutputError(f"Cannot write {str(self.destination)!r}: {exc.strerror or exc}.") from None
            self._handle = None
