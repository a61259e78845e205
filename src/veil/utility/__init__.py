"""Utility metrics: what an anonymization cost, as report figures and search objectives.

Every metric reads a :class:`~veil.classes.ClassTable` (class sizes, class
codes at the node's levels, hierarchies, suppressed records, per-class label
histograms), never the rows, and runs vectorised over the classes.

================  ==========================================  =====================
CLI name          function                                    source
================  ==========================================  =====================
height            :func:`height`                              Samarati 2001
precision         :func:`precision` (loss: 1 - Prec)          Sweeney 2002
loss              :func:`iloss`                               Xiao & Tao 2006
discernibility    :func:`discernibility`                      Bayardo & Agrawal 2005
avg-class-size    :func:`average_class_size`                  LeFevre et al. 2006
entropy           :func:`non_uniform_entropy`                 Gionis & Tassa 2009
classification    :func:`classification_metric`               Iyengar 2002
infogain          :func:`conditional_entropy`                 Fung, Wang & Yu 2005
kl                :func:`kl_divergence`                       Kifer & Gehrke 2006
arx-loss          :func:`arx_loss`                            ARX (Prasser & Kohlmayer)
================  ==========================================  =====================

:data:`METRICS` holds one :class:`Metric` per CLI name (with its direction,
monotonicity and needs); :func:`get_metric` looks one up and
:func:`utility_report` evaluates all that apply.  :func:`info_gain`,
:func:`specialization_info_gain` and :func:`label_entropy` score single
specializations for top-down algorithms.  See ``docs/utility.md``.

Examples
--------
The measures that charge a generalized value by the share of the domain it
covers, on one table: four ZIP codes under a masking hierarchy.

>>> import pandas as pd
>>> from veil.classes import ClassTable
>>> from veil.hierarchy import masking
>>> frame = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905"]})
>>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"],
...                                  hierarchies={"zip": masking(frame["zip"])})
>>> node = classes.generalize((2,))   # 476**, 476**, 476**, 479**

Precision charges each value its height over the hierarchy's (2 of 5 levels):

>>> precision(classes), precision(node)   # 1 - 2/5
(1.0, 0.6)

ILoss charges the leaves a value covers minus one, over all the leaves:

>>> iloss(node)   # 476** covers 3 of 4 leaves (cost 2/4), 479** 1: (3 * 2/4 + 0) / 4
0.375

ARX's per-attribute loss divides by the leaves minus one instead (the top costs 1)
and truncates to ten decimals, as ARX does:

>>> arx_attribute_losses(node).tolist()   # 476** covers 3 of 4: (3 * 2/3) / 4
[0.5]
>>> arx_attribute_losses(classes.generalize((1,))).tolist()   # 4767* covers 2: (2 * 1/3) / 4, truncated
[0.1666666666]
"""

from veil.utility._entropy import (
    conditional_entropy,
    info_gain,
    kl_divergence,
    label_entropy,
    non_uniform_entropy,
    specialization_info_gain,
)
from veil.utility._metrics import __all__ as _METRIC_NAMES
from veil.utility._metrics import (
    average_class_size,
    classification_metric,
    discernibility,
    height,
    iloss,
    precision,
    precision_loss,
)
from veil.utility._arx import arx_attribute_losses, arx_loss, arx_weights
from veil.utility._registry import (
    METRICS,
    Metric,
    get_metric,
    metric_help,
    register_metric,
    registered_metric,
    unregister_metric,
    utility_report,
)
from veil.utility._alignment import align_release, infer_levels
from veil.utility._workload import (
    CLASSIFIERS,
    MAX_TARGET_CLASSES,
    check_workload_target,
    ClassifierScores,
    Workload,
    WorkloadResult,
    workload,
    workload_summary,
)

__all__ = [
    *_METRIC_NAMES,
    "label_entropy",
    "info_gain",
    "specialization_info_gain",
    "conditional_entropy",
    "non_uniform_entropy",
    "kl_divergence",
    "arx_loss",
    "arx_attribute_losses",
    "arx_weights",
    "Metric",
    "METRICS",
    "register_metric",
    "unregister_metric",
    "registered_metric",
    "metric_help",
    "get_metric",
    "utility_report",
    "workload",
    "workload_summary",
    "Workload",
    "WorkloadResult",
    "ClassifierScores",
    "CLASSIFIERS",
    "MAX_TARGET_CLASSES",
    "check_workload_target",
    "align_release",
    "infer_levels",
]
