"""Whether a message tells something lasting about the person, as the memory's rules read it.

Why: without a model the chat offers to save what a person states about themselves
(bot/features/chat/fallback.py). Its first gate (bot.llm.extract.stated_facts) knows the
first-person patterns of the extraction pre-check; chat often drops the subject and verb, or
talks of a pet or a drink without "I" ("turned 35 yesterday 🎂", "our yellow lab Rosie is scared
of the hoover", "sinlge. too busy for dates"), which the rules that compare facts already read:
a single-value topic's value about the speaker's own present (slots), or what one has, likes or
does (frames). One understanding for saving and comparing. Pure: text in, a verdict out.
"""

from __future__ import annotations

from bot.memory.rules.conflict import other_topics, own_present
from bot.memory.rules.frames import frame, is_own_thing
from bot.memory.rules.slots import find_slots
from bot.memory.rules.text import normalise, strip_lead_in

__all__ = ["also_says", "strip_lead_in", "tells_about_self"]


def tells_about_self(text: str) -> bool:
    """Whether the rules read `text` as a lasting fact about the speaker: a topic's value (not a
    mere mention: "my wife likes hiking" names a partner but says no status), or a pet, relative,
    drink or pastime of their own. A question never is."""
    norm = normalise(text)
    if not norm or text.rstrip().endswith(("?", "？")):
        return False
    if any(not m.hint and m.value is not None and own_present(text, m.slot) for m in find_slots(text)):
        return True
    return is_own_thing(frame(text))


# what a topic is about, as the question about a compound fact names it
_TOPIC_WORDS = {
    "residence": "where you live", "job": "your work", "relationship": "your relationship",
    "car": "your car", "age": "your age", "diet": "what you eat", "name": "your name",
    "phone": "your phone number", "email": "your email", "address": "your address",
}


def also_says(old_text: str, new_text: str) -> list[str]:
    """What an older fact says besides the topics of the new one, in words for the person
    ("I'm 34 and I live in Leeds" after "turned 35": ["where you live"]): the question about a
    compound fact says why it recommends nothing (conflict.other_topics, as assess reads it)."""
    new = {m.slot for m in find_slots(new_text) if not m.hint}
    return [_TOPIC_WORDS[slot] for slot in other_topics(old_text, new) if slot in _TOPIC_WORDS]
