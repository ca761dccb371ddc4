"""Read every corpus recording with agentevals-cli's own reader and write what it reads to
``tests/conformance/peers/agentevals.json``. Installs nothing; run it in a throwaway venv::

    python3.11 -m venv /tmp/peer-agentevals
    /tmp/peer-agentevals/bin/pip install -r tests/conformance/peers/requirements-agentevals.txt
    /tmp/peer-agentevals/bin/python tests/conformance/peers/read_with_agentevals.py

The path is the one ``agentevals run`` and its OTLP receiver take: the protobuf requests are
decoded (``decode_traces_protobuf``, ``decode_logs_protobuf``), spans and log records joined into
traces (``build_traces``), grouped the default way (``evaluation_groups(..., "auto")``: one group
per trace unless a session name asks otherwise) and turned into a conversation of turns
(``extract_conversation``). A trace's turns are one run: calls in turn order, the first turn's
user input, the last turn's final output, the usage summed.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from agentevals.api.otlp_processing import decode_logs_protobuf, decode_traces_protobuf
from agentevals.genai.extract import extract_conversation
from agentevals.genai.messages import text_of
from agentevals.genai.model import Conversation, Usage
from agentevals.otel.model import build_traces
from agentevals.runner import evaluation_groups
from recording_file import recordings, signal_files, write_peer_file

ABOUT = {
    "peer": "agentevals-cli",
    "version": version("agentevals-cli"),
    "reads": "decode_traces_protobuf + decode_logs_protobuf, build_traces,"
    " evaluation_groups(auto), extract_conversation",
}


def _tokens(usage: Usage) -> list[int | None] | None:
    if usage.input_tokens is None and usage.output_tokens is None:
        return None
    return [usage.input_tokens, usage.output_tokens]


def _reading(conversation: Conversation) -> dict[str, Any]:
    turns = conversation.turns
    usage = Usage()
    for turn in turns:
        usage = usage + turn.usage
    models = {
        call.response_model or call.request_model
        for turn in turns
        for call in turn.llm_calls
        if call.response_model or call.request_model
    }
    return {
        "turns": len(turns),
        "calls": [
            {
                "name": call.name,
                "arguments": call.arguments,
                "result": call.result,
                "error": call.is_error,
            }
            for turn in turns
            for call in turn.tool_calls
        ],
        "input": text_of(turns[0].user_input) if turns else None,
        "answer": text_of(turns[-1].final_output) if turns else None,
        "tokens": _tokens(usage),
        "models": sorted(models),
        "session": conversation.conversation_id,
        "warnings": sorted({gap.code for turn in turns for gap in turn.warnings}),
    }


def read(name: str) -> list[dict[str, Any]]:
    """The readings of the recording's evaluation groups (one trace each unless a session name
    groups them), in start order, each with its trace ids."""
    spans: list[Any] = []
    logs: list[Any] = []
    traces_file, *logs_file = signal_files(name)
    decoded = decode_traces_protobuf(traces_file.read_bytes())
    spans += decoded.spans
    logs += decoded.logs
    for path in logs_file:
        logs += decode_logs_protobuf(path.read_bytes()).logs
    traces, _ = build_traces(spans, logs)
    traces.sort(key=lambda trace: trace.start_time_unix_nano)
    readings = []
    for key, group in evaluation_groups(traces, "auto"):
        conversation = extract_conversation(group, key)
        readings.append({"trace_ids": conversation.trace_ids, **_reading(conversation)})
    return readings


def main() -> None:
    readings = {name: read(name) for name in recordings()}
    print(f"wrote {write_peer_file('agentevals', ABOUT, readings)}")


if __name__ == "__main__":
    main()
