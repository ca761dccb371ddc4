"""Group-aware splits: cases from the same cluster or the same user never straddle regression
and holdout, or the holdout would test what the regression set already taught.

Cases are grouped transitively by ``metadata.cluster_id`` and ``metadata.user`` (as promotion
writes them); a case with neither is a group of its own. Only regression and holdout cases take
part (calibration and monitoring cases are left as they are). Reviewed cases (approved or
rejected) keep their split, since moving an approved case changes the release tests; a group
with a reviewed case follows it (the first by case id). Any other group goes to holdout when the
sha256 of its anchor (its smallest cluster key ``cluster:<id>``, else its smallest user key
``user:<id>``, else ``case:<id>``), read as a fraction of 2^256, is below
``holdout_fraction``, and to regression otherwise: deterministic, and independent of the order
and of the other groups.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from trailcheck.cases import Case, Split

HOLDOUT_FRACTION = 0.2
"""The share of groups sent to holdout."""
_GROUPED: tuple[Split, ...] = ("regression", "holdout")
_ANCHOR_ORDER = ("cluster", "user", "case")


def group_keys(case: Case) -> list[str]:
    """The keys that put ``case`` in a group with others."""
    keys = [f"case:{case.id}"]
    for field, prefix in (("cluster_id", "cluster"), ("user", "user")):
        value = case.metadata.get(field)
        if isinstance(value, str) and value:
            keys.append(f"{prefix}:{value}")
    return keys


def split_groups(cases: Sequence[Case]) -> list[list[int]]:
    """The indices of the regression and holdout cases, grouped (groups by smallest index)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for case in cases:
        if case.split not in _GROUPED:
            continue
        keys = group_keys(case)
        for key in keys[1:]:
            a, b = find(keys[0]), find(key)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        if case.split in _GROUPED:
            groups.setdefault(find(f"case:{case.id}"), []).append(index)
    return sorted(groups.values())


def _rank(key: str) -> tuple[int, str]:
    # A cluster outlives its cases, a user their cases: the anchor stays put as a group grows.
    return (_ANCHOR_ORDER.index(key.split(":", 1)[0]), key)


def _hashed_split(anchor: str, holdout_fraction: float) -> Split:
    value = int.from_bytes(hashlib.sha256(anchor.encode()).digest(), "big") / 2**256
    return "holdout" if value < holdout_fraction else "regression"


def assign_splits(
    cases: Sequence[Case], *, holdout_fraction: float = HOLDOUT_FRACTION
) -> list[Case]:
    """The cases in the same order, candidates given their group's split (see the module)."""
    if not 0.0 <= holdout_fraction <= 1.0:
        raise ValueError(f"holdout_fraction is between 0 and 1, got {holdout_fraction}")
    result = list(cases)
    for group in split_groups(cases):
        members = [cases[i] for i in group]
        reviewed = sorted(
            (case for case in members if case.review_status != "candidate"), key=lambda c: c.id
        )
        if reviewed:
            split = reviewed[0].split
        else:
            anchor = min((key for case in members for key in group_keys(case)), key=_rank)
            split = _hashed_split(anchor, holdout_fraction)
        for index in group:
            case = cases[index]
            if case.review_status == "candidate" and case.split != split:
                result[index] = case.model_copy(update={"split": split})
    return result


def straddling_groups(cases: Sequence[Case]) -> list[list[str]]:
    """Groups (case ids) that have cases in both regression and holdout: reviewed cases placed
    apart before they were grouped, which only a person can resolve."""
    return [
        [cases[i].id for i in group]
        for group in split_groups(cases)
        if len({cases[i].split for i in group}) > 1
    ]
