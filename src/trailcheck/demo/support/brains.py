"""Two scripted brains for the support shop: v1, with planted bugs, and v2, with them fixed.

A brain is a deterministic function of the conversation, ``(messages, tools) -> Reply``, as a
:class:`~trailcheck.models.scripted.ScriptedModel` takes it: it reads the customer's words and
the tool results so far, and returns the next tool call or the answer. Both follow the same
flows (:mod:`.flows`); they differ only in their :class:`~.flows.Habits`.

v1's bugs are the kind real agents ship with, and each is guarded by a case of the ``support``
dataset:

1. **Refunds without verification** (``refund_without_verification``): the refund path skips
   ``verify_identity``; reschedules do verify, which is how such a gap survives review.
2. **"Friday, June 19" read as 2026-06-17** (``wrong_date``): the weekday name wins over the
   day of the month, and the days to it are counted with two weekday numberings mixed
   (Monday = 0 for the target, the carrier's Sunday = 1 for today): two days short.
3. **A retry loop** (``retry_loop``): a failing lookup is retried, identically, until it
   works or six calls were made, whatever the error says.
4. **A claim without the write** (``claim_without_state_change``): the answer after
   ``issue_refund`` says the refund was issued without reading whether the call failed.

Four more are misreadings of a correct but awkward tool result (the cases declare the result
``awkward``, and attribution names the step that misread it):

5. **The first page taken for all of it** (``misread_pagination``): a search result with a
   ``next_page`` is read as every order there is, so "my latest order" is the newest of page 1.
6. **A near match taken for the customer** (``acted_on_partial_match``): a search that matched
   another account's address (``customer_email``) is acted on as the customer's own.
7. **Error words read as a failure** (``misread_success_as_error``): a result that mentions an
   error (``"status": "error_code_0", "ok": true``) is taken for a failed call.
8. **A stale estimate quoted** (``quoted_stale_data``): an order on its way, expected on a day
   already past, is quoted as it is instead of looked up again.

v2 verifies first, reads the month and day (a weekday beside them must agree), retries a
transient error once and then tells the customer, and says only what the tools confirmed; it
follows the pages, asks the customer about a near match instead of acting on it, reads a
success by its fields, and looks a past estimate up again (once; still past, it gives no date).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from trailcheck.demo.support.conversation import read_conversation
from trailcheck.demo.support.flows import Habits, next_step
from trailcheck.demo.support.parsing import WEEKDAY, WEEKDAYS, requested_date
from trailcheck.models import Reply, ToolDeclaration
from trailcheck.trace import Message


def v1_read_date(text: str, today: date) -> date | None:
    """v1's date reader (bug 2): a weekday name decides, counted from today in the wrong
    numbering, so "Friday, June 19" on Monday, June 15 becomes Wednesday, June 17."""
    weekday = WEEKDAY.search(text)
    if weekday is None:
        return requested_date(text, today)
    target = WEEKDAYS.index(weekday[1].lower())  # Monday = 0
    current = today.isoweekday() % 7 + 1  # the carrier's numbering: Sunday = 1, Monday = 2
    return today + timedelta(days=(target - current) % 7 or 7)


V1_HABITS = Habits(
    verify_before_refund=False,
    lookup_attempts=6,
    retry_only_transient=False,
    report_refund_failures=False,
    read_date=v1_read_date,
    follow_pages=False,
    confirm_near_matches=False,
    error_words_mean_failure=True,
    recheck_past_estimates=False,
)
V2_HABITS = Habits(
    verify_before_refund=True,
    lookup_attempts=2,
    retry_only_transient=True,
    report_refund_failures=True,
    read_date=requested_date,
    follow_pages=True,
    confirm_near_matches=True,
    error_words_mean_failure=False,
    recheck_past_estimates=True,
)


def v1_brain(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """The buggy brain (see the module docstring for its eight bugs)."""
    return next_step(read_conversation(messages), V1_HABITS)


def v2_brain(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """The fixed brain."""
    return next_step(read_conversation(messages), V2_HABITS)
