"""Delivering alert notices: a few lines for the terminal, JSON to a webhook, an OpenTelemetry
event to the OTLP endpoint.

- :func:`render_notice`: the notice as terminal lines: the window, the rate with its interval,
  the baseline and p-value of a change, the reason, and the failing traces grouped by cluster.
  Ids come from traces, so they are shown with control characters escaped.
- :func:`post_webhook`: the notice's JSON, POSTed. Unlike the report's telemetry, a notice is
  the product: a transport error or an answer that is not 2xx raises :class:`DeliveryError`,
  which the caller records; nothing is swallowed. The URL is named by its origin only, since a
  webhook's path often holds its token (``hooks.slack.com/services/T0/B0/<token>``).
- :func:`otel_notice_request` and :func:`send_otel_notice`: the notice as one
  ``gen_ai.evaluation.result`` event (:mod:`trailcheck.telemetry.evaluation_events`), at WARN,
  on no trace: ``gen_ai.evaluation.name`` is the evaluator, the label ``fail``, the explanation
  the reason's first clause, and ``trailcheck.online.*`` attributes carry the alert, the window,
  the counts, the interval and the test; never a trace's content. Sent by
  :func:`~trailcheck.telemetry.post_logs`, whose failure is raised here as a
  :class:`DeliveryError` too.
- :func:`deliver_notice`: one notice to one destination of an alert's ``notify``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

import httpx
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from trailcheck.errors import InfraError
from trailcheck.online.alerts import Destination
from trailcheck.online.notices import AlertNotice
from trailcheck.telemetry.evaluation_events import (
    GEN_AI_EVALUATION_EXPLANATION,
    GEN_AI_EVALUATION_NAME,
    GEN_AI_EVALUATION_SCORE_LABEL,
    LABEL_FAIL,
    AttributeValue,
    evaluation_record,
    explanation,
    logs_export_request,
)
from trailcheck.telemetry.otlp_http import OtlpTarget, post_logs
from trailcheck.terminal_text import shown

__all__ = [
    "DeliveryError",
    "deliver_notice",
    "notice_attributes",
    "otel_notice_request",
    "post_webhook",
    "render_notice",
    "send_otel_notice",
]

JSON: Final = "application/json"


class DeliveryError(InfraError):
    """A notice that did not reach its destination: ``destination`` (a webhook's origin, or the
    OTLP URL), and ``status`` when the receiver answered."""

    def __init__(self, destination: str, problem: str, *, status: int | None = None) -> None:
        self.destination = destination
        self.status = status
        super().__init__(f"alert notice not delivered to {destination}: {problem}")


# --- the terminal -----------------------------------------------------------------------------


def render_notice(notice: AlertNotice) -> str:
    """The notice as a few terminal lines; see the module."""
    window = notice.window
    low, high = notice.interval
    lines = [
        f"alert {shown(notice.alert)}: evaluator {shown(notice.evaluator)}"
        f"@{notice.evaluator_version}, {notice.rule}, window {window.start} to {window.end}",
        f"  failure rate {notice.failed}/{notice.scored}={notice.failure_rate:.3f},"
        f" {notice.method} {notice.level * 100:g}% [{low:.3f}, {high:.3f}]",
    ]
    if notice.baseline is not None:
        before = notice.baseline
        test = "Fisher exact" if before.test == "fisher" else "z-test"
        lines.append(
            f"  baseline {before.failed}/{before.scored}={before.failure_rate:.3f},"
            f" p={before.p_value:.2g} ({test})"
        )
    lines.append(f"  why: {shown(notice.reason)}")
    lines += _failing_lines(notice)
    return "\n".join(lines)


def _failing_lines(notice: AlertNotice) -> list[str]:
    listed = notice.failing_traces
    if not listed:
        return [f"  failing traces: {notice.failed}, none listed"]
    head = f"  failing traces: {notice.failed}" + (
        f", {len(listed)} listed" if len(listed) < notice.failed else ""
    )
    by_cluster: dict[str | None, list[str]] = {}
    for trace in listed:
        by_cluster.setdefault(trace.cluster_id, []).append(shown(trace.trace_id))
    clustered = sorted((c, ids) for c, ids in by_cluster.items() if c is not None)
    lines = [head] + [f"    cluster {shown(c)}: {', '.join(ids)}" for c, ids in clustered]
    if None in by_cluster:
        lines.append(f"    no cluster: {', '.join(by_cluster[None])}")
    return lines


# --- a webhook ----------------------------------------------------------------------------------


def _origin(url: str) -> str:
    """``https://hooks.example.com:8443`` of a webhook URL (no credentials, path or query: they
    may hold a token), with ``/…`` when a path or query is left out."""
    parsed = httpx.URL(url)
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    port = "" if parsed.port is None else f":{parsed.port}"
    hidden = parsed.path not in ("", "/") or parsed.query
    return f"{parsed.scheme}://{host}{port}" + ("/…" if hidden else "")


def post_webhook(url: str, notice: AlertNotice, *, client: httpx.Client) -> None:
    """POST the notice's JSON to ``url`` with ``client`` (its timeout and transport); raises
    :class:`DeliveryError` for a transport error or an answer that is not 2xx."""
    destination = f"webhook {_origin(url)}"
    try:
        response = client.post(
            url, content=notice.model_dump_json(), headers={"Content-Type": JSON}
        )
    except httpx.HTTPError as error:
        raise DeliveryError(destination, f"{type(error).__name__}: {error}") from error
    if not response.is_success:
        raise DeliveryError(
            destination,
            f"HTTP {response.status_code} {response.reason_phrase}",
            status=response.status_code,
        )


# --- OpenTelemetry ------------------------------------------------------------------------------

TRAILCHECK_ONLINE: Final = "trailcheck.online"


def notice_attributes(notice: AlertNotice) -> dict[str, AttributeValue | None]:
    """The event's attributes, in order; those that are None are left out of the record."""
    before = notice.baseline
    low, high = notice.interval
    own: dict[str, AttributeValue | None] = {
        "alert": notice.alert,
        "evaluator.version": notice.evaluator_version,
        "rule": notice.rule,
        "window.start": notice.window.start,
        "window.end": notice.window.end,
        "scored": notice.scored,
        "failed": notice.failed,
        "failure_rate": notice.failure_rate,
        "interval.low": low,
        "interval.high": high,
        "interval.level": notice.level,
        "interval.method": notice.method,
        "baseline.scored": None if before is None else before.scored,
        "baseline.failed": None if before is None else before.failed,
        "p_value": None if before is None else before.p_value,
        "test": None if before is None else before.test,
    }
    return {
        GEN_AI_EVALUATION_NAME: notice.evaluator,
        GEN_AI_EVALUATION_SCORE_LABEL: LABEL_FAIL,
        GEN_AI_EVALUATION_EXPLANATION: explanation(notice.reason),
        **{f"{TRAILCHECK_ONLINE}.{key}": value for key, value in own.items()},
    }


