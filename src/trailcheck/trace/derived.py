"""What the records derive their views with: a message's text, and :func:`computed_once`, the
attribute a trace computes on first read and keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, Self, TypeVar, overload

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
