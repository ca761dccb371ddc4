"""The grounding scorer: every figure in the final answer appears in the evidence.

*Figures* are read from text by one scanner, the same for the answer and the evidence:

- dates: ``2026-06-19`` (an ISO date-time counts as its date), ``2026/06/19``, ``19/06/2026``
  (order by ``day_first``), ``June 19, 2026``, ``Jun 19th 2026``, ``19 June 2026`` (English
  month names, capitalised), read as ISO; a month and day without a year (``June 19``) matches
  any evidence date on that day; a year alone (``in 2026``) is a number;
- durations (lap times, clock times): ``1:20.472``, ``1:02:03.5``, read as seconds;
- money: ``$129``, ``€1,000.50``, ``129 USD``, read as the amount (the currency is not compared);
- percentages: ``12.5%``, ``12.5 percent``;
- numbers: ``1,000.5``, ``1000.50``, ``-3``; a unit after the number is left out (``26 pts``
  is 26). Digits glued to letters (``A1042``, ``x2``) are not figures; ``A-1042`` holds 1042.

Numbers are compared as decimals, so ``1,000.5`` = ``1000.50`` and ``$129`` = ``129.0``.
A figure is supported when the evidence has it: a number, amount or percentage ``p`` by the
number ``p`` (a percentage also by ``p/100``), a duration by the same duration or by its
seconds or milliseconds as a number, a date by the same date.

The evidence is the user input and every tool call's arguments and result (JSON numbers as
numbers, text scanned as above, object keys included). The agent's own messages are not
evidence. Figures are counted once each, however often the answer repeats them.

Value = supported / total figures. An answer with no figures passes (1.0) with the reason
``no numeric claims``: there is nothing in it to be ungrounded, and the scorer was asked for, so
its silence would hide that it ran. No final answer at all is a failing score (0.0).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Literal

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers.dates import parse_date
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Trace

FigureKind = Literal["date", "month_day", "duration", "money", "percent", "number"]
Key = tuple[str, Decimal | str]

INPUT_SOURCE = "input"
"""How the reason names the user input among the evidence (it is not a span)."""

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_START = r"(?<![\w.])"
_ISO_TIME = r"(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
_ISO_DATE = re.compile(r"\d{4}-(\d{2}-\d{2})")
# Every alternative starts with a digit, a currency sign, a minus or a month's abbreviation: the
# lookahead lets the scanner skip every other position at once (3-4x faster, same matches), a
# capital that starts no month (a sentence's first word) included.
_FIGURE = re.compile(
    rf"""
    (?=[\d$€£¥-]|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)
    (?:
    (?P<date>{_START}(?:
        \d{{4}}-\d{{2}}-\d{{2}}{_ISO_TIME}
      | \d{{4}}[/.]\d{{1,2}}[/.]\d{{1,2}}
      | \d{{1,2}}(?P<sep>[/.-])\d{{1,2}}(?P=sep)\d{{4}}
      | {_MONTH}\s+{_DAY},?\s+\d{{4}} | {_DAY}\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}
    )(?!\d))
  | (?P<month_day>{_START}(?:{_MONTH}\s+{_DAY} | {_DAY}\s+(?:of\s+)?{_MONTH})(?!\w))
  | (?P<duration>(?<![\w.:])(?:\d{{1,2}}:)?\d{{1,2}}:[0-5]\d(?:\.\d+)?(?![\d:]))
  | (?P<money>[$€£¥]\s?(?P<amount>{_NUMBER})
      | {_START}(?P<amount_first>{_NUMBER})\s?(?:USD|EUR|GBP|dollars?|euros?)\b)
  | (?P<percent>{_START}(?P<percentage>{_NUMBER})\s?(?:%|percent\b))
  | (?P<number>{_START}-?(?:{_NUMBER})(?!\d))
    )
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure as written (``text``) and as read (``value``: a decimal, or ISO text)."""

    kind: FigureKind
    value: Decimal | str
    text: str

    @property
    def shown(self) -> str:
        """``$12.90 (12.9)``: as written, and as read when that differs."""
        if isinstance(self.value, Decimal):
            unit = {"duration": " s", "percent": "%"}.get(self.kind, "")
            read = _plain(self.value) + unit
        else:
            read = self.value
        return self.text if read == self.text else f"{self.text} ({read})"

    def supplies(self) -> tuple[Key, ...]:
        """The keys under which this figure, found in the evidence, supports a claim."""
        if self.kind == "duration":
            return (("duration", self.value), ("number", self.value))
        if self.kind == "date":
            iso = _ISO_DATE.fullmatch(str(self.value))
            return (("date", self.value), ("month_day", iso[1])) if iso else (("date", self.value),)
        if self.kind == "month_day":
            return (("month_day", self.value),)
        return (("number", self.value),)

    def supported_by(self) -> tuple[Key, ...]:
        """The evidence keys any one of which supports this figure as a claim."""
        if self.kind == "duration" and isinstance(self.value, Decimal):
            return (("duration", self.value), ("number", self.value), ("number", self.value * 1000))
        if self.kind == "percent" and isinstance(self.value, Decimal):
            return (("number", self.value), ("number", self.value / 100))
        if self.kind in ("date", "month_day"):
            return ((self.kind, self.value),)
        return (("number", self.value),)


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _decimal(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _seconds(text: str) -> Decimal:
    total = Decimal(0)
    for part in text.split(":"):
        total = total * 60 + Decimal(part)
    return total


def _read_date(text: str, *, day_first: bool) -> str:
    parsed = parse_date(text, day_first=day_first)
    # A form the scanner took for a date but that names none (June 31st): compared as written.
    return parsed.isoformat() if parsed else " ".join(text.split())


def _read_month_day(text: str) -> str:
    parsed = parse_date(f"{text} 2000", day_first=True)  # 2000: a leap year, for February 29
    return parsed.isoformat()[5:] if parsed else " ".join(text.split())


def _figure(match: re.Match[str], *, day_first: bool) -> Figure:
    text = match[0]
    kind = match.lastgroup
    if kind == "date":
        return Figure("date", _read_date(text, day_first=day_first), text)
    if kind == "month_day":
        return Figure("month_day", _read_month_day(text), text)
    if kind == "duration":
        return Figure("duration", _seconds(text), text)
    if kind == "money":
        return Figure("money", _decimal(match["amount"] or match["amount_first"]), text)
    if kind == "percent":
        return Figure("percent", _decimal(match["percentage"]), text)
    return Figure("number", _decimal(text), text)


# Every figure holds a digit: a text without one (most answers that only say what was done) is
# not scanned at all.
_DIGIT = re.compile(r"\d")


def find_figures(text: str, *, day_first: bool = False) -> list[Figure]:
    """The figures in ``text``, in order, by the rules the module describes."""
    if _DIGIT.search(text) is None:
        return []
    return [_figure(match, day_first=day_first) for match in _FIGURE.finditer(text)]


def _json_figures(value: Any, *, day_first: bool) -> Iterator[Figure]:
    """Figures in a JSON value: numbers as numbers, text (keys too) scanned."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float):
        yield Figure("number", Decimal(repr(value)), repr(value))
    elif isinstance(value, str):
        yield from find_figures(value, day_first=day_first)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _json_figures(str(key), day_first=day_first)
            yield from _json_figures(item, day_first=day_first)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _json_figures(item, day_first=day_first)


