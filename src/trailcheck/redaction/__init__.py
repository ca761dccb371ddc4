"""Redaction: secrets and personal data replaced before they are stored or leave a trace for a
dataset, by one redactor that intake (``serve --redact``, ``ingest --redact``) and promotion to
a candidate case share.

The redactor (:mod:`.redactor`) applies built-in detectors (:mod:`.detectors`: private keys,
URL passwords, bearer tokens, provider API keys, e-mail addresses, IBANs, card numbers, phone
numbers), secret-named keys, custom patterns and field rules that drop a value or hash it with
a keyed hash (:mod:`.keyed_hash`), keeping each value's type and shape. A rules file
(:mod:`.rules`, loaded by :mod:`.rules_file`) says which; ``builtin`` is the detectors alone.
What ``serve`` receives is redacted span by span (:mod:`.spans`), what ``ingest`` reads trace by
trace (:mod:`.traces`), and each redaction is counted on the trace by rule and place, never
with its content (:mod:`.counts`). ``docs/redaction.md`` at length.
"""

from trailcheck.redaction.checksums import iban_valid, luhn_valid
from trailcheck.redaction.counts import REDACTIONS_KEY, RedactionCounts
from trailcheck.redaction.detectors import DETECTOR_KINDS, DetectorKind, marker
from trailcheck.redaction.keyed_hash import HASH_PREFIX, KeyedHash
from trailcheck.redaction.redactor import (
    SECRET_FIELD,
    FieldAction,
    FieldRule,
    PatternRule,
    Redaction,
    Redactor,
)
from trailcheck.redaction.rules import BUILTIN_RULES, RedactionRules
from trailcheck.redaction.rules_file import (
    BUILTIN_SPEC,
    RedactionRulesError,
    builtin_redactor,
    load_redaction_rules,
    load_redactor,
    parse_redaction_rules,
)
from trailcheck.redaction.spans import SpanRedaction, redact_log, redact_span
from trailcheck.redaction.traces import (
    RedactionTally,
    redact_trace,
    redact_traces,
    with_span_counts,
)

__all__ = [
    "BUILTIN_RULES",
    "BUILTIN_SPEC",
    "DETECTOR_KINDS",
    "HASH_PREFIX",
    "REDACTIONS_KEY",
    "SECRET_FIELD",
    "DetectorKind",
    "FieldAction",
    "FieldRule",
    "KeyedHash",
    "PatternRule",
    "Redaction",
    "RedactionCounts",
    "RedactionRules",
    "RedactionRulesError",
    "RedactionTally",
    "Redactor",
    "SpanRedaction",
    "builtin_redactor",
    "iban_valid",
    "load_redaction_rules",
    "load_redactor",
    "luhn_valid",
    "marker",
    "parse_redaction_rules",
    "redact_log",
    "redact_span",
    "redact_trace",
    "redact_traces",
    "with_span_counts",
]
