"""One normaliser for both sides: what a model is trained on and what it is asked.

A message and a catalog entry go through the same steps, so a word means the same token
wherever it appears: lower case, accents folded (``cartão`` → ``cartao``), a hyphen inside a
word dropped (``e-mail`` → ``email``), punctuation and ``_`` to spaces, declared domain
phrases joined into one token (``segunda via`` → ``segunda_via``, so "second copy of a card"
is not the ordinal "segunda"), and, when ``stem_length`` is set, every word cut to at most that
many characters (truncation stemming: ``parcelar``, ``parcelas`` and ``parcelamento`` all
become ``parcel``). Stop words are listed here too, for Portuguese and English, because
scikit-learn ships only an English list.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

__all__ = ["DEFAULT_PHRASES", "STOP_WORDS", "Normalizer", "fold"]

DEFAULT_PHRASES: tuple[str, ...] = (
    "segunda via",
    "linha digitavel",
    "cartao de credito",
    "cartao de debito",
    "conta corrente",
    "conta poupanca",
    "debito automatico",
    "cheque especial",
    "open finance",
    "tesouro direto",
    "imposto de renda",
    "dois fatores",
    "store credit",
    "gift card",
    "credit card",
    "two factor",
)

STOP_WORDS: frozenset[str] = frozenset(
    [
        "a",
        "o",
        "as",
        "os",
        "um",
        "uma",
        "uns",
        "umas",
        "de",
        "da",
        "do",
        "das",
        "dos",
        "em",
        "na",
        "no",
        "nas",
        "nos",
        "num",
        "numa",
        "por",
        "pela",
        "pelo",
        "pelas",
        "pelos",
        "para",
        "pra",
        "pro",
        "com",
        "sem",
        "sob",
        "e",
        "ou",
        "que",
        "se",
        "ao",
        "aos",
        "ser",
        "sao",
        "foi",
        "esta",
        "este",
        "isto",
        "isso",
        "essa",
        "esse",
        "aquele",
        "aquela",
        "eu",
        "me",
        "meu",
        "minha",
        "meus",
        "minhas",
        "mim",
        "voce",
        "voces",
        "seu",
        "sua",
        "seus",
        "suas",
        "nosso",
        "nossa",
        "lhe",
        "ja",
        "mais",
        "muito",
        "pouco",
        "como",
        "qual",
        "quais",
        "quando",
        "onde",
        "ate",
        "sobre",
        "entre",
        "tambem",
        "so",
        "bem",
        "mas",
        "nem",
        "ha",
        "the",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "without",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "i",
        "me",
        "my",
        "mine",
        "you",
        "your",
        "we",
        "our",
        "us",
        "he",
        "she",
        "they",
        "them",
        "their",
        "can",
        "could",
        "would",
        "should",
        "will",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "please",
        "just",
        "about",
        "into",
        "as",
        "if",
        "than",
        "then",
        "there",
        "here",
        "out",
        "off",
        "up",
    ]
)

_NON_WORD = re.compile(r"[^0-9a-z]+")
_HYPHEN = re.compile(r"(?<=[0-9a-z])-(?=[0-9a-z])")


def fold(text: str) -> str:
    """Lower case with accents removed: ``Cartão`` → ``cartao``."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True)
class Normalizer:
    """The text pipeline shared by training and queries; its fields are its configuration."""

    phrases: tuple[str, ...] = DEFAULT_PHRASES
    stem_length: int | None = None
    _joins: tuple[tuple[re.Pattern[str], str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stem_length is not None and self.stem_length < 3:
            raise ValueError(f"stem_length must be at least 3, got {self.stem_length}")
        joins = []
        for phrase in sorted(self.phrases, key=lambda p: (-len(p), p)):
            words = _NON_WORD.sub(" ", fold(phrase)).split()
            if len(words) > 1:
                pattern = re.compile(r"\b" + r"\s+".join(map(re.escape, words)) + r"\b")
                joins.append((pattern, "_".join(words)))
        object.__setattr__(self, "_joins", tuple(joins))

    def text(self, text: str) -> str:
        """Folded words separated by single spaces, declared phrases joined with ``_``."""
        flat = " ".join(_NON_WORD.sub(" ", _HYPHEN.sub("", fold(text))).split())
        for pattern, joined in self._joins:
            flat = pattern.sub(joined, flat)
        return flat

    def tokens(self, text: str, *, drop_stop_words: bool = True) -> list[str]:
        """The words of :meth:`text`, stop words removed, each cut to ``stem_length``."""
        words = self.text(text).split()
        if drop_stop_words:
            words = [w for w in words if w not in STOP_WORDS]
        if self.stem_length is None:
            return words
        cut = self.stem_length
        return [w if "_" in w else w[:cut] for w in words]
