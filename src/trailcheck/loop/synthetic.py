"""Synthetic drafts as review sees them: the metadata a drafted case carries, and what it says.

A case drafted by a model (``trailcheck dataset draft``, :mod:`trailcheck.drafting`) is a
candidate like a promoted one, its expectations proposals in ``metadata.proposed``; its
metadata says where it came from:

- ``source: synthetic``;
- ``policy_clause: {id, text}``: the clause of the policy it covers, and ``scenario``: its kind;
- ``drafted_by: {model, prompt_version, prompt_digest}``;
- ``reference_path: {status, reasons}``: whether the oracle reached its expected calls and
  state in the environment (``passed``), did not (``failed``, and the draft was rejected with
  the reasons), or was not run for want of an environment (``schema_only``: only the tool
  schemas were checked). Editing the proposals of a draft that passed sets ``edited``: its
  replay no longer speaks for them;
- ``near_duplicates``: ``[{case_id, similarity}]``, existing cases it may repeat.

Review refuses to approve a draft whose reference path failed (:func:`reference_path_failure`).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from trailcheck.cases import Case

__all__ = [
    "CLAUSE_KEY",
    "DRAFTED_BY_KEY",
    "NEAR_DUPLICATES_KEY",
    "REFERENCE_PATH_KEY",
    "SCENARIO_KEY",
    "SOURCE_KEY",
    "SYNTHETIC",
    "ReferencePathStatus",
    "draft_lines",
    "is_synthetic",
    "marked_edited",
    "policy_clause",
    "reference_path_failure",
]

SOURCE_KEY: Final = "source"
SYNTHETIC: Final = "synthetic"
CLAUSE_KEY: Final = "policy_clause"
SCENARIO_KEY: Final = "scenario"
DRAFTED_BY_KEY: Final = "drafted_by"
REFERENCE_PATH_KEY: Final = "reference_path"
NEAR_DUPLICATES_KEY: Final = "near_duplicates"

ReferencePathStatus = Literal["passed", "failed", "schema_only", "edited"]


def is_synthetic(case: Case) -> bool:
    """Whether ``case`` was drafted by a model."""
    return case.metadata.get(SOURCE_KEY) == SYNTHETIC


def policy_clause(case: Case) -> tuple[str, str] | None:
    """The id and text of the clause a draft covers, or None."""
    clause = case.metadata.get(CLAUSE_KEY)
    if not isinstance(clause, dict):
        return None
    clause_id, text = clause.get("id"), clause.get("text")
    if not isinstance(clause_id, str):
        return None
    return clause_id, text if isinstance(text, str) else ""


def _reference_path(case: Case) -> dict[str, Any]:
    found = case.metadata.get(REFERENCE_PATH_KEY)
    return dict(found) if isinstance(found, dict) else {}


def _reasons(path: dict[str, Any]) -> list[str]:
    reasons = path.get("reasons")
    return [str(reason) for reason in reasons] if isinstance(reasons, list) else []


def reference_path_failure(case: Case) -> str | None:
    """Why a synthetic draft's reference path failed, or None when it did not fail."""
    path = _reference_path(case)
    if not is_synthetic(case) or path.get("status") != "failed":
        return None
    return "; ".join(_reasons(path)) or "no reason recorded"


def marked_edited(case: Case) -> dict[str, Any]:
    """``case``'s metadata, its reference path marked ``edited`` when it is a draft whose
    path passed or was not run: its proposals changed after the check. A failed path stays
    failed: editing does not make a rejected draft approvable."""
    metadata = dict(case.metadata)
    path = _reference_path(case)
    if is_synthetic(case) and path and path.get("status") != "failed":
        metadata[REFERENCE_PATH_KEY] = {**path, "status": "edited"}
    return metadata


def draft_lines(case: Case) -> list[str]:
    """What review shows of a synthetic draft, a line each (none for another case)."""
    if not is_synthetic(case):
        return []
    lines = [f"source: {SYNTHETIC} ({case.metadata.get(SCENARIO_KEY, 'no scenario')})"]
    clause = policy_clause(case)
    if clause is not None:
        lines.append(f"policy clause {clause[0]}: {clause[1]}")
    for fault in case.faults:  # the scene the draft sets: what its expectations answer to
        lines.append(f"fault: {fault.model_dump_json(exclude_unset=True)}")
    path = _reference_path(case)
    status = path.get("status", "not run")
    reasons = _reasons(path)
    lines.append(f"reference path: {status}{': ' + '; '.join(reasons) if reasons else ''}")
    near = case.metadata.get(NEAR_DUPLICATES_KEY)
    if isinstance(near, list) and near:
        named = [
            f"{item.get('case_id')} ({item.get('similarity')})"
            for item in near
            if isinstance(item, dict)
        ]
        lines.append(f"near-duplicate of: {', '.join(named)}")
    return lines
