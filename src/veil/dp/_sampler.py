"""The one place veil reaches into OpenDP for privacy noise.

veil never draws privacy noise from :mod:`numpy.random` or :mod:`random`:
textbook floating-point Laplace samplers leak the low-order bits of the true
answer (Mironov 2012) and float arithmetic on noisy values opens timing and
rounding attacks (Haney et al. 2022).  Every release path goes through OpenDP's
samplers, which draw from discrete (Laplace/Gaussian) distributions on a
power-of-two grid with exact arithmetic and a cryptographically secure source.

OpenDP features
---------------
Only the ``"contrib"`` feature is enabled.  It unlocks OpenDP's mechanisms whose
proofs are written but not yet vetted by the OpenDP committee (that is every
constructor veil uses: ``make_laplace``, ``make_geometric``, ``make_gaussian``,
``make_noisy_max``, ``make_randomized_response*``, ``make_laplace_threshold``,
and the combinators ``make_zCDP_to_approxDP``, ``make_fix_delta``).  veil calls
them OpenDP's *contrib* samplers, never "vetted" ones.  veil does
**not** enable ``"floating-point"`` (no OpenDP measurement it builds needs it:
float inputs are handled by OpenDP's discretizing samplers) nor
``"honest-but-curious"`` (veil never passes user-defined functions into OpenDP).
``enable_features`` is a process-wide switch inside OpenDP; veil turns it on
lazily the first time a mechanism is built.

References
----------
Mironov, I. (2012). On significance of the least significant bits for
differential privacy. CCS.
Haney, S. et al. (2022). Precision-based attacks and interval refining: how to
break, then fix, differential privacy on finite computers. arXiv:2207.13793.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["opendp"]


class _OpenDP:
    """The parts of OpenDP veil uses, under ``opendp.prelude``'s names (``dp.m``,
    ``dp.atom_domain``, ``dp.l1_distance``, ...).

    ``opendp.prelude`` itself also imports OpenDP's scikit-learn extras, which
    import scikit-learn (about a second); veil needs only the core modules.
    """

    def __init__(self) -> None:
        from veil._lazy import require

        require("opendp", feature="veil query and veil.dp")
        import opendp.combinators
        import opendp.domains
        import opendp.measurements
        import opendp.measures
        import opendp.metrics
        import opendp.mod
        import opendp.transformations

        self.m = opendp.measurements
        self.t = opendp.transformations
        self.c = opendp.combinators
        self._modules = (opendp.domains, opendp.metrics, opendp.measures, opendp.mod)

    def __getattr__(self, name: str) -> Any:
        for module in self._modules:
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"veil's OpenDP namespace has no {name!r}")


@functools.lru_cache(maxsize=1)
def opendp() -> Any:
    """Return OpenDP's core (``prelude``-style names) with the ``"contrib"`` feature enabled."""
    dp = _OpenDP()
    dp.enable_features("contrib")
    return dp
