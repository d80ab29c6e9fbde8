"""The model's Markdown as a platform without Markdown shows it: plain text plus formatting spans
(Telegram's message entities), and the plain text alone for the terminal.

Why entities and not a parse mode: Claude writes Markdown, and Telegram shows it raw unless told
how to format. A parse mode (MarkdownV2, HTML) makes Telegram parse our text, so one unescaped
character refuses the whole message; entities are offsets into text we send as it is, so nothing
needs escaping and nothing the model writes can break a send. Only text marked as the model's
(`Outgoing.markdown`) comes here: memory text, lists and quoted facts are sent as plain text and
can never turn into formatting.

Why markdown-it-py with our own small renderer (and not telegramify-markdown): markdown-it-py is a
CommonMark parser, pure Python and already in the environment; its token stream makes the renderer
short, and we decide the rules Telegram enforces (docs/ARCHITECTURE.md section 2): spans either
nest or do not touch; code and pre contain nothing and sit inside nothing but a blockquote's
neighbours; a blockquote holds only the simple styles; links only for http(s). telegramify-markdown
(pyromark, a native pulldown-cmark binding) brings LaTeX and Mermaid rendering we do not need, and
splits long texts its own way, where ours must match adapters/textsplit.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

from adapters.textsplit import split_spans

STYLES = frozenset({"bold", "italic", "underline", "strikethrough", "spoiler"})
SAFE_SCHEMES = frozenset({"http", "https"})
BULLET = "•"
RULE = "———"

_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("strikethrough")
_INLINE_STYLES = {"strong": "bold", "em": "italic", "s": "strikethrough"}


@dataclass(frozen=True)
class Span:
    """One piece of formatting over text[start:end] (Python character indices)."""

    type: str
    start: int
    end: int
    url: str | None = None
    language: str | None = None


@dataclass(frozen=True)
class Formatted:
    """Text as shown, and the formatting over it."""

    text: str
    spans: tuple[Span, ...] = ()


def plain(text: str) -> Formatted:
    """Text shown exactly as written."""
    return Formatted(text)


def from_markdown(source: str) -> Formatted:
    """The model's Markdown as text + spans. Never raises on odd input: what CommonMark does not
    read as formatting (an unclosed `**`, raw HTML) stays as the characters it is."""
    return _Renderer().render(_PARSER.parse(source))


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def split(
    formatted: Formatted, limit: int, measure: Callable[[str], int] = len, *, cut_at: int | None = None
) -> list[Formatted]:
    """Parts of at most `limit` (as `measure` counts), cut where adapters/textsplit.py cuts; a
    span across a cut continues in the next part, so every part's spans are valid on their own.
    `cut_at` (characters, default `limit`) is halved for a piece that measures too long
    (astral characters such as emoji count twice in UTF-16)."""
    cut_at = limit if cut_at is None else cut_at
    text = formatted.text
    out: list[Formatted] = []
    for start, end in split_spans(text, cut_at):
        piece = _clip(formatted, start, end)
        if measure(piece.text) <= limit or cut_at == 1:
            out.append(piece)
        else:
            out.extend(split(piece, limit, measure, cut_at=max(1, cut_at // 2)))
    return out


def _clip(formatted: Formatted, start: int, end: int) -> Formatted:
    spans = tuple(
        replace(s, start=max(s.start, start) - start, end=min(s.end, end) - start)
        for s in formatted.spans
        if min(s.end, end) > max(s.start, start)
    )
    return Formatted(formatted.text[start:end], spans)


def entity_dicts(formatted: Formatted) -> list[dict[str, object]]:
    """The spans as Telegram message entities: offsets and lengths in UTF-16 code units."""
    text = formatted.text
    out: list[dict[str, object]] = []
    for s in sorted(formatted.spans, key=lambda s: (s.start, -s.end)):
        offset = utf16_len(text[: s.start])
        entity: dict[str, object] = {
            "type": s.type, "offset": offset, "length": utf16_len(text[s.start : s.end])
        }
        if s.url is not None:
            entity["url"] = s.url
        if s.language:
            entity["language"] = s.language
        out.append(entity)
    return out


# ---------------------------------------------------------------------------- the renderer


@dataclass
class _Open:
    type: str
    start: int
    url: str | None = None


@dataclass
class _List:
    ordered: bool
    number: int


class _Renderer:
    """Walks markdown-it's tokens once, writing text and closing spans as they end."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.spans: list[Span] = []
        self.open: list[_Open] = []
        self.lists: list[_List] = []
        self.quote_start: int | None = None
        self.quote_depth = 0
        self.link_href: list[str | None] = []  # per open link: its href when shown as an entity
        self.link_start: list[int] = []
        self.marked = False  # a list marker was just written: the item's first block follows it

    # --- output
    def write(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.length += len(text)
            self.marked = False

    def tail(self) -> str:
        return "".join(self.parts[-3:])[-2:]

    def newlines(self, count: int) -> None:
        """End the output with `count` newlines (none at the very start, none after a marker)."""
        if self.length == 0 or self.marked:
            return
        tail = self.tail()
        have = 2 if tail == "\n\n" else 1 if tail.endswith("\n") else 0
        self.write("\n" * max(0, count - have))

    def add(self, type_: str, start: int, end: int, **extra: str | None) -> None:
        if end > start:
            self.spans.append(Span(type_, start, end, **extra))  # type: ignore[arg-type]

    # --- span rules
    def in_other(self) -> bool:
        """Inside a blockquote or a link: code, pre and links cannot go there (Telegram)."""
        return self.quote_depth > 0 or any(o.type == "text_link" for o in self.open)

    def open_span(self, type_: str, url: str | None = None) -> None:
        self.open.append(_Open(type_, self.length, url))

    def close_span(self, type_: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i].type == type_:
                o = self.open.pop(i)
                self.add(o.type, o.start, self.length, url=o.url)
                return

    def code(self, text: str, type_: str, language: str | None = None) -> None:
        """Code contains nothing and lies inside no style: open styles pause around it."""
        if self.in_other():
            self.write(text)
            return
        paused = [o for o in self.open if o.type in STYLES]
        for o in paused:
            self.add(o.type, o.start, self.length)
        start = self.length
        self.write(text)
        self.add(type_, start, self.length, language=language or None)
        for o in paused:
            o.start = self.length

    # --- tokens
    def render(self, tokens: Sequence[Token]) -> Formatted:
        for token in tokens:
            self.block(token)
        for o in reversed(self.open):  # markdown-it closes what it opens; this is a safety net
            self.add(o.type, o.start, self.length, url=o.url)
        text = "".join(self.parts).rstrip()
        end = len(text)
        spans = tuple(
            replace(s, end=min(s.end, end)) for s in self.spans if min(s.end, end) > s.start
        )
        return Formatted(text, spans)

    def block(self, t: Token) -> None:
        kind = t.type
        if kind == "heading_open":
            self.newlines(2)
            self.open_span("bold")
        elif kind == "heading_close":
            self.close_span("bold")
        elif kind == "paragraph_open":
            self.newlines(1 if t.hidden else 2)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self.newlines(2 if not self.lists else 1)
            start = int(t.attrGet("start") or 1) if kind == "ordered_list_open" else 1
            self.lists.append(_List(kind == "ordered_list_open", start))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            self.newlines(1)
            current = self.lists[-1] if self.lists else _List(False, 1)
            marker = f"{current.number}." if current.ordered else BULLET
            current.number += 1
            self.write("  " * (len(self.lists) - 1) + marker + " ")
            self.marked = True
        elif kind == "blockquote_open":
            self.newlines(2)
            if self.quote_depth == 0 and not any(o.type == "text_link" for o in self.open):
                self.quote_start = self.length
            self.quote_depth += 1
        elif kind == "blockquote_close":
            self.quote_depth -= 1
            if self.quote_depth == 0 and self.quote_start is not None:
                self.add("blockquote", self.quote_start, len("".join(self.parts).rstrip()))
                self.quote_start = None
        elif kind in ("fence", "code_block"):
            self.newlines(2)
            language = t.info.split()[0] if t.info.strip() else None
            self.code(t.content.rstrip("\n"), "pre", language)
        elif kind == "hr":
            self.newlines(2)
            self.write(RULE)
        elif kind == "html_block":
            self.newlines(2)
            self.write(t.content.rstrip("\n"))
        elif kind == "inline":
            for child in t.children or ():
                self.inline(child)

    def inline(self, t: Token) -> None:
        kind = t.type
        if kind in ("text", "html_inline"):
            self.write(t.content)
        elif kind in ("softbreak", "hardbreak"):
            self.write("\n")
        elif kind == "code_inline":
            self.code(t.content, "code")
        elif kind.endswith("_open") and kind[: -len("_open")] in _INLINE_STYLES:
            self.open_span(_INLINE_STYLES[kind[: -len("_open")]])
        elif kind.endswith("_close") and kind[: -len("_close")] in _INLINE_STYLES:
            self.close_span(_INLINE_STYLES[kind[: -len("_close")]])
        elif kind == "link_open":
            href = str(t.attrGet("href") or "")
            shown = href if (_safe(href) and not self.in_other()) else None
            self.link_href.append(href if _safe(href) else None)
            self.link_start.append(self.length)
            if shown is not None:
                self.open_span("text_link", shown)
        elif kind == "link_close":
            shown = self.link_href.pop() if self.link_href else None
            start = self.link_start.pop() if self.link_start else self.length
            label = "".join(self.parts)[start:]
            entity = shown is not None and any(
                o.type == "text_link" and o.start == start for o in self.open
            )
            if shown is not None and not entity:  # in a quote or a link: the address in words
                if label.strip() != shown:
                    self.write(f" ({shown})" if label.strip() else shown)
            elif shown is not None:
                self.close_span("text_link")
                if label.strip() in ("", shown):  # the address itself: Telegram links it anyway
                    self.spans = [s for s in self.spans if not (s.type == "text_link" and s.start == start)]
                    if not label.strip():
                        self.write(shown)
        elif kind == "image":
            alt = t.content or "image"
            src = str(t.attrGet("src") or "")
            self.write(f"{alt} ({src})" if _safe(src) else alt)


def _safe(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in SAFE_SCHEMES and bool(parts.netloc)
