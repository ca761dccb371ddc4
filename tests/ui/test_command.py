"""``trailcheck ui``: the address rule of ``serve``, and the real command serving a store."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import trailcheck.serve
from tests.ui.seed import seed_store
from tests.waiting import GUARD_S, wait_until
from trailcheck.cli import run_cli
from trailcheck.commands import ui as ui_options
from trailcheck.store import Store

pytestmark = pytest.mark.live


def test_ui_reads_its_token_from_the_variable_serve_reads() -> None:
    assert ui_options.TOKEN_ENV == trailcheck.serve.TOKEN_ENV


def test_listening_beyond_loopback_without_a_token_is_refused_before_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TRAILCHECK_SERVE_TOKEN", raising=False)
    db = tmp_path / "never.db"
    assert run_cli(["ui", "--host", "0.0.0.0", "--db", f"sqlite:///{db}"]) == 2
    assert "refusing to listen on '0.0.0.0' without a token" in capsys.readouterr().err
    assert not db.exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_command_serves_the_store_until_stopped(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ui.db'}"
    with Store.open(url) as store:
        seed_store(store)
    port = _free_port()
    command = [sys.executable, "-m", "trailcheck", "ui", "--db", url, "--port", str(port)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)

    def answered() -> httpx.Response | None:
        """The page, once the server listens; None while nothing answers there yet."""
        try:
            # A guard, not a deadline: a listening server answers however slowly.
            return httpx.get(f"http://127.0.0.1:{port}/traces?q=t-hostile", timeout=GUARD_S)
        except httpx.TransportError:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            return None

    try:
        response = wait_until(answered, "trailcheck ui answering", poll_s=0.1)
        assert response.status_code == 200
        assert "t-hostile" in response.text
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=GUARD_S)
    assert f"trailcheck ui at http://127.0.0.1:{port}/" in errors
