"""A judge's version: a short hash of everything its verdicts depend on.

A calibration measures one judge: one model, with its settings, reading one prompt template. The
version hashes exactly that (``kind``, the model's name, its settings, the template text and
the judge's own options), so changing any of them makes a new judge that needs its own
calibration, and nothing else does. Settings that change how a model is reached but not what it
answers (``timeout``, ``max_retries``) are recorded by :func:`describe_model` but left out of
the hash: raising a timeout should not void a calibration.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from trailcheck.models.chat import ChatModel

__all__ = ["PinnedModelJudge", "describe_model", "judge_version", "short_hash"]

_OPERATIONAL_SETTINGS = frozenset({"timeout", "max_retries"})


def short_hash(value: Any) -> str:
    """12 hex digits of the SHA-256 of ``value`` as canonical JSON (sorted keys)."""
    data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)
    return hashlib.sha256(data).hexdigest()[:12]


def describe_model(model: ChatModel) -> dict[str, Any]:
    """The model's name and, when it has a ``settings()`` method (as OpenAIChatModel does:
    temperature 0 by default), its settings."""
    settings: Callable[[], Mapping[str, Any]] | None = getattr(model, "settings", None)
    return {
        "name": model.name,
        "settings": dict(settings()) if callable(settings) else None,
    }


def judge_version(description: Mapping[str, Any]) -> str:
    """The version of a judge described by ``description`` (the output of its ``describe()``),
    with the model's operational settings left out."""
    pinned = dict(description)
    model = pinned.get("model")
    if isinstance(model, Mapping) and isinstance(model.get("settings"), Mapping):
        settings = {
            key: value
            for key, value in model["settings"].items()
            if key not in _OPERATIONAL_SETTINGS
        }
        pinned["model"] = {**model, "settings": settings}
    return short_hash(pinned)


class PinnedModelJudge:
    """What every model judge shares: its model, its retries, and a description pinned once
    into its version (``kind``, the model, ``retries`` and the judge's ``pinned`` content,
    such as its template)."""

    def __init__(self, model: ChatModel, *, kind: str, retries: int, **pinned: Any) -> None:
        self._model = model
        self._retries = retries
        self._description: dict[str, Any] = {
            "kind": kind,
            "model": describe_model(model),
            **pinned,
            "retries": retries,
        }
        self._version = judge_version(self._description)

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {**self._description, "version": self._version}
