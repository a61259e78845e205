"""The one release path: plan -> search -> apply -> verify -> write.

* :class:`ReleasePolicy` decides, before any work, what each column becomes
  (identifiers dropped, unlisted columns withheld, identifier scan);
* :func:`veil.anonymize` searches, applies and verifies in memory; the
  engines (:mod:`veil.engines`) do the row work for files larger than memory;
* :class:`Outputs` is the one writer every command uses: destinations are
  checked against every input before work starts, outputs are written to
  temporary files beside their destinations, verified
  (:func:`verify_written`, independent of the pipeline), then renamed into
  place together; a failure leaves nothing behind.
"""

from veil.pipeline._policy import (
    DEFAULT_SUPPRESSED,
    SUPPRESSED_MODES,
    TREATMENTS,
    ColumnTreatment,
    IdentifierLeakError,
    ReleasePolicy,
)
from veil.pipeline._writer import Outputs, check_destination, publishing, remove_stale_temporaries


def __getattr__(name: str):  # the verification imports the anonymization, which imports the policy
    if name in ("verify_written", "verify_release_table", "read_written"):
        from veil.pipeline import _verify

        return getattr(_verify, name)
    if name in ("SuppressedGroup",):
        from veil.pipeline._suppressed import SuppressedGroup

        return SuppressedGroup
    raise AttributeError(name)


__all__ = [
    "Outputs", "check_destination", "publishing", "remove_stale_temporaries", "ReleasePolicy", "ColumnTreatment", "TREATMENTS",
    "SUPPRESSED_MODES", "DEFAULT_SUPPRESSED", "IdentifierLeakError", "verify_written", "verify_release_table",
    "read_written", "SuppressedGroup",
]
