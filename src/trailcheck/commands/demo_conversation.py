"""``trailcheck demo conversation``: refund conversations with simulated customers, v1 against v2.

The options, declared once in :class:`ConversationDemoRequest`; what the command does is in
:mod:`trailcheck.commands.demo_conversation_impl`, imported when it runs.
"""

from pathlib import Path
from typing import Annotated, Final, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation

__all__ = ["ConversationDemoRequest", "conversation_demo_command"]

DEMO_K: Final = 4
""":data:`trailcheck.demo.conversation.showcase.DEMO_K`, the default of ``-k``."""


class ConversationDemoRequest(NamedTuple):
    """What ``trailcheck demo conversation`` was asked."""

    out: Annotated[
        Path, typer.Option(metavar="DIR", help="The folder for the reports and their HTML.")
    ] = Path(".trailcheck") / "demo-conversation"
    k: Annotated[int, typer.Option("-k", min=1, metavar="N", help="Trials per case.")] = DEMO_K


@command(ConversationDemoRequest)
def conversation_demo_command(request: ConversationDemoRequest) -> None:
    """The support shop's refunds as conversations with scripted simulated customers, who give
    the order id only when asked, name the wrong amount or change their mind: v1 refunds before
    asking and fails; v2 asks and passes, compared with v1 and meeting v1's very users (replayed)
    until the agents part. One customer is faulty on purpose: its trials are sim_error, counted
    beside pass^k. Keyless and offline.

    Exit 0 when the demo ran (v1 failing is the point), 2 when it could not.
    """
    implementation(
        "trailcheck.commands.demo_conversation_impl:conversation_demo_command",
        ConversationDemoRequest,
    )(request)
