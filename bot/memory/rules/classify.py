"""Category and importance of a new memory, guessed from its wording.

Why guess at all: recall weighs importance (15%) and lets identity facts win identity
questions, and the curator's expiry only touches memories of very low importance. A wrong
guess costs little (the person can edit; nothing is dropped because of it), so simple
patterns are enough, and they stay a pure, table-tested function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Classification:
    category: str
    importance: float


# (category, importance, patterns) — first match wins, so the most specific come first.
_RULES: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    (
        "identity",
        0.9,
        (
            r"\bmy name is\b",
            r"\bcall me\b",
            r"\bi(?: am|'m) \d{1,3}(?: years old)?\b",
            r"\bi was born\b",
            r"\bmy birthday\b",
            r"\bi(?: am|'m) from\b",
            r"\bmy pronouns\b",
            r"\bmy (?:first|last|middle|full) name\b",
        ),
    ),
    (
        "contact",
        0.7,
        (
            r"\b(?:phone|mobile|cell)(?: number)?\b",
            r"[\w.+-]+@[\w-]+\.[\w.]+",
            r"\bemail\b",
            r"\baddress is\b",
        ),
    ),
    (
        "goal",
        0.7,
        (
            r"\bmy goal\b",
            r"\bi (?:want|plan|hope|intend|aim) to\b",
            r"\bi(?: am|'m) (?:trying|planning|saving up) to\b",
            r"\bi(?: would|'d) like to\b",
        ),
    ),
    (
        "project",
        0.6,
        (
            r"\b(?:my|our) (?:project|startup|side project|thesis|book|app)\b",
            r"\bi(?: am|'m) (?:building|writing|working on|developing)\b",
        ),
    ),
    (
        "preference",
        0.6,
        (
            r"\bi (?:really )?(?:like|love|enjoy|prefer|hate|dislike|adore|can't stand)\b",
            r"\bmy fav(?:ou?rite)?\b",
            r"\bi(?: am|'m) (?:a )?(?:vegan|vegetarian|pescatarian|allergic)\b",
            r"\bi don't (?:like|eat|drink)\b",
            r"\bplease (?:always|never)\b",
        ),
    ),
    (
        "relationship",
        0.7,
        (
            r"\bmy (?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|son|daughter|mother|"
            r"father|mom|mum|dad|brother|sister|kids?|children|friend|boss|colleague)\b",
            r"\bi(?: am|'m) (?:married|single|divorced|engaged|widowed)\b",
            r"\bi have \w+ (?:kids|children|sons|daughters|brothers|sisters)\b",
        ),
    ),
    (
        "work",
        0.7,
        (
            r"\bi work\b",
            r"\bmy (?:job|employer|company|manager|team)\b",
            r"\bi(?: am|'m) (?:a|an) \w+(?:er|or|ist|ian|ant|ent)\b",
            r"\bi(?: am|'m) retired\b",
        ),
    ),
    (
        "home",
        0.7,
        (r"\bi live\b", r"\bi moved\b", r"\bmy (?:home|flat|apartment|house)\b"),
    ),
)

_COMPILED = tuple((cat, imp, tuple(re.compile(p, re.I) for p in pats)) for cat, imp, pats in _RULES)


def classify(text: str) -> Classification:
    """Guess the category and a default importance of a fact in the person's words."""
    for category, importance, patterns in _COMPILED:
        if any(p.search(text) for p in patterns):
            return Classification(category, importance)
    return Classification("fact", 0.5)
