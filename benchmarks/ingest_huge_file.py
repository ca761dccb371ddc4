"""Memory and time of `trailcheck import` and `trailcheck ingest` on one huge span-based file.

Writes a file of about ``--size`` megabytes in a format (``otlp-proto``: one
``ExportTraceServiceRequest``, as concatenating requests makes; ``otlp-json``: the collector's
JSON Lines, one request per line; ``spans``: span JSONL) holding copies of a recording of the
conformance corpus (``tests/fixtures/real/``), each copy under fresh trace ids, and each copy's
spans split in two halves written ``--spread`` copies apart, so traces interleave across the
file. The generator itself streams. Then runs each command in a child process and prints its
peak RSS (the child's ``ru_maxrss``) and wall time. The claim: peak RSS stays flat as the file
grows (it follows the largest record and trace, not the file).

    uv run python benchmarks/ingest_huge_file.py --format otlp-proto --size 200 --size 1000
    uv run python benchmarks/ingest_huge_file.py --format otlp-json --size 200 --commands import

Each measurement runs in a fresh process (``--measure``), so one's peak does not hide another's.
"""

from __future__ import annotations

import argparse
import base64
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Generator
from pathlib import Path
from typing import Any

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
RECORDING = "langgraph-1.2.24-openinference-0.1.80"
FORMATS = ("otlp-proto", "otlp-json", "spans")
MB = 1_000_000


def _halves(request: Any) -> tuple[Any, Any]:
    """The request's spans as two requests, each scope's first half and second half."""
    first, second = ExportTraceServiceRequest(), ExportTraceServiceRequest()
    for resource_spans in request.resource_spans:
        for half, part in ((first, 0), (second, 1)):
            entry = half.resource_spans.add()
            entry.resource.CopyFrom(resource_spans.resource)
            entry.schema_url = resource_spans.schema_url
            for scope_spans in resource_spans.scope_spans:
                scope = entry.scope_spans.add()
                scope.scope.CopyFrom(scope_spans.scope)
                scope.schema_url = scope_spans.schema_url
                spans = list(scope_spans.spans)
                middle = len(spans) // 2
                scope.spans.extend(spans[:middle] if part == 0 else spans[middle:])
    return first, second


def _copy(request: Any, number: int) -> Any:
    """The request with every trace id (of spans and links) made the copy's own."""
    copy = ExportTraceServiceRequest()
    copy.CopyFrom(request)
    prefix = number.to_bytes(4, "big")
    for resource_spans in copy.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                span.trace_id = prefix + bytes(span.trace_id)[4:]
    return copy


def _proto_request(recording: str) -> Any:
    return ExportTraceServiceRequest.FromString((REAL / f"{recording}.traces.pb").read_bytes())


def _records(recording: str, spread: int, size: int) -> Generator[Any, int, None]:
    """Requests of about ``size`` bytes once encoded (the caller says by ``send``): each copy's
    first half, and the second half of the copy ``spread`` copies back; at the end, the second
    halves still due."""
    first, second = _halves(_proto_request(recording))
    pending: deque[Any] = deque()
    number = 0
    written = 0
    while written < size:
        written += yield _copy(first, number)
        pending.append(_copy(second, number))
        if len(pending) > spread:
            written += yield pending.popleft()
        number += 1
    while pending:
        yield pending.popleft()


def _otlp_json_line(request: Any) -> bytes:
    from google.protobuf.json_format import MessageToDict

    document = MessageToDict(request)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
                for link in span.get("links", []):
                    for key in ("traceId", "spanId"):
                        link[key] = base64.b64decode(link[key]).hex()
    return orjson.dumps(document) + b"\n"


