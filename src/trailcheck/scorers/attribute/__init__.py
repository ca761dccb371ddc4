"""Deterministic failure attribution: the step where a failed run first went wrong.

:func:`attribute` reads a failed grade's failed scorers again, for *where* each failure is,
against the case's reference, and keeps the earliest step (``docs/attribution.md``):

- a call that departs from ``expected_tools`` (``wrong_tool``; an expected call not made is
  placed where it was due) or breaks a policy (``policy_breach``: a refund before the identity
  check is the refund call; a rule that needed a tool also says where the missing tool was
  due) (:mod:`.departures`);
- an argument other than expected (``wrong_argument``), or a state value other than expected,
  traced to the tool result it came from: ``tool_returned_wrong_data`` at that tool when its
  result did not hold the expected value, ``misread_tool_result`` at the call that used it when
  the result held both (:mod:`.values`);
- the first sentence of the answer with a figure no tool result holds, or claiming a change the
  state does not show (``unsupported_claim``, the span that gave the answer); no answer, an
  answer before a required write, a call repeated past its limit (``gave_up_or_looped``)
  (:mod:`.ending`);
- when nothing else explains the failure, a tool that failed with an error the case did not
  inject (``infrastructure``).

Ties on one step go to the more specific evidence, in the order above. The symptom is where the
failure became visible, when that is another span: the first call that carried a wrong value
and failed. :func:`~trailcheck.scorers.grade` attributes every failed grade it makes.
"""

from trailcheck.scorers.attribute.attributor import Graded, attribute

__all__ = ["Graded", "attribute"]
