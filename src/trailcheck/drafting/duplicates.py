"""Near-duplicates: a draft that repeats a case already there, by what it does and what it says.

Two cases are near-duplicates when their expected calls have the same signature (the cluster
signature of :mod:`trailcheck.loop.signature`: the tools in order with each call's argument
names and JSON types, never the values, runs of one shape collapsed) and their inputs are at
least ``threshold`` alike: difflib's ratio of the two texts, lowercased with whitespace
collapsed (a conversation's user turns joined), in ``[0, 1]``. Cases are compared as they would
be once approved (proposals adopted), so a candidate promoted from production counts too.

A near-duplicate is flagged, not dropped: the reviewer decides whether it adds anything.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from trailcheck.audit import plan_calls
from trailcheck.cases import Case
from trailcheck.loop import calls_signature, with_proposals

__all__ = [
    "DEFAULT_SIMILARITY",
    "NearDuplicate",
    "case_signature",
    "flag_near_duplicates",
    "similarity",
]

DEFAULT_SIMILARITY: Final = 0.8


@dataclass(frozen=True, slots=True)
class NearDuplicate:
    """A case a draft may repeat, and how alike their inputs are."""

    case_id: str
    similarity: float


def case_signature(case: Case) -> str:
    """The signature of the calls ``case`` expects (its proposals adopted), in the oracle's
    order."""
    adopted = with_proposals(case)
    return calls_signature((call.tool, call.arguments) for call in plan_calls(adopted, ()))


def _text(case: Case) -> str:
    return " ".join(case.input_text().lower().split())


def similarity(left: Case, right: Case) -> float:
    """How alike two cases' inputs are (see the module), rounded to 3 places."""
    return round(difflib.SequenceMatcher(None, _text(left), _text(right)).ratio(), 3)


def flag_near_duplicates(
    drafts: Sequence[Case], existing: Iterable[Case], *, threshold: float = DEFAULT_SIMILARITY
) -> dict[str, list[NearDuplicate]]:
    """Draft id → the cases it nearly repeats, most alike first: existing ones, and the drafts
    before it. Rejected cases repeat nothing: they are not in the dataset's tests. Drafts with
    no near-duplicate are left out."""
    peers_by_signature: dict[str, list[Case]] = {}
    for case in existing:
        if case.review_status != "rejected":
            peers_by_signature.setdefault(case_signature(case), []).append(case)
    flags: dict[str, list[NearDuplicate]] = {}
    for draft in drafts:
        peers = peers_by_signature.setdefault(case_signature(draft), [])
        found = [
            NearDuplicate(peer.id, score)
            for peer in peers
            if peer.id != draft.id and (score := similarity(draft, peer)) >= threshold
        ]
        if found:
            flags[draft.id] = sorted(found, key=lambda near: (-near.similarity, near.case_id))
        if draft.review_status != "rejected":
            peers.append(draft)
    return flags
