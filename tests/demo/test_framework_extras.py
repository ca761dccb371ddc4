"""The framework demos need their extras; without one, a single line says which to install,
and nothing else of trailcheck needs the frameworks."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from trailcheck.cli import run_cli

pytestmark = pytest.mark.live

EXTRAS = {
    "langgraph": (
        ["demo", "--framework", "langgraph"],
        "langchain_core",
        (
            "trailcheck.demo.support.langgraph_agent",
            "trailcheck.demo.frameworks.langgraph_agent",
            "trailcheck.demo.frameworks.langchain_chat",
        ),
    ),
    "openai-agents": (
        ["demo", "--framework", "openai-agents"],
        "agents",
        (
            "trailcheck.demo.support.openai_agents_agent",
            "trailcheck.demo.frameworks.openai_agents_agent",
            "trailcheck.demo.frameworks.openai_agents_model",
        ),
    ),
    "pydantic-ai": (
        ["demo", "--framework", "pydantic-ai"],
        "pydantic_ai",
        (
            "trailcheck.demo.support.pydantic_ai_agent",
            "trailcheck.demo.frameworks.pydantic_ai_agent",
            "trailcheck.demo.frameworks.pydantic_ai_model",
        ),
    ),
    "adk": (
        ["demo", "pitwall", "--framework", "adk"],
        "google.adk",
        (
            "trailcheck.demo.pitwall.adk_agent",
            "trailcheck.demo.frameworks.adk_agent",
            "trailcheck.demo.frameworks.adk_model",
        ),
    ),
}


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_a_missing_extra_is_one_line_naming_it(
    extra: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    command, hidden, ours = EXTRAS[extra]
    for module in ours:  # imported afresh, as in a process without the extra
        monkeypatch.delitem(sys.modules, module, raising=False)
        package, _, name = module.rpartition(".")
        monkeypatch.delattr(importlib.import_module(package), name, raising=False)
    # As if the framework were not installed: its modules already imported are hidden too.
    for module in [*sys.modules, hidden]:
        if module == hidden or module.startswith(f"{hidden}."):
            monkeypatch.setitem(sys.modules, module, None)
    assert run_cli([*command, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"needs the '{extra}' extra (" in err
    assert f"pip install 'trailcheck[{extra}]'" in err


def test_an_unknown_framework_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["demo", "--framework", "crewai"]) == 2
    expected = "'crewai' is not one of 'native', 'langgraph', 'openai-agents', 'pydantic-ai'"
    assert expected in capsys.readouterr().err


def test_importing_trailcheck_and_its_cli_imports_no_framework() -> None:
    code = (
        "import sys, trailcheck, trailcheck.cli, trailcheck.run, trailcheck.demo.support;"
        " print(sorted(m for m in sys.modules"
        " if m.startswith(('langgraph', 'langchain', 'openinference', 'google.adk',"
        " 'agents', 'pydantic_ai'))))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "[]"
