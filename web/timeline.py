"""The timeline picture: the single-value topics of a life (where you lived, your jobs, cars,
relationships) over time, as inline SVG built from valid_from / valid_until and the replaced_by
chains. Pure: topics in, an SVG string out, so its geometry has tests without a browser.

Why inline SVG written here rather than a charting library: nothing may load from the internet,
the page must work without JavaScript, and the picture is a few rectangles and labels. Every
text is escaped (a memory's words are the labels).

Where a span starts: the date the person said (valid_from), else when it was noted. Where it
ends: the date said (valid_until), else where the value that replaced it starts, else "now" for
a current one, else when it was marked past.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from html import escape

TOPIC_NAMES = {
    "residence": "Where you live",
    "job": "Work",
    "car": "Car",
    "relationship": "Relationship",
    "diet": "Diet",
    "home_type": "Home",
    "address": "Address",
    "phone": "Phone",
    "email": "Email",
    "work_phone": "Work phone",
    "work_email": "Work email",
    "age": "Age",
    "weight": "Weight",
    "hair": "Hair",
    "eyes": "Eyes",
    "height": "Height",
    "origin": "From",
    "gender": "Gender",
    "name": "Name",
}

WIDTH = 720
LABEL_W = 130
ROW_H = 34
BAR_H = 20
TOP = 28


@dataclass(frozen=True)
class Span:
    uid: str
    text: str
    start: date
    end: date
    current: bool


@dataclass(frozen=True)
class Topic:
    slot: str
    name: str
    spans: tuple[Span, ...]


def topic_name(slot: str) -> str:
    if slot in TOPIC_NAMES:
        return TOPIC_NAMES[slot]
    if slot.startswith("favorite_"):
        return "Favourite " + slot.removeprefix("favorite_").replace("_", " ")
    return slot.replace("_", " ").capitalize()


def spans_of(memories: list[dict], today: date) -> list[Topic]:
    """Memories (the door's JSON, with `slot`) grouped into topics of spans, oldest first."""
    by_uid = {m["id"]: m for m in memories}

    def start(m: dict) -> date:
        return _day(m["valid_from"]) or _day(m["created_at"]) or today

    topics: dict[str, list[Span]] = {}
    for m in memories:
        if not m.get("slot") or m.get("archived") or m.get("deleted"):
            continue
        s = start(m)
        nxt = by_uid.get(m["replaced_by"]) if m.get("replaced_by") else None
        if m["status"] == "current" or m["status"] == "unsure":
            end = _day(m["valid_until"]) or today
        else:
            end = _day(m["valid_until"]) or (start(nxt) if nxt else None) or _day(m["updated_at"]) or today
        end = max(end, s)
        topics.setdefault(m["slot"], []).append(Span(m["id"], m["text"], s, end, m["status"] == "current"))
    out = [Topic(slot, topic_name(slot), tuple(sorted(spans, key=lambda x: (x.start, x.end))))
           for slot, spans in topics.items()]
    return sorted(out, key=lambda t: (-len(t.spans), t.name))


def timeline_svg(topics: list[Topic], today: date | None = None) -> str:
    """One row per topic, one bar per value; the current value filled, past ones outlined."""
    if not topics:
        return ""
    first = min(s.start for t in topics for s in t.spans)
    last = max(max(s.end for t in topics for s in t.spans), today or first)
    days = max((last - first).days, 1)
    plot = WIDTH - LABEL_W - 10

    def x(d: date) -> float:
        return LABEL_W + plot * (d - first).days / days

    height = TOP + ROW_H * len(topics) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" class="timeline" '
        f'aria-labelledby="timeline-title"><title id="timeline-title">What changed over time, '
        f'{first.year} to {last.year}</title>'
    ]
    for year in range(first.year, last.year + 1):
        d = date(year, 1, 1)
        if first <= d <= last:
            parts.append(f'<line x1="{x(d):.1f}" y1="{TOP - 8}" x2="{x(d):.1f}" y2="{height - 6}" class="tick"/>'
                         f'<text x="{x(d) + 2:.1f}" y="{TOP - 12}" class="year">{year}</text>')
    for row, topic in enumerate(topics):
        y = TOP + row * ROW_H
        parts.append(f'<text x="4" y="{y + BAR_H - 5}" class="topic">{escape(topic.name)}</text>')
        for span in topic.spans:
            left, right = x(span.start), max(x(span.end), x(span.start) + 4)
            cls = "bar now" if span.current else "bar past"
            label = escape(span.text if len(span.text) <= 60 else span.text[:59] + "…")
            period = f"{span.start.isoformat()} – {'now' if span.current else span.end.isoformat()}"
            parts.append(
                f'<g><title>{label} ({period})</title>'
                f'<rect x="{left:.1f}" y="{y}" width="{right - left:.1f}" height="{BAR_H}" rx="4" class="{cls}"/>'
                f'<text x="{left + 4:.1f}" y="{y + BAR_H - 6}" class="label">{escape(_fit(span.text, right - left))}'
                f'</text></g>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _fit(text: str, width: float) -> str:
    room = int(width // 7)
    if room < 4:
        return ""
    return text if len(text) <= room else text[: room - 1] + "…"


def _day(value: str | None) -> date | None:
    if not value:
        return None
    return date.fromisoformat(value[:10])
