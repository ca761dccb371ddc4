"""Splitting an answer into sentences: small, deterministic, and wrong in known ways.

Groundedness is judged per sentence, so the split decides what a claim is. The rules:

- each line is split on its own (answers are often lists), with a leading list marker
  (``-``, ``*``, ``•``, ``1.``, ``2)``) removed;
- a sentence ends at ``.``, ``!``, ``?`` or ``…`` (runs of them, then closing quotes or
  brackets) followed by white space and a capital letter, a digit, a quote or a bracket;
- a full stop does not end a sentence after a known abbreviation (``Dr.``, ``St.``, ``e.g.``,
  ``vs.``, ``No.``, month names...) or a single capital letter (an initial: ``J. Smith``);
- a full stop with no white space after it is not an end, so ``1:20.472``, ``$129.00`` and
  ``example.com`` stay whole;
- a piece with no letter or digit (``---``) is not a sentence.

Known misses: an abbreviation that ends a sentence joins it to the next (``Acme Inc. It is``
would be split, but ``vs. Red Bull`` would not, by design); quoted speech with inner full stops
is split.
"""

from __future__ import annotations

import re

__all__ = ["split_sentences"]

_ABBREVIATIONS = frozenset(
    {
        *("mr", "mrs", "ms", "dr", "prof", "rev", "gen", "sen", "rep", "st", "mt", "ft"),
        *("no", "nos", "vs", "approx", "ca", "cf", "e.g", "i.e", "fig", "eq", "vol", "pp"),
        *("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
    }
)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")
_END = re.compile(r"[.!?…]+[\"'”’)\]]*\s+(?=[A-Z0-9\"'“‘(\[À-ÖØ-Þ])")
_HAS_CONTENT = re.compile(r"\w")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, in order, stripped; see the module for the rules."""
    sentences: list[str] = []
    for line in text.splitlines():
        line = _LIST_MARKER.sub("", line).strip()
        start = 0
        for end in _END.finditer(line):
            if _is_abbreviation(line, end.start(), end.group()):
                continue
            sentences.append(line[start : end.start() + len(end.group().rstrip())])
            start = end.end()
        sentences.append(line[start:])
    return [s.strip() for s in sentences if _HAS_CONTENT.search(s)]


def _is_abbreviation(line: str, stop: int, punctuation: str) -> bool:
    if not punctuation.startswith(".") or punctuation.rstrip().startswith(".."):
        return False
    word = line[:stop].rsplit(None, 1)[-1] if line[:stop].strip() else ""
    word = word.lstrip("(\"'“‘[")
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())
