"""The run manifest: everything a result depends on, pinned, so two reports can be compared.

A report is evidence only as far as one can tell what produced it: the dataset version, the
agent (its model, sampling settings, prompt and tool schemas), the scorers, the environment's
fixture, the harness settings and the machine. Hashes are SHA-256 of canonical JSON (sorted
keys), shortened to 16 hex digits.

An agent describes itself through an optional ``describe()`` method returning JSON values
(:class:`~trailcheck.run.ToolAgent` reports its model, settings and prompt hash); an agent
without one is recorded by its reference only.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import orjson
from pydantic import JsonValue

from trailcheck.capture.jsonable import to_json_value
from trailcheck.cases import Dataset
from trailcheck.environment import Environment
from trailcheck.errors import UsageError
from trailcheck.models.declarations import declare_tools
from trailcheck.scorers import Scorer


def short_hash(value: Any) -> str:
    """16 hex digits of the SHA-256 of ``value`` as canonical JSON."""
    data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Harness:
    """How trials were run: the settings a result depends on besides the agent."""

    k: int
    concurrency: int
    timeout_s: float | None
    seed: int
    rate_limit_per_s: float | None
    network_allowed: bool = True
    """Recorded as the operator declares it; trailcheck does not sandbox the agent."""


def git_commit(directory: Path | None = None) -> dict[str, JsonValue] | None:
    """The commit of the working tree and whether it has changes, or None outside a repository."""
    where = str(directory or Path.cwd())
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def machine() -> dict[str, JsonValue]:
    """CPU count, memory and platform of the machine running the trials."""
    try:
        memory: int | None = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = None
    return {
        "cpu_count": os.cpu_count(),
        "memory_bytes": memory,
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def _trailcheck_version() -> str:
    try:
        return version("trailcheck")
    except PackageNotFoundError:
        return "unknown"


def describe_agent(agent: object, reference: str | None) -> dict[str, JsonValue]:
    """The agent's own description (its ``describe()``), with the reference it was made from."""
    described: dict[str, JsonValue] = {"reference": reference, "type": type(agent).__qualname__}
    describe: Callable[[], Any] | None = getattr(agent, "describe", None)
    if callable(describe):
        own = to_json_value(describe()).value
        if not isinstance(own, dict):
            raise UsageError(f"{type(agent).__qualname__}.describe() returns an object")
        described.update(own)
    return described


def describe_environment(
    environment: Environment | None, reference: str | None
) -> dict[str, JsonValue] | None:
    """The environment's fixture hash (its snapshot after reset) and its tools' schema hash."""
    if environment is None:
        return None
    environment.reset()
    tools: Sequence[Callable[..., Any]] = environment.tools
    declarations = [d.model_dump(mode="json") for d in declare_tools(tools)]
    return {
        "reference": reference,
        "type": type(environment).__qualname__,
        "fixture_sha256": short_hash(environment.snapshot()),
        "tools": [d["name"] for d in declarations],
        "tool_schema_sha256": short_hash(declarations),
    }


def build_manifest(
    *,
    dataset: Dataset,
    dataset_path: str | None,
    agent: dict[str, JsonValue],
    environment: dict[str, JsonValue] | None,
    scorers: Sequence[Scorer],
    harness: Harness,
    judge: dict[str, JsonValue] | None = None,
) -> dict[str, JsonValue]:
    """The manifest of a run about to start."""
    return {
        "created_at": datetime.now(UTC).isoformat(),
        "trailcheck_version": _trailcheck_version(),
        "git": git_commit(),
        "dataset": {"name": dataset.name, "version": dataset.version, "path": dataset_path},
        "agent": agent,
        "environment": environment,
        "judge": judge,
        "scorers": {scorer.name: scorer.version for scorer in scorers},
        "harness": {
            "k": harness.k,
            "concurrency": harness.concurrency,
            "timeout_s": harness.timeout_s,
            "seed": harness.seed,
            "rate_limit_per_s": harness.rate_limit_per_s,
            "network_allowed": harness.network_allowed,
        },
        "machine": machine(),
    }
