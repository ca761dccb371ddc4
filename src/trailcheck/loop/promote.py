"""Promotion: a cluster's representative trace becomes a candidate case for a person to review.

The candidate has ``review_status: candidate``, the cluster's label as its failure mode, the
cluster's traces as ``source_trace_ids``, and the representative's user input. What a good run
does is not known from a failing trace, so the expectations read off it are *proposals*, kept
in ``metadata.proposed`` where no scorer reads them, until a reviewer confirms or corrects them
(:mod:`.review` moves them into the case on approval):

- ``expected_tools``: the tools the trace called, in order, runs of one tool collapsed;
- ``expected_arguments``: each successful call's arguments, compared exactly;
- ``expected_state``: the top-level keys of ``state_after`` that differ from ``state_before``
  (left out when nothing changed);
- ``policies``: the policies of the rules that found the label, when given.

Everything taken from the trace is redacted first (:mod:`.redact`); the redactions are listed in
``metadata.redactions`` (kind and where). ``metadata.cluster_id`` and ``metadata.user`` (the
trace's ``user_id``/``user``/``enduser.id`` metadata, when present) keep the groups that
:mod:`.splits` keeps on one side of the regression/holdout line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from trailcheck.cases import Case, Dataset, dump_dataset, load_dataset
from trailcheck.errors import UsageError
from trailcheck.loop.redact import Redaction, redact_text, redact_value
from trailcheck.loop.splits import assign_splits
from trailcheck.policy import PolicySpec
from trailcheck.trace import Message, Trace

PROPOSED_KEY = "proposed"
REDACTIONS_KEY = "redactions"
CLUSTER_KEY = "cluster_id"
USER_KEY = "user"
USER_METADATA_KEYS = ("user_id", "user", "enduser.id")
"""Trace metadata keys that name the user, first found wins."""


class PromotedCluster(Protocol):
    """What promotion reads of a cluster (a :class:`~trailcheck.loop.Cluster` or a stored row)."""

    @property
    def cluster_id(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def representative_trace_id(self) -> str: ...
    @property
    def member_trace_ids(self) -> Sequence[str]: ...


@dataclass(frozen=True, slots=True)
class Promotion:
    """The candidate case, and what was redacted on the way."""

    case: Case
    redactions: tuple[Redaction, ...]


def _input(trace: Trace, found: list[Redaction]) -> str | list[Message]:
    if isinstance(trace.input, list):
        turns = [
            Message(role="user", content=redact_text(m.text, f"input[{i}]", found))
            for i, m in enumerate(trace.input)
            if m.role == "user" and m.text.strip()
        ]
        if turns:
            return turns
    elif isinstance(trace.input, str) and trace.input.strip():
        return redact_text(trace.input, "input", found)
    raise UsageError(f"trace {trace.trace_id!r} has no user input: there is nothing to replay")


def _tools(trace: Trace) -> list[str]:
    names: list[str] = []
    for call in trace.tool_calls:
        if not names or names[-1] != call.name:
            names.append(call.name)
    return names


def _changed_state(trace: Trace) -> dict[str, Any] | None:
    after = trace.state_after
    if not after:
        return None
    before = trace.state_before or {}
    changed = {key: value for key, value in after.items() if before.get(key) != value}
    return changed or None


def proposals(
    trace: Trace, policies: Sequence[PolicySpec], found: list[Redaction]
) -> dict[str, Any]:
    """The expectations read off ``trace`` (see the module), redacted, as file data."""
    where = f"{PROPOSED_KEY}."
    proposed: dict[str, Any] = {"expected_tools": _tools(trace)}
    invocations = [
        {"tool": call.name, "arguments": call.arguments}
        for call in trace.tool_calls
        if call.succeeded and call.arguments
    ]
    if invocations:
        proposed["expected_arguments"] = redact_value(
            invocations, f"{where}expected_arguments", found
        )
    state = _changed_state(trace)
    if state is not None:
        proposed["expected_state"] = redact_value(state, f"{where}expected_state", found)
    if policies:
        proposed["policies"] = [policy.model_dump(mode="json") for policy in policies]
    return proposed


def _user(trace: Trace) -> str | None:
    for key in USER_METADATA_KEYS:
        value = trace.metadata.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def case_id_for(cluster: PromotedCluster) -> str:
    """``<label>-<cluster digits>``: one candidate per cluster."""
    return f"{cluster.label}-{cluster.cluster_id.removeprefix('cl-')}"


def promote(
    cluster: PromotedCluster, trace: Trace, *, policies: Sequence[PolicySpec] = ()
) -> Promotion:
    """The candidate case of ``cluster``, from ``trace`` (its representative)."""
    if trace.trace_id != cluster.representative_trace_id:
        raise UsageError(
            f"cluster {cluster.cluster_id} is represented by {cluster.representative_trace_id!r},"
            f" not {trace.trace_id!r}"
        )
    found: list[Redaction] = []
    case_input = _input(trace, found)
    proposed = proposals(trace, policies, found)
    metadata: dict[str, Any] = {CLUSTER_KEY: cluster.cluster_id, PROPOSED_KEY: proposed}
    user = _user(trace)
    if user is not None:
        metadata[USER_KEY] = redact_text(user, f"metadata.{USER_KEY}", found)
    if found:
        metadata[REDACTIONS_KEY] = [{"kind": r.kind, "where": r.where} for r in found]
    members = len(cluster.member_trace_ids)
    notes = (
        f"candidate from cluster {cluster.cluster_id} ({members} traces labelled"
        f" {cluster.label}; representative {trace.trace_id}). The expectations in"
        f" metadata.{PROPOSED_KEY} were read off that failing trace: confirm or correct them"
        f" before approving. {len(found)} redaction(s)."
    )
    case = Case.model_validate(
        {
            "id": case_id_for(cluster),
            "input": case_input
            if isinstance(case_input, str)
            else [m.model_dump(mode="json", exclude_defaults=True) for m in case_input],
            "failure_modes": [cluster.label],
            "source_trace_ids": sorted(cluster.member_trace_ids),
            "review_status": "candidate",
            "notes": notes,
            "metadata": metadata,
        }
    )
    return Promotion(case, tuple(found))


def _dataset_name(path: Path) -> str:
    return re.sub(r"[@\s]+", "-", path.stem) or "candidates"


def add_candidate(path: str | os.PathLike[str], case: Case) -> Dataset:
    """Add ``case`` to the dataset file at ``path`` (created when absent), assign its split,
    write the file, and return the dataset written. A case id already there is refused."""
    target = Path(path)
    dataset = load_dataset(target) if target.exists() else Dataset(name=_dataset_name(target))
    if any(existing.id == case.id for existing in dataset.cases):
        raise UsageError(f"{target}: already has case {case.id!r} (this cluster was promoted)")
    settings = {name: getattr(dataset, name) for name in Dataset.model_fields if name != "cases"}
    updated = Dataset(**settings, cases=assign_splits([*dataset.cases, case]))
    dump_dataset(updated, target)
    return load_dataset(target)
