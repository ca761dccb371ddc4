"""Policy rules: what must hold of an agent's tool calls, as a dataset or a guard writes it.

Each rule is ``{name: <rule>, ...settings}`` with ``name`` one of :data:`POLICY_NAMES`. Every
rule says which of its settings name tools (``tool_fields``), so that a dataset that declares
its tools can check them. How a rule is evaluated over calls is :mod:`.evaluate`'s.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator

from trailcheck.specs.naming import unknown_name_message
from trailcheck.specs.patterns import valid_regex
from trailcheck.specs.tagged import TaggedSpec

ToolName = Annotated[str, Field(min_length=1)]
# What counts as the user confirming, unless a policy says otherwise: an explicit yes.
DEFAULT_CONFIRMATION = r"(?i)\b(yes|yep|confirm(ed)?|go ahead|please do)\b"


class _PolicySpec(TaggedSpec):
    """What every rule has: the tool it is about."""

    tag_field = "name"
    # The settings that name a tool.
    tool_fields: ClassVar[tuple[str, ...]] = ("tool",)
    tool: ToolName

    @property
    @abstractmethod
    def summary(self) -> str:
        """The rule in a few words, as reasons and reports name it."""


class MustPrecedePolicy(_PolicySpec):
    """Every call of ``before`` comes after a call of ``tool`` (a successful one, unless
    ``successful`` is false). ``bind`` pairs arguments: ``{customer_id: customer_id}`` means the
    earlier ``tool`` call had the same ``customer_id`` as the ``before`` call it licenses; keys
    are arguments of ``before``, values arguments of ``tool``."""

    name: Literal["must_precede"] = "must_precede"
    before: ToolName
    successful: bool = True
    bind: dict[str, str] = Field(default_factory=dict)

    tool_fields = ("tool", "before")

    @property
    def summary(self) -> str:
        kind = "a successful " if self.successful else ""
        same = "".join(
            f", same {argument}" if argument == earlier else f", {argument} = its {earlier}"
            for argument, earlier in self.bind.items()
        )
        return f"must_precede: {kind}{self.tool} before each {self.before}{same}"


class ForbiddenPolicy(_PolicySpec):
    """``tool`` is never called."""

    name: Literal["forbidden"] = "forbidden"

    @property
    def summary(self) -> str:
        return f"forbidden: {self.tool}"


class AtMostPolicy(_PolicySpec):
    """``tool`` is called at most ``count`` times."""

    name: Literal["at_most"] = "at_most"
    count: int = Field(ge=0)

    @property
    def summary(self) -> str:
        return f"at_most: {self.tool} {self.count} times"


class RequiresConfirmationPolicy(_PolicySpec):
    """Each call of ``tool`` comes after a user message, following the agent's last one, that
    matches ``confirmation`` (a Python regular expression)."""

    name: Literal["requires_confirmation_before"] = "requires_confirmation_before"
    confirmation: str = DEFAULT_CONFIRMATION

    _compiles = field_validator("confirmation")(valid_regex)

    @property
    def summary(self) -> str:
        return f"requires_confirmation_before: {self.tool}"


_POLICIES: tuple[type[_PolicySpec], ...] = (
    MustPrecedePolicy,
    ForbiddenPolicy,
    AtMostPolicy,
    RequiresConfirmationPolicy,
)
POLICY_NAMES: tuple[str, ...] = tuple(
    str(model.model_fields["name"].default) for model in _POLICIES
)
# For each rule, the settings that name a tool.
POLICY_TOOL_FIELDS: dict[str, tuple[str, ...]] = dict(
    zip(POLICY_NAMES, (model.tool_fields for model in _POLICIES), strict=True)
)


def _named_rule(value: Any) -> Any:
    # Said here rather than by the discriminator, whose messages do not name the rules.
    if isinstance(value, _PolicySpec):
        return value
    if not isinstance(value, dict) or "name" not in value:
        raise ValueError(f"a policy is a mapping with a name: one of {', '.join(POLICY_NAMES)}")
    if value["name"] not in POLICY_NAMES:
        raise ValueError(unknown_name_message("policy", value["name"], POLICY_NAMES))
    return value


def _policy_tag(value: Any) -> str | None:
    name = value.get("name") if isinstance(value, dict) else getattr(value, "name", None)
    return name if isinstance(name, str) else None


PolicySpec = Annotated[
    Annotated[MustPrecedePolicy, Tag("must_precede")]
    | Annotated[ForbiddenPolicy, Tag("forbidden")]
    | Annotated[AtMostPolicy, Tag("at_most")]
    | Annotated[RequiresConfirmationPolicy, Tag("requires_confirmation_before")],
    Discriminator(_policy_tag),
    BeforeValidator(_named_rule),
]
"""Any policy spec, chosen by its ``name``."""
