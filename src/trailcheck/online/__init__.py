"""Online scoring: production traces scored as they arrive, on a deterministic sample.

The foundations: the deterministic nested sampling rule shared with OpenTelemetry, and failure
rates with intervals and the alert tests over them. The online file, the worker that scores
what is due, its store tables and the ``trailcheck online`` commands build on these.
"""

from trailcheck.online.rates import (
    Alert,
    AlertRule,
    FailureRateAboveRule,
    FailureRateChangeRule,
    ProportionTest,
    RateMethod,
    WindowCounts,
    evaluate_alert,
    failure_rate,
    two_proportion_test,
)
from trailcheck.online.sampling import (
    RANDOMNESS_BITS,
    SampleBy,
    is_sampled,
    randomness,
    rejection_threshold,
    sampling_key,
)

__all__ = [
    "RANDOMNESS_BITS",
    "Alert",
    "AlertRule",
    "FailureRateAboveRule",
    "FailureRateChangeRule",
    "ProportionTest",
    "RateMethod",
    "SampleBy",
    "WindowCounts",
    "evaluate_alert",
    "failure_rate",
    "is_sampled",
    "randomness",
    "rejection_threshold",
    "sampling_key",
    "two_proportion_test",
]
