"""The groundedness judge, offline: trailcheck's real judge on a scripted model.

``--judge trailcheck.demo.pitwall:scripted_judge`` (or :func:`scripted_judge` in code) is the
real :class:`~trailcheck.judge.GroundednessJudge`, with its prompt, its structured answer and
its checks, on a :class:`~trailcheck.models.ScriptedModel` whose verdicts are computed from the
prompt it is sent. So the offline demo exercises everything a real judge run does except the
model's reading; ``--judge groundedness --judge-model NAME`` puts a real model there.

The scripted reader is strict and literal, a caricature of a careful judge: a numbered sentence
is supported when every figure in it (:func:`~trailcheck.scorers.grounding.find_figures`)
appears in the user input or a tool call, and every race term it uses is a field some tool
result has (a sentence about the fastest lap needs a ``fastest_lap`` in a result). Its evidence
quotes are the figures it found. It does not understand paraphrase, which a real judge does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import orjson

from trailcheck.judge.groundedness import GroundednessJudge, SentenceJudgment, SentenceJudgments
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration
from trailcheck.scorers.grounding import Key, find_figures
from trailcheck.trace import Message

__all__ = ["RACE_TERMS", "scripted_groundedness", "scripted_judge"]

RACE_TERMS = {
    "fastest lap": "fastest_lap",
    "pole": "grid",
    "median pace": "median_pace",
    "stops on": "pit_stops",
}
"""A phrase of the answer, and the result field that must be in the evidence for it."""

_HEADING = re.compile(r"^## (.+)$", re.MULTILINE)
_SENTENCE = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_EVIDENCE_HEADINGS = ("User input", "Tool call ")


def _sections(prompt: str) -> dict[str, str]:
    """The prompt's sections by heading (render_sections writes ``## Heading`` then a block)."""
    marks = list(_HEADING.finditer(prompt))
    ends = [mark.start() for mark in marks[1:]] + [len(prompt)]
    return {mark[1]: prompt[mark.end() : end] for mark, end in zip(marks, ends, strict=True)}


def _judgment(number: int, sentence: str, evidence: str, keys: set[Key]) -> SentenceJudgment:
    figures = find_figures(sentence)
    missing = [f for f in figures if not any(key in keys for key in f.supported_by())]
    unknown = [term for term, field in RACE_TERMS.items() if term in sentence.lower()]
    unknown = [term for term in unknown if f'"{RACE_TERMS[term]}"' not in evidence]
    supported = not missing and not unknown
    quotes = [figure.text for figure in figures] if supported else []
    return SentenceJudgment(number=number, supported=supported, evidence=quotes)


def scripted_groundedness(
    messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()
) -> Reply:
    """The structured answer to a groundedness prompt (see the module docstring)."""
    prompt = next((m.text for m in messages if m.role == "user"), "")
    sections = _sections(prompt)
    evidence = "\n".join(
        text for heading, text in sections.items() if heading.startswith(_EVIDENCE_HEADINGS)
    )
    keys = {key for figure in find_figures(evidence) for key in figure.supplies()}
    numbered = _SENTENCE.findall(sections.get("Answer sentences", ""))
    judgments = [_judgment(int(n), text, evidence, keys) for n, text in numbered]
    answer = SentenceJudgments(sentences=judgments)
    return Reply(text=orjson.dumps(answer.model_dump()).decode())


def scripted_judge() -> GroundednessJudge:
    """The groundedness judge on the scripted reader: for tests and the offline demo."""
    return GroundednessJudge(ScriptedModel(scripted_groundedness, name="pitwall-scripted-judge"))
