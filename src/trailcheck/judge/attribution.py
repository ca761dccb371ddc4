"""The attribution judge: where a failed run first went wrong, asked of a model.

Where no reference decides it (no expected trajectory, no expected tool output), a model reads
the failed run and names the step of the decisive mistake: the first step whose output was
already wrong in a way that led to the failure. The answer is an
:class:`~trailcheck.scorers.attribution.Attribution` with ``source="judge"``: the step's span
(id, step number, name), the category and the evidence; the agent that took the step is the
step's (:func:`~trailcheck.scorers.steps.step_agent`), so the step and the agent never disagree.

Three strategies, as Who&When (Zhang et al., ICML 2025, "Which Agent Causes Task Failures and
When?") compares them:

- ``step_by_step``: show the steps up to step *k* and ask whether step *k* is the decisive
  mistake, for *k* = 1, 2, ...; stop at the first yes. Up to *n* questions for *n* steps; none
  said yes is unscorable, with that reason.
- ``binary_search``: the mistake is among steps *low..high* (at first all of them); show the
  run up to step *high* and ask which half holds it, until one step is left; then one more
  question for its category and evidence. ⌈log₂ n⌉ + 1 questions.
- ``all_at_once``: show every step and ask for the step, its agent and the category at once.
  One question; an answer whose agent is not the one that took the step it names is asked
  again (the usual retry), since a step and an agent that disagree name no single place.

Every question is a structured call (:func:`~trailcheck.judge.structured.ask_structured`,
strict schemas, one retry), the run's data fenced as untrusted
(:mod:`trailcheck.judge.attribution_prompts`). An answer that fails after its retry, or a model
that cannot be reached, ends the walk unscorable with the reason: a judge's failure is data.
The judge is told the run failed and is not asked whether it did: give it failed runs.

The version pins the model, the strategy, the template version and its text (as
:mod:`trailcheck.judge.pinning` does for every judge).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.cases import Case
from trailcheck.errors import UsageError
from trailcheck.judge.attribution_prompts import ATTRIBUTION_TEMPLATES, render_steps
from trailcheck.judge.pinning import PinnedModelJudge
from trailcheck.judge.structured import Asked, ask_structured, strict_json_schema
from trailcheck.judge.untrusted import untrusted_notice
from trailcheck.models.chat import ChatModel
from trailcheck.scorers.attribution import Attribution, AttributionCategory
from trailcheck.scorers.steps import same_agent, step_agent, trace_steps
from trailcheck.trace import Message, Span, Trace

__all__ = [
    "ATTRIBUTION_STRATEGIES",
    "AttributionJudge",
    "AttributionJudging",
    "AttributionStrategy",
    "CategoryAnswer",
    "HalfAnswer",
    "MistakeAnswer",
    "StepAnswer",
]

AttributionStrategy = Literal["step_by_step", "binary_search", "all_at_once"]
ATTRIBUTION_STRATEGIES: tuple[AttributionStrategy, ...] = get_args(AttributionStrategy)

# The prompts of each strategy, beside the system prompt every strategy uses.
_PROMPTS: Final[dict[AttributionStrategy, tuple[str, ...]]] = {
    "step_by_step": ("step_by_step",),
    "binary_search": ("binary_search", "binary_search_final"),
    "all_at_once": ("all_at_once",),
}

_Answer = TypeVar("_Answer", bound=BaseModel)


class StepAnswer(BaseModel):
    """Step by step: is this step the decisive mistake?"""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: str = Field(description="Short quotes from the data, and why.")
    decisive_mistake: bool
    category: AttributionCategory | None = Field(
        description="The category of the mistake when decisive_mistake is true, else null."
    )


class HalfAnswer(BaseModel):
    """Binary search: which half of the steps holds the decisive mistake?"""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: str = Field(description="Short quotes from the data, and why.")
    half: Literal["first", "second"]


class CategoryAnswer(BaseModel):
    """The end of a binary search: what the mistake at the step found was."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: str = Field(description="Short quotes from the data, and why.")
    category: AttributionCategory


