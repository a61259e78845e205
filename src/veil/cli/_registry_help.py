"""The ``--require``, ``--metric``, ``--algorithm`` and ``--option`` help, derived from the models', the
metrics' and the algorithms' registries.

The registries live with the models and metrics, whose import takes about a
second; so their lists are added only when help is asked for (``--help`` on
the command line), and every other run keeps a fast start.
"""

from __future__ import annotations

import sys

from rich.markup import escape

__all__ = ["require_help", "metric_help", "algorithm_help", "option_help"]

_BASE = (
    'Requirements such as "k>=5, l_entropy[diagnosis]>=2, t_hier[salary]<=0.2, lkc(L=2,K=5,C=0.5), '
    'records_at_risk<=0.05"; [S] names one sensitive attribute (default: every one).'
)


def _asked(full: bool | None) -> bool:
    return full if full is not None else any(arg in ("--help", "-h") for arg in sys.argv[1:])


def require_help(extra: str = "", *, full: bool | None = None) -> str:
    """The option's help; with the registry's keys when ``--help`` is on the command line (or ``full``)."""
    text = f"{_BASE} {extra}".strip()
    if _asked(full):
        from veil.models.registry import requirement_help

        text += " Keys: " + requirement_help() + "."
    return escape(text)  # the help is rendered as rich markup: keep "[diagnosis]" as written


def metric_help(*, full: bool | None = None) -> str:
    """``--metric``'s help; with every registered metric when help is asked for (or ``full``)."""
    text = "Utility metric to minimise (default loss; arx-loss is ARX's Loss)."
    if _asked(full):
        from veil.utility import metric_help as describe

        text += " Metrics: " + describe() + "."
    return text


def algorithm_help(*, full: bool | None = None) -> str:
    """``--algorithm``'s help; with every registered algorithm's name, in registration order, when help is
    asked for (or ``full``)."""
    text = "An algorithm of the registry (default lattice: optimal full-domain generalization)"
    if _asked(full):
        from veil.algorithms._registry import names

        text += ": " + ", ".join(names())
    return escape(text + ".")


def option_help(*, full: bool | None = None) -> str:
    """``--option``'s help; with every registered algorithm's declared options when help is asked for (or ``full``)."""
    text = "KEY=VALUE option of the algorithm (e.g. strict=false); repeatable."
    if _asked(full):
        from veil.algorithms import ALGORITHMS
        from veil.algorithms._options import describe_option, shown_options

        parts = [f"{name}: " + "; ".join(describe_option(p) for p in shown_options(spec.options))
                 for name, spec in ALGORITHMS.items() if shown_options(spec.options)]
        text += " Options: " + " | ".join(parts) + "."
    return escape(text)
