"""How an answer from memory reads to a person: which recalled memories it shows and how each
line says what state its fact is in. Pure; tested with tables.

Why these rules:
- The answer without a model is rendered from the same recall as the model's context (the
  candidates, scoring, blocks and past-question rule of bot/memory/recall), so the two can never
  disagree about what is current. But a model reads its context and picks; a person reads every
  line. So only memories with evidence of matching are shown: a shared searchable word, a
  cosine to the question of at least MIN_COSINE (or the one memory clearly closest to it), or
  belonging to the topic of such a memory (a value it replaced or that replaced it); and only
  those near the best (relevance >= MIN_RELEVANCE). When the question names a topic, a fact
  saved under another topic needs a cosine, not just a shared word: "how old am I?" is answered
  by "I am 34", and "my old corolla" (a car) shares only the word the question is asked with;
  with no age saved, "Mercedes. E-class. Twenty years old." is no answer either (the walk of the
  seventeenth pass showed the car's years as the person's age). Recall also fills the
  context of a person with few memories with all of them, and lends neighbours a share of a
  match's score; neither is evidence for a person.
- Current facts first. A historical fact appears only where recall let it in (the question is
  about the past), right after the current fact that replaced it, labelled "(before)"; a
  possibly outdated fact says so, right after the newer fact a pending question asks it about
  (the Polo next to "we sold the polo, bikes only now"). The label sits on the fact's own line: people read single
  lines and copy them, so a heading above the lines is not enough.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from bot.core import render
from bot.memory import RecalledMemory

# Calibrated on MiniLM (the default embedding model) with everyday questions against one
# person's facts (tests/features/chat/test_answer_lines.py keeps the figures): a fact that answers
# the question measures 0.42-0.68 ("what do I drive?" / "I drive a Tesla" 0.63, "do I have pets?"
# / "I have a cat called Pixel" 0.47), unrelated facts 0.10-0.35, with a few answers as low as
# 0.32 ("who am I dating?" / "My partner is called Sam") that stand clear of the rest.
MIN_COSINE = 0.40
MIN_COSINE_CLEAR = 0.30  # the closest memory counts from here when it leads the next one by ...
CLEAR_LEAD = 0.07  # ... this much
MIN_RELEVANCE = 0.5  # of the best candidate's
MAX_LINES = 6

BEFORE = " (before)"
OUTDATED = " (possibly outdated)"


def status_label(status: str) -> str:
    """What a line showing a fact of this status carries after it, so a copied line says it too."""
    return BEFORE if status == "historical" else OUTDATED if status == "unsure" else ""


def matches(item: RecalledMemory, clear_winner: int | None = None) -> bool:
    """Evidence that a memory answers the question, not just that recall ranked it: a shared
    searchable word, a high cosine, or being the one memory clearly closest to the question."""
    if item.keyword > 0.0:
        return True
    if item.cosine is None:
        return False
    return item.cosine >= MIN_COSINE or item.id == clear_winner


def _clear_winner(items: Sequence[RecalledMemory]) -> int | None:
    by_cosine = sorted((i for i in items if i.cosine is not None), key=lambda i: -(i.cosine or 0.0))
    if not by_cosine or (by_cosine[0].cosine or 0.0) < MIN_COSINE_CLEAR:
        return None
    runner_up = by_cosine[1].cosine or 0.0 if len(by_cosine) > 1 else 0.0
    return by_cosine[0].id if (by_cosine[0].cosine or 0.0) - runner_up >= CLEAR_LEAD else None


def shown(items: Sequence[RecalledMemory]) -> list[RecalledMemory]:
    """The recalled memories an answer shows, in recall's order (best first)."""
    winner = _clear_winner(items)
    return [
        i for i in items
        if i.relevance >= MIN_RELEVANCE
        and (matches(i, winner) if i.topic != "other" else matches(_by_cosine(i), winner))
    ][:MAX_LINES]


def _by_cosine(item: RecalledMemory) -> RecalledMemory:
    """The item with its shared words left out of the evidence."""
    return dataclasses.replace(item, keyword=0.0)


def line(item: RecalledMemory) -> str:
    label = status_label(item.status)
    return f"• {item.text}{render.dates_note(item)}{label}"


def answer_lines(items: Sequence[RecalledMemory]) -> list[str]:
    """The lines of the answer: each current fact followed by the shown facts it replaced or that
    a pending question asks it about (possibly outdated), then the other possibly outdated ones,
    then the historical ones whose successor is not shown."""
    chosen = shown(items)
    current = [i for i in chosen if i.status == "current"]
    placed: set[int] = set()
    out: list[str] = []
    for cur in current:
        out.append(line(cur))
        placed.add(cur.id)
        for old in sorted(chosen, key=lambda i: -i.id):  # the most recent past first
            if old.status in ("historical", "unsure") and old.replaced_by == cur.id:
                out.append(line(old))
                placed.add(old.id)
    for status in ("unsure", "historical"):
        for item in chosen:
            if item.status == status and item.id not in placed:
                out.append(line(item))
                placed.add(item.id)
    return out
