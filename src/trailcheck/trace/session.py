"""The session a trace belongs to: the one definition that grouping, the store and multi-turn
grading share.

A session (a conversation, a thread) is the traces of one user's exchange with an agent, one
trace per turn. The importers keep the identifiers the instrumentations record in
``Trace.metadata`` (see :mod:`trailcheck.ingest.assemble`); the session is, the first present:

1. ``metadata["conversation_id"]``: OpenTelemetry GenAI ``gen_ai.conversation.id``, written by
   the official instrumentations, Pydantic AI and Google ADK;
2. ``metadata["session_id"]``: OpenInference ``session.id``, written by its LangGraph, OpenAI
   Agents SDK and openai instrumentations.

The standard convention comes first, so a trace that records both is grouped by its
conversation. A value counts when it is a non-empty string or an integer (taken as its decimal
text); anything else (empty text, a list, a float, a boolean) is not an identifier and the next
key is tried.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from trailcheck.trace.trace import Trace

__all__ = ["SESSION_METADATA_KEYS", "session_id", "session_id_from_metadata"]

SESSION_METADATA_KEYS: Final = ("conversation_id", "session_id")


def _identifier(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value:
        return value
    return None


def session_id_from_metadata(metadata: Mapping[str, Any]) -> str | None:
    """The session named by a trace's metadata (see the module docstring), or None."""
    for key in SESSION_METADATA_KEYS:
        found = _identifier(metadata.get(key))
        if found is not None:
            return found
    return None


def session_id(trace: Trace) -> str | None:
    """The session ``trace`` belongs to: its ``conversation_id``, else its ``session_id``
    (metadata written by the importers), else None when it records neither."""
    return session_id_from_metadata(trace.metadata)