def _span_lines(request: Any) -> bytes:
    from trailcheck.importing.transport.otlp_proto import decode_otlp_proto_spans

    lines = []
    for span in decode_otlp_proto_spans(request.SerializeToString(), "bench"):
        record = {
            "trace_id": span.trace_id,  # type: ignore[union-attr]
            "span_id": span.span_id,  # type: ignore[union-attr]
            "parent_span_id": span.parent_id,  # type: ignore[union-attr]
            "name": span.name,  # type: ignore[union-attr]
            "start_ns": span.start_ns,  # type: ignore[union-attr]
            "end_ns": span.end_ns,  # type: ignore[union-attr]
            "status": span.status_code.upper(),  # type: ignore[union-attr]
            "attributes": span.attributes,  # type: ignore[union-attr]
            "events": [event.model_dump() for event in span.events],  # type: ignore[union-attr]
            "resource": span.resource,  # type: ignore[union-attr]
        }
        lines.append(orjson.dumps(record) + b"\n")
    return b"".join(lines)


def write_file(path: Path, file_format: str, size_mb: int, spread: int) -> int:
    """Write about ``size_mb`` MB in ``file_format``; how many copies of the recording."""
    encode = {
        "otlp-proto": lambda request: request.SerializeToString(),
        "otlp-json": _otlp_json_line,
        "spans": _span_lines,
    }[file_format]
    halves = 0
    records = _records(RECORDING, spread, size_mb * MB)
    with path.open("wb") as stream:
        request = next(records)
        while True:
            data = encode(request)
            stream.write(data)
            halves += 1
            try:
                request = records.send(len(data))
            except StopIteration:
                return halves // 2


def _measure(command: list[str]) -> None:
    """Run ``command``; print its exit status, wall time and peak RSS in MB (this process's
    children: it is the only one)."""
    began = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - began
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
    print(orjson.dumps({"rc": done.returncode, "s": seconds, "rss_mb": peak_kb / 1024}).decode())
    print(tail[0], file=sys.stderr)


def _run(command: list[str], src: Path | None) -> dict[str, Any]:
    environment = dict(os.environ)
    if src is not None:
        environment["PYTHONPATH"] = str(src)
    done = subprocess.run(
        [sys.executable, __file__, "--measure", "--", *command],
        capture_output=True,
        check=True,
        env=environment,
    )
    result: dict[str, Any] = orjson.loads(done.stdout)
    result["summary"] = done.stderr.decode(errors="replace").strip()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", choices=FORMATS, default="otlp-proto")
    parser.add_argument("--size", type=int, action="append", help="MB; repeat for several")
    parser.add_argument("--spread", type=int, default=200, help="copies between a trace's halves")
    parser.add_argument("--commands", default="import,ingest")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument(
        "--src",
        type=Path,
        help="run the trailcheck whose src/ folder this is (another checkout, for a baseline:"
        " `git archive HEAD src | tar -x -C /tmp/base`)",
    )
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("command", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure:
        _measure(options.command)
        return
    trailcheck = [sys.executable, "-m", "trailcheck"]
    print(f"load average before: {os.getloadavg()[0]:.2f}; {options.format}, {RECORDING}")
    with tempfile.TemporaryDirectory() as folder:
        work = options.keep or Path(folder)
        for size in options.size or [200]:
            path = work / f"huge-{size}mb.{options.format}"
            began = time.perf_counter()
            copies = write_file(path, options.format, size, options.spread)
            print(
                f"{path.stat().st_size / MB:8.1f} MB, {copies} copies,"
                f" written in {time.perf_counter() - began:.1f} s"
            )
            for name in options.commands.split(","):
                store = Path(folder) / f"store-{size}.db"
                command = {
                    "import": [*trailcheck, "import", str(path), "-o", f"{folder}/out.jsonl"],
                    "ingest": [*trailcheck, "ingest", str(path), "--db", f"sqlite:///{store}"],
                }[name]
                result = _run(command, options.src)
                print(
                    f"  {name:6s} rc={result['rc']} {result['s']:7.1f} s"
                    f"  peak RSS {result['rss_mb']:6.0f} MB   {result['summary']}"
                )
                store.unlink(missing_ok=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
