"""ADK's rubrics as case rubrics: those of the rubric criteria (every case of the file), and a
case's or an invocation's own, kept only where a configured criterion judges their type (the
rest are reported, and an untyped one, which ADK drops without a warning, is a trap)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trailcheck.cases.importers.adk_criteria import (
    RESPONSE_QUALITY,
    RUBRIC_CRITERIA,
    TOOL_USE_QUALITY,
)
from trailcheck.cases.importers.adk_files import (
    AdkSource,
    expect_list,
    expect_object,
    expect_string,
    get_key,
)

__all__ = ["Rubric", "case_rubrics", "read_rubrics"]

Rubric = tuple[str, dict[str, Any]]
"""One rubric of the evalset: where it is (a JSON path), and the rubric."""


def read_rubrics(source: AdkSource, raw: Any, where: str) -> list[Rubric]:
    """The rubrics of the list at ``where`` (none when absent)."""
    return [
        (f"{where}[{index}]", expect_object(rubric, source, f"{where}[{index}]"))
        for index, rubric in enumerate(expect_list(raw or [], source, where))
    ]


def case_rubrics(source: AdkSource, case_id: str, rubrics: Sequence[Rubric]) -> list[str]:
    """The texts of a case's rubrics: the rubric criteria's, then its own that ADK judges."""
    texts: list[str] = []
    for criterion in (RESPONSE_QUALITY, TOOL_USE_QUALITY):
        settings = source.criteria.get(criterion) or {}
        listed = expect_list(
            get_key(settings, "rubrics") or [], source, f"criteria.{criterion}.rubrics"
        )
        for index, rubric in enumerate(listed):
            where = f"criteria.{criterion}.rubrics[{index}]"
            texts.append(_rubric_text(source, expect_object(rubric, source, where), where))
    for where, rubric in rubrics:
        text = _rubric_text(source, rubric, where)
        kind = get_key(rubric, "type")
        rubric_id = get_key(rubric, "rubric_id") or where
        judged_by = RUBRIC_CRITERIA.get(kind) if isinstance(kind, str) else None
        if judged_by is None:
            what = f"rubric {rubric_id!r} (type {kind or 'missing'})"
            source.trap(
                case_id, f"{what}: not FINAL_RESPONSE_QUALITY, so ADK drops it without a warning"
            )
            source.note(case_id, f"{what}: ADK judges no rubric of this type; not imported")
        elif judged_by not in source.criteria:
            source.note(
                case_id,
                f"rubric {rubric_id!r} ({kind}): ADK judges it only under "
                f"{judged_by}, not configured in {source.criteria_source}; not imported",
            )
        else:
            texts.append(text)
    return list(dict.fromkeys(texts))


def _rubric_text(source: AdkSource, rubric: dict[str, Any], where: str) -> str:
    content = expect_object(get_key(rubric, "rubric_content"), source, f"{where}.rubric_content")
    return expect_string(
        get_key(content, "text_property"), source, f"{where}.rubric_content.text_property"
    )
