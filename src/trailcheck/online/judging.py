"""Judges for the worker: a :data:`~trailcheck.online.evaluate.JudgeRunner` over chat models,
counting what each judging spent.

Each ``judge:`` evaluator is judged by the model its spec names, else the worker's default
model; every model is made once and shared by the judgings that use it (and by their rate
limiter). The tokens a judging used are summed from the model's replies, so an execution
records what it cost even when the judge gave no verdict.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from trailcheck.errors import UsageError
from trailcheck.models.chat import ChatModel, Reply, ToolDeclaration
from trailcheck.models.openai_client import OpenAIChatModel
from trailcheck.online.config import Evaluator, OnlineConfig
from trailcheck.online.evaluate import JudgeResult
from trailcheck.online.judges import build_judge, judge_trace
from trailcheck.rate_limit import RateLimiter
from trailcheck.trace import Message, Trace

__all__ = ["ModelJudges", "TallyingModel", "openai_judges"]


class TallyingModel:
    """A chat model that sums the tokens of its replies (and which model answered), for one
    judging. Its name and settings are the wrapped model's, so the judge's version is too."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.answered_by: str | None = None

    @property
    def name(self) -> str:
        return self._model.name

    def settings(self) -> dict[str, Any]:
        settings: Callable[[], dict[str, Any]] | None = getattr(self._model, "settings", None)
        return dict(settings()) if callable(settings) else {}

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDeclaration] = (),
        output_schema: dict[str, Any] | None = None,
    ) -> Reply:
        reply = await self._model.complete(messages, tools, output_schema)
        usage = reply.usage
        if usage is not None and usage.input_tokens is not None:
            self.input_tokens = (self.input_tokens or 0) + usage.input_tokens
        if usage is not None and usage.output_tokens is not None:
            self.output_tokens = (self.output_tokens or 0) + usage.output_tokens
        self.answered_by = reply.model or self.answered_by
        return reply


class ModelJudges:
    """A :data:`~trailcheck.online.evaluate.JudgeRunner` judging each evaluator's trace with
    ``model_named(spec.model)`` (``None``: the default model), each model made once; ``aclose``
    closes the models it made (the worker calls it at the end of each pass, in the pass's event
    loop; the next pass makes them again)."""

    def __init__(self, model_named: Callable[[str | None], ChatModel]) -> None:
        self._model_named = model_named
        self._models: dict[str | None, ChatModel] = {}

    async def __call__(self, evaluator: Evaluator, trace: Trace) -> JudgeResult:
        spec = evaluator.judge
        if spec is None:
            raise UsageError(f"evaluator {evaluator.name!r} runs no judge")
        if spec.model not in self._models:
            self._models[spec.model] = self._model_named(spec.model)
        tally = TallyingModel(self._models[spec.model])
        judging = await judge_trace(spec, trace, build_judge(spec, tally))
        return JudgeResult(
            judging,
            model=tally.answered_by or tally.name,
            input_tokens=tally.input_tokens,
            output_tokens=tally.output_tokens,
        )

    async def aclose(self) -> None:
        models, self._models = list(self._models.values()), {}
        for model in models:
            close: Callable[[], Awaitable[object]] | None = getattr(model, "aclose", None)
            if close is not None:
                await close()


def openai_judges(
    config: OnlineConfig,
    *,
    judge_model: str | None,
    base_url: str | None,
    api_key_env: str = "OPENAI_API_KEY",
    rate: float | None = None,
) -> ModelJudges | None:
    """The judges of ``config`` over OpenAI-compatible models (``None`` when it has no judge):
    each judge's own ``model``, else ``judge_model``, at ``base_url``, with at most ``rate``
    requests a second between them. A judge with no model of its own needs ``judge_model``."""
    judged = [e for e in config.evaluators if e.judge is not None]
    if not judged:
        return None
    unset = [e.name for e in judged if e.judge is not None and e.judge.model is None]
    if unset and judge_model is None:
        raise UsageError(
            f"evaluators {', '.join(unset)} run a judge with no model of its own:"
            " give --judge-model"
        )
    limiter = None if rate is None else RateLimiter(rate=rate)

    def model_named(name: str | None) -> ChatModel:
        chosen = name or judge_model
        if chosen is None:  # refused above
            raise UsageError("a judge evaluator names no model: give --judge-model")
        return OpenAIChatModel(
            chosen, base_url=base_url, api_key_env=api_key_env, rate_limiter=limiter
        )

    return ModelJudges(model_named)
