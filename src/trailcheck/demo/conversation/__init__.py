"""Refund conversations with simulated customers, on the support shop (``trailcheck demo
conversation``).

The customer gives the order id only when asked, may first name the wrong amount, and may
change their mind; the v1 agent refunds before asking, v2 asks (:mod:`.brains`). The customers
are scripted users, one per case (:func:`scripted_users`), one of them faulty on purpose so the
demo shows ``sim_error`` beside pass^k; the ``support-conversations`` dataset
(:func:`conversation_dataset`) gives each case's brief. The shop is the support demo's.
"""

from trailcheck.demo.conversation.agent import v1_agent, v2_agent
from trailcheck.demo.conversation.brains import v1_brain, v2_brain
from trailcheck.demo.conversation.dataset import conversation_dataset
from trailcheck.demo.conversation.users import INVENTED_ORDER_ID, scripted_users

__all__ = [
    "INVENTED_ORDER_ID",
    "conversation_dataset",
    "scripted_users",
    "v1_agent",
    "v1_brain",
    "v2_agent",
    "v2_brain",
]
