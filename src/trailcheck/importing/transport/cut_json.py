"""What the readable part of a broken JSON text certainly says.

A text that is not JSON is still JSON up to the point where it breaks: its *readable prefix*,
every byte of which was written as the writer meant. A string value shown whole there (its
closing quote read) is the value the writer wrote, at the place it sits. Nothing after the break
is certain: a flipped byte, or two writers' records run together, may put anything there.

A text whose only fault is its end (it stops before its value closes, with no syntax error, the
last character possibly cut in the middle of its UTF-8 bytes) is *cut*: what a writer killed
mid-write leaves. The readers decide what a cut means for their format; this module only says
whether a text is one and what its prefix shows (:mod:`trailcheck.importing.complete_traces`).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import orjson

# Matches any array index in a path pattern.
ANY_INDEX: Final = None

# A whole string, or the quote of a string the text ends inside; a bracket, colon or comma; a
# bare scalar. Whitespace between tokens is skipped (the prefix is valid JSON up to its end).
_TOKEN: Final = re.compile(r'"(?:[^"\\]|\\.)*"|"|[{}\[\]:,]|[^\s{}\[\]:,"]+')

PathPattern = Sequence[str | None]


@dataclass(frozen=True, slots=True)
class ReadablePrefix:
    """The part of a text before its first syntax error (all of it for a cut), and whether the
    text is cut: its only fault is that it ends before its value does."""

    text: str
    cut: bool


@dataclass(frozen=True, slots=True)
class ShownString:
    """A string value the prefix shows whole, with its field path (``spans[2].traceId``)."""

    path: str
    value: str


@dataclass(slots=True)
class _Container:
    is_object: bool
    key: str | None = None
    index: int = 0
    expecting_key: bool = True


def readable_prefix(data: bytes) -> ReadablePrefix:
    """The readable prefix of ``data``, a text that does not parse as JSON."""
    text, cut = _utf8_prefix(data)
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as error:
        at_end = error.pos >= len(text)
        return ReadablePrefix(text[: error.pos], cut=cut and at_end and bool(text.strip()))
    # Whole before an undecodable byte: what follows it is not readable.
    return ReadablePrefix(text, cut=False)


def shown_strings(prefix: str, pattern: PathPattern) -> list[ShownString]:
    """The string values shown whole in ``prefix`` (valid JSON up to its end) at the paths that
    match ``pattern``: object keys, and :data:`ANY_INDEX` for an array element. A key repeated
    in one object shows each of its values."""
    found: list[ShownString] = []
    stack: list[_Container] = []
    for match in _TOKEN.finditer(prefix):
        token = match.group()
        if token == '"':
            break  # the prefix ends inside this string
        top = stack[-1] if stack else None
        if token in ("{", "["):
            stack.append(_Container(is_object=token == "{"))
        elif token in ("}", "]"):
            stack.pop()
        elif top is None:
            continue
        elif token == ":":
            top.expecting_key = False
        elif token == ",":
            top.expecting_key, top.key, top.index = True, None, top.index + 1
        elif top.is_object and top.expecting_key:
            top.key = orjson.loads(token)
        elif token.startswith('"') and _matches(stack, pattern):
            found.append(ShownString(_path(stack), orjson.loads(token)))
    return found


def _utf8_prefix(data: bytes) -> tuple[str, bool]:
    """The text of ``data`` up to its first byte that is not UTF-8; and whether every byte is,
    but for a character cut at the very end."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        # Not final: the bytes of a character cut at the end are held back, not an error.
        return decoder.decode(data, final=False), True
    except UnicodeDecodeError as error:
        return data[: error.start].decode(), False


def _matches(stack: list[_Container], pattern: PathPattern) -> bool:
    if len(stack) != len(pattern):
        return False
    return all(
        (step is not ANY_INDEX and step == container.key)
        if container.is_object
        else step is ANY_INDEX
        for container, step in zip(stack, pattern, strict=True)
    )


def _path(stack: list[_Container]) -> str:
    path = ""
    for container in stack:
        if container.is_object:
            path += f".{container.key}" if path else str(container.key)
        else:
            path += f"[{container.index}]"
    return path
