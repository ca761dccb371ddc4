"""Scorers by name: the spec form (name + non-default settings) and building a scorer from it.

Scorers are found through the entry-point group ``trailcheck.scorers``, the built-ins through
the same group as third-party scorers (``name = "module:Class"``).

The built-ins are declared in ``pyproject.toml`` (``project.entry-points."trailcheck.scorers"``)
and so are found only in an installed package (``uv sync`` installs the project).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache
from importlib.metadata import entry_points
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from trailcheck.cases import BUILTIN_SCORER_ORDER, SCORER_ENTRY_POINT_GROUP, Case, ScorerSpec
from trailcheck.errors import InputError
from trailcheck.scorers.score import Scorer
from trailcheck.specs.naming import unknown_name_message


@cache
def scorer_classes() -> Mapping[str, type[Scorer]]:
    """Every registered scorer class by name. Read once per process, like
    :func:`trailcheck.cases.known_scorer_names`; ``scorer_classes.cache_clear()`` rereads."""
    found: dict[str, type[Scorer]] = {
        point.name: point.load() for point in entry_points(group=SCORER_ENTRY_POINT_GROUP)
    }
    for name, cls in found.items():
        # A registration under one name of a class that calls itself another would make specs
        # that do not round-trip.
        if getattr(cls, "name", None) != name:
            raise InputError(
                f"entry point {name!r} in {SCORER_ENTRY_POINT_GROUP!r} loads {cls!r},"
                f" whose name is {getattr(cls, 'name', None)!r}"
            )
    return found


@cache
def _adapter(cls: type[Scorer]) -> TypeAdapter[Any]:
    """The validator of a scorer class, built once: building one costs about a millisecond,
    more than most scorers take to grade a trace, and the online worker builds an evaluator's
    scorer from its spec for every trace it scores."""
    return TypeAdapter(cls)


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def scorer_to_spec(scorer: Scorer) -> ScorerSpec:
    """The scorer's name and its settings that differ from their defaults, as JSON values."""
    if not dataclasses.is_dataclass(scorer):
        raise TypeError(f"a scorer is a dataclass whose fields are its settings: {scorer!r}")
    adapter = _adapter(type(scorer))
    data = adapter.dump_python(scorer, mode="json")
    fields = [f for f in dataclasses.fields(scorer) if f.init]
    # A setting without a default (the replay scorer's environment) is always written out.
    required = {f.name for f in fields if _default(f) is dataclasses.MISSING}
    defaults = adapter.dump_python(
        type(scorer)(
            **{
                f.name: getattr(scorer, f.name) if f.name in required else _default(f)
                for f in fields
            }
        ),
        mode="json",
    )
    settings = {
        key: value for key, value in data.items() if key in required or defaults.get(key) != value
    }
    return ScorerSpec(name=scorer.name, **settings)


def scorer_from_spec(spec: ScorerSpec) -> Scorer:
    """Build the scorer ``spec`` names, with its settings validated.

    Raises InputError naming an unregistered scorer, any unknown setting, or a bad value.
    """
    classes = scorer_classes()
    cls = classes.get(spec.name)
    if cls is None:
        raise InputError(unknown_name_message("registered scorer", spec.name, classes))
    settings = spec.settings
    known = {f.name for f in dataclasses.fields(cls) if f.init}  # type: ignore[arg-type]
    unknown = sorted(set(settings) - known)
    if unknown:
        raise InputError(
            f"scorer {spec.name!r} has no setting {', '.join(map(repr, unknown))};"
            f" its settings: {', '.join(sorted(known)) or 'none'}"
        )
    try:
        # Strict JSON validation: settings come from a dataset file, so "0.5" is not a number,
        # while a JSON list still reads as a tuple setting.
        scorer: Scorer = _adapter(cls).validate_json(orjson.dumps(settings), strict=True)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in error.errors()
        )
        raise InputError(f"scorer {spec.name!r}: {problems}") from None
    return scorer


@cache
def default_scorers() -> tuple[Scorer, ...]:
    """The built-in scorers with default settings, in the fixed order grading runs them
    (:data:`~trailcheck.scorers.grade.DEFAULT_SCORER_ORDER`)."""
    classes = scorer_classes()
    return tuple(classes[name]() for name in BUILTIN_SCORER_ORDER)


def case_scorers(case: Case) -> tuple[Scorer, ...]:
    """The scorers ``case`` asks for, built from its specs (InputError for a bad spec), or the
    defaults. Build them once per case when grading many traces: building validates settings."""
    if case.scorers is None:
        return default_scorers()
    return tuple(scorer_from_spec(spec) for spec in case.scorers)
