"""Scorer specs as a dataset names them, and the one place that says which scorer names exist.

A spec is ``{name: <scorer>, ...settings}``: the scorer's name and its non-default settings, the
form a scorer dataclass round-trips through. Names are checked here; settings are the scorer's to
check when it is built from the spec, since only the scorer knows them.

Scorers register under the entry-point group :data:`SCORER_ENTRY_POINT_GROUP`, the built-ins
through the same group as third-party scorers. Until the built-ins are registered there,
:data:`BUILTIN_SCORER_NAMES` stands in for them; with the registrations in place it can go.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from trailcheck.specs.naming import unknown_name_message

SCORER_ENTRY_POINT_GROUP = "trailcheck.scorers"
# The built-in scorers, in the order grade() runs them when a case names none.
BUILTIN_SCORER_ORDER: tuple[str, ...] = (
    "trajectory",
    "arguments",
    "state",
    "efficiency",
    "termination",
    "policy",
    "grounding",
    "response",
)
# Built in but never run by default: replay_state needs an environment factory to replay on.
BUILTIN_SCORER_NAMES: frozenset[str] = frozenset(BUILTIN_SCORER_ORDER) | {"replay_state"}


@cache
def known_scorer_names() -> frozenset[str]:
    """The scorer names a dataset may use: the built-ins and every registered entry point.

    Read once per process (scanning installed distributions is slow and they do not change under
    a running program); ``known_scorer_names.cache_clear()`` rereads them.
    """
    registered = entry_points(group=SCORER_ENTRY_POINT_GROUP).names
    return BUILTIN_SCORER_NAMES | frozenset(registered)


class ScorerSpec(BaseModel):
    """A scorer named by ``name``, with its settings as further fields.

    The one model here that takes fields it does not declare: they are the scorer's settings,
    which only the scorer can check (they must be JSON values).
    """

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)

    __pydantic_extra__: dict[str, JsonValue] = Field(init=False)
    name: str = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _registered(cls, name: str) -> str:
        known = known_scorer_names()
        if name not in known:
            raise ValueError(unknown_name_message("scorer", name, known))
        return name

    @property
    def settings(self) -> dict[str, JsonValue]:
        """The settings: every field but the name."""
        return dict(self.__pydantic_extra__ or {})
