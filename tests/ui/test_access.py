"""The token and form-secret checks (trailcheck.ui.access), the form parser and the flashed
lines, each on its own."""

from __future__ import annotations

import pytest

from trailcheck.errors import UsageError
from trailcheck.ui.access import Access
from trailcheck.ui.flash import Flashes
from trailcheck.ui.forms import parse_form, required


def test_without_a_token_every_request_is_allowed() -> None:
    assert Access(None).allows(None, None)
    assert not Access(None).signs_in("")


@pytest.mark.parametrize(
    ("authorization", "cookie", "allowed"),
    [
        ("Bearer s3cret", None, True),
        ("bearer s3cret", None, True),
        (None, "s3cret", True),
        ("Bearer s3cre", None, False),
        ("Basic s3cret", None, False),
        (None, "s3cret ", False),
        (None, "", False),
        (None, None, False),
        ("Bearer wrong", "wrong", False),
    ],
)
def test_with_a_token_a_request_carries_it(
    authorization: str | None, cookie: str | None, allowed: bool
) -> None:
    assert Access("s3cret").allows(authorization, cookie) is allowed


def test_the_form_secret_is_per_process_and_must_match() -> None:
    one, other = Access(None), Access(None)
    assert one.csrf != other.csrf
    assert len(one.csrf) >= 40
    assert one.posted_by_ui(one.csrf)
    assert not one.posted_by_ui(other.csrf)
    assert not one.posted_by_ui(None)
    assert not one.posted_by_ui("")


def test_a_form_body_is_read_first_value_first() -> None:
    body = b"text=a+%3Cb%3E&text=second&empty=&bad=%FF"
    assert parse_form(body) == {"text": "a <b>", "empty": "", "bad": "\ufffd"}
    assert required({"name": "  ana "}, "name") == "ana"
    for form in ({}, {"name": "   "}):
        with pytest.raises(UsageError, match="name is required"):
            required(form, "name")


def test_a_flashed_line_is_read_once_and_only_the_latest_are_kept() -> None:
    flashes = Flashes(limit=2)
    first = flashes.leave("one")
    second = flashes.leave("two", failed=True)
    third = flashes.leave("three")
    assert flashes.take(first) is None  # pushed out by the limit
    taken = flashes.take(second)
    assert taken is not None
    assert (taken.text, taken.failed) == ("two", True)
    assert flashes.take(second) is None
    assert flashes.take(third) is not None
    assert flashes.take(None) is None
    assert flashes.take("made-up") is None
