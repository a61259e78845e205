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
whole table: CSV byte for byte (each label escaped once as pandas escapes a
field, the lines joined by Arrow's kernels: no string per row in Python),
Parquet with the same string columns (one row group per chunk).  It writes to the one writer's temporary file
(:meth:`veil.pipeline.Outputs.temporary`), published with the report or not
at all.  Sampling is post-processing of the noisy marginals.
"""

from __future__ import annotations

import csv
import io
import os
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

__all__ = ["CHUNK_ROWS", "expand", "synthetic_chunks", "decode_chunk", "draw", "csv_lines", "ChunkWriter"]

#: Synthetic rows per chunk.
CHUNK_ROWS = 1_000_000

_PARQUET = (".parquet", ".pq")


def expand(drawn: np.ndarray, parts: list[Compressed], rng: np.random.Generator) -> np.ndarray:
    """Compressed codes back to the original codes; a row in a merged ("other") cell gets one of
    the merged codes uniformly at random."""
    out = np.empty(drawn.shape, dtype=np.int64, order="F")
    for j, p in enumerate(parts):
        out[:, j] = np.append(p.support, 0)[drawn[:, j]]  # the "other" cell (last) filled below
        if p.other.size:
            merged = np.flatnonzero(drawn[:, j] == p.support.size)
            out[merged, j] = p.other[rng.integers(0, p.other.size, merged.size)]
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


def _escape(text: str, sep: str) -> str:
    """``text`` as a CSV field exactly as pandas writes it: Python's ``csv`` writer with pandas'
    dialect (minimal quoting, quotes doubled, the line end ``os.linesep``), as the first of two
    fields (a lone empty field would be quoted)."""
    out = io.StringIO()
    csv.writer(out, delimiter=sep, quotechar='"', quoting=csv.QUOTE_MINIMAL, lineterminator=os.linesep,
               doublequote=True).writerow([text, "x"])
    return out.getvalue()[: -len(sep + "x" + os.linesep)]


def csv_lines(table: pa.Table, sep: str) -> pa.Buffer:
    """The rows of ``table`` (dictionary columns) as CSV bytes: each label escaped once, the
    lines joined by Arrow's compute kernels (no string per row in Python)."""
    import pyarrow.compute as pc

    fields = []
    for column in table.columns:
        array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        if not pa.types.is_dictionary(array.type):
            array = pc.dictionary_encode(array)
        end = os.linesep if len(fields) == table.num_columns - 1 else ""  # the line end, with the last field
        labels = pa.array([_escape(str(v), sep) + end for v in array.dictionary.to_pylist()], pa.string())
        fields.append(labels.take(array.indices))
    lines = pc.binary_join_element_wise(*fields, sep)
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset:lines.offset + len(lines) + 1]
    data = lines.buffers()[2]
    if data is None or not len(lines):
        return pa.py_buffer(b"")
    return data.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))


class ChunkWriter:
    """A sink writing decoded chunks to ``path`` (the one writer's temporary file) as
    :func:`veil.data.write_frame` writes a whole table; ``destination`` names the file in errors.
    Use as a context manager (the Parquet footer is written on exit)."""

    def __init__(self, path: str | Path, *, sep: str = ",", destination: str | Path | None = None) -> None:
        self.path, self.sep = Path(path), sep
        self.destination = Path(destination) if destination is not None else self.path
        self._parquet = self.path.suffix.lower() in _PARQUET
        self._handle = None

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
        import pyarrow.parquet as pq

        if self._parquet:
            plain = pa.Table.from_arrays([c.cast(pa.large_string()) for c in table.columns], names=table.column_names)
            if self._handle is None:
                self._handle = pq.ParquetWriter(str(self.path), plain.schema)
            self._handle.write_table(plain)
            return
        first = self._handle is None
        if first:
            self._handle = open(self.path, "wb")
        if table.num_columns < 2:  # pandas writes an empty field of a one-column table as ""
            frame = pd.DataFrame({n: table.column(n).to_pandas().astype(object) for n in table.column_names})
            self._handle.write(frame.to_csv(sep=self.sep, index=False, header=first).encode("utf-8"))
            return
        if first:
            header = self.sep.join(_escape(str(n), self.sep) for n in table.column_names) + os.linesep
            self._handle.write(header.encode("utf-8"))
        if table.num_rows:
            self._handle.write(csv_lines(table, self.sep))

    def close(self) -> None:
        if self._handle is not None:
            try:
                self._handle.close()
            except OSError as exc:
                raise OutputError(f"Cannot write {str(self.destination)!r}: {exc.strerror or exc}.") from None
            self._handle = None
