"""``--emit-otel`` on ``trailcheck score`` and ``trailcheck run``: one evaluation event per score
on the evaluated trace's root span, no content, off by default, and never a changed outcome."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from tests.report.evaluated import ANSWER, INPUT, ROOT_ID, TRACE_ID, hex_trace
from tests.telemetry.otlp_receiver import (
    Answer,
    Receiver,
    attributes,
    dead_endpoint,
    running_receiver,
)
from tests.waiting import GUARD_S
from trailcheck.cli import run_cli
from trailcheck.commands import telemetry
from trailcheck.run.results import load_report
from trailcheck.telemetry.otlp_http import OtlpTarget, logs_target
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live

DATASET = f"""\
name: shop
cases:
  - id: refund
    input: "{INPUT}"
    expected_tools: [lookup_order, issue_refund]
    reference_response: Refund issued.
"""
SUPPORT = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")


@pytest.fixture(autouse=True)
def guarded_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The target the commands build, with a guard for its request timeout instead of the
    product's 10 s: a busy machine answering slowly must not read as a receiver that is down."""

    def target(
        endpoint: str, headers: Sequence[str] = (), environ: Mapping[str, str] | None = None
    ) -> OtlpTarget:
        return replace(logs_target(endpoint, headers, environ), timeout_s=GUARD_S)

    monkeypatch.setattr(telemetry, "logs_target", target)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


def _files(tmp_path: Path) -> list[str]:
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(DATASET)
    traces = tmp_path / "traces.jsonl"
    traces.write_bytes(dump_trace(hex_trace()) + b"\n")
    return [str(traces), "--dataset", str(dataset), "--json"]


def test_score_sends_one_event_per_score_on_the_root_span(
    tmp_path: Path, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["score", *_files(tmp_path), "--emit-otel", receiver.endpoint]
    assert run_cli([*args, "--emit-otel-header", "Authorization=Bearer x"]) == 1
    captured = capsys.readouterr()
    (graded,) = orjson.loads(captured.out)
    records = receiver.records()
    assert [attributes(r)["gen_ai.evaluation.name"] for r in records] == [
        score["scorer"] for score in graded["scores"]
    ]
    for record, score in zip(records, graded["scores"], strict=True):
        found = attributes(record)
        assert record.event_name == "gen_ai.evaluation.result"
        assert (record.trace_id.hex(), record.span_id.hex()) == (TRACE_ID, ROOT_ID)
        assert found["gen_ai.evaluation.score.value"] == score["value"]
        assert found["gen_ai.evaluation.score.label"] == ("pass" if score["passed"] else "fail")
        assert score["reason"].startswith(found["gen_ai.evaluation.explanation"])
        assert found["trailcheck.case.id"] == "refund"
        assert len(found["trailcheck.run.id"]) == 32
    (request,) = receiver.received
    assert request.headers["authorization"] == "Bearer x"
    assert "88812" in captured.out  # the report quotes the answer; the telemetry does not
    for text in (INPUT, ANSWER, ANSWER.lower(), "88812"):
        assert text.encode() not in request.body
    assert f"sent {len(records)} evaluation results to {receiver.endpoint}/v1/logs" in (
        captured.err
    )


def test_score_sends_nothing_by_default(
    tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    assert run_cli(["score", *_files(tmp_path)]) == 1
    assert receiver.received == []


def test_score_reads_the_standard_headers_variable(
    tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=s%3Dcret")
    assert run_cli(["score", *_files(tmp_path), "--emit-otel", receiver.endpoint]) == 1
    assert receiver.received[0].headers["x-api-key"] == "s=cret"


def test_a_busy_receiver_is_retried_once(tmp_path: Path, receiver: Receiver) -> None:
    receiver.enqueue(Answer(503, retry_after="0"), Answer(200))
    assert run_cli(["score", *_files(tmp_path), "--emit-otel", receiver.endpoint]) == 1
    assert len(receiver.received) == 2
    assert receiver.received[0].body == receiver.received[1].body


def test_a_dead_endpoint_changes_neither_exit_code_nor_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["score", *_files(tmp_path)]
    assert run_cli(args) == 1
    plain = capsys.readouterr()
    assert run_cli([*args, "--emit-otel", dead_endpoint()]) == 1
    emitted = capsys.readouterr()
    assert emitted.out == plain.out
    extra = emitted.err.removeprefix(plain.err).strip().splitlines()
    assert len(extra) == 1
    assert extra[0].startswith("warning: evaluation results not fully exported")
    assert "the report and the exit code are unaffected" in extra[0]


@pytest.mark.parametrize(
    "args",
    [["--emit-otel", "127.0.0.1:4318"], ["--emit-otel-header", "a=b"]],
)
def test_bad_options_are_usage_errors(
    tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["score", *_files(tmp_path), *args]) == 2
    assert "--emit-otel" in capsys.readouterr().err


def test_run_sends_every_trial_score_on_its_trace(
    tmp_path: Path, receiver: Receiver, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(
        [
            *("run", SUPPORT, "--agent", "trailcheck.demo.support:v1_agent"),
            *("--env", "trailcheck.demo.support:prompt_only_shop", "--out", str(tmp_path)),
            *("--gate-pass-hat-k", "0.9", "--emit-otel", receiver.endpoint + "/v1/logs"),
        ]
    )
    assert code == 1  # v1 fails its gate, telemetry or not
    report = load_report(tmp_path / "report.json")
    traces = {
        trace.trace_id: trace
        for trace in (
            Trace.model_validate_json(line)
            for line in (tmp_path / "report.traces.jsonl").read_bytes().splitlines()
        )
    }
    expected = [
        (trial.trace_id, trial.case_id, score.scorer, score.passed)
        for trial in report.trials()
        for score in trial.scores
    ]
    records = receiver.records()
    assert [
        (
            r.trace_id.hex(),
            attributes(r)["trailcheck.case.id"],
            attributes(r)["gen_ai.evaluation.name"],
            attributes(r)["gen_ai.evaluation.score.label"] == "pass",
        )
        for r in records
    ] == expected
    for record in records:
        root = traces[record.trace_id.hex()].tree.root
        assert root is not None
        assert record.span_id.hex() == root.span_id
        assert attributes(record)["trailcheck.trial.attempt"] == 1
    assert len({attributes(r)["trailcheck.run.id"] for r in records}) == 1
    sent = b"".join(r.body for r in receiver.received)
    for trace in traces.values():
        assert trace.input_text
        assert trace.final_text
        assert trace.input_text.encode() not in sent
        assert trace.final_text.encode() not in sent
    assert "sent" in capsys.readouterr().err
