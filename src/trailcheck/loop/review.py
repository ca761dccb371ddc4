"""Review: a person confirms or corrects a candidate's proposed expectations, then approves or
rejects it; the reviewer's name is recorded.

Approving moves ``metadata.proposed`` (see :mod:`.promote`) into the case's own fields, sets
``review_status: approved`` and ``reviewed_by``; a candidate with no proposals and no
expectations of its own is refused, since it would check nothing. Rejecting keeps the case
(so the cluster is not promoted again) with ``review_status: rejected`` and the reason in its
notes. A synthetic draft (:mod:`.synthetic`) is reviewed the same way, except that one whose
reference path failed cannot be approved. Either way the dataset's content changes, and so its
version (:func:`~trailcheck.cases.dataset_version`). Splits are then reassigned for candidates
(:func:`~trailcheck.loop.splits.assign_splits`).
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import ValidationError

from trailcheck.cases import Case, Dataset
from trailcheck.cases.yaml_core import COMPOSING_LOADER, dump_yaml
from trailcheck.errors import InputError, UsageError
from trailcheck.loop.promote import PROPOSED_KEY
from trailcheck.loop.splits import assign_splits
from trailcheck.loop.synthetic import marked_edited, reference_path_failure

PROPOSABLE = ("expected_tools", "expected_arguments", "expected_state", "policies")
"""The fields a proposal may set."""


def find_case(dataset: Dataset, case_id: str) -> Case:
    """The case ``case_id`` of the dataset; a usage error naming the candidates otherwise."""
    for case in dataset.cases:
        if case.id == case_id:
            return case
    candidates = [case.id for case in dataset.cases if case.review_status == "candidate"]
    shown = ", ".join(candidates[:10]) or "none"
    raise UsageError(f"dataset {dataset.name!r} has no case {case_id!r}; candidates: {shown}")


def proposed(case: Case) -> dict[str, Any]:
    """The case's proposed expectations (empty when it has none)."""
    value = case.metadata.get(PROPOSED_KEY)
    return dict(value) if isinstance(value, dict) else {}


def _rebuilt(case: Case, changes: dict[str, Any], drop_proposals: bool) -> Case:
    data: dict[str, Any] = case.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    changes = dict(changes)
    metadata = dict(changes.pop("metadata", data.get("metadata", {})))
    if drop_proposals:
        metadata.pop(PROPOSED_KEY, None)
    data.update(changes)
    data["metadata"] = metadata
    try:
        return Case.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'case'}: {e['msg']}"
            for e in error.errors(include_url=False)
        )
        raise UsageError(f"case {case.id!r}: {problems}") from None


def with_proposals(case: Case) -> Case:
    """``case`` as it would be once approved: its proposals adopted, its status unchanged
    (what the drafts' reference path replays, and near-duplicates are compared by)."""
    changes = {field: value for field, value in proposed(case).items() if field in PROPOSABLE}
    return _rebuilt(case, changes, drop_proposals=True) if changes else case


def _with_case(dataset: Dataset, case: Case) -> Dataset:
    cases = [case if existing.id == case.id else existing for existing in dataset.cases]
    settings = {name: getattr(dataset, name) for name in Dataset.model_fields if name != "cases"}
    try:
        return Dataset(**settings, cases=assign_splits(cases))
    except ValidationError as error:
        raise UsageError(f"dataset {dataset.name!r}: {error.errors()[0]['msg']}") from None


def _checks_something(case: Case) -> bool:
    return bool(
        case.expected_tools is not None
        or case.expected_arguments
        or case.expected_state is not None
        or case.reference_response is not None
        or case.rubrics
        or case.policies
    )


def approve(dataset: Dataset, case_id: str, *, reviewer: str) -> Dataset:
    """The dataset with ``case_id`` approved by ``reviewer``, its proposals adopted."""
    if not reviewer.strip():
        raise UsageError("approving needs the reviewer's name")
    case = find_case(dataset, case_id)
    failure = reference_path_failure(case)
    if failure is not None:
        raise UsageError(
            f"case {case_id!r} is a synthetic draft whose reference path failed ({failure}):"
            " draft it again, or write a case of your own"
        )
    changes = {field: value for field, value in proposed(case).items() if field in PROPOSABLE}
    changes |= {"review_status": "approved", "reviewed_by": reviewer.strip()}
    approved = _rebuilt(case, changes, drop_proposals=True)
    if not _checks_something(approved):
        raise UsageError(
            f"case {case_id!r} has no expectations to approve: propose or write some first"
        )
    return _with_case(dataset, approved)


def reject(
    dataset: Dataset, case_id: str, *, reviewer: str | None = None, reason: str | None = None
) -> Dataset:
    """The dataset with ``case_id`` rejected; ``reason`` is added to its notes."""
    case = find_case(dataset, case_id)
    said = f"rejected{f' by {reviewer}' if reviewer else ''}: {reason or 'no reason given'}"
    notes = f"{case.notes}\n{said}" if case.notes else said
    changes: dict[str, Any] = {"review_status": "rejected", "notes": notes}
    if reviewer:
        changes["reviewed_by"] = reviewer
    return _with_case(dataset, _rebuilt(case, changes, drop_proposals=False))


def proposals_text(case: Case) -> str:
    """The case's proposals as YAML, for a person to edit."""
    return dump_yaml(proposed(case) or {field: None for field in PROPOSABLE[:1]})


def edit_proposals(dataset: Dataset, case_id: str, text: str) -> Dataset:
    """The dataset with ``case_id``'s proposals replaced by the YAML mapping ``text``; fields
    set to null are dropped. The result must make a valid case once adopted."""
    case = find_case(dataset, case_id)
    try:
        data = yaml.load(text, Loader=COMPOSING_LOADER)
    except yaml.YAMLError as error:
        raise InputError(f"the edited proposals are not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise InputError("the edited proposals are a mapping of expected fields")
    unknown = sorted(str(key) for key in data if key not in PROPOSABLE)
    if unknown:
        raise InputError(
            f"the edited proposals may set {', '.join(PROPOSABLE)}; not {', '.join(unknown)}"
        )
    kept = {key: value for key, value in data.items() if value is not None}
    _rebuilt(case, kept, drop_proposals=True)  # checks that adopting them makes a valid case
    metadata = marked_edited(case)
    metadata[PROPOSED_KEY] = kept
    return _with_case(dataset, _rebuilt(case, {"metadata": metadata}, drop_proposals=False))
