"""Secret-named keys: the ``secret_field`` rule replaces the value of a key named like a secret
whole, wherever it is (headers, arguments, configuration)."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["SECRET_FIELD", "SECRET_WORDS", "is_secret_key"]

SECRET_FIELD: Final = "secret_field"

_SECRET_KEY: Final = re.compile(
    r"(?i)^(?:x-)?(?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|token"
    r"|secret|client[_-]?secret|password|passwd|pwd|authorization|proxy[_-]?authorization"
    r"|auth[_-]?token|private[_-]?key|cookie|set[_-]?cookie)$"
)
# Every key is_secret_key names holds one of these (case ignored).
SECRET_WORDS: Final = ("key", "token", "secret", "passw", "pwd", "auth", "cookie")


def is_secret_key(key: str) -> bool:
    """Whether ``key`` is named like a secret (``api_key``, ``X-Api-Key``, ``password``,
    ``authorization``...): its last dotted part, so ``http.request.header.authorization``
    is one."""
    return _SECRET_KEY.match(key.rpartition(".")[2]) is not None
