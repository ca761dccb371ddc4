"""Drafting, end to end: a model's scenarios as candidate cases, each checked by its reference
path and compared with the cases already there, then added to a dataset file for review.

::

    outcome = draft_cases(model, load_policy(Path("policy.md")), declarations,
                          environment_factory=enforced_shop, existing=dataset.cases)
    add_drafts("drafts.yaml", outcome.cases)

A draft whose reference path failed is ``review_status: rejected``, its notes saying why
(``rejected by the reference path: ...``), and stays in the file so that the reasons are seen;
review refuses to approve it. Every other draft is a candidate until a person approves it
(``trailcheck review``), with their name.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from trailcheck.cases import Case, Dataset, ReviewStatus, dump_dataset, load_dataset
from trailcheck.drafting.answer import SCENARIO_KINDS, ScenarioKind
from trailcheck.drafting.ask import Drafting, ask_for_drafts
from trailcheck.drafting.candidates import candidate_case, draft_case_id
from trailcheck.drafting.clauses import PolicyClause
from trailcheck.drafting.duplicates import DEFAULT_SIMILARITY, NearDuplicate, flag_near_duplicates
from trailcheck.drafting.reference_path import ReferencePath, check_reference_path
from trailcheck.environment import EnvironmentFactory
from trailcheck.errors import UsageError
from trailcheck.loop import assign_splits
from trailcheck.loop.synthetic import NEAR_DUPLICATES_KEY, REFERENCE_PATH_KEY
from trailcheck.models import ChatModel, ToolDeclaration

__all__ = ["DraftOutcome", "add_drafts", "draft_cases"]


class AsyncClosable(Protocol):
    """A model client whose connections are closed on the loop that opened them."""

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class DraftOutcome:
    """The drafts (candidates and rejected, in the order drafted) and one problem per clause
    the model gave no usable answer for."""

    cases: tuple[Case, ...]
    problems: tuple[str, ...]

    def with_status(self, status: ReviewStatus) -> list[Case]:
        """The drafts of one review status."""
        return [case for case in self.cases if case.review_status == status]


async def _asked(
    model: ChatModel,
    clauses: Sequence[PolicyClause],
    tools: Sequence[ToolDeclaration],
    kinds: Sequence[ScenarioKind],
    closing: Sequence[AsyncClosable],
) -> Drafting:
    try:
        return await ask_for_drafts(model, clauses, tools, kinds=kinds)
    finally:
        for resource in closing:
            await resource.aclose()


def _checked(case: Case, path: ReferencePath) -> Case:
    metadata: dict[str, Any] = dict(case.metadata)
    metadata[REFERENCE_PATH_KEY] = {"status": path.status, "reasons": list(path.reasons)}
    if path.status != "failed":
        return case.model_copy(update={"metadata": metadata})
    why = f"rejected by the reference path: {'; '.join(path.reasons)}"
    notes = f"{case.notes}\n{why}" if case.notes else why
    return case.model_copy(
        update={"metadata": metadata, "review_status": "rejected", "notes": notes}
    )


def _flagged(case: Case, near: Sequence[NearDuplicate]) -> Case:
    if not near:
        return case
    metadata: dict[str, Any] = dict(case.metadata)
    metadata[NEAR_DUPLICATES_KEY] = [
        {"case_id": each.case_id, "similarity": each.similarity} for each in near
    ]
    return case.model_copy(update={"metadata": metadata})


def _reference_path(
    case: Case,
    tools: Sequence[ToolDeclaration],
    environment_factory: EnvironmentFactory | None,
    seed: int,
) -> ReferencePath:
    try:
        return check_reference_path(case, tools, environment_factory, seed=seed)
    except UsageError as error:  # proposals that do not make a valid case: the draft's fault
        return ReferencePath("failed", (str(error),))


def draft_cases(
    model: ChatModel,
    clauses: Sequence[PolicyClause],
    tools: Sequence[ToolDeclaration],
    *,
    environment_factory: EnvironmentFactory | None = None,
    existing: Sequence[Case] = (),
    kinds: Sequence[ScenarioKind] = SCENARIO_KINDS,
    threshold: float = DEFAULT_SIMILARITY,
    seed: int = 0,
    closing: Sequence[AsyncClosable] = (),
) -> DraftOutcome:
    """Draft scenarios of ``kinds`` for each clause, as candidate cases (see the module).

    ``existing``: the cases already there (the output file's and any dataset the drafts are
    for): draft ids avoid theirs, and near-duplicates of them are flagged. ``closing`` (a model
    client) is closed on the event loop the model was asked on, which is gone on return.
    """
    drafting = asyncio.run(_asked(model, clauses, tools, kinds, closing))
    taken = {case.id for case in existing}
    drafts: list[Case] = []
    for drafted in drafting.drafted:
        case_id = draft_case_id(drafted, taken)
        taken.add(case_id)
        draft = candidate_case(drafted, case_id, model=model.name)
        drafts.append(_checked(draft, _reference_path(draft, tools, environment_factory, seed)))
    flags = flag_near_duplicates(drafts, existing, threshold=threshold)
    cases = tuple(_flagged(draft, flags.get(draft.id, [])) for draft in drafts)
    return DraftOutcome(cases, drafting.problems)


def _dataset_name(path: Path) -> str:
    return re.sub(r"[@\s]+", "-", path.stem) or "drafts"


def add_drafts(path: str | os.PathLike[str], drafts: Sequence[Case]) -> Dataset:
    """Add ``drafts`` to the dataset file at ``path`` (created when absent), assign their
    splits, write the file, and return the dataset written. An id already there is refused."""
    target = Path(path)
    dataset = load_dataset(target) if target.exists() else Dataset(name=_dataset_name(target))
    there = {case.id for case in dataset.cases}
    repeated = sorted(draft.id for draft in drafts if draft.id in there)
    if repeated:
        raise UsageError(f"{target}: already has case(s) {', '.join(repeated)}")
    settings = {name: getattr(dataset, name) for name in Dataset.model_fields if name != "cases"}
    try:
        updated = Dataset(**settings, cases=assign_splits([*dataset.cases, *drafts]))
    except ValidationError as error:  # a draft's fault on a tool the dataset does not declare
        raise UsageError(f"{target}: {error.errors()[0]['msg']}") from None
    dump_dataset(updated, target)
    return load_dataset(target)
