"""The replay judge answers from recorded verdicts by (item_id, criterion), needs no trace, and is
versioned by what it replays; judging labelled items never loses one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.waiting import wait_for_event
from trailcheck.errors import InputError, UsageError
from trailcheck.judge.judge import Judge
from trailcheck.judge.labels import HumanLabel
from trailcheck.judge.replay import ReplayJudge, replay_judge_from_spec
from trailcheck.judge.run_judge import judge_labelled, traces_by_item_id
from trailcheck.judge.verdict import JudgeItem, Judging, Verdict
from trailcheck.testing import TraceBuilder


def _record(item_id: str, passed: bool, version: str | None = "rubric-abc") -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item_id,
        "criterion": "c",
        "verdict": {
            "evidence": [],
            "passed_criteria": [],
            "failed_criteria": [],
            "failure_mode": None,
            "passed": passed,
        },
    }
    if version is not None:
        record["judge_version"] = version
    return record


def _write(path: Path, *records: dict[str, Any]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def _label(item_id: str, criterion: str = "c") -> HumanLabel:
    return HumanLabel(item_id=item_id, criterion=criterion, human_passed=True, labeler="ana")


def test_a_recorded_verdict_is_replayed_and_a_missing_one_is_unscorable(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.jsonl", _record("t1", True), _record("t2", False))
    judge = ReplayJudge(path)
    found = asyncio.run(
        judge.judge(JudgeItem(item_id="t2", trace=TraceBuilder("t2").build(), criterion="c"))
    )
    assert (found.status, found.passed, found.judge_version) == ("judged", False, "rubric-abc")
    missing = judge.recorded("t1", "another criterion")
    assert missing.status == "unscorable"
    assert missing.passed is None
    assert (
        missing.reason
        == f"no recorded verdict for item 't1', criterion 'another criterion' in {path}"
    )
    assert judge.describe() == {
        "kind": "replay",
        "file": str(path),
        "verdicts": 2,
        "recorded_judge_version": "rubric-abc",
    }


def test_the_version_is_a_file_hash_unless_every_record_names_one_judge(tmp_path: Path) -> None:
    mixed = ReplayJudge(_write(tmp_path / "a.jsonl", _record("t1", True), _record("t2", True, "x")))
    unnamed = ReplayJudge(_write(tmp_path / "b.jsonl", _record("t1", True, None)))
    other = ReplayJudge(_write(tmp_path / "c.jsonl", _record("t1", False, None)))
    for judge in (mixed, unnamed, other):
        assert judge.version.startswith("replay-")
        assert judge.describe()["recorded_judge_version"] is None
    assert len({mixed.version, unnamed.version, other.version}) == 3


def test_the_spec_form(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.jsonl", _record("t1", True))
    judge = replay_judge_from_spec(f"replay:{path}")
    assert isinstance(judge, ReplayJudge)
    assert replay_judge_from_spec("rubric") is None
    with pytest.raises(UsageError, match="names no file"):
        replay_judge_from_spec("replay:")
    with pytest.raises(InputError, match="no such file"):
        replay_judge_from_spec(f"replay:{tmp_path / 'absent.jsonl'}")


def test_replaying_labelled_items_needs_no_trace(tmp_path: Path) -> None:
    judge = ReplayJudge(_write(tmp_path / "v.jsonl", _record("t1", True)))
    judgings = asyncio.run(judge_labelled(judge, [_label("t1"), _label("t9")]))
    assert [(j.item_id, j.status) for j in judgings] == [("t1", "judged"), ("t9", "unscorable")]


class _Recording:
    """Passes everything; fails loudly on item 'boom'; records how many judgings overlap. The
    first judgings hold until two are under way at once, so judgings made one at a time never
    finish (they hang until the guard)."""

    version = "rec-1"

    def __init__(self) -> None:
        self.active = 0
        self.most_active = 0
        self.two_at_once = asyncio.Event()

    def describe(self) -> dict[str, Any]:
        return {}

    async def judge(self, item: JudgeItem) -> Judging:
        self.active += 1
        self.most_active = max(self.most_active, self.active)
        if self.active == 2:
            self.two_at_once.set()
        await wait_for_event(self.two_at_once.wait(), "two judgings at once")
        self.active -= 1
        if item.item_id == "boom":
            raise RuntimeError("model said no")
        verdict = Verdict(
            evidence=[], passed_criteria=[], failed_criteria=[], failure_mode=None, passed=True
        )
        return Judging(
            item_id=item.item_id,
            criterion=item.criterion,
            judge_version=self.version,
            status="judged",
            verdict=verdict,
        )


def test_a_model_judge_gets_each_labelled_trace_and_losses_become_unscorable() -> None:
    judge = _Recording()
    labels = [_label(f"t{i}") for i in range(8)] + [_label("boom"), _label("absent")]
    items = {f"t{i}": TraceBuilder(f"t{i}").build() for i in range(8)}
    items["boom"] = TraceBuilder("boom").build()
    checked: Judge = judge
    judgings = asyncio.run(judge_labelled(checked, labels, items, concurrency=2))
    assert [j.item_id for j in judgings] == [label.item_id for label in labels]
    assert all(j.status == "judged" for j in judgings[:8])
    assert judgings[8].reason == "judge raised RuntimeError: model said no"
    assert judgings[9].reason == "no trace for item 'absent' among the traces"
    assert judge.most_active == 2
    with pytest.raises(UsageError):
        asyncio.run(judge_labelled(judge, labels, items, concurrency=0))


def test_traces_are_found_by_trace_id_or_by_a_case_id_one_trace_names() -> None:
    traces = [
        TraceBuilder("a").metadata(case_id="refund").build(),
        TraceBuilder("b").metadata(case_id="lookup").build(),
        TraceBuilder("c").metadata(case_id="lookup").build(),
        TraceBuilder("d").metadata(case_id="a").build(),
    ]
    by_id = traces_by_item_id(traces)
    assert sorted(by_id) == ["a", "b", "c", "d", "refund"]
    assert by_id["refund"].trace_id == "a"
    assert by_id["a"].trace_id == "a"  # a trace id wins over a case id
