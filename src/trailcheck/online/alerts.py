"""Alerts in the online file: whose failure rate to watch, over what window, by which rule, and
whom to tell.

An online file may hold ``alerts:``, a list beside ``evaluators:``::

    alerts:
      - name: refunds-failing
        evaluator: refund-policy          # an evaluator of the same file
        window: 1h                        # default 1h
        kind: failure_rate_above          # the rule, inline
        threshold: 0.05
        notify: [terminal, otel, {webhook: https://hooks.example.com/T0/B0}]
      - name: refunds-worse
        evaluator: refund-policy
        kind: failure_rate_change
        alpha: 0.01

The rule is written inline, by its ``kind``, with the fields of :mod:`.rates`'s rules (an alert
*is* its rule, with a name, an evaluator, a window and destinations added; :attr:`rule` gives
the bare rule to :func:`~trailcheck.online.evaluate_alert`):

- ``failure_rate_above``: ``threshold``, and ``level`` (0.95) and ``method`` (``wilson``) of
  the interval whose lower bound must exceed it;
- ``failure_rate_change``: ``alpha`` (0.01) and ``direction`` (``increase``); the baseline is
  the window of the same length just before.

``notify`` lists where a notice goes (default ``[terminal]``): ``terminal`` (the worker's
output), ``otel`` (a ``gen_ai.evaluation.result`` log event, OTLP/HTTP to the exporter endpoint
the worker is given, as ``--emit-otel``) and ``{webhook: URL}`` (the notice as JSON, POSTed).
That the evaluator is one of the file's is checked with the whole file
(:class:`~trailcheck.online.OnlineConfig`, and the loader, with the line).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import httpx
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
)

from trailcheck.online.fields import DURATION_PATTERN, Duration, Name, duration_seconds
from trailcheck.online.rates import FailureRateAboveRule, FailureRateChangeRule
from trailcheck.specs.naming import unknown_name_message

__all__ = [
    "ALERT_KINDS",
    "AlertSpec",
    "Destination",
    "FailureRateAboveAlert",
    "FailureRateChangeAlert",
    "WebhookDestination",
    "alert_kind_problem",
]

ALERT_KINDS: tuple[str, ...] = ("failure_rate_above", "failure_rate_change")


class WebhookDestination(BaseModel):
    """A URL that receives each notice as JSON, by POST."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    webhook: str = Field(description="An http(s) URL; each notice is POSTed to it as JSON.")

    @field_validator("webhook")
    @classmethod
    def _http_url(cls, url: str) -> str:
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL as error:
            raise ValueError(f"a webhook is an http(s) URL; not {url!r} ({error})") from None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise ValueError(f"a webhook is an http(s) URL with a host; not {url!r}")
        return url


def _destination_tag(value: Any) -> str | None:
    if isinstance(value, str):
        return "named"
    if isinstance(value, dict | WebhookDestination):
        return "webhook"
    return None


Destination = Annotated[
    Annotated[Literal["terminal", "otel"], Tag("named")]
    | Annotated[WebhookDestination, Tag("webhook")],
    Discriminator(
        _destination_tag,
        custom_error_type="destination",
        custom_error_message="a destination is terminal, otel or {webhook: URL}",
    ),
]
"""Where a notice goes: ``terminal``, ``otel`` or a :class:`WebhookDestination`."""


def _to_the_terminal() -> list[Destination]:
    return ["terminal"]


def _kind_required(schema: dict[str, Any]) -> None:
    """In the file an alert names its kind (the discriminator), though in Python each class
    knows its own."""
    required = schema.setdefault("required", [])
    if "kind" not in required:
        required.append("kind")


class _AlertFields(BaseModel):
    """What every alert adds to its rule."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, json_schema_extra=_kind_required
    )

    name: Name = Field(description="Unique among the file's alerts; notices carry it.")
    evaluator: Annotated[str, Field(min_length=1)] = Field(
        description="The evaluator, of the same file, whose failure rate is watched."
    )
    window: Duration = Field(
        default="1h",
        description="The window the rate is taken over: 5m, 1h, 1d (a change rule's baseline"
        " is the window of the same length just before).",
        json_schema_extra={"pattern": DURATION_PATTERN},
    )
    notify: Annotated[list[Destination], Field(min_length=1)] = Field(
        default_factory=_to_the_terminal,
        description="Where a notice goes: terminal, otel, {webhook: URL}.",
    )

    @field_validator("window")
    @classmethod
    def _some_time(cls, window: str) -> str:
        if duration_seconds(window) == 0:
            raise ValueError("a window lasts some time: 5m, 1h, 1d; not 0s")
        return window

    @field_validator("notify")
    @classmethod
    def _each_once(cls, notify: list[Any]) -> list[Any]:
        repeated = [d for n, d in enumerate(notify) if d in notify[:n]]
        if repeated:
            shown = repeated[0] if isinstance(repeated[0], str) else repeated[0].webhook
            raise ValueError(f"each destination is named once; {shown} is repeated")
        return notify

    @property
    def window_seconds(self) -> int:
        return duration_seconds(self.window)


class FailureRateAboveAlert(FailureRateAboveRule, _AlertFields):
    """Alert when the evaluator's failure rate over the window lies above ``threshold``."""

    @property
    def rule(self) -> FailureRateAboveRule:
        """The bare rule, for :func:`~trailcheck.online.evaluate_alert`."""
        return FailureRateAboveRule.model_validate(
            self.model_dump(include=set(FailureRateAboveRule.model_fields))
        )


class FailureRateChangeAlert(FailureRateChangeRule, _AlertFields):
    """Alert when the evaluator's failure rate over the window differs from the window's just
    before beyond chance."""

    @property
    def rule(self) -> FailureRateChangeRule:
        """The bare rule, for :func:`~trailcheck.online.evaluate_alert`."""
        return FailureRateChangeRule.model_validate(
            self.model_dump(include=set(FailureRateChangeRule.model_fields))
        )


def alert_kind_problem(value: Any) -> str | None:
    """What is wrong with the ``kind`` of an alert written as a mapping, or None: an alert in
    the file names its rule's kind, one of :data:`ALERT_KINDS`."""
    if not isinstance(value, dict):
        return None
    kind = value.get("kind")
    if kind is None:
        return f"an alert names its rule: kind: {' or '.join(ALERT_KINDS)}"
    if kind not in ALERT_KINDS:
        return unknown_name_message("alert kind", kind, ALERT_KINDS)
    return None


def _kind_given(value: Any) -> Any:
    problem = alert_kind_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


AlertSpec = Annotated[
    FailureRateAboveAlert | FailureRateChangeAlert,
    Discriminator("kind"),
    BeforeValidator(_kind_given),
]
"""Any alert of the online file, chosen by its rule's ``kind``."""