class MistakeAnswer(BaseModel):
    """All at once: the step, its agent and the category."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: str = Field(description="Short quotes from the data, and why.")
    step: int = Field(description="The number of the step where the decisive mistake was made.")
    agent: str | None = Field(description="The agent that took that step, or null when none.")
    category: AttributionCategory


@dataclass(frozen=True, slots=True)
class AttributionJudging:
    """The outcome of one attribution by the judge: the attribution and the agent of its step,
    or None with the reason; the model calls it took (retries included) and the last raw
    answer."""

    attribution: Attribution | None
    agent: str | None
    reason: str
    calls: int
    raw: str | None = None


class AttributionJudge(PinnedModelJudge):
    """Attributes a failed run's failure to a step by asking a model (see the module)."""

    def __init__(
        self,
        model: ChatModel,
        *,
        strategy: AttributionStrategy = "step_by_step",
        template_version: str = "1",
        retries: int = 1,
    ) -> None:
        if strategy not in ATTRIBUTION_STRATEGIES:
            known = ", ".join(ATTRIBUTION_STRATEGIES)
            raise UsageError(f"no attribution strategy {strategy!r} (known: {known})")
        if template_version not in ATTRIBUTION_TEMPLATES:
            known = ", ".join(sorted(ATTRIBUTION_TEMPLATES))
            raise UsageError(f"no attribution template {template_version!r} (known: {known})")
        templates = ATTRIBUTION_TEMPLATES[template_version]
        self._templates = {key: templates[key] for key in ("system", *_PROMPTS[strategy])}
        self._strategy: AttributionStrategy = strategy
        super().__init__(
            model,
            kind="attribution",
            retries=retries,
            strategy=strategy,
            template_version=template_version,
            template=dict(self._templates),
        )

    @property
    def strategy(self) -> AttributionStrategy:
        return self._strategy

    async def attribute(self, trace: Trace, case: Case | None = None) -> Attribution | None:
        """The attribution of ``trace``'s failure, or None when the judge gave none."""
        return (await self.assess(trace, case)).attribution

    async def assess(self, trace: Trace, case: Case | None = None) -> AttributionJudging:
        """The attribution with the agent, the reason and the calls it took."""
        steps = trace_steps(trace)
        if not steps:
            return AttributionJudging(None, None, "the trace has no steps to attribute", 0)
        if self._strategy == "step_by_step":
            return await self._step_by_step(trace, case, steps)
        if self._strategy == "binary_search":
            return await self._binary_search(trace, case, steps)
        return await self._all_at_once(trace, case, steps)

    def messages(
        self,
        prompt: str,
        trace: Trace,
        case: Case | None,
        shown: Sequence[Span],
        *,
        total: int,
        **fields: int | str,
    ) -> list[Message]:
        """The prompt ``prompt`` (a key of the template) showing the steps ``shown``."""
        rendered = render_steps(trace, case, shown, total=total)
        system = self._templates["system"].format(notice=untrusted_notice(rendered.boundary))
        user = self._templates[prompt].format(evidence=rendered.text, **fields)
        return [Message(role="system", content=system), Message(role="user", content=user)]

    async def _ask(
        self,
        messages: list[Message],
        output_type: type[_Answer],
        check: Callable[[_Answer], str | None] | None = None,
    ) -> Asked[_Answer]:
        return await ask_structured(
            self._model,
            messages,
            output_type,
            schema=strict_json_schema(output_type),
            check=check,
            retries=self._retries,
        )

    async def _step_by_step(
        self, trace: Trace, case: Case | None, steps: list[Span]
    ) -> AttributionJudging:
        calls = 0
        for number in range(1, len(steps) + 1):
            messages = self.messages(
                "step_by_step", trace, case, steps[:number], total=len(steps), step=number
            )
            asked = await self._ask(messages, StepAnswer, _category_when_decisive)
            calls += asked.attempts
            if asked.value is None:
                return _unscorable(f"step {number}: {asked.reason}", calls, asked.raw)
            answer = asked.value
            if answer.decisive_mistake and answer.category is not None:
                return _attributed(trace, steps, number, answer.category, answer, calls, asked.raw)
        return _unscorable(
            f"no step was judged the decisive mistake ({len(steps)} steps asked)", calls, None
        )

    async def _binary_search(
        self, trace: Trace, case: Case | None, steps: list[Span]
    ) -> AttributionJudging:
        calls, low, high = 0, 1, len(steps)
        while low < high:
            middle = (low + high) // 2
            messages = self.messages(
                "binary_search",
                trace,
                case,
                steps[:high],
                total=len(steps),
                low=low,
                high=high,
                first_half=_steps_text(low, middle),
                second_half=_steps_text(middle + 1, high),
            )
            asked = await self._ask(messages, HalfAnswer)
            calls += asked.attempts
            if asked.value is None:
                return _unscorable(f"steps {low} to {high}: {asked.reason}", calls, asked.raw)
            low, high = (low, middle) if asked.value.half == "first" else (middle + 1, high)
        messages = self.messages(
            "binary_search_final", trace, case, steps[:low], total=len(steps), step=low
        )
        final = await self._ask(messages, CategoryAnswer)
        calls += final.attempts
        if final.value is None:
            return _unscorable(f"step {low}: {final.reason}", calls, final.raw)
        return _attributed(trace, steps, low, final.value.category, final.value, calls, final.raw)

    async def _all_at_once(
        self, trace: Trace, case: Case | None, steps: list[Span]
    ) -> AttributionJudging:
        messages = self.messages(
            "all_at_once", trace, case, steps, total=len(steps), count=len(steps)
        )
        asked = await self._ask(messages, MistakeAnswer, lambda a: _step_problem(a, trace, steps))
        if asked.value is None:
            return _unscorable(asked.reason, asked.attempts, asked.raw)
        answer = asked.value
        return _attributed(
            trace, steps, answer.step, answer.category, answer, asked.attempts, asked.raw
        )


