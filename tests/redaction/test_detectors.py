"""The built-in detectors: each kind of secret and personal data is found and replaced, and the
digit runs that only look like them (order ids, timestamps, amounts) are left alone."""

from __future__ import annotations

import pytest

from trailcheck.redaction import Redaction, builtin_redactor, iban_valid, luhn_valid


def _redacted(text: str) -> tuple[str, list[str]]:
    found: list[Redaction] = []
    redacted = builtin_redactor().text(text, "input", found)
    return redacted, [redaction.kind for redaction in found]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
            "private_key",
        ),
        (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
            "private_key",
        ),
        ("Bearer abcdefghij.klmnop-1234", "bearer_token"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "bearer_token"),
        ("sk-proj-abcdefghijklmnop1234", "api_key"),
        ("sk-ant-api03-abcdefghijklmnopqrstuv", "api_key"),
        ("sk_live_abcdefghijklmnop1234", "api_key"),
        ("AKIAIOSFODNN7EXAMPLE", "api_key"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "api_key"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijkl", "api_key"),
        ("glpat-abcdefghijklmnopqrst", "api_key"),
        ("xoxb-1234567890-abcdefghij", "api_key"),
        ("AIzaSyA-abcdefghijklmnopqrstuvwxyz12345", "api_key"),
        ("hf_abcdefghijklmnopqrstuvwxyz0123456", "api_key"),
        ("ann.lee+shop@example.co.uk", "email"),
        ("ann_lee@example.com", "email"),
        ("DE89 3704 0044 0532 0130 00", "iban"),
        ("GB82WEST12345698765432", "iban"),
        ("4111 1111 1111 1111", "card_number"),
        ("5500-0000-0000-0004", "card_number"),
        ("378282246310005", "card_number"),
        ("+1 415 555 0100", "phone"),
        ("+44 20 7946 0958", "phone"),
        ("+4915112345678", "phone"),
        ("(415) 555-0100", "phone"),
        ("415-555-0100", "phone"),
        ("415.555.0100", "phone"),
        ("020 7946 0958", "phone"),
    ],
)
def test_each_kind_is_found_and_replaced_whole(text: str, kind: str) -> None:
    redacted, kinds = _redacted(f"before {text} after")
    assert redacted == f"before [REDACTED:{kind}] after"
    assert kinds == [kind]


def test_a_private_key_cut_off_is_redacted_to_the_end_of_the_text() -> None:
    text = "key -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA and more"
    assert _redacted(text) == ("key [REDACTED:private_key]", ["private_key"])


def test_a_url_keeps_its_user_and_host_and_loses_its_password() -> None:
    redacted, kinds = _redacted(
        "db postgres://app:hunter2@db.internal:5432/shop, redis://:s3cret@cache"
    )
    assert redacted == (
        "db postgres://app:[REDACTED:url_password]@db.internal:5432/shop,"
        " redis://:[REDACTED:url_password]@cache"
    )
    assert kinds == ["url_password", "url_password"]


def test_a_card_or_iban_followed_by_another_group_is_still_found() -> None:
    redacted, kinds = _redacted(
        "card 4111 1111 1111 1111 2031, iban DE89 3704 0044 0532 0130 00 EUR"
    )
    assert redacted == "card [REDACTED:card_number] 2031, iban [REDACTED:iban] EUR"
    assert sorted(kinds) == ["card_number", "iban"]


@pytest.mark.parametrize(
    "text",
    [
        "order 4155550123",  # ten digits, ungrouped: an id as much as a phone
        "order ORD-555-123-4567",
        "order #20240115123045",
        "ts 2024-01-15T12:30:45.123Z",
        "at 12:30:45 on 2024-01-15",
        "received 1700000000123456789",
        "epoch ms 1700000000123",
        "total $1,234,567.89",
        "1234567.89 EUR",
        "delta +1,250.00",
        "change +12.5%",
        "host 192.168.100.200",
        "version 10.2.3.4567",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "ISBN 978-3-16-148410-0",
        "415-555-01000",
        "ref 0 100 200",
    ],
)
def test_digit_runs_that_are_not_phone_numbers_stay(text: str) -> None:
    assert _redacted(text) == (text, [])


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112",  # fails Luhn
        "order 1234567890123456",  # passes no network's first digit (1) and fails Luhn
        "ts 1700000000000000000",  # a nanosecond timestamp: starts with 1
        "order 7992739871300000",  # passes Luhn, but no card network starts with 7
        "account 4111111111111",  # 13 digits failing Luhn
    ],
)
def test_digit_runs_that_are_not_cards_stay(text: str) -> None:
    assert _redacted(text) == (text, [])


@pytest.mark.parametrize(
    "text",
    [
        "iban GB82WEST12345698765433",  # one check digit off
        "iban DE00 3704 0044 0532 0130 00",
        "code AB12CDEF34567890XYZ",
        "sku US12345678901234",
    ],
)
def test_codes_shaped_like_ibans_that_fail_mod_97_stay(text: str) -> None:
    assert _redacted(text) == (text, [])


def test_the_checks() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert iban_valid("GB82WEST12345698765432")
    assert not iban_valid("GB82WEST12345698765433")
    assert not iban_valid("GB82")  # too short
    assert not iban_valid("GB８２WEST12345698765432")  # full-width digits are not digits here


def test_numbers_are_never_read_as_text() -> None:
    found: list[Redaction] = []
    value = {"amount": 4111111111111111, "ts": 1700000000123456789, "phone": 4155550100}
    assert builtin_redactor().value(value, "args", found) == value
    assert found == []
