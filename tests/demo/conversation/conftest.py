"""The conversation demo's two runs, once for the package (scripted, keyless: milliseconds)."""

from __future__ import annotations

import pytest

from trailcheck.demo.conversation.showcase import run_conversation_demo
from trailcheck.run.runner import RunResult

K = 2


@pytest.fixture(scope="package")
def demo_runs() -> dict[str, RunResult]:
    """``conversation-v1`` and ``conversation-v2`` (v1's users replayed), k = 2."""
    return {demo.name: result for demo, result in run_conversation_demo(k=K)}
