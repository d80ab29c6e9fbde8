"""Shared text helpers for the memory rules: normalisation, word tokens, lemmas, content words,
numbers and names.

Why one module: candidate finding, near-duplicate detection, the conflict rules, recall and the
curator must agree on what "the same word" means. If each had its own tokeniser, a memory found
by one part would be invisible to another ("dogs" vs "dog", "I'm" vs "I am", "favourite" vs
"favorite"). Everything here is a pure function over strings, deterministic and cheap; no
language model, no downloaded word lists (this machine cannot fetch them).

The API is deliberately small: `normalise`, `tokens`, `lemma`, `lemmas`, `content_words`,
`numbers`, `names`, and the word lists `STOP_WORDS` and `GENERIC_WORDS`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from bot.memory.rules.regex_gate import may_match, required_literals

__all__ = [
    "GENERIC_WORDS",
    "IRREGULAR_FORMS",
    "STOP_WORDS",
    "content_words",
    "is_typo_of",
    "lemma",
    "lemmas",
    "names",
    "normalise",
    "numbers",
    "tokens",
    "written_span",
]

# --- normalisation ---------------------------------------------------------------------------

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})
_DIGIT_WORD = re.compile(r"(?<=\d)(?=[a-z]{3,})")
_DASHES = re.compile(r"(?<=[a-z0-9])[-\u2010\u2011\u2012\u2013\u2014/](?=[a-z0-9])")
# a dash between spaces sets a clause apart, as a comma does: "Surf instructor — that's me",
# "Retired now — forty years on the railways — and"
_SPACED_DASH = re.compile(r" +(?:[-\u2013\u2014]|--) +")
# a line break, with the mark of a list item after it ("Home:\n- Port Sudan these days\n- moved
# from Khartoum", "Basics:\n1. age 47\n2. ..."): the lines are separate statements
_LINE_BREAK = re.compile(r"[ \t\r]*\n\s*(?:(?:[-*\u2022\u00b7\u2013\u2014]+|\d{1,2}[.)])[ \t]+)?")
_ENDS_CLAUSE = frozenset(".!?:;,")

# Contractions, with and without the apostrophe (chat users often drop it). The bare forms are
# limited to ones that are not also ordinary words ("well", "were", "its" are left alone).
_CONTRACTIONS: tuple[tuple[str, str], ...] = (
    (r"\bwon't\b", "will not"),
    (r"\bcan't\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"\bain't\b", "is not"),
    (r"\bshan't\b", "shall not"),
    (r"n't\b", " not"),
    (r"\bi'm\b", "i am"),
    (r"\bim\b", "i am"),
    (r"\bive\b", "i have"),
    (r"\bidk\b", "i do not know"),
    (r"\b(do|does|did|is|are|was|were|have|has|had|would|could|should)nt\b", r"\1 not"),
    (r"\bcant\b", "can not"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"\b(he|she|it|that|there|what|who|where|here|how|this)'s\b", r"\1 is"),
    (r"\bwhats\b", "what is"),
    (r"\bthats\b", "that is"),
    (r"'s\b", ""),
    (r"s'(?=\s|$)", "s"),
)
_CONTRACTIONS_COMPILED = tuple((re.compile(p), r, required_literals(p)) for p, r in _CONTRACTIONS)
_SPACES = re.compile(r"\s+")
# Latin letters with no decomposition into a base letter and a mark
_LATIN_LETTERS = {"ø": "o", "ł": "l", "ß": "ss", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d",
                  "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t"}
_EMOJI_JOINERS = frozenset("\u200d\ufe0f\ufe0e\u20e3")


def _fold(text: str) -> str:
    """Latin letters without their accents ("Montréal", "Peñarol", "Thiès", "Łódź" -> "montreal",
    "penarol", "thies", "lodz"), and emoji as a space ("Musanze 🌋 is home" -> "musanze is home").

    Why: the rules read words as runs of a-z, so an accent cut a word in two ("thiès" was "thi"
    and "s") and a city or a team with one could not be a value at all; people also type the same
    name with and without its accents. An emoji between a value and its verb hid the pattern.
    Only Latin letters are folded: a Japanese voiced kana or a Cyrillic letter keeps its mark,
    since there the mark makes another letter. Symbols below the arrows ("°", "©") stay.
    """
    if text.isascii():
        return text
    out = []
    for char in text:
        if char in _LATIN_LETTERS:
            out.append(_LATIN_LETTERS[char])
        elif "\u00c0" <= char <= "\u024f" or "\u1e00" <= char <= "\u1eff":
            out.append("".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)))
        elif char in _EMOJI_JOINERS or char >= "\u2190" and unicodedata.category(char) in ("So", "Sk"):
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def written_span(text: str, pattern: str) -> str | None:
    """The part of `text`, as the person wrote it, that `pattern` finds in the text lower-cased
    with its accents folded as `normalise` folds them, or None. Why: values are read from folded
    text ("sao paulo"), and a question quoting one must keep the person's own spelling ("Still
    living in São Paulo?")."""
    pieces: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for folded in _fold(char.lower()):
            pieces.append(folded)
            origin.append(index)
    found = re.search(pattern, "".join(pieces))
    if found is None or found.end() == found.start():
        return None
    return text[origin[found.start()]:origin[found.end() - 1] + 1]


