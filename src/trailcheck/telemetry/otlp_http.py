"""Posting OTLP/HTTP protobuf logs requests: where to, with which headers, and what happens when
the receiver is busy or gone.

Telemetry is best effort: the grading result is the product. :func:`post_logs` never raises for
the network or the receiver; a failure comes back as one warning line for the command to print,
and neither the command's exit code nor its report depends on it. A request answered 429 or 503
is retried once, after the ``Retry-After`` it asks for (1 s when it names none); one that asks
for more than :data:`MAX_RETRY_AFTER_S` is not retried. The first request that fails ends the
export, since the next ones would meet the same receiver.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from importlib.metadata import version
from urllib.parse import unquote

import httpx
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse

from trailcheck.errors import UsageError

__all__ = [
    "BATCH_SIZE",
    "HEADERS_ENV",
    "ExportOutcome",
    "OtlpTarget",
    "logs_target",
    "logs_url",
    "parse_headers",
    "post_logs",
    "retry_after_s",
]

LOGS_PATH = "/v1/logs"
# Records per request.
BATCH_SIZE = 512
TIMEOUT_S = 10.0
RETRY_STATUSES = frozenset({429, 503})
DEFAULT_RETRY_AFTER_S = 1.0
MAX_RETRY_AFTER_S = 5.0
# The standard variables, the logs-specific one winning over the general one.
HEADERS_ENV = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS")
PROTOBUF = "application/x-protobuf"


@dataclass(frozen=True, slots=True)
class OtlpTarget:
    """Where logs go: the full ``/v1/logs`` URL, the headers sent with each request, and the
    timeout of each request."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    timeout_s: float = TIMEOUT_S


@dataclass(frozen=True, slots=True)
class ExportOutcome:
    """How many records of ``total`` the receiver accepted, and what went wrong, if anything."""

    url: str
    sent: int
    total: int
    problem: str | None = None

    @property
    def message(self) -> str:
        """One line for stderr: what was sent, or a warning that says the report is unaffected."""
        if self.problem is None:
            return f"sent {self.sent} evaluation results to {self.url}"
        return (
            f"warning: evaluation results not fully exported to {self.url}: {self.problem};"
            f" {self.sent}/{self.total} sent (telemetry is best effort: the report and the"
            " exit code are unaffected)"
        )


def logs_url(endpoint: str) -> str:
    """``{endpoint}/v1/logs`` for a base URL (``http://127.0.0.1:4318``); a URL that already
    ends in ``/v1/logs`` as it is. UsageError for anything but an http(s) URL with a host."""
    try:
        url = httpx.URL(endpoint.strip())
    except httpx.InvalidURL as error:
        raise UsageError(f"--emit-otel {endpoint!r}: not a URL ({error})") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise UsageError(f"--emit-otel {endpoint!r}: an OTLP/HTTP URL is http(s)://HOST[:PORT]")
    if url.path.rstrip("/").endswith(LOGS_PATH):
        return str(url)
    return str(url.copy_with(path=url.path.rstrip("/") + LOGS_PATH))


def parse_headers(text: str, *, source: str, encoded: bool = True) -> dict[str, str]:
    """``key=value`` pairs separated by commas, as the OTLP exporter variables write them (values
    percent-encoded unless ``encoded`` is False). UsageError, naming ``source``, for a pair
    without ``=`` or with an empty key."""
    headers: dict[str, str] = {}
    for pair in text.split(","):
        if not pair.strip():
            continue
        key, equals, value = pair.partition("=")
        name, text = key.strip(), (unquote(value) if encoded else value).strip()
        if not equals or not name or " " in name:
            raise UsageError(f"{source}: {pair.strip()!r} is not a header (KEY=VALUE)")
        if not (name + text).isascii() or not text.isprintable():
            raise UsageError(f"{source}: header {name!r}: only printable ASCII can be sent")
        headers[name] = text
    return headers


def logs_target(
    endpoint: str, headers: Sequence[str] = (), environ: Mapping[str, str] | None = None
) -> OtlpTarget:
    """The target of ``--emit-otel ENDPOINT``: headers from the standard variables in
    ``environ``, then each ``--emit-otel-header KEY=VALUE`` (later ones win)."""
    merged: dict[str, str] = {}
    for name in HEADERS_ENV:
        merged |= parse_headers((environ or {}).get(name, ""), source=name)
    for option in headers:
        merged |= parse_headers(option, source="--emit-otel-header", encoded=False)
    return OtlpTarget(url=logs_url(endpoint), headers=merged)


def retry_after_s(value: str | None, *, now: datetime | None = None) -> float:
    """Seconds a ``Retry-After`` header asks to wait: delay-seconds or an HTTP date; the
    default when absent or unreadable."""
    if value is None:
        return DEFAULT_RETRY_AFTER_S
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return DEFAULT_RETRY_AFTER_S
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _rejected(response: httpx.Response) -> tuple[int, str]:
    """Records the receiver's partial-success answer says it rejected, and its message."""
    if not response.content or PROTOBUF not in response.headers.get("content-type", ""):
        return 0, ""
    answer = ExportLogsServiceResponse()
    try:
        answer.ParseFromString(response.content)
    except DecodeError:
        return 0, ""
    partial = answer.partial_success
    return partial.rejected_log_records, partial.error_message


def _send(
    client: httpx.Client, url: str, body: bytes, sleep: Callable[[float], None]
) -> httpx.Response | str:
    """The receiver's answer to one request, retried once when busy; or what went wrong."""
    response = client.post(url, content=body)
    if response.status_code not in RETRY_STATUSES:
        return response
    delay = retry_after_s(response.headers.get("retry-after"))
    if delay > MAX_RETRY_AFTER_S:
        return (
            f"HTTP {response.status_code}, asked to retry after {delay:.0f} s"
            f" (trailcheck waits at most {MAX_RETRY_AFTER_S:.0f} s)"
        )
    sleep(delay)
    retried = client.post(url, content=body)
    if retried.status_code in RETRY_STATUSES:
        return f"HTTP {retried.status_code} {retried.reason_phrase}, again after one retry"
    return retried


def post_logs(
    target: OtlpTarget,
    requests: Iterable[tuple[int, bytes]],
    *,
    total: int,
    sleep: Callable[[float], None] = time.sleep,
) -> ExportOutcome:
    """POST each ``(record count, ExportLogsServiceRequest bytes)`` to ``target``, in order,
    until one fails; never raises for the network or the receiver."""
    headers = {
        **target.headers,
        "Content-Type": PROTOBUF,
        "User-Agent": f"trailcheck/{version('trailcheck')}",
    }
    sent = 0
    problems: list[str] = []
    try:
        with httpx.Client(timeout=target.timeout_s, headers=headers) as client:
            for count, body in requests:
                answer = _send(client, target.url, body, sleep)
                if isinstance(answer, str):
                    problems.append(answer)
                    break
                if not answer.is_success:
                    problems.append(f"HTTP {answer.status_code} {answer.reason_phrase}")
                    break
                rejected, why = _rejected(answer)
                sent += count - rejected
                if rejected:
                    problems.append(f"the receiver rejected {rejected} record(s): {why}")
    except httpx.HTTPError as error:
        problems.append(f"{type(error).__name__}: {error}")
    return ExportOutcome(
        url=target.url, sent=sent, total=total, problem="; ".join(problems) or None
    )
