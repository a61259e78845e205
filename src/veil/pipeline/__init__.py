"""The one release path: plan -> search -> apply -> verify -> write.

* :class:`ReleasePolicy` decides, before any work, what each column becomes
  (identifiers dropped, unlisted columns withheld, identifier scan);
* :class:`Plan` is one anonymization as asked for, checked once
  (:func:`check_problem`); :func:`run` takes it through class table ->
  search -> apply -> verify -> report, with a row back-end doing the row work:
  :class:`MemoryRows` (a pandas frame: :func:`veil.anonymize`) or
  :class:`EngineRows` (a file an engine reads: :func:`veil.engines.anonymize_file`);
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
    unlisted_warnings,
)
from veil.pipeline._writer import Outputs, check_destination, publishing, remove_stale_temporaries, temporary_name


def __getattr__(name: str):  # the verification imports the anonymization, which imports the policy
    if name in ("verify_written", "verify_release_table", "read_written"):
        from veil.pipeline import _verify

        return getattr(_verify, name)
    if name in ("SuppressedGroup",):
        from veil.pipeline._suppressed import SuppressedGroup

        return SuppressedGroup
    if name in _PIPELINE:
        import importlib

        return getattr(importlib.import_module(_PIPELINE[name]), name)
    raise AttributeError(name)


#: The pipeline's names, imported on first use (they import the models and the algorithms).
_PIPELINE = {
    "Plan": "veil.pipeline._plan", "check_problem": "veil.pipeline._plan", "run": "veil.pipeline._run",
    "Run": "veil.pipeline._run", "Released": "veil.pipeline._released", "MemoryRows": "veil.pipeline._memory",
    "EngineRows": "veil.pipeline._engine_rows",
}


__all__ = [
    "Outputs", "check_destination", "publishing", "remove_stale_temporaries", "temporary_name", "ReleasePolicy", "ColumnTreatment", "TREATMENTS",
    "SUPPRESSED_MODES", "DEFAULT_SUPPRESSED", "IdentifierLeakError", "verify_written", "verify_release_table",
    "read_written", "SuppressedGroup", "Plan", "check_problem", "run", "Run", "Released", "MemoryRows", "EngineRows",
    "unlisted_warnings",
]
