"""Rubric lint: two kinds of rubric a judge cannot apply reliably, found by plain heuristics.

**Knowledge rubric** (``kind="knowledge"``): the rubric asserts a fact instead of stating a
criterion, so applying it needs world knowledge the judge may lack or get wrong; the fact
belongs in the case's ``reference_response``, where the reference judge compares against it.
Flagged when the text is declarative (no ``?``, does not start with a criterion word), has no
criterion word anywhere (the agent, the answer, must, should, verify, mention ...), and asserts
something checkable: a number or date, or a capitalised word after the first (a proper noun).

- flagged: "The capital of France is Paris"; "Verstappen won the 2024 São Paulo GP";
  "Refunds take 5 business days"
- not flagged: "The answer states that refunds take 5 business days"; "Did the agent quote
  the 2024 price?"; "Water is wet" (no proper noun or number: see below)

**No explicit criterion** (``kind="no_criterion"``): once the vague evaluative words (good,
helpful, correct, appropriate, quality ...), the generic nouns (answer, response, trajectory,
agent ...) and the function words are set aside, nothing concrete is left to check.

- flagged: "good answer"; "Was the trajectory good?"; "Be helpful"; "The response is correct"
- not flagged: "Did the agent verify identity before the refund call?"; "The answer mentions
  the refund amount"

Both are heuristics: deterministic, cheap, and meant to prompt a second look, not to refuse a
rubric. A sentence with neither a number nor a proper noun ("Water is wet") passes as a
knowledge rubric, and one that names a concrete thing vaguely ("good refund") passes as a
criterion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["RubricProblem", "RubricProblemKind", "lint_rubric"]

RubricProblemKind = Literal["knowledge", "no_criterion"]

_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_NUMBER = re.compile(r"\d")
# Words that make a text a criterion about the run: its subjects and its checking verbs.
_CRITERION_WORDS = frozenset(
    {
        *("agent", "assistant", "answer", "response", "reply", "output", "model", "bot"),
        *("trajectory", "tool", "tools", "call", "calls", "called", "user", "conversation"),
        *("must", "should", "shall", "never", "always", "only", "cannot", "avoid", "avoids"),
        *("verify", "verifies", "verified", "check", "checks", "checked", "ensure", "ensures"),
        *("confirm", "confirms", "confirmed", "mention", "mentions", "mentioned", "ask", "asks"),
        *("asked", "state", "states", "stated", "cite", "cites", "include", "includes"),
        *("refuse", "refuses", "refused", "explain", "explains", "quote", "quotes", "says"),
        *("said", "tell", "tells", "told", "provide", "provides", "offer", "offers"),
    }
)
# Words that open a question or an instruction to the judge.
_CRITERION_OPENERS = frozenset(
    {"did", "does", "do", "is", "was", "were", "are", "has", "have", "had", "can", "could"}
    | {"will", "would", "when", "whether", "if", "how", "which", "what", "who", "where"}
)
_VAGUE_WORDS = frozenset(
    {
        *("good", "great", "nice", "fine", "ok", "okay", "bad", "poor", "better", "best"),
        *("helpful", "useful", "correct", "right", "accurate", "appropriate", "proper"),
        *("properly", "well", "quality", "high", "reasonable", "sensible", "satisfactory"),
        *("acceptable", "adequate", "clear", "relevant", "polite", "friendly", "professional"),
        *("complete", "thorough", "sound", "excellent", "perfect", "effective", "efficient"),
        *("job", "overall", "generally", "really", "very", "enough", "behave", "behaves"),
    }
)
_GENERIC_WORDS = frozenset(
    {
        *("answer", "response", "reply", "output", "result", "trajectory", "agent"),
        *("assistant", "model", "bot", "run", "conversation", "it", "this", "that"),
        *("the", "a", "an", "is", "was", "were", "are", "be", "been", "being", "did", "do"),
        *("does", "has", "have", "should", "must", "and", "or", "of", "to", "in", "its"),
        *("make", "sure", "give", "gives", "gave", "provide", "provides", "there"),
    }
)


@dataclass(frozen=True, slots=True)
class RubricProblem:
    """One problem of one rubric: its kind, what is wrong and what to do, and the text."""

    kind: RubricProblemKind
    message: str
    rubric: str


def lint_rubric(text: str) -> list[RubricProblem]:
    """The problems of one rubric (an empty list when none is found); see the module."""
    words = _WORD.findall(text)
    lower = [word.lower() for word in words]
    if not [w for w in lower if w not in _VAGUE_WORDS | _GENERIC_WORDS]:
        return [
            RubricProblem(
                "no_criterion",
                "no explicit criterion: say what the agent must do or the answer must contain"
                ' (e.g. "did the agent verify identity before the refund call?")',
                text,
            )
        ]
    if _asserts_a_fact(text, words, lower):
        return [
            RubricProblem(
                "knowledge",
                "knowledge rubric: it asserts a fact rather than a criterion; put the fact in"
                " the case's reference_response and judge with the reference judge",
                text,
            )
        ]
    return []


def _asserts_a_fact(text: str, words: list[str], lower: list[str]) -> bool:
    if "?" in text or lower[0] in _CRITERION_OPENERS:
        return False
    if any(word in _CRITERION_WORDS for word in lower):
        return False
    proper_noun = any(word[:1].isupper() for word in words[1:])
    return proper_noun or bool(_NUMBER.search(text))