def _line_break(match: re.Match[str]) -> str:
    # the last mark before the break, found without copying the text (a long paste has many)
    text, i = match.string, match.start() - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return " " if i < 0 or text[i] in _ENDS_CLAUSE else ". "


# "*word" after a slip: the typist's correction of a word just before it ("Englidh *English",
# "finaly got a Land Cruiser *finally"); not "*word*" (emphasis) nor a bullet ("* item")
_CORRECTION = re.compile(r"(?:(?<=\s)|^)\*([^\W\d_][\w']*)(?![\w']*\*)")
_CORRECTION_REACH = 6  # words back a correction may reach
_CLOSING_STAR = re.compile(r"[^\W_]\*")


def _corrected(text: str) -> str:
    """The text with each "*word" put in place of the word it corrects: of the few words before
    it, the one spelled most like it (a typo), else the word just before it ("Seville *Sevilla").

    Why: people fix a slip this way in chat, and the rules read the slip ("boyfiend", "Englidh")
    and not the correction, so "my boyfiend *boyfriend" was no partner and "I teach Englidh
    *English" a different job from "I teach English".
    """
    from difflib import SequenceMatcher  # noqa: PLC0415 (only a text with a correction needs it)

    start_at = 0
    while (found := _CORRECTION.search(text, start_at)) is not None:
        word = found.group(1)
        before = text[:found.start()].rstrip()
        rest = text[found.end():]
        if _CLOSING_STAR.search(rest):  # "I *really love* it": emphasis of several words
            start_at = found.end()
            continue
        spans = [m.span() for m in re.finditer(r"[^\W\d_][\w']*", before)][-_CORRECTION_REACH:]
        if not spans:
            text = (before + " " if before else "") + word + rest
            continue
        scored = [(SequenceMatcher(None, before[a:b], word).ratio(), a, b) for a, b in spans]
        best = max(scored, key=lambda item: (item[0], item[1]))
        start, end = best[1:] if best[0] >= 0.6 else spans[-1]
        text = before[:start] + word + before[end:] + rest
    return text


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """Lower-case, NFKC, Latin accents folded, emoji as spaces, one kind of apostrophe,
    contractions expanded, hyphens as spaces, a dash between spaces as a comma, a line break
    (and a list item's mark after it) as the end of a sentence.

    Why expand contractions: patterns such as "i am a ..." must match "I'm a ..." and "Im a ...",
    and negation ("don't") must survive as the word "not". Punctuation that ends a sentence or a
    clause is kept, because rules look at one clause at a time.
    """
    out = _fold(unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower())
    if "*" in out:
        out = _corrected(out)
    if "\n" in out:
        out = _LINE_BREAK.sub(_line_break, out.strip())
    out = _DASHES.sub(" ", out)
    out = _SPACED_DASH.sub(", ", out)
    out = _DIGIT_WORD.sub(" ", out)
    for pattern, replacement, gate in _CONTRACTIONS_COMPILED:
        if may_match(gate, out):  # most texts hold none of these: skip the scan
            out = pattern.sub(replacement, out)
    out = out.replace("'", " ")
    return _SPACES.sub(" ", out).strip()


