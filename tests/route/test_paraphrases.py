"""Paraphrases in words the router's training data never uses: how often retrieval still
finds the capability. Rates are printed (``pytest -s``) and held to a floor they reach."""

from __future__ import annotations

from tests.route.shop import gate, training
from trailcheck.route import Normalizer

PARAPHRASES = [
    ("Call off the purchase I made yesterday", "order_cancellation"),
    ("I would like my money back", "refund"),
    ("Moving to a new home next month", "shipping_address_change"),
    ("Forgot my login details", "password_change"),
    ("I got locked out", "password_change"),
    ("Stop the renewal of my plan", "cancel_subscription"),
    ("Skip deliveries for a few weeks", "pause_subscription"),
    ("Show reward tally", "get_loyalty_points"),
    ("Enter voucher", "apply_coupon"),
    ("Lamp came smashed", "report_damaged_item"),
    ("Is the sofa sold out", "check_stock"),
    ("Cost of the red lamp", "get_product_price"),
    ("Application crash on launch", "support_ticket"),
    ("Wallet amount left?", "store_credit_balance"),
    ("Availability of the green mug", "check_stock"),
    ("Parcel location", "order_tracking"),
]
TOP1_FLOOR = 0.85
TOP2_FLOOR = 0.95


def test_the_paraphrases_share_no_word_with_the_training_data() -> None:
    normalizer = Normalizer(stem_length=6)
    seen = {t for example in training() for t in normalizer.tokens(example.text)}
    for text, _ in PARAPHRASES:
        assert not set(normalizer.tokens(text)) & seen, text
    assert len(PARAPHRASES) >= 12


def test_paraphrase_hit_rates() -> None:
    index = gate().index
    hits1 = hits2 = 0
    for text, expected in PARAPHRASES:
        top = [c.capability for c in index.search(text, k=2)]
        hits1 += bool(top) and top[0] == expected
        hits2 += expected in top
    n = len(PARAPHRASES)
    print(f"paraphrases: top-1 {hits1}/{n}={hits1 / n:.3f}, top-2 {hits2}/{n}={hits2 / n:.3f}")
    assert hits1 / n >= TOP1_FLOOR
    assert hits2 / n >= TOP2_FLOOR
