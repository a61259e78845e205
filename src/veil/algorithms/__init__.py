"""Anonymization algorithms: the optimal lattice search (and its exhaustive reference)."""

from veil.algorithms.lattice import Lattice, SearchResult, exhaustive_search, search

__all__ = ["Lattice", "SearchResult", "search", "exhaustive_search"]
