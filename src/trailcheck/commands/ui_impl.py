"""What ``trailcheck ui`` does (its options: :mod:`trailcheck.commands.ui`); importing it needs
the ``serve`` extra."""

from __future__ import annotations

import os

from trailcheck.commands.output import stderr
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.commands.ui import UiRequest
from trailcheck.serve import check_bind, ingest_server
from trailcheck.ui import UiSettings, create_ui_app


def ui_command(request: UiRequest) -> None:
    """The body of :func:`trailcheck.commands.ui.ui_command`."""
    host, port, token, read_token = request.host, request.port, request.token, request.read_token
    check_bind(host, token, read_token=read_token)
    reviewer = request.reviewer if request.reviewer is not None else os.environ.get("USER", "")
    settings = UiSettings(
        token=token,
        read_token=read_token,
        dataset=request.dataset,
        runs_dir=request.runs,
        reviewer=reviewer,
    )
    with open_store(request.db) as store:
        app = create_ui_app(store, settings)
        shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
        auth = _auth_line(token, read_token)
        stderr.print(
            f"trailcheck ui at http://{shown}:{port}/ over {store.url}; {auth}", markup=False
        )
        ingest_server(app, host=host, port=port, token=token, read_token=read_token).run()


def _auth_line(token: str | None, read_token: str | None) -> str:
    """What the startup line says of tokens (never the tokens themselves)."""
    roles = [
        role
        for role, given in (("read-write", token), ("read-only", read_token))
        if given is not None
    ]
    return f"token required ({', '.join(roles)})" if roles else "no token (loopback only)"
