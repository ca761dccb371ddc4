"""The redactor: one definition of what is redacted and how, for intake (``serve``, ``ingest``)
and for promotion to a candidate case alike.

A :class:`Redactor` reads text and JSON values (mappings, lists, text, numbers) and applies, in
this order, to each mapping key it meets:

1. **field rules** (:class:`FieldRule`): a key named by a rule has its value dropped or hashed
   with a keyed hash (:mod:`trailcheck.redaction.keyed_hash`). A rule names a key, or the last
   keys of a path (``customer.id`` is the key ``customer.id``, and the key ``id`` inside
   ``customer``), anywhere in the value, case-insensitively; ``*`` and ``?`` are globs;
2. **secret-named keys** (the ``secret_field`` rule, :mod:`.secret_keys`): the value of a key
   named like a secret (``api_key``, ``token``, ``password``, ``authorization``...) is
   replaced whole (:mod:`.hidden`);
3. otherwise the value is read on: text by the built-in detectors
   (:mod:`trailcheck.redaction.detectors`) and then the custom patterns (:class:`PatternRule`),
   and mappings and lists item by item. Text that holds a JSON object or array (tool arguments
   and messages often travel so) is read as that JSON, so field rules reach into it, and is
   written back as compact JSON when something in it was redacted; it is scanned as written
   first, and parsed only when it may hold something (:mod:`.held_json`).

Mapping keys are text too: a key the detectors find something in is redacted like any text.

Redacted content keeps its type and shape, so scorers and rules still run over it:

- text becomes ``[REDACTED:<rule>]`` where a detector or pattern found it (the rest of the text
  stays), and whole under a dropping field rule or a secret-named key;
- a number or a boolean under a dropping rule or a secret-named key becomes ``null`` (never
  text); under a hashing rule a number stays a number (:mod:`~.keyed_hash`);
- a list or a mapping under a dropping rule becomes an empty one; under a secret-named key or a
  hashing rule each value in it is replaced as above, its keys and length kept.

Each redaction is reported as a :class:`Redaction`: the rule and where (``input``,
``arguments.headers.Authorization``), never the content.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson

from trailcheck.redaction.detectors import DETECTOR_KINDS, DetectorKind, TextDetectors, marker
from trailcheck.redaction.held_json import may_hold
from trailcheck.redaction.hidden import dropped, masked, unique_key
from trailcheck.redaction.keyed_hash import KeyedHash
from trailcheck.redaction.secret_keys import SECRET_FIELD, is_secret_key

__all__ = [
    "SECRET_FIELD",
    "FieldAction",
    "FieldRule",
    "PatternRule",
    "Redaction",
    "Redactor",
    "glob_pattern",
]

FieldAction = Literal["drop", "hash"]

# Keys are few and repeat in every span (attribute names); what a key is, once per key.
_KEY_CACHE_SIZE: Final = 4096


@dataclass(frozen=True, slots=True)
class Redaction:
    """One redaction: which rule, and where it was (never the content)."""

    kind: str
    where: str

    def __str__(self) -> str:
        return f"{self.kind} at {self.where}"


def glob_pattern(glob: str) -> re.Pattern[str]:
    """The expression a field rule's name matches a key's path with: the whole path, or its
    last parts after a dot; ``*`` any characters, ``?`` one; case ignored."""
    body = "".join(
        ".*" if char == "*" else "." if char == "?" else re.escape(char) for char in glob
    )
    return re.compile(rf"(?:.*\.)?(?:{body})", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class FieldRule:
    """Drop or hash the value of the keys ``field`` names (see the module)."""

    name: str
    field: str
    action: FieldAction


@dataclass(frozen=True, slots=True)
class PatternRule:
    """Replace what ``regex`` matches in text by ``[REDACTED:<name>]``; only the group named
    ``secret`` where the expression has one."""

    name: str
    regex: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class _Key:
    """What the redactor makes of a mapping key: the key as written, the rules that found
    something in it, and whether it names a secret."""

    text: str
    found: tuple[str, ...]
    secret: bool


class Redactor:
    """Redacts text and JSON values by its rules (see the module)."""

    def __init__(
        self,
        detectors: Iterable[DetectorKind] = DETECTOR_KINDS,
        *,
        secret_fields: bool = True,
        patterns: Sequence[PatternRule] = (),
        fields: Sequence[FieldRule] = (),
        hash_key: bytes | None = None,
    ) -> None:
        if any(rule.action == "hash" for rule in fields) and not hash_key:
            raise ValueError("a field rule that hashes needs a hash key")
        self._detectors = TextDetectors(detectors)
        self._secret_fields = secret_fields
        self._patterns = tuple(patterns)
        self._fields = tuple((rule, glob_pattern(rule.field)) for rule in fields)
        self._hash = KeyedHash(hash_key) if hash_key else None
        self._keys: dict[str, _Key] = {}
        # What this redactor made of each text it read at an entry's place (see session).
        self._memo: dict[tuple[str, str], tuple[str, tuple[str, ...]]] | None = None

    def session(self) -> Redactor:
        """A redactor of the same rules that remembers, for as long as it is kept, what each
        text it read came to, and gives it again for the same text: for the values of one
        trace, which repeat (each model call carries the conversation so far, each span the
        same resource). What it remembers costs a reference per text: keep one per trace, not
        beyond."""
        session = copy.copy(self)
        session._memo = {}
        return session

    @property
    def rule_names(self) -> tuple[str, ...]:
        """The rules in force, by name: the detectors, ``secret_field``, patterns and fields."""
        names: list[str] = [kind for kind in DETECTOR_KINDS if kind in self._detectors.kinds]
        if self._secret_fields:
            names.append(SECRET_FIELD)
        names += [rule.name for rule in self._patterns]
        names += [rule.name for rule, _ in self._fields]
        return tuple(names)

    def stored_forms(self, identifier: str) -> tuple[str, ...]:
        """How an id may have been stored under these rules: as given, and, where a field rule
        hashes, its keyed hash as text (and, for an id of digits, the hash of the integer it
        was sent as). What a deletion on request looks for in a store redacted at intake."""
        if self._hash is None or not any(rule.action == "hash" for rule, _ in self._fields):
            return (identifier,)
        forms = [identifier, str(self._hash.of(identifier))]
        if identifier.isascii() and identifier.isdigit():
            forms.append(str(self._hash.of(int(identifier))))
        return tuple(dict.fromkeys(forms))

    def text(self, text: str, where: str, found: MutableSequence[Redaction]) -> str:
        """``text`` with what the detectors and patterns find replaced; a :class:`Redaction`
        per replacement in ``found``."""
        detected = self._detectors.redact(text)
        if detected is not None:
            text, kinds = detected
            found.extend(Redaction(kind, where) for kind in kinds)
        for rule in self._patterns:
            text = self._pattern(rule, text, where, found)
        return text

    def value(self, value: Any, where: str, found: MutableSequence[Redaction]) -> Any:
        """A JSON value redacted (see the module); a :class:`Redaction` per redaction in
        ``found``, ``where`` the path of the value (``where.key``, ``where[0]``)."""
        return self._value(value, where, "", found, True)

    def entries(
        self,
        mapping: dict[str, Any],
        where: str,
        found: MutableSequence[Redaction],
    ) -> dict[str, Any]:
        """A mapping redacted as :meth:`value` would, but each redaction is reported at the
        place of its entry (``where.key``), never deeper: span attributes are counted per
        attribute."""
        redacted: dict[str, Any] = {}
        for key, item in mapping.items():
            known = self._key(key)
            written = known.text if known.text not in redacted else unique_key(known.text, redacted)
            inner = f"{where}.{written}" if where else written
            if known.found:
                found.extend(Redaction(kind, inner) for kind in known.found)
            path = key if self._fields else ""
            redacted[written] = self._item(path, known.secret, item, inner, found, False)
        return redacted

    # ``deep``: whether a redaction is reported at its own place (``where.key[0]``) or at the
    # place of the entry it is in; not formatting the places of every value read is most of
    # what the walk costs, and counts at intake need only the entries'.

    def _value(
        self, value: Any, where: str, path: str, found: MutableSequence[Redaction], deep: bool
    ) -> Any:
        if isinstance(value, str):
            return self._string(value, where, path, found, deep)
        if isinstance(value, dict):
            return self._mapping(value, where, path, found, deep)
        if isinstance(value, list | tuple):
            if not deep:
                return [self._value(item, where, path, found, deep) for item in value]
            return [
                self._value(item, f"{where}[{i}]", path, found, deep)
                for i, item in enumerate(value)
            ]
        return value

    def _string(
        self, text: str, where: str, path: str, found: MutableSequence[Redaction], deep: bool
    ) -> str:
        # A session remembers texts read at an entry's place (deep: each at its own place,
        # which a remembered text would not say).
        memo = None if deep else self._memo
        if memo is None:
            return self._read_string(text, where, path, found, deep)
        # The path too: under field rules, what a text holding JSON comes to depends on it.
        known = memo.get((path, text))
        if known is None:
            before = len(found)
            redacted = self._read_string(text, where, path, found, deep)
            known = memo[path, text] = (redacted, tuple(r.kind for r in found[before:]))
        elif known[1]:
            found.extend(Redaction(kind, where) for kind in known[1])
        return known[0]

    def _read_string(
        self, text: str, where: str, path: str, found: MutableSequence[Redaction], deep: bool
    ) -> str:
        if text.startswith(("{", "[")):
            try:
                parsed = orjson.loads(text)
            except orjson.JSONDecodeError:
                pass
            else:
                if not self._may_hold(text):
                    return text
                before = len(found)
                redacted = self._value(parsed, where, path, found, deep)
                return orjson.dumps(redacted).decode() if len(found) > before else text
        return self.text(text, where, found)

    def _may_hold(self, json_text: str) -> bool:
        """Whether the JSON text may hold something to redact (:mod:`.held_json`); field
        rules and patterns are not read that way: with any, it may."""
        if self._fields or self._patterns:
            return True
        return may_hold(json_text, self._detectors, self._secret_fields)

    def _mapping(
        self,
        mapping: dict[Any, Any],
        where: str,
        path: str,
        found: MutableSequence[Redaction],
        deep: bool,
    ) -> dict[Any, Any]:
        redacted: dict[Any, Any] = {}
        fields = bool(self._fields)
        for key, item in mapping.items():
            if not isinstance(key, str):
                redacted[key] = self._value(item, where, path, found, deep)
                continue
            known = self._key(key)
            written = known.text if known.text not in redacted else unique_key(known.text, redacted)
            inner = (f"{where}.{written}" if where else written) if deep else where
            if known.found:
                found.extend(Redaction(kind, inner) for kind in known.found)
            key_path = (f"{path}.{key}" if path else key) if fields else ""
            redacted[written] = self._item(key_path, known.secret, item, inner, found, deep)
        return redacted

    def _item(
        self,
        path: str,
        secret: bool,
        item: Any,
        where: str,
        found: MutableSequence[Redaction],
        deep: bool,
    ) -> Any:
        """The value of the key at ``path`` in a mapping, redacted."""
        for rule, pattern in self._fields:
            if pattern.fullmatch(path) is not None:
                if item is None or item == "":
                    return item
                found.append(Redaction(rule.name, where))
                return self._field_value(rule, item)
        if secret and item is not None and item != "":
            found.append(Redaction(SECRET_FIELD, where))
            return masked(item, SECRET_FIELD)
        return self._value(item, where, path, found, deep)

    def _field_value(self, rule: FieldRule, item: Any) -> Any:
        if rule.action == "hash":
            assert self._hash is not None  # checked when the redactor was made
            return self._hash.of(item)
        return dropped(item, rule.name)

    def _key(self, key: str) -> _Key:
        known = self._keys.get(key)
        if known is None:
            kinds: list[Redaction] = []
            text = self.text(key, "", kinds)
            secret = self._secret_fields and is_secret_key(key)
            known = _Key(text, tuple(r.kind for r in kinds), secret)
            if len(self._keys) >= _KEY_CACHE_SIZE:
                self._keys.clear()
            self._keys[key] = known
        return known

    @staticmethod
    def _pattern(
        rule: PatternRule, text: str, where: str, found: MutableSequence[Redaction]
    ) -> str:
        def replace(match: re.Match[str]) -> str:
            found.append(Redaction(rule.name, where))
            if "secret" not in rule.regex.groupindex or match.start("secret") < 0:
                return marker(rule.name)
            start, end = match.start("secret") - match.start(), match.end("secret") - match.start()
            whole = match.group(0)
            return whole[:start] + marker(rule.name) + whole[end:]

        return rule.regex.sub(replace, text)