# what a message to the bot may open with before the fact itself: "remember I got a blue
# heeler", "You should know I have a dachshund", "Please note my son is ...", "fyi: ..."
_LEAD_IN = re.compile(
    r"^(?:(?:ok|okay|oh|and|also|btw|hey|so|yeah|yes|yep|right|alright|well)[ ,]+)*(?:(?:please|pls|can you|could you)[ ,]+)?"
    r"(?:remember(?! when| the| how| what| to\b)|note(?: (?:this|that|it))? down|note(?! to self)|note to self|keep in mind|bear in mind|fyi"
    r"|for (?:context|reference|my profile|(?:your|ur|yr|the) (?:records?|notes|files?|log|memory|database))"
    r"|heads up|if anyone asks"
    # a verb of keeping before a colon: "Please save: I am safari guide"
    r"|(?:kindly )?(?:save|store|record|log|add|write|jot|keep)(?= ?:)"
    # the same, in the writer's own language, before a colon: "merk dir das: 44 since Tuesday"
    r"|(?:merk dir(?: das)?|notier(?: dir)?(?: das)?|schreib (?:dir )?(?:das )?auf|anota(?: esto)?|apunta(?: esto)?"
    r"|ricorda(?:ti)?(?: che)?|lembra(?: disso)?|anote|note ca|retiens|zapisz|zapamietaj|not al|onthoud)(?= ?:)"
    r"|(?:just )?so (?:you|u|ya) (?:know|remember)|for your (?:info|information)"
    r"|you (?:should|might as well|need to|ought to|gotta|got to|have to) know(?: about)?"
    r"|i (?:want|wanted) you to know|i should (?:tell you|mention)|let me tell you"
    r"|i (?:wish|want|wanted|would like|am writing) to (?:inform|tell|let)(?: you)?(?: know)?"
    # a verb of keeping a record, with what it keeps ("store this:", "jot this down",
    # "put down that", "add to my profile:"): without one ("write a novel") it is the fact itself
    r"|(?:kindly )?(?:save|store|record|log|add|write|jot|put|keep)"
    r"(?=(?: (?:this|that|it|down|doon))+\b| (?:to|in|on) (?:my|your|the) (?:profile|memory|notes|records?|files?|lists?|book)\b)"
    r"(?: (?:this|it|down|doon|(?:to|in|on) (?:my|your|the) (?:profile|memory|notes|records?|files?|lists?|book)))*"
    # "in case you forget: postwoman"
    r"|in case (?:you|u) forget)"
    r"(?: (?:that|this))?"
    # the reader addressed after it: "remember this hun: 26!", "remember brother, 31 years old"
    r"(?:,? (?:hun|hon|honey|love|dear|mate|bro|brother|sis|buddy|pal|friend|boss|man|dude|babe|darling|computer|bot|"
    r"habibi|habibti|bhai|yaar|amigo|amiga|hijo|hija|hijito|mijo|mija|fam|chief)(?= ?[:,.!-]))?"
    r"(?: ?[:,.!-]+ ?| )"
)


# the bot addressed before the fact: "Respected assistant, I am an English teacher", "Dear bot:
# ..." (a greeting before it too); not "assistant manager at tesco", which has no mark after it
_VOCATIVE = re.compile(
    r"^(?:(?:hi|hello|hey|ok|okay|good (?:morning|afternoon|evening|day))[ ,]+)*(?:my )?"
    r"(?:(?:dear|respected|kind|good|lovely|dearest|esteemed) )?(?:assistant|bot|robot|computer|chatbot|sir|madam|ma am|buddy)"
    r" ?[:,.!-]+ ?"
)


