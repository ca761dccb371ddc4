"""Contradictions: a case whose rubrics, reference and expected tools disagree on one behaviour.

A case contradicts itself when one of its parts asks for a behaviour and another forbids it; no
agent can satisfy both, so the case fails whatever the agent does, or passes only because a judge
reads one side. Each part is read for *claims*, a polarity (``does`` or ``does not``) about a
subject (a tool by name, or an action by its verb):

- a rubric, by its modal: ``must|should|has to|needs to`` (``does``), with ``not``, ``n't`` or
  ``never`` (``does not``), then either ``call|use|invoke|run <tool>`` (a tool: an identifier
  with an underscore, or a tool the dataset or case names) or an action verb, with ``issue a``
  and the like skipped (``must not issue a refund`` forbids the action ``refund``);
- the reference response: ``I have|I've|we have|has been|was <verb>...`` says the action was
  done (``I have issued your refund``, ``your order has been cancelled``); ``I cannot|can't|
  won't|am unable to ... <verb>`` says it was not;
- ``expected_tools``: each tool is a ``does``.

Two claims of opposite polarity contradict when they name the same tool, the same action, or an
action and a tool whose name has that verb as a word (``refund`` and ``issue_refund``). Each
contradiction is a ``contradiction`` finding (medium) quoting both sides.

Limits, by design: English only; verbs are matched by prefix (``refund`` matches ``refunded``,
``cancel`` ``cancelled``), so a rubric about ``refunds policy`` wording may match loosely;
verbs that describe talk rather than acts (``ask``, ``explain``, ``apologize``...) are skipped;
conditions are not read (``must not refund unless the order is late`` still forbids ``refund``),
nor are quantities, arguments or which turn a claim is about. It finds the plain contradictions
that creep in when a rubric is edited and the reference is not; a judge-level reading is beyond it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Literal

from trailcheck.audit.finding import Finding
from trailcheck.cases import Case

CHECK = "contradiction"
Polarity = Literal["does", "does not"]

_NEGATION = r"(?P<neg>\s+not|n't|\s+never)?"
_MODAL = r"\b(?:must|should|has\s+to|have\s+to|needs\s+to|need\s+to|is\s+to)"
_TOOL_RULE = re.compile(
    rf"{_MODAL}{_NEGATION}\s+(?:ever\s+)?(?:call|use|invoke|run)\s+(?:the\s+)?`?(?P<tool>[a-z][\w]*)`?"
)
_ACTION_RULE = re.compile(
    rf"{_MODAL}{_NEGATION}\s+(?:ever\s+)?(?:issue\s+(?:an?\s+|the\s+|any\s+)?)?(?P<verb>[a-z]+)"
)
_NEVER_RULE = re.compile(
    r"\b(?:never|do\s+not|don't)\s+(?:issue\s+(?:an?\s+|the\s+|any\s+)?)?(?P<verb>[a-z]+)"
)
_DONE = r"(?:i\s+have|i've|we\s+have|we've|has\s+been|have\s+been|was|were)"
_DENIED = (
    r"(?:i\s+(?:cannot|can't|can\s+not|won't|will\s+not|did\s+not|didn't|am\s+unable\s+to"
    r"|am\s+not\s+able\s+to)|unable\s+to)"
)
_FILLER = r"(?:now\s+|just\s+|successfully\s+|already\s+)?(?:issued\s+(?:an?\s+|the\s+|your\s+)?)?"
# Verbs that say how the agent talks, not what it does; and modal words that are no verb.
_NOT_ACTIONS = frozenset(
    [
        "be",
        "not",
        "ever",
        "have",
        "call",
        "use",
        "invoke",
        "run",
        "ask",
        "tell",
        "say",
        "explain",
        "mention",
        "respond",
        "reply",
        "answer",
        "greet",
        "provide",
        "include",
        "state",
        "apologize",
        "acknowledge",
        "offer",
        "clarify",
        "inform",
        "remain",
        "stay",
        "always",
        "only",
        "also",
    ]
)


@dataclass(frozen=True)
class Claim:
    """One part of a case saying a behaviour does or does not happen."""

    polarity: Polarity
    kind: Literal["tool", "action"]
    subject: str
    where: str
    quote: str


def _polarity(negated: str | None) -> Polarity:
    return "does not" if negated else "does"


def rubric_claims(index: int, rubric: str, tools: Collection[str]) -> list[Claim]:
    """The tools and actions ``rubric`` requires or forbids (see the module docstring)."""
    text = rubric.casefold()
    where = f"rubrics[{index}]"
    claims: list[Claim] = []
    for match in _TOOL_RULE.finditer(text):
        tool = match["tool"]
        if "_" in tool or tool in tools:
            claims.append(Claim(_polarity(match["neg"]), "tool", tool, where, rubric))
    for match in _ACTION_RULE.finditer(text):
        if match["verb"] not in _NOT_ACTIONS:
            polarity = _polarity(match["neg"])
            claims.append(Claim(polarity, "action", match["verb"], where, rubric))
    for match in _NEVER_RULE.finditer(text):
        if match["verb"] not in _NOT_ACTIONS:
            claims.append(Claim("does not", "action", match["verb"], where, rubric))
    return claims


def reference_claims(reference: str, verbs: Collection[str]) -> list[Claim]:
    """For each verb of ``verbs``, whether ``reference`` says it was done or refused."""
    text = reference.casefold()
    claims: list[Claim] = []
    for verb in sorted(verbs):
        done = re.search(rf"\b{_DONE}\s+{_FILLER}{re.escape(verb)}", text)
        denied = re.search(rf"\b{_DENIED}\s+(?:\w+\s+){{0,2}}?{re.escape(verb)}", text)
        found_by: tuple[tuple[re.Match[str] | None, Polarity], ...] = (
            (done, "does"),
            (denied, "does not"),
        )
        for found, polarity in found_by:
            if found is not None:
                quote = _sentence(reference, found.start())
                claims.append(Claim(polarity, "action", verb, "reference_response", quote))
    return claims


def _sentence(text: str, at: int) -> str:
    """The sentence of ``text`` around position ``at``."""
    start = max(text.rfind(mark, 0, at) for mark in ".!?") + 1
    ends = [end for mark in ".!?" if (end := text.find(mark, at)) != -1]
    return text[start : min(ends, default=len(text))].strip()


def _same_behaviour(left: Claim, right: Claim) -> bool:
    if left.kind == right.kind:
        return left.subject == right.subject
    tool, action = (left, right) if left.kind == "tool" else (right, left)
    return any(word.startswith(action.subject) for word in tool.subject.split("_"))


def _describe(claim: Claim) -> str:
    if claim.where == "expected_tools":
        return f"expected_tools lists {claim.subject}"
    if claim.where == "reference_response":
        said = "done" if claim.polarity == "does" else "refused"
        return f"reference_response says {claim.subject} was {said}: {claim.quote!r}"
    verb = "requires" if claim.polarity == "does" else "forbids"
    return f"{claim.where} {verb} {claim.subject}: {claim.quote!r}"


def _pairs(claims: list[Claim]) -> Iterator[tuple[Claim, Claim]]:
    for index, left in enumerate(claims):
        for right in claims[index + 1 :]:
            if left.where == right.where or left.polarity == right.polarity:
                continue
            if _same_behaviour(left, right):
                yield left, right


def check_contradictions(case: Case, tools: Collection[str] = ()) -> list[Finding]:
    """The contradictions between ``case``'s rubrics, reference and expected tools."""
    known = {*tools, *(case.expected_tools or [])}
    claims = [c for i, r in enumerate(case.rubrics) for c in rubric_claims(i, r, known)]
    if case.reference_response:
        verbs = {claim.subject for claim in claims if claim.kind == "action"}
        claims += reference_claims(case.reference_response, verbs)
    if claims:
        claims += [
            Claim("does", "tool", tool, "expected_tools", tool)
            for tool in case.expected_tools or []
        ]
    findings: list[Finding] = []
    seen: set[str] = set()
    for left, right in _pairs(claims):
        message = f"contradiction: {_describe(left)}; but {_describe(right)}"
        if message not in seen:
            seen.add(message)
            findings.append(
                Finding(case_id=case.id, check=CHECK, severity="medium", message=message)
            )
    return findings
