"""How large a generalization lattice may be: its node count, memory and time, judged before any allocation.

A full-domain search (the lattice search, Datafly, the exhaustive reference) works on the lattice
of level vectors, one node per combination of levels: :math:`\\prod_i (h_i + 1)` nodes for
hierarchies of heights :math:`h_i` (fewer with level bounds).  The count grows exponentially with
the number of quasi-identifiers: 16 attributes of 4 levels give :math:`4^{16} \\approx 4.3 \\cdot 10^9`
nodes.  The search keeps a few numbers per node (the levels, a status, a loss bound, a height, the
sort keys): about :data:`BYTES_PER_NODE_BASE` bytes plus 2 per attribute, measured as the peak
resident memory of lattice searches of 1-4 million nodes, and passes over every node a few
times, about :data:`SECONDS_PER_NODE` seconds each on one core (same runs; noisy, machine-dependent).

:func:`check_lattice_size` refuses a lattice of more than ``max_nodes`` nodes (default
:data:`DEFAULT_MAX_NODES`: about 1.6 GB and 20 s before any node is judged), or one whose
estimate exceeds the memory the machine has available, with one message that gives the count, the
estimate and the ways out.  The count is an exact Python integer (no overflow), computed from
the levels alone: nothing is allocated before the answer.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from veil.errors import ParameterError

__all__ = ["DEFAULT_MAX_NODES", "BYTES_PER_NODE_BASE", "SECONDS_PER_NODE", "lattice_nodes", "lattice_bytes",
           "available_memory", "check_lattice_size", "check_max_nodes"]

#: The largest lattice a full-domain search enumerates unless ``max_nodes`` says otherwise.
DEFAULT_MAX_NODES = 10_000_000
#: Bytes a lattice search holds per node besides its levels (2 bytes per attribute).
BYTES_PER_NODE_BASE = 128
#: Seconds a lattice search spends per node on passes over the whole lattice (one core).
SECONDS_PER_NODE = 2e-6


def lattice_nodes(low: Sequence[int], high: Sequence[int]) -> int:
    """The number of nodes between the levels ``low`` and ``high`` (exact)."""
    return math.prod(int(b) - int(a) + 1 for a, b in zip(low, high))


def lattice_bytes(n_nodes: int, n_attributes: int) -> int:
    """The memory a lattice search of ``n_nodes`` over ``n_attributes`` attributes needs (an estimate)."""
    return n_nodes * (BYTES_PER_NODE_BASE + 2 * n_attributes)


def available_memory() -> int | None:
    """The memory this machine has available in bytes (``MemAvailable``), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_max_nodes(max_nodes: object) -> int:
    """``max_nodes`` as an int >= 1 (None: :data:`DEFAULT_MAX_NODES`), else a :class:`ParameterError`."""
    if max_nodes is None:
        return DEFAULT_MAX_NODES
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ParameterError(f"The 'max_nodes' parameter must be an int in [1, inf). Got {max_nodes!r} instead.")
    return max_nodes


def _size(n_bytes: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n_bytes < 1000 or unit == "PB":
            return f"{n_bytes:,.0f} {unit}" if unit == "B" else f"{n_bytes:,.1f} {unit}"
        n_bytes /= 1000
    return ""  # unreachable


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 120:
        return f"at least {seconds:,.0f} s"
    if seconds < 7200:
        return f"at least {seconds / 60:,.0f} min"
    if seconds < 172800:
        return f"at least {seconds / 3600:,.0f} h"
    return f"at least {seconds / 86400:,.0f} days"


def check_lattice_size(names: Sequence[str], low: Sequence[int], high: Sequence[int],
                       max_nodes: int | None = None, *, memory: int | None = -1) -> int:
    """Refuse a lattice too large to search; its node count otherwise.

    Parameters
    ----------
    names : sequence of str
        The quasi-identifiers, in the lattice's order.
    low, high : sequence of int
        Each attribute's lowest and highest level.
    max_nodes : int >= 1, optional
        The most nodes allowed (default :data:`DEFAULT_MAX_NODES`).
    memory : int or None
        The bytes available (default: :func:`available_memory`; None: not checked).

    Raises
    ------
    ParameterError
        More than ``max_nodes`` nodes, or an estimate above the available memory.
    """
    limit = check_max_nodes(max_nodes)
    n = lattice_nodes(low, high)
    need = lattice_bytes(n, len(names))
    available = available_memory() if memory == -1 else memory
    over_count = n > limit
    if not over_count and (available is None or need <= available):
        return n
    levels = " x ".join(f"{name} {int(b) - int(a) + 1}" for name, a, b in zip(names, low, high))
    if len(levels) > 300:
        levels = levels[:300].rsplit(" x ", 1)[0] + " x ..."
    why = (f"more than max_nodes={limit:,} allows" if over_count
           else f"more than the {_size(available or 0)} of memory available")
    raise ParameterError(
        f"The generalization lattice of {len(names)} quasi-identifiers has {n:,} nodes (levels: {levels}), {why}: "
        f"searching it would need about {_size(need)} of memory and {_duration(n * SECONDS_PER_NODE)}. "
        "Use fewer quasi-identifiers or lower maximum levels, a local recoding (--algorithm mondrian) or a greedy walk (--algorithm datafly)"
        + (", or raise --max-nodes N (config max_nodes) if the memory is there." if over_count else ".")
    )
