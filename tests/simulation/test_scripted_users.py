"""ScriptedUsers: each case's brief played by its own script, picked by its instruction."""

from __future__ import annotations

import asyncio

import pytest

from trailcheck.cases import SimulatedUser
from trailcheck.errors import UsageError
from trailcheck.simulation import Turn
from trailcheck.testing import ScriptedUser, ScriptedUsers


def _brief(instruction: str) -> SimulatedUser:
    return SimulatedUser(instruction=instruction, known_facts={"order_id": "A-1042"})


def _users() -> ScriptedUsers:
    return ScriptedUsers(
        {
            "arrived broken": ScriptedUser("My blender arrived broken.", name="broken"),
            "change your mind": ScriptedUser(
                "I want a refund.", [(r"(?i)order", "It's {order_id}.")], name="fickle"
            ),
        }
    )


def test_each_brief_is_played_by_the_script_its_instruction_names() -> None:
    users = _users()
    broken = _brief("Your blender arrived broken; ask for a refund.")
    fickle = _brief("Ask for a refund, then change your mind.")
    first = asyncio.run(users.next_turn(broken, []))
    assert (first.text, first.model) == ("My blender arrived broken.", "broken")
    said = [Turn(role="user", text="I want a refund."), Turn(role="agent", text="Order number?")]
    answer = asyncio.run(users.next_turn(fickle, said))
    assert (answer.text, answer.model) == ("It's A-1042.", "fickle")
    assert users.name == "scripted-users"


def test_a_brief_that_no_key_or_two_keys_fit_is_refused_naming_the_keys() -> None:
    users = _users()
    with pytest.raises(UsageError, match="no key of"):
        users.script_for(_brief("Ask where your parcel is."))
    with pytest.raises(UsageError, match="'arrived broken', 'change your mind'"):
        users.script_for(_brief("It arrived broken; change your mind later."))


def test_scripts_are_needed_each_under_a_key() -> None:
    with pytest.raises(UsageError, match="needs scripts"):
        ScriptedUsers({})
    with pytest.raises(UsageError, match="non-empty key"):
        ScriptedUsers({"": ScriptedUser("hi")})
