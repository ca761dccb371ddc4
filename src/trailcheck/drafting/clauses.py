"""A policy written in Markdown, split into numbered clauses, each with an id that stays put.

::

    # Refunds
    Refunds go back to the card that paid.        <- context: the section has list items
    1. Verify the customer's identity before any refund.        -> refunds.1
    2. Refund delivered orders only, within 30 days. {#window}  -> window
       - Gift cards are never refunded.           <- part of clause 2's text

    ## Delivery changes
    Reschedule only orders that have not arrived.               -> delivery-changes.1

A clause is a top-level list item (``-``, ``*``, ``+`` or ``1.``, ``1)``); deeper items and the
lines that continue an item belong to it. A section (the text under a heading) with no list
items has each paragraph as a clause. Text before the first heading is the section ``policy``.

A clause's id is ``<section slug>.<n>``, ``n`` counting the section's clauses from 1, so it
does not change when another section is edited; a ``{#id}`` at the end of an item or a heading
names it outright (a heading's names its section), for an id that survives reordering too.
Fenced code blocks are skipped. Two clauses with one id are an :class:`InputError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from trailcheck.errors import InputError
from trailcheck.text_files import read_text_file

__all__ = ["PolicyClause", "load_policy", "parse_policy"]

DEFAULT_SECTION: Final = "policy"
_HEADING: Final = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM: Final = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
_FENCE: Final = re.compile(r"^\s{0,3}(```|~~~)")
_EXPLICIT_ID: Final = re.compile(r"\s*\{#([A-Za-z0-9][\w.:-]*)\}\s*$")
_SLUG_UNSAFE: Final = re.compile(r"[^a-z0-9]+")
# An item indented by this much more than the section's first item is nested in the one before.
_NESTED_INDENT: Final = 2


@dataclass(frozen=True, slots=True)
class PolicyClause:
    """One clause: its id, its text (nested items and continuation lines joined), and the
    heading of its section (empty before the first heading)."""

    id: str
    text: str
    section: str = ""


@dataclass(slots=True)
class _Block:
    """The lines of one item or paragraph, and the id it names for itself."""

    lines: list[str]
    explicit: str | None = None

    def add(self, text: str) -> None:
        body, explicit = _explicit_id(text)
        self.lines.append(body.strip())
        self.explicit = explicit or self.explicit


@dataclass(slots=True)
class _Section:
    slug: str
    heading: str
    items: list[_Block] = field(default_factory=list)
    paragraphs: list[_Block] = field(default_factory=list)


def _slug(text: str) -> str:
    return _SLUG_UNSAFE.sub("-", text.lower()).strip("-") or DEFAULT_SECTION


def _explicit_id(text: str) -> tuple[str, str | None]:
    found = _EXPLICIT_ID.search(text)
    if found is None:
        return text, None
    return text[: found.start()], found.group(1)


class _Reader:
    """Reads lines into sections of items and paragraphs (see the module)."""

    def __init__(self) -> None:
        self.sections = [_Section(DEFAULT_SECTION, "")]
        self._block: _Block | None = None  # the item or paragraph being read
        self._item_indent: int | None = None  # its indent, when it is an item
        self._after_blank = False

    def read(self, line: str) -> None:
        if not line.strip():
            if self._item_indent is None:
                self._block = None  # a blank line ends a paragraph; an item goes on
            self._after_blank = True
            return
        after_blank, self._after_blank = self._after_blank, False
        if heading := _HEADING.match(line):
            title, explicit = _explicit_id(heading.group(2))
            self.sections.append(_Section(explicit or _slug(title), title.strip()))
            self._block, self._item_indent = None, None
            return
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        if self._block is not None and self._continues(item is not None, indent, after_blank):
            self._block.add(item.group(2) if item else line)
        elif item:
            self._start(self.sections[-1].items, item.group(2), indent)
        else:
            self._start(self.sections[-1].paragraphs, line, None)

    def _continues(self, is_item: bool, indent: int, after_blank: bool) -> bool:
        if self._item_indent is None:
            return not is_item  # a paragraph goes on until a blank line or an item
        if indent >= self._item_indent + _NESTED_INDENT:
            return True  # a nested item, or an indented line of the item
        return not is_item and not after_blank  # a lazy continuation line

    def _start(self, blocks: list[_Block], text: str, indent: int | None) -> None:
        self._block, self._item_indent = _Block([]), indent
        self._block.add(text)
        blocks.append(self._block)

    def end_fence(self) -> None:
        self._block, self._item_indent = None, None


def _sections(text: str) -> list[_Section]:
    reader = _Reader()
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            reader.end_fence()
        elif not fenced:
            reader.read(line)
    return reader.sections


def parse_policy(text: str, source: str = "policy") -> list[PolicyClause]:
    """The clauses of the Markdown ``text``, in order (see the module)."""
    clauses: list[PolicyClause] = []
    slugs: dict[str, int] = {}
    for section in _sections(text):
        blocks = section.items or section.paragraphs
        if not blocks:
            continue
        # Two headings with one slug: the second section's ids get -2, and so on.
        seen = slugs.get(section.slug, 0)
        slugs[section.slug] = seen + 1
        slug = section.slug if seen == 0 else f"{section.slug}-{seen + 1}"
        for number, block in enumerate(blocks, start=1):
            words = " ".join(line for line in block.lines if line)
            if words:
                clause_id = block.explicit or f"{slug}.{number}"
                clauses.append(PolicyClause(clause_id, words, section.heading))
    first: dict[str, int] = {}
    for index, clause in enumerate(clauses):
        if clause.id in first:
            raise InputError(
                f"{source}: clause id {clause.id!r} is given twice (clauses"
                f" {first[clause.id] + 1} and {index + 1}); name one with {{#another-id}}"
            )
        first[clause.id] = index
    if not clauses:
        raise InputError(f"{source}: no clauses: write the policy as list items or paragraphs")
    return clauses


def load_policy(path: Path) -> list[PolicyClause]:
    """The clauses of the Markdown policy file at ``path``."""
    return parse_policy(read_text_file(path), str(path))
