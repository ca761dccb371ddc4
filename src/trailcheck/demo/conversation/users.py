"""The simulated customers of the ``support-conversations`` dataset, played by rules (keyless).

One :class:`~trailcheck.testing.ScriptedUser` per case, picked by a phrase of the case's
instruction (:class:`~trailcheck.testing.ScriptedUsers`). Each answers what the agent asks, and
only that: the order id when asked for the order number, a proof when asked who they are. Three
play their brief faithfully; the espresso machine's is faulty on purpose: asked for its order
number, it gives one it was never told (``A-1030``), and then gives up. The audit catches it
(``invented_fact``, ``ended_early``), so those trials are ``sim_error``, counted beside pass^k
and never against the agent.
"""

from __future__ import annotations

from typing import Final

from trailcheck.simulation.brief import STOP_SIGNAL
from trailcheck.simulation.scripted import ScriptedUser, ScriptedUsers

__all__ = ["INVENTED_ORDER_ID", "scripted_users"]

INVENTED_ORDER_ID: Final = "A-1030"
"""The order id the faulty user makes up: in no brief, and no order of the shop."""

_ORDER_NUMBER: Final = r"(?i)order number"
_PROOF: Final = r"(?i)date of birth|last four digits"


def scripted_users() -> ScriptedUsers:
    """The users of every case (the factory ``--user-simulator`` names)."""
    return ScriptedUsers(
        {
            "cover torn": ScriptedUser(
                "Hello. The Overstory arrived with its cover torn. Could I have the"
                " ${first_amount} I paid for it back?",
                [
                    (_ORDER_NUMBER, "It's {order_id}."),
                    (_PROOF, "My card ends in {card_last4}."),
                    (r"(?i)cost \$18\.00", "Oh, you're right, it was $18. Go ahead."),
                ],
                name="scripted-user:wrong-amount",
            ),
            "stopped working": ScriptedUser(
                "My wireless headphones stopped working after a week. I want my money back.",
                [
                    (_ORDER_NUMBER, "{order_id}."),
                    (_PROOF, "I was born on {date_of_birth}."),
                    (r"(?i)shall I refund", "Yes, please."),
                ],
                name="scripted-user:id-when-asked",
            ),
            "change your mind": ScriptedUser(
                "Hi! My standing desk wobbles; I'd like a refund, please.",
                [
                    (_ORDER_NUMBER, "Sure, it's {order_id}."),
                    (_PROOF, "My card ends in {card_last4}."),
                    (
                        r"(?i)most I can refund",
                        "Only part of it? Then please don't refund it; I'll keep the desk.",
                    ),
                ],
                name="scripted-user:changes-mind",
            ),
            "espresso machine": ScriptedUser(
                "My espresso machine leaks. Can I get a refund?",
                [(_ORDER_NUMBER, f"It's {INVENTED_ORDER_ID}.")],
                otherwise=STOP_SIGNAL,
                name="scripted-user:faulty",
            ),
        }
    )