def otel_notice_request(notice: AlertNotice) -> ExportLogsServiceRequest:
    """The notice as one OTLP logs request of one WARN ``gen_ai.evaluation.result`` record, at
    the time it fired."""
    record = evaluation_record(notice_attributes(notice), now_ns=notice.fired_ns, severity="WARN")
    return logs_export_request([record])


def send_otel_notice(
    target: OtlpTarget, notice: AlertNotice, *, sleep: Callable[[float], None] = time.sleep
) -> None:
    """Send the notice's event to ``target``; raises :class:`DeliveryError` when it was not
    accepted (``post_logs`` retries a busy receiver once, as for the report's results)."""
    body = otel_notice_request(notice).SerializeToString()
    outcome = post_logs(target, [(1, body)], total=1, sleep=sleep)
    if outcome.problem is not None:
        raise DeliveryError(f"OTLP {target.url}", outcome.problem)


# --- one destination --------------------------------------------------------------------------


def deliver_notice(
    notice: AlertNotice,
    destination: Destination,
    *,
    write: Callable[[str], None],
    client: httpx.Client,
    otel: OtlpTarget | None,
) -> None:
    """Deliver ``notice`` to one destination of an alert: ``terminal`` through ``write``,
    ``otel`` to the ``otel`` target, a webhook with ``client``. Raises :class:`DeliveryError`
    when it did not arrive (``otel`` with no target given included)."""
    if destination == "terminal":
        write(render_notice(notice))
    elif destination == "otel":
        if otel is None:
            raise DeliveryError("otel", "no OTLP endpoint was given (--emit-otel)")
        send_otel_notice(otel, notice)
    else:
        post_webhook(destination.webhook, notice, client=client)
