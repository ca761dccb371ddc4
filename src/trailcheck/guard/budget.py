"""Budgets of one invocation: when one is spent the agent answers, instead of raising.

::

    budget = Budget(model_calls=3, hard_cap=10, tokens=20_000, cost_usd=0.05)
    meter = budget.meter()
    meter.begin()                                   # each user turn (invocation) starts at 0
    while (stop := meter.before_model_call()) is None:
        reply = await model.complete(...)
        meter.charge_model_call(reply.usage)
        ...
    return stop.message                             # "Stopped: no final answer after 3 ..."

An invocation is one user turn: :meth:`BudgetMeter.begin` resets the counts, so a second turn of
the same session gets the whole budget again. The limits, each counted over the invocation:

- ``model_calls``: the step limit (a step is one model call and the tool calls it asks for).
- ``tool_calls``: tool calls run; a reply that asks for more than are left runs none of them.
- ``tokens`` (input plus output, as the model reports them) and ``cost_usd``: checked before
  each model call, so the call that crosses the line completes and the next one is not made.

A spent limit is a :class:`BudgetStop`: the message for the user and what the run's metadata
records. ``hard_cap`` (model calls) is the safety net above the budget: a loop that does not
stop when told to raises :class:`BudgetCapError` at the cap, failing the trial. A budget at or
above its cap could never answer before the cap raised, so that configuration is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from trailcheck.errors import UsageError
from trailcheck.trace import Usage

__all__ = ["Budget", "BudgetCapError", "BudgetLimit", "BudgetMeter", "BudgetStop"]

BudgetLimit = Literal["model_calls", "tool_calls", "tokens", "cost_usd"]

_MESSAGES: dict[BudgetLimit, str] = {
    "model_calls": "Stopped: no final answer after {allowed} model calls in this turn.",
    "tool_calls": (
        "Stopped: no final answer within this turn's budget of {allowed} tool calls"
        " ({used} made, {asked} more asked for)."
    ),
    "tokens": (
        "Stopped: no final answer within this turn's budget of {allowed} tokens ({used} used)."
    ),
    "cost_usd": (
        "Stopped: no final answer within this turn's budget of ${allowed:.4f} (${used:.4f} spent)."
    ),
}


class BudgetCapError(Exception):
    """A loop went on past its budget to the hard cap: a bug in the loop, not in the model."""


@dataclass(frozen=True, slots=True)
class Budget:
    """The limits of one invocation (see the module); ``None`` leaves a limit unset."""

    model_calls: int = 20
    hard_cap: int | None = None
    tool_calls: int | None = None
    tokens: int | None = None
    cost_usd: float | None = None

    def __post_init__(self) -> None:
        if self.model_calls < 1:
            raise UsageError(f"a budget allows at least 1 model call, not {self.model_calls}")
        if self.hard_cap is not None and self.hard_cap <= self.model_calls:
            raise UsageError(
                f"a budget of {self.model_calls} model calls is at or above its hard cap of"
                f" {self.hard_cap}: the cap would fail the run before the budget could answer;"
                f" set hard_cap above {self.model_calls}"
            )
        for name, value in (("tool_calls", self.tool_calls), ("tokens", self.tokens)):
            if value is not None and value < 1:
                raise UsageError(f"a budget's {name} is at least 1 when set, not {value}")
        if self.cost_usd is not None and not self.cost_usd > 0:
            raise UsageError(f"a budget's cost_usd is above 0 when set, not {self.cost_usd}")

    @property
    def cap(self) -> int:
        """The hard cap on model calls: ``hard_cap``, else twice the budget (at least +10)."""
        if self.hard_cap is not None:
            return self.hard_cap
        return max(2 * self.model_calls, self.model_calls + 10)

    def meter(self) -> BudgetMeter:
        """A fresh meter for one session."""
        return BudgetMeter(self)

    def describe(self) -> dict[str, Any]:
        """The limits as the run manifest pins them."""
        return {
            "model_calls": self.model_calls,
            "hard_cap": self.cap,
            "tool_calls": self.tool_calls,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
        }


@dataclass(frozen=True, slots=True)
class BudgetStop:
    """A spent limit: which, how much it allowed, how much was used, and in which turn."""

    limit: BudgetLimit
    allowed: float
    used: float
    invocation: int
    asked: int = 0

    @property
    def message(self) -> str:
        """What the user is answered."""
        return _MESSAGES[self.limit].format(allowed=self.allowed, used=self.used, asked=self.asked)

    def metadata(self) -> dict[str, Any]:
        """What a run records about the stop."""
        return {
            "reason": self.limit,
            "allowed": self.allowed,
            "used": self.used,
            "turn": self.invocation,
        }


class BudgetMeter:
    """Counts one session's use of a :class:`Budget`, invocation by invocation."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.invocations = 0
        self.model_calls = 0
        self.tool_calls = 0
        self.tokens = 0
        self.cost_usd = 0.0

    def begin(self) -> None:
        """A new invocation: every count back to 0."""
        self.invocations += 1
        self.model_calls = self.tool_calls = self.tokens = 0
        self.cost_usd = 0.0

    def before_model_call(self) -> BudgetStop | None:
        """The stop when a limit is spent, else None (the call may go ahead). Raises
        :class:`BudgetCapError` when the invocation already made ``cap`` model calls."""
        self._check_cap()
        budget = self.budget
        if self.model_calls >= budget.model_calls:
            return self._stop("model_calls", budget.model_calls, self.model_calls)
        if budget.tokens is not None and self.tokens >= budget.tokens:
            return self._stop("tokens", budget.tokens, self.tokens)
        if budget.cost_usd is not None and self.cost_usd >= budget.cost_usd:
            return self._stop("cost_usd", budget.cost_usd, round(self.cost_usd, 6))
        return None

    def charge_model_call(self, usage: Usage | None = None) -> None:
        """One model call made, with what it used; past the hard cap it raises."""
        self.model_calls += 1
        if usage is not None:
            self.tokens += (usage.input_tokens or 0) + (usage.output_tokens or 0)
            self.cost_usd += usage.cost_usd or 0.0
        if self.model_calls > self.budget.cap:
            self._check_cap()

    def before_tool_calls(self, count: int) -> BudgetStop | None:
        """The stop when ``count`` more tool calls would overrun the budget, else None, and
        the calls are counted."""
        allowed = self.budget.tool_calls
        if allowed is not None and self.tool_calls + count > allowed:
            return self._stop("tool_calls", allowed, self.tool_calls, asked=count)
        self.tool_calls += count
        return None

    def _check_cap(self) -> None:
        if self.model_calls >= self.budget.cap:
            raise BudgetCapError(
                f"{self.model_calls} model calls in invocation {self.invocations} reached the"
                f" hard cap of {self.budget.cap}, above the budget of {self.budget.model_calls}:"
                " the loop did not stop when its budget was spent"
            )

    def _stop(self, limit: BudgetLimit, allowed: float, used: float, asked: int = 0) -> BudgetStop:
        return BudgetStop(limit, allowed, used, self.invocations, asked)
