"""What every peer reader shares, stdlib only (it runs inside a peer's throwaway venv, where
trailcheck is not installed): the corpus recordings, their fingerprints, and the peer file.

A peer file (``tests/conformance/peers/<peer>.json``) holds, per recording of
``tests/fixtures/real/`` and per trace in start order, what the peer reads of it in trailcheck's
columns: ``calls`` (name, arguments, result, error flag, in the peer's order), ``input``,
``answer``, ``tokens`` (input, output), ``models``, ``session``; ``None`` where the peer shows
nothing. The ``fingerprint`` of each recording says which bytes were read, so a recording made
after the file is caught (``tests/conformance/test_peers.py``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

PEERS = Path(__file__).resolve().parent
REAL = PEERS.parent.parent / "fixtures" / "real"


def recordings() -> list[str]:
    """Every recording of the corpus folder, by name, sorted."""
    return sorted(path.name.removesuffix(".traces.pb") for path in REAL.glob("*.traces.pb"))


def signal_files(name: str) -> list[Path]:
    """The recording's OTLP protobuf files: its spans, then its log records when it has any."""
    files = [REAL / f"{name}.traces.pb"]
    logs = REAL / f"{name}.logs.pb"
    return [*files, logs] if logs.exists() else files


def fingerprint(name: str) -> str:
    """The first 16 hex digits of the SHA-256 of the recording's protobuf files."""
    digest = hashlib.sha256()
    for path in signal_files(name):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def peer_path(peer: str) -> Path:
    return PEERS / f"{peer}.json"


def write_peer_file(
    peer: str, about: dict[str, Any], readings: dict[str, list[dict[str, Any]]]
) -> Path:
    """Write the peer file: ``about`` (package, version, how it reads) and, per recording, its
    fingerprint and the readings of its traces. Keys sorted, so a rerun over the same bytes
    writes the same file."""
    document = {
        **about,
        "recordings": {
            name: {"fingerprint": fingerprint(name), "traces": traces}
            for name, traces in sorted(readings.items())
        },
    }
    path = peer_path(peer)
    text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False, default=str)
    path.write_text(text + "\n")
    return path


def load_peer_file(peer: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(peer_path(peer).read_text())
    return loaded
