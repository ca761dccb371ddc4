"""Deterministic nested sampling: the rule at its edges, nesting for any ids, the rate it keeps,
and the thresholds of OpenTelemetry's spec."""

from __future__ import annotations

import hashlib
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.errors import UsageError
from trailcheck.online import (
    RANDOMNESS_BITS,
    is_sampled,
    randomness,
    rejection_threshold,
    sampling_key,
)

SPACE = 1 << RANDOMNESS_BITS


def trace_id_with(r: int, prefix: str = "0123456789abcdef01") -> str:
    """A W3C trace id whose last 7 bytes are ``r``; the first 9 are ``prefix``."""
    return prefix + format(r, "014x")


# --- randomness ---------------------------------------------------------------------------------


def test_a_w3c_trace_id_gives_its_last_7_bytes() -> None:
    # The W3C Trace Context example id: its last 14 hex digits.
    assert randomness("4bf92f3577b34da6a3ce929d0e0e4736") == 0xCE929D0E0E4736


def test_hex_digits_are_read_in_either_case_and_the_first_9_bytes_do_not_count() -> None:
    lower = trace_id_with(0xABCDEF01234567)
    assert randomness(lower.upper()) == randomness(lower) == 0xABCDEF01234567
    assert randomness(trace_id_with(0xABCDEF01234567, prefix="f" * 18)) == 0xABCDEF01234567


def test_any_other_id_gives_the_first_7_bytes_of_its_sha256() -> None:
    # Pinned values (sha256 of the UTF-8 text, first 7 bytes big-endian), computed once.
    assert randomness("session-42") == 0x92E76C732D82EC
    assert randomness("conversation ü") == int.from_bytes(
        hashlib.sha256("conversation ü".encode()).digest()[:7], "big"
    )


@pytest.mark.parametrize(
    "identifier",
    [
        "4bf92f3577b34da6a3ce929d0e0e473",  # 31 digits
        "4bf92f3577b34da6a3ce929d0e0e47360",  # 33 digits
        "4bf92f3577b34da6a3ce929d0e0e473g",  # not hex
        " 4bf92f3577b34da6a3ce929d0e0e4736",  # int() would strip the space
        "4bf92f35_77b34da6a3ce929d0e0e473",  # int() would take the underscore
    ],
)
def test_an_id_that_is_not_32_hex_digits_is_hashed(identifier: str) -> None:
    digest = hashlib.sha256(identifier.encode("utf-8")).digest()
    assert randomness(identifier) == int.from_bytes(digest[:7], "big")


# --- the threshold at its edges -----------------------------------------------------------------


def test_p_1_samples_every_id_and_p_0_none() -> None:
    assert rejection_threshold(1.0) == 0
    assert rejection_threshold(0.0) == SPACE
    assert is_sampled(trace_id_with(0), 1.0)
    assert not is_sampled(trace_id_with(SPACE - 1), 0.0)


def test_at_one_half_the_threshold_is_2_to_the_55() -> None:
    assert rejection_threshold(0.5) == 1 << 55
    assert not is_sampled(trace_id_with((1 << 55) - 1), 0.5)
    assert is_sampled(trace_id_with(1 << 55), 0.5)


def test_just_under_1_leaves_out_the_smallest_randomness() -> None:
    below_one = math.nextafter(1.0, 0.0)  # 1 - 2^-53: p * 2^56 = 2^56 - 8
    assert rejection_threshold(below_one) == 8
    assert not is_sampled(trace_id_with(7), below_one)
    assert is_sampled(trace_id_with(8), below_one)


def test_the_smallest_otel_probability_keeps_only_the_largest_randomness() -> None:
    assert rejection_threshold(2.0**-56) == SPACE - 1
    assert is_sampled(trace_id_with(SPACE - 1), 2.0**-56)
    assert not is_sampled(trace_id_with(SPACE - 2), 2.0**-56)


def test_p_times_2_to_the_56_is_rounded_to_nearest_with_halves_up() -> None:
    assert rejection_threshold(2.0**-57) == SPACE - 1  # 0.5 rounds up to 1
    assert rejection_threshold(2.0**-58) == SPACE  # 0.25 rounds down to 0: none sampled
    assert rejection_threshold(3 * 2.0**-57) == SPACE - 2  # 1.5 rounds up to 2
    assert rejection_threshold(5 * 2.0**-58) == SPACE - 1  # 1.25 rounds down to 1


@pytest.mark.parametrize("probability", [-0.01, 1.01, math.nan])
def test_a_probability_outside_0_1_is_a_usage_error(probability: float) -> None:
    with pytest.raises(UsageError):
        rejection_threshold(probability)


# --- OpenTelemetry's spec -----------------------------------------------------------------------

# The 1-in-N table of "TraceState: Probability Sampling" (opentelemetry-specification,
# specification/trace/tracestate-probability-sampling.md, "Converting floating-point probability
# to threshold value"): the th-value at precision 3, 4 and 5.
OTEL_TABLE = [
    (1 / 3, ("aab", "aaab", "aaaab")),
    (0.5, ("8", "8", "8")),
    (0.25, ("c", "c", "c")),
    (0.2, ("ccd", "cccd", "ccccd")),
    (0.125, ("e", "e", "e")),
    (0.1, ("e66", "e666", "e6666")),
    (0.0625, ("f", "f", "f")),
    (0.01, ("fd71", "fd70a", "fd70a4")),
    (0.001, ("ffbe7", "ffbe77", "ffbe76d")),
    (0.0001, ("fff972", "fff9724", "fff97247")),
    (0.00001, ("ffff584", "ffff583a", "ffff583a5")),
    (0.000001, ("ffffef4", "ffffef39", "ffffef391")),
]


