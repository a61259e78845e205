"""The one release path: plan -> search -> apply -> verify -> write.

:class:`Outputs` is the one writer every command uses: destinations are checked
against every input before work starts, outputs are written to temporary files
beside their destinations, verified, then renamed into place together; a
failure leaves nothing behind.
"""

from veil.pipeline._writer import Outputs, publishing, remove_stale_temporaries

__all__ = ["Outputs", "publishing", "remove_stale_temporaries"]
