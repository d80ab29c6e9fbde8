"""What kind of question is this? Pure functions over the message text.

Why: recall must show historical memories only when the person asks about the past ("what did
I drive before?"), must put identity facts first for identity questions ("what's my name?"),
and can favour memories saved in a period the question names ("what did I say on 3 June?").
These are cheap pattern checks, tested with tables; a false "past" only adds a clearly
labelled "historical, not current" block, so the past cues lean towards recall.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from datetime import datetime

from bot.memory.rules.slots import favorite_category
from bot.when.vocabulary import MONTH_NUMBERS

__all__ = ["is_identity_question", "is_past_question", "question_period", "question_slots"]


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "")[:4000].casefold()
    return text.replace("\u2019", "'").replace("\u2018", "'")


_PAST_PATTERNS = [
    r"\bbefore\s*(?:[?.!,;:]|$)",  # "what did I drive before?"
    r"\bbefore\s+(?:that|this|then|now|the\s+\w+\s+(?:one|car|job|house|place)|\w+ing)\b",
    r"\bbefore\s+i\s+\w+ed\b",  # "before I moved"
    r"\bpreviously\b", r"\bprevious\b", r"\bformerly\b", r"\bformer\b",
    r"\bused\s+to\b", r"\buse\s+to\b",
    r"\bdid\s+i\b", r"\bhad\s+i\b", r"\bwas\s+i\b", r"\bwere\s+(?:i|my)\b",
    r"\bwhat\s+(?:was|were)\s+my\b", r"\bwho\s+(?:was|were)\s+my\b",
    r"\bwhere\s+(?:was|were)\s+my\b", r"\bwhich\s+\w+\s+(?:was|were)\s+my\b",
    r"\bmy\s+(?:old|ex|previous|former|first)\b", r"\bmy\s+ex-",
    r"\banymore\b", r"\bany\s+more\b", r"\bno\s+longer\b", r"\bnot\s+any\s+longer\b",
    r"\bback\s+(?:when|then|in)\b", r"\bin\s+the\s+past\b", r"\bin\s+those\s+days\b",
    r"\bearlier\b", r"\blast\s+time\b", r"\boriginally\b", r"\bat\s+first\b",
    r"\bhistory\s+of\b", r"\bhistorical\b",
    r"\bhow\s+long\s+ago\b", r"\b\d+\s+(?:days?|weeks?|months?|years?)\s+ago\b", r"\bago\b",
    r"\blast\s+(?:year|month|week|summer|winter|spring|fall|autumn|weekend)\b",
    r"\bprior\s+to\b", r"\bonce\s+(?:had|lived|worked|owned|drove)\b",
    r"\bchanged?\s+(?:from|my)\b", r"\bswitched\s+from\b",
    r"\bi\s+(?:had|lived|worked|owned|drove|studied)\b",
]
_PAST = re.compile("|".join(f"(?:{p})" for p in _PAST_PATTERNS))

# "before" about the future ("remind me before the meeting") is not a past cue.
_FUTURE = re.compile(r"\b(?:remind|will|gonna|going\s+to|tomorrow|next\s+\w+|schedule)\b")


def is_past_question(text: str) -> bool:
    """True when the message asks about how things were, not how they are.

    "what did I drive before?", "where did I use to live?", "my old job", "do I still smoke,
    or not anymore?". A message about the future ("remind me before the meeting tomorrow")
    is not one, even though it says "before".
    """
    t = _norm(text)
    if not t.strip():
        return False
    for m in _PAST.finditer(t):
        word = m.group(0)
        if word.startswith("before") and _FUTURE.search(t):
            continue
        return True
    return False


_IDENTITY_PATTERNS = [
    r"\bwhat(?:'s|\s+is|\s+was)\s+my\s+(?:(?:full|first|last|middle|real|legal|nick)\s*)?name\b",
    r"\bmy\s+(?:(?:full|first|last|middle|real|legal|nick)\s*)?name\b.*\?",
    r"\bdo\s+you\s+(?:know|remember)\s+(?:my\s+name|who\s+i\s+am|me)\b",
    r"\bwhat\s+(?:do|should)\s+you\s+call\s+me\b", r"\bwhat\s+am\s+i\s+called\b",
    r"\bwho\s+am\s+i\b", r"\bwho\s+i\s+am\b",
    r"\bhow\s+old\s+am\s+i\b", r"\bwhat(?:'s|\s+is)\s+my\s+age\b", r"\bmy\s+age\b",
    r"\bwhen(?:'s|\s+is|\s+was)\s+my\s+birthday\b", r"\bmy\s+(?:birthday|date\s+of\s+birth)\b",
    r"\bwhen\s+was\s+i\s+born\b", r"\bwhere\s+was\s+i\s+born\b",
    r"\bwhere\s+am\s+i\s+from\b", r"\bwhere\s+do\s+i\s+come\s+from\b",
    r"\bmy\s+(?:nationality|pronouns|gender|hometown|home\s+town)\b",
    r"\bwhat\s+(?:are\s+)?my\s+pronouns\b",
    r"\b(?:tell|remind)\s+me\s+(?:about\s+)?(?:who\s+i\s+am|about\s+myself)\b",
    r"\bwhat\s+do\s+you\s+know\s+about\s+me\b",
]
_IDENTITY = re.compile("|".join(f"(?:{p})" for p in _IDENTITY_PATTERNS))


def is_identity_question(text: str) -> bool:
    """True for questions about who the person is: name, age, birthday, origin, pronouns."""
    return bool(_IDENTITY.search(_norm(text)))


# The words of a question about one of the person's single-value topics
# (bot/memory/rules/slots.py: the topic each fact is saved with, `Memory.slot`). Why: a question
# names the topic ("what do I do for work?") while the fact names the value ("I'm a nurse now");
# without vectors, or with a cosine under the answer's threshold, nothing links the two. The
# slot is known at save time, so a question about work reaches every fact whose topic is the job,
# whatever its words. General English topic words, not a question list; "for a living" is the
# job, "living in / with" is the home; "what do I do?" with nothing after it but a time word is
# the job too, as "what do you do?" is ("what did I do yesterday?" asks what happened).
_SLOT_WORDS: tuple[tuple[str, str], ...] = (
    ("job", r"\b(?:work(?:s|ing)?|jobs?|for\s+a\s+living|employ(?:er|ers|ed|ment)|career|profession|"
            r"occupation|boss|company)\b|"
            r"\bwhat\s+(?:do|did)\s+i\s+do(?:\s+(?:now|nowadays|these\s+days|before|previously|then))?"
            r"\s*[?.!]*\s*$"),
    ("age", r"\bhow\s+old\s+(?:am\s+i|i\s+am|was\s+i|i\s+was)\b|\bmy\s+age\b|\bwhat\s+age\s+(?:am|was)\s+i\b|"
            r"^\W*age\W*$"),
    ("residence", r"\b(?:live|lives|living\s+(?:in|at|with|situation)|home|city|town|based|reside|"
                  r"moved?|neighbou?rhood|where\s+am\s+i(?!\s+from))\b"),
    ("car", r"\b(?:cars?|drive|driving|vehicles?|driveway|parked)\b"),
    ("relationship", r"\b(?:partner|boyfriend|girlfriend|husband|wife|spouse|fianc[eé]e?|dating|married|"
                     r"single|seeing\s+(?:anyone|someone|somebody)|relationship|together\s+with)\b"),
    ("diet", r"\b(?:eat|eating|diet|vegetarian|vegan|meat)\b"),
    ("phone", r"\b(?:phone\s+number|mobile\s+number|call\s+me)\b"),
    ("email", r"\b(?:e-?mail(?:\s+address)?|write\s+to\s+me)\b"),
)
_SLOT_QUESTIONS = tuple((slot, re.compile(pattern)) for slot, pattern in _SLOT_WORDS)

# A topic word misspelt in a quick message ("whats my emial", "phone numbr", "where do i wrok")
# names its topic all the same. Only slips that make no other common word: two neighbours
# swapped, in any of these words (not "meat": "meta"), and one letter dropped, in the longer
# ones listed second ("mail" is "email" too).
_SWAPPABLE = (
    "job", "jobs", "work", "working", "employer", "career", "profession", "occupation", "live", "living", "home",
    "city", "town", "moved", "car", "drive", "vehicle", "partner", "boyfriend", "girlfriend", "husband", "wife",
    "married", "single", "dating", "diet", "vegetarian", "vegan", "phone", "number", "mobile", "email", "address",
    "old", "age",
)
_DROPPABLE = (
    "number", "email", "phone", "mobile", "address", "partner", "married", "employer", "boyfriend", "girlfriend",
    "husband", "vehicle", "vegetarian", "occupation", "profession",
)
_NOT_SLIPS = ("emil", "hone", "pone", "umber", "marred")  # words (and a name) of their own


def _slips() -> dict[str, str]:
    out: dict[str, str] = {}
    for word in _SWAPPABLE:
        for i in range(len(word) - 1):
            slip = word[:i] + word[i + 1] + word[i] + word[i + 2:]
            if slip != word:
                out.setdefault(slip, word)
    for word in _DROPPABLE:
        for i in range(len(word)):
            out.setdefault(word[:i] + word[i + 1:], word)
    for word in (*_SWAPPABLE, *_NOT_SLIPS):  # a word of its own is never read as a slip
        out.pop(word, None)
    return out


_SLIPS = _slips()
_WORD = re.compile(r"[a-z]+")


def _unslipped(text: str) -> str:
    return _WORD.sub(lambda m: _SLIPS.get(m.group(0), m.group(0)), text)


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|me|my|mine|myself|am\s+i)\b")
_OTHER_PERSON = re.compile(r"\b(?:he|she|his|her|hers|him|they|their|them|does|do\s+(?:you|we))\b")
_NAME = re.compile(r"(?<=\w)\W+[A-Z]\w*")  # a capitalised word after the first: a name


def question_slots(text: str) -> frozenset[str]:
    """The single-value topics a question about the person asks about: {"job"} for "what do I
    do for a living?", {"residence"} for "where's home for me?". Only questions about the
    person themselves (a first-person word, or none about anybody else: in a chat with the
    bot, "where's home?" asks about the one asking): the slots are saved from first-person
    facts, and "where does Anna work?" is about someone else."""
    t = _norm(text)
    if not _FIRST_PERSON.search(t) and (_OTHER_PERSON.search(t) or _NAME.search(text or "")):
        return frozenset()  # "where's home?" is the person's; "where does Anna work?" is not
    t = _unslipped(t)
    found = {slot for slot, rx in _SLOT_QUESTIONS if rx.search(t)}
    return frozenset(found | _favourites_asked(t))


# "who is my favourite singer?", "what's my fave film?" (a category as the rules store it:
# slots.favorite_category); "what team do I support?", "who do I support?"
_FAVOURITE_ASKED = re.compile(r"\b(?:favou?rite|fave?|fav)\s+([a-z]+(?:\s+[a-z]+){0,2})")
_TEAM_ASKED = re.compile(r"\b(?:what|which)\s+(?:football\s+|soccer\s+)?(?:team|club)\b|"
                         r"\bwho\s+(?:do|did)\s+i\s+support\b")
# the category ends before the rest of the question; "favourite thing to eat" keeps its "to"
_CATEGORY_END = re.compile(r"\s+(?:of\s+all|ever|again|now|is|was|are|do|did|at|in|on|for|right)\b.*$")
_NOT_LAST = frozenset({"of", "to"})  # "favourite kind of", "favourite thing to": no category yet


def _favourites_asked(t: str) -> set[str]:
    out = {"favorite_team"} if _TEAM_ASKED.search(t) else set()
    for m in _FAVOURITE_ASKED.finditer(t):
        words = _CATEGORY_END.sub("", m.group(1)).split()
        for n in range(len(words), 0, -1):  # "favourite singer of all time": "singer"
            if words[n - 1] in _NOT_LAST:
                continue
            category = favorite_category(" ".join(words[:n]))
            if category is not None:
                out.add(f"favorite_{category}")
                break
    return out


_MONTHS = MONTH_NUMBERS
_MON = "(" + "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_RX_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MON},?\s+{_YEAR}\b")
_RX_MONTH_DAY_YEAR = re.compile(rf"\b{_MON}\s+{_DAY},?\s+{_YEAR}\b")
_RX_ISO = re.compile(r"\b((?:19|20)\d\d)-(\d{1,2})-(\d{1,2})\b")
_RX_MONTH_YEAR = re.compile(rf"\b{_MON},?\s+{_YEAR}\b")
_RX_YEAR = re.compile(rf"\b(?:in|during|of|since|from|throughout)\s+{_YEAR}\b")


def _day(year: int, month: int, day: int) -> tuple[datetime, datetime] | None:
    try:
        start = datetime(year, month, day)
    except ValueError:
        return None
    end = datetime.fromordinal(start.toordinal() + 1)
    return start, end


def question_period(text: str) -> tuple[datetime, datetime] | None:
    """The absolute period a message names, as a half-open [start, end) of naive datetimes.

    A day ("on 3 June, 2023", "June 3rd 2023", "2023-06-03"), a month ("in August 2023") or a
    year ("in 2022"). Relative phrases ("last week") are left alone: they are relative to when
    the person speaks, and the caller, not this rule, knows that time. The first date wins.
    """
    t = _norm(text)
    m = _RX_DAY_MONTH_YEAR.search(t)
    if m:
        return _day(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)))
    m = _RX_MONTH_DAY_YEAR.search(t)
    if m:
        return _day(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))
    m = _RX_ISO.search(t)
    if m:
        return _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = _RX_MONTH_YEAR.search(t)
    if m:
        year, month = int(m.group(2)), _MONTHS[m.group(1)]
        last = calendar.monthrange(year, month)[1]
        return datetime(year, month, 1), datetime.fromordinal(datetime(year, month, last).toordinal() + 1)
    m = _RX_YEAR.search(t)
    if m:
        year = int(m.group(1))
        return datetime(year, 1, 1), datetime(year + 1, 1, 1)
    return None
