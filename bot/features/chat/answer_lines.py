"""How an answer from memory reads to a person: which recalled memories it shows and how each
line says what state its fact is in. Pure; tested with tables.

Why these rules:
- The answer without a model is rendered from the same recall as the model's context (the
  candidates, scoring, blocks and past-question rule of bot/memory/recall), so the two can never
  disagree about what is current. But a model reads its context and picks; a person reads every
  line. So only memories with evidence of matching are shown: a shared searchable word, or a
  cosine to the question of at least MIN_COSINE, or being the current value that replaced such
  a memory; and only those near the best (relevance >= MIN_RELEVANCE). Recall also fills the
  context of a person with few memories with all of them, and lends neighbours a share of a
  match's score; neither is evidence for a person.
- Current facts first. A historical fact appears only where recall let it in (the question is
  about the past), right after the current fact that replaced it, labelled "(before)"; a
  possibly outdated fact says so. The label sits on the fact's own line: people read single
  lines and copy them, so a heading above the lines is not enough.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import render
from bot.memory import RecalledMemory

# MiniLM (the default embedding model): questions and the facts that answer them ("do I have
# pets?" / "I have a dog called Rex") measure 0.35-0.6; unrelated facts of the same person
# 0.0-0.25 (tests/features/chat/test_answer_lines.py keeps examples of both).
MIN_COSINE = 0.33
MIN_RELEVANCE = 0.3
MAX_LINES = 6

BEFORE = " (before)"
OUTDATED = " (possibly outdated)"


def matches(item: RecalledMemory) -> bool:
    """Evidence that a memory answers the question, not just that recall ranked it."""
    return item.keyword > 0.0 or (item.cosine is not None and item.cosine >= MIN_COSINE)


def shown(items: Sequence[RecalledMemory]) -> list[RecalledMemory]:
    """The recalled memories an answer shows, in recall's order (best first)."""
    return [i for i in items if matches(i) and i.relevance >= MIN_RELEVANCE][:MAX_LINES]


def line(item: RecalledMemory) -> str:
    label = BEFORE if item.status == "historical" else OUTDATED if item.status == "unsure" else ""
    return f"• {item.text}{render.dates_note(item)}{label}"


def answer_lines(items: Sequence[RecalledMemory]) -> list[str]:
    """The lines of the answer: each current fact followed by the shown facts it replaced, then
    the possibly outdated ones, then the historical ones whose successor is not shown."""
    chosen = shown(items)
    current = [i for i in chosen if i.status == "current"]
    placed: set[int] = set()
    out: list[str] = []
    for cur in current:
        out.append(line(cur))
        placed.add(cur.id)
        for old in sorted(chosen, key=lambda i: -i.id):  # the most recent past first
            if old.status == "historical" and old.replaced_by == cur.id:
                out.append(line(old))
                placed.add(old.id)
    for status in ("unsure", "historical"):
        for item in chosen:
            if item.status == status and item.id not in placed:
                out.append(line(item))
                placed.add(item.id)
    return out
