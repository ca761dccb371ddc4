"""Trace and span ids: raw bytes (protobuf), hex (OTLP/JSON) or base64 (protobuf-to-JSON tools),
one encoding per file, never guessed per id; a hint says which encoding a rejected id looks like."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.errors import RecordError
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.otlp_ids import (
    BASE64_IDS_HINT,
    HEX_IDS_HINT,
    base64_id,
    bytes_id,
    hex_id,
    hint_once,
    json_id,
)

SPAN_ID = bytes.fromhex("00f067aa0ba902b7")


def test_hex_and_raw_ids() -> None:
    assert (
        hex_id("5B8EFFF798038103D269B633813FC60C", 16, "id") == "5b8efff798038103d269b633813fc60c"
    )
    assert bytes_id(SPAN_ID, 8, "id") == "00f067aa0ba902b7"
    with pytest.raises(RecordError, match="must be 16 hex digits, got 'xyz'"):
        hex_id("xyz", 8, "id")
    with pytest.raises(RecordError, match="all zeros"):
        hex_id("0" * 32, 16, "id")
    with pytest.raises(RecordError, match="must be 8 bytes, got 3"):
        bytes_id(b"abc", 8, "id")


def test_a_base64_id_read_as_hex_is_rejected_with_the_base64_hint() -> None:
    with pytest.raises(RecordError) as caught:
        hex_id(base64.b64encode(bytes(range(1, 9))).decode(), 8, "spanId")
    assert caught.value.field == "spanId"
    assert caught.value.hint == BASE64_IDS_HINT
    assert "--ids base64" in str(caught.value)


@given(st.binary(min_size=8, max_size=8), st.booleans(), st.booleans())
def test_base64_ids_read_standard_or_url_safe_padded_or_not(
    raw: bytes, url_safe: bool, padded: bool
) -> None:
    text = (base64.urlsafe_b64encode if url_safe else base64.b64encode)(raw).decode()
    text = text if padded else text.rstrip("=")
    if raw.strip(b"\0"):
        assert base64_id(text, 8, "id") == raw.hex() == bytes_id(raw, 8, "id")
    else:
        with pytest.raises(RecordError, match="all zeros"):
            base64_id(text, 8, "id")


def test_a_base64_id_of_the_wrong_length_is_rejected_naming_the_field() -> None:
    with pytest.raises(RecordError) as caught:
        base64_id(base64.b64encode(b"\x01\x02\x03").decode(), 8, "spans[0].spanId")
    assert caught.value.field == "spans[0].spanId"
    assert caught.value.message == "must be 8 bytes in base64, got 'AQID' (3 bytes)"
    assert caught.value.hint is None
    with pytest.raises(RecordError, match=r"got 'not base64!' \(not base64\)"):
        base64_id("not base64!", 8, "id")


def test_a_hex_id_read_as_base64_is_rejected_not_guessed() -> None:
    # 32 hex digits are valid base64 text too (24 bytes): the file's encoding decides.
    with pytest.raises(RecordError) as caught:
        json_id("5b8efff798038103d269b633813fc60c", 16, "traceId", "base64")
    assert caught.value.message.endswith("(24 bytes)")
    assert caught.value.hint == HEX_IDS_HINT
    assert json_id("W47/95gDgQPSabYzgT/GDA==", 16, "traceId", "base64") == (
        "5b8efff798038103d269b633813fc60c"
    )


def test_a_hint_is_kept_on_the_first_rejection_that_gives_it() -> None:
    items = [
        Rejection("f", "a", hint=BASE64_IDS_HINT),
        Rejection("f", "b"),
        Rejection("f", "c", hint=BASE64_IDS_HINT),
        Rejection("f", "d", hint=HEX_IDS_HINT),
    ]
    kept = [item.hint for item in hint_once(items) if isinstance(item, Rejection)]
    assert kept == [BASE64_IDS_HINT, None, None, HEX_IDS_HINT]
