"""A :class:`~trailcheck.models.ChatModel` for any OpenAI-compatible chat completions endpoint.

::

    model = OpenAIChatModel("gpt-4o-mini", rate_limiter=RateLimiter(rate=5, burst=10))
    local = OpenAIChatModel("qwen2.5-7b", base_url="http://127.0.0.1:8000/v1")  # vLLM, no key
    async with model:
        reply = await model.complete(messages, tools=declare_tools(shop.tools))

It speaks through the official ``openai`` SDK (``AsyncOpenAI().chat.completions.create``), with
the SDK's own retries off: this module retries, so that backoff and rate limiting are one policy
that tests can drive with a fake sleep.

- **Retries**: HTTP 408, 429 and 5xx, connection errors and timeouts are retried up to
  ``max_retries`` times (``max_retries + 1`` attempts), waiting by
  :class:`~trailcheck.rate_limit.Backoff` (exponential with jitter) or, when the server sends
  ``Retry-After`` / ``retry-after-ms``, as long as it says (up to
  ``Backoff.max_retry_after_s``). Each attempt first acquires the shared
  :class:`~trailcheck.rate_limit.RateLimiter`.
- **Failures** are :class:`~trailcheck.errors.InfraError` naming the model, the base URL, the
  status and the number of attempts, with the SDK's exception as ``__cause__``. Other 4xx
  answers are not retried. 401, 403 and 404 are InfraError too (not UsageError): they come from
  the service's configuration (key, model name, URL), may be fixed on the server's side, and a
  runner counts such trials as ``infra_error`` rather than as the agent's failures; their
  message says what to check.
- **API key**: read from the environment variable ``api_key_env`` when the model is made. When
  it is unset and ``base_url`` is a loopback address (``localhost``, ``127.0.0.0/8``, ``::1``:
  a local vLLM or test server), a placeholder key is sent; elsewhere an unset key is a
  :class:`~trailcheck.errors.UsageError`.
- **Tool call arguments** that are not the JSON text of an object (models do write broken JSON)
  are kept, not dropped: the call's arguments are ``{"_raw_arguments": "<the text>"}``
  (:data:`~trailcheck.models.declarations.RAW_ARGUMENTS_KEY`), which an agent loop reports back
  to the model as invalid arguments.
- **Output schema**: sent as ``response_format={"type": "json_schema", ...}``, named after the
  schema's ``title``; ``strict`` is :attr:`ChatOptions.strict_schema`, by default true exactly
  when the schema meets strict mode's rules (every object closed and all its properties
  required), so a pydantic model with optional fields is still accepted, unstrictly.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from trailcheck.errors import InfraError, UsageError
from trailcheck.models.api_key import DEFAULT_BASE_URL, LOOPBACK_PLACEHOLDER_KEY, api_key
from trailcheck.models.chat import Reply, ToolDeclaration
from trailcheck.models.declarations import RAW_ARGUMENTS_KEY
from trailcheck.rate_limit import Backoff, RateLimiter, retry_after_seconds
from trailcheck.trace import Message, MessageToolCall, Usage

if TYPE_CHECKING:
    # The SDK takes a second to import; it is imported when a model is first called, so that
    # importing trailcheck.models (the scripted model, the declarations) stays cheap.
    import openai
    from openai.types.chat import ChatCompletion

__all__ = ["LOOPBACK_PLACEHOLDER_KEY", "ChatOptions", "OpenAIChatModel"]

_RETRYABLE_STATUS = frozenset({408, 429})
_SCHEMA_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_SUBSCHEMA_KEYS = ("items", "additionalProperties", "not")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_CONFIG_HINTS = {
    401: "check the API key in ${env}",
    403: "check the API key's permissions (${env})",
    404: "check the model name and the base_url",
}


@dataclass(frozen=True, slots=True)
class ChatOptions:
    """Request settings beyond the common ones. ``strict_schema`` None: see the module."""

    max_tokens: int | None = None
    strict_schema: bool | None = None
    # Server-specific fields sent as they are (vLLM's ``chat_template_kwargs``, ``top_k``, ...).
    extra_body: Mapping[str, Any] = field(default_factory=dict)


class OpenAIChatModel:
    """A chat model behind an OpenAI-compatible API; see the module docstring.

    The SDK client is made on first use and closed by :meth:`aclose` (or ``async with``), after
    which the model can be used again (in another event loop too)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60,
        max_retries: int = 3,
        rate_limiter: RateLimiter | None = None,
        temperature: float | None = 0.0,
        seed: int | None = None,
        options: ChatOptions | None = None,
        backoff: Backoff | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if max_retries < 0:
            raise UsageError(f"max_retries must be 0 or more, not {max_retries}")
        self._model = model
        self._base_url = base_url
        self._api_key: str | None = api_key(api_key_env, base_url)
        self._api_key_env = api_key_env
        self._timeout = timeout
        self._max_retries = max_retries
        self._rate_limiter = rate_limiter
        self._temperature = temperature
        self._seed = seed
        self._options = options or ChatOptions()
        self._backoff = backoff or Backoff()
        self._sleep = sleep
        self._random = random.Random()
        self._client: openai.AsyncOpenAI | None = None

    @property
    def name(self) -> str:
        return self._model

    def settings(self) -> dict[str, Any]:
        """What the run manifest records of this model (no key)."""
        settings: dict[str, Any] = {
            "model": self._model,
            "base_url": self._base_url or DEFAULT_BASE_URL,
            "temperature": self._temperature,
            "seed": self._seed,
            "timeout": self._timeout,
            "max_retries": self._max_retries,
        }
        if self._options.max_tokens is not None:
            settings["max_tokens"] = self._options.max_tokens
        if self._options.extra_body:
            settings["extra_body"] = dict(self._options.extra_body)
        return settings

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDeclaration] = (),
        output_schema: dict[str, Any] | None = None,
    ) -> Reply:
        import openai  # see the note at the imports

        request = self._request(messages, tools, output_schema)
        client = self._client_here()
        attempt = 0
        while True:
            attempt += 1
            if self._rate_limiter is not None:
                await self._rate_limiter.acquire()
            try:
                completion = await client.chat.completions.create(**request)
            except openai.APIError as error:
                wait = self._wait_before_retry(error, attempt)
                if wait is None:
                    raise self._failure(error, attempt) from error
                await self._sleep(wait)
                continue
            return self._reply(cast("ChatCompletion", completion))

    def __getstate__(self) -> dict[str, Any]:
        """What a copy in another process (a Ray worker) gets: the settings, without the SDK
        client (its connections belong to this process) and without the key, which the copy
        reads from its own environment (``api_key_env``) when it first calls the model."""
        state = dict(self.__dict__)
        state.update(_client=None, _api_key=None, _random=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # Its own jitter: copies drawing the same waits would retry a 429 in step.
        self._random = random.Random()

    async def aclose(self) -> None:
        """Close the SDK client and its connections."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self._model!r}, base_url={self._base_url!r})"

    # -- internals -------------------------------------------------------------------------

    def _client_here(self) -> openai.AsyncOpenAI:
        import openai

        if self._client is None:
            if self._api_key is None:  # a copy made elsewhere: the key from this environment
                self._api_key = api_key(self._api_key_env, self._base_url)
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout,
                max_retries=0,  # this module retries: one policy, testable
            )
        return self._client

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDeclaration],
        output_schema: dict[str, Any] | None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self._model,
            "messages": [_wire_message(message) for message in messages],
        }
        if tools:
            request["tools"] = [_wire_tool(tool) for tool in tools]
        if output_schema is not None:
            request["response_format"] = _response_format(output_schema, self._options)
        optional = {
            "temperature": self._temperature,
            "seed": self._seed,
            "max_tokens": self._options.max_tokens,
        }
        request.update({key: value for key, value in optional.items() if value is not None})
        if self._options.extra_body:
            request["extra_body"] = dict(self._options.extra_body)
        return request

    def _wait_before_retry(self, error: openai.APIError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None when the error is final."""
        import openai

        if attempt > self._max_retries:
            return None
        if isinstance(error, openai.APIStatusError):
            status = error.status_code
            if status not in _RETRYABLE_STATUS and status < 500:
                return None
            told = retry_after_seconds(error.response.headers)
            if told is not None:
                return min(told, self._backoff.max_retry_after_s)
        elif not isinstance(error, openai.APIConnectionError):  # e.g. a malformed response
            return None
        return self._backoff.delay(attempt, self._random.random())

    def _failure(self, error: openai.APIError, attempts: int) -> InfraError:
        import openai

        where = f"model {self._model!r} at {self._base_url or DEFAULT_BASE_URL}"
        tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
        if isinstance(error, openai.APIStatusError):
            hint = _CONFIG_HINTS.get(error.status_code, "")
            hint = f"; {hint.format(env=self._api_key_env)}" if hint else ""
            return InfraError(f"{where}: HTTP {error.status_code} {tries}: {error.message}{hint}")
        kind = "timed out" if isinstance(error, openai.APITimeoutError) else "failed"
        return InfraError(f"{where}: request {kind} {tries}: {error.message}")

    def _reply(self, completion: ChatCompletion) -> Reply:
        if not completion.choices:
            raise InfraError(f"model {self._model!r} answered with no choices")
        choice = completion.choices[0]
        message = choice.message
        usage = completion.usage
        return Reply(
            text=message.content if message.content is not None else message.refusal,
            tool_calls=[_tool_call(call) for call in message.tool_calls or []],
            usage=None
            if usage is None
            else Usage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens),
            model=completion.model or None,
            finish_reason=choice.finish_reason,
        )


