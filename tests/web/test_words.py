"""How the memory page says things (web/words.py) and draws the timeline (web/timeline.py):
tables of cases for the pure rules."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from web import words
from web.timeline import spans_of, timeline_svg, topic_name

NOTED = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("valid_from", "valid_until", "status", "expected"), [
    (date(2025, 3, 1), None, "current", "since March 2025"),
    (date(2025, 3, 1), None, "historical", "from March 2025"),
    (date(2019, 1, 1), date(2024, 3, 1), "historical", "January 2019 – March 2024"),
    (None, date(2024, 3, 1), "historical", "until March 2024"),
    (None, None, "current", "noted 1 December 2026"),
])
def test_dates_line(valid_from: date | None, valid_until: date | None, status: str, expected: str) -> None:
    assert words.dates_line(valid_from, valid_until, NOTED, status) == expected


@pytest.mark.parametrize(("source", "expected"), [
    ("command", "typed with remember:"),
    ("chat", "noted from a conversation"),
    ("tool", "noted from a conversation"),
    ("import", "imported from a backup"),
    ("web", "added on this page"),
    ("api", "saved by a program (API)"),
    ("mcp", "saved by an AI app (MCP)"),
    ("something new", "saved"),
])
def test_source_words(source: str, expected: str) -> None:
    assert words.source_words(source) == expected


@pytest.mark.parametrize(("choice", "recommended", "label"), [
    ("keep_both", "mark_older_past", "Keep both"),
    ("mark_older_past", "mark_older_past", "Mark older as past (recommended)"),
    ("replace_older", None, "Replace older (deletes it)"),
    ("discard_newer", "keep_both", "Discard newer"),
    ("keep_both", "keep_both", "Keep both (recommended)"),
])
def test_choice_labels_are_the_chats(choice: str, recommended: str | None, label: str) -> None:
    assert words.choice_label(choice, recommended) == label


@pytest.mark.parametrize(("choice", "olds", "expected"), [
    ("keep_both", ["I live in London"], "Both are true: “I moved to Paris” and “I live in London” stay current."),
    ("mark_older_past", ["I live in London"],
     "“I moved to Paris” is current; “I live in London” was true before: it stays in your history as past."),
    ("mark_older_past", ["A", "B"], "“I moved to Paris” is current; “A” and “B” were true before: they stay in your history as past."),
    ("replace_older", ["I live in London"],
     "“I moved to Paris” is current and “I live in London” is deleted (undo is possible for a short while)."),
    ("discard_newer", [], "“I moved to Paris” was a mistake: it is dropped and the older fact stays current."),
])
def test_what_each_answer_does(choice: str, olds: list[str], expected: str) -> None:
    assert words.choice_explained(choice, "I moved to Paris", olds) == expected


@pytest.mark.parametrize(("slot", "name"), [
    ("residence", "Where you live"), ("job", "Work"), ("favorite_color", "Favourite color"), ("shoe_size", "Shoe size"),
])
def test_topic_names(slot: str, name: str) -> None:
    assert topic_name(slot) == name


def m(uid: str, text: str, slot: str | None, status: str, created: str, *, valid_from: str | None = None,
      valid_until: str | None = None, replaced_by: str | None = None, updated: str | None = None) -> dict:
    return {"id": uid, "text": text, "slot": slot, "status": status, "created_at": created, "updated_at": updated or created,
            "valid_from": valid_from, "valid_until": valid_until, "replaced_by": replaced_by, "archived": False,
            "deleted": False}


TODAY = date(2026, 12, 1)


def test_a_replaced_value_ends_where_its_successor_starts() -> None:
    topics = spans_of([
        m("a", "I live in Berlin", "residence", "historical", "2026-01-05T00:00:00+00:00", valid_from="2019-01-01",
          replaced_by="b", updated="2026-06-01T00:00:00+00:00"),
        m("b", "I moved to Lisbon", "residence", "current", "2026-06-01T00:00:00+00:00", valid_from="2024-03-01"),
        m("c", "I like tea", None, "current", "2026-06-01T00:00:00+00:00"),
    ], TODAY)
    [home] = topics
    assert home.name == "Where you live"
    assert [(s.uid, s.start, s.end, s.current) for s in home.spans] == [
        ("a", date(2019, 1, 1), date(2024, 3, 1), False), ("b", date(2024, 3, 1), TODAY, True)]


def test_without_dates_spans_run_from_noting_to_marking_past() -> None:
    [car] = spans_of([m("x", "I drive a Fiat", "car", "historical", "2026-02-01T00:00:00+00:00",
                        updated="2026-05-01T00:00:00+00:00")], TODAY)
    assert (car.spans[0].start, car.spans[0].end) == (date(2026, 2, 1), date(2026, 5, 1))


def test_the_svg_escapes_words_and_marks_now_and_past() -> None:
    topics = spans_of([
        m("a", "I work at <b>Acme</b> & Co", "job", "historical", "2020-01-01T00:00:00+00:00", replaced_by="b"),
        m("b", "I work as a chef", "job", "current", "2023-01-01T00:00:00+00:00"),
    ], TODAY)
    svg = timeline_svg(topics, TODAY)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<b>" not in svg and "&lt;b&gt;Acme&lt;/b&gt; &amp; Co" in svg
    assert svg.count('class="bar past"') == 1 and svg.count('class="bar now"') == 1
    assert all(f">{y}</text>" in svg for y in (2021, 2022, 2023, 2024, 2025, 2026))
    assert timeline_svg([], TODAY) == ""


@pytest.mark.parametrize(("kind", "actor", "expected"), [
    ("created", "person", "Saved (by you)"),
    ("edited", "person", "Corrected (by you)"),
    ("marked_past", "assistant", "Marked as past (by the assistant)"),
    ("merged", "curator", "Merged (by the tidy-up)"),
    ("created", "import", "Saved (from a backup)"),
    ("replaced_older", "person", "Replaced an older fact (by you)"),
    ("something_new", "", "Something new"),
])
def test_history_lines(kind: str, actor: str, expected: str) -> None:
    assert words.event_words(kind, actor) == expected


def test_notes_name_memories_by_their_words() -> None:
    a, b = "a" * 32, "b" * 32
    assert words.note_words(f"replaced by {a}", {a: "I moved to Paris"}) == "replaced by “I moved to Paris”"
    assert words.note_words(f"merged into {b}", {}) == "merged into another memory"
    assert words.note_words("question voided", {a: "x"}) == "question voided"


@pytest.mark.parametrize(("seconds", "expected"), [(30, "30 seconds"), (600, "10 minutes"), (7200, "2 hours")])
def test_undo_window(seconds: int, expected: str) -> None:
    assert words.undo_window(seconds) == expected
