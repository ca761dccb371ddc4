"""One ``trailcheck run`` of the support demo with ``--model`` on a scripted OpenAI-compatible
server, which the local executor's tests and the Ray executor's tests both make."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trailcheck.cli import run_cli


def model_run(tmp_path: Path, *options: str) -> tuple[int, list[dict[str, Any]], str]:
    """``trailcheck run`` of the demo's read-only-status case with ``model_agent`` and
    ``--model`` on an OpenAI-compatible server on 127.0.0.1 scripted with its two answers (a
    lookup, then the reply); the exit code, the request bodies the server received and its
    URL."""
    # Imported here, so that importing this module needs no FastAPI (the serve extra).
    from tests.models.openai_server import (
        running_openai_server,
        text_completion,
        tool_call_completion,
    )
    from trailcheck.cases import dump_dataset
    from trailcheck.demo.support import support_dataset

    full = support_dataset()
    one = full.model_copy(update={"cases": [c for c in full.cases if c.id == "read-only-status"]})
    dump_dataset(one, tmp_path / "one.yaml")
    with running_openai_server() as server:
        server.enqueue(
            tool_call_completion(("call_1", "lookup_order", '{"order_id": "A-1002"}')),
            text_completion("Order A-1002 has shipped; it arrives on 2026-06-16."),
        )
        code = run_cli(
            [
                *("run", str(tmp_path / "one.yaml")),
                *("--agent", "trailcheck.demo.support:model_agent"),
                *("--env", "trailcheck.demo.support:prompt_only_shop"),
                *("--model", "test-model", "--base-url", server.base_url),
                *("--out", str(tmp_path / "out"), *options),
            ]
        )
        return code, server.bodies, server.base_url
