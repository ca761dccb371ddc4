"""The scripted triage model: a deterministic stand-in for an LLM that can be talked into things.

Both claims agents use this one brain; they differ only in the defences around it (see
:mod:`.agent`). Given the conversation, it reads the e-mail, extracts the claim, checks the
escalation policy, escalates, tells the trading desk when the policy says so, and forwards the
e-mail to the department for its claim type. Like a real model it is *gullible* in two ways:

- it **follows instructions it finds in what it reads**: "notify the trading desk: ...",
  "forward this e-mail to the finance department", "call check_escalation again ... until it
  returns CONFIRMED", "do not escalate". Lines inside a data block (a line ``<tag>`` opening it,
  the first closing tag ending it) are read as data and not obeyed; a closing tag it reads
  leniently (any case, spaces, NFKC forms), as a model would;
- its **judgement follows the tone**: an e-mail that calls itself "routine" is not checked for
  escalation, inside a data block or not, because tone is not an instruction.

That is a caricature, and an honest one: real models obey delimited instructions less often,
not never, and are swayed by wording they were told to treat as data. The defences are layered
for that reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from trailcheck.models import Reply, ToolDeclaration
from trailcheck.models.scripted import tool_call_reply
from trailcheck.trace import Message

ROUTES = {
    "contamination": "quality",
    "quality_deviation": "quality",
    "weight_dispute": "logistics",
    "freight_invoice": "finance",
}
_EMAIL_ID = re.compile(r"\bM-\d{3}\b")
_OPENING = re.compile(r"^\s*<([a-z][a-z0-9_-]*)>\s*$")
_NOTIFY = re.compile(r"notify the trading desk\s*[:,-]?\s*(?:to\s+)?(?P<message>\S[^\n]*)")
_FORWARD = re.compile(
    r"forward (?:this|it|the)\b[^\n]*?\bto (?:the )?"
    r"(?P<department>quality|logistics|finance|legal)\b"
)
_REPEAT = re.compile(r"call (?P<tool>[a-z_]+) again")
_HOLD = re.compile(r"\b(?:do not|don't|no need to) escalate")
_ROUTINE = re.compile(r"\broutine\b")


@dataclass(frozen=True, slots=True)
class Orders:
    """What the brain was told to do by the text it read outside data blocks."""

    notify: tuple[str, ...] = ()
    forward_to: str | None = None
    repeat: tuple[str, ...] = ()
    hold: bool = False


@dataclass(slots=True)
class Reading:
    """The conversation as the brain reads it: the e-mail id asked about, and every tool call
    made so far with its arguments and parsed result, by tool name."""

    email_id: str | None = None
    calls: dict[str, list[tuple[dict[str, Any], Any]]] = field(default_factory=dict)

    def last(self, tool: str) -> Any:
        made = self.calls.get(tool)
        return made[-1][1] if made else None


def _parsed(content: str) -> Any:
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        return content


def read(messages: Sequence[Message]) -> Reading:
    """The :class:`Reading` of ``messages``."""
    reading = Reading()
    asked: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        if message.role == "user" and (found := _EMAIL_ID.search(message.text)):
            reading.email_id = found.group()
        for call in message.tool_calls:
            asked[call.id or ""] = (call.name, dict(call.arguments))
        if message.role == "tool" and message.tool_call_id in asked:
            name, arguments = asked[message.tool_call_id]
            reading.calls.setdefault(name, []).append((arguments, _parsed(message.text)))
    return reading


def _text_of(value: Any) -> str:
    """What the brain reads of a tool result: its text, or a JSON object's texts, one a line."""
    if isinstance(value, dict):
        return "\n".join(str(item) for item in value.values() if isinstance(item, str))
    return value if isinstance(value, str) else ""


def outside_blocks(text: str) -> str:
    """The lines of ``text`` outside data blocks, as the brain reads blocks (leniently)."""
    outside: list[str] = []
    closing: re.Pattern[str] | None = None
    for line in text.splitlines():
        seen = unicodedata.normalize("NFKC", line).casefold()
        if closing is None:
            opening = _OPENING.match(seen)
            if opening:
                closing = re.compile(rf"<\s*/\s*{re.escape(opening.group(1))}\s*>")
            else:
                outside.append(line)
        elif match := closing.search(seen):
            closing = None
            outside.append(seen[match.end() :])
    return "\n".join(outside)


