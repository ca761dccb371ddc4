"""Redacting what ``serve`` receives, span by span and log record by log record, before any of it
is held: the receiver keeps spans as pending rows until their trace is complete, so redacting
the assembled trace would be too late (the raw spans would have reached the database file).

Of a span, everything that can hold content is read: its name, status message, attributes
(where messages, tool arguments and results travel), its events' names and attributes, its
links' attributes, and the attributes of its resource and instrumentation scope. Of a GenAI log
record, its event name and attributes (its body among them, as ``otel.log.body``). Ids, times,
kinds and flags are not content and stay. What was redacted is counted on the span or record
itself, under ``trailcheck.redactions`` in its attributes (:mod:`trailcheck.redaction.counts`),
at places named ``span.<field>``, ``log.name`` or ``log.attributes.<key>``. An attribute of
that name that a sender wrote is content like any other: it is redacted, and read as counts
only where it has their shape.

Redaction is deterministic (the same span gives the same bytes, the keyed hash included), so an
exporter's retry of a redacted span is still recognised as a retry, and a conflicting version
still as one.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from trailcheck.importing.records import LogEvent, RawSpan, SpanLink
from trailcheck.redaction.counts import REDACTIONS_KEY, RedactionCounts
from trailcheck.redaction.redactor import Redaction, Redactor
from trailcheck.trace import SpanEvent

__all__ = ["SpanRedaction", "redact_log", "redact_span", "redacted_event"]

# The traces whose sessions a SpanRedaction keeps, and the origins (resource and scope).
_SESSIONS: Final = 64
_ORIGINS: Final = 8


class SpanRedaction:
    """Redacts the spans of one request. The spans of one OTLP ``ResourceSpans`` come one after
    another and share their resource and scope: those are redacted once, not per span; and the
    texts of one trace, which repeat, once per trace (:meth:`Redactor.session`)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        # The origins redacted last, most recent first: an export holds a few, each shared
        # by the spans of one OTLP ResourceSpans.
        self._origins: list[tuple[Any, dict[str, Any], dict[str, Any], list[Redaction]]] = []
        # A session per trace (Redactor.session), the most recent few: a trace's spans repeat
        # its texts, and an exporter sends them together.
        self._sessions: dict[str, Redactor] = {}

    def _session(self, trace_id: str) -> Redactor:
        session = self._sessions.pop(trace_id, None)
        if session is None:
            session = self.redactor.session()
            if len(self._sessions) >= _SESSIONS:
                del self._sessions[next(iter(self._sessions))]
        self._sessions[trace_id] = session
        return session

    def span(self, span: RawSpan) -> RawSpan:
        """``span`` redacted, its counts among its attributes; the span itself when nothing in
        it was redacted."""
        redactor = self._session(span.trace_id)
        found: list[Redaction] = []
        name = redactor.text(span.name, "span.name", found)
        status = span.status_message
        if status:
            status = redactor.text(status, "span.status.message", found)
        attributes = redactor.entries(span.attributes, "span.attributes", found)
        events = [
            redacted_event(redactor, event, "span.events.attributes", found)
            for event in span.events
        ]
        links = [_link(redactor, link, found) for link in span.links]
        resource, scope = self._redacted_origin(span, found)
        if not found:
            return span
        return dataclasses.replace(
            span,
            name=name,
            status_message=status,
            attributes=_counted(attributes, found),
            events=events,
            links=links,
            resource=resource,
            scope_attributes=scope,
        )

    def _redacted_origin(
        self, span: RawSpan, found: list[Redaction]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        origin = (span.resource, span.scope_attributes)
        known = next((known for known in self._origins if known[0] == origin), None)
        if known is None:
            origin_found: list[Redaction] = []
            resource = self.redactor.entries(span.resource, "span.resource", origin_found)
            scope = self.redactor.entries(
                span.scope_attributes, "span.scope.attributes", origin_found
            )
            known = (origin, resource, scope, origin_found)
            self._origins = [known, *self._origins[: _ORIGINS - 1]]
        found.extend(known[3])
        return dict(known[1]), dict(known[2])


def redact_span(span: RawSpan, redactor: Redactor) -> RawSpan:
    """``span`` redacted (see :class:`SpanRedaction`)."""
    return SpanRedaction(redactor).span(span)


def redact_log(log: LogEvent, redactor: Redactor) -> LogEvent:
    """The GenAI log record redacted, its counts among its event's attributes; the record
    itself when nothing in it was redacted."""
    found: list[Redaction] = []
    event = redacted_event(redactor, log.event, "log.attributes", found)
    if not found:
        return log
    counted = event.model_copy(update={"attributes": _counted(event.attributes, found)})
    return dataclasses.replace(log, event=counted)


def redacted_event(
    redactor: Redactor, event: SpanEvent, where: str, found: list[Redaction]
) -> SpanEvent:
    """The event with its name and attributes redacted (each redaction in the attributes at
    ``where.<key>``, in the name at ``<where's parent>.name``); the event itself when nothing
    in it was. A name is free text as a span's is (``span.add_event(f"retry for {user}")``)."""
    before = len(found)
    name = redactor.text(event.name, f"{where.rpartition('.')[0]}.name", found)
    attributes = redactor.entries(event.attributes, where, found)
    if len(found) == before:
        return event
    return event.model_copy(update={"name": name, "attributes": attributes})


def _link(redactor: Redactor, link: SpanLink, found: list[Redaction]) -> SpanLink:
    before = len(found)
    attributes = redactor.entries(link.attributes, "span.links.attributes", found)
    if len(found) == before:
        return link
    return dataclasses.replace(link, attributes=attributes)


def _counted(attributes: dict[str, Any], found: list[Redaction]) -> dict[str, Any]:
    """``attributes`` with the counts of ``found`` under ``trailcheck.redactions`` (added to
    the counts already there)."""
    counts = RedactionCounts()
    counts.add_data(attributes.get(REDACTIONS_KEY))
    for redaction in found:
        counts.add(redaction.kind, redaction.where)
    return {**attributes, REDACTIONS_KEY: counts.as_data()}