def _wire_message(message: Message) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": message.role}
    if message.content is not None or message.role != "assistant":
        wire["content"] = message.content if message.content is not None else ""
    if message.tool_calls:
        wire["tool_calls"] = [
            {
                "id": call.id or "",
                "type": "function",
                "function": {"name": call.name, "arguments": _wire_arguments(call.arguments)},
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        wire["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        wire["name"] = message.name
    return wire


def _wire_arguments(arguments: dict[str, Any]) -> str:
    raw = arguments.get(RAW_ARGUMENTS_KEY)
    if len(arguments) == 1 and isinstance(raw, str):
        return raw  # what the model wrote goes back as it wrote it
    return json.dumps(arguments, ensure_ascii=False)


def _wire_tool(tool: ToolDeclaration) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name, "parameters": tool.parameters}
    if tool.description:
        function["description"] = tool.description
    return {"type": "function", "function": function}


def _response_format(schema: dict[str, Any], options: ChatOptions) -> dict[str, Any]:
    title = schema.get("title")
    name = _SCHEMA_NAME_UNSAFE.sub("_", title)[:64] if isinstance(title, str) else ""
    strict = options.strict_schema
    if strict is None:
        strict = _strict_compatible(schema)
    return {
        "type": "json_schema",
        "json_schema": {"name": name or "output", "schema": schema, "strict": strict},
    }


def _strict_compatible(schema: Any) -> bool:
    """Whether every object in ``schema`` is closed and requires all its properties."""
    if not isinstance(schema, dict):
        return True  # a boolean schema, as in ``additionalProperties: false``
    properties = schema.get("properties", {})
    if (schema.get("type") == "object" or "properties" in schema) and (
        schema.get("additionalProperties") is not False
        or set(properties) != set(schema.get("required", []))
    ):
        return False
    children: list[Any] = [schema[key] for key in _SUBSCHEMA_KEYS if key in schema]
    for key in _SUBSCHEMA_MAPS:
        children.extend(dict(schema.get(key, {})).values())
    for key in _SUBSCHEMA_LISTS:
        children.extend(schema.get(key, []))
    return all(_strict_compatible(child) for child in children)


def _tool_call(call: Any) -> MessageToolCall:
    if call.type == "function":
        return MessageToolCall(
            id=call.id,
            name=call.function.name,
            arguments=_parsed_arguments(call.function.arguments),
        )
    # A custom (free-form) tool call: its input is text, kept as the raw arguments.
    return MessageToolCall(
        id=call.id, name=call.custom.name, arguments={RAW_ARGUMENTS_KEY: call.custom.input}
    )


def _parsed_arguments(text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}  # some servers send "" for a call without arguments
    try:
        arguments = json.loads(text)
    except ValueError:
        return {RAW_ARGUMENTS_KEY: text}
    return arguments if isinstance(arguments, dict) else {RAW_ARGUMENTS_KEY: text}
