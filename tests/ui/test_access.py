"""The token, role, sign-in cookie and form-secret checks (trailcheck.ui.access), the form
parser and the flashed lines, each on its own."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from trailcheck.errors import UsageError
from trailcheck.serve.security import Role, Tokens
from trailcheck.ui.access import Access, sign_in_value
from trailcheck.ui.flash import Flashes
from trailcheck.ui.forms import parse_form, required

WRITE, READ = "s3cret", "l00k-only"
BOTH = Access(Tokens(write=WRITE, read=READ))


def test_without_a_token_every_request_may_act() -> None:
    open_access = Access(Tokens())
    assert open_access.role(None, None) is Role.WRITE
    assert open_access.role("Bearer anything", "anything") is Role.WRITE
    assert open_access.sign_in("") is None
    assert open_access.sign_in("anything") is None


@pytest.mark.parametrize(
    ("authorization", "cookie", "role"),
    [
        (f"Bearer {WRITE}", None, Role.WRITE),
        (f"bearer {WRITE}", None, Role.WRITE),
        (f"Bearer {READ}", None, Role.READ),
        (None, sign_in_value(WRITE), Role.WRITE),
        (None, sign_in_value(READ), Role.READ),
        # The higher of two good credentials; a good one beside a wrong one.
        (f"Bearer {WRITE}", sign_in_value(READ), Role.WRITE),
        (f"Bearer {READ}", sign_in_value(WRITE), Role.WRITE),
        ("Bearer wrong", sign_in_value(READ), Role.READ),
        (f"Bearer {WRITE[:-1]}", None, None),
        (f"Basic {WRITE}", None, None),
        (None, WRITE, None),  # the token itself is not the cookie
        (None, sign_in_value(WRITE) + " ", None),
        (None, "", None),
        (None, None, None),
        ("Bearer wrong", "wrong", None),
    ],
)
def test_a_request_has_the_role_of_the_token_it_carries(
    authorization: str | None, cookie: str | None, role: Role | None
) -> None:
    assert BOTH.role(authorization, cookie) is role


def test_signing_in_sets_a_cookie_of_the_tokens_role_that_is_not_the_token() -> None:
    write_cookie, read_cookie = BOTH.sign_in(WRITE), BOTH.sign_in(READ)
    assert write_cookie is not None
    assert read_cookie is not None
    assert len({write_cookie, read_cookie, WRITE, READ}) == 4
    assert BOTH.role(None, write_cookie) is Role.WRITE
    assert BOTH.role(None, read_cookie) is Role.READ
    for wrong in ("", " ", "guess", WRITE + " ", write_cookie, read_cookie):
        assert BOTH.sign_in(wrong) is None
    # The same tokens give the same cookies after a restart (a new Access).
    assert Access(Tokens(write=WRITE, read=READ)).role(None, write_cookie) is Role.WRITE


def test_a_viewer_cannot_make_a_cookie_of_the_write_role() -> None:
    """Everything a viewer knows (its token, its cookie, the role names, the cookie name) and
    the cookies it could make of them give at most the read role."""
    read_cookie = BOTH.sign_in(READ)
    assert read_cookie is not None
    known = [READ, read_cookie, "write", "WRITE", "read-write", "reviewer", "admin", "true"]
    made = [
        *known,
        *(sign_in_value(k) for k in known),
        *(f"{read_cookie}:{role}" for role in ("write", "WRITE")),
        f"write:{read_cookie}",
        read_cookie.upper(),
        hmac.new(READ.encode(), b"write", hashlib.sha256).hexdigest(),
    ]
    assert {BOTH.role(None, cookie) for cookie in made} == {Role.READ, None}
    assert BOTH.role(None, read_cookie) is Role.READ  # what the viewer has, it keeps


def test_a_ui_of_the_read_only_token_alone_lets_nobody_act() -> None:
    viewers_only = Access(Tokens(read=READ))
    assert viewers_only.role(f"Bearer {READ}", None) is Role.READ
    assert viewers_only.role(None, sign_in_value(READ)) is Role.READ
    assert viewers_only.role(f"Bearer {WRITE}", sign_in_value(WRITE)) is None


def test_the_form_secret_is_per_process_and_must_match() -> None:
    one, other = Access(Tokens()), Access(Tokens())
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
