"""Evaluating policy rules: one call at a time, so that one definition serves every mode.

:func:`check_call` decides whether a call breaks a rule, given the calls before it and the
conversation before it: the inline guard asks it before running a call, and :func:`violations`
asks it for every call of a recorded trace (the policy scorer, failure detection).

What "before" means for each rule:

- ``must_precede``: a licensing call counts when it *finished* before the call it licenses
  started (a verification still running in parallel licenses nothing), and, unless
  ``successful`` is false, when it succeeded. ``bind`` compares arguments canonically (25 equals
  25.0); an argument to bind that the call does not have is a violation, since nothing licenses
  it.
- ``forbidden`` and ``at_most``: every attempt counts, failed ones too: the agent tried.
- ``requires_confirmation_before``: the user's latest message before the call, sent after the
  agent last spoke, matches the rule's pattern (see :mod:`.conversation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trailcheck.policy.conversation import preceding_messages, user_confirmed
from trailcheck.policy.rules import (
    AtMostPolicy,
    ForbiddenPolicy,
    MustPrecedePolicy,
    PolicySpec,
    RequiresConfirmationPolicy,
)
from trailcheck.trace import Message, ToolCall, Trace, canonical_json


@dataclass(frozen=True, slots=True)
class Violation:
    """A call that broke a rule, and why."""

    rule: PolicySpec
    call: ToolCall
    reason: str

    def __str__(self) -> str:
        return f"{self.rule.summary}: {self.reason}"


def check_call(
    rule: PolicySpec,
    call: ToolCall,
    earlier: Sequence[ToolCall],
    conversation: Sequence[Message] = (),
) -> Violation | None:
    """The violation of ``rule`` by ``call``, or ``None``; ``earlier`` are the calls made before
    it, in order, and ``conversation`` the messages before it (read by confirmation rules only).
    """
    reason = _reason(rule, call, earlier, conversation)
    return None if reason is None else Violation(rule, call, reason)


def violations(rules: Sequence[PolicySpec], trace: Trace) -> list[Violation]:
    """Every violation of ``rules`` in ``trace``, in call order, then rule order."""
    found: list[Violation] = []
    calls = trace.tool_calls
    for index, call in enumerate(calls):
        for rule in rules:
            if call.name != _checked_tool(rule):
                continue
            conversation: Sequence[Message] = ()
            if isinstance(rule, RequiresConfirmationPolicy):
                conversation = preceding_messages(trace, call)
            violation = check_call(rule, call, calls[:index], conversation)
            if violation is not None:
                found.append(violation)
    return found


def _checked_tool(rule: PolicySpec) -> str:
    """The tool whose calls the rule judges."""
    return rule.before if isinstance(rule, MustPrecedePolicy) else rule.tool


def _reason(
    rule: PolicySpec,
    call: ToolCall,
    earlier: Sequence[ToolCall],
    conversation: Sequence[Message],
) -> str | None:
    if call.name != _checked_tool(rule):
        return None
    at = f"{call.name} at {call.span_id}"
    match rule:
        case ForbiddenPolicy():
            return f"{at} was called"
        case AtMostPolicy():
            made = sum(1 for other in earlier if other.name == rule.tool)
            if made < rule.count:
                return None
            return f"{at} is call {made + 1}, over the limit of {rule.count}"
        case MustPrecedePolicy():
            return _unlicensed(rule, call, earlier)
        case RequiresConfirmationPolicy():
            if user_confirmed(conversation, rule.confirmation):
                return None
            return f"{at} was not preceded by a user confirmation (after the agent last spoke)"


def _unlicensed(rule: MustPrecedePolicy, call: ToolCall, earlier: Sequence[ToolCall]) -> str | None:
    at = f"{call.name} at {call.span_id}"
    unbound = [argument for argument in rule.bind if argument not in call.arguments]
    if unbound:
        return f"{at} has no {', '.join(unbound)} to match a {rule.tool} call by"
    finished = [
        other
        for other in earlier
        if other.name == rule.tool and other.end_ns is not None and other.end_ns <= call.start_ns
    ]
    if rule.successful:
        finished = [other for other in finished if other.succeeded]
    if any(_bound(rule, call, other) for other in finished):
        return None
    kind = "successful " if rule.successful else ""
    wanted = ", ".join(
        f"{earlier_arg}={call.arguments[arg]!r}" for arg, earlier_arg in rule.bind.items()
    )
    with_args = f" with {wanted}" if wanted else ""
    tried = [other.span_id for other in earlier if other.name == rule.tool]
    seen = f" ({rule.tool} at {', '.join(tried)} did not qualify)" if tried else ""
    return f"{at} had no earlier {kind}{rule.tool}{with_args}{seen}"


def _bound(rule: MustPrecedePolicy, call: ToolCall, licence: ToolCall) -> bool:
    return all(
        earlier_arg in licence.arguments
        and canonical_json(licence.arguments[earlier_arg]) == canonical_json(call.arguments[arg])
        for arg, earlier_arg in rule.bind.items()
    )
