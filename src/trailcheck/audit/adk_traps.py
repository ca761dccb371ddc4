"""ADK's own traps, re-detected in a suite imported from Google ADK (``metadata["adk"]``).

:func:`trailcheck.cases.importers.adk.import_adk` reports the traps it meets while reading the
evalset; this check finds again, from the dataset file alone, those that the dataset still shows,
so an imported suite audited later (or edited since) is not taken for sound.

==================================  ========  ==============================================
flagged when (``adk_trap``)         severity  what the dataset shows
==================================  ========  ==============================================
empty IN_ORDER / ANY_ORDER list     high      ``expected_tools: []`` with ``tool_match``
                                              ``in_order`` or ``any_order``: ADK passes any
                                              trajectory there (trailcheck reads ``[]`` as
                                              "no tool may be called", so the suites disagree)
no trajectory criterion             medium    ``metadata.adk.tool_uses``: the golden has tool
                                              uses but ADK's criteria check no trajectory
arguments ignored                   medium    ``metadata.adk.tool_args``: ``ignore_args`` set,
                                              so no argument of the golden is checked
==================================  ========  ==============================================

The traps that need the source to be seen (a rubric ADK drops for its type, a groundedness
metric on a case without tools, a threshold at or under 0.5 averaged over several runs) are
recorded by the importer in ``metadata.adk.traps`` and reported from there (medium).
"""

from __future__ import annotations

from typing import Any

from trailcheck.audit.finding import Finding
from trailcheck.cases import Case, Dataset

CHECK = "adk_trap"
_ADK_MATCH = {"in_order": "IN_ORDER", "any_order": "ANY_ORDER"}


def _adk(case: Case) -> dict[str, Any] | None:
    adk = case.metadata.get("adk")
    return adk if isinstance(adk, dict) else None


def _tools(entries: Any) -> list[str]:
    if not isinstance(entries, list):
        return []
    return [str(e.get("tool")) for e in entries if isinstance(e, dict) and e.get("tool")]


def _case_traps(case: Case, adk: dict[str, Any]) -> list[Finding]:
    findings: list[Finding] = []
    if case.expected_tools == [] and case.tool_match in _ADK_MATCH:
        message = (
            f"ADK's {_ADK_MATCH[case.tool_match]} with an empty expected tool list passes any"
            " trajectory: in ADK this case checks no tool use (imported as expected_tools: [],"
            " no tool may be called)"
        )
        findings.append(Finding(case_id=case.id, check=CHECK, severity="high", message=message))
    unchecked = _tools(adk.get("tool_uses"))
    if unchecked:
        message = (
            f"the golden's tool uses {', '.join(unchecked)} are checked by no ADK criterion"
            " (no tool_trajectory_avg_score): any trajectory passes there"
        )
        findings.append(Finding(case_id=case.id, check=CHECK, severity="medium", message=message))
    ignored = _tools(adk.get("tool_args"))
    if ignored:
        message = (
            f"ignore_args: the arguments of {', '.join(ignored)} in the golden are not checked,"
            " so a call with any arguments passes"
        )
        findings.append(Finding(case_id=case.id, check=CHECK, severity="medium", message=message))
    for recorded in adk.get("traps") or []:
        # The importer's own lines (metadata.adk.traps); the empty-list trap is found above.
        if isinstance(recorded, str) and "with no expected tool uses" not in recorded:
            message = f"recorded at import: {recorded}"
            findings.append(
                Finding(case_id=case.id, check=CHECK, severity="medium", message=message)
            )
    return findings


def check_adk_traps(dataset: Dataset) -> list[Finding]:
    """ADK's traps shown by the cases imported from ADK (see the module docstring)."""
    findings: list[Finding] = []
    for case in dataset.cases:
        adk = _adk(case)
        if adk is not None:
            findings += _case_traps(case, adk)
    return findings
