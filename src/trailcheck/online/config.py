"""Online evaluators as data: what each runs, on which traces, on what sample, after what delay.

An online file holds ``evaluators:``, a list, and may hold ``alerts:`` on their failure rates
(:mod:`.alerts`); the smallest evaluator names itself and what it runs, and every other field
has a default::

    evaluators:
      - name: refund-policy
        rule: refund_without_identity_check
        sampling: 0.25
        delay: 0s

What it runs is exactly one of:

- ``rule``: a detection rule by name (:mod:`trailcheck.loop`); the trace fails when the rule
  finds its failure. Checked against the rules given at load: the built-ins unless the caller
  passes others (a custom rule file).
- ``scorer``: a registered reference-free scorer, by name or as a spec with settings
  (``{name: efficiency, max_tool_calls: 12}``). Reference-free: it grades a trace on its own,
  with no case to compare with. The built-ins that are: ``termination`` (an answer, claims
  backed by the state), ``efficiency`` (loops, redundant calls, budgets) and ``grounding``
  (the answer's figures found in the tools' results); a scorer declares it with a class
  variable ``reference_free = True``. A scorer that compares with a case's expectation is
  refused.
- ``policy``: policy rules over the tool calls, written as a dataset writes a case's
  ``policies`` (``[{name: must_precede, tool: verify_identity, before: issue_refund}]``).
- ``judge``: an LLM judge (:mod:`.judges`): ``rubric``, ``groundedness`` or
  ``task_completion``.

Then ``filter`` (:mod:`.filters`, which traces it considers), ``sampling`` (the probability a
trace is sampled, by :mod:`.sampling`'s deterministic rule; default 1), ``sample_by``
(``trace``, or ``session`` to choose a conversation's traces together) and ``delay`` (how long a
trace must have been quiet before it is due: ``0s``, ``30s``, ``5m``, ``1h30m``; default
``0s``).

**Versions.** Each evaluator has a ``version``: the first 12 hex digits of the SHA-256 of the
canonical JSON (sorted keys, no spaces) of its normalised definition, which is what decides a
trace's score: the resolved detection rule (its kind and non-default settings, so a release that
retunes a built-in rule makes a new version), the scorer's spec with its non-default settings
and the scorer's own version, the policy rules without their defaults, or the judge's spec (the
template version of a rubric or task-completion judge always included). Changing any of these
makes a new version, scored afresh, with the old scores kept. Which traces are scored
(``filter``, ``sampling``, ``sample_by``) and when (``delay``) are not in it: widening the
sample extends the scores of the same version, since nested sampling keeps the old sample inside
the new one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from trailcheck.cases import ScorerSpec
from trailcheck.cases.rules import duplicate_ids
from trailcheck.cases.version import DIGEST_CHARS
from trailcheck.errors import InputError
from trailcheck.loop import Rule, builtin_rules
from trailcheck.online.alerts import AlertSpec
from trailcheck.online.fields import DURATION_PATTERN, Duration, Name, duration_seconds
from trailcheck.online.filters import EvaluatorFilter
from trailcheck.online.judges import JudgeSpec, RubricJudgeSpec, TaskCompletionJudgeSpec
from trailcheck.online.sampling import SampleBy
from trailcheck.policy import PolicySpec
from trailcheck.scorers.registry import scorer_classes, scorer_from_spec
from trailcheck.scorers.score import Scorer
from trailcheck.specs.naming import unknown_name_message

__all__ = [
    "EVALUATOR_KINDS",
    "RULES_CONTEXT",
    "Evaluator",
    "EvaluatorKind",
    "OnlineConfig",
    "online_scorer",
    "reference_free_scorers",
]

EvaluatorKind = Literal["rule", "scorer", "policy", "judge"]
EVALUATOR_KINDS: tuple[EvaluatorKind, ...] = ("rule", "scorer", "policy", "judge")
# The validation context key under which a caller passes the detection rules that ``rule:``
# may name (a sequence of rules); without it, the built-in rules.
RULES_CONTEXT: Final = "rules"

Probability = Annotated[float, Field(ge=0.0, le=1.0)]


def reference_free_scorers() -> frozenset[str]:
    """The registered scorers that grade a trace without a case (``reference_free = True``)."""
    return frozenset(
        name for name, cls in scorer_classes().items() if getattr(cls, "reference_free", False)
    )


def _scorer_spec(value: Any) -> Any:
    """A bare name is the scorer's spec with default settings."""
    return {"name": value} if isinstance(value, str) else value