def _steps_text(first: int, last: int) -> str:
    return f"step {first}" if first == last else f"one of steps {first} to {last}"


def _category_when_decisive(answer: StepAnswer) -> str | None:
    if answer.decisive_mistake and answer.category is None:
        return "a decisive mistake needs its category"
    return None


def _step_problem(answer: MistakeAnswer, trace: Trace, steps: Sequence[Span]) -> str | None:
    if not 1 <= answer.step <= len(steps):
        return f"step must be a step number from 1 to {len(steps)}, not {answer.step}"
    taken_by = step_agent(trace, steps[answer.step - 1])
    if answer.agent is not None and taken_by is not None and not same_agent(answer.agent, taken_by):
        # The agent's name is the run's data: the retry prompt, outside any block, does not
        # quote it.
        return (
            f"the agent named is not the agent that took step {answer.step} in the data; name"
            " the step where the decisive mistake was made and the agent that took that step"
        )
    return None


def _attributed(
    trace: Trace,
    steps: Sequence[Span],
    number: int,
    category: AttributionCategory,
    answer: StepAnswer | CategoryAnswer | MistakeAnswer,
    calls: int,
    raw: str | None,
) -> AttributionJudging:
    span = steps[number - 1]
    attribution = Attribution(
        span_id=span.span_id,
        step=number,
        name=span.name,
        category=category,
        evidence=answer.evidence,
        source="judge",
    )
    agent = step_agent(trace, span)
    return AttributionJudging(attribution, agent, f"step {number}: {category}", calls, raw)


def _unscorable(reason: str, calls: int, raw: str | None) -> AttributionJudging:
    return AttributionJudging(None, None, reason, calls, raw)
