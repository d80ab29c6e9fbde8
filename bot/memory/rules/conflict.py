"""Conflict rules: which existing memories might a new fact replace, and is it a near duplicate?

Why rules at all: they run on every save, with no model and no network, and they must be
trusted. So they only *nominate* old memories; the person (or the optional AI judge) decides.
Nothing here retires, edits or deletes anything. Everything is a pure function over plain
values, deterministic, with no I/O (docs/ARCHITECTURE.md section 1, "the rule of the house").

The outcome table of docs/ARCHITECTURE.md section 4, in the order the rules are tried:

| rule              | fires when (new vs old)                                                     |
|-------------------|-----------------------------------------------------------------------------|
| `explicit_change` | new uses change wording (sold, moved from, quit, no longer, used to ...)    |
|                   | about something the old memory mentions ("I sold my VW" vs "I drive a VW"), |
|                   | or says the same in another tense or polarity ("I had a dog" vs "I have a  |
|                   | dog", "I don't like coffee" vs "I like coffee")                            |
| `slot_change`     | same single-value slot, and new signals a change (moved, now, new ...)     |
| `count_change`    | the same thing counted differently ("3 kids" vs "2 kids")                  |
| `more_detailed`   | new says everything old says, and more ("green tea with honey ...")        |
| `less_detailed`   | new says part of what old says and nothing else ("I have a boyfriend"     |
|                   | after "I broke up with my boyfriend"): redundant or a change, so ask       |
| `same_slot`       | same single-value slot, no change wording: unclear, so ask                 |
| `same_thing`      | has, likes or does the same thing again ("I have a cat named Whiskers" vs  |
|                   | "I have an old tabby cat"; bot/memory/rules/frames.py): Keep both          |
| `same_meaning`    | none of the above, but the two facts' vectors say the same thing ("i cant  |
|                   | function without coffee" vs "I drink coffee all day"; pair_vectors.py):    |
|                   | Keep both (only with embeddings, only for vector neighbours)              |
| (nothing)         | new or unrelated ("I visited Paris" vs "I live in London")                 |

A near duplicate (cosine >= 0.92, or Jaccard >= 0.6 over keywords with >= 3 shared, or the
same meaningful words, or the same value of the same single-value topic in other words:
"Berlin is where I live now" after "I live in Berlin") that adds no number, name or content
word is reported instead, and then nothing else matters: the new fact is not stored again.

Each nomination carries a verdict, which decides the answer the question recommends
(bot/memory/writing/settle.py): "change" (a different value of the topic, explicit change
wording, another count: Mark older as past), "same" (the same value with more detail: Keep
both) or "unclear" (no recommendation). Values are compared by `slots.same_value`: canonical
forms, negation as a value ("I have no car" -> "I drive a Fiat" is a change), a refinement is
the same value ("Golf GTI" / "Golf").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

# detect_slot and slot_value live with the slot data; they are part of this module's API too.
from bot.memory.rules.frames import (
    about_kin_or_pet,
    adds_another,
    frame,
    frame_words,
    kind_words,
    kinds,
    same_thing,
    with_name_parts,
)
from bot.memory.rules.pair_vectors import threshold as pair_threshold
from bot.memory.rules.places import canonical_place
from bot.memory.rules.regex_gate import may_match, required_literals
from bot.memory.rules.slots import (
    NUMERIC_SLOTS,
    SlotMatch,
    detect_slot,
    find_slots,
    implied_value,
    is_wish,
    canonical_value,
    is_profession,
    different_fields,
    profession_words,
    same_profession,
    same_value,
    sentences,
    slot_value,
)
from bot.memory.rules.text import (
    GENERIC_WORDS,
    IRREGULAR_FORMS,
    STOP_WORDS,
    content_words,
    lemma,
    lemmas,
    names,
    normalise,
    number_values,
    numbers,
    tokens,
    without_lead_in,
)

__all__ = [
    "CHANGE_WORDING",
    "DUPLICATE_COSINE",
    "DUPLICATE_JACCARD",
    "DUPLICATE_MIN_SHARED",
    "RULES",
    "Assessment",
    "Fact",
    "Nomination",
    "VERDICT_CHANGE",
    "VERDICT_SAME",
    "VERDICT_UNCLEAR",
    "assess",
    "detect_slot",
    "is_candidate",
    "is_near_duplicate",
    "keywords",
    "nomination_rule",
    "other_topics",
    "slot_value",
    "states_slot",
    "stated_topics",
]

DUPLICATE_COSINE = 0.92
DUPLICATE_JACCARD = 0.6
DUPLICATE_MIN_SHARED = 3

RULE_EXPLICIT = "explicit_change"
RULE_SLOT_CHANGE = "slot_change"
RULE_COUNT = "count_change"
RULE_DETAILED = "more_detailed"
RULE_LESS_DETAILED = "less_detailed"
RULE_SAME_SLOT = "same_slot"
RULE_SAME_THING = "same_thing"
RULE_SAME_MEANING = "same_meaning"
RULE_DUPLICATE = "duplicate"
RULES: tuple[str, ...] = (
    RULE_EXPLICIT,
    RULE_SLOT_CHANGE,
    RULE_COUNT,
    RULE_DETAILED,
    RULE_LESS_DETAILED,
    RULE_SAME_SLOT,
    RULE_SAME_THING,
    RULE_SAME_MEANING,
    RULE_DUPLICATE,
)
"""Every rule name a Nomination (or the duplicate check) can carry, strongest first."""


@dataclass(frozen=True)
class Fact:
    """An existing memory as the rules see it. `slot` is Memory.slot if the service has one;
    the rules also read slots from the text, so None is fine."""

    id: int
    text: str
    slot: str | None = None
    status: str = "current"


VERDICT_CHANGE = "change"  # a different value of the same topic: the old one is outdated
VERDICT_SAME = "same"  # the same value, said again with more (or other) detail
VERDICT_UNCLEAR = "unclear"

@dataclass(frozen=True)
class Nomination:
    """An old memory the new fact may replace, the rule that said so (for the reason shown
    with the question and stored on the Conflict), and the verdict: a different value
    ("change"), the same value ("same"), or "unclear"."""

    old_id: int
    rule: str
    verdict: str = VERDICT_UNCLEAR


@dataclass(frozen=True)
class Assessment:
    """The verdict on a new fact: a near duplicate of `duplicate_of` (do not store it), or the
    nominations (store it, and ask about each nominated old memory)."""

    duplicate_of: int | None
    nominations: tuple[Nomination, ...]


# --- change wording (data) -------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeCue:
    """One piece of change wording.

    `target` says where the thing that changed is named: "after" (the words after the cue:
    "sold my VW", "moved from London", "quit Google"), "next" (the next word only: "my ex
    wife"), "clause" (the whole clause: "I don't drive the VW anymore", "I used to live in
    London"), "subject" (the clause before it: "my dog passed away"), or None when the cue
    only signals that
    something changed without naming the old thing ("moved to", "now", "new"). A cue with a
    target can fire `explicit_change` on its own when the target names something in the old
    memory; every cue counts as change wording for `slot_change`.
    """

    pattern: str
    target: str | None


CHANGE_WORDING: tuple[ChangeCue, ...] = (
    # leaving the old thing: the object names it
    # (not "sell" alone: "I sell fish by the bay every morning" is a trade, not a sale)
    ChangeCue(r"\b(?:sold|selling)\b", "after"),
    ChangeCue(r"\b(?:quit|quitting)\b", "after"),
    ChangeCue(r"\b(?:left|leaving)\b(?! (?:for|to)\b)", "after"),
    ChangeCue(r"\bmoved (?:away |out |back )?(?:from|out of)\b", "after"),
    ChangeCue(r"\b(?:got|get|getting) rid of\b", "after"),
    # phrasal verbs, the object may sit inside: "gave up X", "gave my cat away"
    ChangeCue(r"\b(?:gave|given|giving)\b(?= (?:[a-z]+ ){0,3}?(?:up|away)\b)", "after"),
    ChangeCue(r"\b(?:threw|thrown|throwing)\b(?= (?:[a-z]+ ){0,3}?(?:out|away)\b)", "after"),
    # (a stop as a place is no change: "truck stop coffee", "the bus stop")
    ChangeCue(r"\b(?:stopped|(?<!truck )(?<!bus )(?<!pit )(?<!rest )(?<!the )(?<!a )(?<!last )(?<!full )stop)\b"
              r"(?! (?:by|at|in|over|off|for|to)\b)", "after"),
    ChangeCue(r"\b(?:broke|broken) up with\b", "after"),
    ChangeCue(r"\b(?:broke|split) up\b(?! with)", None),
    ChangeCue(r"\bsplit (?:up )?(?:with|from)\b", "after"),
    ChangeCue(r"\bseparated from\b", "after"),
    ChangeCue(r"\bdivorced\b", "after"),
    ChangeCue(r"\bdumped\b", "after"),
    ChangeCue(r"\b(?:retired|resigned) from\b", "after"),
    ChangeCue(r"\b(?:fired|laid off|let go) from\b", "after"),
    ChangeCue(r"\blost\b", "after"),
    ChangeCue(r"\btraded(?: in)?\b", "after"),
    ChangeCue(r"\bswapped\b", "after"),
    ChangeCue(r"\breplaced\b", "after"),
    ChangeCue(r"\bswitched (?:away )?from\b", "after"),
    ChangeCue(r"\bswitched\b", "after"),
    ChangeCue(r"\bchanged\b", "after"),
    ChangeCue(r"\b(?:upgraded|downgraded)\b", "after"),
    ChangeCue(r"\b(?:ditched|dropped|cancelled|canceled)\b", "after"),
    ChangeCue(r"\binstead of\b", "after"),
    ChangeCue(r"\brather than\b", "after"),
    # the whole clause names the old thing
    ChangeCue(r"\bno longer\b", "clause"),
    ChangeCue(r"\b(?:any ?more)\b", "clause"),
    # (not being accustomed: "still getting used to saying my wife", "not used to the cold yet")
    ChangeCue(r"(?<!\bgetting )(?<!\bget )(?<!\bgot )(?<!\bam )(?<!\bare )(?<!\bis )(?<!\bbe )(?<!\bbeen )(?<!\bnot )"
              r"\bused to\b(?! (?:it|this|that|the|saying|being|having|living|working|doing)\b)", "clause"),
    ChangeCue(r"\b(?:formerly|previously|once was)\b", "clause"),
    ChangeCue(r"\b(?:died|passed away|passed|was put down|ran away|went missing)\b", "subject"),
    ChangeCue(r"\b(?:ex|former)\b", "next"),
    # arriving at a new value: change wording, but the old thing is not named
    ChangeCue(r"\b(?:moved|moving|relocated|relocating)\b", None),
    ChangeCue(r"\b(?:bought|buying|purchased|got|getting|gotten)\b", None),
    ChangeCue(r"\b(?:joined|started|became|become|went|turned|converted)\b", None),
    ChangeCue(r"\b(?:got|getting|just|recently|finally) (?:married|engaged|divorced|separated|"
              r"hitched)\b", None),
    ChangeCue(r"\bi (?:married|proposed)\b", None),
    ChangeCue(r"\b(?:divorcing|separating|retired|retiring|fired|hired|laid off)\b", None),
    ChangeCue(r"\b(?:now|nowadays|these days|for good|new|newly|recently|just|finally)\b", None),
    ChangeCue(r"\b(?:no more|not any more|not anymore)\b", None),
)
"""Change wording as data: extend by adding a ChangeCue."""

_COMPILED_CUES = tuple(
    (re.compile(cue.pattern), cue.target, required_literals(cue.pattern)) for cue in CHANGE_WORDING
)
_OBJECT_END = re.compile(
    r"\s+(?:and|but|to|for|because|since|so|then|after|before|when|with|into|as|or)\b.*$|[,]"
    r".*$"
)
_CLAUSE_SPLIT = re.compile(r",|\b(?:and|but|so|because|since|then)\b")
_NEGATED_CUE = re.compile(r"\b(?:not|never|did not|have not|has not)\s+$")
# "I lost my job last month": "last" names no thing that changed
# nor does a time of day ("quit coffee in the morning" after "I run every morning"; not nights
# or weekends, which are shifts too: "I stopped working nights" after "I work nights")
_NOT_TARGETS = frozenset("last next ago past previous first second third recent kinda sorta honestly literally totally lol haha tbh "
                         "morning mornings evening evenings today tonight yesterday tomorrow "
                         # (a time is never the thing changed: "lost my Harold three years ago this spring")
                         "spring summer autumn fall winter year years month months week weeks day days "
                         "january february march april may june july august september october november december "
                         "monday tuesday wednesday thursday friday saturday sunday".split())

# a modal before a change word: a change one could make, not one made
_MODAL_BEFORE = re.compile(r"\b(?:could|would|might|can|may|should)(?: (?:easily|just|never|always|totally))? $")
# deeds that name no thing alone: "stop eating it" would match every food one eats
_BARE_DEEDS = frozenset("eat drink do go have get make take".split())
# how a change was made, not what changed: "quit meat cold turkey" changed the meat, not a cold
_MANNER = re.compile(r"\b(?:cold turkey|for good|once and for all|overnight|for real|(?:a )?long (?:time )?ago|"
                     r"(?:years|ages|months|decades) ago)\b")
# a count after the verb is trade, not a change of one's own: "sold two Hiluxes and a RAV4 before
# lunch" is a salesman's morning, not a car sold
_COUNTED = re.compile(r"^(?:\d+|two|three|four|five|six|seven|eight|nine|ten|a dozen|dozens of|hundreds of|"
                      r"a few|several|a lot of|lots of|so many|many) ")

# Like/dislike verbs count as one sense each, so "I love X" restates "I like X" but
# "I hate X" does not.
_SENSES = {
    "like": "+like", "love": "+like", "enjoy": "+like", "adore": "+like", "fond": "+like",
    "prefer": "+like", "hate": "-like", "dislike": "-like", "detest": "-like", "loathe": "-like",
}
_NEGATIONS = frozenset({"not", "never", "no", "nor", "neither", "none", "nobody", "nothing"})
_TIME_UNITS = frozenset(
    "year month week day hour minute second time decade century yr yrs mo min mins sec secs hr hrs".split()
)
# money is no count of things one has: "80 thousand taka for her gold" and "3000 taka for one room"
# are two prices, not a recount
_MONEY = frozenset(
    "taka rupee rupees rs dollar dollars buck bucks euro euros quid lira lire ruble rubles rouble roubles yuan "
    "rmb yen peso pesos rand naira shilling shillings cedi dinar dinars dirham dirhams riyal riyals baht won kip "
    "dong som manat lari lei zloty zlotys forint kroner krona kronor grand cent cents pence penny pennies "
    "thousand thousands hundred hundreds million millions k".split()
)
# measures of what one eats or drinks are no count of things one has: "10 cups a day" after "a
# strong cup of tea" is the same tea
_MEASURES = frozenset(
    "cup mug glass pint shot bottle can pot litre liter serving scoop spoon spoonful teaspoon tablespoon "
    "bowl plate slice piece portion round".split()
)
# units of weight, size and distance: "an 80lb lab mix" weighs 80, it is not 80 mixes
_UNITS = frozenset("lb lbs pound pounds kg kgs kilo kilos kilogram kilograms g gram grams oz ounce ounces "
                   "cm m km mi mile miles ft foot feet inch inches metre metres meter meters mph kmh".split())
_COUNT_ARTICLES = {"a": "1", "an": "1", "no": "0"}
_USED_TO = re.compile(r"\bused to\b")
# Prepositions are stop words, yet "I am from Canada" and "I have been to Canada" differ only in
# them: a restatement must use the same ones.
_RELATION_WORDS = frozenset(
    "in on at to from for with without by of about into onto over under near between".split()
)
_COORDINATED = re.compile(r"\b(?:and|&|plus|as well as)\b|,")
_ADDING = re.compile(r"\b(?:also|another|as well|too|one more)\b")
# Past-tense auxiliaries: "I had a dog" is not a restatement of "I have a dog".
_PAST = re.compile(r"\b(?:was|were|had|did|used to|formerly|once was)\b")


# --- the profile of one text -----------------------------------------------------------------


class _Profile:
    """Everything the rules need to know about one text, each part computed once, when first
    asked for.

    Why lazy: a save checks its fact against up to ~20 related memories, most of them cold in
    this process, and for those old facts most rules stop early. The slots (the largest part),
    counts, subject, names and change wording of an old memory are only read when the new fact
    makes them matter (a new fact with a slot, with a count, ...); the change wording of an old
    fact is never read. Every part is a pure function of the text, so when it is computed
    changes nothing.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        toks = tokens(text)
        self._toks = toks
        self._norm = norm = normalise(text)
        self.content: frozenset[str] = content_words(text)
        self.numbers: frozenset[str] = numbers(text)
        self.meaning: frozenset[str] = _meaning(_USED_TO.sub(" ", norm))
        self.words: frozenset[str] = frozenset(toks) | frozenset(lemma(t) for t in toks)
        self.negated: bool = _is_negated(toks, norm)
        self.past: bool = bool(_PAST.search(norm))
        self.relations: frozenset[str] = frozenset(tok for tok in toks if tok in _RELATION_WORDS)

    @cached_property
    def names(self) -> frozenset[str]:
        return names(self._text)

    @cached_property
    def subject(self) -> str | None:
        return _subject(self._norm)

    @cached_property
    def slots(self) -> tuple[SlotMatch, ...]:
        return find_slots(self._text)

    @cached_property
    def counts(self) -> tuple[tuple[str, str, bool], ...]:
        return _counts(self._toks)

    @cached_property
    def _change_wording(self) -> tuple[tuple[frozenset[str], ...], bool]:
        return _change(self._norm)

    @property
    def change_targets(self) -> tuple[frozenset[str], ...]:
        return self._change_wording[0]

    @property
    def has_change(self) -> bool:
        return self._change_wording[1]


def _meaning(text: str) -> frozenset[str]:
    """Non-stop lemmas (generic verbs included), like/dislike verbs as their sense, plus
    numbers: what a restatement must say too."""
    return frozenset(_SENSES.get(lem, lem) for lem in lemmas(text)) | numbers(text)


# a clause these open only says when or why ("i read two books a week when im not studying",
# "hike this weekend if its not 105 out"): a negation inside it does not deny the fact
_SUBORDINATORS = frozenset("if when whenever unless while until because cause cuz".split())
# after a negation, praise: "nothing beats a cold beer", "you can't beat a sunday roast", "hiking
# the volcanoes, never boring"
_PRAISE = frozenset("beat beats compares compare tops better boring dull disappoints disappoint".split())
# after "no", what a drink is taken without: "coffee black, no sugar" still drinks coffee
_TAKEN_WITHOUT = frozenset("sugar sugars milk cream ice foam sweetener syrup whip lid straw".split())
_CLAUSE_MARKS = re.compile(r"[,.;:!?]")
# chat's asides that hold a negation and deny nothing: "don't @ me", "no cap", "not gonna lie"
_NO_DENIAL = re.compile(r"\b(?:do not (?:@|at) me|no cap|no joke|no kidding|not kidding|no lie|not (?:gonna|going to) lie|"
                        r"no offen[cs]e|no doubt|no pun intended|no regrets|do not judge(?: me)?|not even joking|"
                        r"no exaggeration)\b")
# "and", "but" or "so" before a new subject starts a clause of its own
_NEW_SUBJECT = re.compile(r"\b(?:and|but|so)\b (?=(?:i|we|my|our|he|she|they|it|the|his|her|their)\b)")
_WORDS = re.compile(r"\d+|[a-z]+")


def _is_negated(toks: list[str], norm: str) -> bool:
    """An odd number of negations that deny the fact; "without" after one undoes it ("I can't
    live without coffee", "I never go a day without coffee" say the person has coffee), and alone
    is no negation ("I drink coffee without sugar"). A negation in a clause of when or why ("when
    im not studying") or before praise ("nothing beats ...", "nothing like a cold lager") denies
    nothing; nor, when the fact has an object (frames.frame), one in a clause that does not name
    it ("iced oat latte every single day, no shame", "my older brother is
    in med school and my parents won't let me forget it")."""
    if not any(tok in _NEGATIONS for tok in toks):
        return False
    if _NO_DENIAL.search(norm):  # "Ermera coffee is the best, don't @ me" still drinks it
        norm = _NO_DENIAL.sub(",", norm)
        toks = _WORDS.findall(norm)
    found = frame(norm)
    things = found.objects if found is not None else frozenset()
    count = 0
    for clause in _CLAUSE_MARKS.split(norm):
        for part in _NEW_SUBJECT.split(clause) if things else (clause,):
            words = _WORDS.findall(part)
            if things and not things & {lemma(word) for word in words} | kinds(frozenset(words)):
                continue  # a clause about something else
            subordinate = False
            for n, tok in enumerate(words):
                if tok in _SUBORDINATORS:
                    subordinate = True
                elif tok in _NEGATIONS and not subordinate and not _eager(words, n) and (
                        n + 1 == len(words) or words[n + 1] not in _PRAISE
                        and not (tok == "nothing" and words[n + 1] == "like")
                        and not (tok == "no" and words[n + 1] in _TAKEN_WITHOUT)):
                    count += 1
    if count:
        count += sum(1 for tok in toks if tok == "without")
    return count % 2 == 1


# "can't wait", "can't get enough", "couldn't be happier": eagerness, no denial ("my big sister is
# flying in to visit, can't wait" still has her sister)
_EAGER_AFTER = frozenset("wait complain get stop help believe".split())


def _eager(words: list[str], n: int) -> bool:
    if words[n] != "not" or n == 0 or words[n - 1] not in {"can", "could"} or n + 1 == len(words):
        return False
    after = words[n + 1]
    return after in _EAGER_AFTER or (after == "be" and n + 2 < len(words) and words[n + 2].endswith("er"))


_NAMING = frozenset({"named", "called", "nicknamed"})
# words after "a sister" that say which one, not how many: "got a brother in Derby who ...",
# "a daughter down in Cape Town" (one of the two daughters said before, not a recount)
_ONE_OF = frozenset("who that which in at down up over out back from living studying working".split())
_RATE = frozenset({"per", "each", "every"})


def _counts(toks: list[str]) -> tuple[tuple[str, str, bool], ...]:
    """(counted noun, number, explicit) for "2 kids", "three arabian horses", "one sister",
    "a dog", "no kids". `explicit` is False for "a"/"an"/"no", which are compared only with an
    explicit number. Time spans are not counts of things."""
    found: list[tuple[str, str, bool]] = []
    spans = [(start, end, value, True) for start, end, value in number_values(toks)]
    spans += [
        (i, i + 1, _COUNT_ARTICLES[tok], False)
        for i, tok in enumerate(toks)
        if tok in _COUNT_ARTICLES
    ]
    for start, end, value, explicit in spans:
        window = toks[end : end + 3]
        if window[:1] and (window[0] in _UNITS or window[0] in _MONEY):
            continue
        for j, tok in enumerate(window):
            if tok in STOP_WORDS or tok[0].isdigit():
                break
            lem = lemma(tok)
            nxt = window[j + 1] if j + 1 < len(window) else None
            plural = lem != tok
            if plural and not explicit:
                break  # "a children's hospital": an article counts one thing, never a plural
            np_end = nxt is None or nxt in STOP_WORDS or nxt[0].isdigit()
            if plural or np_end:
                after = toks[end + j + 1] if end + j + 1 < len(toks) else None
                if not explicit and (after in _NAMING or after in _ONE_OF):
                    break  # "a cat named Fortune", "a brother in Derby" name one of them, not count them
                if after in _RATE:
                    break  # "fifty kids per class": a rate, not what one has
                if (lem not in _TIME_UNITS and lem not in _MEASURES and lem not in _MONEY and lem not in GENERIC_WORDS
                        and len(lem) > 1):
                    found.append((lem, value, explicit))
                break
    return tuple(found)


_INTERJECTION = re.compile(r"^(?:(?:hey|hi|hello|well|so|oh|ok|okay|yeah|yes|no|lol|also|and|"
                           r"but|btw|fyi|just|actually|update|what is up)\b[ ,!]*)+")
_SUBJECT_MODIFIERS = frozenset(
    "best older younger little big baby oldest youngest eldest new old dear lovely late ex "
    "favorite favourite".split()
)


def _subject(norm: str) -> str | None:
    """Who the first clause is about: "i" (or "we"), "my <noun>" ("my sister lives ..."), or
    None when it does not start with either ("green tea every morning", "Biscuit died").

    Why: "My sister lives in Paris" contains every word of "I live in Paris" and more, yet is
    not a more detailed version of it.
    """
    text = _INTERJECTION.sub("", norm.strip())
    match = re.match(r"(i|we)\b|(?:my|our) ((?:\w+ ){0,2}?)(\w+)", text)
    if match is None:
        return None
    if match.group(1):
        return "i"
    words = (match.group(2) or "").split() + [match.group(3)]
    core = [w for w in words if w not in _SUBJECT_MODIFIERS] or words
    return "my " + lemma(core[0])


def _senses(meaning: frozenset[str]) -> frozenset[str]:
    """The like/dislike senses in a meaning ("+like", "-like")."""
    return frozenset(word for word in meaning if word.startswith(("+", "-")))


def _core(meaning: frozenset[str]) -> frozenset[str]:
    """A meaning without its like/dislike senses."""
    return meaning - _senses(meaning)


def _anothers_fact(new: _Profile, old: _Profile) -> bool:
    """Whether the old fact is about a relative or friend and the new change is of one's own work,
    naming them nowhere: "I retired from teaching" changes nothing of "my older brother teaches math",
    "got laid off from my warehouse job" nothing of "my little bro is a welder, side jobs"."""
    if new.subject not in (None, "i") or not any(match.slot == "job" and not match.hint for match in new.slots):
        return False  # (only one's own work: "I sold the Golf" may well be "my wife drives a Golf")
    found = _OLD_ABOUT.match(old._norm)
    if found is None:
        return False
    who = lemma(found.group(1))
    return not any(who in {lemma(word) for word in target} for target in new.change_targets)


def _same_subject(a: _Profile, b: _Profile) -> bool:
    return a.subject is None or b.subject is None or a.subject == b.subject


_FIRST_PERSON = re.compile(r"\b(?:i|we|me|us)\b")
_THIRD_PERSON = re.compile(r"\b(?:he|she|they|it|my \w+|our \w+|his|her|their)\b")


def _someone_else(before: str) -> bool:
    """Whether the clause before a cue has a subject other than the person ("my dad used to
    live in Berlin", "my brother sold his car"): then the cue does not name their own change."""
    clause = _CLAUSE_SPLIT.split(before)[-1] if before else ""
    if _FIRST_PERSON.search(before):
        return bool(_THIRD_PERSON.search(clause)) and not _FIRST_PERSON.search(clause)
    return bool(_THIRD_PERSON.search(before))


def _change(norm: str) -> tuple[tuple[frozenset[str], ...], bool]:
    """The keywords named as changed ("sold my VW" -> {"vw"}) and whether any change wording
    occurs at all. Wishes ("I want to move to ...") and negated cues ("I never sold ...") are
    not change wording."""
    targets: list[frozenset[str]] = []
    has_change = False
    for _, sentence in sentences(norm):
        for pattern, target, gate in _COMPILED_CUES:
            if not may_match(gate, sentence):
                continue  # a word the cue needs is missing
            for match in pattern.finditer(sentence):
                if is_wish(sentence, match.start()):
                    continue
                before = sentence[: match.start()]
                if _MODAL_BEFORE.search(before):
                    continue  # what one could do is no change: "I could stop eating it any time. I don't."
                if _NEGATED_CUE.search(before) and target != "clause":
                    continue
                has_change = True
                if target is None or (target != "subject" and _someone_else(before)):
                    continue
                if target == "subject":
                    starts = [m.end() for m in _CLAUSE_SPLIT.finditer(before)]
                    # (what is said to the bot first names nothing: "note: my dog passed away")
                    span = without_lead_in(before[starts[-1] if starts else 0 :])
                elif target == "after":
                    span = _OBJECT_END.sub("", sentence[match.end() :].strip())
                    if _COUNTED.match(span):
                        continue
                    # "stopped eating meat": the thing is the meat; "eating" alone would match
                    # every fact about eating ("I eat bagels"). A gerund alone stays ("stopped
                    # running" vs "I run marathons").
                    first, _, rest = span.partition(" ")
                    if first.endswith("ing") and content_words(rest) - _NOT_TARGETS:
                        span = rest
                elif target == "next":
                    span = " ".join(sentence[match.end() :].split()[:1])
                else:
                    starts = [m.end() for m in _CLAUSE_SPLIT.finditer(before)]
                    clause_start = starts[-1] if starts else 0
                    ends = _CLAUSE_SPLIT.search(sentence, match.end())
                    clause_end = ends.start() if ends else len(sentence)
                    # ("Please note that I no longer own a car" changed no note)
                    span = without_lead_in(sentence[clause_start:clause_end])
                words = content_words(_MANNER.sub(" ", span)) - _NOT_TARGETS
                if words and not words <= _BARE_DEEDS:  # ("stop eating it": no thing named, nothing to match)
                    targets.append(words)
    return tuple(targets), has_change


@lru_cache(maxsize=16384)
def _profile(text: str) -> _Profile:
    return _Profile(text)


# --- public predicates -----------------------------------------------------------------------


def keywords(text: str) -> frozenset[str]:
    """The meaningful words of `text`, for the service's keyword search of candidates.

    These are the content-word lemmas (no stop words, no generic words, no numbers: "3" would
    not find "three"), each with its irregular and British spellings ("child" also gives
    "children", "color" also "colour"), because a stemming search (FTS5 porter, PostgreSQL
    english) relates regular forms ("dog"/"dogs", "hike"/"hiking") but not those; and the words
    of the kind a breed or a kind names ("a border collie" also gives "dog", "beagle",
    "poodle", ...: bot/memory/rules/frames.py). Two texts share a keyword exactly when their
    `content_words` overlap, or the new one's kind words meet the old one's words
    (`is_candidate`).
    """
    words = content_words(text)
    out: set[str] = set(with_name_parts(kind_words(words)))  # "a border collie" also finds "two dogs", "a pug", "my pit mix"
    out.update(frame_words(text))  # "Earl Grey every evening" also finds "dhaba chai"
    for word in words:
        out.add(word)
        out.update(_SPELLINGS.get(word, ()))
    return frozenset(out)


def _spellings() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for form, base in IRREGULAR_FORMS.items():
        if form != base and form.isalpha():
            table.setdefault(base, []).append(form)
    return {base: tuple(sorted(forms)) for base, forms in table.items()}


_SPELLINGS = _spellings()


def _slots_of(fact: Fact) -> dict[str, SlotMatch]:
    """Slots of an old fact: those in its text, plus its stored slot if the text shows none."""
    found = {match.slot: match for match in _profile(fact.text).slots}
    if fact.slot and fact.slot not in found:
        found[fact.slot] = SlotMatch(fact.slot, None, False, 0)
    return found


def _shared_slots(
    new: _Profile, old: Mapping[str, SlotMatch], extra: tuple[SlotMatch, ...] = ()
) -> list[tuple[SlotMatch, SlotMatch]]:
    """Slots both speak about, where at least one side states it outright, or two mentions
    disagree: "my wife likes hiking" and "my wife is a doctor" do not conflict, "my boyfriend
    ..." and "my husband ..." do."""
    out = []
    for match in (*new.slots, *extra):
        other = old.get(match.slot)
        if other is None:
            continue
        if match.hint and other.hint and (match.value == other.value or (
                match.value and other.value
                and canonical_value(match.slot, match.value) == canonical_value(other.slot, other.value))):
            continue  # "my wife ..." and "my husband ...": one status, married, mentioned twice
        out.append((match, other))
    return out


def _stored_slot(fact: Fact) -> str | None:
    if fact.slot is not None:
        return fact.slot
    slots = _profile(fact.text).slots  # what detect_slot reads: its first slot
    return slots[0].slot if slots else None


def is_candidate(new_text: str, old: Fact) -> bool:
    """Whether `old` is related enough to be checked against `new_text`: they share a meaningful
    word (`keywords`), or the new text's slot (`detect_slot`) is the old memory's stored slot.

    Deliberately exactly what the memory service can find with its keyword search and its
    `Memory.slot == detect_slot(new)` query, so that the pure benchmark path and the service
    path agree. (A sentence can hold two slots but only one is stored: "Hey, I'm Larry and I'm
    a chef" is stored as a job, so a new job fact finds it and "Call me Sasha" does not.)
    """
    new_words = _profile(new_text).content
    old_words = _profile(old.text).content
    # the old fact's kinds too: its breed may be written as the search finds it but not as the
    # word lists spell it ("collies", "pit bull")
    if (new_words | kind_words(new_words)) & (old_words | kinds(old_words)):
        return True
    # what the frames read: a drink by its brand or blend ("Coors", "Earl Grey"), found by the
    # search through the words of its kind
    old_frame = frame(old.text)
    if old_frame is not None and frame_words(new_text) & old_frame.objects:
        return True
    slot = detect_slot(new_text)
    # (or among the topics a compound fact states: "I'm 34 and I live in Leeds" is an age too)
    return slot is not None and (slot == _stored_slot(old) or states_slot(old.text, slot))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _adds_nothing(new: _Profile, old: _Profile) -> bool:
    """New adds no number, name or content word that old lacks, and keeps old's polarity and
    like/dislike sense ("I don't eat meat" is not a duplicate of "I eat meat")."""
    if new.negated != old.negated or new.past != old.past:
        return False
    if not new.numbers <= old.numbers:
        return False
    if not new.content <= old.content:
        return False
    if any(name not in old.words for name in new.names):
        return False
    return _senses(new.meaning) <= old.meaning


def _duplicate_score(new: _Profile, old: _Profile, cosine: float | None) -> float | None:
    """A score if `new` is a near duplicate of `old`, else None.

    Near duplicate (docs/ARCHITECTURE.md): cosine >= 0.92, or Jaccard >= 0.6 with >= 3 shared keywords;
    also, for short facts below 3 keywords, the same meaningful words and prepositions ("I'm
    vegan" / "I am a vegan"). In every case only if the new text adds nothing.
    """
    if _restates_slot(new, old):
        return 1.0
    if not _adds_nothing(new, old):
        return None
    shared = new.content & old.content
    jaccard = _jaccard(new.content, old.content)  # over content words; numbers are checked above
    if cosine is not None and cosine >= DUPLICATE_COSINE:
        return 1.0 + cosine
    if jaccard >= DUPLICATE_JACCARD and len(shared) >= DUPLICATE_MIN_SHARED:
        return jaccard
    if new.meaning and new.meaning == old.meaning and new.content and (
        new.relations == old.relations
    ):
        return 1.0
    return None


def is_near_duplicate(new_text: str, old_text: str, cosine: float | None = None) -> bool:
    """Whether `new_text` only restates `old_text` (see `_duplicate_score`)."""
    return _duplicate_score(_profile(new_text), _profile(old_text), cosine) is not None


def _stated_slots(profile: _Profile) -> frozenset[str]:
    """The slots a text states outright. A text that states a slot ("I eat everything": a diet)
    is not restated in more detail by one that does not ("I eat gelato every day"), nor one that
    does not by one that does ("I have two boys" / "I stay home with my two boys": a job)."""
    return frozenset(match.slot for match in profile.slots if not match.hint)


def _slot_verdict(
    shared: Sequence[tuple[SlotMatch, SlotMatch]],
    new: _Profile | None = None,
    old: _Profile | None = None,
) -> str:
    """What the values of the slots both facts speak about say: a different value of any of
    them is a change; the same value in all of them is the same fact; otherwise unclear.

    A value the patterns did not capture (a topic named by the stored slot or the vectors: "I
    am a gold medalist olympian") is read from the fact's own words: no word in common with the
    other side's value is a change, a shared word the same fact."""
    verdicts = set()
    for a, b in shared:
        verdict = same_value(a.slot, a.value, b.value)
        if verdict is False and a.slot == "job" and (
            same_profession(a.value, b.value) or _same_work(a.value, b.value)
        ):
            verdict = True
        if verdict is None and a.slot == "car" and a.negative != b.negative and None in (a.value, b.value):
            verdict = False  # no car, then a car the words do not name ("civic's at 210k miles")
        if verdict is None and new is not None and old is not None:
            # a value the words imply: a home by its city in any of its names ("wicked cold in
            # bahstan today"), a status or diet by its telling word ("the missus and i ...")
            value_a, value_b = _implied(a, new), _implied(b, old)
            if value_a is not None and value_b is not None:
                verdict = value_a == value_b
        if verdict is None and new is not None and old is not None and a.slot not in _STATUS_SLOTS:
            words_a = _value_words(a.value, a.slot) if a.value else _topic_words(new, a.slot)
            words_b = _value_words(b.value, b.slot) if b.value else _topic_words(old, b.slot)
            if words_a and words_b:
                verdict = bool(words_a & words_b) or _same_root(words_a, words_b)
            if verdict is False and a.slot == "job" and _same_work(a.value or new._norm, b.value or old._norm):
                verdict = True  # one profession, one side told by its work ("filed two motions ...")
        verdicts.add(verdict)
    if False in verdicts:
        return VERDICT_CHANGE
    if verdicts == {True}:
        return VERDICT_SAME
    return VERDICT_UNCLEAR


# topics with a few values told in endless words: two facts that share no word may well say the
# same ("no girlfriend, no time" / "happily unattached"), so words alone decide nothing there
_STATUS_SLOTS = frozenset({"relationship"})


_ASPIRATION = re.compile(
    r"\b(?:(?:studying|training|in school|learning|going) to (?:be|become)|want to|wants to|wanted to|"
    r"i wish|wish i|wish to|hope to|hoping to|dream of|dreaming of|someday|some day|one day|aspiring|"
    r"when i grow up)\b"
)
# the people a fact may be about besides the speaker: relatives, friends and people at work, and
# partners (whose naming is one's own relationship)
_KIN = (r"sons?|daughters?|sisters?|brothers?|sis|bro|twin|mom|mum|mother|dad|father|friends?|kids?|cousins?|"
        r"aunt|uncle|parents|neighbou?rs?|boss|roommates?|flatmates?|grandma|grandpa|niece|nephew|in laws|"
        r"colleagues?|coworkers?")
_PARTNERS = r"wife|husband|partner|boyfriend|girlfriend|bf|gf|fiance|fiancee|hubby|spouse|missus"
# a fact whose subject is someone else: "my son pulls espresso shots", "she works nights"
# (or what someone told: "The postman told me he's retiring" is the postman's job)
_OTHER_SUBJECT = re.compile(rf"^(?:(?:my|our) (?:\w+ )?(?:{_KIN}|{_PARTNERS})\b(?! and (?:i|me)\b)|(?:he|she|they)\b"
                            rf"|(?:the|our|my) (?:\w+ ){{1,2}}?(?:told|tells|said|says|asked|asks) (?:me|us)\b)")
# an old fact about a relative, friend or partner by its first words ("my little bro is a welder")
_OLD_ABOUT = re.compile(rf"^(?:my|our) (?:\w+ )?({_KIN}|{_PARTNERS})\b(?! and (?:i|me)\b)")
# (chat drops the "my": "Daughter, married off to Rize")
_KIN_WORD = re.compile(rf"\b(?:my|our) (?:\w+ )?(?:{_KIN})\b|^(?:{_KIN})\b")
_PARTNER_WORD = re.compile(rf"\b(?:{_PARTNERS}|ex|other half|better half)\b")


def other_topics(old_text: str, stated: set[str]) -> list[str]:
    """The topics an old fact of two topics or more states besides `stated` (the new fact's), in
    order ("I'm 34 and I live in Leeds" beside a new age: ["residence"]): such a fact is not
    wholly replaced. A word for oneself is no topic one loses ("I am a 56 year old woman" is an
    age)."""
    topics = list(dict.fromkeys(match.slot for match in find_slots(old_text) if not match.hint))
    if len(topics) < 2:
        return []
    return [t for t in topics if t not in stated and t not in _SELF_WORDS
            and not any(t in _GOES_WITH.get(topic, ()) for topic in stated)]


_SELF_WORDS = frozenset({"gender"})
# a topic that goes with another and is outdated with it: a move leaves the old home's kind
# behind ("i live in a dorm in boston" after "i live in austin texas" is wholly past)
_GOES_WITH = {"residence": frozenset({"home_type"})}


def states_slot(text: str, slot: str) -> bool:
    """Whether a fact states a value of `slot` among its topics ("I'm 34 and I live in Leeds"
    states an age and a home), not only by a mention (a hint)."""
    return slot in stated_topics(text)


def stated_topics(text: str) -> frozenset[str]:
    """Every topic a fact states a value of, not only by a mention (a hint)."""
    return frozenset(match.slot for match in find_slots(text) if not match.hint)


def own_present(text: str, topic: str) -> bool:
    """Whether a fact the vectors find of a topic may be the speaker's own, now (_own_present):
    the guard for a sure topic of the classifier as well as for a likely one."""
    return _own_present(text, topic)


def _own_present(text: str, topic: str) -> bool:
    """Whether a fact the vectors find likely of a topic may be the speaker's own, now: no wish
    or aspiration ("i'm studying to be an engineer"); a job or a home not someone else's ("my
    sister ..."; a partner named is one's own relationship)."""
    norm = normalise(text)
    if _ASPIRATION.search(norm):
        return False
    if topic == "relationship":  # a partner named is one's own; a sister or a friend is not one
        return bool(_PARTNER_WORD.search(norm)) or not _KIN_WORD.search(norm)
    if topic == "car" and _CARS_AT_WORK.search(norm):
        return False  # a maker one works for: "Toyota. 12 years on the line at the plant"
    if topic in _OWN_TOPICS and about_kin_or_pet(text):
        return False  # where a brother lives, what the shop cat does: "bro in dubai"
    return not _OTHER_SUBJECT.search(norm)


# the topics a relative's or a pet's fact never states of oneself
_OWN_TOPICS = frozenset({"job", "residence", "age", "car", "diet"})
# cars as one's work, not one's own: on the line, at the plant, on the lot
_CARS_AT_WORK = re.compile(r"\b(?:on the line|assembly line|at the plant|(?:car )?factory|dealership|on the lot|"
                           r"salesman|saleswoman|sell cars|selling cars|test drives?)\b")


def _other_topics(new: _Profile, old: _Profile) -> bool:
    """Whether both facts state topics outright, none of them the same, and what the new one
    says changed is no value the old one states: a change of the new fact's topic does not touch
    what the old one says in passing of another ("sold the car, so no car now" after a claims
    adjuster's "hail on cars, burst pipes"), while "I quit Google, moved to Paris" still ends
    "I work at Google"."""
    stated_new, stated_old = _stated_slots(new), _stated_slots(old)
    if not stated_new or not stated_old or not stated_new.isdisjoint(stated_old):
        return False
    values = frozenset().union(*(content_words(m.value) for m in old.slots if m.value and not m.hint))
    return not any(target & values for target in new.change_targets)


def _same_stated_value(new: _Profile, old: _Profile) -> bool:
    """Whether both facts state a topic's value outright, and the same one in every topic they
    share ("I stopped eating meat" / "I don't eat meat": no meat either way)."""
    shared = _shared_slots(new, {match.slot: match for match in old.slots if not match.hint})
    if new.negated != old.negated and not any(a.negative or b.negative for a, b in shared):
        return False  # "I'm not vegan anymore": the negation is the patterns' blind spot
    return bool(shared) and all(
        not a.hint and a.value is not None and b.value is not None
        # ("no car" and "sold my car, bike everywhere now" are one "none", negated or not)
        and (a.negative == b.negative or a.value == b.value) and same_value(a.slot, a.value, b.value)
        for a, b in shared
    )


def _same_work(a: str | None, b: str | None) -> bool:
    """Whether two job values, said with their workplace or as what one does, name one
    profession: "hospital as a nurse" / "rn at a children hospital" (a profession word of each,
    abbreviations as their word), "teacher" / "teach math" (the doer and the deed)."""
    if not a or not b:
        return False
    words_a, words_b = profession_words(a), profession_words(b)
    if words_a & words_b:
        return not different_fields(a, b)
    if _same_root(content_words(a), content_words(b)):
        return True
    # the work told as what one does ("fix mobile phones", slots._work_done) and the trade that
    # does it ("phone repairman", "amber polisher"): a thing worked on in both
    if not (words_a and words_b):
        shared = {w for w in lemmas(a) & lemmas(b) if len(w) >= 4 and w not in GENERIC_WORDS and w not in STOP_WORDS}
        return bool(shared)
    return False


def _same_root(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether a profession word of one side is a word of the other with another ending: the
    doer and the deed ("teacher" / "i teach elementary art", "trucker" / "truck driver",
    "accountant" / "accounting", "nurse" / "nursing"). The shorter word, less a final e, of 4
    letters at least, starts the longer one, and one of them names a profession ("retired" /
    "a retirement home" do not meet)."""
    for x in a:
        for y in b:
            short, long = sorted((x, y), key=len)
            stem = short[:-1] if short.endswith("e") else short
            if (len(stem) >= 4 and short != long and long.startswith(stem)
                    and (is_profession(short) or is_profession(long))):
                return True
    return False


def _implied(match: SlotMatch, profile: _Profile) -> str | None:
    """A slot's value in the form values are compared in: the captured one, or the one its
    fact's words imply (slots.implied_value)."""
    if match.value:
        return canonical_value(match.slot, match.value)
    return implied_value(match.slot, profile._text)


def _value_words(value: str, slot: str) -> frozenset[str]:
    """The words of a captured value; for a topic whose values are numbers, its numbers too."""
    words = content_words(value)
    return words | numbers(value) if slot in NUMERIC_SLOTS else words


def _topic_words(profile: _Profile, slot: str) -> frozenset[str]:
    """The words of a fact that could name a value: its content words but those that only say
    which topic it is; for a topic whose values are numbers (an age), its numbers ("I'm 37
    years young" against "im 24")."""
    if slot in NUMERIC_SLOTS and profile.numbers:
        return profile.numbers
    return profile.content - _SLOT_WORDS - _NO_VALUE_WORDS


# words of when and how much that two facts share without sharing a value: "forklift from 10pm to
# 6:30am" and "a code at 2pm" meet only in "pm", "school run" and "parcel runs" in "run"
_NO_VALUE_WORDS = frozenset(
    "am pm today tonight tomorrow yesterday morning evening night day week weekend month year hour minute time "
    "lol tbh haha omg full half run again still kinda sorta honestly literally totally".split()
)


def nomination_rule(new_text: str, old: Fact) -> str | None:
    """The rule that nominates `old` as possibly replaced by `new_text`, or None.

    Does not check for near duplicates; `assess` does that first.
    """
    found = _nominate(new_text, old)
    return found[0] if found else None


def _nominate(new_text: str, old: Fact, new_slot: str | None = None) -> tuple[str, str] | None:
    """(rule, verdict) for `old` against `new_text`, or None. `new_slot` is a topic the new fact
    is known to be about although its words state none (the vectors' topic)."""
    new, prev = _profile(new_text), _profile(old.text)
    # explicit_change: change wording whose object is something the old memory mentions, or
    # the same words in another tense, negated, or with like and dislike swapped; but not when
    # both state the same value of a topic ("I stopped eating meat" after "I don't eat meat")
    if (any(target & prev.content for target in new.change_targets) and not _same_stated_value(new, prev)
            and not _other_topics(new, prev) and not _anothers_fact(new, prev)):
        return RULE_EXPLICIT, VERDICT_CHANGE
    if _core(new.meaning) == _core(prev.meaning) and _core(new.meaning) and (
        new.past != prev.past
        or new.negated != prev.negated
        or _senses(new.meaning) and _senses(prev.meaning) and new.meaning != prev.meaning
    ):
        return RULE_EXPLICIT, VERDICT_CHANGE
    extra = ()
    if new_slot is not None and all(match.slot != new_slot for match in new.slots):
        extra = (SlotMatch(new_slot, None, False, 0),)
    shared = _shared_slots(new, _slots_of(old), extra) if new.slots or extra else []
    slot_verdict = _slot_verdict(shared, new, prev) if shared else None
    if slot_verdict == VERDICT_CHANGE:
        return (RULE_SLOT_CHANGE if new.has_change else RULE_SAME_SLOT), VERDICT_CHANGE
    if slot_verdict == VERDICT_SAME:
        return RULE_DETAILED, VERDICT_SAME  # the same value, said with other words or detail
    if shared and new.has_change:
        return RULE_SLOT_CHANGE, VERDICT_UNCLEAR
    # "I also have a baby boy": one more, said as one more, is not a recount
    adding = bool(_ADDING.search(new_text.lower()))
    old_counts = {noun: (value, explicit) for noun, value, explicit in prev.counts} if new.counts and not adding else {}
    for noun, value, explicit in new.counts:
        if noun in old_counts:
            other, other_explicit = old_counts[noun]
            if other != value and (explicit or other_explicit):
                return RULE_COUNT, VERDICT_CHANGE
    # (the subject is compared last: it is only needed when the words already agree)
    if (
        prev.content
        and prev.meaning <= new.meaning
        and new.negated == prev.negated
        and (new.content - prev.content or new.numbers - prev.numbers)
        and _same_subject(new, prev)
        and _stated_slots(prev) == _stated_slots(new)
        and not adds_another(new_text)  # "I have another cat": one more, not more about it
    ):
        return RULE_DETAILED, VERDICT_SAME
    if (
        new.content
        and new.meaning <= prev.meaning
        and new.negated == prev.negated
        and (prev.content - new.content or prev.numbers - new.numbers)
        and _same_subject(new, prev)
        and _stated_slots(new) == _stated_slots(prev)
    ):
        # the same pet, food or pastime with less said about it is that thing again
        # (not when the old fact named two things: "I have a dog" after "I have a dog and a cat"
        # may mean the cat is gone, so that stays unclear)
        if (not new.slots and not prev.slots and new.negated == prev.negated
                and not _COORDINATED.search(old.text.lower()) and same_thing(new_text, old.text)):
            return RULE_SAME_THING, VERDICT_SAME
        return RULE_LESS_DETAILED, VERDICT_UNCLEAR
    if shared:
        return RULE_SAME_SLOT, VERDICT_UNCLEAR
    # (a mere mention of a topic does not stop it: "my fiance and i have two cats" is about cats)
    if not _stated_slots(new) and not _stated_slots(prev) and same_thing(new_text, old.text):
        if new.negated != prev.negated:  # "I have no more cats" after "I have two cats"
            return RULE_EXPLICIT, VERDICT_CHANGE
        return RULE_SAME_THING, VERDICT_SAME  # the same pet, food or pastime said again
    return None


# Words that only say which topic a slot statement is about ("I moved to Berlin", "my home is
# in Berlin", "I live in Berlin"): a restatement of the same value may use other ones.
_SLOT_WORDS = frozenset(
    "live move relocate base reside stay settle call home house flat apartment place city town "
    "work job employ employer drive car own ride vehicle married status diet eat address number "
    "phone email mail mobile cell age".split()
)


def _restates_slot(new: _Profile, old: _Profile) -> bool:
    """Whether `new` says the same value of the same slots as `old` and nothing else: "Berlin is
    where I live now" after "I live in Berlin"."""
    if not new.slots or any(match.hint for match in new.slots):
        return False
    shared = _shared_slots(new, {match.slot: match for match in old.slots})
    if len(shared) != len(new.slots) or not all(same_value(a.slot, a.value, b.value) for a, b in shared):
        return False
    if not new.numbers <= old.numbers or any(name not in old.words for name in new.names):
        return False
    # the words of the values themselves may differ ("I do not eat meat" / "I am vegetarian"),
    # but only when the values are one value: a new value that names more ("bank teller" after
    # "bank") is a refinement, asked about, since not storing it would lose what it adds
    value_words = frozenset().union(
        *(content_words(m.value) for m in old.slots if m.value),
        *(content_words(a.value) for a, b in shared
          if a.value and b.value and canonical_value(a.slot, a.value) == canonical_value(b.slot, b.value)),
    )
    return not (new.content - old.content - _SLOT_WORDS - value_words)


_FIRST_PERSON_WORDS = frozenset({"i", "we", "my", "our", "me", "us", "im", "ive", "mine"})


def _same_in_other_words(new: _Profile, prev: _Profile, slot: str | None) -> bool:
    """Whether the vectors' "the same fact" may stand for a pair the rules left alone: both in
    English and in the first person (the rules read only English, and the vectors of "Ich
    wohne in München" / "Ich wohne jetzt in Berlin" are alike though the home changed), about no
    single-value topic (a topic's value decides, never the likeness of two sentences), not one
    more of a kind ("we also got a beagle puppy": frames.adds_another), said with
    the same polarity and tense, and the new one without change wording ("I gave up ...")."""
    if slot is not None or new.slots or prev.slots or adds_another(new._text):
        return False
    if not (_FIRST_PERSON_WORDS & set(new._toks) and _FIRST_PERSON_WORDS & set(prev._toks)):
        return False
    if _OTHER_SUBJECT.search(new._norm) or _OTHER_SUBJECT.search(prev._norm):
        return False  # "my sister pulls espresso shots all day" is not mine said again
    return prev.negated == new.negated and prev.past == new.past and not new.has_change


def _may_hold_value(text: str, topic: str) -> bool:
    """Whether a fact the vectors find likely of `topic` names anything that could be its value:
    a home needs a town ("wind-dried in the hjallur through a whole winter" names none, so it
    cannot say where one lives now), an age a number. Other topics are told by their words (a
    trade by its day)."""
    if topic == "residence":
        words = tokens(text)
        return any(canonical_place(" ".join(words[i:i + n])) is not None  # a small town too
                   for n in (1, 2) for i in range(len(words) - n + 1))
    if topic == "age":
        # (an age is 13 to 110, not a temperature or a time: "-28 today", "21:10", "30 degrees")
        bare = _NOT_AN_AGE.sub(" ", text.lower())
        return any(13 <= int(n) <= 110 for n in re.findall(r"(?<![\d.,])\d{1,3}(?![\d.,]\d)", bare)) or bool(
            re.search(r"\b(?:thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
                      r"sixty|seventy|eighty|ninety|hundred)\b", bare))
    return True


_NOT_AN_AGE = re.compile(r"(?:^|\s)[-\u2212]\d+|\d+ ?(?:°|degrees?|celsius|fahrenheit|c\b|f\b)|\d{1,2}:\d\d|"
                         r"\d+ ?(?:%|am|pm|km|kg|min|mins|minutes|hours|hrs|k)\b")


def assess(
    new_text: str,
    old: Sequence[Fact],
    cosines: Mapping[int, float] | None = None,
    new_slot: str | None = None,
    same: Mapping[int, float] | None = None,
    likely: str | None = None,
    likely_old: Mapping[int, str] | None = None,
) -> Assessment:
    """Judge a new fact against candidate memories of the same person.

    `old` are the candidates the service found (current or unsure; historical ones are ignored,
    since they are already known to be outdated). `cosines` maps an old id to
    cosine(new, old) when embeddings exist; `new_slot`, the topic the new fact is about when its
    words state none (the vectors' topic, bot/memory/rules/slot_vectors.py); `same`, for the
    vector neighbours, how sure the vectors are that the old fact says the same thing
    (bot/memory/rules/pair_vectors.py): an old fact the rules leave alone is asked about with
    Keep both recommended when that is at least the cross-validated threshold, both say it with
    the same polarity and tense, and the new one has no change wording ("I gave up ..."). `likely`:
    a topic the vectors find likely but not sure for a new fact whose words and vectors name none
    (slot_vectors.likely_slot); it counts only against an old fact of that very topic, since a
    stored job makes "i pull espresso shots all day" more likely a job than it is alone;
    `likely_old`, the same for old facts (by id), against a new fact that states that topic. If one of them is a near duplicate, only that is
    returned (the best: highest score, then lowest id) and nothing is nominated; otherwise each
    old fact is nominated at most once, in the given order, with the rule that fired.
    """
    cos = cosines or {}
    seen: set[int] = set()
    live: list[Fact] = []
    for fact in old:
        if fact.id in seen or fact.status == "historical":
            continue
        seen.add(fact.id)
        live.append(fact)
    new = _profile(new_text)
    best: tuple[float, int] | None = None
    for fact in live:
        score = _duplicate_score(new, _profile(fact.text), cos.get(fact.id))
        if score is not None and (best is None or (-score, fact.id) < (-best[0], best[1])):
            best = (score, fact.id)
    if best is not None:
        return Assessment(duplicate_of=best[1], nominations=())
    nominations = []
    cut = pair_threshold() if same else None
    stated = {match.slot for match in new.slots if not match.hint} | ({new_slot} if new_slot else set())
    if likely is not None and not _own_present(new_text, likely):
        likely = None
    for fact in live:
        topic = new_slot
        guessed = False  # the topic is only the vectors' guess, and the new fact names no value of it
        if (topic is None and likely is not None and not new.slots and likely in _slots_of(fact)
                and _own_present(new_text, likely)):
            topic = likely
            guessed = not _may_hold_value(new_text, likely)
        half = (likely_old or {}).get(fact.id)
        if half is not None and half in stated and not _slots_of(fact) and _own_present(fact.text, half):
            fact = replace(fact, slot=half)  # an old fact likely of the topic the new one states
        found = _nominate(new_text, fact, topic)
        if found is not None and found[1] == VERDICT_CHANGE and guessed:
            # "wind-dried in the hjallur through a whole winter" after "we live in Lae": the
            # vectors find it of a home, but it names no town, so nothing is recommended
            found = found[0], VERDICT_UNCLEAR
        if found is not None and found[1] == VERDICT_CHANGE and other_topics(fact.text, stated):
            # "I'm 34 and I live in Leeds" after "turned 35": marking it past would lose the home
            # too, so nothing is recommended (walking the story in the terminal, twelfth pass)
            found = found[0], VERDICT_UNCLEAR
        if found is None and cut is not None and (same or {}).get(fact.id, 0.0) >= cut:
            if _same_in_other_words(new, _profile(fact.text), new_slot or fact.slot):
                found = RULE_SAME_MEANING, VERDICT_SAME  # said again in other words
        if found is not None:
            nominations.append(Nomination(old_id=fact.id, rule=found[0], verdict=found[1]))
    return Assessment(duplicate_of=None, nominations=tuple(nominations))

