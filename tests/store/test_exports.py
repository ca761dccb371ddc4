"""The store's public surface changes only on purpose."""

from __future__ import annotations

import trailcheck.store


def test_store_exports() -> None:
    assert sorted(trailcheck.store.__all__) == [
        "ClusterRecord",
        "DB_ENV",
        "DEFAULT_DB_PATH",
        "DroppedTrace",
        "IngestConflict",
        "IngestSummary",
        "MIGRATIONS",
        "Migration",
        "Note",
        "PendingLogEvent",
        "PendingSpan",
        "PendingTrace",
        "RejectedTrace",
        "SessionSummary",
        "Store",
        "StoreLimitError",
        "TraceSummary",
        "UnknownTraceError",
        "canonical_content",
        "resolve_db_url",
    ]
