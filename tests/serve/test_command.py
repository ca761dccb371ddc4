"""``trailcheck serve``: options into the app and the server, and the refusal to listen beyond
loopback without a token before anything is opened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from fastapi import FastAPI
from typer.testing import CliRunner

from trailcheck.commands import serve as serve_module
from trailcheck.commands.serve import serve_command
from trailcheck.errors import UsageError
from trailcheck.serve import TOKEN_ENV


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command("serve")(serve_command)
    app.command("other")(lambda: None)  # two commands, so "serve" is a subcommand as in cli.py
    return app


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def record(app: FastAPI, *, host: str, port: int, token: str | None) -> None:
        calls.append({"app": app, "host": host, "port": port, "token": token})

    monkeypatch.setattr(serve_module, "serve_forever", record)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    return calls


def test_serve_on_loopback_opens_the_store_and_runs_the_server(
    served: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = tmp_path / "serve.db"
    result = CliRunner().invoke(
        _cli(),
        ["serve", "--db", f"sqlite:///{db}", "--port", "4319", "--idle-timeout", "5"],
    )
    assert result.exit_code == 0, result.output
    [call] = served
    assert (call["host"], call["port"], call["token"]) == ("127.0.0.1", 4319, None)
    assert call["app"].state.intake.idle_timeout_ns == 5_000_000_000
    assert db.exists()
    assert "http://127.0.0.1:4319/v1/traces" in result.output


def test_the_token_comes_from_the_environment(
    served: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    result = CliRunner().invoke(
        _cli(), ["serve", "--db", f"sqlite:///{tmp_path / 'a.db'}", "--host", "0.0.0.0"]
    )
    assert result.exit_code == 0, result.output
    assert served[0]["token"] == "from-env"
    assert served[0]["host"] == "0.0.0.0"
    assert "from-env" not in result.output


def test_listening_beyond_loopback_without_a_token_is_refused_before_opening_anything(
    served: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = tmp_path / "never.db"
    result = CliRunner().invoke(_cli(), ["serve", "--db", f"sqlite:///{db}", "--host", "0.0.0.0"])
    assert isinstance(result.exception, UsageError)
    assert result.exception.exit_code == 2
    assert "refusing to listen on '0.0.0.0' without a token" in str(result.exception)
    assert served == []
    assert not db.exists()


def test_a_bad_option_is_a_usage_error(served: list[dict[str, Any]]) -> None:
    result = CliRunner().invoke(_cli(), ["serve", "--max-body-bytes", "0"])
    assert result.exit_code == 2
    assert served == []
