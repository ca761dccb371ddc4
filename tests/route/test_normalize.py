"""The normaliser: one pipeline for training text and queries."""

from __future__ import annotations

import pytest

from trailcheck.route import Normalizer, fold


def test_folds_case_and_accents() -> None:
    assert fold("Cartão CRÉDITO") == "cartao credito"


def test_joins_declared_phrases_and_hyphenated_words() -> None:
    n = Normalizer()
    assert n.text("Quero a Segunda  Via do cartão, e-mail já!") == (
        "quero a segunda_via do cartao email ja"
    )


def test_tokens_drop_stop_words_and_cut_to_stem_length() -> None:
    n = Normalizer(stem_length=6)
    assert n.tokens("Quero parcelar as parcelas do parcelamento") == [
        "quero",
        "parcel",
        "parcel",
        "parcel",
    ]
    assert n.tokens("a segunda via", drop_stop_words=False) == ["a", "segunda_via"]


def test_a_stem_length_below_three_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        Normalizer(stem_length=2)