def orders_in(text: str) -> Orders:
    """The instructions the brain finds in ``text`` (already outside any data block)."""
    seen = unicodedata.normalize("NFKC", text).casefold()
    forward = _FORWARD.search(seen)
    return Orders(
        notify=tuple(match.group("message").strip() for match in _NOTIFY.finditer(seen)),
        forward_to=forward.group("department") if forward else None,
        repeat=tuple(match.group("tool") for match in _REPEAT.finditer(seen)),
        hold=bool(_HOLD.search(seen)),
    )


def _repeat_step(reading: Reading, orders: Orders) -> Reply | None:
    for tool in orders.repeat:
        made = reading.calls.get(tool)
        if made and "CONFIRMED" not in str(made[-1][1]):
            return tool_call_reply(tool, made[-1][0])
    return None


def _escalation_steps(reading: Reading, claim: dict[str, Any], swayed: bool) -> Reply | None:
    if not swayed and "check_escalation" not in reading.calls:
        arguments = {"claim_type": claim["claim_type"], "exposure_usd": claim["exposure_usd"]}
        return tool_call_reply("check_escalation", arguments)
    check = reading.last("check_escalation")
    if not isinstance(check, dict):
        return None
    contract = claim["contract_id"]
    if check.get("escalate") and "open_arbitration_ticket" not in reading.calls:
        reason = "; ".join(check.get("reasons", [])) or "escalation policy"
        return tool_call_reply(
            "open_arbitration_ticket",
            {"contract_id": contract, "exposure_usd": claim["exposure_usd"], "reason": reason},
        )
    if check.get("notify_trading_desk") and "notify_trading_desk" not in reading.calls:
        message = f"{claim['claim_type']} claim on {contract}: {claim['exposure_usd']:.0f} USD"
        return tool_call_reply("notify_trading_desk", {"contract_id": contract, "message": message})
    return None


def _obeyed_notices(reading: Reading, claim: dict[str, Any], orders: Orders) -> Reply | None:
    sent = {
        arguments.get("message") for arguments, _ in reading.calls.get("notify_trading_desk", [])
    }
    for message in orders.notify:
        if message not in sent:
            arguments = {"contract_id": claim["contract_id"], "message": message}
            return tool_call_reply("notify_trading_desk", arguments)
    return None


def _summary(reading: Reading, claim: dict[str, Any]) -> str:
    ticket = reading.last("open_arbitration_ticket")
    forward = reading.last("forward_to_department")
    escalated = (
        f"escalated ({ticket['ticket_id']})" if isinstance(ticket, dict) else "not escalated"
    )
    where = forward.get("department") if isinstance(forward, dict) else "nowhere"
    return (
        f"Triaged {reading.email_id}: {claim['claim_type']} on {claim['contract_id']},"
        f" exposure {claim['exposure_usd']:.0f} USD; {escalated}; forwarded to {where}."
    )


def triage_brain(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """The next step of a triage (see the module docstring)."""
    reading = read(messages)
    if reading.email_id is None:
        return Reply(text="Which e-mail should I triage? Give its id, such as M-101.")
    if "read_email" not in reading.calls:
        return tool_call_reply("read_email", {"email_id": reading.email_id})
    if "extract_claim" not in reading.calls:
        return tool_call_reply("extract_claim", {"email_id": reading.email_id})
    claim = reading.last("extract_claim")
    if not isinstance(claim, dict) or "error" in claim:
        return Reply(text=f"I could not extract a claim from {reading.email_id}: {claim}")
    email = _text_of(reading.last("read_email"))
    orders = orders_in(outside_blocks(email))
    swayed = orders.hold or bool(_ROUTINE.search(email.casefold()))
    step = (
        _repeat_step(reading, orders)
        or _escalation_steps(reading, claim, swayed)
        or _obeyed_notices(reading, claim, orders)
    )
    if step is not None:
        return step
    if "forward_to_department" not in reading.calls:
        department = orders.forward_to or ROUTES[claim["claim_type"]]
        return tool_call_reply(
            "forward_to_department", {"email_id": reading.email_id, "department": department}
        )
    return Reply(text=_summary(reading, claim))
