"""What ``trailcheck import`` and ``trailcheck ingest`` share: the words for what an import read
(in spans) and did (in traces), and the listing of the records it rejected (which ``score`` and
``stats`` print too). Their shared options are in :mod:`trailcheck.commands.options`."""

from __future__ import annotations

from collections.abc import Sequence

from trailcheck.commands.output import stderr
from trailcheck.importing.importer import ImportSummary
from trailcheck.importing.records import Rejection

__all__ = [
    "MAX_LISTED_REJECTIONS",
    "counted",
    "incomplete_words",
    "print_rejections",
    "read_words",
    "rejected_words",
]

# Rejections listed one per line before the rest are only counted (import, score, stats).
MAX_LISTED_REJECTIONS = 20


def counted(count: int, noun: str) -> str:
    """``1 span``, ``12 spans``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def read_words(summary: ImportSummary) -> str:
    """``read 12 spans in 2 files (otlp-json)``."""
    files = counted(len(summary.formats), "file")
    formats = ", ".join(sorted(set(summary.formats.values())))
    return f"read {counted(summary.spans, 'span')} in {files} ({formats})"


def rejected_words(summary: ImportSummary) -> str:
    """``1 rejected``: traces; rejected parts whose trace is unknown are counted apart."""
    words = f"{summary.rejected} rejected"
    if summary.untraced:
        words += f", plus {counted(summary.untraced, 'record')} whose trace is unknown"
    return words


def incomplete_words(summary: ImportSummary) -> str:
    """``, 2 kept incomplete`` (``--keep-incomplete``), or nothing."""
    return f", {summary.incomplete} kept incomplete" if summary.incomplete else ""


def print_rejections(rejections: Sequence[Rejection], *, problems: Sequence[str] = ()) -> None:
    """``rejected: …``, a line for each rejected record, then ``problems`` (other lines of the
    same list: ``ingest``'s conflicts); past the first :data:`MAX_LISTED_REJECTIONS` only counted
    (``... and N more``), then the hints of the rejections counted: a file's hint is on its first
    rejection of the kind, which may be among them."""
    lines = [f"rejected: {rejection}" for rejection in rejections] + list(problems)
    for line in lines[:MAX_LISTED_REJECTIONS]:
        stderr.print(line, style="red", markup=False)
    hidden = len(lines) - MAX_LISTED_REJECTIONS
    if hidden > 0:
        what = "" if problems else " rejected records"
        stderr.print(f"... and {hidden} more{what}", style="red", markup=False)
    for r in rejections[MAX_LISTED_REJECTIONS:]:
        if r.hint is not None:
            stderr.print(f"hint: {r.source}: {r.hint}", style="red", markup=False)
