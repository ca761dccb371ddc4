"""``trailcheck ui``: the address rule of ``serve``, and the real command serving a store."""

from __future__ import annotations

import os
import re
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


def test_ui_reads_its_tokens_from_the_variables_serve_reads() -> None:
    assert ui_options.TOKEN_ENV == trailcheck.serve.TOKEN_ENV
    assert ui_options.READ_TOKEN_ENV == trailcheck.serve.READ_TOKEN_ENV


def test_listening_beyond_loopback_without_a_token_is_refused_before_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TRAILCHECK_SERVE_TOKEN", raising=False)
    monkeypatch.delenv("TRAILCHECK_READ_TOKEN", raising=False)
    db = tmp_path / "never.db"
    assert run_cli(["ui", "--host", "0.0.0.0", "--db", f"sqlite:///{db}"]) == 2
    assert "refusing to listen on '0.0.0.0' without a token" in capsys.readouterr().err
    assert not db.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--token", "same", "--read-token", "same"], "the read-only token is the read-write"),
        (["--read-token", " "], "token is empty; set --read-token"),
    ],
)
def test_a_bad_pair_of_tokens_is_refused_before_opening(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    db = tmp_path / "never.db"
    assert run_cli(["ui", "--host", "0.0.0.0", "--db", f"sqlite:///{db}", *options]) == 2
    assert message in capsys.readouterr().err
    assert not db.exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve(url: str, port: int, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "trailcheck", "ui", "--db", url, "--port", str(port)]
    return subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)


def _answered(server: subprocess.Popen[str], url: str, **headers: str) -> httpx.Response:
    """The page at ``url``, once the server listens."""

    def answer() -> httpx.Response | None:
        try:
            # A guard, not a deadline: a listening server answers however slowly.
            return httpx.get(url, headers=headers, timeout=GUARD_S)
        except httpx.TransportError:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            return None

    return wait_until(answer, "trailcheck ui answering", poll_s=0.1)


def _stopped(server: subprocess.Popen[str]) -> str:
    """What the server wrote to stderr, once stopped."""
    server.terminate()
    _, errors = server.communicate(timeout=GUARD_S)
    return errors


def _environment(**tokens: str) -> dict[str, str]:
    tokens_set = ("TRAILCHECK_SERVE_TOKEN", "TRAILCHECK_READ_TOKEN")
    env = {k: v for k, v in os.environ.items() if k not in tokens_set}
    return env | tokens


def test_the_command_serves_the_store_until_stopped(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ui.db'}"
    with Store.open(url) as store:
        seed_store(store)
    port = _free_port()
    server = _serve(url, port, _environment())
    try:
        response = _answered(server, f"http://127.0.0.1:{port}/traces?q=t-hostile")
        assert response.status_code == 200
        assert "t-hostile" in response.text
    finally:
        errors = _stopped(server)
    assert f"trailcheck ui at http://127.0.0.1:{port}/" in errors


def test_the_command_takes_both_tokens_from_the_environment(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ui.db'}"
    with Store.open(url) as store:
        seed_store(store)
    port = _free_port()
    env = _environment(TRAILCHECK_SERVE_TOKEN="rev-s3cret", TRAILCHECK_READ_TOKEN="v1ew")
    server = _serve(url, port, env)
    page = f"http://127.0.0.1:{port}/traces/t-hours-1"
    try:
        viewed = _answered(server, page, Authorization="Bearer v1ew")
        assert viewed.status_code == 200
        assert 'data-testid="read-only"' in viewed.text
        reviewed = httpx.get(page, headers={"Authorization": "Bearer rev-s3cret"})
        found = re.search(r'name="csrf" value="([^"]+)"', reviewed.text)
        assert found is not None
        form = {"csrf": found[1], "text": "from a viewer", "author": "vi"}
        for token, status in (("v1ew", 403), ("rev-s3cret", 303)):
            posted = httpx.post(
                page + "/notes", data=form, headers={"Authorization": f"Bearer {token}"}
            )
            assert posted.status_code == status
    finally:
        errors = _stopped(server)
    assert "token required (read-write, read-only)" in errors
    assert "rev-s3cret" not in errors
    assert "v1ew" not in errors
    with Store.open(url) as store:
        assert [n.author for n in store.notes("t-hours-1")] == ["vi"]
