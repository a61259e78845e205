"""Synthetic tables for the sanitize tests: every identifier type, and near misses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

N = 60


def _luhn_complete(prefix: str) -> str:
    """Append the Luhn check digit to ``prefix`` (written out, not using veil's code)."""
    digits = [int(d) for d in prefix]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:  # these become the doubled positions once the check digit is appended
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return prefix + str((10 - total % 10) % 10)


@pytest.fixture
def cards() -> list[str]:
    rng = np.random.default_rng(3)
    return [_luhn_complete("4" + "".join(map(str, rng.integers(0, 10, 14)))) for _ in range(N)]


@pytest.fixture
def identifiers(cards: list[str]) -> pd.DataFrame:
    """One column per identifier type, named neutrally (``c1``...) where the values must speak."""
    rng = np.random.default_rng(7)
    i = np.arange(N)
    first = np.array(["Alice", "Bob", "Carol", "Dave", "Eve"])
    last = np.array(["Smith", "Jones", "Brown"])
    return pd.DataFrame({
        "patient_name": [f"{a} {b}" for a, b in zip(rng.choice(first, N), rng.choice(last, N))],
        "c_email": [f"person.{k}@mail-{k % 3}.example.org" for k in i],
        "c_phone": [f"+1 (617) 555-{1000 + k:04d}" for k in i],
        "fax": [f"617-555-{2000 + k % 7:04d}" for k in i],
        "c_ssn": [f"{123 + k % 5:03d}-{45 + k % 3:02d}-{6789 - k % 11:04d}" for k in i],
        "c_card": cards,
        "c_ip": [f"192.168.{k % 4}.{k % 250 + 1}" for k in i],
        "c_ip6": [f"2001:db8::{k % 9:x}" for k in i],
        "c_url": [f"https://www.example.org/profile/{k % 13}" for k in i],
        "c_street": [f"{10 + k % 17} Elm Street" for k in i],
        "zip_code": [f"{2100 + k % 9:05d}" for k in i],
        "birth_date": [f"19{50 + k % 6}-0{1 + k % 3}-1{k % 2}" for k in i],
        "discharged": [f"2021-0{1 + k % 9}-2{k % 9}" for k in i],
        "age": [str(20 + k % 40) for k in i],
        "mrn": [f"MR{k % 20:05d}" for k in i],
        "health_plan_id": [f"HP{k % 20:06d}" for k in i],
        "account_number": [f"{k % 15:08d}" for k in i],
        "drivers_license": [f"D{k % 20:07d}" for k in i],
        "c_vin": [["1HGCM82633A004352", "JH4KA7561PC008269", "1M8GDM9AXKP042788"][k % 3] for k in i],
        "c_mac": [f"00:1a:2b:3c:4d:{k % 16:02x}" for k in i],
        "fingerprint_template": [f"T{k % 5}" for k in i],
        "photo": [f"img_{k % 9}.jpg" for k in i],
        "c_uuid": [f"123e4567-e89b-12d3-a456-{k % 7:012d}" for k in i],
        "city": rng.choice(["Boston", "Cambridge", "Somerville"], N),
        "sex": rng.choice(["F", "M"], N),
        "diagnosis": rng.choice(["flu", "cold", "asthma"], N),
    })
