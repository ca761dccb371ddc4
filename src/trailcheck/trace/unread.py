"""A trace's reading report: the parts of its source that trailcheck kept verbatim on the spans
without interpreting them (an unknown message role, content block or attribute shape). Written
by the importers (:mod:`trailcheck.importing.unread`) into ``metadata["trailcheck.unread"]``, one
entry per part: ``{"span_id", "field", "reason"}``, and ``"kept"`` where the source has no span
to keep the part on (a message log's message, verbatim)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

UNREAD_METADATA_KEY: Final = "trailcheck.unread"


def unread_parts(metadata: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reading report a trace's metadata holds; empty when everything was interpreted."""
    found = metadata.get(UNREAD_METADATA_KEY)
    return [part for part in found if isinstance(part, dict)] if isinstance(found, list) else []
