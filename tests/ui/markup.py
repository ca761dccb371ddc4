"""Reading the UI's pages back: the text of each element that has a ``data-testid``."""

from __future__ import annotations

from html.parser import HTMLParser


class Texts(HTMLParser):
    """The text of each element with a data-testid, and every script element met."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.texts: dict[str, list[str]] = {}
        self.scripts = 0
        self._open: list[tuple[str, str | None]] = []
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        if tag in ("input", "meta", "link"):
            return
        testid = dict(attrs).get("data-testid")
        self._open.append((tag, testid))
        if testid is not None:
            self.texts.setdefault(testid, []).append("")

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for _, testid in self._open:
            if testid is not None:
                self.texts[testid][-1] += data
