"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: scripted answers, kept requests.

::

    @pytest.fixture
    def server() -> Iterator[OpenAIServer]:
        with running_openai_server() as server:
            yield server

    def test_it(server: OpenAIServer) -> None:
        server.enqueue(error_response(429, headers={"retry-after": "2"}), text_completion("Hi"))
        model = OpenAIChatModel("test-model", base_url=server.base_url)
        ...
        server.requests[0].body["messages"]

``POST /v1/chat/completions`` answers with the next scripted :class:`ScriptedResponse` (a
``500`` saying so when none is left) and keeps each request's JSON body and headers. A
:func:`no_answer` holds its request open, unanswered, until the client hangs up: a client timeout
under test fires first however slow the machine, with no delay racing it. The server is uvicorn
serving a FastAPI app in a background thread, on a socket bound to a free port; it stops (and the
thread ends) when the ``with`` block does.
"""

from __future__ import annotations

import socket
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from tests.waiting import GUARD_S, wait_until

__all__ = [
    "OpenAIServer",
    "ReceivedRequest",
    "ScriptedResponse",
    "error_response",
    "no_answer",
    "running_openai_server",
    "text_completion",
    "tool_call_completion",
]


@dataclass(frozen=True)
class ScriptedResponse:
    """One answer of the server: a status, a JSON body and headers; or, when ``held``, none:
    the request stays open until the client hangs up (see :func:`no_answer`)."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    held: bool = False


@dataclass(frozen=True)
class ReceivedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


def text_completion(
    text: str | None,
    *,
    model: str = "test-model-2024",
    finish_reason: str = "stop",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
) -> ScriptedResponse:
    """A chat completion whose message is ``text``."""
    return _completion(
        {"role": "assistant", "content": text},
        model,
        finish_reason,
        prompt_tokens,
        completion_tokens,
    )


def tool_call_completion(
    *calls: tuple[str, str, str],
    text: str | None = None,
    model: str = "test-model-2024",
) -> ScriptedResponse:
    """A chat completion calling tools: each call is ``(id, name, arguments JSON text)``."""
    message = {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls
        ],
    }
    return _completion(message, model, "tool_calls", 20, 9)


def error_response(
    status: int, message: str = "scripted failure", *, headers: dict[str, str] | None = None
) -> ScriptedResponse:
    """An error answer shaped as the OpenAI API shapes them."""
    body = {"error": {"message": message, "type": "test_error", "param": None, "code": None}}
    return ScriptedResponse(status=status, body=body, headers=dict(headers or {}))


def no_answer() -> ScriptedResponse:
    """No answer: the request is held open until the client gives up and hangs up, so the
    client's timeout is what ends it, never a delay on the server racing that timeout."""
    return ScriptedResponse(held=True)


def _completion(
    message: dict[str, Any], model: str, finish_reason: str, prompt: int, completion: int
) -> ScriptedResponse:
    return ScriptedResponse(
        body={
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
    )


class OpenAIServer:
    """The running server's script and record (see the module docstring)."""

    def __init__(self) -> None:
        self.base_url = ""
        self.requests: list[ReceivedRequest] = []
        self._script: deque[ScriptedResponse] = deque()
        self._lock = threading.Lock()

    def enqueue(self, *responses: ScriptedResponse) -> None:
        """Answer the next requests with ``responses``, in order."""
        with self._lock:
            self._script.extend(responses)

    def reset(self) -> None:
        """Forget the requests received and the answers not given (between tests)."""
        with self._lock:
            self.requests.clear()
            self._script.clear()

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of the requests received, in order."""
        return [request.body for request in self.requests]

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat_completions(request: Request) -> JSONResponse:
            body = await request.json()
            with self._lock:
                self.requests.append(
                    ReceivedRequest(request.url.path, body, dict(request.headers.items()))
                )
                scripted = self._script.popleft() if self._script else None
            if scripted is None:
                scripted = error_response(500, "the test server's script has no response left")
            if scripted.held:
                # The body is read, so the next message is the client's disconnect. (At the
                # server's shutdown a request still held is cancelled.)
                while (await request.receive())["type"] != "http.disconnect":
                    pass
                return Response(status_code=504)  # to nobody: the connection is gone
            return JSONResponse(
                scripted.body, status_code=scripted.status, headers=scripted.headers
            )

        return app


@contextmanager
def running_openai_server() -> Iterator[OpenAIServer]:
    """A server listening on 127.0.0.1 for the block; it stops and its thread ends after."""
    state = OpenAIServer()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        state.app(),
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)

    def started() -> bool:
        if not thread.is_alive():
            raise RuntimeError("the test OpenAI server stopped before it started")
        return server.started

    thread.start()
    try:
        wait_until(started, "the test OpenAI server's start")
        state.base_url = f"http://127.0.0.1:{port}/v1"
        yield state
    finally:
        server.should_exit = True
        thread.join(timeout=GUARD_S)
        sock.close()
        if thread.is_alive():
            raise RuntimeError("the test OpenAI server did not stop")
