"""The small ZIP / age / sex hierarchies of the worked examples, shared by the property tests
of the utility metrics (a module of fixtures, not of tests)."""

from __future__ import annotations

from veil.hierarchy import Hierarchy

#: Six ZIP codes: two generalization steps by masking, then ``*``.
ZIPS = ["47677", "47678", "47602", "47905", "47909", "47906"]


def zip_hierarchy(zips: list[str]) -> Hierarchy:
    """ZIP codes masked one digit, then two, then ``*``."""
    return Hierarchy.from_rows([[z, z[:4] + "*", z[:3] + "**", "*"] for z in zips])


AGE = Hierarchy.from_rows([[str(a), "<40" if a < 40 else ">=40", "*"] for a in (22, 27, 29, 43, 47, 52)])
SEX = Hierarchy.flat(["F", "M"])
QIS = ["zip", "age", "sex"]
HEIGHTS = [3, 2, 1]
#: With a seventh ZIP code that no drawn table holds (a leaf absent from the data).
ZIP_WITH_UNUSED = zip_hierarchy(ZIPS + ["47999"])
HIERARCHIES_WITH_UNUSED = {"zip": ZIP_WITH_UNUSED, "age": AGE, "sex": SEX}
