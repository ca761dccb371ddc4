"""How many redactions each rule made, and where: what a redacted trace says about itself.

A trace redacted at intake carries its counts in ``metadata["trailcheck.redactions"]``, a
mapping of rule to place to count, never the content::

    {"email": {"span.attributes.gen_ai.input.messages": 2, "log.attributes.otel.log.body": 1},
     "hash:user.id": {"span.attributes.user.id": 3}}

The places are fields of the trace as stored (``input``, ``final_output``, ``metadata.<key>``,
``span.attributes.<key>``, ``span.events.attributes.<key>``, ``span.tool.arguments``,
``span.llm.input_messages``...), and for what ``serve`` received, the fields of the span or
GenAI log record it arrived in (``span.resource.<key>``, ``log.attributes.<key>``). A span and
a log record that ``serve`` redacted also carry their own counts, under the same key in their
attributes, since they are held apart until their trace is complete; the sweep adds them up
into the trace's metadata (:func:`~trailcheck.redaction.traces.with_span_counts`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from trailcheck.redaction.redactor import Redaction

__all__ = ["REDACTIONS_KEY", "RedactionCounts"]

REDACTIONS_KEY: Final = "trailcheck.redactions"


class RedactionCounts:
    """Counts of redactions by rule and place."""

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {}

    def __bool__(self) -> bool:
        return bool(self._counts)

    def add(self, rule: str, where: str, count: int = 1) -> None:
        places = self._counts.setdefault(rule, {})
        places[where] = places.get(where, 0) + count

    def add_found(self, found: Iterable[Redaction], where: str) -> None:
        """Count each of ``found`` at ``where`` (its own, finer place is not kept)."""
        for redaction in found:
            self.add(redaction.kind, where)

    def add_data(self, data: Any) -> None:
        """Add counts written as :meth:`as_data` wrote them; anything else in ``data`` (a
        sender's own attribute of that name, say) is not counts, and is passed over."""
        if not isinstance(data, dict):
            return
        for rule, places in data.items():
            if not isinstance(rule, str) or not isinstance(places, dict):
                continue
            for where, count in places.items():
                if isinstance(where, str) and type(count) is int and count > 0:
                    self.add(rule, where, count)

    def as_data(self) -> dict[str, dict[str, int]]:
        """The counts as JSON data, rules and places sorted."""
        return {rule: dict(sorted(places.items())) for rule, places in sorted(self._counts.items())}

    @property
    def total(self) -> int:
        return sum(sum(places.values()) for places in self._counts.values())
