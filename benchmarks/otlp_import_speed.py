"""Import speed of OTLP/JSON from real instrumentations, against a bare ``orjson.loads`` of the
same file.

Takes recordings of the conformance corpus (``tests/fixtures/real/*.traces.json``, each as the
exporter wrote it), repeats each one's spans N times under fresh trace ids into one OTLP/JSON
file (the hex ids OTLP/JSON uses), and times over several rounds: (a) ``orjson.loads`` of the
file, (b) ``import_traces`` of it: decoding, the conventions and framework shapes, assembly and
the trace-level fields. Prints, per recording, the medians and the ratio (b)/(a), with the load.
Compare two checkouts by running it in each: the ratio cancels the machine's speed.

    uv run python benchmarks/otlp_import_speed.py [--copies 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import base64
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from trailcheck.importing import import_traces

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
RECORDINGS = (
    "strands-agents-1.62.0",
    "smolagents-1.26.0-openinference-0.1.43",
    "langgraph-1.2.24-openinference-0.1.80",
    "pydantic-ai-2.68.0",
    "adk-2.13.0-content",
)


def _hex(value: str, size: int) -> str:
    """An id of the recording (base64, as protobuf's MessageToJson writes it) in hex."""
    return base64.b64decode(value).hex() if value else value.rjust(size, "0")


def copies_of(recording: str, copies: int) -> bytes:
    """One OTLP/JSON request holding ``copies`` copies of the recording's spans, each copy under
    its own trace ids."""
    document: dict[str, Any] = orjson.loads((REAL / f"{recording}.traces.json").read_bytes())
    resource_spans = []
    for copy in range(copies):
        for resource in document["resourceSpans"]:
            scopes = []
            for scope in resource.get("scopeSpans", []):
                spans = []
                for span in scope.get("spans", []):
                    trace_id = _hex(span["traceId"], 32)
                    spans.append(
                        {
                            **span,
                            "traceId": f"{copy:08x}{trace_id[8:]}",
                            "spanId": _hex(span["spanId"], 16),
                            **(
                                {"parentSpanId": _hex(span["parentSpanId"], 16)}
                                if span.get("parentSpanId")
                                else {}
                            ),
                        }
                    )
                scopes.append({**scope, "spans": spans})
            resource_spans.append({**resource, "scopeSpans": scopes})
    return orjson.dumps({"resourceSpans": resource_spans})


def _median_s(work: Any, rounds: int) -> float:
    timings = []
    for _ in range(rounds):
        began = time.perf_counter()
        work()
        timings.append(time.perf_counter() - began)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}; {options.copies} copies of each")
    with tempfile.TemporaryDirectory() as folder:
        for recording in RECORDINGS:
            path = Path(folder) / f"{recording}.otlp.json"
            data = copies_of(recording, options.copies)
            path.write_bytes(data)
            traces: list[Any] = []
            summary = import_traces([path], traces.append)

            def baseline(path: Path = path) -> None:
                orjson.loads(path.read_bytes())

            def imported(path: Path = path) -> None:
                import_traces([path], lambda trace: None)

            base_s = _median_s(baseline, options.rounds)
            import_s = _median_s(imported, options.rounds)
            print(
                f"{recording:40s} {len(traces):5d} traces ({summary.rejected} rejected)"
                f"  orjson {base_s * 1e3:7.1f} ms"
                f"  import {import_s * 1e3:9.1f} ms  ratio {import_s / base_s:6.1f}"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
