"""The claims desk, trailcheck's security domain: untrusted e-mails, two agents, one table.

The desk (:class:`ClaimsDesk`) triages claim e-mails from outside parties with six tools; the
``claims`` dataset (:func:`claims_dataset`) has benign tasks and attacks (prompt injection in
body and footer, "do not escalate", a forged log line, a tool loop, a delimiter break-out).
The undefended agent and the defended one share a brain (:mod:`.brain`) and differ only in the
guards around it (:mod:`.agent`); :func:`run_security_eval` reports, per agent, the harm done
beside the benign work completed.

    trailcheck run src/trailcheck/demo/claims/claims.yaml \\
        --agent trailcheck.demo.claims:defended_agent --env trailcheck.demo.claims:claims_desk
"""

from trailcheck.demo.claims.agent import (
    DEFENDED,
    SYSTEM_PROMPT,
    UNDEFENDED,
    ClaimsAgent,
    Defences,
    claims_backstop,
    defended_agent,
    undefended_agent,
)
from trailcheck.demo.claims.brain import triage_brain
from trailcheck.demo.claims.dataset import claims_dataset
from trailcheck.demo.claims.desk import ClaimsDesk, claims_desk
from trailcheck.demo.claims.evaluation import (
    AttackOutcome,
    SecurityRow,
    render_security_table,
    run_security_eval,
    security_row,
)
from trailcheck.demo.claims.harm import Attack, attack_of, harm_done

__all__ = [
    "DEFENDED",
    "SYSTEM_PROMPT",
    "UNDEFENDED",
    "Attack",
    "AttackOutcome",
    "ClaimsAgent",
    "ClaimsDesk",
    "Defences",
    "SecurityRow",
    "attack_of",
    "claims_backstop",
    "claims_dataset",
    "claims_desk",
    "defended_agent",
    "harm_done",
    "render_security_table",
    "run_security_eval",
    "security_row",
    "triage_brain",
    "undefended_agent",
]
