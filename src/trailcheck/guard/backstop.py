"""Deterministic backstops: rules over extracted fields that override the model's decision.

A model reads an e-mail and decides; a backstop decides again, from the structured fields that
were extracted (``exposure_usd``, ``claim_type``), with rules written as data::

    rules:
      - id: exposure-escalation
        when: [{field: exposure_usd, op: ">=", value: 250000}]
        then: {require: escalate}
      - id: no-auto-close-on-contamination
        when: [{field: claim_type, op: "==", value: contamination}]
        then: {forbid: close}

:func:`evaluate_backstop` is a pure function of the rules and the fields: each rule whose
conditions all hold *fires*, and its reason shows the arithmetic (``exposure_usd 1200000 >=
250000``). :func:`apply_backstop` overrides a decision with the firings: a required action is
added, a forbidden one removed, and each change is listed with the rule that made it. Nothing
the model wrote can talk a backstop out of firing, because it never reads free text.

A field that is missing, or whose value cannot be compared with the rule's (a text where a
number is expected), leaves the condition **unknown**; a rule with an unknown condition fires
when its ``on_unknown`` is ``fire`` (the default: a backstop fails closed, an unreadable
exposure is escalated) and not when it is ``skip``. The reason says which field was unknown.

Why no keyword rules on free text: "escalate when the e-mail mentions contamination" fires on
"we confirm there is **no** contamination" and misses "the cargo is tainted"; "do not escalate
what is marked routine" is exactly what an attacker writes. Negation, paraphrase and adversarial
wording defeat words; fields extracted into a schema, and checked, do not depend on them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = [
    "Backstop",
    "BackstopDecision",
    "BackstopFiring",
    "BackstopRule",
    "Condition",
    "Effect",
    "Override",
    "apply_backstop",
    "evaluate_backstop",
]

Operator = Literal[">=", ">", "<=", "<", "==", "!=", "in", "not_in"]
_ORDERING: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}
Name = Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")]


class Condition(BaseModel):
    """``field op value``: one test of one extracted field."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: Name
    op: Operator
    value: JsonValue

    @model_validator(mode="after")
    def _value_fits_the_operator(self) -> Condition:
        if self.op in ("in", "not_in") and not isinstance(self.value, list):
            raise ValueError(f"{self.op!r} needs a list of values, not {self.value!r}")
        if self.op in _ORDERING and not _is_number(self.value) and not isinstance(self.value, str):
            raise ValueError(f"{self.op!r} compares numbers or texts, not {self.value!r}")
        return self

    def holds(self, fields: Mapping[str, object]) -> tuple[bool | None, str]:
        """Whether the condition holds (``None``: unknown), and the arithmetic that says so."""
        if self.field not in fields or fields[self.field] is None:
            return None, f"{self.field} unknown (missing)"
        actual = fields[self.field]
        shown = f"{self.field} {actual!r} {self.op} {self.value!r}"
        if self.op in _ORDERING:
            if not _comparable(actual, self.value):
                return (
                    None,
                    f"{self.field} unknown ({actual!r} is not comparable to {self.value!r})",
                )
            return _ORDERING[self.op](actual, self.value), shown
        if self.op in ("==", "!="):
            equal = actual == self.value and _is_number(actual) == _is_number(self.value)
            return equal == (self.op == "=="), shown
        values = self.value if isinstance(self.value, list) else []
        return (actual in values) == (self.op == "in"), shown


class Effect(BaseModel):
    """What a rule does when it fires: requires an action, or forbids one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    require: Name | None = None
    forbid: Name | None = None

    @model_validator(mode="after")
    def _one_effect(self) -> Effect:
        if (self.require is None) == (self.forbid is None):
            raise ValueError("a rule's `then` has exactly one of require or forbid")
        return self


class BackstopRule(BaseModel):
    """When every condition holds, the effect applies, whatever the model decided."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Name
    when: list[Condition] = Field(min_length=1)
    then: Effect
    on_unknown: Literal["fire", "skip"] = "fire"
    description: str | None = None


class Backstop(BaseModel):
    """A named set of rules, as a YAML or JSON file holds it (see :mod:`.backstop_file`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rules: list[BackstopRule] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Backstop:
        ids = [rule.id for rule in self.rules]
        repeated = sorted({rule_id for rule_id in ids if ids.count(rule_id) > 1})
        if repeated:
            raise ValueError(f"rule ids are unique; repeated: {', '.join(repeated)}")
        return self


@dataclass(frozen=True, slots=True)
class BackstopFiring:
    """A rule that fired: its effect and the reason, with its arithmetic."""

    rule: str
    effect: Literal["require", "forbid"]
    action: str
    reason: str


@dataclass(frozen=True, slots=True)
class Override:
    """One change a backstop made to the model's decision."""

    action: str
    change: Literal["added", "removed"]
    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class BackstopDecision:
    """The decision after the backstop: the actions to take and what was overridden."""

    actions: frozenset[str]
    overrides: tuple[Override, ...]
    firings: tuple[BackstopFiring, ...]

    @property
    def overridden(self) -> bool:
        return bool(self.overrides)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _comparable(actual: object, expected: object) -> bool:
    both_numbers = _is_number(actual) and _is_number(expected)
    return both_numbers or (isinstance(actual, str) and isinstance(expected, str))


def _fires(rule: BackstopRule, fields: Mapping[str, object]) -> str | None:
    """The reason ``rule`` fires on ``fields``, or None when it does not."""
    shown: list[str] = []
    for condition in rule.when:
        holds, arithmetic = condition.holds(fields)
        if holds is False:
            return None
        if holds is None:
            if rule.on_unknown == "skip":
                return None
            arithmetic += ", so the rule fires (on_unknown: fire)"
        shown.append(arithmetic)
    return "; ".join(shown)


def evaluate_backstop(backstop: Backstop, fields: Mapping[str, object]) -> list[BackstopFiring]:
    """The rules of ``backstop`` that fire on ``fields``, in the order they are written."""
    firings: list[BackstopFiring] = []
    for rule in backstop.rules:
        reason = _fires(rule, fields)
        if reason is None:
            continue
        effect: Literal["require", "forbid"] = "require" if rule.then.require else "forbid"
        action = rule.then.require or rule.then.forbid or ""
        firings.append(BackstopFiring(rule.id, effect, action, f"{rule.id}: {reason}"))
    return firings


def apply_backstop(
    backstop: Backstop, fields: Mapping[str, object], decided: Iterable[str]
) -> BackstopDecision:
    """The model's ``decided`` actions overridden by the rules that fire on ``fields``: required
    actions added, forbidden ones removed (a forbid wins over a require of the same action)."""
    firings = evaluate_backstop(backstop, fields)
    actions = set(decided)
    overrides: list[Override] = []
    for firing in sorted(firings, key=lambda f: f.effect == "forbid"):
        if firing.effect == "require" and firing.action not in actions:
            actions.add(firing.action)
            overrides.append(Override(firing.action, "added", firing.rule, firing.reason))
        elif firing.effect == "forbid" and firing.action in actions:
            actions.discard(firing.action)
            overrides.append(Override(firing.action, "removed", firing.rule, firing.reason))
    return BackstopDecision(frozenset(actions), tuple(overrides), tuple(firings))
