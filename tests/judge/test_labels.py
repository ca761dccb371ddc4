"""Human labels and recorded verdicts: read whole, or refused with every bad record named by
file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.errors import InputError
from trailcheck.judge.labels import LabelsFileError, load_labels, load_verdicts

VERDICT = {
    "evidence": ["refund issued"],
    "passed_criteria": [],
    "failed_criteria": ["verifies identity first"],
    "failure_mode": "refund_without_verification",
    "passed": False,
}


def _label(item_id: str = "t1", **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item_id,
        "criterion": "verifies identity",
        "human_passed": True,
        "labeler": "ana",
        "note": "",
    }
    record.update(fields)
    return record


def _write(path: Path, *lines: object) -> Path:
    text = b"\n".join(
        line.encode() if isinstance(line, str) else orjson.dumps(line) for line in lines
    )
    path.write_bytes(text + b"\n")
    return path


def test_labels_are_read_in_order_with_their_optional_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "labels.jsonl",
        _label("t1"),
        "",
        _label("t2", human_passed=False, split="validation", development=True, note="why"),
    )
    first, second = load_labels(path)
    assert (first.item_id, first.human_passed, first.split, first.development) == (
        "t1",
        True,
        None,
        False,
    )
    assert (second.item_id, second.human_passed, second.split, second.development) == (
        "t2",
        False,
        "validation",
        True,
    )
    assert second.key == ("t2", "verifies identity")


def test_note_may_be_left_out(tmp_path: Path) -> None:
    record = _label()
    del record["note"]
    assert load_labels(_write(tmp_path / "l.jsonl", record))[0].note == ""


def test_every_bad_record_is_reported_at_once_and_nothing_is_loaded(tmp_path: Path) -> None:
    missing = _label("t3")
    del missing["labeler"]
    path = _write(
        tmp_path / "labels.jsonl",
        _label("t1"),
        _label("t2", human_passed="yes"),
        missing,
        "{not json",
        _label("t4", developement=True),
        _label("t1"),
        "[1, 2]",
        _label("t5", split="train"),
    )
    with pytest.raises(LabelsFileError) as caught:
        load_labels(path)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{path}: 7 bad records; nothing was loaded"
    assert lines[1].startswith(f"{path}:2: field 'human_passed': ")
    assert lines[2] == f"{path}:3: field 'labeler': Field required"
    assert lines[3].startswith(f"{path}:4: not valid JSON")
    assert lines[4] == f"{path}:5: field 'developement': unknown field"
    assert lines[5] == (
        f"{path}:6: field 'item_id': a second label for item 't1', criterion 'verifies identity'"
        " (the first is at line 1); one label per item and criterion"
    )
    assert lines[6] == f"{path}:7: a record must be a JSON object, not list"
    assert lines[7].startswith(f"{path}:8: field 'split': ")
    assert isinstance(caught.value, InputError)


def test_a_record_with_several_bad_fields_names_each(tmp_path: Path) -> None:
    path = _write(tmp_path / "labels.jsonl", _label("", human_passed=1))
    with pytest.raises(LabelsFileError) as caught:
        load_labels(path)
    fields = {rejection.field for rejection in caught.value.rejections}
    assert fields == {"item_id", "human_passed"}


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot be read"):
        load_labels(tmp_path / "absent.jsonl")


def test_recorded_verdicts_are_read_and_checked_against_the_verdict_schema(
    tmp_path: Path,
) -> None:
    good = {"item_id": "t1", "criterion": "c", "verdict": VERDICT, "judge_version": "j-1"}
    path = _write(tmp_path / "verdicts.jsonl", good)
    (record,) = load_verdicts(path)
    assert record.verdict.passed is False
    assert record.judge_version == "j-1"

    bad_verdict = {**VERDICT, "passed": "false"}
    del bad_verdict["evidence"]
    bad = _write(
        tmp_path / "bad.jsonl", good, {"item_id": "t2", "criterion": "c", "verdict": bad_verdict}
    )
    with pytest.raises(LabelsFileError) as caught:
        load_verdicts(bad)
    assert [(r.line, r.field) for r in caught.value.rejections] == [
        (2, "verdict.evidence"),
        (2, "verdict.passed"),
    ]
