"""Building HTML where escaping cannot be forgotten.

A report carries agent output, tool arguments and error messages: untrusted text that could hold
``<script>``. Every piece of markup here is built with :func:`el`, which escapes each child that
is a plain ``str`` and every attribute value; only :class:`Html` (what ``el`` returns, or a
constant of this package wrapped on purpose) passes through as markup.
"""

from __future__ import annotations

import html
from collections.abc import Iterable


class Html(str):
    """Markup that is already safe: made by :func:`el` or :func:`join`, never from report text."""

    __slots__ = ()


def escape(value: object) -> Html:
    """Any value as escaped text (quotes included, so it is safe in attributes too)."""
    return Html(html.escape(str(value), quote=True))


def _child(child: Html | str | int | float | None) -> str:
    if child is None:
        return ""
    if isinstance(child, Html):
        return child
    return escape(child)


def _attribute(name: str, value: str | int | float | bool | None) -> str:
    if value is None or value is False:
        return ""
    attribute = name.rstrip("_").replace("_", "-")
    if value is True:
        return f" {attribute}"
    return f' {attribute}="{escape(value)}"'


def el(
    tag: str,
    *children: Html | str | int | float | None,
    **attributes: str | int | float | bool | None,
) -> Html:
    """``<tag attributes>children</tag>``: ``class_="x"`` is ``class="x"``, ``data_testid`` is
    ``data-testid``; ``None`` and ``False`` attributes are left out, ``True`` ones are bare."""
    attrs = "".join(_attribute(name, value) for name, value in attributes.items())
    return Html(f"<{tag}{attrs}>{''.join(_child(c) for c in children)}</{tag}>")


def void(tag: str, **attributes: str | int | float | bool | None) -> Html:
    """An element without content or end tag (``<circle ... />`` in SVG, ``<meta>``)."""
    attrs = "".join(_attribute(name, value) for name, value in attributes.items())
    return Html(f"<{tag}{attrs}/>")


def join(children: Iterable[Html | str | int | float | None], separator: str = "") -> Html:
    """Children one after another, each escaped unless it is markup already."""
    return Html(escape(separator).join(_child(c) for c in children))