def evidence_index(trace: Trace, *, day_first: bool = False) -> dict[Key, list[str]]:
    """Evidence key → the sources (span ids, :data:`INPUT_SOURCE`) that hold it, in order."""
    sources: list[tuple[str, Any]] = [(INPUT_SOURCE, trace.input_text)]
    for call in trace.tool_calls:
        # What a failed call was asked to do did not happen: its arguments support nothing.
        if call.succeeded:
            sources.append((call.span_id, call.arguments))
        sources.append((call.span_id, call.result))
    index: dict[Key, list[str]] = {}
    for source, value in sources:
        for figure in _json_figures(value, day_first=day_first):
            for key in figure.supplies():
                holders = index.setdefault(key, [])
                if source not in holders:
                    holders.append(source)
    return index


def _distinct(figures: list[Figure]) -> list[Figure]:
    seen: set[tuple[str, Decimal | str]] = set()
    distinct: list[Figure] = []
    for figure in figures:
        if (figure.kind, figure.value) not in seen:
            seen.add((figure.kind, figure.value))
            distinct.append(figure)
    return distinct


def answer_support(trace: Trace, *, day_first: bool) -> list[tuple[Figure, list[str]]]:
    """Each distinct figure of the final answer, in order, with the sources that hold it (span
    ids, :data:`INPUT_SOURCE`): none for an unsupported one."""
    claims = _distinct(find_figures(trace.final_text, day_first=day_first))
    if not claims:
        return []
    index = evidence_index(trace, day_first=day_first)
    supported: list[tuple[Figure, list[str]]] = []
    for claim in claims:
        holders = [h for key in claim.supported_by() for h in index.get(key, [])]
        supported.append((claim, list(dict.fromkeys(holders))))
    return supported


@dataclass(frozen=True)
class GroundingScorer:
    """Figures of the final answer found in the evidence; passed iff value >= ``threshold``.

    ``day_first`` declares how all-numeric dates (``05/06/2026``) are read.
    """

    name: ClassVar[str] = "grounding"
    # Reads message content (arguments, results, the answer): unscorable without it.
    needs_content: ClassVar[bool] = True
    # Grades a trace on its own, with no case: online evaluators may run it (trailcheck.online).
    reference_free: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    threshold: float = 1.0
    day_first: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold is between 0 and 1, got {self.threshold}")

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def _score(
        self, value: float, reason: str, evidence: tuple[str, ...] = (), *, answered: bool = True
    ) -> Score:
        return Score(
            scorer=self.name,
            value=value,
            # An absent answer fails even under a threshold of 0.
            passed=answered and value >= self.threshold,
            threshold=self.threshold,
            reason=reason,
            evidence=evidence,
        )

    def score(self, trace: Trace, case: Case) -> Score | None:
        answer = trace.final_text
        if not answer.strip():
            return self._score(0.0, "grounding 0/0; no final answer to check", answered=False)
        claims = answer_support(trace, day_first=self.day_first)
        if not claims:
            return self._score(1.0, "grounding 0/0; no numeric claims in the final answer")
        # A reader needs the tool's name; the span id says which of its calls.
        tool_of = {call.span_id: call.name for call in trace.tool_calls}
        supported: list[str] = []
        unsupported: list[str] = []
        spans: list[str] = []
        for claim, holders in claims:
            if not holders:
                unsupported.append(claim.shown)
                continue
            named = [f"{tool_of[h]} {h}" if h in tool_of else h for h in holders]
            supported.append(f"{claim.shown} in {', '.join(named)}")
            spans += [holder for holder in holders if holder != INPUT_SOURCE]
        parts = [f"grounding {ratio(len(supported), len(claims))}"]
        if unsupported:
            parts.append("unsupported: " + ", ".join(unsupported))
        if supported:
            parts.append("supported: " + ", ".join(supported))
        return self._score(
            len(supported) / len(claims), "; ".join(parts), tuple(dict.fromkeys(spans))
        )
