"""Structured verdicts: validated, one retry saying what was wrong, then unscorable."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from tests.judge.support import CRITERION, refund_item, verdict_json
from tests.models.openai_server import (
    OpenAIServer,
    error_response,
    running_openai_server,
    text_completion,
)
from trailcheck.errors import InfraError
from trailcheck.judge import Judging, RubricJudge, ask_verdict, verdict_json_schema
from trailcheck.models import OpenAIChatModel, Reply, ScriptedModel, ToolDeclaration
from trailcheck.trace import Message

pytestmark = pytest.mark.live

NO_KEY_ENV = "TRAILCHECK_TEST_UNSET_KEY"
ASK = [Message(role="user", content="judge this")]


def ask(model: ScriptedModel, retries: int = 1) -> Judging:
    return asyncio.run(
        ask_verdict(
            model, ASK, item_id="i1", criterion=CRITERION, judge_version="v1", retries=retries
        )
    )


def test_a_valid_verdict_is_judged_and_the_schema_is_asked_for() -> None:
    model = ScriptedModel([verdict_json(False)])
    judging = ask(model)
    assert judging.status == "judged"
    assert judging.passed is False
    assert judging.verdict is not None
    assert judging.verdict.failure_mode == "refund_without_verification"
    assert judging.attempts == 1
    assert judging.reason == f"failed: {CRITERION} (failure mode refund_without_verification)"
    assert model.calls[0].output_schema == verdict_json_schema()


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("PASS", "not JSON"),
        ('{"passed": true}', "evidence: Field required"),
        (verdict_json(True, score=5), "score: Extra inputs are not permitted"),
        (
            verdict_json(True).replace('"passed": true', '"passed": "maybe"'),
            "passed: Input should be a valid boolean",
        ),
        ("", "no text"),
    ],
)
def test_an_invalid_answer_gets_one_retry_saying_what_was_wrong(bad: str, problem: str) -> None:
    model = ScriptedModel([bad, verdict_json(True)])
    judging = ask(model)
    assert judging.status == "judged"
    assert judging.passed is True
    assert judging.attempts == 2
    retry = model.calls[1].messages
    assert retry[:1] == ASK
    assert retry[1] == Message(role="assistant", content=bad)
    assert problem in (retry[2].content or "")
    assert model.calls[1].output_schema == verdict_json_schema()


def test_two_invalid_answers_are_unscorable_with_the_raw_text_kept() -> None:
    model = ScriptedModel(["I think it passes", '{"passed": true}'])
    judging = ask(model)
    assert judging.status == "unscorable"
    assert judging.verdict is None
    assert judging.passed is None
    assert judging.raw == '{"passed": true}'
    assert judging.attempts == 2
    assert judging.reason.startswith("no valid answer after 2 attempts: the answer does not fit")
    assert len(model.calls) == 2


def test_no_retry_when_retries_is_zero() -> None:
    judging = ask(ScriptedModel(["nope"]), retries=0)
    assert (judging.status, judging.attempts, judging.raw) == ("unscorable", 1, "nope")


def test_a_fenced_json_answer_is_read() -> None:
    judging = ask(ScriptedModel([f"```json\n{verdict_json(True)}\n```"]))
    assert judging.passed is True


def test_an_infra_error_is_an_unscorable_judging_not_an_exception() -> None:
    def down(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        raise InfraError("model 'judge' at http://x: HTTP 503 after 4 attempts: busy")

    judging = ask(ScriptedModel(down))
    assert judging.status == "unscorable"
    assert judging.reason == (
        "the judge model failed: model 'judge' at http://x: HTTP 503 after 4 attempts: busy"
    )


# -- the real openai client path, against a local OpenAI-compatible server ------------------


@pytest.fixture(scope="module")
def running() -> Iterator[OpenAIServer]:
    with running_openai_server() as server:
        yield server


@pytest.fixture
def server(running: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    monkeypatch.delenv(NO_KEY_ENV, raising=False)
    running.reset()
    return running


async def _no_sleep(seconds: float) -> None:
    return None


def judge_over_http(server: OpenAIServer, **settings: Any) -> tuple[RubricJudge, Judging]:
    model = OpenAIChatModel(
        "judge-model",
        base_url=server.base_url,
        api_key_env=NO_KEY_ENV,
        sleep=_no_sleep,
        **settings,
    )
    judge = RubricJudge(model)

    async def run() -> Judging:
        async with model:
            return await judge.judge(refund_item())

    return judge, asyncio.run(run())


def test_the_openai_client_asks_for_the_verdict_schema_at_temperature_zero(
    server: OpenAIServer,
) -> None:
    server.enqueue(text_completion(verdict_json(False)))
    judge, judging = judge_over_http(server)
    assert judging.status == "judged"
    assert judging.passed is False
    assert judging.judge_version == judge.version
    (body,) = server.bodies
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": verdict_json_schema(), "strict": True},
    }
    assert [message["role"] for message in body["messages"]] == ["system", "user"]
    assert judge.describe()["model"]["settings"]["temperature"] == 0.0


def test_a_malformed_verdict_over_http_is_retried_then_unscorable(server: OpenAIServer) -> None:
    server.enqueue(text_completion("PASS"), text_completion('{"passed": "yes"}'))
    _, judging = judge_over_http(server)
    assert judging.status == "unscorable"
    assert judging.raw == '{"passed": "yes"}'
    assert len(server.bodies) == 2
    retry = server.bodies[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "PASS"}
    assert "not JSON" in retry[-1]["content"]
    assert server.bodies[1]["response_format"]["json_schema"]["schema"] == verdict_json_schema()


def test_a_server_that_keeps_failing_makes_the_judging_unscorable(server: OpenAIServer) -> None:
    server.enqueue(error_response(500), error_response(500))
    _, judging = judge_over_http(server, max_retries=1)
    assert judging.status == "unscorable"
    assert judging.reason.startswith("the judge model failed: model 'judge-model'")
    assert "HTTP 500 after 2 attempts" in judging.reason
    assert json.loads(json.dumps(judging.model_dump(mode="json")))["raw"] is None
