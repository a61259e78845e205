"""The persistent budget ledger: one file-locked, journaled record of every spend.

Files (``PATH`` is the ledger path, e.g. ``--budget-file budget.json``)
------------------------------------------------------------------------
``PATH.journal``
    The append-only journal, one JSON object per line (keys sorted, no
    spaces).  Every line has ``seq`` (0, 1, 2, ...), ``prev`` (the SHA-256 of
    the previous line's bytes; 64 zeros for the first), ``time`` (UTC, ISO
    8601), ``dataset`` (the dataset key) and ``event``: ``"open"`` (with
    ``budget`` ``{epsilon, delta}``, ``composition`` and ``delta_slack``) or
    ``"spend"`` (with ``cost`` ``{kind: "dp", epsilon, delta}`` or
    ``{kind: "zcdp", rho, delta}`` and ``query``).  It is the authority.
``PATH``
    The index (JSON, rewritten through :class:`veil.pipeline.Outputs`):
    ``format``, ``version``, ``entries`` (journal lines written so far) and
    ``head`` (SHA-256 of the last of them), plus a readable summary per
    dataset.  It anchors the journal: a journal shorter than ``entries`` or
    whose line ``entries - 1`` does not hash to ``head`` was truncated or
    edited.
``PATH.lock``
    An empty file that ``fcntl.flock`` locks around every read-check-write.

Every check is an error, never a fresh budget: a journal line that does not
parse, a broken checksum chain, a journal shorter than the index says, a
missing journal while the index records entries.  (A journal longer than the
index is accepted: a crash between the journal's fsync and the index's
rename leaves one spend more in the journal, which errs on the safe side.)

Who may write the ledger
------------------------
Only the data curator.  Whoever can write these files can delete both and
start over: the ledger protects against concurrent and repeated runs, crashes
and accidental edits, not against its own administrator.  Keep it where
analysts cannot write (file permissions; ``chattr +a`` on the journal; a
backup of both files).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

from veil.dp._budget import PrivacyBudget, ZCDPBudget
from veil.errors import DataFormatError, ParameterError

__all__ = ["BudgetLedger", "LedgerError", "dataset_fingerprint"]

_FORMAT = "veil-budget-ledger"
_VERSION = 2
_ZERO = "0" * 64
_THREAD_LOCKS: dict[str, threading.RLock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


class LedgerError(DataFormatError):
    """The budget ledger is damaged, missing a part, or a spend could not be saved."""


def dataset_fingerprint(frame: pd.DataFrame) -> str:
    """A canonical key of a table's records: ``"sha256:<hex>"``.

    The SHA-256 of the sorted column names and of the sorted 64-bit hashes of
    the rows (pandas' ``hash_pandas_object`` over the columns in sorted
    order).  It does not change with the row order, the column order, blank
    lines, line endings, a trailing newline or the file's name, because it
    sees only the parsed records; it changes when any value does.

    Examples
    --------
    >>> a = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    >>> dataset_fingerprint(a) == dataset_fingerprint(a.iloc[::-1][["y", "x"]])
    True
    """
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        raise ParameterError("The table has two columns with the same name; rename one.")
    order = sorted(range(len(names)), key=names.__getitem__)
    table = frame.iloc[:, order].copy()
    table.columns = [names[i] for i in order]
    rows = pd.util.hash_pandas_object(table, index=False).to_numpy(dtype=np.uint64)
    digest = hashlib.sha256(json.dumps(table.columns.tolist()).encode("utf-8"))
    digest.update(np.sort(rows).astype("<u8").tobytes())
    return "sha256:" + digest.hexdigest()


def _cost_json(cost: PrivacyBudget | ZCDPBudget) -> dict:
    if isinstance(cost, ZCDPBudget):
        return {"kind": "zcdp", "rho": cost.rho, "delta": cost.delta}
    return {"kind": "dp", "epsilon": cost.epsilon, "delta": cost.delta}


def _cost_of(data: Any, where: str) -> PrivacyBudget | ZCDPBudget:
    try:
        if data["kind"] == "zcdp":
            return ZCDPBudget(rho=data["rho"], delta=data["delta"])
        if data["kind"] == "dp":
            return PrivacyBudget(epsilon=data["epsilon"], delta=data["delta"])
    except (KeyError, TypeError, ValueError):
        pass
    raise LedgerError(f"The budget journal is damaged: {where} has no valid cost.")


def _apply_event(datasets: dict[str, dict], event: dict, line: int) -> None:
    """Add one journal event (an ``open`` or a ``spend``) to the per-dataset state."""
    key = event.get("dataset")
    if event.get("event") == "open" and key not in datasets:
        budget = event.get("budget") or {}
        try:
            total = PrivacyBudget(epsilon=budget["epsilon"], delta=budget["delta"])
        except (KeyError, TypeError, ValueError):
            raise LedgerError(f"The budget journal is damaged: line {line} has no valid budget.") from None
        datasets[key] = {"budget": total, "composition": event.get("composition", "basic"),
                         "delta_slack": event.get("delta_slack"), "costs": []}
    elif event.get("event") == "spend" and key in datasets:
        datasets[key]["costs"].append((_cost_of(event.get("cost"), f"line {line}"), str(event.get("query", ""))))
    else:
        raise LedgerError(f"The budget journal is damaged: line {line} is not a valid open or spend event.")


class _Transaction:
    """The verified spends of one dataset, and the append that records a new one."""

    def __init__(self, ledger: BudgetLedger, dataset: str, state: dict) -> None:
        self._ledger, self._dataset, self._state = ledger, dataset, state
        self.header = state["datasets"].get(dataset)
        self.costs = [] if self.header is None else list(self.header["costs"])

    def append(self, cost: PrivacyBudget | ZCDPBudget, label: str) -> None:
        """Journal and fsync the spend, then rewrite the index."""
        self._ledger.append_event(self._state, {"dataset": self._dataset, "event": "spend",
                                                "cost": _cost_json(cost), "query": label})
        self.costs.append((cost, label))


class BudgetLedger:
    """A persistent, file-locked and journaled record of the budget spent per dataset.

    Parameters
    ----------
    path : str or path
        The index file; the journal is ``path + ".journal"`` and the lock
        ``path + ".lock"`` (see the module notes for the format).

    Notes
    -----
    Each transaction holds a per-path :class:`threading.RLock` and an
    exclusive ``fcntl.flock`` on the lock file, reads and verifies the whole
    journal, and (for a spend) appends one line, fsyncs the journal (and its
    folder when it was just created), then rewrites the index through
    :class:`veil.pipeline.Outputs` (fsync and atomic rename).  A spend that
    cannot be saved raises :class:`LedgerError`, before any answer exists.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().absolute()
        self.journal = self.path.with_name(self.path.name + ".journal")
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        with _THREAD_LOCKS_GUARD:
            self._thread_lock = _THREAD_LOCKS.setdefault(str(self.path), threading.RLock())

    # -- locking and loading -------------------------------------------------
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            if not self.lock_path.exists():
                # a file that is not a ledger is refused before its lock is made beside it (the
                # index is replaced atomically, so reading it unlocked sees a whole version)
                self._read_index()
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as exc:
                raise LedgerError(f"Cannot open the budget ledger's lock {str(self.lock_path)!r}: "
                                  f"{exc.strerror}. No answer was given.") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing releases the flock

    def _read_index(self) -> dict | None:
        if not self.path.exists():
            return None
        try:
            index = json.loads(self.path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise LedgerError(f"The budget ledger {str(self.path)!r} is corrupted (not valid JSON); restore it "
                              "from a backup. veil will not guess what was spent.") from None
        if not isinstance(index, dict) or index.get("format") != _FORMAT:
            raise LedgerError(
                f"The budget ledger {str(self.path)!r} is corrupted or not a {_FORMAT} version "
                f"{_VERSION} file (an older veil's budget file has no journal); keep it for the record and give a "
                "new --budget-file path. veil will not guess what was spent.")
        if not isinstance(index.get("entries"), int) or not isinstance(index.get("head"), str):
            raise LedgerError(f"The budget ledger {str(self.path)!r} has no valid 'entries'/'head'.")
        return index

    def _read_journal(self) -> tuple[list[dict], list[str]]:
        if not self.journal.exists():
            return [], []
        raw = self.journal.read_bytes()
        if raw and not raw.endswith(b"\n"):
            raise LedgerError(f"The budget journal {str(self.journal)!r} ends in an incomplete line "
                              "(truncated, or a crash while writing); restore it from a backup.")
        events, hashes, prev = [], [], _ZERO
        for seq, line in enumerate(raw.splitlines()):
            try:
                event = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                event = None
            if not isinstance(event, dict) or event.get("seq") != seq or event.get("prev") != prev:
                raise LedgerError(f"The budget journal {str(self.journal)!r} is damaged at line "
                                  f"{seq + 1}: its checksum chain is broken (edited, reordered or "
                                  "truncated). Restore it from a backup.")
            prev = hashlib.sha256(line).hexdigest()
            events.append(event)
            hashes.append(prev)
        return events, hashes

    def _load(self) -> dict:
        index = self._read_index()
        events, hashes = self._read_journal()
        if index is not None and index["entries"] > 0:
            n = index["entries"]
            if not self.journal.exists():
                raise LedgerError(f"The budget journal {str(self.journal)!r} is missing, but the "
                                  f"ledger records {n} entries; restore it from a backup.")
            if len(events) < n or hashes[n - 1] != index["head"]:
                raise LedgerError(f"The budget journal {str(self.journal)!r} does not match its "
                                  f"index (the index records {n} entries): it was truncated or "
                                  "edited. Restore it from a backup.")
        datasets: dict[str, dict] = {}
        for seq, event in enumerate(events):
            _apply_event(datasets, event, seq + 1)
        return {"entries": len(events), "head": hashes[-1] if hashes else _ZERO,
                "datasets": datasets}

    # -- writing ---------------------------------------------------------------
    def append_event(self, state: dict, event: dict) -> None:
        """Append ``event`` to the journal (fsynced), then rewrite the index.

        Call only inside :meth:`transaction` (under the locks) with its state.
        """
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds")
        record = {**event, "seq": state["entries"], "prev": state["head"], "time": now}
        line = json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()
        created = not self.journal.exists()
        try:
            fd = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            if created:
                folder = os.open(self.journal.parent, os.O_RDONLY)
                try:
                    os.fsync(folder)
                finally:
                    os.close(folder)
        except OSError as exc:
            raise LedgerError(f"Cannot save the spend in {str(self.journal)!r}: {exc.strerror}. "
                              "No answer was given.") from None
        _apply_event(state["datasets"], record, state["entries"] + 1)  # the index's summary includes it
        state["entries"] += 1
        state["head"] = hashlib.sha256(line).hexdigest()
        self._write_index(state)

    def _write_index(self, state: dict) -> None:
        from veil.errors import OutputError
        from veil.pipeline import Outputs

        summary = {key: {"budget": {"epsilon": h["budget"].epsilon, "delta": h["budget"].delta},
                         "composition": h["composition"], "spends": len(h["costs"])}
                   for key, h in state["datasets"].items()}
        index = {"format": _FORMAT, "version": _VERSION, "journal": self.journal.name,
                 "entries": state["entries"], "head": state["head"], "datasets": summary}
        try:
            with Outputs({"ledger": self.path}, inputs=[self.journal]) as out:
                out.write_json("ledger", index)
                out.commit()
        except (OutputError, OSError) as exc:
            raise LedgerError(f"Cannot save the budget ledger {str(self.path)!r}: {exc}. "
                              "No answer was given.") from None

    @contextlib.contextmanager
    def transaction(self, dataset: str) -> Iterator[_Transaction]:
        """Lock the ledger, load and verify it, and yield ``dataset``'s spends.

        Not re-entrant within one thread (the file lock would wait on itself).
        """
        with self._locked():
            state = self._load()
            tx = _Transaction(self, dataset, state)
            if tx.header is None:
                raise ParameterError(f"The budget ledger has no budget for dataset {dataset!r}; "
                                     "open it with a budget first.")
            yield tx

    def open_dataset(self, dataset: str, *, budget: PrivacyBudget | None,
                     composition: str = "basic", delta_slack: float | None = None) -> dict:
        """Return ``dataset``'s budget, composition and δ'; journal them the first time.

        Raises
        ------
        ParameterError
            The dataset is new and no ``budget`` is given, or it is known with a
            different budget or composition.
        LedgerError
            The ledger is damaged or cannot be written.
        """
        with self._locked():
            state = self._load()
            header = state["datasets"].get(dataset)
            if header is None:
                if budget is None:
                    raise ParameterError(f"The budget ledger {str(self.path)!r} has no budget for "
                                         "this dataset; give --budget TOTAL_EPSILON the first time.")
                self.append_event(state, {
                    "dataset": dataset, "event": "open", "composition": composition,
                    "delta_slack": delta_slack,
                    "budget": {"epsilon": budget.epsilon, "delta": budget.delta}})
                return {"budget": budget, "composition": composition, "delta_slack": delta_slack}
            if budget is not None and (budget != header["budget"]
                                       or composition != header["composition"]
                                       or delta_slack != header["delta_slack"]):
                old = header["budget"]
                raise ParameterError(
                    f"The budget of this dataset is already epsilon={old.epsilon:g}, "
                    f"delta={old.delta:g} ({header['composition']} composition) in "
                    f"{str(self.path)!r}; it cannot be changed.")
            return {k: header[k] for k in ("budget", "composition", "delta_slack")}
