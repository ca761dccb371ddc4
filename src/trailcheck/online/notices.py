"""Alert notices: what is told when an online alert fires, the same for every destination.

A notice names the alert and the evaluator it watches (with the evaluator's version), the rule's
kind, the window (its bounds in nanoseconds since the epoch, and as ISO 8601 text in JSON), the
window's counts and failure rate with its interval (level and method), for a change rule the
baseline window's counts and the test's p-value and method, the reason with its arithmetic
(:attr:`~trailcheck.online.Alert.reason`), the failing traces with the detect cluster each
belongs to, and when it fired. The failing traces are at most :data:`MAX_FAILING_TRACES` of the
window's ``failed``, which is their total.

A notice holds ids, counts and the reason only: no trace content. Its JSON (``model_dump_json``)
is the webhook's body, and reads back as the same notice (``model_validate_json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from trailcheck.errors import UsageError
from trailcheck.intervals import IntervalMethod
from trailcheck.online.alerts import AlertSpec
from trailcheck.online.config import Evaluator
from trailcheck.online.fields import iso
from trailcheck.online.rates import Alert

__all__ = [
    "MAX_FAILING_TRACES",
    "AlertNotice",
    "AlertWindow",
    "BaselineCounts",
    "FailingTrace",
    "notice_from_alert",
]

# Enough to start from, few enough for a chat message; the rest are a query away.
MAX_FAILING_TRACES: Final = 20

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class AlertWindow(BaseModel):
    """The window an alert was evaluated over: ``[start_ns, end_ns)``."""

    model_config = _FROZEN

    start_ns: int = Field(ge=0)
    end_ns: int = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _derived_text_dropped(cls, data: Any) -> Any:
        """The ISO text is derived from the nanoseconds: read back, it is not data."""
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if key not in ("start", "end")}
        return data

    @model_validator(mode="after")
    def _ends_after_it_starts(self) -> Self:
        if self.end_ns <= self.start_ns:
            raise ValueError(f"a window ends after it starts: {self.start_ns} to {self.end_ns}")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def start(self) -> str:
        return iso(self.start_ns)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def end(self) -> str:
        return iso(self.end_ns)


class BaselineCounts(BaseModel):
    """A change rule's baseline window, and the test of the window against it."""

    model_config = _FROZEN

    scored: int = Field(ge=0)
    failed: int = Field(ge=0)
    failure_rate: float
    p_value: float
    test: Literal["z", "fisher"] = Field(
        description="z: the pooled two-proportion z-test; fisher: Fisher's exact test."
    )


class FailingTrace(BaseModel):
    """A trace that failed in the window, and the detect cluster it belongs to, if any."""

    model_config = _FROZEN

    trace_id: str
    cluster_id: str | None = None


class AlertNotice(BaseModel):
    """What is told when an alert fires; see the module."""

    model_config = _FROZEN

    alert: str
    evaluator: str
    evaluator_version: str
    rule: Literal["failure_rate_above", "failure_rate_change"]
    window: AlertWindow
    scored: int = Field(ge=1)
    failed: int = Field(ge=0)
    failure_rate: float
    interval: tuple[float, float]
    level: float
    method: IntervalMethod
    baseline: BaselineCounts | None = None
    reason: str
    failing_traces: list[FailingTrace] = Field(max_length=MAX_FAILING_TRACES)
    fired_ns: int = Field(ge=0)


def notice_from_alert(
    alert: Alert,
    *,
    spec: AlertSpec,
    evaluator: Evaluator,
    window: AlertWindow,
    failing: Sequence[FailingTrace],
    fired_ns: int,
) -> AlertNotice:
    """The notice of ``alert``, fired by ``spec`` over ``window`` of ``evaluator``; ``failing``
    lists the window's failing traces (the first :data:`MAX_FAILING_TRACES` are kept, in the
    order given: put the ones to look at first)."""
    if spec.evaluator != evaluator.name:
        raise UsageError(
            f"alert {spec.name!r} watches evaluator {spec.evaluator!r}, not {evaluator.name!r}"
        )
    rate, interval = alert.rate, alert.rate.interval
    if rate.value is None or interval.low is None or interval.high is None:
        raise UsageError(f"alert {spec.name!r} fired over a window with nothing scored")
    return AlertNotice(
        alert=spec.name,
        evaluator=evaluator.name,
        evaluator_version=evaluator.version,
        rule=alert.rule.kind,
        window=window,
        scored=rate.total,
        failed=rate.count,
        failure_rate=rate.value,
        interval=(interval.low, interval.high),
        level=interval.level,
        method=interval.method,
        baseline=_baseline(alert),
        reason=alert.reason,
        failing_traces=list(failing[:MAX_FAILING_TRACES]),
        fired_ns=fired_ns,
    )


def _baseline(alert: Alert) -> BaselineCounts | None:
    before, test = alert.baseline, alert.test
    if before is None or test is None or before.value is None or test.p_value is None:
        return None
    return BaselineCounts(
        scored=before.total,
        failed=before.count,
        failure_rate=before.value,
        p_value=test.p_value,
        test=test.method,
    )
