"""The support shop, trailcheck's reference domain: a shop, two scripted agents, a dataset.

The shop (:class:`SupportShop`) has customers, orders, a refund policy and six tools, in an
``enforced`` mode (unverified writes are refused) or a ``prompt_only`` one. The v1 agent has
eight planted bugs (four of them misreadings of awkward tool results) and v2 has them fixed
(see :mod:`.brains`); the ``support`` dataset (:func:`support_dataset`) has a case guarding
each, and cases where both must do right.
"""

from trailcheck.demo.support.agent import (
    SYSTEM_PROMPT,
    enforced_shop,
    model_agent,
    prompt_only_shop,
    shop_factory,
    v1_agent,
    v2_agent,
)
from trailcheck.demo.support.brains import v1_brain, v2_brain
from trailcheck.demo.support.dataset import support_dataset
from trailcheck.demo.support.fixture import TODAY
from trailcheck.demo.support.shop import Mode, SupportShop

__all__ = [
    "SYSTEM_PROMPT",
    "TODAY",
    "Mode",
    "SupportShop",
    "enforced_shop",
    "model_agent",
    "prompt_only_shop",
    "shop_factory",
    "support_dataset",
    "v1_agent",
    "v1_brain",
    "v2_agent",
    "v2_brain",
]