def th_value(threshold: int, precision: int, probability: float) -> str:
    """The spec's th-value of a full 56-bit threshold: rounded (halves up) to ``precision`` hex
    digits, raised by one digit per leading f as the spec's example does, trailing zeros cut."""
    _, exponent = math.frexp(probability)
    digits = max(1, min(12, precision + exponent // -4))
    shift = 4 * (14 - digits)
    rounded = (threshold + (1 << (shift - 1))) >> shift
    return format(rounded, f"0{digits}x").rstrip("0")


@pytest.mark.parametrize(("probability", "expected"), OTEL_TABLE)
def test_thresholds_round_to_the_th_values_of_the_otel_spec_table(
    probability: float, expected: tuple[str, str, str]
) -> None:
    threshold = rejection_threshold(probability)
    assert tuple(th_value(threshold, precision, probability) for precision in (3, 4, 5)) == (
        expected
    )


def test_full_precision_thresholds_are_2_to_the_56_less_the_rounded_p_times_2_to_the_56() -> None:
    # OTel collector-contrib pkg/sampling: MaxAdjustedCount - uint64(math.Round(prob * 2^56)).
    assert rejection_threshold(0.01) == 0xFD70A3D70A3D71
    assert rejection_threshold(0.1) == 0xE6666666666666
    assert rejection_threshold(1 / 3) == 0xAAAAAAAAAAAAAC
    # The spec's example: "(1-0.01) * 2^56 ≈ 71337018784743424 = 0xfd70a400000000" at 5 digits.
    assert th_value(rejection_threshold(0.01), 5, 0.01) + "00000000" == "fd70a400000000"


# --- nesting, determinism and rate --------------------------------------------------------------

ids = st.one_of(st.from_regex(r"[0-9a-fA-F]{32}", fullmatch=True), st.text(max_size=40))
probabilities = st.floats(min_value=0.0, max_value=1.0)


@given(st.lists(ids, min_size=1, max_size=30), probabilities, probabilities)
def test_the_sample_at_a_lower_probability_lies_inside_the_sample_at_a_higher(
    identifiers: list[str], p: float, q: float
) -> None:
    low, high = min(p, q), max(p, q)
    at_low = {i for i in identifiers if is_sampled(i, low)}
    at_high = {i for i in identifiers if is_sampled(i, high)}
    assert at_low <= at_high
    assert rejection_threshold(low) >= rejection_threshold(high)


@given(ids, probabilities)
def test_the_decision_is_r_at_least_t(identifier: str, p: float) -> None:
    r = randomness(identifier)
    assert 0 <= r < SPACE
    assert is_sampled(identifier, p) == (r >= rejection_threshold(p))
    # What T keeps is within 2^-57 of p.
    assert abs((SPACE - rejection_threshold(p)) / SPACE - p) <= 2.0**-57


# Many random ids, seeded, so the counts are the same on every run. The sampled count is
# Binomial(n, p') with p' = (2^56 - T) / 2^56 (within 2^-57 of p); the bound is 6 standard
# deviations of it, which a fair sampler exceeds with probability below 2e-9: were the test
# not seeded, it would still fail about once in 500 million runs, while a sampler off by 1.5
# percentage points fails it every time.
N = 50_000


@pytest.mark.parametrize("p", [0.01, 0.25, 0.5, 0.9])
@pytest.mark.parametrize("kind", ["w3c", "text"])
def test_the_sampled_share_of_random_ids_is_p_within_the_binomial_spread(
    p: float, kind: str
) -> None:
    rng = random.Random(36)
    if kind == "w3c":
        identifiers = [format(rng.getrandbits(128), "032x") for _ in range(N)]
    else:
        identifiers = [f"session-{rng.getrandbits(64)}" for _ in range(N)]
    sampled = sum(is_sampled(identifier, p) for identifier in identifiers)
    spread = 6 * math.sqrt(N * p * (1 - p))
    assert abs(sampled - N * p) <= spread
    assert spread < 0.015 * N  # tight enough to catch a sampler 1.5 points off


# --- sessions -----------------------------------------------------------------------------------


def test_sampling_by_session_samples_a_conversations_traces_together() -> None:
    rng = random.Random(7)
    traces = [format(rng.getrandbits(128), "032x") for _ in range(400)]
    keys = {sampling_key(trace_id, "conversation-7", "session") for trace_id in traces}
    assert keys == {"conversation-7"}
    decisions = {is_sampled(sampling_key(t, "conversation-7", "session"), 0.3) for t in traces}
    assert len(decisions) == 1
    # By trace, the same traces split, as independent ids do.
    assert len({is_sampled(sampling_key(t, "conversation-7", "trace"), 0.3) for t in traces}) == 2


def test_a_trace_in_no_session_is_sampled_by_its_own_id() -> None:
    assert sampling_key("4bf92f3577b34da6a3ce929d0e0e4736", None, "session") == (
        "4bf92f3577b34da6a3ce929d0e0e4736"
    )
