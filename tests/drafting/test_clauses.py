"""A Markdown policy split into clauses: items and paragraphs, ids that stay put."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.drafting import PolicyClause, load_policy, parse_policy
from trailcheck.errors import InputError

POLICY = """\
Applies to every chat.

# Refunds
Refunds go back to the card that paid.

1. Verify the customer's identity
   before any refund.
2. Refund delivered orders only. {#refund-window}
   - Gift cards are never refunded.
3) Never refund more than the order total.

## Delivery changes
Reschedule only orders that have not arrived.

Never on a Sunday.

```
- not a clause, an example
```
"""


def test_items_are_clauses_numbered_by_section_and_paragraphs_where_no_items() -> None:
    assert parse_policy(POLICY) == [
        PolicyClause("policy.1", "Applies to every chat."),
        PolicyClause("refunds.1", "Verify the customer's identity before any refund.", "Refunds"),
        PolicyClause(
            "refund-window",
            "Refund delivered orders only. Gift cards are never refunded.",
            "Refunds",
        ),
        PolicyClause("refunds.3", "Never refund more than the order total.", "Refunds"),
        PolicyClause(
            "delivery-changes.1",
            "Reschedule only orders that have not arrived.",
            "Delivery changes",
        ),
        PolicyClause("delivery-changes.2", "Never on a Sunday.", "Delivery changes"),
    ]


def test_an_edit_elsewhere_leaves_a_clause_id_as_it_was() -> None:
    before = {clause.text: clause.id for clause in parse_policy(POLICY)}
    edited = POLICY.replace("Applies to every chat.", "Applies to chats and e-mails.").replace(
        "Never on a Sunday.", "Never on a Sunday.\n\nNot on holidays either."
    )
    after = {clause.text: clause.id for clause in parse_policy(edited)}
    unchanged = "Verify the customer's identity before any refund."
    assert after[unchanged] == before[unchanged] == "refunds.1"
    assert after["Not on holidays either."] == "delivery-changes.3"


def test_a_lazy_continuation_line_joins_its_item() -> None:
    (clause,) = parse_policy("- Verify the customer\nbefore any refund.\n")
    assert clause == PolicyClause("policy.1", "Verify the customer before any refund.")


def test_repeated_headings_and_ids_are_told_apart_or_refused(tmp_path: Path) -> None:
    twice = parse_policy("# Refunds\n- one\n# Refunds\n- two\n")
    assert [clause.id for clause in twice] == ["refunds.1", "refunds-2.1"]
    with pytest.raises(InputError, match=r"clause id 'same' is given twice \(clauses 1 and 2\)"):
        parse_policy("- one {#same}\n- two {#same}\n")
    with pytest.raises(InputError, match="no clauses"):
        parse_policy("# Only a heading\n")
    path = tmp_path / "policy.md"
    path.write_text(POLICY, encoding="utf-8")
    assert load_policy(path) == parse_policy(POLICY)
    with pytest.raises(InputError, match="cannot read"):
        load_policy(tmp_path / "missing.md")
