"""Load LoCoMo-format conversations for the retrieval benchmark.

Why a loader of our own: the benchmark protocol (bench/data/README.md) fixes exactly how a turn
becomes a memory ("<speaker>: <text>" plus " [image: <caption>]"), which date it carries (its
session's, parsed leniently) and how the hand-typed evidence lists are cleaned up ("D8:6; D9:17",
"D30:05", "D12:3-D12:5", trailing dots). Keeping those rules here, as small pure functions with
tests, means the benchmark command and the research harness score exactly the same questions.

Nothing here knows about the bot's database: it yields plain values that callers save through
whatever path they are measuring.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

__all__ = [
    "Conversation",
    "Question",
    "Turn",
    "clean_evidence",
    "hit_at_k",
    "load_locomo",
    "parse_conversations",
    "parse_session_date",
    "recall_at_k",
    "turn_memory_text",
]

SCORED_CATEGORIES = frozenset({1, 2, 3, 4})
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


@dataclass(frozen=True)
class Turn:
    """One dialogue turn, ready to be saved as one memory."""

    dia_id: str  # normalised "D<session>:<turn>"
    session: int
    turn: int
    position: int  # 0-based order of the turn within the whole conversation
    speaker: str
    text: str  # the memory text: "<speaker>: <text>[ [image: <caption>]]"
    created_at: datetime | None  # the session's date; None when it could not be read


@dataclass(frozen=True)
class Question:
    """One benchmark question with its cleaned evidence (dia_ids that name real turns)."""

    question: str
    category: int
    evidence: tuple[str, ...]
    answer: str | None = None


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, ...]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...] = field(default_factory=tuple)
    session_dates: dict[int, datetime | None] = field(default_factory=dict)

    def scored_questions(self) -> list[Question]:
        """Questions of categories 1-4 that still have evidence after the clean-up."""
        return [q for q in self.questions if q.category in SCORED_CATEGORIES and q.evidence]


_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA = re.compile(r"^\s*D\s*(\d+)\s*:\s*(\d+)\s*$")
# One evidence item: D<s>:<t>, optionally a range to [D<s>:]<t>. A stray colon after the D
# ("D:11:26") is tolerated; anything else that is not of this shape is dropped.
_EVIDENCE = re.compile(
    r"D\s*:?\s*(\d+)\s*:\s*(\d+)(?:\s*[-\u2013]\s*(?:D\s*:?\s*(\d+)\s*:\s*)?(\d+))?",
    re.IGNORECASE,
)
_MAX_RANGE = 200  # a guard against a typo such as "D1:1-D1:9999" producing thousands of ids


def turn_memory_text(speaker: str, text: str, blip_caption: str | None = None) -> str:
    """The memory text of a turn, exactly as the protocol says."""
    out = f"{speaker}: {text}"
    if blip_caption:
        out += f" [image: {blip_caption}]"
    return out


def normalise_dia_id(raw: str) -> str | None:
    """'D30:05' -> 'D30:5'; None for anything not of the form D<session>:<turn>."""
    m = _DIA.match(raw or "")
    if not m:
        return None
    return f"D{int(m.group(1))}:{int(m.group(2))}"


def clean_evidence(raw: object, known_ids: Iterable[str] | None = None) -> tuple[str, ...]:
    """Split, normalise and filter one question's evidence list.

    Accepts a list of strings (or a single string). Items may hold several ids separated by
    anything ("D8:6; D9:17", "D9:1 D4:4"), zero-padded numbers ("D30:05"), same-session ranges
    ("D12:3-D12:5" or "D12:3-5") and trailing punctuation. Cross-session ranges are not
    expanded (only their end points are kept). Ids naming no turn in `known_ids` are dropped
    when `known_ids` is given. Order is kept, duplicates removed.
    """
    if raw is None:
        return ()
    items = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, (list, tuple)) else []
    known = set(known_ids) if known_ids is not None else None
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        for m in _EVIDENCE.finditer(item):
            session, start = int(m.group(1)), int(m.group(2))
            end_session = int(m.group(3)) if m.group(3) else session
            end = int(m.group(4)) if m.group(4) else None
            if end is None:
                ids = [f"D{session}:{start}"]
            elif end_session == session and start <= end <= start + _MAX_RANGE:
                ids = [f"D{session}:{t}" for t in range(start, end + 1)]
            else:
                ids = [f"D{session}:{start}", f"D{end_session}:{end}"]
            for dia in ids:
                if (known is None or dia in known) and dia not in out:
                    out.append(dia)
    return tuple(out)


_DATE_FORMATS = (
    "%I:%M %p on %d %B, %Y",
    "%I:%M %p on %d %b, %Y",
    "%I:%M %p on %B %d, %Y",
    "%H:%M on %d %B, %Y",
    "%d %B, %Y",
    "%d %B %Y",
    "%B %d, %Y",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d",
)


def parse_session_date(text: object) -> datetime | None:
    """Read a session date leniently; None when it cannot be read.

    Known shapes are tried first with strptime (fast, and not subject to a parser's guessing);
    anything else goes to dateparser with relative dates switched off, so a string such as
    "yesterday" does not become a date relative to the day the benchmark runs.
    """
    if not isinstance(text, str):
        return None
    cleaned = " ".join(text.replace("\u202f", " ").split()).strip().rstrip(".")
    if not cleaned:
        return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(cleaned).replace(tzinfo=None)
    except ValueError:
        pass
    try:
        import dateparser  # imported lazily: slow to import, rarely needed

        parsed = dateparser.parse(
            cleaned.replace(" on ", " "),
            languages=["en"],
            settings={"PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": False,
                      "PARSERS": ["absolute-time", "custom-formats"]},
        )
    except Exception:  # noqa: BLE001 - a bad date must never stop the benchmark
        return None
    return parsed


def _session_numbers(conv: dict) -> list[int]:
    nums = []
    for key, value in conv.items():
        m = _SESSION_KEY.match(key)
        if m and isinstance(value, list):
            nums.append(int(m.group(1)))
    return sorted(nums)


def parse_conversations(data: Sequence[dict]) -> list[Conversation]:
    """Turn the parsed JSON (a list of samples) into Conversations."""
    out: list[Conversation] = []
    for n, sample in enumerate(data):
        conv = sample.get("conversation") or {}
        speakers = tuple(s for s in (conv.get("speaker_a"), conv.get("speaker_b")) if s)
        turns: list[Turn] = []
        dates: dict[int, datetime | None] = {}
        for session in _session_numbers(conv):
            when = parse_session_date(conv.get(f"session_{session}_date_time"))
            dates[session] = when
            for i, raw in enumerate(conv[f"session_{session}"]):
                if not isinstance(raw, dict):
                    continue
                dia = normalise_dia_id(str(raw.get("dia_id", ""))) or f"D{session}:{i + 1}"
                speaker = str(raw.get("speaker", "")).strip()
                caption = raw.get("blip_caption")
                turns.append(
                    Turn(
                        dia_id=dia,
                        session=session,
                        turn=int(dia.split(":")[1]),
                        position=len(turns),
                        speaker=speaker,
                        text=turn_memory_text(speaker, str(raw.get("text", "")),
                                              caption if isinstance(caption, str) else None),
                        created_at=when,
                    )
                )
        known = {t.dia_id for t in turns}
        questions = []
        for qa in sample.get("qa") or []:
            if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
                continue
            try:
                category = int(qa.get("category", 0))
            except (TypeError, ValueError):
                category = 0
            answer = qa.get("answer")
            questions.append(
                Question(
                    question=qa["question"],
                    category=category,
                    evidence=clean_evidence(qa.get("evidence"), known),
                    answer=None if answer is None else str(answer),
                )
            )
        out.append(
            Conversation(
                sample_id=str(sample.get("sample_id", n)),
                speakers=speakers,
                turns=tuple(turns),
                questions=tuple(questions),
                session_dates=dates,
            )
        )
    return out


def load_locomo(path: str | Path) -> list[Conversation]:
    """Read a LoCoMo-format JSON file."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of conversations")
    return parse_conversations(data)


def recall_at_k(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Share of the evidence ids found among the first k of `ranked`."""
    if not evidence:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for e in set(evidence) if e in top) / len(set(evidence))


def hit_at_k(ranked: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """1.0 when at least one evidence id is among the first k, else 0.0."""
    top = set(ranked[:k])
    return 1.0 if any(e in top for e in evidence) else 0.0
