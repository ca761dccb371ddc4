"""Tool contracts: typed functions and bound methods as tools, their arguments checked first.

::

    class PitWall:
        def __init__(self, client: F1Client, limiter: RateLimiter) -> None:
            self.client, self.limiter = client, limiter

        @requires_exactly_one("round", "circuit_id")
        async def race_result(
            self,
            season: Annotated[int, Field(description="The season, e.g. 2024.", ge=1950)],
            round: Annotated[int | None, Field(description="The round number.", ge=1)] = None,
            circuit_id: Annotated[str | None, Field(pattern=r"^[a-z_]+$")] = None,
        ) -> dict[str, Any]:
            \"\"\"The classification of one race. Use it for who won, who scored, who retired.

            Returns ``{race, date, results: [{position, driver, team, points, status}]}``.\"\"\"

        @property
        def tools(self) -> list[Callable[..., Any]]:
            return [rate_limited(self.race_result, self.limiter)]

    tool = as_tool(PitWall(client, limiter).tools[0])
    tool.description  # the docstring, then "Arguments: provide exactly one of round or circuit_id."
    await tool.run({"season": 2024})  # InvalidArgumentsError: provide exactly one of round or ...

A :class:`Tool` is what the model sees (name, description, JSON schema of the parameters: see
:mod:`.arguments` for what reaches it from ``Annotated[T, Field(...)]``) and what validates the
model's arguments before the call. The description is the docstring, cleaned
(:func:`inspect.getdoc`): its first paragraph says what the tool does, the rest when to use it
and what its output means; the instructions of the tool's argument rules follow it.

Argument rules say what JSON Schema cannot (``requires_exactly_one``,
``requires_at_most_one``): they decorate the function and travel with it through bound methods
and ``functools.wraps`` wrappers (the Recorder's, :func:`rate_limited`). An argument counts as
given when it is present and not null. Everything the model got wrong is an
:class:`InvalidArgumentsError` whose message is written for the model to act on.

:func:`rate_limited` makes every call of a tool take a token from a :class:`RateLimiter`, so a
limiter shared by the tools that call one outside API keeps a burst of concurrent calls inside
its limit.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, Protocol, TypeVar

from pydantic import ValidationError

from trailcheck.errors import UsageError
from trailcheck.guard.arguments import ArgumentsSchema, arguments_schema
from trailcheck.guard.error_policy import RefusedCallError, validation_summary
from trailcheck.rate_limit import RateLimiter

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ArgumentRule",
    "InvalidArgumentsError",
    "RequiresAtMostOne",
    "RequiresExactlyOne",
    "Tool",
    "UnknownToolError",
    "as_tool",
    "as_tools",
    "rate_limited",
    "requires_at_most_one",
    "requires_exactly_one",
]

P = ParamSpec("P")
F = TypeVar("F", bound=Callable[..., Any])

# The arguments of a tool call whose arguments were not the JSON text of an object are
# ``{RAW_ARGUMENTS_KEY: "<the text>"}``: model clients keep what the model wrote, and the
# contract tells the model its arguments were not an object.
RAW_ARGUMENTS_KEY = "_raw_arguments"

# What the OpenAI API accepts as a function name (and most other providers too); checked here so
# a bad name fails when the tool is declared, not as a 400 on every trial.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RULES_ATTRIBUTE = "__trailcheck_argument_rules__"


class InvalidArgumentsError(RefusedCallError):
    """The model's arguments do not fit the tool's contract; the message says what to fix."""

    kind = "InvalidArguments"


class UnknownToolError(RefusedCallError):
    """The model asked for a tool that does not exist."""

    kind = "UnknownTool"


class ArgumentRule(Protocol):
    """A rule over several arguments at once, which JSON Schema cannot state."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def instruction(self) -> str:
        """The rule as the model reads it in the tool's description."""
        ...

    def problem(self, arguments: Mapping[str, Any]) -> str | None:
        """What is wrong with the validated ``arguments``, for the model; None when they fit."""
        ...


@dataclass(frozen=True, slots=True)
class RequiresExactlyOne:
    """Exactly one of ``names`` is given (present and not null)."""

    names: tuple[str, ...]

    @property
    def instruction(self) -> str:
        return f"provide exactly one of {_listed(self.names, 'or')}"

    def problem(self, arguments: Mapping[str, Any]) -> str | None:
        given = _given(self.names, arguments)
        if len(given) == 1:
            return None
        return f"{self.instruction} ({_got(given)})"


@dataclass(frozen=True, slots=True)
class RequiresAtMostOne:
    """At most one of ``names`` is given (present and not null)."""

    names: tuple[str, ...]

    @property
    def instruction(self) -> str:
        return f"provide at most one of {_listed(self.names, 'or')}"

    def problem(self, arguments: Mapping[str, Any]) -> str | None:
        given = _given(self.names, arguments)
        if len(given) <= 1:
            return None
        return f"{self.instruction} ({_got(given)})"


def requires_exactly_one(*names: str) -> Callable[[F], F]:
    """Decorate a tool so that exactly one of the arguments ``names`` must be given."""
    return _with_rule(RequiresExactlyOne(_rule_names(names, "requires_exactly_one")))


