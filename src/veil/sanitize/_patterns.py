"""The identifier kinds veil detects, with their column-name and value patterns.

Each :class:`Kind` is one row of a table: how its column names look, how its
values look (a regular expression matched against the whole stripped value,
plus an optional check such as Luhn), how specific the value pattern is, the
category (direct identifier or quasi-identifier) and the HIPAA Safe Harbor item
it belongs to (45 CFR 164.514(b)(2)(i)(A)-(R); ``None`` when it is not one of
the 18).  The detector in :mod:`veil.sanitize._detect` reads this table only.

Value patterns are written without look-around so that the pyarrow-backed
string dtype can run them with RE2 (fast, vectorised).

Every pattern runs in time linear in the text it is given, whichever engine runs
it (Python's ``re`` backtracks): no quantifier is nested in another, and where
two adjacent quantified runs could share characters (the two halves of
``McDonald`` in the name pattern) each run is bounded (:data:`WORD`), so a
failing match tries a bounded number of splits.  Besides, a value longer than
:data:`MAX_PATTERN_CHARS` is not matched against any value pattern
(:func:`veil.sanitize._column_values.pattern_shares`): no identifier value is that
long.  ``tests/faults/test_bounds_input.py`` runs every pattern on adversarial
texts of 100 KB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Callable

import numpy as np
import pandas as pd

__all__ = ["Category", "Kind", "KINDS", "KIND_BY_NAME", "luhn_valid", "name_tokens", "MAX_PATTERN_CHARS", "WORD"]

#: The longest value matched against the value patterns (longer ones match none): a URL's
#: practical limit; an e-mail address has at most 254 characters, the other kinds far fewer.
MAX_PATTERN_CHARS = 2048
#: The letters after a name word's capital: bounded, so that the name pattern's adjacent runs
#: (``Mc`` + ``Donald``) split a failing text in a bounded number of ways.
WORD = "{1,40}"


class Category(str, Enum):
    """What a column is to a privacy model."""

    DIRECT_IDENTIFIER = "direct-identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    NONE = "none"


@dataclass(frozen=True)
class Kind:
    """One identifier kind.

    Attributes
    ----------
    name : str
        The kind as reported (``email``, ``ssn``, ...).
    category : Category
    safe_harbor : int or None
        The Safe Harbor item, 1-18 in the order of 45 CFR 164.514(b)(2)(i)
        (A=1 names ... R=18 any other unique identifying number), or None.
    names : tuple of str
        Regular expressions matched (fullmatch) against the normalised column
        name (lower case, words joined by ``_``) and against each of its words.
    name_confidence : float
        Confidence given by a column-name match alone.
    pattern : str or None
        Regular expression for a whole value; None when values cannot show it.
    pattern_strength : float
        How specific the pattern is: the confidence of a column whose values all
        match it, whatever its name (an e-mail address is unmistakable, a
        five-digit number is not necessarily a ZIP code).
    exclusive : bool
        The pattern covers every valid value of the kind, so values that do
        not match it contradict a column name (a column named ``email`` whose
        values are not addresses).  False for kinds with many formats
        (serial numbers, account numbers).
    check : callable or None
        A vectorised validity check on the values that matched ``pattern``
        (e.g. Luhn for card numbers), returning a boolean array.
    description : str
        For documentation and reports.
    """

    name: str
    category: Category
    safe_harbor: int | None
    names: tuple[str, ...]
    name_confidence: float
    pattern: str | None = None
    pattern_strength: float = 0.0
    check: Callable[[pd.Series], np.ndarray] | None = None
    description: str = ""
    exclusive: bool = False

    @property
    def name_regex(self) -> re.Pattern[str] | None:
        return _compile_names(self.names)

    @property
    def value_regex(self) -> re.Pattern[str] | None:
        return None if self.pattern is None else _compile_value(self.pattern)


_NAME_CACHE: dict[tuple[str, ...], re.Pattern[str] | None] = {}
_VALUE_CACHE: dict[str, re.Pattern[str]] = {}


def _compile_names(names: tuple[str, ...]) -> re.Pattern[str] | None:
    if names not in _NAME_CACHE:
        _NAME_CACHE[names] = re.compile("|".join(f"(?:{n})" for n in names)) if names else None
    return _NAME_CACHE[names]


def _compile_value(pattern: str) -> re.Pattern[str]:
    if pattern not in _VALUE_CACHE:
        _VALUE_CACHE[pattern] = re.compile(pattern)
    return _VALUE_CACHE[pattern]


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD = re.compile(r"[^0-9a-zA-Z]+")


def name_tokens(column: object) -> tuple[str, tuple[str, ...]]:
    """Normalise a column name: ``"PatientDOB"`` -> ``("patient_dob", ("patient", "dob"))``."""
    text = _CAMEL.sub("_", str(column))
    words = tuple(w for w in _NON_WORD.split(text.lower()) if w)
    return "_".join(words), words


def luhn_valid(digits: pd.Series) -> np.ndarray:
    """Luhn checksum of digit strings, vectorised with numpy.

    Separators (spaces, dashes) are removed; the strings are left-padded with
    zeros to 19 digits (which does not change the Luhn sum) and laid out as one
    ``uint8`` matrix, so the check is one array expression, not a loop.

    Parameters
    ----------
    digits : pandas.Series of str
        Values that already match a card-number pattern (13-19 digits).

    Returns
    -------
    numpy.ndarray of bool
    """
    if len(digits) == 0:
        return np.zeros(0, dtype=bool)
    clean = digits.astype("str").str.replace(r"[ -]", "", regex=True)
    if (clean.str.len() > 19).any():
        raise ValueError("luhn_valid expects at most 19 digits per value")
    padded = clean.str.zfill(19)
    raw = np.frombuffer("".join(padded.tolist()).encode("ascii"), dtype=np.uint8)
    mat = (raw.reshape(len(padded), 19) - 48).astype(np.int16)
    doubled = np.zeros(19, dtype=bool)
    doubled[-2::-2] = True  # every second digit from the right, check digit excluded
    mat[:, doubled] *= 2
    mat[mat > 9] -= 9
    return (mat.sum(axis=1) % 10 == 0)


def _luhn_check(values: pd.Series) -> np.ndarray:
    return luhn_valid(values)


DI = Category.DIRECT_IDENTIFIER
QI = Category.QUASI_IDENTIFIER

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_H = r"[0-9A-Fa-f]{1,4}"
_IPV6 = rf"(?:(?:{_H}:){{7}}{_H}|(?:{_H}:){{1,7}}:|(?:{_H}:){{1,6}}:{_H}|(?:{_H}:){{1,5}}(?::{_H}){{1,2}}|(?:{_H}:){{1,4}}(?::{_H}){{1,3}}|(?:{_H}:){{1,3}}(?::{_H}){{1,4}}|(?:{_H}:){{1,2}}(?::{_H}){{1,5}}|{_H}:(?::{_H}){{1,6}}|:(?::{_H}){{1,7}}|::)"
_STREET_SUFFIX = (
    r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|"
    r"terrace|ter|circle|cir|highway|hwy|parkway|pkwy|square|sq|trail|trl|alley|aly|"
    r"strasse|straße|rue|via|calle"
)
_MONTHS = r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december"
_DATE = (
    r"(?i)(?:"
    r"(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?"
    r"|(?:0?[1-9]|[12]\d|3[01])[-/.](?:0?[1-9]|[12]\d|3[01])[-/.](?:19|20)?\d\d"
    rf"|(?:0?[1-9]|[12]\d|3[01])[ -](?:{_MONTHS})\.?[ -](?:19|20)\d\d"
    rf"|(?:{_MONTHS})\.? (?:0?[1-9]|[12]\d|3[01]),? (?:19|20)\d\d"
    r"|(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
    r")"
)
#: The suffixes of a coded survey variable: ``educcat``, ``racegrp``, ``marital_cat``.
_CODED = r"(_?(cat|grp|group|category|code|cd))?"
# a plain decimal number (a latitude such as 40.712776) is never a phone number
_PHONE = (
    r"(?![-+]?\d+\.\d+\Z)(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)|\d{2,4})[ .-]?\d{3,4}[ .-]?\d{3,4}"
    r"(?: ?(?:x|ext\.?) ?\d{1,5})?"
)

#: The detector's table.  Order matters only for ties (earlier wins).
KINDS: tuple[Kind, ...] = (
    Kind("email", DI, 6, (r"e_?mail(_address)?", r"email\w*", r"\w*_email", r"mail"), 0.9,
         r"[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}", 0.95,
         description="e-mail address", exclusive=True),
    Kind("ssn", DI, 7, (r"ssn", r"social_security(_number|_no|_num)?", r"soc_sec\w*", r"sin", r"nino",
                        r"national_id\w*", r"tax_id", r"tin"), 0.9,
         r"(?:00[1-9]|0[1-9]\d|[1-578]\d\d|6[0-57-9]\d|66[0-57-9])-(?:0[1-9]|[1-9]\d)-"
         r"(?:000[1-9]|00[1-9]\d|0[1-9]\d\d|[1-9]\d{3})", 0.9,
         description="US Social Security number (NNN-NN-NNNN, valid area/group/serial)"),
    Kind("credit_card", DI, 10, (r"(credit_)?card(_number|_no|_num)?", r"cc(_number|_num|_no)?", r"pan",
                                 r"credit_card\w*"), 0.85,
         r"\d{4}(?:[ -]?\d{4}){2}(?:[ -]?\d{1,4}){1,2}|\d{13,19}", 0.95, _luhn_check,
         description="payment card number (13-19 digits passing the Luhn check)", exclusive=True),
    Kind("phone", DI, 4, (r"(tele)?phone\w*", r"\w*_phone", r"tel", r"mobile\w*", r"cell(_phone)?", r"msisdn",
                          r"contact_number"), 0.9,
         _PHONE, 0.75, description="telephone number", exclusive=True),
    Kind("fax", DI, 5, (r"fax\w*", r"\w*_fax", r"facsimile"), 0.9, _PHONE, 0.0,
         description="fax number (values look like phone numbers; told apart by column name)"),
    Kind("ip_address", DI, 15, (r"ip(_addr(ess)?)?", r"ipv[46]", r"\w*_ip", r"client_ip", r"remote_addr"), 0.85,
         rf"{_IPV4}|{_IPV6}", 0.95, description="IPv4 or IPv6 address", exclusive=True),
    Kind("url", DI, 14, (r"url", r"uri", r"website", r"web_?page", r"homepage", r"link", r"\w*_url"), 0.85,
         r"(?i)(?:https?|ftp)://[^\s/$.?#][^\s]*|www\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:/[^\s]*)?", 0.9,
         description="web address", exclusive=True),
    Kind("street_address", DI, 2, (r"(street_|home_|postal_|mailing_)?address(_line)?(_?\d)?", r"addr\d?",
                                   r"street", r"address\w*"), 0.85,
         rf"(?i)\d{{1,6}}[A-Za-z]?,? (?:[A-Za-z0-9.'-]+ ){{1,5}}(?:{_STREET_SUFFIX})\.?(?:,? .*)?", 0.85,
         description="street address"),
    Kind("zip", QI, 2, (r"zip(_?code)?(\d)?", r"postal(_code)?", r"post_?code", r"postcode", r"zip\w*",
                        r"plz"), 0.85,
         r"\d{5}(?:-\d{4})?", 0.3,
         description="ZIP code (5 digits, optionally ZIP+4); a five-digit number alone is weak evidence"),
    Kind("geographic", QI, 2, (r"city", r"town", r"county", r"precinct", r"district", r"municipality",
                               r"neighbou?rhood", r"village", r"geocode", r"lat(itude)?", r"lon(g|gitude)?",
                               r"census_(tract|block)\w*", r"coordinates?", r"geo(location)?"), 0.7,
         description="geographic subdivision smaller than a state (city, county, geocode, ...)"),
    Kind("date_of_birth", QI, 3, (r"dob", r"d_o_b", r"birth_?date", r"date_of_birth", r"birth_?day",
                                  r"born(_on)?", r"\w*_dob"), 0.9,
         _DATE, 0.0, description="date of birth"),
    Kind("date", QI, 3, (r"\w*_date", r"date_\w*", r"date", r"\w*_dt", r"admi(tted|ssion)\w*",
                         r"discharge\w*", r"death\w*", r"died(_on)?", r"deceased\w*", r"visit\w*"), 0.6,
         _DATE, 0.8, description="date (Safe Harbor: any date directly related to an individual)"),
    Kind("age", QI, 3, (r"age", r"age_(years|yrs|at_\w+)", r"\w*_age", r"age_\w*"), 0.8,
         description="age in years (Safe Harbor: ages over 89 become 90+)"),
    Kind("name", DI, 1, (r"(full_|first_|last_|middle_|given_|family_|sur|maiden_|nick|birth_)?name",
                         r"(patient|customer|person|contact|client|member|employee|user|mother|father|spouse|"
                         r"guardian|relative|parent|child|next_of_kin|emergency_contact|physician|doctor|"
                         r"provider|owner|holder|cardholder|account_holder)_(full_|first_|last_)?name",
                         r"surname", r"forename", r"fname", r"lname", r"patient", r"customer",
                         r"person", r"author", r"contact", r"initials"), 0.7,
         # booleans and null words are capitalised words but never names
         r"(?!(?:True|False|Yes|No|None|Null|Nan)\Z)"
         rf"[A-Z][a-z]{WORD}(?:[-'][A-Z]?[a-z]{WORD})?(?: [A-Z]\.?)?"
         rf"(?: (?:[A-Z][a-z]{WORD}|[A-Z]')?[A-Za-z][a-z]{WORD}(?:-[A-Z][a-z]{WORD})?)?", 0.3,
         description="person name (capitalised words; weak from values alone)"),
    Kind("medical_record_number", DI, 8, (r"mrn", r"medical_record\w*", r"med_rec\w*", r"chart(_number|_no|_id)?",
                                          r"patient_(id|number|no)", r"record_(number|no|id)", r"case_(number|no|id)"),
         0.85, description="medical record number"),
    Kind("health_plan_number", DI, 9, (r"health_plan\w*", r"insurance\w*", r"member_(id|number|no)",
                                       r"beneficiary\w*", r"policy_(number|no|id)", r"subscriber_(id|number)",
                                       r"medicare\w*", r"medicaid\w*", r"hicn", r"mbi"), 0.85,
         description="health plan beneficiary number"),
    Kind("account_number", DI, 10, (r"account(_number|_no|_num|_id)?", r"acct\w*", r"iban", r"bank_account\w*",
                                    r"routing(_number)?", r"customer_(id|number|no)", r"invoice_(number|no)"), 0.85,
         r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?", 0.6,
         description="account number (IBAN-shaped values, or by column name)"),
    Kind("license_number", DI, 11, (r"licen[cs]e\w*", r"\w*_licen[cs]e\w*", r"certificate\w*", r"cert_(number|no|id)",
                                    r"passport\w*", r"permit(_number|_no)?", r"dl(_number|_no)?", r"npi", r"dea"),
         0.85, description="certificate or license number (passport, driver's license, NPI, ...)"),
    Kind("vehicle_identifier", DI, 12, (r"vin", r"vehicle\w*", r"licen[cs]e_plate", r"plate(_number|_no)?",
                                        r"registration_(number|no)", r"number_plate"), 0.85,
         r"[A-HJ-NPR-Z0-9]{8}[0-9X][A-HJ-NPR-Z0-9]{8}", 0.5,
         description="vehicle identifier (17-character VIN, licence plate)"),
    Kind("device_identifier", DI, 13, (r"device\w*", r"\w*_device\w*", r"serial(_number|_no|_num)?", r"imei",
                                       r"udid", r"idfa", r"mac(_addr(ess)?)?", r"android_id", r"advertising_id"), 0.85,
         r"[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}", 0.9,
         description="device identifier or serial number (MAC-address-shaped values, or by column name)"),
    Kind("biometric", DI, 16, (r"biometric\w*", r"fingerprint\w*", r"finger_print\w*", r"retina\w*", r"iris\w*",
                               r"voice_?print\w*", r"face_(embedding|template|vector)", r"dna\w*", r"genom\w*",
                               r"gait\w*"), 0.85,
         description="biometric identifier (by column name only)"),
    Kind("photo", DI, 17, (r"photo\w*", r"\w*_photo\w*", r"picture\w*", r"image\w*", r"portrait", r"headshot",
                           r"face(_image)?", r"selfie", r"avatar", r"mugshot"), 0.85,
         r"(?i)\S+\.(?:jpe?g|png|gif|bmp|tiff?|heic|webp)", 0.6,
         description="full-face photograph (column name, or image file names)"),
    Kind("unique_identifier", DI, 18, (r"id", r"\w*_id", r"uuid", r"guid", r"\w*_uuid", r"\w*_guid",
                                       r"identifier", r"\w*_identifier", r"\w*_(number|no|num|code)", r"key"), 0.6,
         r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", 0.9,
         description="any other unique identifying number, characteristic or code (UUIDs, id columns, "
                     "columns unique per row)"),
    # Quasi-identifiers outside the 18 Safe Harbor types (Sweeney's sex, and the usual demographics).
    Kind("sex", QI, None, (r"sex", r"gender", r"\w*_sex", r"\w*_gender"), 0.85,
         r"(?i)m|f|male|female|man|woman|other|unknown|non_?binary|x|u", 0.3, description="sex or gender"),
    # survey codebooks abbreviate and suffix these names (maritl, maritalcat, educcat, racegrp): _CODED
    Kind("race", QI, None, (rf"race(_?eth(nicity)?)?{_CODED}", r"ethnicity", r"ethnic_group", r"ancestry"), 0.85,
         description="race or ethnicity"),
    Kind("marital_status", QI, None, (rf"marit(al|l)?(_?status)?{_CODED}", r"married", r"civil_status",
                                      r"mar_?stat"), 0.85,
         description="marital status"),
    Kind("state", QI, None, (r"state", r"province", r"country", r"nationality", r"citizenship"), 0.6,
         description="state, province or country (not a Safe Harbor identifier, but a quasi-identifier)"),
    Kind("region", QI, None, (rf"region{_CODED}", r"census_region", r"\w*_region"), 0.6,
         description="region (a group of states or areas; a quasi-identifier)"),
    Kind("occupation", QI, None, (r"occupation", r"job(_title)?", r"profession", r"employer", r"workclass"), 0.6,
         description="occupation or employer"),
    Kind("education", QI, None, (rf"educ(ation(al)?)?(_?(level|lvl|attainment))?{_CODED}", r"edu",
                                 r"schooling", r"degree", r"highest_degree", r"qualification"), 0.6,
         description="education level"),
    Kind("religion", QI, None, (r"religion", r"religious_affiliation", r"faith"), 0.6, description="religion"),
)

KIND_BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}

#: Safe Harbor items (45 CFR 164.514(b)(2)(i)(A)-(R)) for documentation and reports.
SAFE_HARBOR_ITEMS: dict[int, str] = {
    1: "names",
    2: "geographic subdivisions smaller than a state",
    3: "dates (except year) related to an individual; ages over 89",
    4: "telephone numbers",
    5: "fax numbers",
    6: "e-mail addresses",
    7: "social security numbers",
    8: "medical record numbers",
    9: "health plan beneficiary numbers",
    10: "account numbers",
    11: "certificate/license numbers",
    12: "vehicle identifiers and serial numbers, including license plates",
    13: "device identifiers and serial numbers",
    14: "web URLs",
    15: "IP addresses",
    16: "biometric identifiers",
    17: "full-face photographs and comparable images",
    18: "any other unique identifying number, characteristic or code",
}
