"""The response scorer: deterministic checks of the final answer (no model involved).

The settings choose the checks; each is one unit of the value (passed checks / checks):

- ``reference``: how the case's ``reference_response`` is checked, when the case has one:
  ``equals`` (normalised equality, the default), ``contains`` (the answer contains it), or
  ``ignore``;
- ``all_of``: each keyword must appear (one check per keyword);
- ``any_of``: at least one of the keywords must appear (one check);
- ``regex``: each pattern must match somewhere in the answer, as written (one check per
  pattern; flags go in the pattern, ``(?i)``);
- ``must_not_contain``: each phrase must not appear (one check per phrase);
- ``scope``: where the keyword, regex and must-not-contain checks look: ``final_answer`` (the
  default), or ``every_answer``: every answer the agent gave in the trace (the text of each
  assistant message a model call returned, and the final answer), as tau-bench looks for a
  task's outputs in every agent message of a conversation. The reference is always checked
  against the final answer.

Normalised text has accents and runs of whitespace folded, and case too unless
``case_sensitive``; equality also ignores surrounding punctuation (``Refunded.`` = ``refunded``).
Keywords, phrases and a contained reference match whole words: ``refund`` is not found in
``refunded``, nor ``no`` in ``know``.

No check asked for (no reference, or ``ignore``, and no keyword settings) produces no Score.
No final answer is a failing score (0.0) whatever the checks: a ``must_not_contain`` never
passes on an empty answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal

from trailcheck.cases import Case, ScorerSpec
from trailcheck.scorers.comparison import fold_text
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Trace

ReferenceCheck = Literal["equals", "contains", "ignore"]
Scope = Literal["final_answer", "every_answer"]
_SURROUNDING_PUNCTUATION = " \t\n.!?,;:'\"“”‘’()"
_SHOWN_LIMIT = 80


def _quoted(text: str) -> str:
    shown = text if len(text) <= _SHOWN_LIMIT else text[: _SHOWN_LIMIT - 1] + "…"
    return f'"{shown}"'


@dataclass(frozen=True, slots=True)
class _Check:
    passed: bool
    failure: str
    """What the reason says when the check failed."""


@dataclass(frozen=True)
class ResponseScorer:
    """Reference and keyword checks of the final answer; passed iff value >= ``threshold``."""

    name: ClassVar[str] = "response"
    # Reads message content (arguments, results, the answer): unscorable without it.
    needs_content: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    reference: ReferenceCheck = "equals"
    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    regex: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()
    case_sensitive: bool = False
    threshold: float = 1.0
    scope: Scope = "final_answer"

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold is between 0 and 1, got {self.threshold}")
        for pattern in self.regex:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"regex {pattern!r} does not compile: {error}") from None
        for setting in ("all_of", "any_of", "must_not_contain"):
            if any(not self.normalise(word) for word in getattr(self, setting)):
                raise ValueError(f"{setting}: an empty keyword would match anything")

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def normalise(self, text: str) -> str:
        return fold_text(
            text,
            case_sensitive=self.case_sensitive,
            accent_sensitive=False,
            whitespace_sensitive=False,
        )

    def found(self, phrase: str, answer: str) -> bool:
        """Whether ``phrase`` appears in ``answer`` as whole words, both normalised."""
        wanted = self.normalise(phrase)
        start = r"(?<!\w)" if wanted[:1].isalnum() or wanted[:1] == "_" else ""
        end = r"(?!\w)" if wanted[-1:].isalnum() or wanted[-1:] == "_" else ""
        return re.search(start + re.escape(wanted) + end, self.normalise(answer)) is not None

    def _reference_check(self, reference: str | None, answer: str) -> list[_Check]:
        if reference is None or self.reference == "ignore":
            return []
        if self.reference == "contains":
            return [
                _Check(self.found(reference, answer), f"reference {_quoted(reference)} not found")
            ]
        expected = self.normalise(reference).strip(_SURROUNDING_PUNCTUATION)
        got = self.normalise(answer).strip(_SURROUNDING_PUNCTUATION)
        return [
            _Check(
                expected == got,
                f"equals reference: expected {_quoted(expected)}, got {_quoted(got)}",
            )
        ]

    def answers(self, trace: Trace) -> str:
        """The text the keyword checks read (see ``scope``): the final answer, or every answer
        the agent gave, once each, in the order given, a line apart."""
        if self.scope == "final_answer":
            return trace.final_text
        said = [
            message.text
            for span in trace.spans
            if span.llm is not None
            for message in span.llm.output_messages or ()
            if message.role == "assistant"
        ]
        said.append(trace.final_text)
        return "\n".join(dict.fromkeys(text for text in said if text.strip()))

    def checks(self, reference: str | None, answer: str, said: str | None = None) -> list[_Check]:
        """Every check the settings and the case's reference ask for, in a fixed order: the
        reference against ``answer``, the others against ``said`` (default: ``answer``)."""
        checks = self._reference_check(reference, answer)
        answer = answer if said is None else said
        checks += [
            _Check(self.found(word, answer), f"all_of: missing {_quoted(word)}")
            for word in self.all_of
        ]
        if self.any_of:
            checks.append(
                _Check(
                    any(self.found(word, answer) for word in self.any_of),
                    "any_of: none of " + ", ".join(map(_quoted, self.any_of)),
                )
            )
        checks += [
            _Check(re.search(pattern, answer) is not None, f"regex: no match for /{pattern}/")
            for pattern in self.regex
        ]
        checks += [
            _Check(not self.found(phrase, answer), f"must_not_contain: found {_quoted(phrase)}")
            for phrase in self.must_not_contain
        ]
        return checks

    def score(self, trace: Trace, case: Case) -> Score | None:
        answer = trace.final_text
        checks = self.checks(case.reference_response, answer, self.answers(trace))
        if not checks:
            return None
        if not answer.strip():
            value = 0.0
            reason = f"response {ratio(0, len(checks))}; no final answer to check"
        else:
            passed = sum(check.passed for check in checks)
            value = passed / len(checks)
            failures = [check.failure for check in checks if not check.passed]
            reason = "; ".join([f"response {ratio(passed, len(checks))}", *failures])
        return Score(
            scorer=self.name,
            value=value,
            # An absent answer fails even under a threshold of 0.
            passed=bool(answer.strip()) and value >= self.threshold,
            threshold=self.threshold,
            reason=reason,
        )
