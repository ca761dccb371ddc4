"""Asking a model for each clause's scenarios, and keeping what it got wrong as problems.

One request per clause, one after the other (a scripted model's replies come in clause order,
and a provider's rate limit is not raced). The answer is validated against
:class:`~trailcheck.drafting.answer.DraftAnswer` by :func:`~trailcheck.judge.ask_structured`,
which asks once more, saying what was wrong, when it is not JSON or does not fit; a scenario of
a kind that was not asked for is wrong too. A clause whose answer is still unusable, or whose
model cannot be reached, is a problem naming the clause, and drafting goes on with the next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from trailcheck.drafting.answer import SCENARIO_KINDS, DraftAnswer, DraftedScenario, ScenarioKind
from trailcheck.drafting.clauses import PolicyClause
from trailcheck.drafting.prompt import clause_messages
from trailcheck.judge.structured import ask_structured
from trailcheck.models import ChatModel, ToolDeclaration

__all__ = ["Drafted", "Drafting", "ask_for_drafts"]


@dataclass(frozen=True, slots=True)
class Drafted:
    """One scenario the model drafted, and the clause it was drafted for."""

    clause: PolicyClause
    scenario: DraftedScenario


@dataclass(frozen=True, slots=True)
class Drafting:
    """What the model drafted, and one problem per clause it gave no usable answer for."""

    drafted: tuple[Drafted, ...]
    problems: tuple[str, ...]


def _kinds_check(kinds: Sequence[ScenarioKind]) -> Callable[[DraftAnswer], str | None]:
    wanted = set(kinds)

    def check(answer: DraftAnswer) -> str | None:
        other = sorted({d.scenario for d in answer.drafts} - wanted)
        if other:
            return f"scenarios of kinds not asked for: {', '.join(other)}"
        return None

    return check


async def ask_for_drafts(
    model: ChatModel,
    clauses: Sequence[PolicyClause],
    tools: Sequence[ToolDeclaration],
    *,
    kinds: Sequence[ScenarioKind] = SCENARIO_KINDS,
    retries: int = 1,
) -> Drafting:
    """Each clause's scenarios of ``kinds`` from ``model`` (see the module)."""
    drafted: list[Drafted] = []
    problems: list[str] = []
    check = _kinds_check(kinds)
    for clause in clauses:
        messages = clause_messages(clause, clauses, tools, kinds)
        asked = await ask_structured(
            model, messages, DraftAnswer, check=check, retries=retries, role="drafting"
        )
        if asked.value is None:
            problems.append(f"clause {clause.id}: {asked.reason}")
            continue
        drafted += [Drafted(clause, scenario) for scenario in asked.value.drafts]
    return Drafting(tuple(drafted), tuple(problems))
