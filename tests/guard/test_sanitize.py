"""sanitize_for_log and LogSanitizer: no value can forge a log line, and the content survives."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.guard.sanitize import CONTINUATION, REPLACED, LogSanitizer, sanitize_for_log


def _line_breaking() -> list[str]:
    """Every character on which str.splitlines() breaks, found by trying all of Unicode."""
    return [
        chr(point)
        for point in range(sys.maxunicode + 1)
        if not 0xD800 <= point <= 0xDFFF and len(f"a{chr(point)}b".splitlines()) > 1
    ]


LINE_BREAKING = _line_breaking()
EXPLICIT = [
    "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029",
]  # fmt: skip


def test_the_line_breaking_characters_are_the_ones_listed() -> None:
    assert LINE_BREAKING == EXPLICIT


# The union, so that a character Unicode adds one day is tested before the list is fixed.
BREAKERS = [*sorted({*LINE_BREAKING, *EXPLICIT}), "\r\n"]


@pytest.mark.parametrize("char", BREAKERS, ids=lambda c: f"U+{ord(c[0]):04X}{c[1:]!r}")
def test_no_line_breaking_character_survives(char: str) -> None:
    value = f"Ana Costa{char}INFO claims payout approved by=controller"
    clean = sanitize_for_log(value)
    assert len(clean.splitlines()) == 1
    assert clean.startswith("Ana Costa ")
    assert clean.endswith(" INFO claims payout approved by=controller")
    assert clean.replace(" ", "") == value.replace(char, "").replace(" ", "")


def test_every_control_is_replaced_with_one_space() -> None:
    controls = [chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029]]
    for char in controls:
        assert sanitize_for_log(f"a{char}b") == "a b"
        assert REPLACED.fullmatch(char)


@pytest.mark.parametrize(
    "value",
    ["plain", "Москва 東京 café 🚢 שלום", "a < b & c > d", "100%", "tab-free", "", "  spaced  "],
)
def test_legitimate_content_is_kept_exactly(value: str) -> None:
    assert sanitize_for_log(value) == value


def test_a_value_that_is_not_text_becomes_its_text() -> None:
    assert sanitize_for_log(42) == "42"
    assert sanitize_for_log(None) == "None"
    assert sanitize_for_log(["a\nb"]) == "['a\\nb']"  # repr already escapes


def test_bidi_controls_and_lone_surrogates_are_neutralised() -> None:
    assert sanitize_for_log("invoice\u202efdp.exe") == "invoice fdp.exe"
    assert sanitize_for_log("x\ud800y") == "x\ufffdy"


@given(st.text())
def test_any_value_gives_one_line_keeping_every_other_character(value: str) -> None:
    clean = sanitize_for_log(value)
    assert len(clean.splitlines()) <= 1
    assert len(clean) == len(value)
    for before, after in zip(value, clean, strict=True):
        assert after == before or after in (" ", "\ufffd")


@pytest.fixture
def log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(claimant)s| %(message)s"))
    handler.addFilter(LogSanitizer())
    logger = logging.Logger("claims.audit")
    logger.addHandler(handler)
    yield logger, stream
    handler.close()


FORGED = "Ana\nINFO claims.audit - | payout approved"


def test_the_filter_sanitises_message_arguments_and_extra_fields(
    log: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = log
    logger.info("claim %s for %d USD, ref %r", FORGED, 480000, "x\ry", extra={"claimant": FORGED})
    lines = stream.getvalue().splitlines()
    assert lines == [
        "INFO claims.audit Ana INFO claims.audit - | payout approved| claim"
        " Ana INFO claims.audit - | payout approved for 480000 USD, ref 'x\\ry'"
    ]


@pytest.mark.parametrize("char", EXPLICIT)
def test_the_filter_keeps_each_record_on_one_line(
    log: tuple[logging.Logger, io.StringIO], char: str
) -> None:
    logger, stream = log
    logger.warning(f"subject{char}forged", extra={"claimant": "Ana"})
    logger.warning("from %s", f"Ana{char}forged", extra={"claimant": "Ana"})
    assert stream.getvalue().splitlines() == [
        "WARNING claims.audit Ana| subject forged",
        "WARNING claims.audit Ana| from Ana forged",
    ]


def test_a_traceback_cannot_forge_a_record(log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = log
    try:
        raise ValueError(f"bad claimant {FORGED}")
    except ValueError:
        logger.exception("extraction failed", extra={"claimant": "Ana"})
    lines = stream.getvalue().splitlines()
    assert lines[0] == "ERROR claims.audit Ana| extraction failed"
    assert len(lines) > 2
    assert all(line.startswith(CONTINUATION) for line in lines[1:])
    assert any("ValueError: bad claimant Ana" in line for line in lines)
    assert any(line == f"{CONTINUATION}INFO claims.audit - | payout approved" for line in lines)


def test_two_handlers_with_the_filter_sanitise_once() -> None:
    streams = [io.StringIO(), io.StringIO()]
    logger = logging.Logger("twice")
    for stream in streams:
        handler = logging.StreamHandler(stream)
        handler.addFilter(LogSanitizer())
        logger.addHandler(handler)
    try:
        raise KeyError("k")
    except KeyError:
        logger.exception("a\nb")
    first, second = (stream.getvalue() for stream in streams)
    assert first == second
    assert first.startswith("a b\n")
    assert f"{CONTINUATION}{CONTINUATION}" not in first


def test_arguments_that_do_not_fit_the_format_are_kept_not_lost(
    log: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = log
    logger.info("exposure %d USD", "a lot\nINFO forged", extra={"claimant": "Ana"})
    [line] = stream.getvalue().splitlines()
    assert line.startswith("INFO claims.audit Ana| exposure %d USD (arguments ")
    assert "'a lot\\nINFO forged'" in line  # the arguments' repr: escaped, one line