def requires_at_most_one(*names: str) -> Callable[[F], F]:
    """Decorate a tool so that at most one of the arguments ``names`` may be given."""
    return _with_rule(RequiresAtMostOne(_rule_names(names, "requires_at_most_one")))


@dataclass(frozen=True, slots=True)
class Tool:
    """A function as a model sees it and calls it: see the module docstring."""

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    rules: tuple[ArgumentRule, ...]
    schema: ArgumentsSchema

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The model's arguments converted as the signature says, or an
        :class:`InvalidArgumentsError` naming every problem (types first, then the rules)."""
        raw = arguments.get(RAW_ARGUMENTS_KEY)
        if isinstance(raw, str) and len(arguments) == 1:
            raise InvalidArgumentsError(f"the arguments are not a JSON object: {raw}")
        try:
            validated = self.schema.validate(arguments)
        except ValidationError as error:
            raise InvalidArgumentsError(
                validation_summary(error.errors(include_url=False))
            ) from None
        problems = [problem for rule in self.rules if (problem := rule.problem(validated))]
        if problems:
            raise InvalidArgumentsError("; ".join(problems))
        return validated

    async def call(self, validated: Mapping[str, Any]) -> Any:
        """Call the function with arguments :meth:`validate` returned, awaiting what it returns
        when that is awaitable. What the function raises reaches the caller unchanged."""
        result = self.fn(**validated)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def run(self, arguments: Mapping[str, Any]) -> Any:
        """:meth:`validate` the model's ``arguments``, then :meth:`call` the function."""
        return await self.call(self.validate(arguments))


def as_tool(fn: Callable[..., Any], *, name: str | None = None) -> Tool:
    """``fn`` as a tool named ``name`` or its ``__name__``; a function that cannot be one (a
    bad name, positional-only parameters, a rule naming no parameter) is a UsageError."""
    tool_name = name or getattr(fn, "__name__", None) or ""
    if not _TOOL_NAME.match(tool_name):
        raise UsageError(
            f"tool {fn!r}: the name {tool_name!r} is not a valid tool name"
            " (1 to 64 letters, digits, '_' or '-'); pass name=..."
        )
    schema = arguments_schema(fn, tool_name)
    rules = _rules_of(fn)
    known = tuple(schema.parameters.get("properties", {}))
    for rule in rules:
        unknown = [argument for argument in rule.names if argument not in known]
        if unknown:
            raise UsageError(
                f"tool {tool_name!r}: the rule {rule.instruction!r} names {', '.join(unknown)},"
                f" not among its parameters ({', '.join(known) or 'none'})"
            )
    description = inspect.getdoc(fn) or ""
    if rules:
        instructions = "; ".join(rule.instruction for rule in rules)
        description = f"{description}\n\nArguments: {instructions}.".lstrip()
    return Tool(tool_name, description, schema.parameters, fn, rules, schema)


def as_tools(fns: Iterable[Callable[..., Any]]) -> list[Tool]:
    """:func:`as_tool` of each function, in order, refusing two tools with one name."""
    tools: list[Tool] = []
    seen: dict[str, Callable[..., Any]] = {}
    for fn in fns:
        tool = as_tool(fn)
        if tool.name in seen:
            raise UsageError(
                f"two tools are named {tool.name!r} ({seen[tool.name]!r} and {fn!r}):"
                " a model could not tell them apart; rename one"
            )
        seen[tool.name] = fn
        tools.append(tool)
    return tools


def rate_limited(fn: Callable[P, Any], limiter: RateLimiter) -> Callable[P, Awaitable[Any]]:
    """``fn`` (sync or async) as an async tool that takes a token from ``limiter`` before each
    call; its schema, description and rules are ``fn``'s."""

    @functools.wraps(fn)
    async def limited(*args: P.args, **kwargs: P.kwargs) -> Any:
        await limiter.acquire()
        result = fn(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    return limited


def _with_rule(rule: ArgumentRule) -> Callable[[F], F]:
    def decorate(fn: F) -> F:
        setattr(fn, _RULES_ATTRIBUTE, (*_rules_of(fn), rule))
        return fn

    return decorate


def _rules_of(fn: Callable[..., Any]) -> tuple[ArgumentRule, ...]:
    """The rules on ``fn`` or on the nearest function it wraps (a bound method reads its
    function's)."""
    current: object = fn
    while current is not None:
        rules = getattr(current, _RULES_ATTRIBUTE, None)
        if rules is not None:
            return tuple(rules)
        current = getattr(current, "__wrapped__", None)
    return ()


def _rule_names(names: tuple[str, ...], rule: str) -> tuple[str, ...]:
    if len(names) < 2 or len(set(names)) != len(names):
        raise UsageError(f"{rule} takes two or more different argument names, not {names!r}")
    return names


def _given(names: tuple[str, ...], arguments: Mapping[str, Any]) -> list[str]:
    return [name for name in names if arguments.get(name) is not None]


def _got(given: list[str]) -> str:
    if not given:
        return "got none of them"
    return f"got {_listed(tuple(given), 'and')}"


def _listed(names: tuple[str, ...], last: str) -> str:
    if len(names) == 1:
        return names[0]
    return f"{', '.join(names[:-1])} {last} {names[-1]}"
