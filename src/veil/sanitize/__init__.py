"""De-identification: find direct identifiers and quasi-identifiers, and remove or mask them.

Run it before anonymizing a table: :func:`scan` reports what each column is
(e-mail, SSN, ZIP code, date of birth, ...) with the evidence and a
confidence; the actions (:func:`pseudonymize_hmac`, :func:`mask`, :func:`zip3`,
:func:`truncate_dates`, ...) transform single columns; a :class:`Plan` applies
one action per column with :func:`deidentify`; :func:`safe_harbor` applies the
HIPAA Safe Harbor rules to whatever :func:`scan` found and reports what it could
not decide.  See ``docs/deidentification.md``.
"""

from veil.sanitize._actions import (
    MIN_KEY_BYTES,
    PseudonymKey,
    age_90_plus,
    birth_year,
    bottom_code,
    drop,
    mask,
    parse_dates,
    pseudonymize_hmac,
    pseudonymize_random,
    shift_dates,
    top_code,
    truncate_dates,
    zip3,
)
from veil.sanitize._column_values import is_text, rows_of
from veil.sanitize._detect import DEFAULT_SAMPLE_SIZE, ColumnFinding, Evidence, ScanReport, scan, scan_columns
from veil.sanitize._patterns import KINDS, SAFE_HARBOR_ITEMS, Category, Kind, luhn_valid
from veil.sanitize._plan import (
    ACTIONS,
    ActionResult,
    ActionSpec,
    Age90Plus,
    BirthYear,
    BottomCode,
    DeidentifyReport,
    DeidentifyResult,
    Drop,
    Keep,
    Mask,
    Plan,
    PseudonymizeHMAC,
    PseudonymizeRandom,
    ShiftDates,
    TopCode,
    TruncateDates,
    Undecided,
    Zip3,
    deidentify,
)
from veil.sanitize._safe_harbor import safe_harbor, safe_harbor_plan

__all__ = [
    "scan", "scan_columns", "is_text", "rows_of", "ScanReport", "ColumnFinding", "Evidence", "DEFAULT_SAMPLE_SIZE",
    "Category", "Kind", "KINDS", "SAFE_HARBOR_ITEMS", "luhn_valid",
    "MIN_KEY_BYTES", "PseudonymKey", "drop", "pseudonymize_hmac", "pseudonymize_random", "mask", "zip3",
    "top_code", "bottom_code", "age_90_plus", "birth_year", "shift_dates", "truncate_dates", "parse_dates",
    "Plan", "ActionSpec", "ACTIONS", "Drop", "Keep", "PseudonymizeHMAC", "PseudonymizeRandom", "Mask", "Zip3",
    "TopCode", "BottomCode", "ShiftDates", "TruncateDates", "Age90Plus", "BirthYear",
    "deidentify", "DeidentifyResult", "DeidentifyReport", "ActionResult", "Undecided",
    "safe_harbor", "safe_harbor_plan",
]