def without_lead_in(norm: str) -> str:
    """A normalised message without what it says to the bot before the fact ("remember that",
    "you should know", "fyi:"): rules that read a sentence from its start read the fact."""
    addressed = _VOCATIVE.sub("", norm, count=1)
    if addressed.strip():
        norm = addressed
    stripped = _LEAD_IN.sub("", norm, count=1)
    if stripped != norm:
        stripped = _LEAD_IN.sub("", stripped, count=1)  # two of them: "fyi if anyone asks, ..."
    return stripped if stripped.strip() else norm


def strip_lead_in(text: str) -> str:
    """A message as written, without what it says to the bot before the fact ("Store this: I have
    a pit mix" -> "I have a pit mix"): what a Save offer quotes and saves. Unchanged when nothing
    is left, or when the lead-in cannot be cut in the written text."""
    stripped = text.strip()
    low = stripped.lower()
    addressed = _VOCATIVE.match(low) if len(low) == len(stripped) else None
    if addressed and stripped[addressed.end():].strip():
        stripped = stripped[addressed.end():].strip()
    for _ in range(2):  # two of them: "fyi if anyone asks, ..." (as without_lead_in)
        low = stripped.lower()
        found = _LEAD_IN.match(low) if len(low) == len(stripped) else None
        rest = stripped[found.end():].strip() if found else ""
        if not rest:
            break
        stripped = rest
    return stripped


_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z]+")


def tokens(text: str) -> list[str]:
    """Word tokens of the normalised text: runs of letters, and numbers ("1,500", "2.5").

    Digits glued to letters are split ("5cats" -> "5", "cats"; "60years" -> "60", "years"),
    which is how people type in chat.
    """
    return _TOKEN.findall(normalise(text))


# --- word lists ------------------------------------------------------------------------------

STOP_WORDS: frozenset[str] = frozenset(
    """
    a an the and or but nor so yet if then than that this these those there here
    i me my mine myself we us our ours ourselves you your yours yourself he him his himself
    she her hers herself it its itself they them their theirs themselves one ones
    who whom whose which what when where why how whatever whoever
    am is are was were be been being do does did doing done have has had having
    will would shall should can could may might must ought
    not no nor never neither none
    of to in on at by for with from into onto about above below over under up down out off
    through across along around after before during since until till upon within without
    between among against toward towards via per than as
    all any both each every few more most other some such only own same
    too very just also really quite rather still already even ever again always often
    sometimes usually mostly mainly currently recently lately now today tonight yesterday
    tomorrow soon then once twice almost nearly enough much many lot lots
    s t d ll m re ve o y u ur im dont cant
    hey hi hello hiya yo ok okay yeah yes yep nope oh ah um uh well lol haha anyway anyways
    whats thats theres
    something anything everything nothing someone anyone everyone nobody somebody anybody
    everybody somewhere anywhere everywhere
    because while though although unless whether
    get got gets getting go goes going went gone
    """.split()
)
"""Function words: they carry no topic and never make two memories related."""

GENERIC_WORDS: frozenset[str] = frozenset(
    """
    like love enjoy prefer adore hate dislike detest loathe fond
    want wish need hope plan try use make take give put keep let come see look watch
    know think feel believe say tell find seem become
    live work play spend start begin
    thing stuff kind type sort bit way part piece deal
    time day week month year hour minute moment night weekend
    favorite favourite best good great nice bad new old big small little huge real whole
    several various
    people person guy
    actually basically definitely probably
    """.split()
)
"""Words that occur in facts of every topic ("I love ...", "my favorite ...", "I live ...").

Sharing one of them says nothing about two memories being about the same thing, so they are
not keywords. They still count for meaning elsewhere (a restatement must use the same verbs).
"""

# --- lemmas ----------------------------------------------------------------------------------

