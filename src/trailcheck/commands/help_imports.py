"""Help printed without importing what it never shows.

typer prints help with ``typer.rich_utils``, which imports ``rich.traceback`` at its top (for
typer's pretty exceptions, which trailcheck turns off) and, through ``rich.markdown``,
``rich.syntax`` (for code blocks in colour, which no help of ours holds): with pygments, attrs
and rich's pretty printer, a tenth of what ``trailcheck --help`` spends starting. ``rich.markdown``
itself brings markdown-it, another tenth, to parse help texts that are mostly one plain
sentence (every line of the top-level help is).

:func:`import_rich_utils` imports ``typer.rich_utils`` with those modules stood in for:

- each name taken from ``rich.traceback`` or ``rich.syntax`` is a :class:`Deferred` that
  imports the real module the first time it is called or read, so a traceback or a code block
  still renders exactly as before;
- ``rich.markdown.Markdown`` is :class:`HelpMarkdown`, which renders a plain sentence (no
  character markdown gives a meaning to) as ``rich.markdown`` renders a paragraph, and hands
  any other text to ``rich.markdown`` itself. A test renders every help page both ways, in
  colour at three widths, and compares them byte for byte.

The stand-ins are gone from ``sys.modules`` once the import is done: an ``import rich.syntax``
later gets the real module.
"""

import importlib
import re
import sys
import types
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.style import Style

__all__ = ["DEFERRED_MODULES", "Deferred", "HelpMarkdown", "import_rich_utils"]

DEFERRED_MODULES: Final = ("rich.traceback", "rich.syntax", "rich.markdown")

# Text markdown reads as itself, but for code spans: a letter, a digit or a code span first (not
# a list's "1. ", a heading's "#", a quote's ">"), then no character that can open markup
# (``*[]<>!&|~#\``, a line break), a space only before a character (no run of two, none at the
# end: markdown trims them), an underscore only inside a word (where it never emphasises), and
# code spans whose text neither starts nor ends with a space (which markdown would trim).
_CODE_SPAN: Final = r"`[^`\s](?:[^`\n]*[^`\s])?`"
_PLAIN_SENTENCE: Final = re.compile(
    rf"(?![0-9]+[.)](?: |$))(?:[A-Za-z0-9]|{_CODE_SPAN})"
    rf"(?:[A-Za-z0-9,.;:'\"()/?%@=+^$-]| (?=\S)|(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])|{_CODE_SPAN})*"
)
_CODE_SPANS: Final = re.compile(f"({_CODE_SPAN})")


class Deferred:
    """``module.name``, imported when it is first called or one of its attributes read."""

    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name

    def resolved(self) -> Any:
        """The real object (its module imported now, if it was not)."""
        return getattr(importlib.import_module(self._module), self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolved()(*args, **kwargs)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.resolved(), attribute)

    def __repr__(self) -> str:
        return f"<deferred {self._module}.{self._name}>"


class _PlainParagraph:
    """A plain sentence rendered as ``rich.markdown`` renders a one-paragraph document: the text
    in the document's style and the paragraph's, a code span's text in the code style too,
    left-justified. Like a ``Markdown``, it has no measure of its own, so a table or a row of
    columns gives it the width a ``Markdown`` gets."""

    def __init__(self, sentence: str, style: "str | Style") -> None:
        self._sentence = sentence
        self._style = style

    def __rich_console__(self, console: "Console", options: "ConsoleOptions") -> "RenderResult":
        from rich.text import Text

        style = console.get_style(self._style, default="none") + console.get_style(
            "markdown.paragraph", default="none"
        )
        code = style + console.get_style("markdown.code", default="none")
        text = Text(justify="left")
        for index, piece in enumerate(_CODE_SPANS.split(self._sentence)):
            if index % 2:
                text.append(piece[1:-1], code)
            elif piece:
                text.append(piece, style)
        yield text


class HelpMarkdown:
    """What typer's help makes of a help text: :class:`_PlainParagraph` for a plain sentence,
    a ``rich.markdown.Markdown`` (imported now) for anything else."""

    def __new__(cls, markup: str, style: "str | Style" = "none", **settings: Any) -> Any:
        if _PLAIN_SENTENCE.fullmatch(markup):
            return _PlainParagraph(markup, style)
        markdown = _imported_standing_in("rich.markdown", ("rich.syntax",))
        return markdown.Markdown(markup, style=style, **settings)


# What a stand-in gives for a name instead of a Deferred: a class typer's annotations can use.
_STANDING_IN: Final[dict[tuple[str, str], type]] = {("rich.markdown", "Markdown"): HelpMarkdown}


class _StandIn(types.ModuleType):
    """A module not imported yet: every name taken from it is :class:`Deferred`, or what
    :data:`_STANDING_IN` gives."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system's questions (__path__, __spec__, ...)
            raise AttributeError(name)
        return _STANDING_IN.get((self.__name__, name)) or Deferred(self.__name__, name)


def import_rich_utils() -> None:
    """Import ``typer.rich_utils`` (once) without :data:`DEFERRED_MODULES`; those imported
    already are used as they are."""
    _imported_standing_in("typer.rich_utils", DEFERRED_MODULES)


def _imported_standing_in(module: str, deferred: tuple[str, ...]) -> types.ModuleType:
    """``module``, imported (if it was not) with each of ``deferred`` not yet imported stood in
    for while it imports."""
    if module in sys.modules:
        return sys.modules[module]
    stand_ins = {name: _StandIn(name) for name in deferred if name not in sys.modules}
    sys.modules.update(stand_ins)
    try:
        return importlib.import_module(module)
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
