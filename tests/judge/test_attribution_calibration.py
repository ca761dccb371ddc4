"""Attribution labels, attributors behind one seam, recorded attributions replayed offline, and
the calibration's step-level and agent-level accuracy with Wilson intervals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.cases import Case
from trailcheck.intervals import wilson_interval
from trailcheck.judge.attribution import AttributionJudge
from trailcheck.judge.attribution_calibration import (
    AttributionRun,
    attribution_figures,
    calibrate_attribution,
)
from trailcheck.judge.attribution_labels import (
    AttributionLabel,
    labels_file_kind,
    load_attribution_labels,
    who_and_when_labels,
)
from trailcheck.judge.attributors import (
    Attributor,
    RecordedAttribution,
    ReplayAttributor,
    attribute_labelled,
)
from trailcheck.judge.labels import LabelsFileError
from trailcheck.judge.run_judge import load_items
from trailcheck.models import ScriptedModel
from trailcheck.scorers.attribution import Attribution
from trailcheck.scorers.steps import trace_steps
from trailcheck.trace import Trace

WHO_AND_WHEN = ("Algorithm-Generated/7.json", "Hand-Crafted/3.json")


def fixture_logs(fixtures: Path) -> list[Path]:
    return [fixtures / "who_and_when" / name for name in WHO_AND_WHEN]


def label(item: str, step: int, agent: str | None = None, **fields: Any) -> AttributionLabel:
    return AttributionLabel(
        item_id=item, mistaken_step=step, mistaken_agent=agent, labeler="ana", **fields
    )


def outcome(item: str, step: int | None, agent: str | None = None, **fields: Any) -> Any:
    attribution = None
    if step is not None:
        attribution = Attribution(
            span_id=f"s{step}",
            step=step,
            name="n",
            category=fields.pop("category", "wrong_tool"),
            evidence="",
            source="judge",
        )
    return RecordedAttribution(item_id=item, attribution=attribution, agent=agent, **fields)


def test_the_figures_count_steps_agents_and_categories_with_wilson_intervals() -> None:
    labels = [
        label("a", 2, "Ada", category="wrong_tool"),
        label("b", 3, "Bea"),
        label("c", 1, "Cy", category="wrong_argument"),
        label("d", 5, None),
        label("e", 4, "Ed"),
    ]
    outcomes = [
        outcome("a", 2, "ada"),  # step, agent (ignoring case) and category right
        outcome("b", 1, "Bea"),  # agent right, step wrong
        outcome("c", 1, "Dan"),  # step right, agent wrong, category wrong
        outcome("d", 5, "Ed"),  # step right; the label names no agent
        outcome("e", None, reason="no step was judged the decisive mistake"),
    ]
    figures = attribution_figures(labels, outcomes)
    assert (figures.n_labels, figures.n_attributed, figures.n_unattributed) == (5, 4, 1)
    assert figures.unattributed[0].item_id == "e"
    assert figures.unattributed[0].reason == "no step was judged the decisive mistake"
    assert (figures.step_accuracy.count, figures.step_accuracy.total) == (3, 4)
    assert (figures.agent_accuracy.count, figures.agent_accuracy.total) == (2, 3)
    assert (figures.category_accuracy.count, figures.category_accuracy.total) == (1, 2)
    # Over every label, as Who&When counts: the unattributed item is a miss.
    assert (figures.step_accuracy_of_all.count, figures.step_accuracy_of_all.total) == (3, 5)
    assert (figures.agent_accuracy_of_all.count, figures.agent_accuracy_of_all.total) == (2, 4)
    assert figures.step_accuracy.interval == wilson_interval(3, 4)
    assert figures.step_accuracy.value == pytest.approx(0.75)


def test_nothing_attributed_is_undefined_not_zero() -> None:
    figures = attribution_figures([label("a", 1, "A")], [])
    assert figures.step_accuracy.value is None
    assert figures.step_accuracy.interval.low is None
    assert figures.step_accuracy_of_all.value == 0.0
    assert figures.unattributed[0].reason == "not attributed"


def test_a_calibration_reports_groups_splits_and_a_candidates_agreement() -> None:
    labels = [
        label("a", 1, "A", group="g1", split="validation"),
        label("b", 2, "B", group="g1", split="validation", development=True),
        label("c", 3, "C", group="g2", split="calibration"),
    ]
    judge = AttributionRun("judge-1", {"kind": "judge"}, [outcome(i, 1, "A") for i in "abc"])
    other = [outcome("a", 1, "A"), outcome("b", 2, "B"), outcome("c", None)]
    report = calibrate_attribution(
        labels, judge, candidate=AttributionRun("det-1", {"kind": "deterministic"}, other)
    )
    mine = report.attributor
    assert (mine.attributor_version, mine.all.step_accuracy.count) == ("judge-1", 1)
    assert sorted(mine.groups) == ["g1", "g2"]
    assert (mine.groups["g1"].n_labels, mine.groups["g2"].n_labels) == (2, 1)
    assert (mine.validation.n_labels, mine.validation_excluded_development) == (1, 1)
    assert mine.calibration.n_labels == 1
    assert report.candidate is not None
    assert report.candidate.all.step_accuracy.count == 2
    assert report.agreement is not None
    assert report.agreement.n_both_attributed == 2
    assert (report.agreement.same_step.count, report.agreement.same_agent.count) == (1, 1)


def test_labels_load_whole_or_not_at_all(tmp_path: Path) -> None:
    good = {"item_id": "t", "mistaken_step": 2, "mistaken_agent": "A", "labeler": "ana"}
    path = tmp_path / "labels.jsonl"
    path.write_bytes(orjson.dumps(good) + b"\n")
    (loaded,) = load_attribution_labels(path)
    assert (loaded.mistaken_step, loaded.category) == (2, None)
    assert labels_file_kind(path) == "attribution"
    bad = [
        {**good, "item_id": "u", "mistaken_step": 0},
        {**good, "item_id": "v", "category": "guessing"},
        {**good, "item_id": "w", "mistaken_stepp": 3},
        good,
    ]
    path.write_bytes(orjson.dumps(good) + b"\n" + b"".join(orjson.dumps(r) + b"\n" for r in bad))
    with pytest.raises(LabelsFileError) as raised:
        load_attribution_labels(path)
    lines = [(r.line, r.field) for r in raised.value.rejections]
    assert lines[:3] == [(2, "mistaken_step"), (3, "category"), (4, "mistaken_stepp")]
    assert "a second label for item 't'" in raised.value.rejections[-1].message


def test_a_verdict_labels_file_is_told_apart(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"item_id": "t", "criterion": "c", "human_passed": true, "labeler": "a"}\n')
    assert labels_file_kind(path) == "verdict"


def test_who_and_when_logs_make_labels_and_cases(fixtures: Path) -> None:
    imported = who_and_when_labels(fixture_logs(fixtures))
    assert imported.rejections == []
    generated, crafted = imported.labels
    assert (generated.item_id, generated.mistaken_step) == ("who-and-when:Algorithm-Generated/7", 2)
    assert (generated.mistaken_agent, generated.group) == ("Data_Expert", "Algorithm-Generated")
    assert (crafted.mistaken_step, crafted.mistaken_agent) == (4, "Websurfer")
    assert generated.note.startswith("The code compares the due dates")
    case = imported.cases[1]
    assert (case.id, case.reference_response) == ("who-and-when:Hand-Crafted/3", "Hill Museum")


def load_traces(fixtures: Path) -> dict[str, Trace]:
    return load_items(fixture_logs(fixtures))


def test_the_judge_the_replay_and_a_plain_attributor_share_one_seam(tmp_path: Path) -> None:
    path = tmp_path / "recorded.jsonl"
    path.write_text("")

    class FirstStep:
        version = "first-step"

        def describe(self) -> dict[str, Any]:
            return {"kind": "first-step"}

        def attribute(self, trace: Trace, case: Case | None) -> Attribution | None:
            first = trace_steps(trace)[0]
            return Attribution(
                span_id=first.span_id, step=1, name=first.name, category="wrong_tool", evidence=""
            )

    for attributor in (AttributionJudge(ScriptedModel([])), ReplayAttributor(path), FirstStep()):
        assert isinstance(attributor, Attributor)


def test_judged_attributions_recorded_then_replayed_calibrate_the_same_offline(
    fixtures: Path, tmp_path: Path
) -> None:
    imported = who_and_when_labels(fixture_logs(fixtures))
    traces = load_traces(fixtures)
    cases = {case.id: case for case in imported.cases}
    # The scripted judge says yes at step 2 of every log: right for the generated team's
    # (Data_Expert at step 2), wrong for the hand-crafted one (WebSurfer at step 4).
    model = ScriptedModel(
        [
            json.dumps({"evidence": "e", "decisive_mistake": n == 2, "category": "wrong_argument"})
            for n in (1, 2, 1, 2)
        ]
    )
    judge = AttributionJudge(model)
    judged = asyncio.run(attribute_labelled(judge, imported.labels, traces, cases, concurrency=1))
    assert [o.attribution.step if o.attribution else None for o in judged] == [2, 2]
    assert [o.agent for o in judged] == ["Data_Expert", "Orchestrator"]
    assert [o.calls for o in judged] == [2, 2]
    # The case's reference answer reached the judge, fenced.
    assert "Hill Museum" in (model.calls[2].messages[1].content or "")
    recorded = tmp_path / "attributions.jsonl"
    recorded.write_bytes(b"".join(orjson.dumps(o.model_dump(mode="json")) + b"\n" for o in judged))
    replay = ReplayAttributor(recorded)
    assert replay.version == judge.version
    replayed = asyncio.run(attribute_labelled(replay, imported.labels))
    assert replayed == judged
    live = calibrate_attribution(imported.labels, AttributionRun(judge.version, {}, judged))
    again = calibrate_attribution(imported.labels, AttributionRun(replay.version, {}, replayed))
    assert live.attributor.all == again.attributor.all
    figures = again.attributor.all
    assert (figures.step_accuracy.count, figures.agent_accuracy.count) == (1, 1)
    assert figures.step_accuracy.total == figures.agent_accuracy.total == 2


def test_an_item_without_a_trace_or_a_record_is_listed_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "recorded.jsonl"
    path.write_text('{"item_id": "x", "attribution": null, "reason": "gave up"}\n')
    labels = [label("x", 1, "A"), label("y", 1, "A")]
    replayed = asyncio.run(attribute_labelled(ReplayAttributor(path), labels))
    assert replayed[0].reason == "gave up"
    assert "no recorded attribution for item 'y'" in replayed[1].reason
    judged = asyncio.run(attribute_labelled(AttributionJudge(ScriptedModel([])), labels))
    assert judged[0].reason == "no trace for item 'x' among the traces"


def test_an_attributor_that_raises_is_recorded_not_raised(fixtures: Path) -> None:
    class Broken:
        version = "broken"

        def describe(self) -> dict[str, Any]:
            return {}

        async def attribute(self, trace: Trace, case: Case | None) -> Attribution | None:
            raise RuntimeError("boom")

    imported = who_and_when_labels(fixture_logs(fixtures))
    outcomes = asyncio.run(attribute_labelled(Broken(), imported.labels, load_traces(fixtures)))
    assert [o.reason for o in outcomes] == ["attributor raised RuntimeError: boom"] * 2