_IRREGULAR: dict[str, str] = {
    # be / have / do
    "am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
    "has": "have", "had": "have", "having": "have", "does": "do", "did": "do", "done": "do",
    # common irregular verbs
    "bought": "buy", "sold": "sell", "drove": "drive", "driven": "drive", "went": "go",
    "gone": "go", "got": "get", "gotten": "get", "left": "leave", "ran": "run", "swam": "swim",
    "ate": "eat", "eaten": "eat", "made": "make", "took": "take", "taken": "take",
    "gave": "give", "given": "give", "said": "say", "saw": "see", "seen": "see", "met": "meet",
    "began": "begin", "begun": "begin", "became": "become", "grew": "grow", "grown": "grow",
    "wrote": "write", "written": "write", "taught": "teach", "thought": "think",
    "brought": "bring", "caught": "catch", "felt": "feel", "kept": "keep", "lost": "lose",
    "paid": "pay", "spent": "spend", "won": "win", "sang": "sing", "sung": "sing",
    "broke": "break", "broken": "break", "knew": "know", "known": "know", "found": "find",
    "told": "tell", "sat": "sit", "stood": "stand", "understood": "understand", "flew": "fly",
    "flown": "fly", "rode": "ride", "ridden": "ride", "fell": "fall", "fallen": "fall",
    "held": "hold", "built": "build", "sent": "send", "lent": "lend", "led": "lead",
    "fed": "feed", "fought": "fight", "wore": "wear", "worn": "wear", "chose": "choose",
    "chosen": "choose", "drank": "drink", "drunk": "drink", "slept": "sleep", "woke": "wake",
    "hid": "hide", "bit": "bite", "lay": "lie", "forgot": "forget",
    "forgotten": "forget", "quit": "quit", "quitting": "quit", "lives": "live",
    "changing": "change", "changed": "change", "changes": "change",
    "travelling": "travel", "travelled": "travel", "traveller": "traveler",
    "travellers": "traveler",
    # irregular plurals
    "children": "child", "kids": "kid", "men": "man", "women": "woman", "people": "person",
    "wives": "wife", "knives": "knife", "feet": "foot", "teeth": "tooth",
    "mice": "mouse", "geese": "goose", "leaves": "leaf", "wolves": "wolf", "shelves": "shelf",
    "halves": "half", "calves": "calf", "loaves": "loaf", "thieves": "thief",
    "grandchildren": "grandchild", "stepchildren": "stepchild", "fish": "fish",
    "sheep": "sheep", "deer": "deer", "series": "series", "species": "species",
    "news": "news", "clothes": "clothes", "glasses": "glasses", "jeans": "jeans",
    "pants": "pants", "shorts": "shorts", "bus": "bus", "gas": "gas", "yes": "yes",
    "always": "always", "perhaps": "perhaps", "sometimes": "sometimes", "afterwards": "afterwards",
    # British spellings, so that "favourite colour" and "favorite color" meet
    "favourite": "favorite", "favourites": "favorite", "favorites": "favorite",
    "colour": "color", "colours": "color", "flavour": "flavor", "flavours": "flavor",
    "neighbour": "neighbor", "neighbours": "neighbor", "theatre": "theater", "centre": "center",
    "organise": "organize", "organised": "organize", "mum": "mom", "mums": "mom",
    "grey": "gray", "programme": "program", "programmes": "program", "used": "use",
    "tomatoes": "tomato", "potatoes": "potato", "heroes": "hero", "echoes": "echo",
    "mosquitoes": "mosquito", "volcanoes": "volcano",
    "motorbike": "motorcycle", "motorbikes": "motorcycle",
}


IRREGULAR_FORMS: dict[str, str] = dict(_IRREGULAR)
"""Word form -> lemma for the forms the suffix rules cannot handle (irregular verbs and plurals,
British spellings). Read-only; exported so that a search can be given every spelling."""

