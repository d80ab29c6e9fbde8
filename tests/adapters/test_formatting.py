"""The model's Markdown as text + spans (adapters/formatting.py), as a table of nasty inputs:
nested, unclosed, code with `<`, links of every kind; and the split that keeps spans valid."""

from __future__ import annotations

import pytest

from adapters.formatting import Formatted, Span, entity_dicts, from_markdown, split, utf16_len
from adapters.textsplit import split_message, split_spans


def shown(f: Formatted) -> list[tuple[str, str]]:
    return [(s.type, f.text[s.start : s.end]) for s in sorted(f.spans, key=lambda s: (s.start, -s.end))]


CASES = [
    ("plain words", "plain words", []),
    ("**bold** and *it*", "bold and it", [("bold", "bold"), ("italic", "it")]),
    ("***both***", "both", [("bold", "both"), ("italic", "both")]),
    ("*a **b** c*", "a b c", [("italic", "a b c"), ("bold", "b")]),
    ("**unclosed bold", "**unclosed bold", []),
    ("*half **open", "*half **open", []),
    ("`a < b && c > d`", "a < b && c > d", [("code", "a < b && c > d")]),
    ("**x `y` z**", "x y z", [("bold", "x "), ("code", "y"), ("bold", " z")]),  # code holds nothing
    ("```\n<b>not html</b>\n```", "<b>not html</b>", [("pre", "<b>not html</b>")]),
    ("<b>raw html</b> & more", "<b>raw html</b> & more", []),
    ("[site](https://example.com)", "site", [("text_link", "site")]),
    ("[https://a.io](https://a.io)", "https://a.io", []),  # Telegram links a bare address itself
    ("[x](javascript:alert(1))", "[x](javascript:alert(1))", []),
    ("[x](ftp://files.example)", "x", []),
    ("[**b** `c`](https://e.io)", "b c", [("text_link", "b c"), ("bold", "b")]),  # no code in a link
    ("> q `c` [l](https://e.io)", "q c l (https://e.io)", [("blockquote", "q c l (https://e.io)")]),
    ("# Title\ntext", "Title\n\ntext", [("bold", "Title")]),
    ("- a\n- b\n  - c", "• a\n• b\n  • c", []),
    ("3. x\n4. y", "3. x\n4. y", []),
    ("~~gone~~", "gone", [("strikethrough", "gone")]),
    ("a\\*b\\*", "a*b*", []),
    ("😀 **ü😀**", "😀 ü😀", [("bold", "ü😀")]),
]


@pytest.mark.parametrize(("source", "text", "spans"), CASES)
def test_markdown_as_text_and_spans(source: str, text: str, spans: list[tuple[str, str]]) -> None:
    f = from_markdown(source)
    assert f.text == text
    assert shown(f) == spans


def test_entities_count_utf16_units() -> None:
    [entity] = entity_dicts(from_markdown("😀 **ü😀**"))
    assert entity == {"type": "bold", "offset": 3, "length": 3}


def test_split_carries_a_span_across_the_cut() -> None:
    f = Formatted("aaaa bbbb cccc", (Span("bold", 2, 12),))
    parts = split(f, 5)
    assert [p.text for p in parts] == ["aaaa", "bbbb", "cccc"]
    assert [shown(p) for p in parts] == [[("bold", "aa")], [("bold", "bbbb")], [("bold", "cc")]]


def test_split_measures_utf16_when_asked() -> None:
    f = Formatted("😀" * 6)
    assert all(utf16_len(p.text) <= 4 for p in split(f, 4, utf16_len))


@pytest.mark.parametrize("text", ["  a b  c. d\n\ne f  ", "x" * 23, "one two three four five six", ""])
@pytest.mark.parametrize("limit", [1, 3, 7, 50])
def test_split_spans_is_split_message(text: str, limit: int) -> None:
    assert [text[s:e] for s, e in split_spans(text, limit)] == split_message(text, limit)


def test_memory_text_beside_the_models_markdown_is_shown_as_written() -> None:
    """render.markdown_literal: a change line quoting memory text goes through the Markdown
    converter unchanged and unformatted, whatever punctuation the memory holds (seeded fuzz)."""
    import random

    from bot.core.render import markdown_literal

    rng = random.Random(20)
    alphabet = "ab *_`[]()<>!~&#-+=.:;|\\\"'{}@$%^/?1“”😀"
    for _ in range(3000):
        line = "✓ Saved: “" + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) + "”"
        shown = from_markdown(markdown_literal(line))
        assert (shown.text, shown.spans) == (line, ()), line
