"""Signatures of tools, computed once per function: a leaf module capture and models share.

A runner makes fresh bound methods, and fresh wrappers around them, for every trial; what a
signature says depends only on the function underneath and on whether it is bound, so that is
the cache key. ``inspect.signature`` costs about 100 µs for a method; a cached one, nothing.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import Any

# Weak keys: a function that goes away takes its signatures with it.
_SIGNATURES: weakref.WeakKeyDictionary[Callable[..., Any], dict[bool, inspect.Signature]]
_SIGNATURES = weakref.WeakKeyDictionary()


def callable_source(fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool] | None:
    """The plain function ``fn`` is made from (through ``functools.wraps`` wrappers and bound
    methods), and whether it is bound; None for anything else (a partial, a callable object)."""
    target = inspect.unwrap(fn, stop=inspect.ismethod)
    bound = inspect.ismethod(target)
    function = getattr(target, "__func__", target)
    return (function, bound) if inspect.isfunction(function) else None


def signature_of(fn: Callable[..., Any]) -> inspect.Signature:
    """``inspect.signature(fn)``, cached by :func:`callable_source`; raises as it does."""
    source = callable_source(fn)
    if source is None:
        return inspect.signature(fn)
    function, bound = source
    by_binding = _SIGNATURES.setdefault(function, {})
    signature = by_binding.get(bound)
    if signature is None:
        signature = by_binding[bound] = inspect.signature(fn)
    return signature
