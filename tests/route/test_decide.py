"""Decisions: guards in order, each named, with the arithmetic of why it fired."""

from __future__ import annotations

from trailcheck.route import Candidate, RoutePrediction, Thresholds, decide

AGENT = RoutePrediction("AGENT", 0.9, {"AGENT": 0.9, "FAST_PATH": 0.1})


def _c(name: str, score: float, direction: str = "read") -> Candidate:
    return Candidate(name, direction, score, f"{name}_v", "r")  # type: ignore[arg-type]


def test_low_router_confidence_is_a_human_fallback_whatever_retrieval_says() -> None:
    unsure = RoutePrediction("AGENT", 0.6, {"AGENT": 0.6, "FAST_PATH": 0.4})
    d = decide(unsure, [_c("a", 0.9)], "read")
    assert (d.action, d.guard) == ("human_fallback", "router_confidence")
    assert d.reason == "AGENT p=0.600 < 0.75"


def test_a_confident_route_without_tools_is_a_fast_path() -> None:
    fast = RoutePrediction("FAST_PATH", 0.95, {"AGENT": 0.05, "FAST_PATH": 0.95})
    d = decide(fast, [_c("a", 0.9)], "read")
    assert (d.action, d.guard, d.capability) == ("fast_path", None, None)


def test_relevance_then_margin_then_direction() -> None:
    d = decide(AGENT, [_c("a", 0.05)], "read")
    assert (d.action, d.guard) == ("abstain", "relevance")
    assert d.reason == "top score 0.050 < 0.1"
    assert decide(AGENT, [], "read").guard == "relevance"
    d = decide(AGENT, [_c("a", 0.5), _c("b", 0.4)], "read")
    assert (d.action, d.guard, d.candidates) == ("confirm", "margin", ("a", "b"))
    assert d.reason == "margin (0.500-0.400)/0.500=0.200 < 0.25"
    d = decide(AGENT, [_c("w", 0.5, "write"), _c("b", 0.1)], "read")
    assert (d.action, d.guard) == ("abstain", "direction")
    d = decide(AGENT, [_c("w", 0.5, "write"), _c("b", 0.1)], "unknown")
    assert (d.action, d.guard, d.candidates) == ("confirm", "direction", ("w",))


def test_execute_keeps_the_capability_and_its_variant() -> None:
    d = decide(AGENT, [_c("w", 0.5, "write"), _c("b", 0.1)], "write")
    assert (d.action, d.guard, d.capability, d.variant) == ("execute", None, "w", "w_v")


def test_thresholds_are_named_and_adjustable() -> None:
    strict = Thresholds(confidence=0.95)
    assert decide(AGENT, [_c("a", 0.9)], "read", strict).guard == "router_confidence"
    assert decide(AGENT, [_c("a", 0.9)], "read").action == "execute"