# Nouns in -ie whose plural is -ies (everything else in -ies comes from -y: cities -> city).
_IE_NOUNS = frozenset(
    "movie cookie zombie brownie selfie rookie hoodie smoothie veggie goalie auntie pie tie lie "
    "die genie hippie newbie foodie techie prairie calorie lingerie birdie bootie cutie "
    "sweetie freebie indie".split()
)
# Words that only look inflected.
_NOT_INFLECTED = frozenset(
    """
    thing nothing something anything everything morning evening during spring string ceiling
    sibling darling pudding clothing king ring sing bring sting wing swing ping pong
    need feed seed speed breed weed greed bleed hundred sacred naked wicked kindred bed red shed
    wed sled bred hatred
    this his hers yours ours theirs is was has does its us plus bus gas yes
    always perhaps sometimes lens news series species physics mathematics economics politics
    athletics gymnastics aerobics ethics
    """.split()
)
_VOWELS = set("aeiou")


def _restore_stem(stem: str) -> str:
    """Undo spelling changes made before -ing / -ed: doubled consonants and a dropped e."""
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS | {"l", "s", "z", "f"}:
        return stem[:-1]  # running -> run, shopping -> shop
    if stem.endswith(("c", "v", "iz", "yz", "dg", "rg", "ur", "us", "ir", "ag")) or re.search(
        r"(?:[bcdfgkptz]l|[^aeiou]at|[^aeiou][iu]d)$", stem
    ):
        return stem + "e"  # dancing -> dance, moving -> move, cycling -> cycle
    groups = re.findall(r"[aeiouy]+", stem)
    if (
        len(groups) == 1
        and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", stem)
        and not re.search(r"(?:ck|ng|sh|ch|th)$", stem)
    ):
        return stem + "e"  # hiking -> hike, liked -> like, riding -> ride
    return stem


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """A light lemma: plural and verb endings removed, a few irregular forms and British
    spellings mapped ("dogs" -> "dog", "hiking" -> "hike", "married" -> "marry",
    "children" -> "child", "favourite" -> "favorite").

    Why not a real lemmatiser: none can be installed here, and the rules only need the forms of
    one word to meet, not dictionary headwords. Agent nouns keep their ending ("teacher" stays
    "teacher", not "teach"), because a teacher and teaching are different facts.
    """
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3 or not w.isalpha() or w in _NOT_INFLECTED:
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-1] if w[:-1] in _IE_NOUNS else w[:-3] + "y"
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ing") and len(w) > 5:
        return _restore_stem(w[:-3])
    if w.endswith("ed") and len(w) > 4 and not w.endswith("eed"):
        stem = w[:-2]
        if stem.endswith("e"):
            return stem
        return _restore_stem(stem)
    if w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def lemmas(text: str) -> frozenset[str]:
    """Lemmas of every non-stop word of `text` (generic words included, numbers excluded).

    Why keep generic words here: "I live in Paris" and "I visited Paris" share their only
    keyword, yet say different things; comparisons of meaning need the verbs.
    """
    return frozenset(lemma(t) for t in tokens(text) if t not in STOP_WORDS and not t[0].isdigit()
                     and t not in _NUMBER_WORDS)


def content_words(text: str) -> frozenset[str]:
    """Lemmas of the words that carry the topic: no stop words, no generic words, no numbers.

    These are what make two memories "share meaningful words" (docs/ARCHITECTURE.md section 4).
    """
    out = set()
    for tok in tokens(text):
        if tok in STOP_WORDS or tok in GENERIC_WORDS or tok[0].isdigit() or tok in _NUMBER_WORDS:
            continue
        lem = lemma(tok)
        if lem in STOP_WORDS or lem in GENERIC_WORDS or len(lem) < 2:
            continue
        out.add(lem)
    return frozenset(out)


# --- numbers ---------------------------------------------------------------------------------

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORDS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_SCALES) | {"dozen"}


def _canonical_number(token: str) -> str:
    """'1,500' -> '1500', '2.50' -> '2.5', '007' -> '7'.

    By string, not int(): Python refuses to convert more than 4,300 digits, and a memory may
    hold any number of them (an imported one did, and stopped tidying for everyone)."""

    def whole_part(digits: str) -> str:
        return digits.lstrip("0") or "0"

    if "." in token and "," not in token:
        whole, _, frac = token.partition(".")
        frac = frac.rstrip("0")
        return f"{whole_part(whole)}.{frac}" if frac else whole_part(whole)
    return whole_part(token.replace(",", "").replace(".", ""))


