"""The frame of a first-person statement: what the person does with what ("I have | a cat",
"I like | pizza", "I golf | -").

Why: two facts about one thing of a many-valued kind (pets, foods, hobbies, drinks) can be the
same fact said twice ("I have a cat named Whiskers" / "i have an old tabby cat", "I golf on my
days off" / "I golf three times a week"), which is worth one question with Keep both
recommended; but two facts that only share a verb ("I have a dog" / "I have a cat") or only
share a noun under different verbs ("I eat fish" / "I like to fish", "I have a dog" / "I love
dogs") are two facts, never asked about. Reading the verb and its object, not the word list,
is what tells them apart. Pure; no slot knowledge (single-value topics are decided elsewhere).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.memory.rules.text import (
    STOP_WORDS, content_words, is_typo_of, lemma, normalise, number_values, numbers, tokens, without_lead_in,
)

__all__ = ["Frame", "adds_another", "frame", "frame_words", "is_own_thing", "kind_words", "kinds", "same_thing",
           "with_name_parts"]

# verbs that mean the same relation: owning, liking
_FAMILIES = {
    "have": "have", "own": "have", "got": "have", "adopt": "have", "get": "have", "rescue": "have",
    "rescu": "have",  # the lemma of "rescued"
    "like": "like", "love": "like", "enjoy": "like", "adore": "like", "prefer": "like",
    # eating or drinking a thing is liking it ("i drink cheap beer" / "i like a cold beer");
    # a diet is a topic of its own and never reaches this (a stated topic is compared first)
    "eat": "like", "drink": "like",
    # listening to a kind of music is liking it ("i listen to old jazz records" / "i love jazz")
    "listen": "like",
    # a taste said with an adjective: "I'm partial to a half of mild", "I'm fond of rakija"
    "partial": "like", "fond": "like",
}
# "I like trying local beers": the thing liked follows the gerund
_LIKE_GERUNDS = frozenset("trying eating drinking having tasting making".split())
# words that may sit between the subject and the verb
_SKIP = frozenset(
    "also really just still always usually often sometimes mostly totally absolutely truly "
    "do am are be been could can would will currently now even kinda kind of sort so very big huge "
    "real actually definitely especially".split()
)
# "go fishing", "went hiking": the activity is the gerund
_GO = frozenset({"go", "goes", "went", "going", "gone"})
# a clause ends at these: what follows is not the object ("named Biscuit" is a name, which
# may differ for one and the same pet; "with my grandkids", "on the long hauls", "all day long"
# are circumstances)
_OBJECT_END = frozenset(
    "and but because since so when while with every each times during after before than named "
    "called who that which whose on all never not except instead".split()
)
# after an activity verb these start a circumstance, not an object: "I golf on my days off"
_CIRCUMSTANCE = frozenset(
    "on in at with every each during after before near by around off out down up over all most "
    "almost "
    "twice once daily weekly most whenever when while".split()
)
# a shared word of this kind names a category, and the value is its modifier: "country music"
# and "rock music" are two likes
_CATEGORIES = frozenset(
    "music song band food dish meal cuisine movie film show series book novel game sport art "
    "drink beverage tv video genre style type kind animal pet thing stuff place".split()
)
# verbs whose frame says nothing about a many-valued thing: single-value topics (live, work,
# drive, eat), and verbs whose object changes their meaning
_NOT_FRAMES = frozenset(
    "live work drive move stay study be come make take want need use try plan hope think "
    "know feel look see say tell find seem become start begin give put keep let spend wish "
    "believe hate dislike detest loathe visit meet travel fly attend".split()
)
_HAVE_LIKE = frozenset({"like", "have"})
# verbs before "to" and an activity that say one does it: "i try to hike every month"
_TRY = frozenset({"try", "tend", "manage"})
# kinds of pet by their breed: "a beagle" is a dog, as "two dogs" are
_KINDS = {
    **dict.fromkeys(
        "retriever labrador lab poodle terrier shepherd collie corgi husky dalmatian pug bulldog "
        "chihuahua dachshund boxer rottweiler spaniel greyhound pitbull schnauzer doberman mutt "
        "puppy pup beagle sheepdog whippet setter pointer mastiff maltese shih tzu yorkie "
        "pomeranian weimaraner vizsla akita hound heeler labradoodle goldendoodle doodle cockapoo "
        "maltipoo bernedoodle newfoundland bernese samoyed malamute shiba basset bloodhound "
        "coonhound cavalier bichon havanese papillon westie scottie sheltie springer cocker "
        "ridgeback russell aussie staffie staffy frenchie newfie kelpie lurcher huntaway dackel".split(), "dog"),
    **dict.fromkeys("kitten kitty tabby siamese calico ragdoll sphynx bengal moggy moggie persian "
                    "tortie mainecoon".split(), "cat"),
}
# pets without breeds in the table: what "pets" also means
_OTHER_PETS = frozenset(
    "hamster rabbit bunny parrot budgie parakeet bird goldfish turtle tortoise horse pony "
    "ferret snake lizard gecko iguana guinea".split()
)
# children: a generic word covers the specific ones ("two kids" / "two daughters" are the same
# children), but two specific ones are two children ("a son" / "a daughter")
_CHILD_GENERIC = frozenset({"kid", "child", "children", "littleone"})
_CHILD_SPECIFIC = frozenset({"son", "daughter", "boy", "girl", "baby", "toddler", "teenager"})
# a pastime named by its thing or by its doer: "i always have a book in my bag" and "im a big
# reader" are reading, "i hit the trails" is hiking ("fish" is not here: eating fish is no fishing)
_PASTIMES = {
    **dict.fromkeys("book novel bookworm reader".split(), "read"),
    **dict.fromkeys("trail hiker fourteener hike".split(), "hike"),
    **dict.fromkeys("garden gardener allotment".split(), "garden"),
    **dict.fromkeys("woodworking woodwork woodworker lathe carpentry".split(), "woodwork"),
    # "games" alone may be baseball; a few games everyone knows by name
    **dict.fromkeys("gamer gaming videogame fortnite minecraft roblox zelda pokemon warzone valorant "
                    "xbox playstation".split(), "game"),
    **dict.fromkeys("recipe".split(), "cook"),
    **dict.fromkeys("yarn knitter".split(), "knit"),
    **dict.fromkeys("angler fisherman".split(), "fish"),
    **dict.fromkeys("runner marathon".split(), "run"),
    **dict.fromkeys("golfer".split(), "golf"),
}
# verbs whose object names the pastime ("i play video games", "i hit the trails"); "be" for
# "i'm a big reader" (the frame reads "a" as the verb of "im a ...")
_PASTIME_VERBS = frozenset("have like play hit a an am be m".split())
# a drink by its kind: "an espresso" is coffee, as "a lager" is beer
_DRINKS = {
    **dict.fromkeys("coffee coffe espresso latte cappuccino americano cortado macchiato mocha "
                    "flatwhite coldbrew doubledouble kopi cafezinho cafecito ristretto frappuccino "
                    "nescafe folgers longblack kape kaffee kahve kahvesi koffie kafe kahawa qahwa gahwa kawa".split(), "coffee"),
    **dict.fromkeys("tea chamomile matcha chai cuppa earlgrey oolong rooibos lipton tetley darjeeling assam "
                    "sencha teh cay".split(), "tea"),
    # and the beers people name by their brand, from general knowledge (2026-12-04)
    **dict.fromkeys("beer lager ale ipa stout pilsner porter pint pints brewski brewskis coldie coldies "
                    "molson labatt coors budweiser heineken corona guinness carlsberg tusker modelo pacifico "
                    "tecate peroni amstel asahi kirin sapporo tsingtao kingfisher yuengling michelob "
                    "tooheys coopers abita redstripe sanmiguel emuexport "
                    # (only brands that are no common word or name: not "castle", "stella", "tiger")
                    "speights speight steinlager shiner bintang singha efes quilmes brahma skol sagres mahou moretti "
                    "grolsch warsteiner krombacher bitburger paulaner erdinger tyskie zywiec budvar "
                    "staropramen carling tennents fosters kokanee smithwicks kronenbourg leffe duvel chimay "
                    "hoegaarden windhoek gulder cusquena medalla".split(), "beer"),
    **dict.fromkeys("wine merlot chardonnay cabernet pinot malbec riesling shiraz prosecco rioja barolo "
                    "sauvignon pinotage tempranillo zinfandel vino".split(), "wine"),
    **dict.fromkeys("whisky whiskey scotch bourbon".split(), "whisky"),
    **dict.fromkeys("cider scrumpy".split(), "cider"),
}
# the drinks a slip of the keyboard is read as (not brands or slang: "collies" is no "coldies")
_SPELT_DRINKS = tuple(
    "coffee coffe espresso latte cappuccino americano cortado macchiato mocha flatwhite coldbrew "
    "doubledouble chamomile matcha cuppa earlgrey oolong rooibos lager stout pilsner porter merlot "
    "chardonnay cabernet pinot malbec riesling shiraz prosecco rioja barolo sauvignon whisky whiskey "
    "bourbon".split()
)
# two words that name one thing: a drink, a child by a pet name
_WORD_PAIRS = {("flat", "white"): "flatwhite", ("flat", "whites"): "flatwhite", ("cold", "brew"): "coldbrew",
                ("earl", "grey"): "earlgrey", ("earl", "gray"): "earlgrey",
                ("double", "double"): "doubledouble", ("long", "black"): "longblack",
                ("red", "stripe"): "redstripe", ("san", "miguel"): "sanmiguel", ("emu", "export"): "emuexport",
                ("emu", "exports"): "emuexport",
                ("cold", "ones"): "coldies", ("cold", "one"): "coldie",
                # a child by a pet name: "my little guy", "our lil ones"
                **{(a, b): "littleone" for a in ("little", "lil") for b in ("guy", "man", "one", "ones", "fella")},
                ("raised", "beds"): "garden", ("raised", "bed"): "garden",
                ("maine", "coon"): "mainecoon", ("maine", "coons"): "mainecoon"}
# the words a two-word drink or breed is written as ("earlgrey": "earl", "grey")
_NAME_PARTS = {
    name: tuple(dict.fromkeys(w for pair, n in _WORD_PAIRS.items() if n == name for w in pair))
    for name in set(_WORD_PAIRS.values()) if name in _DRINKS or name == "mainecoon"
} | {"pitbull": ("pit",)}  # "my pit mix" is stored as "pit" and "mix" ("pitbull" is read in _tokens)
# words a chat message may open with before its subject: "btw i knit!", "honestly i run on coffee"
_OPENERS = frozenset("btw fyi ps lol haha honestly also oh well ok okay so yeah yes tbh anyway plus".split())
_DRINK_KINDS = frozenset(_DRINKS.values())
_EVERY_DRINK = frozenset(_DRINKS) | _DRINK_KINDS
_EVERY_PASTIME = frozenset(_PASTIMES) | frozenset(_PASTIMES.values())
_PASTIME_NAMES = frozenset(_PASTIMES.values()) | frozenset(
    "knit crochet sew quilt paint draw bake garden hike fish golf swim surf climb ski skate dance sing "
    "read run cycle bike box camp hunt sail row kayak paddle".split())
# the words a search for one drink or one pastime should look for together
_SEARCH_GROUPS = tuple(
    frozenset(w for w, kind in table.items() if kind == name) | {name}
    for table in (_DRINKS, _PASTIMES) for name in dict.fromkeys(table.values())
)
# one relative by its other words, searched together (the frames read them as one: _KIN_SLANG,
# _CHILD_WORDS)
_KIN_GROUPS = (
    frozenset({"brother", "bro", "bros"}), frozenset({"sister", "sis", "sissy"}),
    frozenset({"son", "boy", "lad"}), frozenset({"daughter", "girl", "lass", "lassie"}),
)
# words that only say which of one's relatives: "my twin sister" and "our twin boys" share no one
_KIN_MODIFIERS = frozenset("twin older younger little big baby eldest oldest youngest lil wee small step half "
                           "teenage grown".split())
# who else a sentence may be about: then it says nothing of the person's own likes
_OTHERS = frozenset("he she they his her their your its it".split())
# a statement may open with when it holds: "on sundays i go fishing"
_LEADING_TIME = frozenset("on in at every most some during after before weekends mornings evenings nights "
                          "summers winters sundays saturdays usually often sometimes".split())
# family: a person's own children, brothers and sisters ("my brother lives in texas" says the
# person has a brother); partners and parents are topics or people of their own
_KIN = frozenset(
    "brother sister sibling kid child children son daughter boy girl twin grandkid grandchild "
    "grandson granddaughter lad lass lassie littleone teen teenager toddler".split()
)
# a child or sibling said first without "my" is one's own ("Daughter just turned 5"); not "boy",
# "girl", "lad" or "teen", which are anyone's ("girl at work said ...")
_BARE_KIN = frozenset("son daughter brother sister bro sis grandson granddaughter".split())
_KIN_ADJECTIVES = frozenset("newborn baby little lil eldest oldest youngest older younger big teenage grown".split())
# the people a sentence may be about besides the speaker
_PEOPLE = _KIN | frozenset(
    "husband wife partner boyfriend girlfriend fiance fiancee spouse hubby mom mother dad father "
    "friend boss roommate neighbor coworker colleague parent grandma grandpa".split()
)
# a fragment that drops its "I": "Got three rescue dogs.", "adopted a greyhound last year"
_DROPPED_I = frozenset("got adopted rescued own have love adore spend".split())
_POSSESSIVE = frozenset({"my", "our", "oor"})  # "oor": Scots
_FIRST_PERSON = frozenset({"i", "we", "me", "us", "my", "our", "im", "ive"})
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten a couple".split())


_SENTENCE_END = re.compile(r"(?:(?<!\.)\.(?!\.)|[!?]+) (?=\S)")  # (an ellipsis goes on: "Got an aspin... street dog")


@dataclass(frozen=True)
class Frame:
    """`verb`: the family ("have", "like") or the activity's lemma ("golf", "fish"); `objects`:
    content lemmas of what follows it in the first clause (empty for "I golf on Sundays")."""

    verb: str
    objects: frozenset[str]


@lru_cache(maxsize=8192)
def frame(text: str) -> Frame | None:
    """The frame of a first-person statement, or None (another subject, no verb found)."""
    norm = without_lead_in(normalise(text))
    counted = _counted(norm)
    if counted is not None:
        return counted
    end = _SENTENCE_END.search(norm)
    if end is not None and end.start() > 0:
        # the thing is named in the sentence of its verb: "I have a dog, a volpino. He walks me
        # not the other way" has a dog, not a walk (the whole text when that sentence has no frame)
        found = frame(norm[: end.start()])
        if found is not None:
            return found
    toks = _joined(tokens(norm))
    while len(toks) > 1 and toks[0] in _OPENERS:
        toks = toks[1:]
    if toks and toks[0] in _LEADING_TIME:
        first = next((n for n, tok in enumerate(toks[:5]) if tok in ("i", "we")), None)
        toks = toks[first:] if first is not None else toks
    if len(toks) > 2 and toks[0] in ("both", "all") and toks[1] in _POSSESSIVE:
        toks = toks[1:]  # "both my daughters are off at college": my daughters
    if toks and toks[0] in _DROPPED_I:
        toks = ["i", *toks]
    kin_at = 0 if toks and toks[0] in _BARE_KIN else 1 if (
        len(toks) > 1 and toks[0] in _KIN_ADJECTIVES and toks[1] in _BARE_KIN) else None
    if kin_at is not None and toks[kin_at + 1:kin_at + 2] != ["of"]:
        toks = ["my", *toks]  # chat drops "my": "newborn son is 3 weeks old", "son's in little league"
    together = _together(toks)
    if together is not None:
        named, toks = together
        found = frame(" ".join(toks))
        if found is not None and found.verb in _HAVE_LIKE or not any(
                lemma(t) in _KIN or _is_pet(lemma(t)) for t in named):
            return found
        # "me and my sister talk every night", "My sister and I are planning a trip", "me and
        # my two dachshunds against the world": the person has the sister, the dogs; what the
        # two do together is no thing of one's own
        return Frame(verb="have", objects=_with_kinds([w for w in named if w not in _NUMBER_WORDS]))
    if toks[:2] in (["there", "is"], ["there", "are"], ["there", "s"]):
        toks = toks[2:]  # "there's a grumpy orange tabby who runs this house"
        # "there's a cat in the flat too": a pet where one lives is one's own
        if (len(toks) > 4 and toks[0] in _ARTICLES and _is_pet(lemma(toks[1])) and toks[2] in ("in", "at")
                and toks[3] in ("the", "my", "our") and toks[4] in _HOME_WORDS):
            return Frame(verb="have", objects=_with_kinds(toks[1:2]))
    if toks[:1] == ["now"] and toks[1:2] in (["he"], ["she"], ["it"]):
        toks = toks[1:]
    if len(toks) > 3 and toks[0] in ("he", "she", "it") and toks[1] in ("is", "s") and toks[2] in _POSSESSIVE:
        toks = toks[2:]  # "now she is my cat": my cat
    if toks and toks[0] not in ("i", "we"):
        return _owned(toks) or _pastime_first(toks) or _thing_said(toks) or _pet_said(toks)
    if not toks:
        return None
    i = 1
    while i < len(toks) and (
        toks[i] in _SKIP or toks[i] in ("have", "has") and i + 1 < len(toks) and toks[i + 1] == "been"
    ):
        i += 1
    if i >= len(toks):
        return None
    verb = lemma(toks[i])
    i += 1
    if verb == "have" and i < len(toks) and _participle(toks[i]):
        verb = lemma(toks[i])  # "I have visited ...": an auxiliary, the participle is the verb
        i += 1
    family = _FAMILIES.get(verb)
    if verb in ("listen", "partial", "fond") and i < len(toks) and toks[i] in ("to", "of"):
        i += 1  # "I listen to jazz", "I'm partial to mild": what follows is the thing liked
    elif (family == "like" or verb in _TRY) and i < len(toks) and toks[i] == "to":
        i += 1  # "I like to fish", "i try to hike somewhere new": the activity is the frame
        if i >= len(toks):
            return None
        verb, family = lemma(toks[i]), None
        i += 1
    if verb in _GO and i < len(toks) and toks[i].endswith("ing"):
        verb, family = lemma(toks[i]), None
        i += 1
    elif verb in _GO and i + 1 < len(toks) and toks[i + 1].endswith("ing") and len(toks[i + 1]) > 5:
        verb, family = lemma(toks[i + 1]), None  # "I go ice fishing": ice fishing is its own
        return Frame(verb=verb, objects=_with_kinds([toks[i]]))
    elif family == "like" and (owned := _owned(toks[i:])) is not None:
        return owned  # "i love my cat whiskers": the person has the cat
    elif family == "like" and i < len(toks) and toks[i] in _LIKE_GERUNDS:
        i += 1
    elif family == "like" and i < len(toks) and toks[i].endswith("ing") and len(toks[i]) > 5:
        verb, family = lemma(toks[i]), None  # "I love fishing"
        i += 1
    if verb in _PASTIME_AROUND:
        # "i stay up way too late playing video games", "i spend sundays in the garden"
        pastimes = _pastimes(frozenset(lemma(t) for t in toks[i:]))
        if not pastimes:  # "spend my afternoons reading mysteries": the activity, by its gerund
            doing = next((lemma(t) for t in toks[i:i + 5] if t.endswith("ing") and len(t) > 5), None)
            if doing is not None and doing not in _NOT_FRAMES and doing.isalpha() and doing != "nothing":
                return Frame(verb=doing, objects=frozenset())
        return Frame(verb=pastimes.pop(), objects=frozenset()) if len(pastimes) == 1 else None
    if family is None and verb not in _EVERY_PASTIME and (mine := _own_named_after(toks[i:])) is not None:
        return mine  # "I take my old lab along on the long hauls", "I pay the fees for my small brother"
    if verb == "need" and any(t in _DRINKS for t in toks[i:i + 3]):
        verb, family = "drink", "like"  # "I need coffee with a lot of sugar": drinking it
    if verb == "take" and any(t in _EVERY_DRINK for t in toks[i:i + 2]):
        verb, family = "drink", "like"  # "I take my coffee black": drinking it
    if verb in _NOT_FRAMES or not verb.isalpha():
        return None
    if verb == "run" and toks[i:i + 1] == ["on"] and any(t in _DRINKS for t in toks[i + 1:i + 4]):
        family, i = "like", i + 1  # "i run on coffee": drinking it, not running
    rest = toks[i:]
    if verb == "grow":  # growing things is gardening, whatever grows ("i grew up ..." is not)
        return None if rest[:1] == ["up"] else Frame(verb="garden", objects=frozenset())
    if family is None and (not rest or rest[0] in _CIRCUMSTANCE or _is_number(rest[0])):
        return Frame(verb=verb, objects=frozenset())  # "I golf on my days off"
    objects: list[str] = []
    for tok in rest:
        if tok in _OBJECT_END or verb == "prefer" and tok in ("to", "over"):
            break  # "i prefer tea to coffee": coffee is not the thing liked
        if tok not in STOP_WORDS and not _is_number(tok):
            objects.append(tok)
    found = _with_kinds(objects)
    if (family or verb) in _PASTIME_VERBS:
        pastime = next(iter(sorted(_pastimes(found))), None)
        if pastime is not None:
            return Frame(verb=pastime, objects=frozenset())  # the pastime, said by its thing
        if family is None:
            return None  # "im a nurse": no frame ("a" is no verb)
    if family == "have" and found & _DRINK_KINDS:
        family = "like"  # "I have a cup of tea every afternoon": drinking it
    return Frame(verb=family or verb, objects=found)


_COUNTED = re.compile(
    r"^(?:got )?(?:one|two|three|four|five|six|seven|eight|\d+) ([a-z ]{2,40}?) ?(?:[,.;:!(]|$|(?:who|that) (.*))"
)


def _counted(norm: str) -> Frame | None:
    """A count of one's pets or children said as a phrase of its own, before a comma or alone:
    "two cats, both orange, both pure chaos", "three kids under ten, send help", "two siamese cats
    who scream at 5am for breakfast". The person has
    them (the count is compared elsewhere). A clause with a verb after the noun ("two dogs
    barked all night") is news of whoever's dogs, and says nothing."""
    found = _COUNTED.match(norm)
    if found is None or found.group(2) is not None and _news(found.group(2).split()):
        return None  # "two siamese cats who scream at 5am" are one's own; "two dogs who barked ..." news
    words = _joined(found.group(1).split())
    if len(words) > 4:
        return None
    for n, tok in enumerate(words):
        word = lemma(tok)
        if word in _KIN or _is_pet(word):
            rest = words[n + 1:]
            if rest and (_is_pet(lemma(rest[0])) or lemma(rest[0]) in _KIN):
                continue  # "two siamese cats": the breed, then the kind
            if rest and not (rest[0] in ("under", "over", "aged") and len(rest) <= 2):
                return None
            return Frame(verb="have", objects=_with_kinds(words[:n + 1]))
    return None


def _together(toks: list[str]) -> tuple[list[str], list[str]] | None:
    """"my fiance and i ...", "me and my lil bro ...": (the words naming the other one, the
    sentence with "we" for the two), or None. The other one is named in at most two words."""
    if len(toks) > 3 and toks[0] == "my":
        for n in (2, 3):
            if toks[n:n + 2] == ["and", "i"] and len(toks) > n + 2:
                return toks[1:n], ["we", *toks[n + 2:]]
    elif len(toks) > 4 and toks[:3] == ["me", "and", "my"]:
        for n in (4, 5):
            if len(toks) > n and (lemma(toks[n - 1]) in _PEOPLE or n == 5):
                return toks[3:n], ["we", *toks[n:]]
    return None


def _joined(toks: list[str]) -> list[str]:
    """"pit bull" is one breed word, as "pitbull" is, and "flat white" one drink; a pastime's
    gerund with its g dropped or misspelt is that gerund ("fishin", "hikking")."""
    out: list[str] = []
    for tok in toks:
        if out and out[-1] == "pit" and tok in ("bull", "bulls", "mix", "mutt"):  # "my pit mix"
            out[-1] = "pitbull"
        elif out and (out[-1], tok) in _WORD_PAIRS:
            out[-1] = _WORD_PAIRS[(out[-1], tok)]
        else:
            out.append(_KIN_SLANG.get(tok) or _drink_spelt(tok) or _pastime_gerund(tok))
    return out


@lru_cache(maxsize=4096)
def _drink_spelt(tok: str) -> str | None:
    """A drink misspelt by one slip ("cofee", "expresso"): that drink (text.is_typo_of)."""
    if tok in _DRINKS or len(tok) < 5 or not tok.isalpha():
        return None
    return next((drink for drink in _SPELT_DRINKS if is_typo_of(tok, drink)), None)


# a brother or sister by their short names: "my bro", "my lil sis"
_KIN_SLANG = {"bro": "brother", "bros": "brothers", "sis": "sister", "sissy": "sister"}


_PASTIME_GERUNDS = ("hiking", "fishing", "knitting", "gardening", "reading", "cooking", "running", "golfing",
                    "gaming", "baking", "camping", "hunting", "sewing", "painting", "swimming", "cycling")


def _pastime_gerund(tok: str) -> str:
    if len(tok) >= 5 and tok.endswith("in") and tok + "g" in _PASTIME_GERUNDS:
        return tok + "g"  # "fishin", "campin"
    if len(tok) >= 6 and tok.endswith("ing") and tok not in _PASTIME_GERUNDS:
        return next((g for g in _PASTIME_GERUNDS if is_typo_of(tok, g)), tok)  # "hikking", "knittng"
    return tok


def _owned(toks: list[str]) -> Frame | None:
    """A pet or a relative of one's own named first: "my black lab is my best friend", "our
    little chihuahua goes everywhere with us", "two border collies help me work the cattle",
    "One son, he's 8". The person has it, as "I have a black lab" says. Only pets and
    children, brothers and sisters: "my car", "my job" are topics of their own."""
    article = bool(toks) and toks[0] in _ARTICLES
    if not toks or not (toks[0] in _POSSESSIVE or toks[0] in _NUMBER_WORDS or toks[0][0].isdigit() or article):
        return None
    if toks[0] not in _POSSESSIVE and not _FIRST_PERSON & set(toks[1:]):
        return None  # "two dogs barked all night": whose?
    for n, tok in enumerate(toks[1:5], start=1):
        word = lemma(tok)
        if article and word in _KIN:
            return None  # "the sister of my friend": not one's own
        if word in _KIN or _is_pet(word):
            if n + 1 < len(toks) and (toks[n + 1] in _PET_COMPOUNDS or article and toks[n + 1] in _SOMEONE_ELSES):
                return None  # "the dog park is my happy place": no dog of one's own
            if word in _KIN and n + 1 < len(toks) and lemma(toks[n + 1]) in _KIN:
                n += 1  # "my twin brother", "my baby sister": one relative in two words
            if _news(toks[n + 1:]):
                return None  # "My sister just got married": news about her, not having her
            words = [t for t in toks[1:n + 1] if t not in _NUMBER_WORDS and not _is_number(t)]
            return Frame(verb="have", objects=_with_kinds(words))
        if tok in _OBJECT_END or tok in ("is", "are", "was", "were"):
            return None
    return None


def _own_named_after(rest: list[str]) -> Frame | None:
    """A pet or relative of one's own named in the first words after another verb: what one does
    with them says one has them ("I take my old lab along", "I pay school fees for my small
    brother back home", "I visit my sister every Sunday"). Not past a word that ends the object
    ("I hike with my dog": hiking is the fact)."""
    for j, tok in enumerate(rest[:6]):
        if tok in _OBJECT_END:
            return None
        if tok in _POSSESSIVE:
            return _owned(rest[j:])
    return None


# verbs around a pastime, not of it: the pastime is in what follows
_PASTIME_AROUND = frozenset({"stay", "spend", "waste", "lose"})
# a drink word that names a thing with the next word: "my coffee mug", "the tea towel"
_DRINK_THINGS = frozenset(
    "mug mugs cup cups table tables shop shops maker makers machine machines stain stains towel towels "
    "pot pots grinder bag bags filter filters can cans bottle bottles glass glasses "
    # a place named for it: "Rize, the tea city", "coffee country", "the tea plantations"
    "city town capital country region plantation plantations estate estates farm farms fields hills "
    "break breaks".split()  # "no long chai breaks": a pause, not a drink
)
_ARTICLES = frozenset({"a", "an", "the"})
_HOME_WORDS = frozenset("flat house home apartment place garden yard farm".split())
# a pet word that names something else with the next word ("dog park", "cat person")
_PET_COMPOUNDS = frozenset(
    "park parks food walker walkers walking sitter sitting show shows bed beds toy toys hair groomer "
    "grooming trainer training daycare years year lover lovers person people owner owners friendly "
    "treats shelter shelters rescue rescues video videos meme memes".split()
)
# after "the cat ...": whose it is ("the cat next door", "the dog down the street", "the dog of my friend")
_SOMEONE_ELSES = frozenset("next down across from of".split())
_PAST_VERBS = frozenset(
    "got was were had went died passed left moved became turned ran made won lost bit ate broke tore "
    "threw hid fell saw came gave took stole caught".split()
)


def _news(rest: list[str]) -> bool:
    """Whether what is said of a pet or relative is an event (its verb in the past tense)
    rather than how things stand ("rides shotgun", "lives in texas", "is my best friend")."""
    verb = next((tok for tok in rest[:4] if tok not in _SKIP and tok not in ("all", "both", "each")), None)
    return verb is not None and (verb in _PAST_VERBS or verb.endswith("ed") and len(verb) > 4)


# words before a pet that make it someone else's, or no pet at all
_NOT_MINE = frozenset("no not never dont didnt neighbor neighbour neighbors neighbours friend friends s".split())


def _pet_said(toks: list[str]) -> Frame | None:
    """A pet in the first words of a sentence with no verb of one's own before it: "old basset
    hound named duke follows me everywhere", "me blue heeler rides shotgun everywhere i go"
    (said by the person: a word of the first person follows), "barney the staffie needs
    walking", "walked the beagle round the park", "the husky keeps digging up the yard" (a name
    or a dropped "I" before "the" pet, or the pet alone).
    The person has it. Not news ("cat knocked my plant over": what it did), not another's
    ("my neighbor's dog"), and "two dogs barked all night" stays unsaid (whose?)."""
    for n, tok in enumerate(toks[:4]):
        word = lemma(tok)
        if not _is_pet(word):
            continue
        before, after = toks[:n], toks[n + 1:]
        if word != tok and not any(t in _NUMBER_WORDS or _is_number(t) for t in before):
            return None  # "dogs are better than people": dogs in general
        # "barney the staffie ...", "walked the beagle ...", "the husky keeps digging up the
        # yard": the one pet everyone in the chat knows, one's own
        named = (2 <= n <= 3 and toks[1] == "the" and toks[0] not in _ARTICLES
                 or toks[0] == "the" and 1 <= n <= 2 and word == tok
                 or n == 2 and toks[1] in _POSSESSIVE)  # "Bruno my pitbull is the goodest boy"
        # "Cat named Ace, black": a pet by its name, said first, is the one everyone knows
        naming = n == 0 and after[:1] in (["named"], ["called"])
        if not (named or naming or _FIRST_PERSON & set(after)) or _NOT_MINE & set(before) or _OTHERS & set(before):
            return None
        if after[:1] and (after[0] in _PET_COMPOUNDS or after[0] in _SOMEONE_ELSES) or not naming and _news(after):
            return None
        words = [t for t in toks[:n + 1] if t not in _NUMBER_WORDS and not _is_number(t) and t != "me"]
        return Frame(verb="have", objects=_with_kinds(words[-2:]))
    return None


def _pastimes(words: frozenset[str]) -> set[str]:
    """The pastimes words name by a thing or a doer ("bookworm", "trail"; "video games")."""
    found = {_PASTIMES[w] for w in words if w in _PASTIMES}
    return found | ({"game"} if {"video", "game"} <= words else set())


def _thing_said(toks: list[str]) -> Frame | None:
    """A drink or a pastime said without a verb, of oneself: "coffee, black, lots of it", "three
    cups of coffee a day minimum", "cant start my day without an espresso" (liking it); "huge
    bookworm here" (reading)."""
    if toks[0] in _OTHERS or any(lemma(t) in _PEOPLE for t in toks[:3]):
        return None  # "my husband is a huge gamer": his
    drinks = {_DRINKS[t] for n, t in enumerate(toks)
              if t in _DRINKS and (n + 1 == len(toks) or toks[n + 1] not in _DRINK_THINGS)}
    pastimes = _pastimes(frozenset(lemma(t) for t in toks))
    if len(drinks) + len(pastimes) != 1:
        return None  # none, or "tea, never coffee": which?
    if pastimes:  # "huge bookworm here", "video games are my whole personality"
        return Frame(verb=pastimes.pop(), objects=frozenset())
    return Frame(verb="like", objects=frozenset(drinks))


def _pastime_first(toks: list[str]) -> Frame | None:
    """A pastime named first, said of oneself: "Baking cupcakes is my stress relief.",
    "gardening keeps me busy", "fishing in our pond is how i relax": the activity, with no
    object (what follows is said of the pastime, not a thing done)."""
    first = toks[0]
    if not (first.endswith("ing") and len(first) > 5 and _FIRST_PERSON & set(toks[1:])):
        return None
    verb = lemma(first)
    if verb == first or verb in _NOT_FRAMES or verb in _FAMILIES or verb in ("wed", "build") or not verb.isalpha():
        return None  # "nothing beats ...", "wedding plans ...", "Eating is something i do when bored"
    return Frame(verb=verb, objects=frozenset())


def kinds(words: frozenset[str]) -> frozenset[str]:
    """The kinds the words name by a breed ("collie" -> "dog", and misspelt: "retreiver",
    "sheperd"): what a search for related facts should also look for, since "I own two dogs"
    never says "collie"."""
    found = frozenset(kind for w in words if (kind := _kind_of(w)) is not None)
    return found | {"dog"} if {"pit", "bull"} <= words else found


def kind_words(words: frozenset[str]) -> frozenset[str]:
    """Every word that names a kind the words name, by breed or by the kind itself: "beagle"
    and "dogs" both give "dog", "retriever", "poodle", ... Why: a search for facts about the
    same pet must find "I have a golden retriever" from "i have an old beagle", which share no
    word but the kind neither says."""
    named = kinds(words) | (words & _KIND_NAMES)
    if "pet" in words:  # "do I have pets?": every kind of pet, and the breeds of those with some
        named |= _KIND_NAMES
    out = frozenset(w for kind in named for w in _BREEDS[kind]) | named
    if "pet" in words:
        out |= _OTHER_PETS
    if words & (_CHILD_GENERIC | _CHILD_SPECIFIC):
        out |= _CHILD_GENERIC | (_CHILD_SPECIFIC if words & _CHILD_GENERIC else frozenset())
    # a drink by any of its kinds ("espresso" finds "coffee"), a pastime by its thing or doer
    # ("bookworm" finds "i read a lot"), a relative by a short or plainer word ("brother" finds
    # "my little bro", "son" finds "my boy")
    for group in _SEARCH_GROUPS + _KIN_GROUPS:
        if words & group:
            out |= group
    if words & {"drink", "beverage"}:  # "what do I drink?": every drink
        out |= _EVERY_DRINK
    if words & {"hobby", "pastime"}:  # "what are my hobbies?": every pastime, by its thing too
        out |= _EVERY_PASTIME
    return out


def is_own_thing(found: Frame | None) -> bool:
    """Whether a frame says something lasting about the person: a pet or a relative they have, a
    drink they like, a pastime they do. Not what happened ("I watched a movie", "I went to the
    shop") or a turn of talk ("I have a question", "I like that idea")."""
    if found is None:
        return False
    objects = found.objects
    if found.verb == "have":
        return bool(objects & (_KIN | _DRINK_KINDS)) or any(_is_pet(w) for w in objects)
    if found.verb == "like":
        return bool(objects & (_DRINK_KINDS | _EVERY_PASTIME)) or any(_is_pet(w) for w in objects)
    return found.verb in _PASTIME_NAMES


def frame_words(text: str) -> frozenset[str]:
    """The words of what a statement's frame names and of its kinds ("Earl Grey every evening"
    gives "tea", "chai", "matcha", ...; "Coors after shift" gives "beer"), for the search of
    related facts: the words alone miss a thing said by its brand, its blend or a two-word name,
    which the frame reads."""
    found = frame(text)
    if found is None or not found.objects:
        return frozenset()
    return with_name_parts(found.objects | kind_words(found.objects))


def with_name_parts(words: frozenset[str]) -> frozenset[str]:
    """The words and, for a two-word name read as one ("earlgrey", "pitbull"), the words it is
    stored as in the keyword index ("earl", "grey"; "pit")."""
    return words | frozenset(part for w in words for part in _NAME_PARTS.get(w, ()))


@lru_cache(maxsize=4096)
def _kind_of(word: str) -> str | None:
    kind = _KINDS.get(word)
    if kind is None and word.endswith("y"):
        kind = _KINDS.get(word[:-1] + "ie")  # "collies" reads as "colly"
    if kind is None and len(word) >= 6 and word.isalpha():
        kind = next((_KINDS[breed] for breed in _LONG_BREEDS if is_typo_of(word, breed)), None)
    return kind


def about_kin_or_pet(text: str) -> bool:
    """Whether a fact is of a child, a sibling or a pet one has ("bro in dubai", "Shop cat sleeps
    on the counter all day"): where they are or what they do is not one's own home or job."""
    found = frame(text)
    if found is None or found.verb != "have":
        return False
    # (a word as written, or its plural: "shepherding a congregation" has no dog)
    for word in tokens(normalise(text)):
        for form in (word, word[:-1] if word.endswith("s") else word):
            if form in _KIN or form in _BARE_KIN or _is_pet(form):
                return True
    return False


def _is_pet(word: str) -> bool:
    """Whether a lemma names a pet: a kind, a breed (misspelt too) or another pet."""
    return word in _KIND_NAMES or word in _OTHER_PETS or _kind_of(word) is not None


# kind -> its breed words ("dog" -> "retriever", "labrador", ...)
_BREEDS = {kind: tuple(b for b, k in _KINDS.items() if k == kind) for kind in dict.fromkeys(_KINDS.values())}
_KIND_NAMES = frozenset(_BREEDS)
_LONG_BREEDS = tuple(breed for breed in _KINDS if len(breed) >= 6)


# a child by a plainer word: "my boy" is a son, "our lass" a daughter
_CHILD_WORDS = {"boy": "son", "lad": "son", "girl": "daughter", "lass": "daughter", "lassie": "daughter"}


def _with_kinds(objects: list[str]) -> frozenset[str]:
    words = content_words(" ".join(objects)) if objects else frozenset()
    return (words | kinds(words) | {_DRINKS[w] for w in words if w in _DRINKS}
            | {_CHILD_WORDS[w] for w in words if w in _CHILD_WORDS})


_PARTICIPLES = frozenset(
    "been done gone seen had made taken given known lost won met read run grown kept left felt "
    "taught bought brought thought caught heard held found built spent sold told written driven "
    "ridden eaten drunk flown sung swum begun become come".split()
)


def _participle(tok: str) -> bool:
    """A past participle after "have" ("I have visited", "we've lived"): then "have" only forms
    the tense. "got" stays possession ("I have got a dog")."""
    return tok in _PARTICIPLES or (tok.endswith("ed") and len(tok) > 4)


def _misspelt_match(a: frozenset[str], b: frozenset[str]) -> bool:
    """One object word of each side is the other misspelt ("coffe" / "coffee"; text.is_typo_of
    keeps it to long words and one slip)."""
    return any(is_typo_of(x, y) for x in a for y in b if x != y)


def _is_number(tok: str) -> bool:
    return tok[0].isdigit() or bool(numbers(tok))


_ANOTHER = re.compile(r"\b(?:also|another|as well|too|one more|a second|two more)\b")


def adds_another(text: str) -> bool:
    """Whether a fact of having says it is one more: "we also got a beagle puppy", "I have
    another cat", "we got a dog too". Then it is not the same thing again, whatever its kind
    (for a liking, "I also love jazz" is still the same jazz)."""
    found = frame(text)
    return found is not None and found.verb == "have" and _ANOTHER.search(normalise(text)) is not None


_BOTH = re.compile(r"\bboth (?:my|our)\b")


def _counted_numbers(text: str, objects: frozenset[str]) -> frozenset[str]:
    """The numbers that count what a fact has or does: a number before one of its objects ("two
    siamese cats", "3 kids") or after "number" ("museum number 3"), "both my kids" counting two.
    Why not every number: "our old beagle is 14 and sleeps 20 hours a day" and "my border collie
    needs a two hour walk" count no dogs, and were told apart as two things by their hours."""
    toks = tokens(text)
    if re.search(r"\bone and only\b", text.lower()):
        return frozenset({"1"})  # "our daughter is our one and only"
    found = {
        value for start, end, value in number_values(toks)
        if start and toks[start - 1] in ("number", "no")
        or any(lemma(tok) in objects for tok in toks[end:end + 3])
    }
    return frozenset(found | {"2"} if _BOTH.search(text.lower()) else found)


def same_thing(new_text: str, old_text: str) -> bool:
    """Whether two first-person facts say the person has, likes or does the same thing: the same
    verb family and a shared object that is not only a category ("I have a cat named Whiskers" /
    "i have an old tabby cat"; not "country music" / "rock music"; one slip of the keyboard
    allowed), children named by a generic word ("two kids" / "two daughters"), or the same
    activity with no object on one side ("I golf on my days off" / "I golf three times a week",
    "i love to knit" / "i knit scarves in the winter")."""
    a, b = frame(new_text), frame(old_text)
    if a is None or b is None or not is_typo_of(a.verb, b.verb):  # "hikeing" is hiking
        return False
    if adds_another(new_text):
        return False  # "we also got a beagle puppy": one more, not the retriever again
    nums_a, nums_b = _counted_numbers(new_text, a.objects), _counted_numbers(old_text, b.objects)
    if nums_a and nums_b and nums_a != nums_b:
        return False  # "museum number 1" / "museum number 0": two things (a count is compared elsewhere)
    if (a.objects & b.objects) - _CATEGORIES - _KIN_MODIFIERS or _misspelt_match(a.objects - _CATEGORIES, b.objects - _CATEGORIES):
        return True
    children = _CHILD_GENERIC | _CHILD_SPECIFIC
    if a.verb == "have" and (a.objects & _CHILD_GENERIC and b.objects & children
                             or b.objects & _CHILD_GENERIC and a.objects & children):
        return True  # "i have two kids" / "i have two daughters" / "I have 2 children"
    # one pastime, said once with what or where and once without: "i knit scarves in the
    # winter" / "i love to knit" (not "have" or "like": "I have a dog" / "I have one")
    return a.verb not in _HAVE_LIKE and (not a.objects or not b.objects)
