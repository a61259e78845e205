"""High-dimensional top-down specialization (HDTDS) for LKC-privacy and other anti-monotone models.

Top-down specialization starts from the most general table (every
quasi-identifier at its hierarchy's top value) and pushes a *cut* of each
taxonomy tree downwards, one value at a time: at each step it specializes the
*valid* value of best score (valid: the table after the specialization still
satisfies every privacy model) and it stops when no value of any cut can be
specialized without breaking a model.  Different values of one attribute may
end at different levels (subtree generalization), which keeps much more detail
than full-domain generalization where the data allows it.

How it runs on veil's data structures
-------------------------------------
* The taxonomy of an attribute is its :class:`~veil.hierarchy.Hierarchy`: the
  nodes are the values of every level, and a value at level ``j`` specializes
  into its *children*, the level ``j - 1`` values that roll up to it.
* Everything works on the base class table (the distinct combinations of leaf
  codes, built once from the rows) and on integer node ids: ``cut[c, i]`` is
  the node that base class ``c`` carries in attribute ``i``.  Each node of a cut
  keeps the base classes it covers (its *partition*, the TIPS of Fung et al.),
  so a specialization touches only the classes of the value it specializes.
* InfoGain does not depend on the other attributes' cuts (``T[v]`` is every
  record whose value lies under ``v``): it is computed once per node.
* Validity is checked lazily, best candidate first: a specialization found
  invalid stays invalid for the rest of the run (the models are anti-monotone
  and the cut only moves down), so it is never checked again, and a valid
  candidate is checked again only when it is the best one.  For k-anonymity and
  LKC-privacy the check reads only the classes of the specialized value and only
  the QI subsets that contain its attribute (the rest of the table cannot
  change); any other anti-monotone model is checked on the whole candidate class
  table.
* A numeric QI named in ``intervals`` has no fixed taxonomy: its tree of
  intervals is grown at runtime by binary splits (``veil.algorithms.tds._taxonomy``).
"""

from veil.algorithms.tds._core import SCORES, top_down_specialization

__all__ = ["top_down_specialization", "SCORES"]