class _WithNameShorthand:
    """JSON Schema of a scorer: a spec, or a scorer's name."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        shorthand = {
            "type": "string",
            "minLength": 1,
            "description": "Shorthand for {name: <this>} with every setting at its default.",
        }
        return {"anyOf": [handler(core_schema), shorthand]}


OnlineScorerSpec = Annotated[ScorerSpec, BeforeValidator(_scorer_spec), _WithNameShorthand()]


def online_scorer(spec: ScorerSpec) -> Scorer:
    """The scorer ``spec`` builds, when it is reference-free; ValueError saying why not."""
    if spec.name not in reference_free_scorers():
        usable = ", ".join(sorted(reference_free_scorers()))
        hint = (
            "; write policy rules under policy:"
            if spec.name == "policy"
            else "; or use rule:, policy: or judge:"
        )
        raise ValueError(
            f"scorer {spec.name!r} compares a trace with a case's expectation, which online"
            f" traffic has none of; the reference-free scorers: {usable}{hint}"
        )
    try:
        return scorer_from_spec(spec)
    except InputError as error:
        raise ValueError(str(error)) from None


def _rules_in(info: ValidationInfo) -> Mapping[str, Rule]:
    context = info.context if isinstance(info.context, Mapping) else {}
    given: Sequence[Rule] | None = context.get(RULES_CONTEXT)
    rules = builtin_rules() if given is None else given
    return {rule.name: rule for rule in rules}


def _canonical_json(value: Any) -> bytes:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode()


class Evaluator(BaseModel):
    """One online evaluator: its name, what it runs (exactly one of rule, scorer, policy,
    judge), which traces it considers, the share of them it samples, and how long a trace must
    be quiet before it is scored."""

    # Built with the constructor or model_validate (model_copy would keep the old version).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    name: Name = Field(description="Unique in the file; scores are kept under it.")
    rule: Annotated[str, Field(min_length=1)] | None = Field(
        default=None, description="A detection rule, by name: the trace fails on its finding."
    )
    scorer: OnlineScorerSpec | None = Field(
        default=None, description="A reference-free scorer: termination, efficiency, grounding."
    )
    policy: Annotated[list[PolicySpec], Field(min_length=1)] | None = Field(
        default=None, description="Policy rules over the tool calls, as a dataset case writes."
    )
    judge: JudgeSpec | None = Field(
        default=None, description="An LLM judge: rubric, groundedness or task_completion."
    )
    filter: EvaluatorFilter = Field(
        default_factory=EvaluatorFilter, description="Which traces it considers (all, unset)."
    )
    sampling: Probability = Field(
        default=1.0, description="The probability a trace is sampled (deterministic, nested)."
    )
    delay: Duration = Field(
        default="0s",
        description="How long a trace is quiet before it is due: 0s, 30s, 5m, 1h30m.",
        json_schema_extra={"pattern": DURATION_PATTERN},
    )
    sample_by: SampleBy = Field(
        default="trace", description="session: a conversation's traces are sampled together."
    )

    _definition: dict[str, Any] = PrivateAttr(default_factory=dict)
    _version: str = PrivateAttr(default="")

    @field_validator("rule")
    @classmethod
    def _known_rule(cls, name: str | None, info: ValidationInfo) -> str | None:
        rules = _rules_in(info)
        if name is not None and name not in rules:
            raise ValueError(unknown_name_message("detection rule", name, rules))
        return name

    @field_validator("scorer")
    @classmethod
    def _usable_scorer(cls, spec: ScorerSpec | None) -> ScorerSpec | None:
        if spec is not None:
            online_scorer(spec)
        return spec

    @model_validator(mode="after")
    def _resolved(self, info: ValidationInfo) -> Self:
        given = [kind for kind in EVALUATOR_KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            kinds = ", ".join(EVALUATOR_KINDS)
            said = f"; this one gives {' and '.join(given)}" if given else ""
            raise ValueError(f"an evaluator runs exactly one of {kinds}{said}")
        if not self._definition:
            # Only once: an evaluator placed in an OnlineConfig is validated again, without the
            # context that named its rules.
            self._definition = self._normalised(info)
            # Hashed once: the worker names the version with every job it plans.
            self._version = hashlib.sha256(_canonical_json(self._definition)).hexdigest()[
                :DIGEST_CHARS
            ]
        return self

    def _normalised(self, info: ValidationInfo) -> dict[str, Any]:
        """The definition the version hashes (see the module)."""
        if self.rule is not None:
            rule = _rules_in(info)[self.rule]  # known: checked with the field
            data = rule.model_dump(mode="json", exclude_defaults=True, exclude={"description"})
            return {"rule": {**data, "kind": rule.kind}}
        if self.scorer is not None:
            scorer = online_scorer(self.scorer)
            spec = scorer.to_spec().model_dump(mode="json")
            return {"scorer": spec, "scorer_version": scorer.version}
        if self.policy is not None:
            return {
                "policy": [p.model_dump(mode="json", exclude_defaults=True) for p in self.policy]
            }
        assert self.judge is not None  # exactly one kind is given
        judge = self.judge.model_dump(mode="json", exclude_defaults=True)
        if isinstance(self.judge, RubricJudgeSpec | TaskCompletionJudgeSpec):
            judge["template_version"] = self.judge.template_version
        return {"judge": judge}

    @property
    def kind(self) -> EvaluatorKind:
        """What the evaluator runs: ``rule``, ``scorer``, ``policy`` or ``judge``."""
        return next(kind for kind in EVALUATOR_KINDS if getattr(self, kind) is not None)

    @property
    def definition(self) -> dict[str, Any]:
        """The normalised definition the version hashes (a copy)."""
        return json.loads(_canonical_json(self._definition))  # type: ignore[no-any-return]

    @property
    def version(self) -> str:
        """The first 12 hex digits of the SHA-256 of the canonical definition."""
        return self._version

    @property
    def delay_seconds(self) -> int:
        return duration_seconds(self.delay)


class OnlineConfig(BaseModel):
    """An online file: its evaluators, whose names are unique, and its alerts (:mod:`.alerts`),
    whose names are unique too, each watching one of the evaluators."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    evaluators: Annotated[list[Evaluator], Field(min_length=1)]
    alerts: list[AlertSpec] = Field(
        default_factory=list,
        description="Alerts on the evaluators' failure rates, and where their notices go.",
    )

    @model_validator(mode="after")
    def _unique_names(self) -> Self:
        for what, names in (
            ("evaluator", [evaluator.name for evaluator in self.evaluators]),
            ("alert", [alert.name for alert in self.alerts]),
        ):
            repeated = [f"{names[index]!r}" for index, _ in duplicate_ids(names)]
            if repeated:
                raise ValueError(f"{what} names are unique: {', '.join(repeated)} repeated")
        return self

    @model_validator(mode="after")
    def _alerts_watch_evaluators(self) -> Self:
        names = [evaluator.name for evaluator in self.evaluators]
        for alert in self.alerts:
            if alert.evaluator not in names:
                unknown = unknown_name_message("evaluator", alert.evaluator, names)
                raise ValueError(f"alert {alert.name!r} watches an {unknown}")
        return self

    def evaluator(self, name: str) -> Evaluator:
        """The evaluator called ``name``; KeyError when there is none."""
        for evaluator in self.evaluators:
            if evaluator.name == name:
                return evaluator
        raise KeyError(name)

    def alert(self, name: str) -> AlertSpec:
        """The alert called ``name``; KeyError when there is none."""
        for alert in self.alerts:
            if alert.name == name:
                return alert
        raise KeyError(name)