def number_values(toks: list[str]) -> list[tuple[int, int, str]]:
    """(start index, end index exclusive, canonical value) of every number in a token list.

    Number words are combined ("twenty five" -> 25, "a hundred" -> 100, "a dozen" -> 12).
    Internal helper shared with the conflict rules, which need positions to find what was
    counted ("3 kids"); not part of the stable API.
    """
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok[0].isdigit():
            out.append((i, i + 1, _canonical_number(tok)))
            i += 1
            continue
        if tok in _NUMBER_WORDS or (tok == "a" and i + 1 < len(toks) and toks[i + 1] in
                                    ("hundred", "thousand", "dozen")):
            start, total, current = i, 0, 0
            seen = False
            while i < len(toks):
                word = toks[i]
                if word in _UNITS:
                    current += _UNITS[word]
                elif word in _TENS:
                    current += _TENS[word]
                elif word in _SCALES:
                    current = max(current, 1) * _SCALES[word]
                    if _SCALES[word] >= 1000:
                        total, current = total + current, 0
                elif word == "dozen":
                    current = max(current, 1) * 12
                elif word == "a" and not seen:
                    pass
                elif word == "and" and seen and i + 1 < len(toks) and (
                    toks[i + 1] in _UNITS or toks[i + 1] in _TENS
                ):
                    pass
                else:
                    break
                seen = seen or word != "a"
                i += 1
            if seen:
                out.append((start, i, str(total + current)))
            else:
                i = start + 1
            continue
        i += 1
    return out


def numbers(text: str) -> frozenset[str]:
    """The numbers in `text`, canonical, digits or words alike ("four" and "4" are both "4").

    Why: a new memory that adds or changes a number ("3 kids" after "2 kids") is new
    information, never a duplicate.
    """
    return frozenset(value for _, _, value in number_values(tokens(text)))


# --- names -----------------------------------------------------------------------------------

_SENTENCE_START = re.compile(r"(?:^\s*|[.!?:;\n]\s*|[\"(]\s*)$")


def names(text: str) -> frozenset[str]:
    """Proper names in `text`, lower-cased: capitalised words that do not start a sentence, and
    acronyms anywhere ("VW", "BMW"). "I" is not a name.

    Why only capitalised words: without a tagger, capitals are the one cheap, reliable signal.
    Lower-case chat ("i drive a bmw") yields no names; the content words still catch the
    difference there.
    """
    out: set[str] = set()
    # a name is one of the text's own tokens: "A0𞋰" splits "0𞋰" as one number, not "0"
    own = set(tokens(text))
    for match in re.finditer(r"[A-Za-z][A-Za-z0-9'&]*", unicodedata.normalize("NFKC", text)):
        word = match.group(0)
        if not word[0].isupper() or word == "I" or word.startswith("I'"):
            continue
        is_acronym = len(word) >= 2 and word.isupper()
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        if at_start and not is_acronym:
            continue
        for tok in tokens(word):
            if tok not in STOP_WORDS and tok in own:
                out.add(tok)
    return frozenset(out)


def is_typo_of(a: str, b: str) -> bool:
    """Whether two words differ by one slip of the keyboard (one letter added, dropped, changed,
    or two neighbours swapped), in words long enough (6+ letters, 7+ for a changed letter) that
    such a slip does not make another common word. Why: people type fast in chat, and the same
    city misspelt must not be offered as a move ("Mark older as past" would retire the true
    fact)."""
    if a == b:
        return True
    if max(len(a), len(b)) < 6 or abs(len(a) - len(b)) > 1 or not (a.isalpha() and b.isalpha()):
        return False
    if a[0] != b[0]:
        return False  # a different first letter is rarely a slip, and often another name
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return len(a) >= 7  # one letter changed makes other words in shorter ones (banker)
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and (
            a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]
