"""Hypothesis strategies for generated cases and datasets: any shape the models allow."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from tests.trace.strategies import json_objects, json_values
from trailcheck.cases import (
    BUILTIN_SCORER_NAMES,
    AbsentComparator,
    Case,
    Dataset,
    DateComparator,
    DatetimeComparator,
    ExactComparator,
    ExpectedInvocation,
    NumberComparator,
    OneOfComparator,
    PresentComparator,
    RegexComparator,
    ScorerSpec,
    SubsetComparator,
    TextComparator,
)
from trailcheck.policy import (
    AtMostPolicy,
    ForbiddenPolicy,
    MustPrecedePolicy,
    RequiresConfirmationPolicy,
)
from trailcheck.trace import Message

names = st.text(min_size=1, max_size=12)
tools = st.sampled_from(["lookup_order", "verify_identity", "issue_refund", "reschedule"])
finite = st.floats(allow_nan=False, allow_infinity=False)
tolerances = st.floats(min_value=0, max_value=1e6)
zones = st.just(UTC) | st.integers(-14 * 60, 14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)

comparators = st.one_of(
    st.builds(ExactComparator, value=json_values, int_equals_float=st.booleans()),
    st.builds(
        TextComparator,
        value=st.text(max_size=20),
        case_sensitive=st.booleans(),
        accent_sensitive=st.booleans(),
        whitespace_sensitive=st.booleans(),
    ),
    st.builds(NumberComparator, value=finite, abs_tol=tolerances, rel_tol=tolerances),
    st.builds(DateComparator, value=st.dates(), day_first=st.booleans()),
    st.builds(
        DatetimeComparator,
        value=st.datetimes(timezones=zones),
        tolerance_seconds=tolerances,
    ),
    st.builds(
        RegexComparator,
        pattern=st.sampled_from([r"A-\d+", "^x$", "(?i)yes|no", ""]),
        ignore_case=st.booleans(),
        full_match=st.booleans(),
    ),
    st.builds(OneOfComparator, values=st.lists(json_values, min_size=1, max_size=3)),
    st.builds(PresentComparator),
    st.builds(AbsentComparator),
    st.builds(SubsetComparator, value=json_objects | st.lists(json_values, max_size=3)),
)
invocations = st.builds(
    ExpectedInvocation,
    tool=tools,
    arguments=st.dictionaries(st.text(max_size=8), comparators, min_size=1, max_size=3),
)
policies = st.one_of(
    st.builds(
        MustPrecedePolicy,
        tool=tools,
        before=tools,
        successful=st.booleans(),
        bind=st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2),
    ),
    st.builds(ForbiddenPolicy, tool=tools),
    st.builds(AtMostPolicy, tool=tools, count=st.integers(0, 5)),
    st.builds(RequiresConfirmationPolicy, tool=tools),
)
setting_names = st.text(min_size=1, max_size=8).filter(lambda name: name != "name")


@st.composite
def scorer_specs(draw: st.DrawFn) -> ScorerSpec:
    settings: dict[str, Any] = draw(st.dictionaries(setting_names, json_values, max_size=2))
    return ScorerSpec(name=draw(st.sampled_from(sorted(BUILTIN_SCORER_NAMES))), **settings)


user_turns = st.builds(Message, role=st.just("user"), content=st.text(max_size=30))
other_turns = st.builds(
    Message, role=st.sampled_from(["assistant", "system"]), content=st.text(max_size=30)
)
inputs = st.text(max_size=40) | st.builds(
    lambda first, rest: [first, *rest], user_turns, st.lists(user_turns | other_turns, max_size=3)
)


@st.composite
def cases(draw: st.DrawFn, case_id: str) -> Case:
    status = draw(st.sampled_from(["candidate", "approved", "rejected"]))
    reviewer = draw(names) if status == "approved" else draw(st.none() | names)
    return Case(
        id=case_id,
        input=draw(inputs),
        split=draw(st.sampled_from(["regression", "holdout", "calibration", "monitoring"])),
        failure_modes=draw(st.lists(names, max_size=2)),
        source_trace_ids=draw(st.lists(names, max_size=2)),
        expected_tools=draw(st.none() | st.lists(tools, max_size=4)),
        tool_match=draw(st.sampled_from(["exact", "in_order", "any_order"])),
        tool_threshold=draw(st.floats(min_value=0, max_value=1)),
        expected_arguments=draw(st.lists(invocations, max_size=2)),
        expected_state=draw(st.none() | json_objects.filter(bool)),
        reference_response=draw(st.none() | st.text(max_size=40)),
        rubrics=draw(st.lists(names, max_size=2)),
        policies=draw(st.lists(policies, max_size=2)),
        scorers=draw(st.none() | st.lists(scorer_specs(), max_size=2)),
        review_status=status,
        reviewed_by=reviewer,
        notes=draw(st.none() | st.text(max_size=60)),
        metadata=draw(json_objects),
    )


@st.composite
def datasets(draw: st.DrawFn) -> Dataset:
    ids = draw(st.lists(names, unique=True, max_size=4))
    return Dataset(
        name=draw(st.from_regex(r"[a-z][a-z0-9_.-]{0,15}", fullmatch=True)),
        description=draw(st.none() | st.text(max_size=40)),
        tools=draw(
            st.none() | st.just(["lookup_order", "verify_identity", "issue_refund", "reschedule"])
        ),
        scorers=draw(st.lists(scorer_specs(), max_size=2)),
        cases=[draw(cases(case_id)) for case_id in ids],
    )
