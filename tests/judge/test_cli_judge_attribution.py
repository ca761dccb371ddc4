"""``trailcheck judge import-labels`` and ``trailcheck judge calibrate`` on attribution labels,
end to end and offline: Who&When logs made labels, cases and traces; a scripted attribution
judge recorded with ``--record`` and replayed to the same figures; a candidate's agreement;
input errors."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

import trailcheck.demo.attribution
from trailcheck.cli import run_cli
from trailcheck.judge.attribution import AttributionJudge
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration
from trailcheck.trace import Message

LOGS = ("Algorithm-Generated/7.json", "Hand-Crafted/3.json")


def yes_at_step_two(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
    asked = re.search(r"Is step (\d+) the decisive mistake", messages[1].content or "")
    decisive = asked is not None and asked.group(1) == "2"
    answer = {"evidence": "e", "decisive_mistake": decisive, "category": "wrong_argument"}
    return Reply(text=json.dumps(answer))


def scripted_attributor() -> AttributionJudge:
    """The factory ``--judge tests.judge.test_cli_judge_attribution:scripted_attributor``."""
    return AttributionJudge(ScriptedModel(yes_at_step_two, name="scripted-attribution"))


@pytest.fixture
def who_and_when(fixtures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """Labels, cases and traces of the two synthetic logs, as the commands make them."""
    logs = [str(fixtures / "who_and_when" / name) for name in LOGS]
    files = {name: tmp_path / name for name in ("labels.jsonl", "cases.yaml", "traces.jsonl")}
    assert run_cli(["import", *logs, "-o", str(files["traces.jsonl"])]) == 0
    argv = ["judge", "import-labels", *logs, "-o", str(files["labels.jsonl"])]
    assert run_cli([*argv, "--cases", str(files["cases.yaml"])]) == 0
    err = capsys.readouterr().err
    assert "2 attribution label(s) written to" in err
    assert "2 case(s) to" in err
    return files


def calibrate(files: dict[str, Path], *argv: str) -> list[str]:
    return ["judge", "calibrate", "--labels", str(files["labels.jsonl"]), *argv]


def test_a_judge_recorded_then_replayed_gives_the_same_report(
    who_and_when: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = tmp_path / "attributions.jsonl"
    judge = "tests.judge.test_cli_judge_attribution:scripted_attributor"
    traces = ["--traces", str(who_and_when["traces.jsonl"])]
    dataset = ["--dataset", str(who_and_when["cases.yaml"])]
    argv = calibrate(who_and_when, "--judge", judge, *traces, *dataset, "--concurrency", "1")
    assert run_cli([*argv, "--record", str(recorded), "--json"]) == 0
    live = orjson.loads(capsys.readouterr().out)
    figures = live["attributor"]["all"]
    # Step 2 is right for the generated team's log, wrong for the hand-crafted one.
    assert (figures["step_accuracy"]["count"], figures["step_accuracy"]["total"]) == (1, 2)
    assert figures["agent_accuracy"]["count"] == 1
    assert figures["step_accuracy"]["interval"]["method"] == "wilson"
    assert sorted(live["attributor"]["groups"]) == ["Algorithm-Generated", "Hand-Crafted"]
    assert live["attributor"]["attributor"]["strategy"] == "step_by_step"
    assert [orjson.loads(line)["calls"] for line in recorded.read_bytes().splitlines()] == [2, 2]
    # Offline: the recorded attributions replay to the same figures, with no model or trace.
    assert run_cli([*calibrate(who_and_when, "--judge", f"replay:{recorded}"), "--json"]) == 0
    replayed = orjson.loads(capsys.readouterr().out)
    assert replayed["attributor"]["all"] == figures
    assert replayed["attributor"]["attributor_version"] == live["attributor"]["attributor_version"]


def test_a_candidate_is_reported_beside_with_the_agreement(
    who_and_when: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def recorded(name: str, steps: list[int | None]) -> str:
        path = tmp_path / name
        items = ["who-and-when:Algorithm-Generated/7", "who-and-when:Hand-Crafted/3"]
        lines = []
        for item, step in zip(items, steps, strict=True):
            attribution = None
            if step is not None:
                attribution = {
                    "span_id": f"message-{step - 1}",
                    "step": step,
                    "name": "x",
                    "category": "wrong_tool",
                    "evidence": "",
                }
            record = {"item_id": item, "attribution": attribution, "attributor_version": name}
            lines.append(orjson.dumps(record))
        path.write_bytes(b"\n".join(lines) + b"\n")
        return f"replay:{path}"

    judge, candidate = recorded("judge", [2, 3]), recorded("deterministic", [2, None])
    argv = calibrate(who_and_when, "--judge", judge, "--candidate", candidate)
    assert run_cli([*argv, "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data["candidate"]["attributor_version"] == "deterministic"
    assert data["candidate"]["all"]["n_unattributed"] == 1
    agreement = data["agreement"]
    assert agreement["n_both_attributed"] == 1
    assert agreement["same_step"]["count"] == 1
    assert run_cli(argv) == 0
    table = capsys.readouterr().out
    assert "attributor judge" in table
    assert "candidate deterministic" in table
    assert "agreement on the 1 item(s) both attributed: same step 1/1 = 1.000" in table
    assert "unattributed: who-and-when:Hand-Crafted/3" in table


def test_input_errors_exit_2(
    who_and_when: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(calibrate(who_and_when, "--judge", "rubric")) == 2
    assert "'rubric' cannot attribute failures" in capsys.readouterr().err
    assert run_cli(calibrate(who_and_when, "--judge", "attribution:guess")) == 2
    assert "no attribution strategy 'guess'" in capsys.readouterr().err
    assert run_cli(calibrate(who_and_when, "--judge", "attribution:binary_search")) == 2
    assert "needs a model" in capsys.readouterr().err
    judge = "tests.judge.test_cli_judge_attribution:scripted_attributor"
    assert run_cli(calibrate(who_and_when, "--judge", judge)) == 2
    assert "give --traces FILE" in capsys.readouterr().err


def test_an_unlabelled_log_is_rejected_and_the_rest_written(
    fixtures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unlabelled = tmp_path / "Hand-Crafted" / "9.json"
    unlabelled.parent.mkdir()
    log = orjson.loads((fixtures / "who_and_when" / LOGS[1]).read_bytes())
    del log["mistake_agent"], log["mistake_step"]
    unlabelled.write_bytes(orjson.dumps(log))
    out = tmp_path / "labels.jsonl"
    good = str(fixtures / "who_and_when" / LOGS[0])
    assert run_cli(["judge", "import-labels", good, str(unlabelled), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"rejected: {unlabelled}: an unlabelled log" in err
    assert "1 attribution label(s) written" in err
    assert len(out.read_bytes().splitlines()) == 1
    assert run_cli(["judge", "import-labels", good, "-o", str(out), "--format", "x"]) == 2


def test_record_writes_a_verdict_judges_verdicts_for_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"item_id": "t1", "criterion": "c", "human_passed": false, "labeler": "a"}\n'
    )
    verdict = {
        "evidence": [],
        "passed_criteria": [],
        "failed_criteria": ["c"],
        "failure_mode": None,
        "passed": False,
    }
    verdicts = tmp_path / "verdicts.jsonl"
    record = {"item_id": "t1", "criterion": "c", "verdict": verdict, "judge_version": "r-1"}
    verdicts.write_bytes(orjson.dumps(record) + b"\n")
    again = tmp_path / "again.jsonl"
    argv = ["judge", "calibrate", "--labels", str(labels), "--judge", f"replay:{verdicts}"]
    assert run_cli([*argv, "--record", str(again), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["agreement"]["count"] == 1
    assert orjson.loads(again.read_bytes()) == record


def test_the_deterministic_attributor_is_calibrated_on_the_five_span_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = Path(trailcheck.demo.attribution.__file__).parent
    labels = tmp_path / "labels.jsonl"
    label = {"item_id": "refund-stale-search", "mistaken_step": 2, "labeler": "lead"}
    labels.write_text(json.dumps(label) + "\n")
    argv = ["judge", "calibrate", "--labels", str(labels), "--judge", "deterministic"]
    data = ["--traces", str(demo / "refund-run.jsonl"), "--dataset", str(demo / "refund.yaml")]

    assert run_cli([*argv, *data, "--json"]) == 0

    figures = orjson.loads(capsys.readouterr().out)["attributor"]["all"]
    assert (figures["step_accuracy"]["count"], figures["step_accuracy"]["total"]) == (1, 1)
