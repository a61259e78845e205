"""Privacy models, each a small class judged on a :class:`~veil.classes.ClassTable`."""

from veil.models._base import PrivacyModel
from veil.models._k_anonymity import KAnonymity

__all__ = ["PrivacyModel", "KAnonymity"]
