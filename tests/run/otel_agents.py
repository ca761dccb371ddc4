"""Hand-made OpenTelemetry-instrumented agents for the otel runner kind: the SDK's API used
directly, with GenAI attributes, as a framework's instrumentation would emit them; no
framework. The environment is a tiny ledger; ``tests.run.otel_agents:ledger`` is its factory."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from opentelemetry.sdk.trace import TracerProvider
from pydantic import Field

from tests.waiting import forever
from trailcheck.cases import Case, Dataset
from trailcheck.environment import ToolError
from trailcheck.run import FrameworkAgent, TelemetryContext

ANSWER = "Added 5.00 to the ledger."


class Ledger:
    """An environment: entries added by one tool, and a snapshot of them."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def reset(self) -> None:
        self.entries = []

    def snapshot(self) -> dict[str, Any]:
        return {"entries": [dict(entry) for entry in self.entries]}

    @property
    def tools(self) -> list[Any]:
        return [self.add_entry]

    def add_entry(
        self, amount: Annotated[float, Field(description="The amount to add.", gt=0)]
    ) -> dict[str, Any]:
        """Add an amount to the ledger."""
        self.entries.append({"amount": amount})
        return {"entry": len(self.entries), "amount": amount}


def ledger() -> Ledger:
    return Ledger()


def ledger_dataset(*inputs: str) -> Dataset:
    """One approved case per input (default: one), each expecting a single add_entry of 5."""
    cases = [
        Case(
            id=f"add-{index}",
            input=text,
            expected_tools=["add_entry"],
            expected_arguments=[{"tool": "add_entry", "arguments": {"amount": 5.0}}],  # type: ignore[list-item]
            expected_state={"entries": [{"amount": 5.0}]},
            reference_response=ANSWER,
            review_status="approved",
            reviewed_by="tests",
        )
        for index, text in enumerate(inputs or ("Add 5 to the ledger.",))
    ]
    return Dataset(name="ledger", cases=cases)


def _messages(role: str, text: str | None = None, call: dict[str, Any] | None = None) -> str:
    parts: list[dict[str, Any]] = []
    if text is not None:
        parts.append({"type": "text", "content": text})
    if call is not None:
        parts.append({"type": "tool_call", **call})
    return json.dumps([{"role": role, "parts": parts}])


def instrumented_turn(
    provider: TracerProvider, tools: Any, message: str, *, answer: str = ANSWER
) -> None:
    """What an instrumented agent emits for one turn: invoke_agent, a chat call asking for
    add_entry, the tool call (really made), and a chat call with the answer."""
    tracer = provider.get_tracer("tests.handmade.agent")
    [add_entry] = tools
    call = {"id": "call_1", "name": "add_entry", "arguments": {"amount": 5.0}}
    with tracer.start_as_current_span(
        "invoke_agent ledger",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ledger"},
    ):
        with tracer.start_as_current_span(
            "chat handmade-1",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "handmade-1",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 3,
                "gen_ai.input.messages": _messages("user", message),
                "gen_ai.output.messages": _messages("assistant", call=call),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool add_entry",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "add_entry",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": json.dumps(call["arguments"]),
            },
        ) as span:
            try:
                result = add_entry(**call["arguments"])
            except ToolError as error:
                result = {"error": str(error)}
            span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
        with tracer.start_as_current_span(
            "chat handmade-1",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "handmade-1",
                "gen_ai.usage.input_tokens": 20,
                "gen_ai.usage.output_tokens": 6,
                "gen_ai.output.messages": _messages("assistant", answer),
            },
        ):
            pass


def make_async(context: TelemetryContext) -> FrameworkAgent:
    """An async agent; what it returns is not the answer the trace records."""

    async def respond(message: str) -> str:
        await asyncio.sleep(0)  # a turn for the other trials: their spans interleave with ours
        instrumented_turn(context.tracer_provider, context.tools, message)
        return "not what the telemetry says"

    return respond


def make_sync(context: TelemetryContext) -> FrameworkAgent:
    """A sync agent: the runner calls it in a thread, where the trial span is current too."""

    def respond(message: str) -> None:
        instrumented_turn(context.tracer_provider, context.tools, message)

    return respond


def make_silent(context: TelemetryContext) -> FrameworkAgent:
    """An agent that calls its tool and emits no span at all (instrumentation not installed)."""

    def respond(message: str) -> str:
        context.tools[0](amount=5.0)
        return ANSWER

    return respond


def make_crashing(context: TelemetryContext) -> FrameworkAgent:
    async def respond(message: str) -> None:
        tracer = context.tracer_provider.get_tracer("tests.handmade.agent")
        with tracer.start_as_current_span("invoke_agent ledger"):
            raise RuntimeError("the graph broke")

    return respond


def make_hanging(context: TelemetryContext) -> FrameworkAgent:
    """Opens a span and hangs in it until cancelled."""

    async def respond(message: str) -> None:
        tracer = context.tracer_provider.get_tracer("tests.handmade.agent")
        with tracer.start_as_current_span("invoke_agent ledger"):
            await forever()

    return respond


def make_leaky(context: TelemetryContext) -> FrameworkAgent:
    """Leaves a span running after it returns: its trace never completes."""

    def respond(message: str) -> None:
        tracer = context.tracer_provider.get_tracer("tests.handmade.agent")
        tracer.start_span("background work")  # never ended
        instrumented_turn(context.tracer_provider, context.tools, message)

    return respond
