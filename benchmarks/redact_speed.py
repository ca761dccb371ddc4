"""The cost of ``serve --redact builtin`` at intake: the same OTLP export taken with and without
redaction, in the same run.

The export is made of the real recordings of ``tests/fixtures/real`` (every ``*.traces.pb``: the
spans of some twenty instrumentations, their messages, tool arguments and results as they wrote
them), repeated under fresh trace ids until it holds about ``--spans`` spans, in protobuf as an
exporter sends it. Each round takes it, through ``receive_traces`` (decoding, redacting with the
built-in detectors or not, encoding the pending rows, writing them), into:

(a) a store that keeps nothing: the CPU cost of intake alone, where redaction weighs most;
(b) a fresh SQLite store: what ``trailcheck serve`` does, the rows written and committed;
(c) then, per span, redaction alone of the decoded spans, those it leaves as they were apart from
    those it redacts something in, against decoding alone.

The redactor reads the texts a trace repeats once per trace; each copy of a recording is a trace
of its own, so copies do not make each other cheaper.

The two variants of a target run alternately, round after round, so a change in the machine's
load touches both. Prints the medians over the rounds, spans per second, and the ratio with
``--redact builtin`` over without, with the load::

    uv run python benchmarks/redact_speed.py [--spans 20000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from scale_speed import loadavg
from trailcheck.redaction import REDACTIONS_KEY, Redactor, SpanRedaction, builtin_redactor
from trailcheck.serve import Intake
from trailcheck.serve.export import export_spans
from trailcheck.serve.receive import receive_traces
from trailcheck.store import PendingLogEvent, PendingPayload, PendingSpan, SpanConflict, Store
from trailcheck.trace import Trace

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"


class DiscardingStore:
    """A store that holds nothing: intake's own work, without the database's. It counts the
    spans it was given, and those that carry redaction counts."""

    def __init__(self) -> None:
        self.spans = 0
        self.redacted = 0

    def add_pending(
        self, spans: Sequence[PendingSpan], conflicts: Sequence[SpanConflict] = ()
    ) -> None:
        self.spans += len(spans)
        self.redacted += sum(REDACTIONS_KEY.encode() in span.payload for span in spans)

    def add_pending_logs(self, events: Sequence[PendingLogEvent]) -> None:
        return None

    def stored_traces(self, trace_ids: Sequence[str]) -> dict[str, Trace]:
        return {}

    def held_spans(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], PendingPayload]:
        return {}


def export_of(spans: int) -> bytes:
    """One ``ExportTraceServiceRequest`` of about ``spans`` spans: every recording, again and
    again, each copy under its own trace ids."""
    recordings = [
        ExportTraceServiceRequest.FromString(path.read_bytes())
        for path in sorted(REAL.glob("*.traces.pb"))
    ]
    request = ExportTraceServiceRequest()
    copy, held = 0, 0
    while held < spans:
        for recording in recordings:
            for resource in recording.resource_spans:
                added = request.resource_spans.add()
                added.CopyFrom(resource)
                for scope in added.scope_spans:
                    for span in scope.spans:
                        span.trace_id = copy.to_bytes(4, "big") + span.trace_id[4:]
                        held += 1
            copy += 1
    return bytes(request.SerializeToString())


def timed(take: Callable[[], None]) -> float:
    began = time.perf_counter()
    take()
    return time.perf_counter() - began


def intake(store: object, redactor: Redactor | None) -> Intake:
    return Intake(store, idle_timeout_ns=10**12, clock=time.time_ns, redactor=redactor)  # type: ignore[arg-type]


def discarding_round(payload: bytes, redactor: Redactor | None) -> tuple[float, DiscardingStore]:
    store = DiscardingStore()
    taker = intake(store, redactor)
    return timed(lambda: receive_traces(taker, payload, "protobuf")), store


def sqlite_round(payload: bytes, redactor: Redactor | None, folder: Path, name: str) -> float:
    with Store.open(f"sqlite:///{folder / name}") as store:
        taker = intake(store, redactor)
        return timed(lambda: receive_traces(taker, payload, "protobuf"))


def report(target: str, spans: int, plain: list[float], redacted: list[float]) -> None:
    without, with_ = statistics.median(plain), statistics.median(redacted)
    print(
        f"{target:<22} without {without:7.3f}s ({spans / without:9,.0f} spans/s)"
        f"   --redact builtin {with_:7.3f}s ({spans / with_:9,.0f} spans/s)"
        f"   ratio {with_ / without:5.2f}x"
    )


def per_span(payload: bytes, redactor: Redactor, rounds: int) -> None:
    """(c): microseconds per span of decoding, and of redacting a span left as it was or one
    redacted, medians over the rounds."""
    decoding: list[float] = []
    clean: list[float] = []
    redacted: list[float] = []
    for _ in range(rounds):
        began = time.perf_counter()
        spans = list(export_spans(payload, "protobuf", "<benchmark>"))
        decoding.append((time.perf_counter() - began) / len(spans))
        redaction = SpanRedaction(redactor)
        times: dict[bool, list[float]] = {False: [], True: []}
        for span in spans:
            began = time.perf_counter()
            out = redaction.span(span)
            times[out is not span].append(time.perf_counter() - began)
        clean.append(sum(times[False]) / len(times[False]))
        redacted.append(sum(times[True]) / len(times[True]))
    decode = statistics.median(decoding)
    for what, samples in (("left as it was", clean), ("something redacted", redacted)):
        cost = statistics.median(samples)
        print(
            f"(c) redacting a span {what + ':':<20} {cost * 1e6:6.0f} us"
            f"   decoding one {decode * 1e6:4.0f} us   ratio {cost / decode:5.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    payload = export_of(args.spans)
    redactor = builtin_redactor()
    print(f"load average before: {loadavg()}")
    _, probe = discarding_round(payload, redactor)
    print(
        f"export: {probe.spans:,} spans, {len(payload) / 1e6:.1f} MB of protobuf;"
        f" {probe.redacted:,} spans with something redacted; median of {args.rounds} round(s)"
    )
    plain: list[float] = []
    redacted: list[float] = []
    for _ in range(args.rounds):
        plain.append(discarding_round(payload, None)[0])
        redacted.append(discarding_round(payload, redactor)[0])
    report("(a) intake, no store", probe.spans, plain, redacted)
    plain, redacted = [], []
    with tempfile.TemporaryDirectory() as folder:
        for number in range(args.rounds):
            plain.append(sqlite_round(payload, None, Path(folder), f"plain-{number}.db"))
            redacted.append(sqlite_round(payload, redactor, Path(folder), f"redact-{number}.db"))
    report("(b) intake into SQLite", probe.spans, plain, redacted)
    per_span(payload, redactor, args.rounds)
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
