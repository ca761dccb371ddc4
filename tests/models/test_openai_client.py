"""OpenAIChatModel against a real local OpenAI-compatible server (see openai_server.py)."""

from __future__ import annotations

import asyncio
import json
import pickle
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from tests.models.openai_server import (
    OpenAIServer,
    error_response,
    no_answer,
    running_openai_server,
    text_completion,
    tool_call_completion,
)
from tests.waiting import GUARD_S
from trailcheck.errors import InfraError, UsageError
from trailcheck.models import (
    RAW_ARGUMENTS_KEY,
    ChatOptions,
    OpenAIChatModel,
    ToolDeclaration,
)
from trailcheck.models.openai_client import LOOPBACK_PLACEHOLDER_KEY
from trailcheck.rate_limit import Backoff, RateLimiter
from trailcheck.trace import Message, MessageToolCall, Usage

pytestmark = pytest.mark.live

NO_KEY_ENV = "TRAILCHECK_TEST_UNSET_KEY"


@pytest.fixture(scope="module")
def running() -> Iterator[OpenAIServer]:
    with running_openai_server() as server:
        yield server


@pytest.fixture
def server(running: OpenAIServer) -> OpenAIServer:
    running.reset()
    return running


class Sleeps:
    """An injected sleep: records each wait and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def make_model(
    server: OpenAIServer, sleeps: Sleeps | None = None, **settings: Any
) -> OpenAIChatModel:
    """A model of ``server``; its request timeout is only a guard, unless a test sets one."""
    return OpenAIChatModel(
        "test-model",
        base_url=server.base_url,
        api_key_env=NO_KEY_ENV,
        sleep=sleeps or Sleeps(),
        **{"timeout": GUARD_S, **settings},
    )


async def complete(model: OpenAIChatModel, *args: Any, **kwargs: Any) -> Any:
    async with model:
        return await model.complete(*args, **kwargs)


USER = [Message(role="user", content="Where is order A-1?")]


def test_text_reply_with_usage_model_and_finish_reason(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(NO_KEY_ENV, raising=False)
    server.enqueue(text_completion("It was delivered.", prompt_tokens=12, completion_tokens=5))

    reply = asyncio.run(complete(make_model(server, seed=7), USER))

    assert reply.text == "It was delivered."
    assert reply.tool_calls == []
    assert reply.usage == Usage(input_tokens=12, output_tokens=5)
    assert reply.model == "test-model-2024"
    assert reply.finish_reason == "stop"
    (request,) = server.requests
    assert request.body["model"] == "test-model"
    assert request.body["messages"] == [{"role": "user", "content": "Where is order A-1?"}]
    assert request.body["temperature"] == 0.0
    assert request.body["seed"] == 7
    assert "tools" not in request.body
    assert "response_format" not in request.body
    # No key in the environment, a loopback server: the placeholder key is sent.
    assert request.headers["authorization"] == f"Bearer {LOOPBACK_PLACEHOLDER_KEY}"


def test_tools_and_conversation_go_out_in_the_openai_shape(server: OpenAIServer) -> None:
    server.enqueue(
        tool_call_completion(
            ("call_a", "lookup_order", '{"order_id": "A-1"}'),
            ("call_b", "issue_refund", '{"order_id": "A-1", '),  # broken JSON from the model
            ("call_c", "list_orders", ""),
        )
    )
    tool = ToolDeclaration(
        name="lookup_order",
        description="Look up an order.",
        parameters={"type": "object", "properties": {"order_id": {"type": "string"}}},
    )
    conversation = [
        Message(role="system", content="Be brief."),
        *USER,
        Message(
            role="assistant",
            tool_calls=[
                MessageToolCall(id="call_0", name="lookup_order", arguments={"order_id": "A-0"})
            ],
        ),
        Message(role="tool", tool_call_id="call_0", content='{"status": "lost"}'),
    ]

    reply = asyncio.run(complete(make_model(server), conversation, [tool]))

    assert reply.finish_reason == "tool_calls"
    assert reply.tool_calls == [
        MessageToolCall(id="call_a", name="lookup_order", arguments={"order_id": "A-1"}),
        MessageToolCall(
            id="call_b", name="issue_refund", arguments={RAW_ARGUMENTS_KEY: '{"order_id": "A-1", '}
        ),
        MessageToolCall(id="call_c", name="list_orders", arguments={}),
    ]
    body = server.bodies[0]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup_order",
                "description": "Look up an order.",
                "parameters": tool.parameters,
            },
        }
    ]
    assert body["messages"][2] == {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "lookup_order", "arguments": '{"order_id": "A-0"}'},
            }
        ],
    }
    assert body["messages"][3] == {
        "role": "tool",
        "content": '{"status": "lost"}',
        "tool_call_id": "call_0",
    }


def test_raw_arguments_go_back_as_the_model_wrote_them(server: OpenAIServer) -> None:
    server.enqueue(text_completion("ok"))
    broken = MessageToolCall(id="c1", name="f", arguments={RAW_ARGUMENTS_KEY: "{oops"})
    asyncio.run(
        complete(make_model(server), [*USER, Message(role="assistant", tool_calls=[broken])])
    )
    assert server.bodies[0]["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{oops"


class Verdict(BaseModel):
    model_config = {"extra": "forbid"}
    passed: bool
    reason: str


class LooseVerdict(BaseModel):
    passed: bool
    reason: str | None = None


def test_output_schema_is_sent_as_json_schema_response_format(server: OpenAIServer) -> None:
    server.enqueue(text_completion('{"passed": true, "reason": "ok"}'), text_completion("{}"))
    strict_schema = Verdict.model_json_schema()
    loose_schema = LooseVerdict.model_json_schema()

    async def both() -> None:
        async with make_model(server) as model:
            await model.complete(USER, output_schema=strict_schema)
            await model.complete(USER, output_schema=loose_schema)

    asyncio.run(both())

    strict, loose = (body["response_format"] for body in server.bodies)
    assert strict == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": strict_schema, "strict": True},
    }
    # Optional fields and an open object do not meet strict mode's rules: sent unstrict.
    assert loose["json_schema"]["strict"] is False
    assert loose["json_schema"]["name"] == "LooseVerdict"


def test_strictness_can_be_forced_by_the_options(server: OpenAIServer) -> None:
    server.enqueue(text_completion("{}"))
    model = make_model(
        server, options=ChatOptions(strict_schema=False, max_tokens=50, extra_body={"top_k": 5})
    )
    asyncio.run(complete(model, USER, output_schema=Verdict.model_json_schema()))
    body = server.bodies[0]
    assert body["response_format"]["json_schema"]["strict"] is False
    assert body["max_tokens"] == 50
    assert body["top_k"] == 5


def test_429_is_retried_after_the_wait_the_server_asks_for(server: OpenAIServer) -> None:
    server.enqueue(
        error_response(429, "slow down", headers={"retry-after": "2"}),
        error_response(429, "slow down", headers={"retry-after-ms": "250"}),
        text_completion("finally"),
    )
    sleeps = Sleeps()
    limiter = RateLimiter(rate=1000, burst=10)

    reply = asyncio.run(complete(make_model(server, sleeps, rate_limiter=limiter), USER))

    assert reply.text == "finally"
    assert len(server.requests) == 3
    assert sleeps.waits == [2.0, 0.25]
    assert limiter.acquisitions == 3  # one per attempt, retries included


def test_5xx_exhausted_raises_infra_error_after_backing_off(server: OpenAIServer) -> None:
    server.enqueue(*(error_response(503, "overloaded") for _ in range(3)))
    sleeps = Sleeps()
    backoff = Backoff(initial_s=1.0, factor=2.0, max_s=10.0, jitter=0.5)
    limiter = RateLimiter(rate=1000, burst=10)
    model = make_model(server, sleeps, max_retries=2, backoff=backoff, rate_limiter=limiter)

    with pytest.raises(InfraError) as caught:
        asyncio.run(complete(model, USER))

    message = str(caught.value)
    assert "HTTP 503" in message
    assert "after 3 attempts" in message
    assert "'test-model'" in message
    assert server.base_url in message
    assert len(server.requests) == 3
    assert limiter.acquisitions == 3
    # Exponential, less up to half of it in jitter: 1 s then 2 s.
    first, second = sleeps.waits
    assert 0.5 <= first <= 1.0
    assert 1.0 <= second <= 2.0


def test_400_is_not_retried(server: OpenAIServer) -> None:
    server.enqueue(error_response(400, "bad messages"), text_completion("never sent"))
    sleeps = Sleeps()
    with pytest.raises(InfraError, match=r"HTTP 400 after 1 attempt: .*bad messages"):
        asyncio.run(complete(make_model(server, sleeps), USER))
    assert len(server.requests) == 1
    assert sleeps.waits == []


def test_401_names_the_key_variable(server: OpenAIServer) -> None:
    server.enqueue(error_response(401, "invalid key"))
    with pytest.raises(InfraError, match=rf"HTTP 401 .*\${NO_KEY_ENV}"):
        asyncio.run(complete(make_model(server), USER))
    assert len(server.requests) == 1


def test_a_timeout_is_retried_then_an_infra_error(server: OpenAIServer) -> None:
    server.enqueue(no_answer(), no_answer())  # held until the client's timeout gives up
    sleeps = Sleeps()
    with pytest.raises(InfraError, match=r"request timed out after 2 attempts"):
        asyncio.run(complete(make_model(server, sleeps, timeout=0.1, max_retries=1), USER))
    assert len(sleeps.waits) == 1


def test_a_refused_connection_is_retried_then_an_infra_error() -> None:
    sleeps = Sleeps()
    # The port stays bound, never listening, for the whole test: refused every time, and no
    # other process can start listening on it meanwhile.
    with socket.socket() as unlistened:
        unlistened.bind(("127.0.0.1", 0))
        port = unlistened.getsockname()[1]
        model = OpenAIChatModel(
            "m",
            base_url=f"http://127.0.0.1:{port}/v1",
            api_key_env=NO_KEY_ENV,
            max_retries=2,
            timeout=GUARD_S,
            sleep=sleeps,
        )
        with pytest.raises(InfraError, match=r"request failed after 3 attempts"):
            asyncio.run(complete(model, USER))
    assert len(sleeps.waits) == 2


def test_the_model_can_be_used_again_after_closing(server: OpenAIServer) -> None:
    server.enqueue(text_completion("one"), text_completion("two"))
    model = make_model(server)
    assert asyncio.run(complete(model, USER)).text == "one"
    assert asyncio.run(complete(model, USER)).text == "two"  # another event loop, a new client


def test_settings_are_json_and_name_what_was_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret")
    model = OpenAIChatModel("gpt-x", api_key_env="MY_KEY", temperature=None, seed=3, timeout=5)
    settings = model.settings()
    assert settings == {
        "model": "gpt-x",
        "base_url": "https://api.openai.com/v1",
        "temperature": None,
        "seed": 3,
        "timeout": 5,
        "max_retries": 3,
    }
    assert "sk-secret" not in json.dumps(settings)
    assert model.name == "gpt-x"


def test_a_copy_for_another_process_carries_no_key_and_reads_its_own(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-of-the-driver")
    server.enqueue(text_completion("before"), text_completion("after"))
    model = OpenAIChatModel("m", base_url=server.base_url, api_key_env="MY_KEY", timeout=GUARD_S)
    assert asyncio.run(complete(model, USER)).text == "before"  # a client made: it stays here
    sent = pickle.dumps(model)
    assert b"sk-secret" not in sent
    monkeypatch.setenv("MY_KEY", "sk-key-of-the-worker")
    copy = pickle.loads(sent)
    assert copy.settings() == model.settings()
    # Each copy draws its own retry jitter, so the workers' retries after a 429 spread out.
    other = pickle.loads(sent)
    assert copy._random.random() != other._random.random()
    assert asyncio.run(complete(copy, USER)).text == "after"
    assert [request.headers["authorization"] for request in server.requests] == [
        "Bearer sk-secret-of-the-driver",
        "Bearer sk-key-of-the-worker",
    ]


@pytest.mark.parametrize("base_url", [None, "https://llm.example.com/v1"])
def test_a_missing_key_for_a_remote_server_is_a_usage_error(
    base_url: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(NO_KEY_ENV, raising=False)
    with pytest.raises(UsageError, match=rf"set \${NO_KEY_ENV}"):
        OpenAIChatModel("m", base_url=base_url, api_key_env=NO_KEY_ENV)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.2", "[::1]"])
def test_loopback_servers_need_no_key(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NO_KEY_ENV, raising=False)
    model = OpenAIChatModel("m", base_url=f"http://{host}:8000/v1", api_key_env=NO_KEY_ENV)
    assert model.settings()["base_url"] == f"http://{host}:8000/v1"


@pytest.mark.parametrize("spec", ["rubric", "groundedness", "reference"])
def test_a_model_judge_travels_with_its_settings_and_without_the_key(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trailcheck.commands.judge_impl import JudgeModels, build_judge

    monkeypatch.setenv("MY_KEY", "sk-secret-of-the-driver")
    judge = build_judge(spec, JudgeModels("judge-model", "https://llm.example.com/v1", "MY_KEY"))
    sent = pickle.dumps(judge)
    assert b"sk-secret" not in sent
    copy = pickle.loads(sent)
    assert (type(copy), copy.version, copy.describe()) == (
        type(judge),
        judge.version,
        judge.describe(),
    )
