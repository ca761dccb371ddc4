"""Online scoring: production traces scored as they arrive, on a deterministic sample.

The foundations: online evaluators and alerts as data (the online file, its JSON Schema,
versions), the online judges, the deterministic nested sampling rule shared with OpenTelemetry,
failure rates with intervals and the alert tests over them, and alert notices with their
delivery (terminal, webhook, OpenTelemetry). The worker that scores what is due, its store
tables and the ``trailcheck online`` commands build on these (docs/online.md).
"""

from trailcheck.online.alerts import (
    ALERT_KINDS,
    AlertSpec,
    Destination,
    FailureRateAboveAlert,
    FailureRateChangeAlert,
    WebhookDestination,
)
from trailcheck.online.config import (
    EVALUATOR_KINDS,
    Evaluator,
    EvaluatorKind,
    OnlineConfig,
    reference_free_scorers,
)
from trailcheck.online.delivery import (
    DeliveryError,
    deliver_notice,
    otel_notice_request,
    post_webhook,
    render_notice,
    send_otel_notice,
)
from trailcheck.online.fields import duration_seconds
from trailcheck.online.filters import EvaluatorFilter
from trailcheck.online.judges import (
    JUDGE_NAMES,
    GroundednessJudgeSpec,
    JudgeSpec,
    RubricJudgeSpec,
    TaskCompletionJudgeSpec,
    build_judge,
    judge_criterion,
    judge_item,
    judge_trace,
)
from trailcheck.online.load import OnlineConfigError, load_online_config, parse_online_config
from trailcheck.online.notices import (
    MAX_FAILING_TRACES,
    AlertNotice,
    AlertWindow,
    BaselineCounts,
    FailingTrace,
    notice_from_alert,
)
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
    fisher_exact_p,
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
from trailcheck.online.schema import online_json_schema

__all__ = [
    "ALERT_KINDS",
    "EVALUATOR_KINDS",
    "JUDGE_NAMES",
    "MAX_FAILING_TRACES",
    "RANDOMNESS_BITS",
    "Alert",
    "AlertNotice",
    "AlertRule",
    "AlertSpec",
    "AlertWindow",
    "BaselineCounts",
    "DeliveryError",
    "Destination",
    "Evaluator",
    "EvaluatorFilter",
    "EvaluatorKind",
    "FailingTrace",
    "FailureRateAboveAlert",
    "FailureRateAboveRule",
    "FailureRateChangeAlert",
    "FailureRateChangeRule",
    "GroundednessJudgeSpec",
    "JudgeSpec",
    "OnlineConfig",
    "OnlineConfigError",
    "ProportionTest",
    "RateMethod",
    "RubricJudgeSpec",
    "SampleBy",
    "TaskCompletionJudgeSpec",
    "WebhookDestination",
    "WindowCounts",
    "build_judge",
    "deliver_notice",
    "duration_seconds",
    "evaluate_alert",
    "failure_rate",
    "fisher_exact_p",
    "is_sampled",
    "judge_criterion",
    "judge_item",
    "judge_trace",
    "load_online_config",
    "notice_from_alert",
    "online_json_schema",
    "otel_notice_request",
    "parse_online_config",
    "post_webhook",
    "randomness",
    "reference_free_scorers",
    "rejection_threshold",
    "render_notice",
    "sampling_key",
    "send_otel_notice",
    "two_proportion_test",
]
