"""The public surface of trailcheck.capture is exactly this list."""

from __future__ import annotations

import trailcheck.capture


def test_exported_names_are_pinned() -> None:
    assert trailcheck.capture.__all__ == [
        "IdFactory",
        "ModelCallHandle",
        "RandomIds",
        "Recorder",
        "SeededIds",
        "Snapshottable",
        "SpanHandle",
        "TraceCollector",
        "record_tool",
    ]
    for name in trailcheck.capture.__all__:
        assert getattr(trailcheck.capture, name).__module__.startswith("trailcheck.capture.")
