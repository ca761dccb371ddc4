"""Values derived from a trace's fields, computed by one function each for both holders of a
trace (:class:`~trailcheck.trace.Trace` and :class:`~trailcheck.trace.lean.LeanTrace`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar, overload

import orjson

if TYPE_CHECKING:
    from trailcheck.trace.views import MessageView, SpanView, StatusView, ToolInvocationView

# Part types whose "text" (OpenAI) or "content" (GenAI) is the message's text.
TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})


def message_text(content: str | Sequence[dict[str, Any]] | None) -> str:
    """A message's text: the content, or its text parts joined by newlines.

    Only parts typed as text count (``text`` in GenAI and OpenAI chat, ``input_text`` and
    ``output_text`` in OpenAI responses); a blob's base64 ``content`` is not text.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = (
        part.get("text", part.get("content"))
        for part in content
        if part.get("type", "text") in TEXT_PART_TYPES
    )
    return "\n".join(text for text in texts if isinstance(text, str))


def input_text(value: str | Sequence[MessageView] | None) -> str:
    """The user's input as text: the string input, or the user messages joined."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return "\n".join(m.text for m in value if m.role == "user")


def final_text(final_output: Any) -> str:
    """The final output as text (JSON for structured output, empty when absent)."""
    if final_output is None:
        return ""
    if isinstance(final_output, str):
        return final_output
    return orjson.dumps(final_output).decode()


def trace_duration_ns(spans: Sequence[SpanView]) -> int | None:
    """From the earliest span start to the latest end; ``None`` if a span has not ended."""
    if not spans or any(span.end_ns is None for span in spans):
        return None
    return max(s.end_ns or 0 for s in spans) - min(s.start_ns for s in spans)


def span_duration_ns(start_ns: int, end_ns: int | None) -> int | None:
    """Nanoseconds from start to end; ``None`` while the span has not ended."""
    return None if end_ns is None else end_ns - start_ns


def span_failed(status: StatusView, tool: ToolInvocationView | None) -> bool:
    """True when the span's status is error, or its tool recorded an error."""
    return status.code == "error" or (tool is not None and tool.error is not None)


Holder = TypeVar("Holder")
Value = TypeVar("Value")


class ComputedOnce(Generic[Holder, Value]):
    """:func:`functools.cached_property` without its lock, which Python 3.11 takes on every
    first read (a cost per trace, and per call, when millions are graded). As there, the value
    is kept in the instance ``__dict__`` under the same name, where later reads find it before
    the descriptor. Use :func:`computed_once`."""

    def __init__(self, compute: Callable[[Holder], Value]) -> None:
        self._compute = compute
        self._name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, instance: Holder, owner: type[Any]) -> Value: ...
    def __get__(self, instance: Holder | None, owner: type[Any]) -> Self | Value:
        if instance is None:
            return self
        value = instance.__dict__[self._name] = self._compute(instance)
        return value


def computed_once(compute: Callable[[Holder], Value]) -> ComputedOnce[Holder, Value]:
    """Decorates a method without arguments into an attribute computed on first read."""
    return ComputedOnce(compute)
