"""Single-value slots: topics where a person has one value at a time (where they live, their
job, their car, diet, relationship status, age, name, a favourite of one category ...).

Why as data: the list will grow (docs/ARCHITECTURE.md section 4, "the list is data, easy to extend"), and
each topic is a handful of regular expressions over normalised text (`bot.memory.rules.text.normalise`:
lower case, contractions expanded, hyphens as spaces). To add a topic, add an entry to `SLOTS`;
nothing else changes. Multi-valued relations (hobbies, pets, likes, siblings, friends) are
deliberately absent: two hobbies never contradict each other.

Vocabulary rules of thumb used below, all general English rather than words taken from any
evaluation file:
- a statement counts only with a first-person subject ("I live in ...", "we live in ...",
  "... and live in ..."); "my friend lives in ..." is about someone else;
- wishes and dreams are not facts ("I want to live in Paris", "when I grow up I want to be a
  vet"), so a clause with a wish word before the match is skipped;
- professions are recognised by a modest general list plus a morphological rule (agent nouns
  in -er, -or, -ist, -ician, -eer, -man, -grapher, -ologist), with general lists of agent nouns
  that are not jobs (family words, hobby agents such as "runner", beliefs such as "feminist").

Public API: `SLOTS` (data), `SlotMatch`, `find_slots(text)`, `detect_slot(text)`,
`slot_value(text, slot)`. `bot.memory.rules.conflict` re-exports `detect_slot` and `slot_value`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from bot.memory.rules.foreign import in_english
from bot.memory.rules.places import canonical_place, place_in, places_in, plain_place
from bot.memory.rules.regex_gate import may_match, required_literals
from bot.memory.rules.text import content_words, is_typo_of, lemma, names, normalise, numbers, without_lead_in

__all__ = [
    "NUMERIC_SLOTS",
    "SLOTS",
    "SlotMatch",
    "SlotRule",
    "detect_slot",
    "find_slots",
    "is_profession",
    "is_wish",
    "same_profession",
    "same_value",
    "sentences",
    "slot_value",
]

# --- shared pieces of patterns ---------------------------------------------------------------

# A first-person subject, a verb coordinated with one ("I drive a truck and live in ...",
# "I quit Google, moved to Paris"), or none at the start of a sentence (chat drops it: "Just
# moved to Paris!").
S = r"(?:^|\bi |\bwe |\band |\bbut |, |\band me )"
# Adverbs that may sit between the subject and the verb.
A = (
    r"(?:(?:now|still|currently|also|just|recently|really|actually|finally|happily|only|mostly|"
    r"usually|proudly|officially|newly|already|presently|basically|soon to be|full time|"
    r"part time|fulltime|parttime|at the moment|at present|right now) )*"
)
NUM = (
    r"(?:\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?: (?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|(?:a |one )?hundred)"
)
# words said after a statement that are no part of its value: "spring is my favourite season
# obviously", "my fave band tbh"
_FILLERS = (r"(?:obviously|honestly|really|actually|definitely|seriously|literally|totally|truly|clearly|"
            r"lol|haha|tbh|imo|ngl|though|tho|too|now|rn|atm|forever|ever|still|anyway|mate|bro|man|cher|"
            r"hands down|by far|for sure|of course)")
_MONTHS = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
           r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
# "years" in the languages people mix into English, for an age told in their own words
_FOREIGN_YEARS = (r"anos|anys|ans|jahre|anni|ani|godini|godina|godine|let|lat|roky|rokov|vuotta|aastat|metai|"
                  r"eves|yasindayim|yasinda|tuoi|tahun|taon|saal|varsh|vayassu|vayasu|jaar")
# what may follow an age: the end, a mark or an emoji ("just turned 33 🎂"), or a word that goes
# on about something else ("i'm 29 rn", "im 16 btw", "29 and ...")
_AGE_AFTER = (
    r"(?=$|[,!?;\u2012-\u2015\u2600-\u27bf\U0001f000-\U0001faff]| [,.!?;#]| (?:and|but|now|today|yesterday|this|"
    r"next|soon|so|as|since|last|on|in|at|with|going|turning|myself|already|too|lol|haha|though|tho|"
    r"recently|rn|btw|fyi|lmao|smh|y all|yall|folks|guys|mate|bro|dude|lads|lah|innit|completed|birthday|bday)\b|"
    r" [\u2012-\u2015\u2600-\u27bf\U0001f000-\U0001faff])"
)
DWELLING = (
    r"(?:house|home|apartment|appartment|flat|condo|condominium|studio|cabin|cottage|bungalow|"
    r"mansion|townhouse|town house|trailer|mobile home|dorm|dormitory|tent|camper|rv|basement|"
    r"duplex|loft|shack|hut|igloo|treehouse|tree house|farmhouse|houseboat|ranch house|villa)s?"
)
# "studio" and "home" are too vague after "own" / "got" ("I own my own studio").
DWELLING_OWNED = DWELLING.replace("studio|", "")
PHONE = r"\+?\d[\d ().]{4,}\d"
EMAIL = r"[a-z0-9._%+]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+"
CAR_BRANDS = (
    r"(?:toyota|honda|ford|chevrolet|chevy|nissan|bmw|mercedes|mercedes benz|benz|audi|"
    r"volkswagen|vw|tesla|hyundai|kia|mazda|subaru|volvo|porsche|ferrari|lamborghini|jeep|dodge|"
    r"gmc|cadillac|buick|lexus|acura|infiniti|mitsubishi|fiat|peugeot|renault|citroen|skoda|"
    r"seat|opel|vauxhall|jaguar|land rover|range rover|mini cooper|mini|polestar|rivian|lucid|"
    r"suzuki|lincoln|chrysler|saab|alfa romeo|maserati|bentley|rolls royce|bugatti|smart|dacia|"
    r"byd|genesis|harley|harley davidson|ducati|yamaha|kawasaki|vespa|prius|corolla|civic)"
)


def _cars() -> dict:
    """cars.json beside this file (written from general knowledge), read once; {} if unreadable."""
    try:
        found = json.loads(Path(__file__).with_name("cars.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


_CARS = _cars()


def _car_names() -> str:
    """Makes, their chat nicknames and models that are not also common words, as one regex
    alternation: "my f150", "my old civic", "my honda civic" name one's car; "my charger" does
    not."""
    names = _CARS.get("names")
    return _trie_pattern([str(name) for name in names]) if isinstance(names, list) and names else "(?!)"


def _trie_pattern(words: list[str]) -> str:
    """One regex for many words, their common prefixes shared ("civic|city" -> "ci(?:vic|ty)"):
    a plain alternation of a thousand names is tried name by name at every "my" (it tripled the
    time to read a sentence); this is tried letter by letter. Longer names win, as in a plain
    alternation sorted longest first."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


CAR_NAMES = _car_names()
_CAR_ADJECTIVES = (
    r"old|new|trusty|beloved|little|beat up|rusty|work|daily|first|current|faithful|ancient|battered|"
    r"souped up|lifted|beautiful|baby|red|blue|black|white|silver|grey|gray|green|\d{4}|\d{2}|\d+ year old"
)
# the adjectives that are words (not a year): they alone may open a car said as a fragment
_CAR_WORD_ADJECTIVES = "|".join(word for word in _CAR_ADJECTIVES.split("|") if word.replace(" ", "").isalpha())
# models that are also common words ("golf", "polo"), read as a car only after a disposal:
# "we sold the polo, bikes only now" (not "sold my golf clubs")
_DISPOSED_MODELS = (
    r"golf|polo|focus|fiesta|corsa|astra|clio|micra|leaf|charger|accord|fit|jazz|beetle|mini|ranger|"
    r"explorer|escape|pilot|rogue|fusion|ka|yaris|prius"
)
# models named after a place or a word, which cars.json leaves out: a car only when bought or got
# ("bought a Tacoma last spring", "upgraded to a Tundra"), never found elsewhere ("Tacoma is home")
_PLACE_MODELS = (
    r"tacoma|tucson|santa fe|santa cruz|yukon|tahoe|durango|sedona|denali|acadia|cheyenne|sienna|"
    r"escalade|tundra|highlander|sequoia|outback|pathfinder|palisade"
)
VEHICLES = (
    r"(?:car|truck|pickup|pickup truck|suv|minivan|mini van|van|motorcycle|motorbike|scooter|"
    r"moped|convertible|sedan|hatchback|jeep|station wagon|wagon|coupe|electric car|ev|hybrid|ute)"
)
PARTNER = (
    r"(?:wife|husband|boyfriend|girlfriend|fiance|fiancee|finace|spouse|hubby|bf|gf|partner|"
    r"significant other|bae)"
)
# words for people whose partner is not one's own ("my sister husband", "my boss wife")
_OTHERS_PEOPLE = (r"sons?|daughters?|sisters?|brothers?|sis|bro|mom|mum|mother|dad|father|kids?|cousins?|aunts?|"
                  r"uncles?|nieces?|nephews?|grand[a-z]+|parents?|in|best|bff|friends?|mates?|colleagues?|"
                  r"coworkers?|boss|neighbou?rs?|roommates?|flatmates?|buddy|buddies|pal|pals|student|students|"
                  r"patient|patients|client|clients|customer|customers|first|second|third|new|old|current")
HAIR_COLOURS = (
    r"(?:(?:dark|light|strawberry|dirty|platinum|jet|bright|natural|ash) )?(?:blonde?|brown|"
    r"black|red|gray|grey|white|auburn|ginger|brunette|silver|pink|blue|green|purple|"
    r"chestnut|copper|salt and pepper)"
)
EYE_COLOURS = r"(?:blue|brown|green|hazel|gray|grey|black|amber|dark|light)"
VEGETARIAN = r"vegetarian|vegitarian|vegeterian|vegatarian"  # with its common misspellings
DIETS = (
    rf"(?:vegan|{VEGETARIAN}|veggie|pescatarian|pescetarian|"
    r"pescitarian|omnivore|carnivore|flexitarian|"
    r"fruitarian|meat eater|plant based|lacto vegetarian|ovo vegetarian|keto|paleo|gluten free|lactose free|"
    r"dairy free|halal|kosher)"
)

# Places people work at: "I wait tables at a steakhouse", "I fly planes for an airline". What
# one does at one of them is a job, unless the verb is a pastime or an errand (LEISURE_VERBS).
WORKPLACES = (
    r"(?:firm|company|corporation|hospital|clinic|surgery|salon|barbershop|barber shop|"
    r"restaurant|steakhouse|diner|cafe|coffee shop|bank|startup|start up|airline|factory|"
    r"store|shop|supermarket|grocery|office|garage|bakery|bar|pub|hotel|warehouse|plant|agency|"
    r"library|university|college|school|daycare|nursing home|care home|dealership|lab|"
    r"laboratory|newspaper|magazine|mill|mine|call center|call centre|pharmacy|hospice|"
    r"kitchen|nonprofit|charity|ministry|department|council|court|prison|jail|station|"
    r"newsroom|studio|gallery|museum|zoo|casino|gym|spa|site|yard|port|airport)s?"
)
# First words of a clause that make "<verb> ... at <workplace>" something other than a job:
# pastimes, errands, states and other people ("I play darts at the pub", "I met him at a bar").
LEISURE_VERBS = (
    r"(?:go|goes|going|went|gone|play|played|playing|volunteer|volunteered|volunteering|eat|ate|"
    r"eating|drink|drank|shop|shopped|shopping|swim|swam|hang|hung|meet|met|study|studied|"
    r"studying|learn|learned|learnt|pray|sing|sang|dance|danced|read|relax|sit|sat|spend|spent|"
    r"live|lived|stay|stayed|lift|climb|run|ran|train|watch|watched|visit|visited|love|like|"
    r"enjoy|hate|bank|park|parked|worship|am|was|were|is|are|be|been|have|had|has|get|got|getting|gets|buy|"
    r"bought|order|ordered|grab|take|took|see|saw|listen|sleep|slept|walk|walked|bike|ride|rode|"
    r"hike|chill|party|drop|dropped|pick|picked|also|would|will|can|could|should|used|married|"
    r"marry|dated|date|celebrate|celebrated|shoot|bowl|skate|ski|dine|dined|lunch|exercise|"
    r"work ?out|workout|do not|did|never|always|sometimes|often|usually|recently|once|grew|grow up|"
    r"was raised|stood|wait for|waited for|queue|queued|pay|paid|my|his|her|their|our|your|the|"
    r"a|an|i|we|he|she|they|you|it|this|that|there|mom|dad|brother|sister|wife|husband|friend|"
    r"send|sent|call|called|text|texted|find|found|look|looked|keep my|left|leave|lost|lose|"
    r"quit|retired|moved|move|started|joined|just|now|still|currently|finally|really)"
)
# vehicles one drives for work, not as one's own car: "I drive an 18 wheeler all over the country"
WORK_VEHICLES = (
    r"(?:18 wheeler|eighteen wheeler|semi|semi truck|big rig|rig|tractor trailer|forklift|"
    r"school bus|bus|taxi|cab|ambulance|fire truck|garbage truck|delivery truck|delivery van|"
    r"tow truck|dump truck|cement truck|crane|train|tram|streetcar|limo|limousine|tractor)"
)
# what may stand before such a vehicle: "the big bus", "the 42 bus", "city bus" (no article)
WORK_VEHICLE_LEAD = (
    r"(?:(?:big|small|little|local|night|early|late|city|public|tour|airport|shuttle|intercity|"
    r"long distance|express|yellow|red|double ?decker|company|hospital|county|council) )*"
    r"(?:(?:number|no|route|line) )?(?:\d+[a-z]? )?"
)
TRANSIT = (
    r"(?:bus|buses|train|trains|subway|tube|metro|tram|underground|public transport|"
    r"public transportation|transit|bike|bicycle|my bike|my bicycle)"
)

# Words that make a clause a wish or a dream rather than a fact, or a question someone else asks
# ("my mum keeps asking when i'm getting married": no wedding is planned).
# "I wish to inform you", "I would like you to know", "I want you to note": said to the bot,
# no wish
_TELLING = (r"(?! (?:(?:like|love) )?(?:(?:you|u) )?to (?:inform|let (?:you|u) know|tell|say|note|mention|add|"
            r"share|report|record|update|remind|know|point out|confirm|clarify|correct|put on record)\b)")
WISH = re.compile(
    r"\b(?:(?:want|wants|wanted|wish|wishes|would)" + _TELLING + r"|hope|hopes|hoping|dream|dreams|dreaming|someday|"
    r"some day|one day|aspire|aspiring|fantasize|fantasise|imagine|if|whether|grow up|going to try|"
    r"(?:ask|asks|asked|asking|wonder|wonders|wondered|wondering|nag|nags|nagging|pester|pesters|"
    r"pestering|bugging|bugs) (?:me |us )?(?:about )?(?:when|why|how soon))\b"
)

# --- the profession test ---------------------------------------------------------------------

PROFESSIONS: frozenset[str] = frozenset(
    """
    accountant actor actress administrator advisor agent analyst animator architect artist
    assistant astronaut athlete attendant attorney auditor author baker banker barber barista
    bartender beautician bookkeeper broker builder butcher buyer captain carpenter cashier caregiver
    caretaker ceo cfo chef chemist clerk coach cook consultant contractor counselor counsellor
    courier cto custodian dancer dentist designer detective developer dietitian dietician director
    doctor driver economist editor electrician engineer entrepreneur farmer firefighter fisherman
    florist founder guard guide hairdresser homemaker housekeeper housewife househusband hygienist
    illustrator inspector instructor intern interpreter investor janitor jeweler journalist judge
    landlord landscaper lawyer lecturer librarian lifeguard locksmith machinist maid manager
    mechanic midwife miner minister model musician nanny nurse officer optician optometrist painter
    paralegal paramedic pastor pharmacist photographer physician rn aide rep physicist physiotherapist pilot
    plumber poet policeman policewoman politician postman mailman priest principal producer
    professor programmer psychiatrist psychologist publisher rabbi rancher realtor receptionist
    recruiter reporter researcher salesman saleswoman salesperson scientist secretary senator
    servant sheriff singer soldier solicitor stylist supervisor surgeon surveyor tailor teacher
    technician therapist trainer translator trucker tutor vet veterinarian waiter waitress welder
    writer youtuber streamer influencer ranger marine nun monk imam employee freelancer
    cop comedian magician dj chauffeur pa secretary teller underwriter webmaster
    dev coder tech technologist exec executive admin cna emt lpn medic temp sommelier
    stylist masseuse masseur doula notary pharmacist seamstress carer nurseryman
    cpa swe sre dds dvm np crna rt pt ot csr deckhand postdoc printer bookbinder concierge
    postwoman postie postmistress postmaster
    weaver forester roofer bricklayer labourer laborer porter decorator upholsterer joiner scaffolder
    potter brewer grocer dressmaker milliner cobbler blacksmith
    """.split()
)
"""A modest general list of common professions (head nouns)."""
# a listed trade at the end of a longer word is a trade too ("schoolteacher", "firefighter"), and
# so are the old heads of trades that are no words alone ("fishmonger", "locksmith", "shipwright",
# "watchmaker", "shopkeeper", "stonemason"; the non-trades among them are in NOT_JOBS)
_COMPOUND_HEADS = (*(word for word in PROFESSIONS if len(word) >= 4), "monger", "smith", "wright", "maker",
                   "keeper", "mason",
                   # the heads of German compound trades ("Werkzeugmacher", "Busfahrer", "Altenpflegerin",
                   # "Kfz-Mechaniker", "Deutschlehrerin")
                   "macher", "fahrer", "fahrerin", "pfleger", "pflegerin", "arbeiter", "arbeiterin", "lehrer",
                   "lehrerin", "mechaniker", "elektriker", "techniker", "informatiker", "verkaufer", "verkauferin")

NOT_JOBS: frozenset[str] = frozenset(
    """
    mother father brother sister daughter son grandmother grandfather grandson granddaughter
    stepmother stepfather stepdaughter stepson stepsister stepbrother godmother godfather aunt
    uncle niece nephew cousin wife husband partner lover boyfriend girlfriend fiance fiancee
    widow widower orphan twin parent mom dad baby child kid teenager toddler adult
    member customer user owner buyer renter tenant neighbor neighbour stranger foreigner outsider
    newcomer beginner starter learner leader follower supporter believer grader graders
    fan enthusiast addict junkie nerd geek buff fanatic hobbyist collector volunteer
    lover dreamer thinker talker listener worrier sleeper eater drinker smoker spender saver
    winner loser survivor warrior fighter donor visitor ancestor descendant
    introvert extrovert ambivert loner optimist pessimist perfectionist realist idealist
    feminist activist atheist agnostic buddhist baptist methodist christian catholic muslim jew
    hindu nudist minimalist environmentalist conservationist tourist finalist medalist
    vegan vegetarian pescatarian omnivore carnivore
    chapter answer quarter timer trailer trigger wonder horror corner
    troublemaker peacemaker noisemaker pacemaker scaremonger fearmonger warmonger gossipmonger
    rumourmonger rumormonger goalkeeper wicketkeeper timekeeper scorekeeper freemason
    beer bier lager cider liqueur burger dinner supper summer winter water butter paper number
    computer soccer ginger pepper tiger poster sticker sweater slipper shower silver copper letter
    border weather leather fever liver flower river tower
    major minor senior junior sophomore freshman alumnus alumni graduate student
    gentleman man woman boy girl guy gal lady dude person human
    player runner jogger swimmer skater skateboarder snowboarder surfer skier kayaker canoeist
    climber hiker biker cyclist golfer bowler camper gamer reader knitter quilter birder
    birdwatcher traveler traveller backpacker gardener hunter fisher angler diver sailor
    rider racer jumper boxer wrestler lifter bodybuilder
    homeowner landowner pet owner dog owner cat owner
    londoner berliner parisian new yorker northerner southerner westerner easterner islander
    highlander villager
    color colour floor door mirror error favor flavor flavour honor humor labor harbor tumor
    motor vapor meteor anchor interior exterior decor corridor water summer winter paper number
    corner letter weather dinner flower tower power finger beer deer career computer burger
    monster tiger river silver butter cancer order matter sweater shower soccer poker cover
    center centre liver tender spider ladder hamster lobster oyster danger thunder
    lavender burner better charger cooler freezer blender toaster shoulder ginger
    timber lumber heater boulder sticker poster folder binder marker eraser scooter
    after over under ever never other another either neither together whatever however whenever
    wherever rather further later earlier older younger longer shorter bigger smaller harder easier
    faster slower closer sooner
    """.split()
)
"""Agent nouns that describe a person but not their job (family, beliefs, hobbies, traits).

Hobby agents ("runner", "wrestler") count as a job only with "professional" before them.
"""

_HOBBY_ADJECTIVES = frozenset(
    "avid huge big keen passionate amateur casual hobby weekend aspiring wannabe recovering "
    "lifelong life long die hard diehard natural born self taught obsessive".split()
)
# Evaluative adjectives: "a hard worker", "a fast learner" describe a trait, unless the head
# is a listed profession ("a great teacher").
_TRAIT_ADJECTIVES = frozenset(
    "hard good great bad terrible awful fast quick slow decent early late heavy light picky "
    "messy total complete real true typical huge massive terrible excellent poor".split()
)
# "I am a bit older", "a lot happier": degree words, then a comparative, not a noun phrase.
_DEGREE_WORDS = frozenset("bit lot little tad way whole much far".split())
_PROFESSION_SUFFIXES = ("er", "or", "ist", "ician", "eer", "grapher", "ologist", "man", "woman")
# the particles some Englishes end a clause with (Zambian "ba", Nigerian "sef", Singapore "lah")
_PARTICLES = r"(?:ba|shaa|sha|lah|leh|lor|yaar|innit|sef|sha sha)"
_NP_BOUNDARY = re.compile(
    rf"\b(?:{NUM} (?:years?|yrs?)|and|but|who|that|which|at|for|in|with|from|by|so|because|since|now|these days|of|"
    rf"on|to|like|as|{_PARTICLES})\b.*$"
)


def _listed_profession(value: str) -> bool:
    """A profession by a listed word only, not by an agent noun's suffix ("i am older", "i am
    senior" are no jobs)."""
    words = value.split()
    head = words[-1]
    if words[0] in {"no", "not", "any", "never"} or (head == "rn" and len(words) > 1 and words[-2] in _NOT_RN):
        return False  # "no gf rn, too busy": none right now, no nurse
    if head in _RETIRED_NOUNS:
        return True  # "I am pensioner since 9 years"
    return (head in PROFESSIONS or lemma(head) in PROFESSIONS or head in _JOB_SYNONYMS) and head not in NOT_JOBS


def _headed_by_profession(value: str) -> bool:
    """A noun phrase whose last word is a listed profession and which names a job as a whole
    ("safari guide", "night nurse"; not "avid runner")."""
    return _listed_profession(value.split()[-1]) and is_profession(value)


_RETIRED_NOUNS = frozenset({"pensioner", "retiree", "pensionist", "oap"})
# words before "rn" that make it "right now": "single rn", "so tired rn", "broke rn"
_NOT_RN = frozenset({"gf", "bf", "single", "busy", "tired", "broke", "free", "home", "here", "now", "vibing",
                     "sad", "happy", "stressed", "dating", "unemployed", "jobless"})


def is_profession(phrase: str) -> bool:
    """Whether a noun phrase ("baby delivery nurse", "professional tennis player") names a job.

    The head noun decides: a listed profession, or an agent noun by its suffix unless it is a
    known non-job agent noun. Hobby intensity words ("avid", "amateur") make it a pastime;
    "professional" makes it a job.
    """
    words = _NP_BOUNDARY.sub("", phrase.replace("long haul", "longhaul")).split()
    if not words or words[0] in _DEGREE_WORDS or words[0] in {"no", "not", "any", "age", "aged", "do", "does", "did"}:
        return False  # (nor an age in radio talk: "age two-niner")
    if canonical_place(" ".join(words)) is not None:
        return False  # "Denver." is a city, not one who denves
    head, mods = words[-1], set(words[:-1])
    if head == "rn" and (words[0].endswith("ing") or (len(words) > 1 and words[-2] in _NOT_RN)):
        return False  # "doing keto rn", "single rn": right now, not a nurse
    head_lemma = lemma(head)
    if head_lemma != head and head not in PROFESSIONS and (head.endswith("ed") or head.endswith("ing") and len(words) > 2):
        # a participle is no trade ("cooked in the hot ground", "first yr engineering"; a trade's
        # gerund said as one's work still is: "lifeguarding at the pool", "bike couriering")
        return False
    professional = bool(mods & {"professional", "pro", "commercial"})
    if mods & _HOBBY_ADJECTIVES and not professional:
        return False
    last_two = " ".join(words[-2:])
    if last_two in NOT_JOBS or head_lemma in NOT_JOBS or head in NOT_JOBS:
        return professional and head_lemma not in {"fan", "lover", "enthusiast", "student"}
    if head_lemma in PROFESSIONS or head in PROFESSIONS or head in _JOB_SYNONYMS:
        return True
    if head.endswith(_COMPOUND_HEADS):
        return True  # compounds: "schoolteacher", "firefighter"
    if any(head.endswith(word) for word in NOT_JOBS if len(word) >= 4):
        return False  # compounds: "homeowner", "stepmother"
    if mods & _TRAIT_ADJECTIVES and not professional:
        return False
    return any(
        head.endswith(suffix) and len(head) >= len(suffix) + 3 for suffix in _PROFESSION_SUFFIXES
    )


# --- the data ----------------------------------------------------------------------------------

Check = Callable[[str], bool | str | None]  # a str result is the value's own form


@dataclass(frozen=True)
class SlotRule:
    """How to recognise one single-value topic.

    `patterns` are explicit statements of the slot; a named group `value` (optional) captures
    the value. A pattern may be paired with a check on the captured value. `hints` are weaker
    mentions that imply the slot ("my wife ..." implies a relationship status): a hint conflicts
    with an explicit statement, but two hints conflict only when their values differ, so that
    "my wife likes hiking" and "my wife is a doctor" are not asked about while "my boyfriend
    ..." and "my husband ..." are. `reject_values` drops a match
    whose value matches it. A slot name may contain "{cat}", filled from a group `cat`
    (favourites: "favorite_color").

    Negation is a value: a pattern with a named group `neg` that matched ("I have no car",
    "I am not married") gives `negative_value` ("none", "single"), or "no <value>" when the rule
    has none ("I do not eat meat" -> "no meat"). `canonical` maps a value to the form values are
    compared in ("hubby" and "married" are one status, "no meat" is "vegetarian"). A pattern may
    be paired with a fixed value instead of a check ("I teach ..." -> "teacher").
    """

    patterns: tuple[str | tuple[str, Check | str], ...]
    hints: tuple[str, ...] = ()
    reject_values: str | None = None
    skip_if: str | None = None
    value_from: Callable[[str], str | None] | None = None
    negative_value: str | None = None
    canonical: Callable[[str], str] | None = None


def _canonical_from(value: str, table: tuple[tuple[str, str], ...]) -> str:
    """The first canonical value whose pattern the value matches, else the value itself."""
    for pattern, canonical in table:
        if re.search(pattern, value):
            return canonical
    return value


# Relationship statuses as compared: "my husband" and "married" are one status.
_RELATIONSHIP_VALUES: tuple[tuple[str, str], ...] = (
    (r"^(?:no |single|not )", "single"),
    (r"\b(?:widow|widower|widowed|late (?:wife|husband|partner))\b", "widowed"),
    # after a break-up one is single; a marriage that ends is a separation
    (r"^(?:broke up|split up|dumped)\b", "single"),
    (r"\b(?:ex|divorced?|separated|broke up|split|left my|dumped)\b", "separated"),
    (r"\b(?:engaged|fiance|fiancee|proposed)\b", "engaged"),
    (r"\b(?:married|marry|marriage|wife|husband|hubby|spouse|hitched|forced|missus|mrs|wifey|"
     r"better half)\b", "married"),
    (r"\b(?:boyfriend|bf)\b", "partnered boyfriend"),
    (r"\b(?:girlfriend|gf)\b", "partnered girlfriend"),
    (r"\b(?:partner|dating|seeing|relationship|taken|in love|significant other|together|bae)\b",
     "partnered"),
)
"""A boyfriend and a girlfriend are two partners (a change); "seeing someone" names neither, so
it is the same status as either."""
_GENDER_VALUES: tuple[tuple[str, str], ...] = (
    (r"\b(?:female|woman|girl|gal|lady)\b", "female"),
    (r"\b(?:male|man|boy|guy|gentleman|dude)\b", "male"),
)
# Jobs as compared: every way of having no job is one value.
_JOB_VALUES: tuple[tuple[str, str], ...] = (
    (r"^(?:none|unemployed|jobless|between jobs|out of work|job hunting|job searching|job|work|"
     r"employment|laid off|fired|let go|made redundant)$", "none"),
    # the work said as a verb is its profession: "I teach at a high school"
    (r"^(?:teach|teaching)\b", "teacher"),  # the subject is detail: "teach english", "teach maths"
    (r"^nursing$", "nurse"),
    # a trade in the writer's own language, its first word ("maestra rural", "profe de geografia",
    # "infirmiere at the chl") is the English trade (foreign.py reads "soy maestra" itself)
    (r"^(?:maestr[oa]|profe|profesora?|professora|professeur|lehrer(?:in)?|leraar|lerares|insegnante|"
     r"enseignante?|docente|cikgu|masterji|sensei|ucitel(?:ka)?|nauczyciel(?:ka)?|ogretmen)\b", "teacher"),
    (r"^(?:enfermer[oa]|enfermeir[oa]|infirmiere?|infermier[ea]|krankenschwester|krankenpfleger(?:in)?|"
     r"verpleegkundige|perawat|jururawat|hemsire|pielegniarka|medsestra)\b", "nurse"),
    # a pensioner, a retiree and an OAP are retired (one value: "I'm a pensioner now" after
    # "retired after 35 years at the post office" is the same)
    (r"^(?:retired|pensioner|retiree|oap|senior citizen|on (?:a|my|the) pension)$", "retired"),
)
# Diets as compared: "veggie", "vegetarian" and "I do not eat meat" are one diet.
_DIET_VALUES: tuple[tuple[str, str], ...] = (
    (r"^no (?:animal products|meat or fish)|\b(?:vegan|plant based)\b", "vegan"),
    (r"^no dairy|\b(?:lactose|dairy) free\b", "lactose free"),
    (rf"^no (?:red )?meat|\b(?:{VEGETARIAN}|veggie|lacto|ovo)\b", "vegetarian"),
    (r"\b(?:pescatarian|pescetarian|fish)\b", "pescatarian"),
    (r"\b(?:omnivore|carnivore|meat|everything|anything|whatever|animal products)\b", "omnivore"),
)


def _strip_dwelling(value: str) -> str | None:
    """'a small house in ohio' -> 'ohio'; 'a small house' -> None (that is a home type)."""
    match = re.match(
        rf"^(?:(?:a|an|the|my|our) )?(?:\w+ ){{0,3}}?{DWELLING}(?: (?:in|on|near|outside|by) "
        rf"(?P<rest>.+))?$",
        value,
    )
    if match is None:
        return value
    return match.group("rest")


def _one_place(value: str) -> str | None:
    """The city a longer value names, when it names one ("denver colorado", "boston for grad
    school" -> the city; "austin or dallas": None)."""
    found = set(places_in(value))
    return found.pop() if len(found) == 1 else None


_CAR_NAME_RE = re.compile(rf"\b(?:{CAR_BRANDS}|{CAR_NAMES})\b")


_AFTER_CAR = re.compile(r"\b(?:with|w|that|which|on|from|for|and|but|now|to|in|at|of|is|was|i|we|"
                        r"my|our|since|because|(?:19|20)?\d\d)\b")  # (a model year too: "honda civic 2018")


def _car_core(value: str) -> str:
    """A car value from the make or model it names on, without what is said of it ("beat up
    civic with 200k miles on it" -> "civic", "little honda civic" -> "honda civic", "old ford
    pickup truck" -> "ford pickup truck"), else as said ("pickup"); then named by its make
    (`_by_make`)."""
    found = _CAR_NAME_RE.search(value)
    if found is None:
        return value
    return _by_make(_AFTER_CAR.split(value[found.start():], 1)[0].strip() or value)


def _car_makes() -> dict[str, str]:
    """model or nickname -> its make (cars.json "makes")."""
    makes = _CARS.get("makes")
    if not isinstance(makes, dict):
        return {}
    return {str(name): str(make) for make, names in makes.items() for name in names}


# a make by itself or its nickname: these name no model
_MAKE_NICKNAMES = {
    **{make: make for make in "toyota honda ford chevrolet nissan volkswagen bmw mercedes audi hyundai kia subaru "
       "mazda jeep tesla volvo porsche lexus suzuki".split()},
    "yota": "toyota", "chevy": "chevrolet", "chevvy": "chevrolet", "volkswagon": "volkswagen", "vw": "volkswagen",
    "vdub": "volkswagen", "veedub": "volkswagen", "vee dub": "volkswagen", "beemer": "bmw", "beamer": "bmw",
    "bimmer": "bmw", "benz": "mercedes", "mercedes benz": "mercedes", "merc": "mercedes", "merk": "mercedes",
    "mercedez": "mercedes", "subie": "subaru", "porker": "porsche", "royal enfield": "royal enfield",
    "enfield": "royal enfield",
}
_MAKE_OF = {**_car_makes(), **_MAKE_NICKNAMES}
_NICKNAME_RE = re.compile(
    r"\b(?:" + "|".join(re.escape(n) for n in sorted(_MAKE_NICKNAMES, key=len, reverse=True)) + r")\b"
)


@lru_cache(maxsize=4096)
def _by_make(core: str) -> str:
    """A car named by its make before its model, the make in one spelling: "camry" -> "toyota
    camry", "chevy silverado" -> "chevrolet silverado", "f 150" -> "ford f 150". Why: "My toyota
    needs new tires" after "I drive a Camry" is the same car said again (Keep both), not a change
    that would retire it; a model of another make stays another car. Unchanged when the names
    point to no make or to two. (A body word stays: "ford pickup truck" and "ford mustang" are
    two cars; so "f 150" and "ford pickup" stay apart too, since which models are pickups is not
    known here.)"""
    names = [m.group(0) for m in _CAR_NAME_RE.finditer(core)] + _NICKNAME_RE.findall(core)
    makes = {_MAKE_OF[name] for name in names if name in _MAKE_OF}
    if len(makes) != 1:
        return core
    make = makes.pop()
    rest = _NICKNAME_RE.sub(lambda m: " " if _MAKE_NICKNAMES[m.group(0)] == make else m.group(0), core)
    return f"{make} {' '.join(rest.split())}".strip()


_BIG = (r"(?:\bi (?:just )?(?:hit|turned|reached|am turning|am hitting|will be) "
        r"|^(?:just |finally |about to be |almost )?(?:hit|turned|reached|hitting|turning) |^(?=the big \w+(?: (?:oh|o|0))? (?:was|is|came|comes|next|this|last|today|tomorrow|on|happened|hit|arrived)\b))"
        r"the big ")
_BIG_AFTER = r"\b"  # the number's end
# died, not passed an exam: "my husband passed away", "passed four years ago", "passed in 2019"
_PASSED = (r"(?:passed away|passed on|died|passed(?=$|[,.!;]| (?:last|in|recently|suddenly|peacefully|ago|"
           r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a few|several) \w+ (?:ago|back))\b))")
_TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# a grown-up's age in words: "nineteen", "fifty two"
_TENS_NUM = (rf"(?:(?:{'|'.join(_TENS_WORDS)})(?: (?:one|two|three|four|five|six|seven|eight|nine))?|"
             r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)")
_UNIT_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORDINAL = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety) (?:first|second|third|fourth|fifth|"
            r"sixth|seventh|eighth|ninth)|(?:twentieth|thirtieth|fortieth|fiftieth|sixtieth|seventieth|eightieth|"
            r"ninetieth)|(?:thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth))")


def _age_of_ordinal(value: str) -> str | None:
    """The age a birthday's ordinal names: "55th" -> "55", "forty fifth" -> "45", "sixtieth" -> "60"."""
    digits = re.match(r"(\d{2,3})(?:st|nd|rd|th)$", value)
    if digits:
        return digits.group(1)
    words = value.split()
    teens = ("thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth")
    if len(words) == 1 and words[0] in teens:
        return str(13 + teens.index(words[0]))
    if len(words) == 1 and words[0].endswith("ieth"):
        tens = words[0][:-4] + "y"
        return str(20 + 10 * _TENS_WORDS.index(tens)) if tens in _TENS_WORDS else None
    if len(words) == 2 and words[0] in _TENS_WORDS and words[1] in _UNIT_ORDINALS:
        return str(20 + 10 * _TENS_WORDS.index(words[0]) + 1 + _UNIT_ORDINALS.index(words[1]))
    return None


# -ing words that tell how work feels, not what it is: "my work is exhausting"
_ING_MOODS = frozenset("boring amazing exhausting tiring interesting demanding rewarding draining frustrating "
                       "annoying depressing killing challenging satisfying fulfilling overwhelming fascinating "
                       "relaxing exciting thrilling grueling gruelling stressing everything nothing something "
                       "piling increasing going getting".split())


def _work_named(value: str) -> str | None:
    """What "my work is ..." names when it is a trade: a profession, or a craft's gerund ("indigo
    dyeing" from "aizome, indigo dyeing"); None for how the work feels."""
    for part in value.split(","):
        part = part.strip()
        words = part.split()
        if not words or len(words) > 4:
            continue
        if is_profession(part) or any(word.endswith("ing") and len(word) > 5 and word not in _ING_MOODS
                                      for word in (words[0], words[-1])):
            return part
    return None


def _is_place(value: str) -> bool:
    """A city by one of its names (places.json), for the patterns that name no home verb."""
    return canonical_place(value) is not None


def _names_one_place(value: str) -> bool:
    """A value that names one city and nothing else of note ("boise, idaho", "munich the rents"):
    the city is its canonical form (_one_place); a name that is also a word or a first name
    ("reading", "austin") does not count alone."""
    return place_in(value) is not None and _one_place(value) is not None


SLOTS: dict[str, SlotRule] = {
    "job": SlotRule(
        patterns=(
            rf"{S}{A}(?:work|am working|have been working|have worked)"
            rf"(?: full time| part time| fulltime| parttime| freelance| remotely| from home)?"
            rf" (?:as|at|for|in) (?P<value>[^,;]+)",
            rf"{S}{A}(?:got |was |have been |just got )?promoted to (?P<value>[^,;]+)",
            # a start somewhere: "Just started at the bank", "I start at Tesco on Monday"
            rf"{S}{A}(?:started|start|began|am starting) (?:work |working |my new job |a new job |a job )?"
            rf"(?:at|with) (?!(?:a |an |the |my )?(?:new )?(?:school|college|university|uni|class|classes|"
            rf"course|team|gym|club|group|therapist|coach)\b)(?!(?:{NUM}|\d+|dawn|dusk|noon|midnight|sunrise|"
            rf"sunset|once|zero|minus|below)\b)(?P<value>[^,;]+)",
            (rf"{S}{A}(?:am|have been|am now|became|have become) (?:a|an) (?P<value>(?:(?:grade|year|form|class|"
             rf"standard|key stage) \d{{1,2}} )?[a-z ]+)",
             is_profession),
            # the job one speaks as: "as staff nurse I barely got to drink water", "in the ER as a
            # nurse, ratio is 1:20" (not a costume or a role played: "dressed up as a nurse")
            (r"(?<!dressed up )(?<!dressed )(?<!disguised )(?<!costume )(?<!playing )(?<!play )(?<!known )"
             r"(?<!same )(?<!such )(?<!well )(?<!cast )(?<!started )(?<!began )(?<!start )(?<!worked )(?<!served )"
             r"(?<!was )(?<!were )(?<!retired )(?<!employed )(?<!hired )(?<!trained )(?<!volunteer )"
             r"(?<!volunteered )(?<!volunteering )(?<!working )(?<!works )(?<!work )\bas (?:a |an )?(?P<value>(?:staff |head |senior |"
             r"junior |charge |registered |school |primary |secondary |high school |software |civil )?[a-z]+)"
             r"(?=$|,| i\b| here\b| at\b| in\b| for\b| on\b| since\b)",
             lambda value: _listed_profession(value)),
            # the job named beside the words for it: "carrying words from Italian into Albanian, a
            # translator, they call it", "Sunt moasa, midwife, at the maternity hospital" (one's own
            # language first, then the English word), "Dublin, nurse, 34"
            (r", (?:a |an )?(?P<value>[a-z]+(?: [a-z]+)?), (?:they call it|as they say|yes|that is me|if you like|"
             r"so to speak|officially)\b",
             _headed_by_profession),
            (r"^(?!(?:[a-z]+ ){0,2}?(?:my|his|her|their|our|the|a|an)\b)[a-z]+(?: [a-z]+){0,2}, (?:a |an )?"
             r"(?P<value>[a-z]+), (?=at\b|in\b|for\b|i\b|\d)",
             lambda value: _listed_profession(value)),
            # the years one has been it, the verb dropped: "thirty years a baker", "that's what twenty
            # years of being a florist does to you" (not "after forty years a nurse", now over)
            (rf"(?<!after )(?<!spent )(?<!for )\b(?:{NUM}|\d+|many|so many|all these) (?:years?|yrs?|decades?) "
             rf"(?:of being |now )?(?:a|an) (?P<value>[a-z]+(?: [a-z]+)?)(?=$|[,.!;]| now\b| and\b| does\b| do\b| in\b|"
             rf" at\b| on\b| for\b)",
             _headed_by_profession),
            # learner's English drops the article: "I am staff nurse in govt hospital", "I am teacher"
            (rf"\bi (?:am|am working as|work as) (?P<value>(?:staff |head |senior |junior |charge |school |"
             rf"primary |secondary |high school |software |civil |registered |house )?[a-z]+)\b",
             lambda value: _listed_profession(value)),
            (r"\bi (?:am|am working as|work as) (?!(?:a|an|the|my|very|so|too|not|no|also|still|now|just|really|"
             r"in|at|on|from|with|like)\b)(?P<value>[a-z]+ [a-z]+)(?=$|[,.!;]| i\b| at\b| in\b| for\b| on\b| since\b| and\b)",
             _headed_by_profession),
            rf"{S}{A}(?:am |have been |was )?employed (?:by|at|as|with|in) (?P<value>[^,;]+)",
            r"\bi am (?:(?:currently|now|still|officially) )?(?P<value>self employed|unemployed|jobless|"
            r"between jobs|out of work|"
            r"job hunting|job searching|on disability|a stay at home (?:mom|dad|parent|mother|"
            r"father|wife|husband))\b",
            rf"{S}{A}(?:am |have been |was |got |just |now |fully |officially |happily )*(?P<value>retired(?! (?:to|out to)\b)|"
            rf"laid off|fired|let go|made redundant)\b",
            # retirement told by what was hung up or by what came before it: "hung up the badge
            # five years ago", "taught history for 35 years before retiring"
            (rf"{S}{A}(?:hung|have hung) up (?:my|the|our) (?:\w+ )?(?:badge|boots|apron|scrubs|"
             rf"stethoscope|gloves|spurs|tools|toolbelt|tool belt|uniform|hard hat|helmet|keys|whistle|"
             rf"chalk|briefcase|wrench|spanners|clippers|pen)\b", "retired"),
            (rf"{S}{A}(?:hung|have hung) it up (?:in \d{{4}}|(?:\w+ ){{1,2}}years? ago|after|for good|"
             rf"last year)", "retired"),
            (r"\b(?:before|until|till|til|then) (?:i )?(?:retiring|retired|i retired)\b(?! (?:to|from|in)\b)",
             "retired"),
            (rf"{S}{A}(?:am |am now )?(?:retird|retierd|retiered|retyred)\b", "retired"),
            # one's retirement said as one's life now: "Retirement suits me fine", "loving retirement"
            (r"(?:^|, |\band |\bbut )(?:retirement|retired life) (?:suits|agrees with|is treating|has been good to) me\b",
             "retired"),
            (rf"{S}{A}(?:am |have been |been )?(?:loving|enjoying) (?:my |a |the )?(?:\w+ )?retirement\b", "retired"),
            # the years of it, the day work ended: "have now enjoyed eleven years of retirement",
            # "Finished work for good in 2014, when the pension came"
            (rf"{S}{A}(?:have (?:now )?(?:enjoyed|had|spent) )?(?:\d+|{NUM}|a few|many) (?:happy )?years (?:of|in) retirement\b|"
             r"(?:^|, |\band |\bi )(?:finished|stopped|left) work(?:ing)? for good\b|\bwhen the pension came\b", "retired"),
            # a pension drawn: "pensioned off now and loving it", "on the pension since 2015"
            (r"(?:^|, |\band |\bi (?:am |was |got |have been )?)(?:(?:now|finally|just|been|got|was) )*pensioned off\b",
             "retired"),
            # "now I have my pension", "I live on my pension", "drawing the state pension since 2015"
            (rf"(?:{S}(?:now )?{A}(?:have|get|draw|collect|live on|am living on|am on|am drawing|am collecting|"
             rf"got|have been on|have been drawing)|^(?:now )?(?:living on|on|drawing|collecting)) "
             rf"(?:my|a|the|our) (?:(?:state|small|little|old age|army|company|miner s|teacher s|full) )?pension\b"
             rf"(?! (?:fund|plan|scheme|provider|contributions?|pot|forms?|advisor|adviser|office|department|"
             rf"team|calculations?|statement|increase|review)\b)", "retired"),
            # a student by their year or their major: "junior at georgia tech", "majoring in
            # history", "second year at uni studying law"
            (r"(?:^|\bi am (?:a |an )?|, )(?:(?:college|university|uni) )?(?:freshman|sophomore|junior|"
             r"senior|first year|second year|third year|fourth year|final year|1st year|2nd year|"
             r"3rd year|4th year) (?:at|in) (?:uni|university|college|law school|med school|"
             r"grad school|nursing school|[a-z]+(?: [a-z]+)? (?:state|tech|university|college|u))\b",
             "student"),
            (rf"{S}{A}(?:am )?(?:majoring|minoring|double majoring) in\b", "student"),
            # "first yr engineering at u of m, already regretting every life choice"
            (r"^(?:first|second|third|fourth|final|1st|2nd|3rd|4th) (?:year|yr) (?:[a-z]+ ){1,3}(?:at|in) (?:uni|university|"
             r"college|u of [a-z]+|[a-z]+ (?:uni|u|university|college))\b", "student"),
            # a trade by what one has done for years: "been cooking professionally for 25 years",
            # "been doing icu nursing for about 8 years", "doin hair 25 yrs"
            rf"{S}{A}(?:have )?(?:been )?(?P<value>[a-z]+ing) professionally\b",
            rf"{S}{A}(?:have )?(?:been )?(?:doing|doin|done) (?:\w+ )?(?P<value>nursing|teaching|accounting|"
            rf"bookkeeping|plumbing|welding|hairdressing|hair|nails|roofing|carpentry|landscaping|tutoring|"
            rf"catering|bartending|nannying|social work|payroll)(?= for (?:about |almost |nearly |over )?"
            rf"\w+ (?:years?|yrs|decades?)| (?:\d+|{NUM}) (?:years?|yrs)| since| professionally| full time|"
            rf" part time| for a living)",
            (r"(?:^|, |\bi am (?:a |an )?)(?:(?:college|university|uni) )?(?:freshman|sophomore|junior|senior|"
             r"first year|second year|third year|fourth year|final year|1st year|2nd year|3rd year|4th year) "
             r"(?:in|studying|doing) (?!(?:the|my|our|a|an|high school)\b)[a-z]+", "student"),
            (r"(?:^|, |\bi am (?:in )?(?:my )?)(?:first|second|third|fourth|final|last|1st|2nd|3rd|4th) year of "
             r"(?:my |a |the )?(?:[a-z]+ )?(?:degree|uni|university|college|law school|med school|nursing school|grad school|"
             r"bachelors|masters|phd|ba|bsc|bscn|bsn|beng|msc|ma|mba)\b", "student"),
            # a grade or a term of one's own schooling: "11th grade at a colegio in chapinero",
            # "2nd semester of computer science at AU", "i'm in year 12" (not "teaching 11th grade")
            (r"(?:^|, |\bi am (?:in )?(?:my )?|\bi am (?:now |currently )?in )(?:\d{1,2}(?:st|nd|rd|th)|first|second|"
             r"third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|final|last) "
             r"(?:grade|semester|term|sem) (?:at|of|in)\b(?! (?:my|his|her|their|our) )", "student"),
            (r"(?:^|\bi am (?:now |currently )?in )(?:year|grade|form|class) (?:\d{1,2}|ten|eleven|twelve|thirteen) "
             r"(?:at|in|of|now|this year|and)\b", "student"),
            # teaching a class or a subject, the subject dropped: "teaching AP chem this year",
            # "been teaching third grade since 2010" (not one's own child or a dog a trick)
            # ("I teach English.", "I teach maths to year 9s": the subject said, the verb plain)
            (rf"(?:^|{S}{A}(?:am |have been |been )?)teach(?:ing)? (?!(?:my|our) (?:\w+ )?(?:sons?|daughters?|kids?|"
             rf"children|boys?|girls?|grandsons?|granddaughters?|nephews?|nieces?|dogs?|puppy)\b)(?:\w+ ){{0,2}}?(?:grade|graders|class|classes|"
             rf"chem|chemistry|physics|biology|bio|math|maths|english|history|science|geography|spanish|"
             rf"french|kindergarten|kinder|preschool|pre k|high school|middle school|elementary|year \d+|"
             rf"ap \w+|at (?:a|the) (?:\w+ )?(?:school|college|university|academy))\b", "teacher"),
            (r"\b(?:at|in) (?:uni|university|college) (?:studying|doing|reading) [a-z]+", "student"),
            (rf"{S}{A}(?:study|am studying|am doing a degree in|am doing my degree in) (?:\w+ ){{1,3}}?(?:at|in) "
             rf"(?:the )?(?:uni|university|college|tu|polytechnic|poly|community college|grad school|law school|"
             rf"med school|[a-z]+ (?:university|college|state|tech))\b", "student"),
            rf"{S}{A}(?P<neg>retired|quit|left|lost|resigned from) (?:from )?(?:my |the )?"
            rf"(?:\w+ )?(?:job|work|career|position)\b",
            rf"{S}{A}(?P<neg>do not|no longer|can not) (?:work|have a job)\b(?! (?:as|at|for|in|on)\b)",
            rf"{S}{A}(?:am |are )?(?:now |currently )?(?:looking for|searching for|seeking) "
            rf"(?:a |an )?(?:new |another |full time |part time )*(?P<value>job|work|employment)\b",
            # having found work is being employed, never "no job": the workplace is the value
            # when it is said ("I just got a job at a bank"), else a value of its own
            rf"{S}{A}(?:have|got|found|landed|started|accepted|took|am starting|start|began|"
            rf"have got|have found|have started|have landed) (?:a|an|my|the) "
            rf"(?:(?:new|first|full time|part time|fulltime|parttime|dream|real|steady|second) )*"
            rf"job (?:at|with|in|as) (?P<value>[^,;]+)",
            (rf"{S}{A}(?:have|got|found|landed|started|accepted|took|am starting|start|began|"
             rf"have got|have found|have started|have landed) (?:a|an|my|the) "
             rf"(?:(?:new|first|full time|part time|fulltime|parttime|dream|real|steady|second) )*"
             rf"job\b(?! interview| offer| fair| application)", "employed"),
            r"\bmy (?:current |new |day |main |full time |regular )?(?:job|profession|occupation|"
            r"career) (?:is|as|at) (?P<value>[^,;]+)",
            # "my work is" names a trade when what follows is one or a craft's gerund: "My work is
            # aizome, indigo dyeing", "my work is nursing" (not a mood: "my work is exhausting")
            (r"\bmy (?:day |daily |own )?(?:work|trade|craft|line of work) is (?P<value>[a-z][a-z ,]*?)"
             r"(?=$|[.!?;(]| and\b| but\b| so\b| because\b| hands\b)", _work_named),
            r"\b(?:i|we) (?P<value>[a-z]+(?: [a-z]+){0,5}?) for a living\b",
            # one's trade as a way of life: "RN life lol", "pharmacist life", "Salon life, eh"
            # (a listed trade only: not "student life", "city life")
            (r"(?:^|[,.!;:] |\b(?:er|icu|ward|shop|yard|site) )(?P<value>(?!(?:my|the|a|an|this|that|his|her|our)\b)"
             r"[a-z]+(?: [a-z]+)?) life\b(?! (?:insurance|coach|story|goals?|lessons?|partner|expectancy|span|jacket|"
             r"support|sentence|raft|skills?|choices?|balance|hack)\b)", _listed_profession),  # ("Defender life" is a car's)
            # "DJ set tonight ... this is what i do for a living": a job, its name said before
            r"\b(?:this|that|it) is what (?:i|we) do for (?:a living|work|money)\b",
            # a living earned some way: "I make a living selling paintings"
            rf"{S}{A}(?:make|earn) (?:a|my|our) living (?:by )?(?P<value>[a-z]+ing(?: [a-z]+){{0,3}})",
            rf"{S}{A}(?:make|earn) (?:my |our )?money (?:by )?(?P<value>[a-z]+ing(?: [a-z]+){{0,3}})",
            # hired somewhere, in charge of something at work, managing a workplace
            rf"{S}{A}(?:got|was|have been|just got) hired (?:at|by|as) (?P<value>[^,;]+)",
            rf"\bi am (?:in charge of|responsible for|the head of|head of) (?P<value>[a-z ]+?) "
            rf"(?:at|for|in) (?:a|an|the|[a-z]+) (?:[a-z]+ ){{0,2}}?{WORKPLACES}\b",
            rf"{S}{A}(?:manage|run|own) (?:a|an|the|my|our) (?:[a-z]+ ){{0,2}}?(?P<value>{WORKPLACES})\b",
            # (a workplace after it: "I'm the only staff nurse on the floor"; not "which is rude because
            # I'm literally the teacher", said inside a story about one's sister)
            (rf"\bi am the (?:only |sole |lone |one )?(?P<value>[a-z ]+?)(?= (?:at|for|in|of|on) )", is_profession),
            # a chat greeting that names the job: "Nurse here, twelve hour shifts are rough."
            (r"^(?P<value>[a-z]+(?: (?:[a-z]+|\d{1,2}(?= [a-z]))){0,3}?) here(?=$|[,.!;:]| and\b| but\b)", is_profession),
            # a stay-at-home parent said alone: "Stay-at-home mom to the chaos."
            r"^(?:(?:proud|happily|full time) )?(?P<value>stay at home (?:mom|mum|dad|parent|mother|father))\b",
            # the workplace first: "The bakery on Main Street is where I work"
            r"(?:^|, |\band |\bbut )(?:the |a |an )?(?P<value>[a-z][a-z ]{1,40}?) (?:is|has been|"
            r"was) (?:now |still |currently )?where (?:i|we) (?:now )?(?:work|am working|have worked)\b",
            rf"{S}{A}work (?P<value>retail|construction|security|sales|hospitality|maintenance|"
            rf"customer service|admin|in it)\b",
            rf"{S}{A}(?:own|run|have|started|founded|opened) (?:my own|our own|a|an) "
            rf"(?:small |own |little |family )*(?P<value>business|company|restaurant|shop|store|"
            rf"bakery|cafe|salon|firm|practice|startup|start up|agency|consultancy)\b",
            # working for a public body: "I fight fires for the city" ("for", never "in": "I now
            # live in the city" is a home)
            rf"{S}{A}(?!{LEISURE_VERBS}\b|(?:vote|voted|voting|root|rooted|rooting|cheer|cheered|pray|"
            rf"prayed|campaign|campaigned|ran|run|running)\b)(?P<value>[a-z]+(?: [a-z]+){{0,2}}?) for the (?:city|county|"
            rf"state|government|council|union|district|school district|federal government)\b",
            (rf"(?:{S}{A}(?:drive|am driving|have been driving|have driven)|^(?:been )?driving) "
             rf"(?:(?:a|an|the) )?{WORK_VEHICLE_LEAD}(?:{WORK_VEHICLES})(?:e?s)?\b", "driver"),
            # driving for an app: "I drive for Uber", "I am driving Ola cab since 2014"
            (rf"(?:{S}{A}(?:drive|drove|am driving|have been driving|have driven|do)|^(?:been )?driving) "
             rf"(?:for |with )?(?:an? )?(?:uber|lyft|ola|grab|bolt|didi|careem|gojek|indrive|yandex taxi)\b", "driver"),
            rf"{S}{A}(?:am|serve|served|have served|work|am serving) in the (?P<value>army|navy|"
            rf"air force|marines|marine corps|military|coast guard|national guard|police|"
            rf"police force|fire department)\b",
            # what one does at a workplace: "I wait tables at a steakhouse", "I fly planes for an
            # airline"
            # (not a verb of someone else: "my wife is 36 and teaches chinese at the same school")
            # (not a room of one's own home: "i grow succulents in my yard", "in our kitchen"; "at
            # my own garage" is a workplace)
            rf"{S}{A}(?!{LEISURE_VERBS}\b)(?!(?:[a-z]+ ){{0,2}}(?:hours?|hrs|days?|weeks?|months?|years?|yrs|shifts?|nights?|mornings?|afternoons?)\b)(?P<value>(?![a-z]*[^s\W]s\b)[a-z]+(?: [a-z]+){{0,2}}?) (?:at|for|in(?! (?:my|our) "
            rf"(?:[a-z]+ ){{0,2}}?(?:yard|garage|kitchen|studio|office|gym|garden|basement)s?\b)) "
            rf"(?:a|an|the|my|our|one|this|that|[a-z]+) (?:[a-z]+ ){{0,2}}?{WORKPLACES}\b",
            # a parent at home: "I stay home with my three kids" (one value with "a stay at home mom")
            (rf"{S}{A}stay (?:at )?home with (?:my|our|the) (?:\w+ )?(?:kids|children|baby|babies|"
             rf"son|sons|daughter|daughters|twins|boys|girls|little ones)\b", "stay at home"),
            # being home with them as one's days: "these days I'm home with the little one full
            # time" (not a day off: "I'm home with the kids today")
            (rf"(?:\b(?:these days|nowadays|now) i am|{S}{A}am(?= (?:at )?home with .*\b(?:full time|these days|"
             rf"nowadays|every day|all day)\b)) (?:at )?home (?:full time )?with (?:my|our|the) (?:\w+ )?"
             rf"(?:kids|children|baby|babies|twins|boys|girls|little ones?|toddlers?|newborn)\b", "stay at home"),
            (rf"{S}{A}(?!{LEISURE_VERBS}\b)[a-z]+ (?:[a-z]+ )?on (?:my|our|a|an|the|the family|"
             rf"my family|our family) (?:[a-z]+ ){{0,2}}?(?:farm|ranch|orchard|vineyard)\b",
             "farmer"),
            rf"{S}{A}(?:joined|have joined|am joining) (?P<value>(?:a |an |the )?(?:\w+ )?"
            rf"(?:startup|start up|company|firm|agency|army|navy|air force|marines|military|"
            rf"police force))\b",
            (rf"{S}{A}(?:teach|have taught|have been teaching|am teaching) (?:[a-z0-9]+ ){{0,4}}?(?:at |in )?(?:a |an |the )?(?:\w+ ){{0,2}}?(?:school|"
             rf"kindergarten|preschool|grade|college|university|classes)\b", "teacher"),
            (rf"{S}{A}teach(?: now| full time| part time| for a living)?(?=$|[,.!])", "teacher"),
            (rf"{S}{A}teach (?:[a-z]+ ){{1,2}}?to (?:\w+ ){{0,3}}?(?:kids|children|students|adults|teenagers|"
             rf"teens|immigrants|beginners|pupils|learners|graders|year olds|refugees|newcomers|foreigners)\b",
             "teacher"),
            # farming told by what is raised: "i raise cattle and grow corn", "we grow soybeans"
            (rf"{S}{A}(?:raise|farm|grow|run|breed|milk) (?:(?:a|our|my|the|\w+) )?(?:\w+ )?(?:cattle|cows|"
             rf"livestock|sheep|hogs|pigs|goats|beef|corn|wheat|soybeans|soy beans|crops|hay|cotton|"
             rf"barley|sugar cane|rice paddies|dairy cows|herd|acres)\b", "farmer"),
            rf"{S}{A}work (?:on )?(?:my |our |the |a |an )?(?:\w+ )?(?P<value>farms?|ranch(?:es)?|"
            rf"fields|land|oil rigs?|construction sites?|building sites?)\b",
            # shifts say one works, not as what ("I work night shifts as an ER nurse"): no value
            rf"{S}{A}work (?:the |a |an )?(?:\w+ )?(?:shifts?|nights|night shifts?|double shifts?)\b",
            rf"\bi am in (?P<value>sales|marketing|finance|tech|it|retail|construction|healthcare|"
            rf"insurance|real estate|banking|law|education|hr|human resources|advertising|"
            rf"hospitality|nursing|medicine|consulting|accounting|the \w+ (?:industry|business))\b",
        ),
        negative_value="none",
        canonical=lambda value: _canonical_from(value, _JOB_VALUES),
        # Side jobs are left out: a second job does not replace the first.
        skip_if=r"\b(?:also|as well|on the side|side job|side hustle|second job|supplement)\b",
        reject_values=(
            r"^(?:(?:my|the|our) )?(?:garden|yard|spare time|free time|evenings?|mornings?|"
            r"weekends?|nights?(?! (?:nurse|porter|guard|manager|watchman|clerk|editor|auditor|receptionist)\b)|home|myself on|a team|a group|progress)\b"
            # "this is what i do for a living": the job is said elsewhere, not "do"
            r"|^(?:do|did|does|what i do)\s*$"
            # "nobody at the shop knew": no one's job
            r"|^(?:nobody|no one|noone|somebody|someone|everyone|everybody|anyone|anybody)\b"
            # a favourite's heading is no job: "favorite poet, Lina Kostenko"
            r"|^(?:my )?(?:all time )?favou?rite\b"
            # a participle alone is no trade: "29, still carded at every bar"
            r"|^(?!(?:retired|unemployed|self employed|employed)\s*$)[a-z]+ed\s*$"
            # where one all but lives is no workplace: "I practically live at the gym"
            r"|^(?:[a-z]+ly |pretty much |more or less )?(?:live|stay|sleep|hang out|chill)\s*$"
            # a car by its name is no job: "astra's in the garage again" ("'s" dropped)
            rf"|^(?:(?:my|the|our|old|new) )*(?:{CAR_BRANDS} )?(?:{CAR_NAMES}) $"
        ),
    ),
    "residence": SlotRule(
        patterns=(
            rf"{S}{A}(?:live|am living|am live|are living|have been living|have lived|reside|am based|"
            rf"are based|am settled|am staying|now live|stay|am stationed|are stationed|"
            rf"have been stationed|was just stationed) (?:(?:with|near) [a-z ]*? )?"
            rf"(?:in|on|at|near|by|close to|next to|outside of|outside|just outside|is) "
            rf"(?P<value>[^,;]+)",
            rf"{S}{A}(?:moved|relocated|have moved|have relocated|am moving|are moving|"
            rf"am relocating|moved back|have moved back|retired|have retired|are retiring|"
            rf"am retiring) (?:back |down |up |over |out |across |home )?(?:from [a-z ]+? )?"
            rf"(?:to|out to) (?P<value>[^,;]+)",
            r"\b(?:my|our) (?:home|house|apartment|flat|place) is (?:now )?(?:in|on) (?P<value>[^,;]+)",
            # the form's word: "Please be advised that my place of residence is Vilnius"
            r"\b(?:my|our) (?:(?:current|usual|permanent|primary) )?(?:place of residence|residence|abode|"
            r"domicile|hometown|home town) is (?:now )?(?:in |at )?(?P<value>[^,;]+)",
            # the place said last: "the city I live in and love and complain about is Prague", "the
            # town I wake up in every day is Pokhara"
            r"\bthe (?:city|town|village|place|island) (?:that )?(?:i|we) (?:live in|call home|wake up in|"
            r"reside in)\b[a-z ]{0,60}? is (?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.!;])",
            # up or down in a known town: "I'm up in Inverness", "we are down south in Tartu"
            (r"\b(?:i|we) (?:am|are) (?:now )?(?:up|down|out|over|back)(?: (?:north|south|east|west|here|there|"
             r"home))? in (?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.!;]| now\b| and\b| for\b| since\b| these days\b| with\b)",
             _names_one_place),
            # a home rented or owned somewhere: "i rent a tiny place in chicago"
            rf"{S}{A}(?:rent|own|have|share|bought|am renting) (?:a|an|my|our) (?:\w+ ){{0,2}}?"
            rf"(?:{DWELLING}|place|room) in (?P<value>[^,;]+)",
            # the adverb after the auxiliary: "I'm currently living in Mexico"
            rf"\b(?:i|we) (?:am|are|have been|was|were) {A}(?:(?:currently|temporarily|happily) )?"
            rf"(?:living|staying|based|settled|stationed) (?:abroad |overseas |out )?(?:in|on|at|near) "
            rf"(?P<value>[^,;]+)",
            # where one has been for a while: "I've been in Amsterdam for two years now"
            r"\b(?:i|we) have (?:now )?been (?:living )?in (?P<value>(?!(?:the|a|an|my|our|bed|"
            r"hospital|jail|prison|love|trouble|charge|touch|pain)\b)[a-z][a-z ]{1,30}?) (?:for "
            r"(?:[a-z0-9]+ ){0,3}?(?:years?|months?|decades?|ages|a while|a long time)|since (?:\d{4}|"
            r"i was|we were|childhood))\b",
            # settling, going back home: "We settled in Denver", "I moved back home to Ohio"
            rf"{S}{A}(?:settled|have settled|settled down|have settled down|dropped anchor|have dropped anchor)"
            rf"(?: down| for good)? (?:in|on|near) (?P<value>[^,;]+)",
            # the years first, the verb as a fragment: "6 yrs living in Doha and still not used to it"
            rf"^(?:for )?(?:{NUM}|a few|a couple of|many|so many) (?:years?|yrs?|decades?|months?) (?:now )?"
            rf"(?:living|based|settled|residing) (?:in|on) (?P<value>[^,;]+)",
            # back for good: "I came back to Sarajevo in '96 and never left again"
            (rf"{S}{A}(?:came|went|got|moved) (?:back|home) to (?P<value>[a-z][a-z ]{{1,30}}?)(?=$|[,.!;]| in\b| after\b| and\b| for good\b)"
             rf"(?=.*\b(?:never (?:left|looked back|moved)|for good|to stay)\b)", _is_place),
            rf"{S}{A}(?:moved|have moved|went|came|am moving) back home to (?P<value>[^,;]+)",
            # a new start somewhere: "I packed up the truck and started over in Bozeman"
            rf"{S}{A}(?:started over|started afresh|started again|started a new life|made a new life|"
            rf"made a (?:new )?home|set up home|put down roots|have put down roots) (?:in|on|near) (?P<value>[^,;]+)",
            # no preposition, or a direction before it: "I live downtown", "we live up north",
            # "I live out in the country", "We live abroad"
            rf"{S}{A}(?:live|am living|are living|have lived|reside) (?:up|down|out|over|back) "
            rf"(?:in|on|at|near|by) (?P<value>[^,;]+)",
            rf"{S}{A}(?:live|am living|are living|have lived|reside) (?P<value>(?:up |down |out |"
            rf"back )?(?:north|south|east|west|downtown|uptown|abroad|overseas|upstate|inland))\b",
            # a resident of a place: "Mile High City resident.", "lifelong ohio resident here"
            r"^(?:(?:a |an )?(?:proud |lifelong |longtime |long time |full time |happy |current ) ?)*"
            r"(?!(?:i|we|im|my|our|a|an|the|medical|surgical|chief|senior|junior|first year|"
            r"pediatric|psychiatry|surgery|radiology)\b)(?P<value>[a-z][a-z ]{1,30}?) (?:resident|local)(?=$|[,.!;:]| here\b| now\b| since\b| for\b)",
            rf"{S}{A}(?:am |have been )?(?:a |an )(?:proud |lifelong |longtime |long time )?(?:resident|local) of "
            r"(?P<value>[^,;]+)",
            # days spent somewhere, now: "we spend our days in sunny florida now"
            rf"{S}{A}(?:spend|are spending|am spending) (?:my|our) days (?:in|on|at|by) (?P<value>[^,;]+?)"
            r" (?:now|these days|nowadays|year round|all year)\b",
            # the value first: "Berlin is where I live now", "Dublin is home", "Rome is my home"
            r"(?:^|, |\band |\bbut )(?!(?:(?:and |but )?(?:now|so|then) )?(?:it|this|that|there)\b)(?:(?:now|and now|but now) )?(?P<value>[a-z][a-z ]{1,40}?)"
            # (a word about it between: "Moroni, the capital, is where I live")
            r"(?:, (?:the|a|an|our|my) [a-z ]{1,30},)? (?:is|has been|been|was|will be)"
            r" (?:now |still |currently |finally )?(?:where (?:i|we) (?:now )?(?:live|am living|"
            r"are living|reside|am based|are based|call home|have lived|have been living|stay)|"
            r"where (?:my|our) home is|(?:my|our) (?:new |current )?home|home)\b",
            # the "'s" gone once normalised: "Denver's where I live now" (a known town only)
            (r"(?:^|, )(?P<value>[a-z][a-z ]{1,30}?) where (?:i|we) (?:now )?(?:live|am living|are living|reside|"
             r"call home)\b", _is_place),
            # a town then "my city": "Maputo my city my vibe" (a known town only)
            (r"^(?P<value>[a-z][a-z ]{1,30}?),? (?:is )?(?:my|our) (?:city|town|hometown|home town)\b(?! (?:is|was|has)\b)",
             _is_place),
            # where one is, with its district or city after: "we're in Ballard, Seattle, rain is a lifestyle
            # here", "I'm in Chicago, Logan Square area" (not a stay: "I'm in Rome, visiting my aunt")
            (r"\b(?:i|we) (?:am|are) (?:now |currently )?in (?!.*\b(?:visit|visiting|trip|week|weekend|conference|"
             r"holidays?|vacation|for work|hotel|flight|till|until|tomorrow|tonight|today)\b)"
             r"(?P<value>[a-z][a-z ]{1,30}?, [a-z][a-z ]{1,30}?)(?=$|[,.!;])", _names_one_place),
            # "home base Yangon", "staying in george town near the clan jetties" (a known town only)
            (r"\bhome base:? (?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.!;]| now\b| these days\b)", _is_place),
            (r"(?:^|, )(?:currently |now |still )?(?:living|staying|based) (?:in|on) (?P<value>[a-z][a-z ]{1,30}?)"
             r"(?=$|[,.!;]| near\b| by\b| with\b| since\b| for\b| now\b)", _is_place),
            r"\b(?:i|we) (?:now )?call (?P<value>[a-z][a-z ]{1,40}?) (?:my |our )?home\b",
            # "Florida's home now" (the "'s" is gone once normalised: "florida home now")
            r"^(?!(?:i|we|you|he|she|they|it|my|our|the|go|going|went|come|came|back|work|stay)\b)"
            r"(?P<value>[a-z][a-z ]{1,30}?) home (?:now|these days|nowadays)\b",
            # (not the moment one gets home: "the one waiting when I get home is Scout, my collie", "my ride
            # when im home is a dodge ram")
            r"(?<!\bget )(?<!\bgot )(?<!\bcome )(?<!\bcame )(?<!\bgo )(?<!\bam )(?<!\bim )(?<!\bare )(?<!\bm )"
            r"\bhome (?:for (?:me|us) )?is (?:now )?(?:in )?(?P<value>[^,;]+)",
            # "I'm in Toronto now": being somewhere "now" / "these days" is where one lives
            r"\b(?:i|we) (?:am|are) (?:now |currently )?(?:in|based in|based out of|out in) "
            r"(?P<value>[a-z][a-z ]{1,30}?) (?:now|these days|nowadays)\b",
            # the time first: "these days I'm in Chengdu, four years now"
            (r"\b(?:these days|nowadays|now) (?:i|we) (?:am|are) (?:in|based in|out in) "
             r"(?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.;!]| and\b| now\b)", _is_place),
            r"\b(?:i|we) (?:am|are) (?:based out of|based in) "
            r"(?P<value>[a-z][a-z ]{1,30})",
            # a known city one was born and raised in, and still in ("ATL born and raised", "born
            # and raised in columbus"; not when a move or another home follows)
            (r"(?:^|, |\band |\bbut )(?P<value>[a-z][a-z ]{1,30}?),? born (?:and|n) (?:raised|bred)\b"
             r"(?!.*\b(?:moved|left|now live|now living|live in|living in)\b)", _is_place),
            (r"^(?:i was |i am |was )?born and raised (?:in|on) (?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.!]| and\b)"
             r"(?!.*\b(?:moved|left|now live|now living|live in|living in)\b)", _is_place),
            (r"^(?P<value>[a-z][a-z ]{1,30}?) (?:lad|lass|girl|boy|guy|gal|man|woman|kid) "
             r"(?:through and through|born and bred|and proud)\b", _is_place),
            # a home told by its city alone or with the words around it: "Boise, Idaho.", "regina's
            # been home 50 years", "Guadalajara is my city", "home base is omaha", "here in munich
            # the rents are crazy", "lethbridge area, 20 min south of town"
            (r"^(?P<value>[a-z][a-z ]{1,30}?) (?:has )?been (?:(?:my |our )?home|(?:my|our) (?:town|city))\b", _is_place),
            # "there's nowhere I'd rather live than Catania"
            (r"\bnowhere (?:else )?(?:i|we) would rather live than (?:in )?(?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.;!])",
             _is_place),
            # a form's words: "my place of permanent residence is the city of Dushanbe"
            r"\b(?:my )?place of (?:permanent |current |usual )?residence (?:is|:) (?:(?:the )?(?:city|town) of )?"
            r"(?P<value>[a-z][a-z ]{1,30}?)(?=$|[,.;!])",
            (r"^(?P<value>[a-z][a-z ]{1,30}?) is (?:my|our) (?:city|town|home|home now|home these days)\b",
             _is_place),
            # "Nuku'alofa's home" (its "'s" is gone once normalised), and the city then "that's home" /
            # "my whole life": "Quimper, that's home", "iqaluit my whole life except college"
            (r"(?:^|, |\band |\bbut )(?P<value>[a-z][a-z ]{1,30}?) (?:(?:my|our) )?home(?: sweet home)?(?=$|[,.!;])",
             _is_place),
            (r"^(?P<value>[a-z][a-z ]{1,30}?),? (?:that|this|it) is (?:(?:my|our) )?home\b", _is_place),
            (r"^(?P<value>[a-z][a-z ]{1,30}?),? (?:(?:for )?(?:all )?my (?:whole |entire )?life|all my life|since birth|"
             r"since i was born)\b", _is_place),
            r"\bhome base (?:is|=) (?P<value>[^,;]+)",
            (r"\bhere in (?!.*\b(?:for the weekend|on holiday|on vacation|visiting|trip|this week only|"
             r"for work|for a conference|for a wedding)\b)(?P<value>[a-z]+(?: [a-z]+){0,2})", _names_one_place),
            (r"^(?P<value>[a-z][a-z ]{1,30}?) area\b(?=$|,)", _is_place),
            # a known city and how long one has been there: "Rustenburg for 12 years now",
            # "Leeds since 2009" (not days or weeks: a trip)
            (r"^(?P<value>[a-z][a-z ]{1,30}?) (?:for (?:the (?:last|past) )?(?:[a-z0-9]+ ){1,2}?(?:years?|decades?)|"
             r"since (?:\d{4}|the \d{2}s|i was \w+))(?: now)?(?=$|[,.!;]| now\b| and\b)", _names_one_place),
            # "I'm from Detroit and still live there"
            r"\b(?:i|we) (?:am|are) (?:originally )?from (?P<value>[a-z][a-z ]{1,30}?) and (?:i |we )?"
            r"(?:still |now )?(?:live|stay|reside) (?:there|here)\b",
        ),
        # idioms ("I live in fear") and moves that are not about a home ("moved to a new team")
        reject_values=(
            r"^(?:(?:a|an|the|my|our|new|different|another|other|bigger|smaller) )*(?:fear|hope|"
            r"denial|moment|present|past|peace|harmony|sin|shame|luxury|comfort|head|own world|"
            r"bubble|fast lane|poverty|misery|team|role|department|position|job|company|project|"
            r"class|grade|level|stage|version|phase|platform|plan|model|shift|division|unit|group|"
            r"office|desk|seat|table|room|topic|subject|question|step|page|chapter|channel|app|"
            r"phone|account|tier|course|track|floor|(?:state |small |old age )?pension|benefits|welfare|savings|budget|"
            r"coffee|caffeine|noodles)\b|"
            # what one lives on is food or money, not a place: "we live on rice and beans" (not
            # "Rice Street")
            r"^(?:rice|bread|pasta|beans|toast|porridge|oats|potatoes|soup|tea|sandwiches|pizza|takeaways?|"
            r"takeout|leftovers|snacks|fumes|ramen|cereal|eggs|cheese|fruit|salad|junk food|fast food|"
            r"tips|minimum wage|one income|a shoestring|handouts)\b(?! (?:street|st|road|rd|avenue|ave|lane|"
            r"drive|way|hill|island|farm|tree|valley|bay|town|city|creek|point|cove)\b)|\b(?:floor|storey|story)\b|^\d|^(?:this|that|it|there|here|which|what|"
            r"who|home|my|our|his|her|their|work|school|where|love|college|university|trouble|debt|and|or|but|so|"
            r"shape|charge|bed|town|the middle|pain|a hurry|a rush|the mood|line|the car|class|"
            r"hospital|rehab|therapy|a band|the office|the kitchen|the garden|aye|yes|yeah|och|ach|oh|well)\b"
        ),
        value_from=_strip_dwelling,
        # a city by any of its names is one home: "the big apple", "NYC", "new york city"
        canonical=lambda value: canonical_place(value) or _one_place(value) or value,
    ),
    "relationship": SlotRule(
        patterns=(
            rf"{S}{A}(?:am|have been|was|will have been) (?:(?P<neg>not|never) |very |so |happily |unhappily |"
            rf"newly |recently |now |currently |still |even |really |actually |officially |finally |perpetually |"
            rf"blissfully |legally |already |just )*(?P<value>married|single|engaged|"
            rf"divorced|separated|widowed|a widow|a widower|widow|widower|taken|dating(?: someone| anyone)?|"
            rf"in (?:a|an) (?:\w+ ){{0,3}}?relationship|in love|seeing (?:someone|anyone))\b",
            # the two of us: "We are now engaged", "we're happily married" (a status both share)
            rf"\bwe (?:are|were|have been) (?:very |so |happily |newly |recently |now |"
            rf"officially |finally |still |actually )*(?P<value>married|engaged|divorced|separated)\b",
            # "have been husband and wife for nineteen years"
            (r"\b(?:we|i|me)\b[^.!?]*?\b(?:are|were|have been) (?:husband and wife|man and wife|wife and husband)\b",
             "married"),
            # one's own wedding: "Dave and I married young", "we wed in '89", "Kari and I said our vows
            # in 1979" (not a marriage ended since, nor "married off" a daughter)
            (r"^(?!.*\b(?:divorced?|divorcing|widowed|widow|widower|separated|ex|passed|died|not married|nun|monk|"
             r"priest|sister)\b)"
             # (with words of it lasting: a wedding's age alone says nothing of now, "I married young, too young")
             rf"(?=.*\b(?:still|ever since|happily|and counting|(?:\d+|{NUM}) (?:years?|yrs?)(?! ago\b)))"
             r".*\b(?:(?:i|we) (?:just |finally |both )?(?:married|wed)\b(?! off\b)|"
             r"(?:said|exchanged|took) (?:our|my) (?:wedding )?vows\b)", "married"),
            # the years of one's marriage, or oneself a married man: "20 years married to this man",
            # "26 years wed", "Eighteen years a married man" (not someone else's: "my parents, 40
            # years married")
            (rf"^(?!.*\b(?:parents|mum and dad|mom and dad|grandparents|in laws|they|their|his|her|friends?|"
             rf"sister|brother|son|daughter)\b.*\b(?:married|wed)\b)"
             rf"(?:.*\b(?:\d+|{NUM}) (?:years?|yrs?) (?:happily )?(?:married|wed)\b(?! (?:couples?|people|friends)\b)|"
             rf"(?:.*\bi am |(?:.*\b)?(?:years?|yrs?) )?(?:a )?(?:happily )?married (?:man|woman|lady|guy|bloke|gal|fella)\b)",
             "married"),
            # a couple's years, no wedding named: "me and my girl, 2 years strong"
            (rf"^(?!.*\b(?:married|wife|husband|hubby|wed|wedding|sober|clean|smoke free)\b).*"
             rf"\b(?:\d+|{NUM}) (?:years?|yrs?|months?) strong\b", "in a relationship"),
            (rf"{S}{A}(?:am getting|are getting|will be getting|will get|am planning on getting|"
             rf"plan on getting|plan to get|am about to get|are planning on getting|plan to get) "
             rf"(?:married|hitched)\b", "engaged"),
            rf"{S}{A}(?:got|am getting|are getting|will be getting|have gotten|am planning on "
            rf"getting|plan on getting|plan to get|am about to get) (?:a )?(?P<value>married|"
            rf"engaged|divorced|divorce|separated|hitched)\b",
            # the divorce done: "we signed the divorce papers in 2019", "the divorce came through"
            (r"\b(?:signed|finalised|finalized) (?:the |our |my )?divorce(?: papers)?\b|"
             r"\b(?:the|our|my) divorce (?:came through|came thru|was finalised|was finalized|went through|went thru|"
             r"is final)\b", "divorced"),
            # (not a wedding's age, which says nothing of now: "I married young", "married at 19")
            rf"{S}{A}(?P<value>married(?! (?:off\b|young|too young|early|at \d+|at {NUM}\b))|divorced|broke up|split up|separated|split from|"
            rf"left my {PARTNER}|dumped|proposed to|was forced to marry|got back together)\b",
            rf"{S}{A}(?:got|was|have been|have got) (?P<value>dumped)\b",
            # told by the wedding: "the missus and i tied the knot back in 91", "put a ring on it
            # last christmas, wedding is in june"
            (rf"{S}{A}(?:tied|have tied) the knot\b", "married"),
            (rf"{S}{A}(?:was|were|am|are|have been|got) (?:joined|united|bound) in (?:holy )?(?:matrimony|wedlock|marriage)\b",
             "married"),
            (rf"{S}{A}(?:am|are|have been|was|were) (?:lawfully |happily )?wedded\b", "married"),
            # a wedding anniversary of one's own: "My Dragan and I celebrated our golden anniversary"
            (r"\b(?:our|my) (?:golden|silver|ruby|pearl|diamond|coral|sapphire|emerald) (?:wedding )?anniversary\b|"
             r"\bour (?:\w+ )?wedding anniversary\b", "married"),
            # in learner's English: "me and Agnieszka we have wedding 20 years ago", "I am husband
            # of Gerti since 1975"
            (r"\bwe (?:have|had|did|make|made) (?:our |the )?wedding (?:(?:\w+ ){1,2}ago|in \d{4}|since)\b", "married"),
            (r"\bi am (?:the )?(?:husband|wife|spouse) of (?!(?:a|an|the|my)\b)\w+", "married"),
            # the years of one's own marriage: "58 years since our wedding", "thirty years married",
            # "I have been in a registered marriage for thirty years"
            (r"\b(?:[a-z0-9]+ )?years since (?:our|my) (?:wedding|nikah|shaadi|marriage|big day)\b|^(?:[a-z0-9]+ ){1,2}years married\b|"
             r"\b(?:i|we) (?:am|are|have been) in a (?:registered |civil |happy |long |loving |stable |good )?"
             r"marriage\b(?! (?:counsel|guidance|course|class|seminar))", "married"),
            (rf"{S}{A}(?:put a ring on (?:it|her finger|his finger)|popped the question)\b", "engaged"),
            # the ring put on by the partner, named: "Kevin finally put a ring on it last month" (not a
            # relative's: "my sister's boyfriend put a ring on it")
            (r"^(?:update(?: for my profile)?:? )?(?!(?:my|our|his|her|their|she|he|they|dad|mum|mom|father|mother|"
             r"brother|sister|son|daughter|uncle|aunt|grandpa|grandma|friend|cousin)\b)[a-z]+ (?:finally |just |officially )?"
             r"(?:put a ring on it|put a ring on my finger|popped the question|proposed(?! to\b))\b", "engaged"),
            # no partner said as a state: "no boyfriend, no one, and honestly I like it this way"
            (r"(?:^|, |\bbut )no (?:boyfriend|girlfriend|bf|gf|partner|husband|wife)(?:,| yet\b| for now\b| right now\b|$)",
             "single"),
            (r"\b(?:our|my) wedding is (?:in|on|next|this|set for|booked for)\b", "engaged"),
            (rf"{S}{A}asked (?:my |her |him )?(?:\w+ ){{0,2}}?to marry me\b(?!.*\b(?:said no|turned me down)\b)",
             "engaged"),
            # living apart from one's partner: "my wife and i are living apart for now"
            (rf"\b(?:(?:my|our) {PARTNER} and (?:i|me)|we) (?:are|have been) (?:now |currently |still )?"
             rf"(?:living apart|living separately|separated|taking a break|on a break)\b", "separated"),
            # the partner proposed: "he finally popped the question", "my fiance proposed at the lake"
            (r"(?:^|, |\band |\bbut |\bso )(?:(?!(?:i|we|my|dad|mum|mom|brother|sister|son|daughter|"
             r"friend|cousin|uncle|aunt|grandpa|grandma|it|who)\b)\w+ |my (?:fiance|fiancee|finace|"
             r"boyfriend|girlfriend|bf|gf|partner) )(?:finally |just |officially |actually )?(?:popped the "
             r"question|proposed)\b(?! to (?:his|her|their)\b)", "engaged"),
            # no partner, said first: "no missus, no worries", "no bf rn and loving it"
            (r"^(?:(?:nah|nope|lol|haha) )?(?:no|not got a|havent got a) (?:missus|mrs|wife|husband|hubby|boyfriend|girlfriend|bf|gf|"
             r"partner|significant other)\b(?! (?:of|who|that)\b)", "single"),
            (r"\bsingle as a pringle\b", "single"),
            (r"(?:^|, )(?:nah |nope |no |still )?(?:single af|single asf|single as|single and (?:loving|happy|fine|free|ready))\b",
             "single"),
            r"(?:^|, |\bbut |\band )(?:(?:still|happily|very|so|totally|currently|forever|proudly) )+"
            r"(?P<value>single|married|divorced)\b(?! (?:mom|dad|mother|father|parent|mum|people|"
            r"friends?|brother|sister|life|men|women|guys|girls)\b)",
            rf"{S}{A}(?:have|have got|got) (?:(?:a|an) )?(?:new )?(?P<value>{PARTNER})\b(?! s\b)",  # ("I have boyfriend")
            rf"{S}{A}have (?:had|been in|been) (?:a )?(?:\w+ )?"
            rf"(?P<value>relationship|married|boyfriend|girlfriend)\b",
            rf"{S}{A}(?P<neg>have never|never|have not|do not have|have no|am not in|do not have "
            rf"a|have not got) (?:had |been in |been |got )?(?:a |an |any )?(?:\w+ )?"
            rf"(?P<value>relationship|married|boyfriend|girlfriend|partner|wife|husband|spouse)\b",
            (r"\bi am (?:a |an )?(?:\w+ ){0,4}?single (?:dad|mom|mother|father|parent|mum)\b", "single"),
            # a spouse by what one is: "i am a wife and mother of two", "i'm a newlywed"
            (r"\bi am (?:a |an )(?:(?:proud|happy|loving|devoted|stay at home|working) )?(?:wife|husband)\b",
             "married"),
            (r"\b(?:i am|we are) (?:a |an )?(?:newlywed|newlyweds|newly wed|newly weds)\b", "married"),
            # the years of one's marriage: "25 years of marriage and counting" (not the parents')
            (rf"^(?!.*\b(?:parents|their|his|her|grandparents|mum and dad|mom and dad|folks)\b).*"
             rf"\b(?:\d+|{NUM}) (?:years?|decades?) of (?:marriage|married life|wedded bliss)\b", "married"),
            (r"\bi am (?:a |an )?(?:recent |proud )?(?:divorcee|divorcé|divorcée)\b", "divorced"),
            # (or said with ceremony: "I have the honour of being a married man")
            r"(?:\bi am|\bi have the (?:honou?r|pleasure|privilege) of being) (?:a|an) (?:(?:happily|proud|newly|recently|young|old) )?(?P<value>married|divorced|"
            r"engaged|widowed|separated) (?:man|woman|guy|lady|mom|dad|mother|father|parent|person|"
            r"gal|girl|fellow|dude|mum|grandma|grandpa)\b",
            rf"(?:^|{S}{A}(?:enjoy|like|love|am happy|am fine) )(?:being|staying) (?P<value>single)\b",
            rf"\b(?:i|we) (?:am|are) going through (?:a )?(?P<value>divorce|separation|break up)\b",
            rf"{S}{A}(?:started|began|have started|am) (?P<value>dating|seeing) (?:someone|somebody|"
            rf"a (?:guy|girl|man|woman|boy|lady|gal))\b",
            rf"{S}{A}(?:started|began|have started) (?P<value>dating) (?:a|an)\b",
            # a loss of a spouse: "I lost my wife", "my husband passed away", "my late wife"
            (rf"{S}{A}lost my (?:(?:dear|beloved|dear|sweet|lovely) )?(?:wife|husband|spouse|partner)"
             rf"\b", "widowed"),
            (r"\b(?:my|our) (?:(?:dear|beloved|sweet|lovely) )?(?:wife|husband|spouse|partner) "
             r"(?:(?:sadly|suddenly) )?" + _PASSED + r"\b", "widowed"),
            (r"\bmy late (?:wife|husband|spouse|partner)\b", "widowed"),
            # (a partner named before "passed": "My Wife Margaret Passed Away Three Years Ago")
            (r"\b(?:my|our) (?:(?:dear|beloved|sweet|lovely|darling) )?(?:wife|husband|spouse|partner|hubby) (?!(?:s|father|mother|dad|mom|mum|brother|sister|"
             r"son|daughter|friend|dog|cat|uncle|aunt|grandma|grandpa|grandmother|grandfather|cousin|boss|nan|gran)\b)"
             r"[a-z]+ " + _PASSED + r"\b", "widowed"),
            # the wedding said in other words: "Mary and I said I do in 1963", "been hitched to
            # Marlene since '76", "50 years of marriage", "my bride of 43 years", "been Mrs.
            # Campbell for 25 years"
            (r"(?:^|\band i |\bwe )(?:finally |officially )?said (?:our )?i dos?\b", "married"),
            (r"(?:^|\band i |\bwe )(?:finally |officially )?exchanged (?:our )?vows\b", "married"),
            # a wedding's anniversary or ring: "we just hit our 12th wedding anniversary", "wedding
            # ring stays in my locker on shift"
            (r"(?:^|\b(?:our|my) )(?:(?:\d+(?:st|nd|rd|th)|first|second|third|fifth|tenth|twentieth|"
             r"silver|golden|ruby|pearl|crystal|paper|tin) )?wedding (?:anniversary|ring|band)\b", "married"),
            # "wed" for married: "thirty-one years we're wed now", "to whom I have been wed since 1977"
            (r"\b(?:we are|i am|i have been|we have been|been) (?:happily )?wed\b(?! (?:to the|in the)\b)", "married"),
            # the wedding's day: "we were wed in St. George's in 2011", "we got wed last June"
            (r"\b(?:we|i) (?:were|was|got) (?:finally |officially )?wed\b", "married"),
            # alone by choice: "Been solo two years now", "solo these days"
            (r"(?:^|\bi am |\bi have |, )(?:been |going |flying )?solo (?:for (?:\w+ )?(?:years?|months?|a while|now)|"
             r"these days|for now|(?:\w+ )?(?:years?|months?) now|and (?:happy|fine|loving it))\b", "single"),
            (r"(?:^|\bi |\bwe |\band i )(?:have |are |am )?(?:been |got |just got |finally got )hitched\b", "married"),
            (r"(?:^|\band i |\bwe )(?:\w+ ){0,2}(?:\d+|" + NUM + r") years of (?:marriage|married life|wedded bliss)\b",
             "married"),
            (r"\bmy (?:bride|groom|wife|husband) of (?:\d+|" + NUM + r") (?:years|decades)\b", "married"),
            (r"^(?:i have )?been mrs(?:\.? [a-z]+ for\b|$)", "married"),  # (the sentence may end at "mrs.")
            # the partner said yes: "my girl said YES!! wedding is next june"
            (r"\bmy (?:girl|girlfriend|gf|boyfriend|bf|man|partner) said yes\b", "engaged"),
            (r"\b(?:my |the |our )?divorce (?:was|is|has been|got|went) (?:finally |officially )?"
             r"(?:final|finalized|finalised|through)\b", "divorced"),
            r"\bmy (?:relationship status|marital status) is (?P<value>[^,;]+)",
            # a marriage that ended, told by what came after it: "after the divorce I moved near my
            # parents", "ten years since the split", "ex and I signed the papers" (not "after my
            # parents' divorce", someone else's)
            (r"\b(?:after|since) (?:the|my|our) (?:divorce|split|separation)\b", "divorced"),
            (r"^(?:my |the )?ex (?:husband |wife |partner )?and (?:i|me) (?:finally |still |now )?(?:signed|share|"
             r"split|co ?parent|finalized|finalised|divorced|separated|get along|are (?:civil|friends|still friends))\b",
             "divorced"),
        ),
        negative_value="single",
        canonical=lambda value: _canonical_from(value, _RELATIONSHIP_VALUES),
        hints=(
            rf"\b(?:my|our) (?:(?:lovely|beautiful|wonderful|amazing|loving|current|new|"
            rf"future) )?(?P<value>(?:(?:ex|late) )?{PARTNER})\b",
            # a partner with a word of who they are: "my kiwi husband", "my begum (wife)" (not
            # "my sister husband", someone else's)
            rf"\b(?:my|our) (?!(?:{_OTHERS_PEOPLE}|ex|late|former|future|s)\b)[a-z]+ \(?"
            rf"(?P<value>(?:wife|husband|hubby|boyfriend|girlfriend|fiance|fiancee|spouse))\b(?! s\b)",
            # one's own partner named without "my", as chat does: "hubby's cooking tonight", "the
            # missus packs me sandwiches"
            r"^(?:the )?(?P<value>hubby|hubs|wifey|missus|mrs|better half|other half|bae)\b",
            r"^the (?P<value>wife|husband)\b(?! of\b)",
            r"\bmy (?P<value>better half|other half)\b",
            r"^(?P<value>wife|husband)\b(?! (?:material|to be|goals|guy|of)\b)",
        ),
    ),
    "car": SlotRule(
        patterns=(
            rf"{S}{A}(?:drive|am driving|have been driving|now drive|continue to drive|keep driving) "
            rf"(?:a|an|the|my|our|di|me) (?P<value>[^,;]+)",
            # the car as a fragment, an adjective or an article before it: "An old Golf.", "old
            # Hilux out front, salt's eaten half the tray", "old Land Rover Defender, held together"
            rf"^(?:i (?:am|have) )?(?:(?:a|an|my|our|the) )?(?:(?:{_CAR_WORD_ADJECTIVES}) ){{1,2}}(?P<value>(?:(?:{CAR_BRANDS}) )?"
            rf"(?:{CAR_NAMES}|{_DISPOSED_MODELS})(?: (?:{CAR_NAMES}))?|{CAR_BRANDS}(?: [a-z0-9]+)?)(?=$|[,.!]| out front\b| in the drive)",
            rf"\bthe (?:car|vehicle) (?:which |that )?(?:i|we) (?:drive|have|own) (?:now |these days )?is (?:a |an )?"
            rf"(?P<value>[^,;.]+)",
            # the car talked of as one's own: "the Prado is full of sand", "the Hilux has done
            # 600,000 k's", "the corsa failed its MOT again" (the car, and what it does for one)
            rf"^(?:the |me |di )?(?:(?:{_CAR_ADJECTIVES}) ){{0,3}}(?P<value>(?:(?:{CAR_BRANDS}) )?(?:{CAR_NAMES})"
            rf"(?: (?:{CAR_NAMES}))?) (?:is|has|gets|got|failed|still|needs|broke|keeps|will not|would not)\b"
            rf"(?=.*\b(?:full of|in the (?:garage|shop)|mot|\d+ ?k? (?:miles|km|kms|k s)|second home|my office|"
            rf"gets me|me to|me home|me around|still (?:starts|runs|going|purrs|goes)|broke down|(?:will|would) not start|"
            rf"workhorse|rolling toolbox|oil change|tyres?|tires?|service)\b)",
            # the car said first, then how it does: "Maruti Swift, 11 years old, still going strong",
            # "ford f-150, 300k miles", "old Hilux, rust bucket, still starts every morning"
            rf"^(?:(?:{_CAR_ADJECTIVES}) ){{0,2}}(?P<value>(?:(?:{CAR_BRANDS}) )?(?:{CAR_NAMES})|(?:{CAR_BRANDS})"
            rf"(?: [a-z0-9]+)?),? (?:\d+ years old(?=$|[,.!])|\d+ ?k (?:miles|km|kms|k s|on the clock)|"
            rf"[\d,]+ (?:miles|km|kms|k s)|still (?:going|starts|runs|purrs)|rust bucket|rust|"
            rf"with (?:two|a|the) \w+ (?:strapped|on the roof))\b",
            rf"\b(?:my|the work|the family) (?:main |primary |only |daily |current |new |first |old |usual |family |work )?"
            rf"(?:{VEHICLES}|ride|vehicle|transportation|transport|mode of transportation|"
            rf"means of transportation|mode of transport|means of transport|daily driver) "
            rf"(?:is|are) (?P<value>[^,;]+)",
            rf"{S}{A}(?:own|have|bought|got|purchased|leased|lease|have got|am getting|"
            rf"have bought|ride|picked up|just picked up|drove home|upgraded to|have upgraded to|switched to|"
            rf"traded up to) (?:a|an|my|our|the) "
            rf"(?:(?:own|new|used|old|brand new|second hand|secondhand|electric|hybrid|vintage|"
            rf"classic|red|blue|black|white|silver|gray|grey|green|little|big|\d{{4}}) )*"
            # (the word after a make is its model, not when: "bought a Corolla last month")
            rf"(?P<value>{CAR_BRANDS}(?: (?!(?:last|this|next|yesterday|today|ago|and|but|now|since|for|in|on|at|"
            rf"with|from|to)\b)\w+)?|{VEHICLES}|{CAR_NAMES}|{_PLACE_MODELS})\b",
            # one's car named by its make or model: "my honda civic has over 200k miles", "my f150"
            # (not after a disposal: "I sold my honda civic" is no car, below)
            rf"(?<!sold )(?<!sell )(?<!of )(?<!totaled )(?<!totalled )(?<!wrecked )(?<!scrapped )"
            rf"\b(?:my|our) (?:(?:{_CAR_ADJECTIVES}) ){{0,3}}(?P<value>(?:{CAR_NAMES})(?: (?:{CAR_NAMES}))?)"
            rf"\b(?! (?:moto|motorbike|motorcycle|motor bike|scooter|bike|dealer|dealership|dealerships|salesman|factory|plant|stock|shares|commercial|keys?|"
            rf"collection|poster|models?|toys?|shirt|hat|jacket)\b)",
            rf"{S}{A}(?P<neg>sold|had to sell|got rid of|totaled|totalled|wrecked|scrapped) (?:a|an|my|our|the) "
            rf"(?:(?:{_CAR_ADJECTIVES}) ){{0,3}}(?:{CAR_BRANDS}|{VEHICLES}|{CAR_NAMES}|{_DISPOSED_MODELS})\b"
            rf"(?! (?:and|but|clubs?|bag|shirts?|balls?|cart|membership|course|lessons?)\b)",
            rf"{S}{A}(?P<neg>can not|could never|can never) afford (?:a |to buy a |to run a )?"
            rf"(?:car|vehicle)\b",
            rf"{S}{A}(?P<neg>do not|never|can not|no longer|have never|have not) (?:drive|own a car|"
            rf"have a car|owned a car|had a car|got a car|have (?:a )?(?:driving )?licen[cs]e)\b"
            # (not "can't drive without one", "never drive after dark", "don't drive to work")
            rf"(?! (?:without|after|at night|in the|to|into|on the|much|far|fast|anymore unless)\b)",
            rf"{S}{A}(?P<neg>have no|own no|have not got a|do not have(?: a| any)?|do not own(?: a| any)?|have not got "
            rf"any|do not need a|have never had a) (?:car|vehicle|wheels)\b",
            r"(?:^|, |\band |\bbut )(?P<neg>no) (?:car|vehicle)\b",  # "I bike everywhere, no car"
            # "I am the owner of a Geely Atlas", "proud owner of a 2012 hilux"
            rf"(?:{S}{A}am |^)(?:the |a )?(?:proud |happy |new |lucky )?owner of (?:a |an )?(?:\d{{4}} )?"
            rf"(?P<value>(?:{CAR_BRANDS}|{CAR_NAMES})(?: (?!(?:and|but|since|which|that|now)\b)[a-z0-9]+)?)\b",
            # the make without its article: "save: drive old maruti gypsy", "I drive Toyota",
            # "Finally purchased Maruti Swift on EMI"
            rf"{S}{A}(?:drive|am driving|bought|purchased|have bought|have purchased) (?:(?:{_CAR_ADJECTIVES}) ){{0,2}}"
            rf"(?P<value>(?:{CAR_BRANDS}|{CAR_NAMES})(?: (?!(?:and|but|to|for|now|every|since|on|in|at|with|from|last|"
            rf"this|yesterday|today|ago|shares|stocks?|parts|toys?|models?)\b)[a-z0-9]+)?)\b(?! (?:shares|stocks?|parts|toys?|models?)\b)",
            # the car as it is now: "it's a Passat now, not the Golf anymore"
            rf"\bit is (?:a |an )?(?:(?:{_CAR_ADJECTIVES}) ){{0,2}}(?P<value>(?:{CAR_BRANDS}|{CAR_NAMES})"
            rf"(?: (?!now\b)[a-z0-9]+)?) now\b",
            # how one always gets about, when it is not a car: "I take the train everywhere"
            (rf"{S}{A}(?:take|ride|use|catch|get|go with|go by|go on) (?:the |a )?{TRANSIT} everywhere\b", "none"),
            (rf"{S}{A}(?:walk|bike|cycle|bicycle|skate|scooter) everywhere\b", "none"),
            (rf"{S}{A}get (?:around|about) (?:by|on) (?:foot|{TRANSIT})\b", "none"),
        ),
        negative_value="none",
        reject_values=(
            rf"^{WORK_VEHICLE_LEAD}{WORK_VEHICLES}\b|\b(?:all day|for a living|for work|every shift|my route)\b|"
            r"^(?:kids|children|son|daughter|wife|husband|friends?|mom|dad|parents|sister|brother|"
            r"family|people|passengers|customers|me|myself|bargain|hard bargain|nail|point|"
            r"crazy|mad)\b"
        ),
        # one car by its make and model however it is described ("beat up civic" / "honda civic")
        canonical=_car_core,
    ),
    "diet": SlotRule(
        patterns=(
            rf"{S}{A}(?:am|have been|have stayed|stayed|have remained|remained) (?:a |an )?(?:(?:strict|full|fully|mostly|now|still|no "
            rf"longer|not|proud|lifelong|long time|committed|strictly|pretty much|basically|mostly|mainly|largely) )*(?P<value>{DIETS})\b",
            rf"{S}{A}(?:went|turned|became|have become|have gone|am going|switched to being|"
            rf"decided to go|decided to become|gone) (?:a |an )?(?:full )?(?P<value>{DIETS})\b",
            # a named eating plan one does: "Doing keto, about a year in now.", "i'm on paleo"
            rf"{S}{A}(?:am |have been )?(?:doing|doin|on|trying|following|started|eating) (?:the )?"
            rf"(?P<value>keto|paleo|whole30|atkins|low carb)\b",
            # nothing from animals, said as what is left out: "No meat, no dairy, no eggs."
            (r"(?:^|, |\band )no meat,? (?:and )?no (?:dairy|eggs?|animal products)\b", "vegan"),
            # what one gave up, said first: "Meat is something I gave up years ago"
            (r"(?:^|, |\band )(?:meat|red meat) is (?:something|one thing|what) (?:i|we) (?:gave up|have given up|quit|"
             r"stopped eating|do not eat|never eat|cut out)\b", "vegetarian"),
            # fish but no meat: "I don't eat meat but I do eat fish"
            (rf"{S}{A}(?:do not|no longer|never|can not) eat (?:any )?(?:red )?meat,? (?:but|except|"
             rf"apart from|other than) (?:i )?(?:do |still |will )?(?:eat )?(?:fish|seafood)\b", "pescatarian"),
            rf"{S}{A}(?:(?P<neg>do not|no longer|never|can not|have not|have never) (?:eat|eating|eaten|"
            rf"touched|had)|(?P<neg2>stopped|quit|gave up|have stopped|have given up|cut out)"
            rf"(?: eating)?) (?:any )?(?P<value>meat|animal products|meat or fish|dairy|red meat)\b",
            rf"{S}{A}(?:eat|follow|am on|keep) (?:a |an )?(?:strict )?(?P<value>(?:\w+ ){{1,2}}?)"
            rf"diet\b",
            rf"{S}{A}(?:eat|cook|live) (?:only |just |mostly )(?P<value>fish)(?: and (?:veg|veggies|"
            rf"vegetables|plants))?\b",
            rf"{S}{A}eat (?:a lot of |lots of |plenty of |tons of )(?P<value>meat)\b",
            # Indian English: "I am pure veg", "pure vegetarian family"
            (rf"(?:{S}{A}(?:am |are |have been )?|^)(?:a )?pure (?:veg|vegetarian|veggie)\b", "vegetarian"),
            rf"{S}{A}(?:eat|cook|live) (?:a |an )?(?:strictly |only |mostly )?(?P<value>vegan|vegetarian|"
            rf"plant based|pescatarian|kosher|halal|gluten free|lactose free|dairy free)\b",
            # a diet said alone: "Halal only. Record it.", "halal ofc", "gluten free, for real"
            rf"^(?:strictly |only |100 )?(?P<value>{DIETS}|halal|kosher|gluten free|lactose free|dairy free)"
            rf"(?: (?:only|food only|all the way|strictly|ofc|of course|obvs|obviously|always|for me|for life|please|"
            rf"lol|tbh|btw|fyi|fr|for real))*"
            rf"(?=$|[.!;]|,(?! (?:{DIETS}|gluten|lactose|dairy)\b)| (?:please|thanks|thx|since|for (?:the (?:last|past) )?(?:\d+|{NUM}|a|two|three|four|five|six|many|several) (?:years?|yrs?|months?)|(?:\d+|{NUM}) (?:years?|yrs?) now)\b)",
            rf"{S}{A}keep (?:strictly |strict )?(?P<value>kosher|halal)\b",
            (rf"{S}{A}(?:am|have been|was diagnosed) (?:a )?(?:celiac|coeliac)\b", "gluten free"),
            # India's "veg": "been veg since birth", "pure veg"
            (rf"(?:{S}{A}(?:am|have been|been) |^been )veg(?= since\b| from\b| all my life\b| only\b|$|[,.!])", "vegetarian"),
            # a plan's weeks: "keto week 6", "6 months keto now", "low carb since January"
            (rf"^(?:keto|low carb) (?:week|day|month) \d+\b|^(?:\d+|{NUM}) (?:weeks?|months?) (?:of )?(?:keto|low carb)\b|"
             rf"{S}{A}(?:have been|been) (?:on )?(?:keto|low carb) since\b", "keto"),
            # what one does not eat, said alone: "no pork for me", "no beef, ever"
            rf"^(?P<value>no (?:pork|beef|red meat|meat|dairy|gluten|alcohol|sugar|seafood|fish|eggs|nuts))"
            rf"(?: (?:for me|ever|at all|please|thanks))*(?=$|[,.!?;])",
            rf"{S}{A}(?:will |would |can )?(?:eat|am eating|started eating|began eating|have started "
            rf"eating|went back to eating) (?P<value>meat|fish|everything|anything|whatever|animal products)"
            rf"\b",
        ),
        reject_values=r"^(?:healthy|balanced|good|bad|normal|strict|regular|varied|poor) $",
        canonical=lambda value: _canonical_from(value, _DIET_VALUES),
    ),
    # contact details: one value per kind (a work phone does not replace a private one)
    "work_phone": SlotRule(
        patterns=(
            rf"\bmy (?:new )?(?:work|office|business) (?:phone|number|cell|mobile|telephone)"
            rf"(?: number)? (?:is|is now|changed to|has changed to) (?P<value>{PHONE})",
        ),
    ),
    "phone": SlotRule(
        patterns=(
            rf"\bmy (?:(?:new|current|mobile|cell|home|personal|private|landline|telephone|phone|"
            rf"main) )*(?:phone|number|cell|mobile|telephone)(?: number)? (?:is|is now|changed to|"
            rf"has changed to) (?P<value>{PHONE})",
            rf"\b(?:call|text|reach|ring|phone|hit|contact|whatsapp) me(?: up)? (?:on|at) (?P<value>{PHONE})",
            rf"{S}{A}(?:got|have|have got) a new (?:mobile |phone |cell )?(?:phone|number|mobile)"
            rf"(?: number)?,? (?:it is |which is )?(?P<value>{PHONE})",
            # a note with the kind first: "mobile is 07700 900123", "my number: 555 1234"
            rf"^(?:(?:my|new|current|mobile|cell|home|personal|private|phone|number|telephone|tel) )+"
            rf"(?:is (?:now )?)?(?P<value>{PHONE})",
        ),
        canonical=lambda value: re.sub(r"\D", "", value),
    ),
    "work_email": SlotRule(
        patterns=(
            rf"\bmy (?:new )?(?:work|office|business) e ?mail(?: address)? (?:is|is now|changed to|"
            rf"has changed to) (?P<value>{EMAIL})",
        ),
    ),
    "email": SlotRule(
        patterns=(
            rf"\bmy (?:(?:new|current|personal|private|main) )*e ?mail(?: address)? (?:is|is now|"
            rf"changed to|has changed to) (?P<value>{EMAIL})",
            rf"\b(?:e ?mail|mail|reach|contact|write to|write|message|hit|find) me(?: up)? (?:at|on|via) "
            rf"(?P<value>{EMAIL})",
            rf"{S}{A}(?:use|have|got|have got|check) (?P<value>{EMAIL})",
            rf"^(?:(?:my|new|current|personal|private|main|mail|e ?mail|address) )+(?:is (?:now )?)?"
            rf"(?P<value>{EMAIL})",
        ),
    ),
    "address": SlotRule(
        patterns=(
            r"\bmy (?:(?:new|current|home|postal|mailing|street) )*address is (?:now )?"
            r"(?P<value>[^;]+)",
            rf"{S}{A}(?:live|am living|have moved|moved|am moving) (?:at|to) (?P<value>\d+[a-z]? "
            r"[a-z ]+)",
        ),
    ),
    "home_type": SlotRule(
        patterns=(
            rf"{S}{A}(?:live|am living|have been living|reside) in (?P<value>(?:a|an|the|my|our) "
            rf"(?:\w+ ){{0,3}}?{DWELLING})\b(?! park| community| estate| site| village)",
            rf"\b(?:my|our) (?:home|house|place) is (?:a|an) (?:\w+ ){{0,3}}?(?P<value>{DWELLING})\b",
            # sharing or renting one: "i share a tiny apartment with two roommates", "we rent a
            # fourth floor walkup"
            rf"{S}{A}(?:share|rent|am renting|sublet) (?:a|an|my|our) (?:\w+ ){{0,3}}?"
            rf"(?P<value>{DWELLING_OWNED}|walk ?up)\b(?! (?:park|community|estate|site|village)\b)",
            rf"{S}{A}(?:got|bought|rent|am renting|rented|own|moved into|have moved into|"
            rf"purchased|built|have bought|have built) (?:a|an|my|our) (?:own |new |first )*"
            rf"(?:\w+ ){{0,2}}?(?P<value>{DWELLING_OWNED})\b",
        ),
        canonical=lambda value: re.sub(r"\bwalk ?ups?\b", "apartment", value),  # a walkup is a flat
    ),
    "age": SlotRule(
        patterns=(
            # (not a comparison: "they treat me like I'm ten", "as if I were 80")
            rf"(?<!\blike )(?<!\bas if )(?<!\bas though )"
            rf"\bi (?:only |really |actually |finally )?(?:am|turned|just turned|just turn|clocked|just clocked|will be|will turn|"
            rf"am turning|have turned|recently turned|became|just became) (?:now )?(?:about |almost |nearly |"
            rf"over |under |only |just )?(?P<value>{NUM})(?: \(\d{{1,3}}\))?"
            rf"(?: (?:years?|yrs?) (?:old|young|of age)| yo| y o| years?| yrs?)?"
            rf"{_AGE_AFTER}",
            # a round number reached: "just hit 38, back aches" (not the years of something: "my
            # husband and i just hit ten years")
            rf"\bi (?:just )?hit (?P<value>{NUM})(?: (?:years?|yrs?) old)?{_AGE_AFTER}",
            # the age after a birthday told: "my birthday was yesterday, 24 now!"
            r"(?:^|, )(?P<value>1[3-9]|[2-9]\d) now(?=$|[,.!])",
            # a birthday said in a learner's words: "I make fifty this year", "I completed 52 years
            # this year", "Fifty-two years I completed this year"
            rf"\bi (?:make|made|complete|completed|will make|will complete|am completing|am making) "
            rf"(?P<value>{NUM})(?: (?:years?|yrs?)(?: old)?)?(?= (?:this year|today|tomorrow|next (?:week|month))\b)",
            # the years completed on a day: "I completed sixty-eight years on Durga Puja day" (not
            # a service's years: "completed 30 years at the bank", "25 years in the army")
            rf"\bi (?:completed|have completed|just completed) (?P<value>{NUM}) (?:years?|yrs?)(?: of age)?"
            rf"(?=$|[,.!;]| (?:on (?!(?:the|this|that|a) )|last\b|in (?:{_MONTHS})\b))",
            rf"^(?P<value>{NUM})(?: (?:years?|yrs?) (?:i |we )?| i )(?:completed|complete|made|make|turned|turn)\b"
            rf"(?! (?:at|with|of|in (?:the|this|that|my|our|a|an))\b)",
            # a birthday told after a comma, its subject dropped: "update my age pls, just turned 23"
            # (not "my son just turned 5": the clause starts at the comma)
            rf", (?:just |recently )?turned (?P<value>{NUM})(?: (?:years?|yrs?) old| yo| y o)?{_AGE_AFTER}",
            # what a form or a profile is told: "put me down as 26", "you can put me down as forty-one"
            rf"\b(?:put|mark|count|list) me down as (?P<value>{NUM})(?: (?:years?|yrs?) old)?{_AGE_AFTER}",
            # the words turned round: "47 years I am, 25 of them on the road"
            rf"^(?P<value>{NUM}) (?:years?|yrs?)(?: old)? (?:i am|am i)(?=$|[,.!;?]| and\b| now\b| already\b)",
            rf"^(?P<value>1[3-9]|[2-9]\d|{_TENS_NUM}) (?:i am|am i)(?=$|[,.!;?]| and\b| now\b)",  # "Seventy Six I Am, And ..."
            rf"\bi am (?:a|an) (?P<value>{NUM}) (?:years?|yr) old\b",
            # a learner's way to say it: "I have 44 years"
            # (not a time of life: "I am carpenter since I have 17 years")
            rf"(?<!since )(?<!when )(?<!as of )\bi have (?P<value>{NUM}) (?:years?|yrs?)(?: old)?(?=$|[,.!?;]| and\b| but\b)",
            rf"\bmy (?:good |current |actual |real )?age is (?P<value>{NUM})\b",
            # a birthday by when it came, the verb dropped: "55 this past winter, 43 seasons on the water"
            r"^(?P<value>[1-9]\d) this past (?:winter|spring|summer|fall|autumn|month|january|february|march|"
            r"april|may|june|july|august|september|october|november|december)\b",
            # a birthday by when it came: "17 since march", "42 as of last week", "Sixty-two last
            # birthday"
            rf"(?:^|, )(?P<value>{NUM}),? (?:since|as of|from) (?:last |this )?(?:{_MONTHS}|my (?:last )?birthday|"
            r"(?:last|this) (?:week|month|year|spring|summer|fall|autumn|winter)|yesterday|"
            r"(?:last )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
            rf"^(?P<value>{NUM}),? (?:at |on |as of )?(?:my )?last (?:birthday|bday)\b",
            # the years in one's own language: "imam 30 godini", "am 46 de ani", "27 vayassu",
            # "tengo 34 anos" (a number and the word for years, the verb before it any)
            # (not a time: "20 lat temu", "hace 20 anos", "for 20 anos")
            # (nor a relative's in Turkish: "annem 70 yasinda" is one's mother)
            rf"(?:^|\b(?!(?:hace|vor|for|since|after|before|fa|depuis|il y a|over|about|nearly|almost|annem|babam|"
            rf"oglum|kizim|esim|kardesim|ablam|abim|dedem|ninem|anneannem|babaannem)\b)[a-z]+ )"
            rf"(?P<value>[1-9]\d) (?:de )?(?:{_FOREIGN_YEARS})\b(?! (?:ago|temu|nazad|fa|atras|back|lalu|zuruck|geleden)\b)",
            # what one is not bad for: "not bad for a man who is 73", "for a woman of sixty"
            rf"\bfor (?:a|an) (?:\w+ )?(?:man|woman|guy|lady|fellow|gentleman|person|bloke|chap|gal|girl|boy) "
            rf"(?:who is |of |aged |at )(?P<value>{NUM})\b(?! (?:years? )?(?:ago|years? (?:of|in|at|on)))",
            # a round birthday by its nickname, one's own: "just hit the big 4-0", "the big five-oh
            # was last month" (not "the big 40 party", which may be anyone's)
            (_BIG + r"(?:4|four|forty) ?(?:oh|o|0)" + _BIG_AFTER, "40"),
            (_BIG + r"(?:3|three|thirty) ?(?:oh|o|0)" + _BIG_AFTER, "30"),
            (_BIG + r"(?:5|five|fifty) ?(?:oh|o|0)" + _BIG_AFTER, "50"),
            (_BIG + r"(?:6|six|sixty) ?(?:oh|o|0)" + _BIG_AFTER, "60"),
            r"\bi was born in (?P<value>(?:19|20)\d\d)\b",
            r"\bmy (?P<value>\d{2,3})(?:st|nd|rd|th) birthday\b",
            rf"^(?P<value>{NUM}) candles\b",
            # the years as seasons, in a poet's or an old farmer's words: "Fifty-eight springs now",
            # "I have seen 70 summers"
            rf"^(?P<value>{NUM}) (?:springs|summers|winters|autumns|monsoons)(?= now\b| old\b| young\b| behind me\b|"
            rf" (?:have|has) (?!been\b)[a-z]+ (?:over |on |through |in )?(?:me|this|my)\b|$|[,.!;])",
            rf"\bi have seen (?P<value>{NUM}) (?:springs|summers|winters|autumns|monsoons)\b",
            # the number first and how one feels about it: "28 n already tired lmao", "40 and counting"
            rf"^(?P<value>[1-9]\d|{_TENS_NUM})(?: y ?o| yrs?(?: old)?| years?(?: old)?)?(?:,| n| and| &)? (?:already|still|feeling|"
            r"feel|getting|counting|not getting|going on|loving it|and counting|and finally)\b",
            # one's own birthday by its ordinal ("just had my 55th", "celebrated my forty-fifth
            # birthday"; not "our 12th anniversary"), its nickname, or the years one has been alive
            (rf"\b(?:had|celebrated|celebrating|celebrate|for|on) my (?P<value>\d{{2,3}}(?:st|nd|rd|th)|{_ORDINAL})"
             rf"(?: birthday| bday)?(?=$|[,.!?;]| (?:birthday|bday|last|this|today|yesterday|party|was|and|with)\b)",
             _age_of_ordinal),
            (r"(?:^|\bmy )sweet (?:16|sixteen)\b", "16"),
            (r"(?:^|\bi am |\bi turned |\bturned |\bhit )half a century\b", "50"),
            rf"(?:^|\bi am )(?P<value>{NUM}) years? (?:young|on this earth|on this planet|of age)\b",
            # a birthday hit or celebrated: "just hit 42 and ...", "i celebrated 60 last week" (not
            # "my husband and i just hit ten years": a marriage's years)
            rf"(?:\bi |^)(?:just hit|hit|celebrated|just turn) (?P<value>{NUM})(?: (?:years? old|yo))?"
            rf"(?=$|[,.!?;]| (?:and|but|today|yesterday|last|this|on|in|already|lol|haha)\b)",
            # a learner's way: "I 64 this year"
            rf"\bi (?P<value>{NUM}) (?:this year|years old|now)\b",
            r"\bi am in my (?P<value>(?:early |mid |late )?(?:twenties|thirties|forties|fifties|"
            r"sixties|seventies|eighties|nineties|teens|[2-9]0s))\b",
        ),
    ),
    "weight": SlotRule(
        patterns=(
            rf"{S}{A}weigh (?:about |around |over |under |nearly |almost )?(?P<value>"
            rf"(?:{NUM}|\d+) (?:pounds|lbs|lb|kilos|kilograms|kg|stone))\b",
            r"\bmy weight is (?P<value>[^,;]+)",
        ),
    ),
    "hair": SlotRule(
        patterns=(
            rf"{S}{A}have (?:(?:\w+ )?(?:long|short|curly|straight|wavy|thick|thin|medium|"
            rf"shoulder length|cropped|natural|bleached|dyed) )*(?P<value>{HAIR_COLOURS}) hair\b",
            rf"\bmy hair is (?:(?:now|currently|naturally|dyed|long|short|\w+ly) )*"
            rf"(?P<value>{HAIR_COLOURS})\b",
            rf"\bi am (?:a |an )?(?P<value>blonde?|brunette|redhead|ginger|bald)\b",
            rf"{S}{A}(?:dyed|coloured|colored|bleached) my hair (?P<value>{HAIR_COLOURS})\b",
        ),
    ),
    "favorite_{cat}": SlotRule(
        patterns=(
            r"\bmy (?:all time |absolute |very |current |new |most |personal )?favou?rite "
            r"(?P<cat>(?!since |for |because |when )[a-z]+(?: (?!since |for |because |when )[a-z]+){0,3}?)"
            r"(?: ever| of all time|, [a-z ]{1,40},)? (?:is|are|was|has to be|would be|must be|"
            r"has always been|will always be|has been|remains|stays|is still) "
            r"(?P<value>[^,;]+)",
            r"(?P<value>[a-z][a-z ]*?)(?: is| are| s| has been| have been| was| will be| will always be|"
            r" has always been| have always been|,) (?:(?:probably|definitely|easily|still|hands down|"
            r"by far|honestly|really|absolutely|totally|always|just|for sure|without a doubt) )*my "
            r"(?:all time |absolute |very |current |new |number one |no 1 |top )?favou?rite (?P<cat>thing to (?:eat|drink)|time of (?:the )?year|"
            rf"[a-z]+(?: (?!{_FILLERS}\b)[a-z]+)?)"
            rf"(?= ?(?:$|[,.!?;])| and\b| but\b| of\b| to\b| in\b| because\b| ever\b| do not\b| since\b| for\b|"
            rf" no contest\b| hands down\b| by far\b| forever\b| {_FILLERS}\b)",
        ),
        canonical=lambda value: re.sub(r"\bautumn\b", "fall", value),  # one season, two names
        reject_values=r"^(?:he|she|it|they|that|this|these|those|him|her|them)\s*$",  # said before it
    ),
    "eyes": SlotRule(
        patterns=(
            rf"{S}{A}have (?:(?:big|small|bright|dark|light|deep|pale) )*(?P<value>{EYE_COLOURS})"
            rf" eyes\b",
            rf"\bmy eyes are (?:(?:\w+ly) )?(?P<value>{EYE_COLOURS})\b",
        ),
    ),
    "height": SlotRule(
        patterns=(
            rf"\bi am (?P<value>(?:{NUM}|\d(?:\.\d+)?) (?:feet|foot|ft|meters?|metres?|m|cm)"
            rf"(?: (?:and )?{NUM} (?:inches|inch|in))?|{NUM}(?: \d{{1,2}})?) tall\b",
            r"\bmy height is (?P<value>[^,;]+)",
        ),
    ),
    "origin": SlotRule(
        patterns=(
            r"\bi am (?:originally )?from (?P<value>[^,;]+)",
            r"\bi was born (?:and raised )?in (?P<value>(?!\d)[^,;]+)",
            r"\bi come from (?P<value>[^,;]+)",
        ),
        reject_values=r"^(?:a |an )?(?:big |small |large |huge |poor |rich |close )?(?:family|"
        r"background|generation|line)\b",
    ),
    "gender": SlotRule(
        patterns=(
            r"\bi am (?:a|an) (?:(?!of\b|with\b|for\b|to\b|and\b|who\b)\w+ ){0,4}?"
            r"(?P<value>man|woman|boy|girl|male|female|guy|gal|lady|gentleman|dude)\b",
            r"\bi am (?P<value>male|female|non binary|nonbinary|transgender|trans|a trans \w+)\b",
            r"\bmy (?:gender|sex) is (?P<value>\w+)",
        ),
        canonical=lambda value: _canonical_from(value, _GENDER_VALUES),
    ),
    "name": SlotRule(
        patterns=(
            r"\bmy (?:first |full |real )?name is (?P<value>[a-z]+(?: [a-z]+)?)",
            # (a title before the name is no name: "the kids call me Teacher Tom", "call me Dr Ana")
            r"\b(?:call me|people call me|i go by) (?:(?:teacher|coach|doctor|doc|dr|mr|mrs|ms|miss|mister|sir|"
            r"madam|auntie|aunty|uncle|nurse|professor|prof|captain|cap|chef|sister|brother|father|mother) )?"
            r"(?P<value>[a-z]+)\b",
        ),
        reject_values=r"^(?:not|a|the|too|hard|easy|long|short|unusual|common|funny|weird|young|old|crazy|mad|lazy|stubborn|names?|late|lucky|mum|mom|dad|grandpa|grandma|granny|nan)\b"
                      r"|^(?:teacher|coach|doctor|doc|nurse|chef|captain|boss|sir|madam|miss)\s*$",  # a title alone
    ),
}
"""name -> how to recognise it.

The order is a priority: when a text speaks about several slots ("I drive a truck and live in
the country"), `detect_slot` returns the first listed, and that is the one the memory service
stores and later finds by. Topics that change often and matter come first (job, residence,
relationship, car, diet); ones that rarely or never change (name, gender, origin) come last.
"""

_CATEGORY_PREFIX = re.compile(r"^(?:kind|type|sort|genre|style|form|brand|flavor) of ")
_CATEGORY_SUFFIX = re.compile(r" (?:genre|type|kind|style|series)s?$")
_VAGUE_CATEGORIES = frozenset({"thing", "one", "part", "stuff", "activity to do", "thing to do"})
# "my favorite thing to eat" is the food slot
_CATEGORY_NAMES = {"novel": "book", "film": "movie", "group": "band", "football team": "team", "football club": "team",
                   "time of year": "season", "time of the year": "season", "thing to eat": "food", "food to eat": "food", "meal": "food", "dish": "food",
                   "thing to drink": "drink", "beverage": "drink"}


def favorite_category(raw: str) -> str | None:
    """'kind of movie' -> 'movie', 'colors' -> 'color', 'music genre' -> 'music'.

    Why normalise: "my favorite kind of movie" and "my favorite movie" are the same slot, and
    "my favorite colors are" is the colour slot too. Vague categories ("thing") are no slot.
    """
    cat = _CATEGORY_SUFFIX.sub("", _CATEGORY_PREFIX.sub("", raw.strip()))
    cat = _CATEGORY_NAMES.get(cat, cat)
    cat = " ".join(lemma(word) for word in cat.split())
    if not cat or cat in _VAGUE_CATEGORIES or cat.split()[0] in _VAGUE_CATEGORIES:
        return None
    return cat.replace(" ", "_")


# --- matching --------------------------------------------------------------------------------

_BOUNDARY_WORDS = re.compile(
    r"\s+(?:and|but|because|since|so|for good|for now|now|these days|anymore|any more|been|"
    r"for (?:\d+|a|an|the|about|over|almost|nearly|many|several|some|most|my|two|three|four|"
    r"five|ten|\w+ years?)\b|when|while|where|which|who|although|though|after|before|until|"
    r"with (?:my|our|a|an|the|his|her|their)|to (?![a-z]+ (?:city|state|country))|"
    r"(?:\w+ ){0,2}ago|last (?:week|month|year|spring|summer|fall|autumn|winter|night|time)|"
    r"this (?:week|month|year|spring|summer|fall|autumn|winter)|yesterday|today|recently|"
    r"in (?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|\d{4}|the (?:spring|summer|fall|autumn|winter))|for work|for school|"
    r"nowadays|at the moment|right now|so far|obviously|of course|honestly|tbh|lol|haha|ha ha|i guess|i think|"
    r"forever|for life|hands down|no question|"
    # the particles of one's own English that end a clause: "I'm a nurse ba", "teacher lah"
    rf"{_PARTICLES})\b.*$"
)
_LEADING_ARTICLES = re.compile(r"^(?:(?:a|an|the|my|our|this|that) )+")


def _clean_value(raw: str) -> str:
    """Trim a captured value to its core: 'a vw golf now and i love it' -> 'vw golf'."""
    value = raw.strip(" .!?")
    trimmed = _LEADING_ARTICLES.sub("", _BOUNDARY_WORDS.sub("", value)).strip()
    if trimmed and trimmed not in {"a", "an", "the", "my", "our", "this", "that"}:
        return trimmed
    return _LEADING_ARTICLES.sub("", value).strip()  # "the who": the band, not a boundary


@dataclass(frozen=True)
class SlotMatch:
    """One slot found in a text: its name, its value if the pattern captured one, whether it was
    only a hint, and where in the normalised text it started (for ordering)."""

    slot: str
    value: str | None
    hint: bool
    position: int
    negative: bool = False
    current: bool = False  # its clause says it holds now ("so I'm divorced now")


_HINT_SYNONYMS = {"hubby": "husband", "bf": "boyfriend", "gf": "girlfriend", "fiancee": "fiance",
                  "significant other": "partner"}  # (a spouse is married: no synonym)
_NOW = re.compile(r"\b(?:now|these days|nowadays|currently|at the moment)\b")
_CLAUSE_BREAK = re.compile(r",|\bbut\b|\band i\b|\bso\b|\bbecause\b")
_SENTENCE_SPLIT = re.compile(r"[.!?;:\n]+(?:\s+|$)|\s+-\s+")


# a word that cannot be a sentence of its own: said alone, it is a phrase spoken one word at a
# time for emphasis ("Every. Single. Day.", "Not. One. Single. Text.")
_LEADS_ON = frozenset({"every", "each", "not", "one", "the", "a", "an", "this", "that", "any", "my", "your",
                       "our", "their", "his", "her", "its", "no single", "every single", "each single"})


def sentences(norm: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs of a normalised text; rules look at one sentence at a time. A
    word that cannot stand alone (_LEADS_ON) is joined to what follows it, so "every. single.
    day." is one phrase and not the status "single"."""
    out, start = [], 0
    for match in _SENTENCE_SPLIT.finditer(norm):
        out.append((start, norm[start : match.start()]))
        start = match.end()
    out.append((start, norm[start:]))
    joined: list[tuple[int, str]] = []
    lead: tuple[int, str] | None = None
    for offset, sent in out:
        if not sent.strip():
            continue
        word = sent.strip()
        if lead is not None:
            offset, sent = lead[0], f"{lead[1]} {word}"
            lead = None
        if word in _LEADS_ON:  # "not. one. single. text." leads on word by word
            lead = (offset, sent.strip())
            continue
        joined.append((offset, sent))
    if lead is not None:
        joined.append(lead)
    return joined


def is_wish(sentence: str, start: int) -> bool:
    """Whether the clause of a normalised `sentence` before position `start` makes what follows
    a wish or a dream ("I want to live in ...", "when I grow up I want to be ..."). Shared with
    the conflict rules, which ignore change wording in wishes."""
    return bool(WISH.search(_CLAUSE_BREAK.split(sentence[:start])[-1]))


Gate = frozenset[str] | None  # words one of which a pattern needs (bot.memory.rules.regex_gate)


@dataclass(frozen=True)
class _Compiled:
    patterns: tuple[tuple[re.Pattern[str], Check | str | None, Gate], ...]
    hints: tuple[tuple[re.Pattern[str], Gate], ...]
    skip: re.Pattern[str] | None
    reject: re.Pattern[str] | None


def _compile(rule: SlotRule) -> _Compiled:
    patterns = []
    for p in rule.patterns:
        source, check = p if isinstance(p, tuple) else (p, None)
        compiled = re.compile(source)
        patterns.append((compiled, check, required_literals(compiled)))
    return _Compiled(
        patterns=tuple(patterns),
        hints=tuple((re.compile(hint), required_literals(hint)) for hint in rule.hints),
        skip=re.compile(rule.skip_if) if rule.skip_if else None,
        reject=re.compile(rule.reject_values) if rule.reject_values else None,
    )


_COMPILED: dict[str, _Compiled] = {name: _compile(rule) for name, rule in SLOTS.items()}


def _match_rule(
    name: str, rule: SlotRule, norm: str, sents: list[tuple[int, str]] | None = None
) -> list[SlotMatch]:
    found: list[SlotMatch] = []
    compiled = _COMPILED.get(name) or _compile(rule)
    for offset, sentence in sentences(norm) if sents is None else sents:
        if compiled.skip is not None and compiled.skip.search(sentence):
            continue
        for pattern, check, gate in compiled.patterns:
            if not may_match(gate, sentence):
                continue  # a word the pattern needs is missing: it cannot match
            for match in pattern.finditer(sentence):
                if is_wish(sentence, match.start()):
                    continue
                groups = match.groupdict()
                value: str | None = groups.get("value")
                negative = bool(groups.get("neg") or groups.get("neg2"))
                if isinstance(check, str):
                    value, check = check, None  # a fixed value ("I teach ..." -> "teacher")
                if negative:
                    value = rule.negative_value or ("no " + _clean_value(value) if value else None)
                elif value is not None:
                    value = _clean_value(value)
                    checked = check(value) if check is not None else True
                    if not checked:
                        continue
                    if isinstance(checked, str):
                        value = checked  # a check may also give the value its canonical form
                    if compiled.reject is not None and compiled.reject.search(value + " "):
                        continue
                    if rule.value_from is not None:
                        value = rule.value_from(value)
                        if value is None:
                            continue
                slot = name
                if "{cat}" in name:
                    cat = favorite_category(groups.get("cat") or "")
                    if cat is None:
                        continue
                    slot = name.format(cat=cat)
                clause = match.group(0) + _CLAUSE_BREAK.split(sentence[match.end() :], 1)[0]
                found.append(
                    SlotMatch(slot, value or None, False, offset + match.start(), negative,
                              bool(_NOW.search(clause)))
                )
        for hint, gate in compiled.hints:
            if not may_match(gate, sentence):
                continue
            for match in hint.finditer(sentence):
                if not is_wish(sentence, match.start()):
                    raw = match.groupdict().get("value")
                    hint_value = _HINT_SYNONYMS.get(raw, raw) if raw else None
                    found.append(SlotMatch(name, hint_value, True, offset + match.start()))
    return found


# Chat and notes drop the subject and its verb: "Based in Leeds.", "been living here 3 years",
# "Married, two kids.", "Not seeing anyone.", "41 years old", "Age 30". Such a sentence is read
# as if the subject were there; the words that start it say which subject and verb were dropped.
_DROPPED_I_AM = re.compile(
    r"^(?:(?:just|now|still|currently|recently|happily|newly|also|not|no longer|proudly|"
    r"officially|finally|perpetually|blissfully|legally) )*(?:"
    r"(?:married|single|divorced|separated|engaged|widowed|widow|widower|retired|unemployed|self employed|"
    r"vegan|" + VEGETARIAN + r"|veggie|pescatarian|pescetarian)(?=$|[,!]| \d| (?:and|but|with|since|for|again|yet|"
    r"now|to|at|in|right|already|too|though|lol|these days|at the moment|n|af|asf|rn|o|fr|tbh|haha|still|forever|yaar|lah|la|mate|bro|guys|y all|yall|folks|officially|finally)\b)"
    r"|(?:based|living|staying|settled|stationed) (?:in|out of|near|at|abroad|overseas|up|down|"
    r"out|with)\b"
    r"|(?:working|employed) (?:as|at|for|in)\b"
    r"|(?:seeing|dating) (?:someone|somebody|anyone|anybody|a|an|nobody|no one)\b"
    r"|in a relationship\b|getting (?:married|hitched|divorced|engaged)\b|(?:a|an) (?=[a-z]))"
)
_DROPPED_I_HAVE = re.compile(r"^(?:just |now |recently |finally )?(?:been\b|(?:got )?(?:a )?new job\b)")
# a change told without its subject: "turned 35 today", "moved to Leeds", "sold the car"
_DROPPED_I = re.compile(
    r"^(?:just |recently |finally |now )?(?:turned|moved|relocated|started|quit|sold|bought|became|"
    r"retired|switched|upgraded|joined|married(?! off\b)|divorced|teach|work|live|drive|purchased|clocked)\b|^just (?:hit|turn)\b"
    r"|^am (?!(?:and|or|shifts?|pm)\b)"
)
# (an age said first, then about oneself: "58 and been farming since i could walk", "Only 24 but")
_ADULT_AGE = (r"(?:1[3-9]|[2-9]\d|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
              r"(?: (?:one|two|three|four|five|six|seven|eight|nine))?)")
_DROPPED_AGE = re.compile(rf"^(?:age|aged|age is) (?={NUM}\b)|^(?={NUM} (?:(?:years?|yrs?) old|y o|yo)\b)|"
                          rf"^(?:only |just |almost |nearly )?(?={_ADULT_AGE}"
                          r"(?: and\b(?! (?:sunny|cloudy|raining|rainy|humid|windy|clear|overcast|freezing)\b)| but\b|,| as of\b| today\b| yesterday\b| now\b| rn\b| btw\b| tho\b|"
                          r" this (?:year|month|week|spring|summer|fall|autumn|winter)\b| last (?:year|month|week)\b| going on\b|"
                          rf" in {_MONTHS}(?=$|[,.!])|"
                          # the years alone: "27 years. still zero savings", "35 years, like 35 stations"
                          # (not "25 years, still married"; nor in a message of a marriage, _BOND)
                          r" (?:years?|yrs?)(?=$|[.!?]|, (?!(?:still |happily |now |all )?(?:married|together|wed|"
                          r"in|at|with|on|as|of|for|same|here|there|and counting|strong|sober|clean)\b))|"
                          r" ?[\u2012-\u2015\u2600-\u27bf\U0001f000-\U0001faff]))")
# the years of a bond, not one's age: "married. 19 years.", "Lena and I signed at the ZAGS in 2005. 19
# years, 1 wife, 0 regrets", "Evliyim. 30 years, hanim at home"
_BOND = re.compile(r"\b(?:married|marriage|wife|husband|wed|wedding|anniversary|spouse|partner|together|"
                   r"hanim|signed|evliyim|zags)\b")
_YEARS_ALONE = re.compile(rf"^(?:only |just |almost |nearly )?{_ADULT_AGE} (?:years?|yrs?)\b(?! old\b)")
# an age alone as a message's first sentence, more following: "29. Still young for kitchen.",
# "Forty-seven. Knees say seventy."
_AGE_ALONE = re.compile(rf"(?:only |just |almost |nearly )?{_ADULT_AGE}")
_BARE_NOUN_PHRASE = re.compile(r"^[a-z]+(?: [a-z]+){0,3}(?= at | for | in | with |$)")
# a job said first before a comma, "on", "since" or a number ("Electrician, 15 years", "OTR
# trucker 18 yrs", "RN on a cardiac floor"): a listed profession only, since what precedes a comma
# is often no job at all ("Lavender, cheese and rosé", "Tesla Model 3, never going back")
_NOUN_PHRASE_FIRST = re.compile(r"^(?!(?:the|a|an|my|his|her|their|our|your|its|this|that)\b)[a-z]+(?: [a-z]+){0,3}?"
                                r"(?= on | since |,| \d)")
_CLAUSE_WORDS = frozenset("a an the is are was s my his her their our your its and or of".split())
# "<profession> life": chat's way of saying what one does ("plumber life aint glamorous", "cpa life
# means no weekends", "farm life never lets up"); the word before "life" is a profession, or a
# field whose doer is one (farm -> farmer, graphic design -> graphic designer)
_TRADE_LIFE = re.compile(r"(?:^|, |\band |\bbut |\bso )(?P<np>[a-z]+(?: [a-z]+)?) life\b")


def _trade_of_life(np: str) -> str | None:
    """The profession "<np> life" says one has, or None ("city life", "low life", "mom life")."""
    words = np.split()
    for start in range(len(words)):
        phrase = " ".join(words[start:])
        head = words[-1]
        if head in PROFESSIONS or lemma(head) in PROFESSIONS:
            return phrase
        if head + "er" in PROFESSIONS or head + "r" in PROFESSIONS:
            return " ".join([*words[start:-1], head + ("r" if head.endswith("e") else "er")])
    return None


_TRIP = re.compile(r"\b(?:trip|trips|visit|visited|visiting|vacation|holiday|holidays|honeymoon|tour|"
                   r"weekend|flight|flew|conference|layover|was|were|used to|someday|one day|dream)\b")
# what may follow a city in a note of one's home: its state, province or country
REGIONS = frozenset(word.replace("_", " ") for word in """
    alabama al alaska ak arizona az arkansas ar california ca colorado co connecticut ct delaware de
    florida fl georgia ga hawaii hi idaho id illinois il indiana in iowa ia kansas ks kentucky ky
    louisiana la maine me maryland md massachusetts ma michigan mi minnesota mn mississippi ms
    missouri mo montana mt nebraska ne nevada nv ohio oh oklahoma ok oregon or pennsylvania pa
    tennessee tn texas tx utah ut vermont vt virginia va washington wa wisconsin wi wyoming wy
    ontario on quebec qc alberta ab manitoba mb saskatchewan sk nova_scotia ns bc
    british_columbia new_brunswick nb newfoundland nl pei
    new_hampshire nh new_jersey nj new_mexico nm new_york ny north_carolina nc north_dakota nd
    rhode_island ri south_carolina sc south_dakota sd west_virginia wv dc
    usa us america uk england scotland wales ireland northern_ireland britain canada australia
    nz new_zealand india germany france spain italy portugal netherlands belgium mexico brazil
    nigeria kenya south_africa singapore philippines malaysia japan china hong_kong
    nsw vic qld queensland victoria tasmania
""".split())


def _bare_place(sentence: str) -> bool:
    """Whether a sentence is only a city, maybe with its state or country ("boise, idaho",
    "Leeds UK"): a person's note of where they live. Not a name that is also a word ("reading")."""
    text = sentence.strip(" ,").removeprefix("the ")
    if place_in(text) is None:
        return False
    if canonical_place(text) is not None:
        return True
    words = text.replace(",", " ").split()
    return any(canonical_place(" ".join(words[:k])) is not None and " ".join(words[k:]) in REGIONS
               for k in range(1, len(words)))


def _restore_subject(sentence: str, trip: bool | None = None) -> str:
    """The sentence with the subject chat dropped put back ("based in leeds" -> "i am based in
    leeds", "41 years old" -> "i am 41 years old"), or unchanged. A sentence that is only a job's
    name ("freelance graphic designer") reads as "i am a ..."."""
    if sentence.startswith(("i ", "we ", "my ", "our ")):
        return sentence
    if _DROPPED_I_HAVE.match(sentence):
        return ("i have a " if sentence.startswith("new job") else "i have ") + sentence
    if _DROPPED_I.match(sentence):
        return "i " + sentence
    if _DROPPED_AGE.match(sentence):
        return "i am " + _DROPPED_AGE.sub("", sentence)
    if _DROPPED_I_AM.match(sentence):
        return "i am " + sentence
    if trip is False and _bare_place(sentence):
        return "i live in " + sentence
    if sentence.startswith(("being a ", "being an ")):
        return "i am " + sentence[len("being "):]  # "Being a vet in this city is never boring"
    phrase = _BARE_NOUN_PHRASE.match(sentence)
    # (no article inside: "finally got a ranger" is a car bought, not a job's name)
    if (phrase and not set(phrase.group(0).split()) & _CLAUSE_WORDS and is_profession(phrase.group(0))
            and (" " in phrase.group(0) or _one_word_trade(phrase.group(0)))):
        return "i am a " + sentence
    phrase = _NOUN_PHRASE_FIRST.match(sentence)
    if (phrase and not set(phrase.group(0).split()) & _CLAUSE_WORDS
            and (_listed_profession(phrase.group(0)) or " " not in phrase.group(0) and _one_word_trade(phrase.group(0)))
            and not _CAR_NAME_RE.search(phrase.group(0)) and not phrase.group(0).endswith("model")):
        return "i am a " + sentence
    life = _TRADE_LIFE.search(sentence)
    if life:
        trade = _trade_of_life(life.group("np"))
        if trade is not None:
            cut = life.start("np")
            return f"{sentence[:cut]}i am a {trade}, {sentence[life.end():].strip()}".strip(" ,")
    return sentence


_JOB_FIELDS = frozenset({"job", "my job", "occupation", "profession", "what do i do", "what i do", "work"})
# a form's heading, its value on the next line or after the colon: "Home:\n- Port Sudan these
# days", "Place of residence: Minsk", "Car: Land Cruiser", "Hobbies:\n- woodworking" (a pastime,
# never a job)
_HOME_FIELDS = frozenset({"home", "my home", "residence", "place of residence", "my place of residence",
                          "city", "my city", "current city", "town", "location", "where i live", "based",
                          "where", "where do i live", "where am i", "home base", "hometown", "home town"})
_CAR_FIELDS = frozenset({"car", "my car", "cars", "vehicle", "vehicles", "my vehicle", "what i drive", "ride",
                         "my ride"})
_PASTIME_FIELDS = frozenset({"hobbies", "hobby", "my hobbies", "my hobby", "interests", "pastimes", "free time",
                             "for fun", "likes", "sports", "music"})
_NO_VALUE = re.compile(r"(?:none|no|nope|nil|zero|n a|not applicable|do not have one|not anymore)\b")
_ARTICLE_FIRST = re.compile(r"(?:a|an|the|my|our|old|new|an old|a new)\b")


# what a town named alone is said to be after it: "Penzance. All my life."
_LIFELONG = re.compile(r"(?:all my life|my whole life|whole life|since birth|since i was born|born (?:and|n) "
                       r"(?:raised|bred)(?: and (?:never leaving|still here|never left|proud))?|always have been|"
                       r"always been|home|home sweet home|that is home)"
                       r"(?: (?:lol|haha|tbh|really|honestly))?")


def _answer_head(bare: str) -> str:
    """The noun phrase a form's line starts with ("general surgeon, nights" -> "general surgeon")."""
    return _NP_BOUNDARY.sub("", bare.split(",")[0]).strip()


# a favourite asked of oneself: "best food in the world? chapshuro.", "fave band? Kino, always"
_BEST_ASKED = re.compile(r"(?:the |my )?(?:best|favorite|favourite|fav|fave|top) "
                         r"(food|dish|drink|band|singer|book|movie|film|team|season|colou?r|song|show|poet|writer|city)"
                         r"(?: in the world| ever| of all time| on earth)?")


_NAMED_FAVOURITE = re.compile(r"(?:and )?(?:that is |thats |it is |its )?(?:still )?my (?:all time |absolute )?"
                              r"favou?rite ([a-z]+)(?: ever| of all time)?(?=$|[,.!])")
# a name said alone before it (not a sentence of its own: "I went to Rome. My favourite city")
_NAME_ALONE = re.compile(r"(?!(?:i|we|my|our|you|he|she|they|it|this|that|there|the|a|an|only)\b)[a-z]+(?:,? [a-z]+){0,4}")


def _field_answer(field: str, bare: str, asked: bool = False) -> str | None:
    """The answer under a form's heading as a statement, or None when `field` is no heading or
    the line under it is no answer to it ("Work: exhausting today", "Home: the kids are driving
    me mad", "Car: washed it today")."""
    if field in _JOB_FIELDS:
        if field == "work" and not (is_profession(_answer_head(bare)) or _DROPPED_I_AM.match(bare)):
            return None  # "work" heads a mood as often as a trade
        return "my job is " + bare  # "job? delivery rider."
    if field in _HOME_FIELDS:
        if field in ("where", "where am i") and (_TRIP.search(bare) or re.search(r"\bfor the (?:week|night|day)\b", bare)):
            return None  # "Where? Paris, for the weekend": a trip
        words = _answer_head(bare).split()
        if places_in(bare) or any(canonical_place(" ".join(words[:n])) for n in (1, 2, 3)):
            return "i live in " + bare
        return None
    if field in _CAR_FIELDS:
        if _NO_VALUE.match(bare):
            return "i have no car"
        if not re.search(rf"\b(?:{CAR_BRANDS}|{VEHICLES})\b", bare) and not _CAR_NAME_RE.search(bare):
            return None
        return ("i drive " if _ARTICLE_FIRST.match(bare) else "i drive a ") + bare
    if field in _PASTIME_FIELDS:
        return "my hobby is " + bare
    best = _BEST_ASKED.fullmatch(field) if asked else None
    if best is not None:
        return f"my favorite {best.group(1)} is {bare}"  # "best food in the world? chapshuro."
    return None


def _fact_sentences(norm: str) -> list[tuple[int, str]]:
    """The sentences of a note without what it says to the bot first ("just so u know, 31 and
    ..." -> "31 and ..."), an asked field joined to its answer ("age? 34." -> "age 34"), and an
    age alone as the first of several sentences read as one ("29. Still young for kitchen.")."""
    out: list[tuple[int, str]] = []
    for offset, sentence in sentences(norm):
        sentence = sentence.strip()
        bare = without_lead_in(sentence)
        offset += len(sentence) - len(bare)
        if out and out[-1][1] in ("age", "my age", "how old", "how old am i", "my current age") and re.match(NUM + r"\b", bare):
            offset, bare = out.pop()[0], "age " + bare
        elif out and re.match(r"[a-z]", bare) and (answer := _field_answer(
                out[-1][1], bare, norm[out[-1][0] + len(out[-1][1]):][:1] == "?")) is not None:
            offset, bare = out.pop()[0], answer
        elif out and (named := _NAMED_FAVOURITE.match(bare)) is not None and _NAME_ALONE.fullmatch(out[-1][1]):
            # the value first, what it is after: "Hafez. Always Hafez. My favourite poet"
            offset, bare = out[-1][0], f"my favorite {named.group(1)} is {out.pop()[1]}{bare[named.end():]}"
        elif out and _LIFELONG.fullmatch(bare) and canonical_place(out[-1][1]) is not None:
            offset, bare = out[-1][0], f"i live in {out.pop()[1]}, {bare}"  # "Penzance. All my life."
        out.append((offset, bare))
    if len(out) > 1 and _AGE_ALONE.fullmatch(out[0][1]):
        out[0] = (out[0][0], out[0][1] + " years old")
    return out


@lru_cache(maxsize=16384)
def _find_slots_normalised(norm: str) -> tuple[SlotMatch, ...]:
    best: dict[str, SlotMatch] = {}
    priority: dict[str, int] = {}
    trip = bool(_TRIP.search(norm))  # "Paris. Best trip ever." is no home
    sents: list[tuple[int, str]] = []
    previous = ""
    for offset, sentence in _fact_sentences(norm):
        # "Mercedes. E-class. Twenty years old.", "my car is a honda. 20 years old": the years right
        # after a car are the car's (not after "I drive a Honda", one's own news)
        car_age = (_DROPPED_AGE.match(sentence) is not None and _CAR_NAME_RE.search(previous) is not None
                   and not previous.startswith(("i ", "we ")))
        bond_years = _YEARS_ALONE.match(sentence) is not None and _BOND.search(norm) is not None
        sents.append((offset, sentence if car_age or bond_years else _restore_subject(sentence, trip)))
        previous = sentence
    for order, (name, rule) in enumerate(SLOTS.items()):
        for found in _match_rule(name, rule, norm, sents):
            priority.setdefault(found.slot, order)
            current = best.get(found.slot)
            # Prefer an explicit statement over a hint, one that names a value, then the earliest.
            if current is None or _rank(found) < _rank(current):
                if not _no_car_beside(current, found):
                    best[found.slot] = found
            elif _no_car_beside(found, current):
                best[found.slot] = found
    return tuple(sorted(best.values(), key=lambda m: (m.hint, priority[m.slot], m.position)))


_TWO_WHEELS = re.compile(r"\b(?:scooter|moped|motorbike|motorcycle|bike|bicycle|vespa|e ?bike)s?\b")


def _no_car_beside(kept: SlotMatch | None, other: SlotMatch) -> bool:
    """Whether `kept` says "no car" and `other` names only a two-wheeler: "no car. I have a
    scooter" has no car (a scooter is no car, though it is one's ride)."""
    return (kept is not None and kept.slot == "car" and kept.negative and not other.negative
            and other.value is not None and _TWO_WHEELS.search(other.value) is not None)


def _rank(match: SlotMatch) -> tuple[bool, bool, bool, bool, int]:
    # a positive statement wins over a negated one in the same text ("I sold my VW and drive a
    # Tesla now": the car is the Tesla), and what holds now over what happened ("We split up
    # last year, so I'm divorced now": the status is divorced)
    return (match.hint, match.value is None, match.negative, not match.current, match.position)


# a note that asks and answers: "Favorite color? Blue." / "fav food: tacos"
# "i love the beatles, they are my favorite band": the favourite is what the first clause names
_FAVOURITE_AFTER = re.compile(
    r"^i (?:really )?(?:love|like|enjoy|adore)(?: to (?:eat|drink|watch|read|listen to|play))? (?:the )?"
    r"([a-z][a-z ]{0,30}?),? (?:and )?(?:it is|they are|that is|which is|those are|it has always been) "
    r"(?:\w+ )?my (favou?rite [a-z]+(?: [a-z]+)?)"
)
_FAVOURITE_NOTE = re.compile(r"^(?:my )?(?:favou?rite|fav|fave) ([a-z]+(?: [a-z]+)?) ?[?:=-]+ ?(?=[a-z])")
# the note the other way round: "Tacos. Favorite food, no question."
# (not a lead-in before a whole statement: "for your notes: favourite book ever is Solaris")
_FAVOURITE_NOTE_AFTER = re.compile(
    r"^([a-z][a-z ]{0,30}?)[.!:-]+ (?:my )?favou?rite ([a-z]+)\b"
    r"(?! (?:ever |of all time )?(?:is|are|was|has|will|would|remains)\b)"
)
# the favourite named first, then a pronoun after words about it: "Juan Gabriel forever, he's my
# favorite singer", "Hafez. He is my favourite poet.", "Boise State Broncos, blue turf and all,
# that's my team"
_NAMED_BEFORE = re.compile(
    r"^([a-z][a-z ]{0,30}?)(?: forever| for life| all the way| always| every time)?(?:, [a-z ]{1,30})?[,.!]+ "
    r"(?:he|she|it|they|that|this) (?:is|are|was|has always been|will always be) "
    r"(?:(?:still|definitely|easily|always|forever) )?my (?:favou?rite ([a-z]+(?: [a-z]+)?)|(team|season|drink|song|colou?r)\b)"
)
# a note that is only the job: "Pediatric nurse, night shift.", "Animal doctor, aka
# veterinarian.", "Welder by trade." (read as "i am a ..." when the words name a profession)
_JOB_NOTE = re.compile(
    r"^(?:(?:currently|now|still|proud|full time|part time) )?"
    r"(?!(?:no|not|never|my|our|his|her|their|the|this|that|so|too|just|some|any|i|we|you|he|she|they|it)\b)"
    # (not a verb with its subject dropped: "drive a Ranger, bit munted" is a car)
    r"(?!(?:drive|drives|own|ride|have|got)\b)"
    r"([a-z]+(?: [a-z]+){0,2}?)"
    r"(?=$| ?[,.!;:]| by trade\b| for (?:(?:over|about|almost|nearly|around) )?(?:\d+|a|\w+) (?:years?|decades?)\b|"
    r" since (?:(?:19|20)\d\d|the \d0s|i was)\b)"
)
# what names the words before it a job, whatever they are: "Scheidsrechter, that's my job"
_SAID_A_JOB = re.compile(r"(?:,? (?:that is|is|thats) (?:my|the) (?:job|trade|work|profession)| by trade)\b")
# "fav", "fave": favourite
_FAV = re.compile(r"\bfave?\b")
# "my favorite" said without "my": "favorite book is pride and prejudice"
_BARE_FAVOURITE = re.compile(
    r"(?:^|(?<=[:.!;] ))(?:all time |absolute |personal )?favou?rite (?=[a-z]+(?: [a-z]+)? (?:ever |of all time )?(?:is|are) )"
)
# a note with no verb: "fave band arctic monkeys, saw em live" (a category one has favourites of)
_FAVOURITE_BARE_NOTE = re.compile(
    r"^(?:my )?(?:all time )?favou?rite (season|movie|film|band|book|food|color|colour|sport|team|song|show|drink|"
    r"singer|artist|album|group|dish|snack|dessert|cuisine|poet|author|player|city|game) "
    r"(?!(?:is|are|was|of|ever|has|will|would|to|for|in|at|because|and|but|right|now|these|this|that)\b)(?=[a-z])"
)
# the team one supports, said as fans say it: "I am a committed supporter of Arsenal Football
# Club", "Kotoko supporter.", "Celtic season ticket since I was 12", "I support FC Porto, always",
# "fan of GKS Katowice since small boy, every match I go", "CHIVAS till i die ... even when they
# lose". "Fan of", "I support" and "till I die" name a team only among words of sport (not "I
# am a fan of jazz", "I support my sister"); "supporter of" and a season ticket always do.
_SPORT = re.compile(
    r"\b(?:fc|afc|sc|cf|football|soccer|match|matches|league|stadium|derby|goals?|kit|jersey|cup|"
    r"united|rovers|athletic|wanderers|hail hail|relegat\w*|ultras|home games?|away games?|"
    r"season tickets?|basketball|cricket|hockey|rugby|baseball|ipl|nba|nfl|mlb|nhl|premier league|serie a|"
    r"la liga|bundesliga|playoffs?)\b"
)
# a team's results: enough for "Chivas till I die, even when they lose", not for "fan of"
_RESULTS = re.compile(r"\b(?:lose|loses|lost|losing|win|wins|won|winning|beat|beaten|draw)\b")
_SUPPORTER = (r"(?:a |an )?(?:(?:big|huge|massive|committed|loyal|lifelong|life long|die hard|diehard|devoted|"
              r"proud|true|long time|longtime|passionate|season ticket holding|\w+ly) )*")
_TEAM_ALWAYS = (
    (re.compile(rf"\bi (?:am|have been|was|will always be) {_SUPPORTER}supporter of (?:the )?"),
     "my favorite team is "),
    (re.compile(r"^(?!(?:a|an|the|big|huge|my|no|not|proud|lifelong|loyal|die hard|diehard)\b)"
                r"([a-z][a-z ]{0,25}?) (?:supporter|season ticket(?: holder)?)(?: (?:since|for|till|until)\b|[,.!]|$)"),
     r"my favorite team is \1, "),
    (re.compile(r"\bi (?:have|hold) (?:a |had a )?season ticket (?:at|for) (?:the )?"), "my favorite team is "),
    (re.compile(r"^(?:a )?season ticket(?: holder)? (?:at|for) (?:the )?"), "my favorite team is "),
    # a club said alone by its name: "Barnsley FC, always have been", "FC Porto."
    (re.compile(r"^((?:fc|afc) [a-z]+(?: [a-z]+)?|[a-z]+(?: [a-z]+)? (?:fc|afc|united|rovers|wanderers|hotspur|albion))"
                r"(?=$|[,.!])"), r"my favorite team is \1"),
)
_TEAM_IN_SPORT = (
    (re.compile(rf"\bi (?:am|have been|was|will always be) {_SUPPORTER}fan of (?:the )?"), "my favorite team is "),
    (re.compile(r"\bi (?:(?:am|still|always|have always|proudly|only|also|do|of course) )*(?:support(?:ed|ing)?|"
                r"cheer(?: for| on)?|root for) (?:the )?"
                r"(?!(?:my|our|his|her|their|him|them|you|it|this|that|a|an|each|people|family|local|for|on)\b)"),
     "my favorite team is "),
    (re.compile(r"^(?!(?:a|an|the|big|huge|my|no|not|i)\b)([a-z][a-z ]{0,25}?) fan\b"), r"my favorite team is \1,"),
    # "my team is Maritimo, every home match": among words of sport (not a team at work)
    (re.compile(r"\bmy (?:football |soccer |footy )?team is (?!(?:a|an|the|small|great|amazing|awesome|good|"
                r"remote|busy|\d+|[a-z]+ people)\b)"), "my favorite team is "),
)
_TEAM_FOR_LIFE = (
    (re.compile(r"^(?!(?:a|an|the|big|huge|my|no|not|i)\b)([a-z][a-z ]{0,25}?) (?:for life|till i die|"
                r"until i die|til i die|to the death|through and through)\b"),
     r"my favorite team is \1,"),
)
# the best of a category is the favourite: "fall is the best season, hands down", "the matrix is
# the greatest movie ever made", "summers the best season" (a category of things one can have a
# favourite of, so that "my boss is the best person" is none)
_FAVOURITE_CATEGORIES = (
    "season|movie|film|band|book|food|color|colour|sport|team|song|show|drink|animal|game|singer|"
    "artist|album|holiday|city|meal|dish|snack|dessert|flower|car brand|cuisine|genre"
)
_BEST_OF = re.compile(
    rf"^(?!(?:this|that|it|he|she|they|there)\b)([a-z][a-z ]{{0,30}}?)(?: is| are| was|s)?"
    rf"(?: (?:by far|easily|hands down|definitely|simply|honestly|just|still))? (?:the|my) "
    rf"(?:best|greatest|finest|number one|top) ({_FAVOURITE_CATEGORIES})(?: ever(?: made| invented| written| recorded)?| of all time)?"
    rf"(?=$|[,.!?;]| hands down| for me| in the world| by far| no contest)"
)
# "navy blue is my color", "autumn is my season", "Lavender has always been my color": the
# favourite of a category said without it (not one's own people: "my kids are my team")
_MINE = re.compile(r"^(?!(?:my|our|his|her|their|the|these|those|they|he|she|we|i|it|this|that|there)\b)"
                   r"([a-z][a-z ]{0,30}?),? (?:is|are|has always been|will always be|has been) "
                   r"(?:totally |definitely |always |really |still )?my (color|colour|season|team|drink|tipple|song|poet|"
                   r"singer|dish)\b(?! (?:is|are|was|has|have)\b)")
# the same with a ranking word, for any category one has favourites of: "nyama choma with
# kachumbari is my number one food", "the river between is my best book"
_MINE_RANKED = re.compile(rf"^([a-z][a-z ]{{0,40}}?) (?:is|are) my (?:number one|no 1|top|best|all time) "
                          rf"({_FAVOURITE_CATEGORIES})\b")
_CONTACT_NOTE = re.compile(
    r"^(?:my )?((?:new |current |mobile |cell |home |personal )*(?:phone|number|mobile|cell|e ?mail|"
    r"mail)(?: number| address)?) ?[:=-]+ ?(?=[a-z0-9+])"
)


# notes and favourites said another way, rewritten (in this order) into the sentence the
# patterns read: "Favorite color? Blue." -> "my favorite color is blue"
# the misspellings of the words that tell a topic, as chat writes them: one fix here instead of
# one alternative in every pattern ("been divorsed ten years", "vegitarian 20 yrs now")
_SPELLING = {
    "divorsed": "divorced", "divorse": "divorce", "devorce": "divorce", "devorced": "divorced", "divoced": "divorced", "divored": "divorced",
    "marryed": "married", "maried": "married", "marred": "married", "merried": "married",
    "engadged": "engaged", "engauged": "engaged", "enganged": "engaged", "seperated": "separated", "seprated": "separated",
    "widdowed": "widowed", "widowd": "widowed", "finace": "fiance", "fiancé": "fiance", "fiancée": "fiancee",
    "vegitarian": "vegetarian", "vegeterian": "vegetarian", "vegatarian": "vegetarian",
    "vegitarien": "vegetarian", "vegetarien": "vegetarian", "retird": "retired", "retierd": "retired",
    "retiered": "retired", "retyred": "retired", "unemployeed": "unemployed", "umemployed": "unemployed",
    "boyfreind": "boyfriend", "girlfreind": "girlfriend", "husbend": "husband", "wif": "wife",
    "retirment": "retirement", "retiremnt": "retirement", "boyfrend": "boyfriend", "girlfrend": "girlfriend",
    "sinlge": "single", "singel": "single", "signle": "single", "sngle": "single",
    "divorcd": "divorced", "devorcd": "divorced", "teachr": "teacher", "techer": "teacher",
    # an old word and a dialect's: "I no longer own a motor car", "Pepperpot is me favourite food"
    "motor car": "car", "motorcar": "car", "me favourite": "my favourite", "me favorite": "my favorite",
    "mi favourite": "my favourite", "mi favorite": "my favorite",
    # parents' forum words: "sahm, toddler and a newborn" (not the town of Saham)
    "sahm": "stay at home mom", "sahd": "stay at home dad",
    "pensionar": "pensioner", "pensionaer": "pensioner",  # Swedish and German: "Pensionär now"
}
_SPELLING_RE = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, _SPELLING), key=len, reverse=True)) + r")\b")

# a question one answers oneself with no: "Married? No. Single.", "Married? No wait. I'm actually
# divorced": the question names the value it denies, so it goes (the answer, if any, stays)
_DENIED_QUESTION = re.compile(
    r"(?:^|(?<=[.!?] ))[a-z][a-z ]{0,30}\? (?:no|nope|nah|not anymore|not any more|not really|not now)"
    r"(?=[.,!]|$| wait\b)[.,!]*(?: wait\b[.,!]*)? ?"
)
# a filler word after "i am" says nothing of the value: "i am actually divorced", "im kinda
# single"; the patterns take their adverbs before the verb (A), so it goes
_FILLER_AFTER_BE = re.compile(
    r"\b(i am|we are|i was) (?:actually|really|honestly|technically|basically|literally|definitely|"
    r"kind of|kinda|sort of|sorta|at the moment|at present) "
)
# "me and Paola have been married": the two of us are "we", whom the patterns read (not "me and
# my girlfriend live together": the partner's word says the status, and would be lost)
_ME_AND = re.compile(r"^(?:me (?:and|n|&) (?!(?:my|the|our|his|her)\b)[a-z]+|me and my ex|(?:my )?[a-z]+ (?:and|&) me) "
                     r"(?=(?:have|are|were|got|had|live|moved|bought|tied|just|recently|finally|both|still)\b)")
# West African pidgin's "to be": "me na taxi man", "i na nurse for general hospital"
_PIDGIN_BE = re.compile(r"(?:^|(?<=, ))(?:me|i) na (?=[a-z])")
_TAXI_MAN = re.compile(r"\b(?:taxi|cab) ?man\b")
# a form's line for the car: "Car ownership: none.", "car: nope"
_NO_CAR_NOTE = re.compile(r"^(?:car|vehicle|car ownership|vehicle ownership|own car|wheels) ?[:=-]+ ?"
                          r"(?:none|no|nope|nil|zero|n a|not applicable)\b")
# "every. single. day." says how often, not a status
_EVERY_SINGLE = re.compile(r"\bevery[.!,]* single[.!,]* (?=(?:day|night|time|week|morning|evening|one|weekend)\b)")
# a form's line for the job: "job: delivery rider", "occupation=nurse"
_JOB_FIELD = re.compile(r"^(?:my )?(?:(?:current|new|day|main) )?(?:(?:job|occupation|profession|line of work|trade)"
                       r"(?: title)? ?[:=-]+ ?|(?:occupation|profession), )(?=[a-z])")  # "Occupation - nurse"
# "Me I'm a nurse ba": the subject said twice
_ME_I = re.compile(r"^(?:me|myself),? (?=i (?:am|work|do|have|live|drive)\b)")
# the team named, then called one's own: "Leicester City, my team through thick and thin"
_MY_TEAM = re.compile(r"^(?!(?:my|our|the|his|her|their|these|those|they|he|she|we|i|it|this|that)\b)"
                      r"([a-z][a-z ]{1,30}?),? (?:is |are )?my (?:team|club|side)\b(?! (?:is|are|was|has|have|at|won|lost)\b)")
# the favourite named after it: "that's my favorite food, gumbo" (a filler is no value: "that's my
# favorite band, honestly, the Beatles")
_FAVOURITE_THEN = re.compile(r"^(?:that|this|it) is (?:(?:definitely|easily|still|always) )?my (?:all time )?favou?rite "
                             rf"([a-z]+(?: [a-z]+)?), (?:{_FILLERS},? )*(?=(?!{_FILLERS}\b)[a-z])")
# "they're my number one band", "my no 1 food": a favourite by its rank
_NUMBER_ONE = re.compile(r"\bmy (?:number one|no 1|top|#1) (?=(?:band|food|movie|film|book|song|team|singer|artist|show|"
                         r"season|drink|dish|colou?r|game|sport|player|poet|author|writer|album|meal)\b)")
# a season with praise and no category: "spring's my favourite, when the kowhai flowers", "winter,
# no contest", "autumn is hands down my favourite"
_SEASON_FIRST = re.compile(r"^(spring|summer|autumn|fall|winter)(?: is| s)?(?: (?:hands down|definitely|easily|always|"
                           r"by far|still|honestly))? my (?:all time |absolute )?favou?rite(?= season\b| time of|$|[,.!;]| by far\b)"
                           r"(?: season)?|^(spring|summer|autumn|fall|winter),? (?=no contest\b|all the way\b|every time\b|"
                           r"hands down\b)")
# the one food one would keep: "if i could only eat one food forever itd be sushi"
_ONE_FOOD = re.compile(r"\bif i could (?:only )?eat (?:only )?one (?:food|thing|dish|meal)(?: forever| for the rest of my life|"
                       r" for life)?,? (?:it would be|it d be|itd be|it s|it is|i would pick|i d pick) ")
# a favourite's note with its category after the value: "zubeen garg = fav singer"
_FAVOURITE_AFTER_VALUE = re.compile(r"^(?!(?:my|our|the|his|her|their|i|it|this|that)\b)([a-z][a-z ]{1,30}?) = favorite "
                                    r"(singer|band|food|dish|drink|movie|film|book|song|team|season|colou?r|show|poet|"
                                    r"author|writer|album|artist)(?=$|[,.!;])")
_NOTE_REWRITES = (
    (_DENIED_QUESTION, ""),
    (_SEASON_FIRST, lambda m: f"my favorite season is {m.group(1) or m.group(2)},"),
    (_ONE_FOOD, "my favorite food is "),
    (_FAVOURITE_AFTER_VALUE, r"my favorite \2 is \1"),
    (_NUMBER_ONE, "my favorite "),
    (_FAVOURITE_THEN, r"my favorite \1 is "),
    (_MY_TEAM, r"my favorite team is \1,"),
    (_JOB_FIELD, "my job is "),
    (_ME_I, ""),
    (_EVERY_SINGLE, "every "),
    (_ME_AND, "we "),
    (_PIDGIN_BE, "i am "),
    (_TAXI_MAN, "taxi driver"),
    (_NO_CAR_NOTE, "i have no car"),
    (_FILLER_AFTER_BE, r"\1 "),
    (_FAVOURITE_NOTE, r"my favorite \1 is "),
    (_CONTACT_NOTE, r"my \1 is "),
    (_FAVOURITE_AFTER, r"my \2 is \1"),
    (_FAVOURITE_NOTE_AFTER, r"my favorite \2 is \1."),
    (_NAMED_BEFORE, lambda m: f"my favorite {m.group(2) or m.group(3)} is {m.group(1)}"),
)
_FAVOURITE_REWRITES = (
    (_BARE_FAVOURITE, "my favorite "),
    (_FAVOURITE_BARE_NOTE, r"my favorite \1 is "),
    (_MINE, r"my favorite \2 is \1 "),
    (_MINE_RANKED, r"my favorite \2 is \1 "),
    (_BEST_OF, r"my favorite \2 is \1 "),
)


@lru_cache(maxsize=16384)
def find_slots(text: str) -> tuple[SlotMatch, ...]:
    """Every single-value slot that `text` speaks about: explicit statements first, then in
    `SLOTS` order.

    A sentence can fill two slots ("I drive a big truck and live in the country": car and
    residence), so this returns all of them; `detect_slot` picks one.
    """
    norm = _FAV.sub("favorite", without_lead_in(in_english(normalise(text))))
    norm = _SPELLING_RE.sub(lambda m: _SPELLING[m.group(0)], norm)
    for pattern, replacement in _NOTE_REWRITES:
        norm = pattern.sub(replacement, norm)
    job = _JOB_NOTE.match(norm)
    if (job is not None and " " not in job.group(1) and not is_profession(job.group(1))
            and norm.startswith(", ", job.end()) and _GLOSS_DASH.search(text) and canonical_place(job.group(1)) is None):
        # a trade in one's own word, glossed after a dash: "Kaminkehrer - chimney sweep, 20 years"
        gloss = _JOB_NOTE.match(norm[job.end() + 2:])
        if gloss is not None and is_profession(gloss.group(1)):
            norm = norm[job.end() + 2:]
            job = gloss
    if job is not None and is_profession(job.group(1)) and (
            " " in job.group(1) or _one_word_trade(job.group(1)) or _SAID_A_JOB.match(norm, job.end())):
        norm = f"i am a {job.group(1)}{norm[job.end():]}"
    for pattern, replacement in _FAVOURITE_REWRITES:
        norm = pattern.sub(replacement, norm)
    if "favorite team" not in norm:
        norm = _team_supported(norm)
    found = _find_slots_normalised(norm)
    bare = without_lead_in(norm)  # (once: the readings of a message's head below all start from it)
    if not found and "(" in norm:
        # an aside read past: "Little Rock (Hillcrest, specifically, the cute part)." is a home
        found = _find_slots_normalised(_ASIDE.sub("", norm))
    if (_DAILY_WORK.search(norm) or _WORK_HOURS.search(norm)) and not any(match.slot == "job" for match in found):
        deeds = deed_professions(norm)
        if len(deeds) == 1:
            found = (*found, SlotMatch("job", next(iter(deeds)), hint=False, position=len(norm)))
    if not any(match.slot == "job" for match in found):
        work = _work_done(bare)
        if work is not None:
            found = (*found, SlotMatch("job", work, hint=False, position=len(norm)))
    if not any(match.slot == "relationship" and not match.hint for match in found):
        loss = _NAMED_LOSS.search(norm)
        # a name as written (capitalised), or any word with a loss felt ("since mary passed
        # it's a lonely old house"); "lost my ..." always with it (not "I lost my Nokia")
        if (loss is not None and not _NOT_A_PARTNER.search(norm) and loss.group("who") not in _NOT_NAMES
                and (loss.group("who") in names(text) and not loss.group(0).startswith("lost")
                     or _MISSED.search(norm))):
            found = (*found, SlotMatch("relationship", "widowed", hint=False, position=loss.start()))
    found = _couple_unmarried(_widowed_after(found, norm), norm)
    if _HYPERBOLE_HOME.search(norm):  # (a city said so is still one's home: "I basically live in Berlin now")
        found = tuple(match for match in found if match.slot != "residence" or places_in(match.value or ""))
    if _POINTED_HOME.search(norm) and not any(match.slot == "residence" for match in found):
        cities = set(places_in(norm))
        if len(cities) == 1:
            found = (*found, SlotMatch("residence", cities.pop(), hint=False, position=len(norm)))
    if not any(match.slot == "car" for match in found):
        car = _CAR_FIRST.match(bare)
        if car is not None and re.fullmatch(_PLACE_MODELS, car.group("value")) is None and not _NOT_CAR_FIRST.search(norm):
            found = (*found, SlotMatch("car", car.group("value"), hint=False, position=0))
    if not any(match.slot == "residence" for match in found):
        home = _town_first(bare)
        if home is not None:
            found = (*found, SlotMatch("residence", home, hint=False, position=0))
    return found


# a town said first and alone, the rest about life there: "Terneuzen. Zeeuws-Vlaanderen, yes that is
# still the Netherlands", "Note: Stuttgart, down in the Kessel", "Moin. Rostock, the Warnemunde
# end of it". A known town only, not one whose name is also a word or a name ("reading"), and not
# with words of a trip, a team, a film or someone else's life ("Benfica. Since always.",
# "casablanca, i could watch it a hundred times", "Torun - grandson, 2 years old")
_TOWN_FIRST = re.compile(
    r"^(?:(?:moin|hi|hello|hey|hiya|howdy|salam|salaam|namaste|julley|ciao|hola|ola|bonjour|servus|kia ora|"
    r"mabuhay|greetings)[.!,]* )?(?P<town>[a-z][a-z ]{1,30}?)(?: (?:now|these days|nowadays|again|for good|too))?"
    r"(?=$| ?[.!,;\u2026]| \.\.\.| [\u2600-\u27bf\U0001f000-\U0001faff])"
)
_NOT_TOWN_FIRST = re.compile(
    r"\b(?:trip|visit|visiting|visited|holidays?|vacation|honeymoon|went|flew|tour|conference|weekend|"
    r"match|team|fans?|game|league|cup|derby|stadium|club|supporters?|film|movie|watch|watching|"
    r"grandson|granddaughter|son|daughter|kids?|left|used to|miss it|someday|one day|dream|wish|"
    r"born there|grew up there|since always|in the blood)\b"
)


# a car said first and alone, the rest about it: "GMC Sierra 2500, bed full of tools", "Mercedes.
# E-class. Twenty years old." (not a model named for a town: "Tacoma, beat up" may be a home; not
# a maker one works for or a car one only wants or rents: "Toyota. 12 years on the line")
_CAR_FIRST = re.compile(
    rf"^(?:(?:{_CAR_ADJECTIVES}) ){{0,2}}(?P<value>(?:{CAR_BRANDS})(?: (?!(?:and|but|is|was|has)\b)[a-z0-9]+){{0,2}}|"
    rf"(?:{CAR_NAMES})(?: [a-z0-9]+)?)(?= ?[,.!;]|$)(?! ?, ?[a-z ]+:)"  # (not one addressed: "smart alec: ...")
)
_NOT_CAR_FIRST = re.compile(
    r"\b(?:work|works|worked|job|line|plant|factory|dealer|dealership|salesman|shifts?|employer|shares|stock|"
    r"rent|rented|rental|hire|hired|borrow|borrowed|dream|want|wants|wish|someday|one day|test drive|fan|team|"
    r"formula|f1|race|racing|ad|advert)\b"
)


def _town_first(norm: str) -> str | None:
    """The town a message opens with, alone, as one's home (see _TOWN_FIRST), or None."""
    found = _TOWN_FIRST.match(norm)
    if found is None or _NOT_TOWN_FIRST.search(norm):
        return None
    return plain_place(found.group("town"))


# a dash between spaces, after the first word: a gloss of that word follows
_GLOSS_DASH = re.compile(r"^\W*\w+ [\u2012-\u2015-] ")
# a remark in brackets, left out when the sentence is read without it
_ASIDE = re.compile(r" ?\([^()]*\)")


# one's own person lost, named by a first name alone: "since my Inge died in 2020 i am alone",
# "Lost my Jim four years ago", "My Harold passed four winters ago" (the name capitalised as
# written; not a pet's: "our dog Max died")
_NAMED_LOSS = re.compile(
    r"(?:\bsince my|\bmy|\blost my|\bsince) (?:(?:dear|beloved|late|sweet|darling|dearest) )?(?P<who>[a-z]+)(?: "
    + _PASSED + r"\b| (?=(?:in (?:19|20)\d\d|last (?:year|spring|summer|autumn|fall|winter)|(?:\w+ ){1,2}(?:ago|back))\b))"
)
# what is said of a person missed, for a loss told without a death ("Lost my Jim four years ago.
# Still set out two cups"; not "I lost my Nokia last year")
_MISSED = re.compile(r"\b(?:alone|lonely|miss (?:him|her)|two cups|grave|funeral|widow|widower|rest in peace|"
                     r"god rest|his (?:chair|armchair|side)|her (?:chair|armchair|side)|(?:so |too )?quiet now|"
                     r"empty house|too big now|house is (?:so )?(?:quiet|empty))\b")
_NOT_NAMES = frozenset({"he", "she", "it", "they", "then", "that", "this", "time", "life", "one", "old", "own", "the",
                        "a", "an", "work", "job", "business", "company", "phone", "car", "house", "plant", "garden"})
_NOT_A_PARTNER = re.compile(r"\b(?:dog|cat|puppy|kitten|horse|pony|parrot|bird|rabbit|hamster|goldfish|pet|budgie|tortoise|"
                         r"dad|mum|mom|father|mother|brother|sister|son|daughter|grandma|grandpa|granny|nan)s?\b")


# the partner of a marriage just told of, dead since: "Emir and I married in '85 ... He died four
# years ago" (no one else named who could have died: not "my dad died")
_PARTNER_DIED = re.compile(rf"\b(?:he|she) (?:{_PASSED}|was taken from (?:me|us)\b)")


def _widowed_after(found: tuple[SlotMatch, ...], norm: str) -> tuple[SlotMatch, ...]:
    """A marriage told and then the partner's death is a widow's status, not a married one."""
    for index, match in enumerate(found):
        if match.slot == "relationship" and match.value == "married" and not match.hint:
            died = _PARTNER_DIED.search(norm, match.position)
            if died is not None and not _NOT_A_PARTNER.search(norm):
                return (*found[:index], replace(match, value="widowed", position=died.start()), *found[index + 1:])
    return found


# "not married" said of a couple: "not married, just together 8 yrs", "Not married, don't see the
# point, but we're solid" (a partner, not single)
_UNMARRIED = r"\b(?:not married|never married|unmarried|no wedding|no papers|no (?:hurry|rush) (?:for|to get|on) (?:a |the )?(?:wedding|married))\b"
_COUPLE = (r"\b(?:together|partner|we are solid|we are good|boyfriend|girlfriend|bf|gf|fella|feller|my man|sweetheart|"
           r"my woman|novio|novia|compa)\b")
_UNMARRIED_COUPLE = re.compile(rf"{_UNMARRIED}(?=.*{_COUPLE})|{_COUPLE}.*{_UNMARRIED}")
_NOT_TOGETHER = re.compile(r"\b(?:not|no longer|never) (?:together|with (?:a|my) partner)\b|\bno (?:partner|boyfriend|girlfriend)\b")
# a place one all but lives in is no home: "dig season I basically live in a trench at Dimini",
# "I practically live at the gym" (unless it names a town)
_HYPERBOLE_HOME = re.compile(r"\b(?:basically|practically|pretty much|virtually|might as well|all but|"
                             r"more or less) (?:live|living|lives) (?:in|at|on)\b")


# a couple together for years, no marriage named anywhere in the message: "Luc and I have been
# together six years", "me and my fella Kieran have been together 2 years", "3 years together,
# nobody in a hurry to marry" (not a band, a team or friends; not "My husband ... Fifty three
# years together": a marriage)
_YEARS_TOGETHER = re.compile(
    rf"(?:(?:\b(?:[a-z]+ (?:and|&|n) (?:i|me)|me (?:and|&|n) (?:my )?[a-z]+(?: [a-z]+)?|(?:i|we))|(?:^|[,.!?;] )(?=been\b))"
    rf" ?(?:have |are |were |r )?(?:been )?together(?: for| since)? ~?(?:\d+|{NUM}|a few|a couple of) (?:years?|yrs?|months?)\b|"
    rf"(?:^|[,.!?;] | (?:are|r|been|we) )(?:\d+|{NUM}) (?:years?|yrs?) together\b)"
)
_NOT_A_COUPLE = re.compile(r"(?<!\bnot )(?<!\bno )(?<!\bnever )\b(?:married|marriage|wife|husband|hubby|wed|wedding|(?:golden|silver|ruby|diamond|pearl) "
                           r"anniversary|spouse|missus|band|friends?|mates)\b")


def _couple_unmarried(found: tuple[SlotMatch, ...], norm: str) -> tuple[SlotMatch, ...]:
    """A couple that is not married is partnered: the "not married" alone would read as single,
    and "we're not married" or "together 6 years, no wedding" as nothing."""
    if not _UNMARRIED_COUPLE.search(norm) or _NOT_TOGETHER.search(norm):
        if (not any(match.slot == "relationship" and not match.hint for match in found)
                and (together := _YEARS_TOGETHER.search(norm)) is not None and not _NOT_A_COUPLE.search(norm)):
            found = (*(match for match in found if match.slot != "relationship"),  # (over a hint: "my boyfriend")
                     SlotMatch("relationship", "in a relationship", hint=False, position=together.start()))
        return found
    for index, match in enumerate(found):
        if match.slot == "relationship" and match.value == "single":
            return (*found[:index], replace(match, value="partnered", negative=False), *found[index + 1:])
    if not any(match.slot == "relationship" for match in found):
        return (*found, SlotMatch("relationship", "partnered", hint=False, position=_UNMARRIED_COUPLE.search(norm).start()))
    return found


# a home told by pointing at the one town the message names: "Tirana at dusk ... remember this is
# the city where I live", "Ludhiana traffic today ... where else would I live, it's home"
_POINTED_HOME = re.compile(
    r"\bthis is (?:the|my) (?:city|town|village|place) (?:where )?(?:i|we) (?:live|call home|belong)\b|"
    r"\bthis (?:city|town|village) is (?:my |our )?home\b|\bwhere else would (?:i|we) live\b|\bthis is home\b|"
    # "Freetown has changed so much ... Still, it's home and I never left"
    r"\bit is (?:still )?(?:my |our )?home\b(?! (?:made|time|grown|cooked|for|to|from|with|alone|soon)\b)"
)


# a trade no table knows, told as what one does at work: "I polish amber. At the kombinat ...
# all day", "Me I pour bronze ... every day God gives", "I fix mobile phones, small shop in the
# bazaar", "I pole bamboo raft ... tourists sit". The value is the work itself ("polish amber"):
# another job is another value. Only with words of work (a workplace, customers, hours, shifts,
# for a living; "all day" or "every day" only for a verb that is seldom a pastime), never with
# words of leisure ("on weekends", "for fun", "after work"), and never for the verbs of
# pastimes, wants, habits and talk.
_WORK_VERB_NOT = (
    r"play|watch|read|game|scroll|sleep|binge|chill|relax|nap|listen|text|dream|think|sit|lie|lay|worry|eat|"
    r"drink|love|like|enjoy|hate|go|went|have|had|am|was|walk|run|cook|bake|get|got|take|took|make|do|did|"
    r"need|want|wish|hope|miss|see|saw|feel|try|keep|spend|still|also|just|really|never|always|usually|often|"
    r"mostly|only|can|could|will|would|should|must|say|said|tell|told|know|call|visit|live|stay|grew|used|own|"
    r"drive|ride|support|follow|root|cheer|pray|meditate|swim|hike|cycle|bike|jog|climb|dance|sing|collect|"
    r"knit|sew|draw|write|garden|fish|hunt|volunteer|help|teach|coach|train|study|learn|speak|use|buy|bought|"
    r"start|started|quit|left|moved|came|lift|prefer|guess|send|pass|skateboard|literally|honestly|basically|"
    r"probably|mean|swear|bet|adore|lose|lost|spent|pay|paid|wake|woke|commute|travel|shower|check|chat|"
    r"talk|post|stream|practice|practise|exercise|workout|don|dont|didnt|cant|wont|feed|brew|grow|tend|raise|"
    r"look|care|babysit|host|organise|organize|smoke|vape|shop|hang|meet|met|bring|carry|wear|put|let|give|"
    r"work|works|fall|hear|smell|taste|wait"
)
_WORK_DONE = re.compile(
    r"(?:^|[.!?;:,] |\bme |^(?:\w+ )?hours? a day )i (?!(?:" + _WORK_VERB_NOT + r")\b)(?![a-z]+ed\b)(?P<verb>[a-z]{3,}) "
    r"(?P<obj>(?:[a-z0-9]+ ){0,3}[a-z0-9]+)"
)
_WORK_WORDS = re.compile(
    r"\b(?:at the (?:\w+ ){0,3}?(?:yard|factory|plant|mill|market|stall|workshop|site|kombinat|depot|warehouse|"
    r"port|docks|mine|quarry|hotel|restaurant|salon|clinic|bazaar|manufaktur|smelter|refinery|line|counter|till)|"
    r"my (?:stall|booth|trawler|cab|taxi|counter)|small shop|customers|clients|tourists|passengers|"
    r"for a living|(?:\d+|eight|ten|twelve|nine|six) hours? (?:a|per) (?:day|shift)|\d+ ?hour shifts?|"
    r"\bshifts?\b|per piece|on the job|foreman|my supervisor|"
    # a wage: "650 taka a day if foreman is happy", "200 rupees per load"
    r"\d+ (?:taka|rupees?|rs|dollars?|bucks|euros?|pesos?|naira|shillings?|cedis?|som|manat|soles|reais|rand|"
    r"yuan|baht|dong|kip|lari|dinars?|dirhams?) (?:a|per) (?:day|shift|load|piece|week|trip)|"
    r"on the (?:\w+ ){0,2}?(?:yard|shop floor|line|docks|site|rigs?))\b"
)
_WORK_DAYS = re.compile(r"\b(?:all day|every day|whole day|day in day out|every night from)\b")
_LEISURE_WORDS = re.compile(
    r"\b(?:for fun|hobby|weekends?|spare time|free time|days off|day off|after work|at home|on my breaks?|"
    r"in my garden|my (?:own )?(?:garage|shed|backyard|workshop)|retired|retirement|kids|grandkids|"
    r"after (?:a |my |the |every )?(?:long |night |day )?shifts?)\b"
)
# the verbs of a thing often done for pleasure: only with words of work ("I paint trucks ... at
# the yard"), not with "every day" alone ("I paint every day")
_PASTIME_LIKE = frozenset("paint carve build fix repair weave polish restore".split())
_WORK_FILLERS = frozenset("the a an my our some all of on in at up to for with and from like maybe about over it them".split())
_PLACE_PREPOSITIONS = frozenset("in at on for with from to by under near".split())
_WORK_TIMES = frozenset("day days night nights every morning mornings evening week weekend shift shifts hours".split())


def _work_done(norm: str) -> str | None:
    """The work a sentence tells as one's own trade ("polish amber"), or None (see _WORK_DONE)."""
    if _LEISURE_WORDS.search(norm):
        return None
    strong = _WORK_WORDS.search(norm) is not None
    if not strong and _WORK_DAYS.search(norm) is None:
        return None
    found = _WORK_DONE.search(norm)
    if found is None or not strong and found.group("verb") in _PASTIME_LIKE:
        return None
    if any(_listed_profession(word) for word in norm.split() if len(word) > 3):
        return None  # a trade named too ("i count pills all day, pharmacist at ..."): that is its value
    words: list[str] = []
    for word in found.group("obj").split():
        if word in _WORK_TIMES or words and word in _PLACE_PREPOSITIONS:
            break  # "I clean teeth all day", "I pour bronze in the old quarter": the work ends there
        if word not in _WORK_FILLERS and not word.isdigit():
            words.append(word)
    words = words[:2]
    return " ".join([found.group("verb"), *words]) if words else None


# one's own work told as one's days: "I fix cars all day in my garage", "I weld pipes all day,
# TIG mostly" (the profession is the deed's, slots.deed_professions; not a pastime: "I play")
_DAILY_WORK = re.compile(
    r"(?:^|[,:.;] |\band |\bbut )(?:i|we) (?!(?:play|watch|read|game|scroll|sleep|binge|chill|relax|nap|"
    r"listen|text|dream|think|sit|lie|lay|worry|eat|drink)\b)[a-z]+ (?:[a-z]+ ){0,6}?"
    r"(?:(?:all|the whole|whole) (?:day|night|shift|week)|for a living|day in day out|every (?:day|night|shift)|"
    r"from \d+ ?am|till (?:night|late)|on the job|at work)\b"
)


# the hours of a working day, said without "I": "hanging IV bags and passing meds til 7am", "caught
# three babies before sunrise", "double shift again" (with the one trade its deeds name)
_WORK_HOURS = re.compile(
    r"\b(?:(?:double|night|day|late|early|graveyard|split|long|\w+ hour) shifts?|shifts? (?:again|tonight|today)|"
    r"on call|twelves|clocked (?:in|out|on|off)|(?:til|till|until) (?:dark|close|closing|\d+ ?(?:am|pm))|"
    r"before sunrise|before dawn|my route|back to back)\b"
)


def _team_supported(norm: str) -> str:
    """`norm` with the first way a fan names their team rewritten as "my favorite team is"."""
    sport = _SPORT.search(norm) is not None
    results = sport or _RESULTS.search(norm) is not None
    for pattern, replacement in _TEAM_ALWAYS + (_TEAM_IN_SPORT if sport else ()) + (_TEAM_FOR_LIFE if results else ()):
        rewritten, n = pattern.subn(replacement, norm, count=1)
        if n:
            return rewritten
    return norm


def detect_slot(text: str) -> str | None:
    """The main single-value slot of `text`, or None: an explicit statement before a mere
    mention, then the first in `SLOTS` order. This is what the memory service stores as
    Memory.slot and searches by."""
    found = find_slots(text)
    return found[0].slot if found else None


def slot_value(text: str, slot: str) -> str | None:
    """The value `text` gives for `slot`, as written ('london', 'vw golf', 'vegan'), or None.

    Useful for the curator and for wording a re-check question ("Do you still live in London?").
    None when the text does not speak about the slot or names no value ("I quit my job").
    """
    for found in find_slots(text):
        if found.slot == slot:
            return found.value
    return None


def _rule_of(slot: str) -> SlotRule | None:
    if slot in SLOTS:
        return SLOTS[slot]
    return SLOTS["favorite_{cat}"] if slot.startswith("favorite_") else None


# a status said without a pattern's shape, for a topic only the vectors named ("flying solo
# these days", "the missus and i been hitched since 1980"): the unanchored rows of the table
_IMPLIED_SINGLE = (r"\b(?:single|been solo|solo these days|no (?:boyfriend|girlfriend|partner|one special)|not (?:seeing|dating) "
                   r"(?:anyone|anybody|someone)|flying solo|unattached|solteira|soltero|soltera|no (?:man|woman) in my life)\b",
                   "single")
# a marriage by its wedding, vows or anniversary, when no pattern read a status: "me and gennaro
# we make the wedding in 2015", "renewed our vows", "our golden anniversary"
_IMPLIED_MARRIED = (r"\b(?:wedding (?:day|ring|band|anniversary)|our vows|we vows|wedding in (?:19|20)\d\d|"
                    r"(?:since|after) our (?:wedding|nikah|big day)|our nikah|"
                    r"(?:silver|golden|ruby|pearl|diamond|\d+(?:st|nd|rd|th)) (?:wedding )?anniversary)\b", "married")
_IMPLIED: dict[str, tuple[tuple[str, str], ...]] = {
    "relationship": (_IMPLIED_SINGLE, *(row for row in _RELATIONSHIP_VALUES if not row[0].startswith("^")),
                     _IMPLIED_MARRIED),
    "diet": (
        (r"\b(?:vegan|plant based|(?:no|zero) animal products)\b", "vegan"),
        (r"\b(?:vegetarian|veggie|meat free|meatless|(?:no|zero) meat)\b", "vegetarian"),
        (r"\b(?:pescatarian|pescetarian)\b", "pescatarian"),
        (r"\b(?:omnivore|carnivore|eat (?:everything|anything))\b", "omnivore"),
    ),
}


_NOT_A_TOWN = re.compile(r"\b(?:not|never|no) (?:in )?[a-z]+(?: [a-z]+)?(?=$|[,.!;])")


def implied_value(slot: str, text: str) -> str | None:
    """The value a fact's words imply for a topic its patterns did not capture (the vectors or
    the stored slot named it), in the form values are compared in: a status or diet by its
    telling word, a home by the one city it names; None when the words do not say."""
    if slot == "residence":
        # (a town said with "not" is none: "only real in Yangshuo, not Guilin, not Beijing")
        cities = set(places_in(_NOT_A_TOWN.sub(" ", normalise(text)), ambiguous=True))
        return cities.pop() if len(cities) == 1 else None
    norm = normalise(text)
    for pattern, canonical in _IMPLIED.get(slot, ()):
        if re.search(pattern, norm):
            return canonical
    return None


def canonical_value(slot: str, value: str) -> str:
    """A value in the form values of its slot are compared in ("hubby" -> "married")."""
    rule = _rule_of(slot)
    out = " ".join(value.lower().split())
    return rule.canonical(out) if rule is not None and rule.canonical is not None else out


def same_value(slot: str, a: str | None, b: str | None) -> bool | None:
    """Whether two values of one slot are the same value: True, False, or None when either is
    unknown.

    Same means equal once canonical ("vegetarian" / "no meat"), or one naming the other with
    more detail ("golf gti" / "golf", "florida near the beach" / "florida"): a refinement is not
    a change. Numbers must agree ("34" / "thirty four"; "555 1234" / "555 9999" differ).
    """
    if a is None or b is None:
        return None
    ca, cb = canonical_value(slot, a), canonical_value(slot, b)
    if ca == cb:
        return True
    if "@" in ca or "@" in cb:
        return False
    nums_a, nums_b = numbers(ca), numbers(cb)
    if (nums_a or nums_b) and slot in NUMERIC_SLOTS:
        return nums_a == nums_b
    words_a, words_b = content_words(ca) | nums_a, content_words(cb) | nums_b
    if not words_a or not words_b:
        return False
    if words_a <= words_b or words_b <= words_a:
        return True
    # a typo is not a new value: "detriot" / "detroit", "london" / "londn"
    small, large = sorted((words_a, words_b), key=len)
    return all(any(is_typo_of(word, other) for other in large) for word in small)


_JOB_SYNONYMS = {"rn": "nurse", "lpn": "nurse", "cna": "nurse", "doc": "doctor", "physician": "doctor",
                 "dev": "developer", "programmer": "developer", "coder": "developer", "cop": "officer",
                 # trade slang: "journeyman sparky", "chippy on building sites"
                 "sparky": "electrician", "sparkie": "electrician", "chippy": "carpenter", "chippie": "carpenter",
                 "brickie": "bricklayer", "pharmd": "pharmacist", "hairstylist": "hairdresser",
                 "nurce": "nurse"}
# the work a profession is told by: "i pull wire and fix breaker panels" is an electrician's,
# "doing brake jobs and oil changes" a mechanic's, "i write backend code" a developer's
_DEEDS = tuple((re.compile(pattern), job) for pattern, job in (
    (r"\b(?:pull(?:s|ing|ed)? wire|wir(?:e|es|ing) (?:houses|buildings|homes)|breaker panels?|electrical work)\b",
     "electrician"),
    (r"\bweld(?:s|ing|ed)? (?:\w+ )?(?:pipes?|pipelines?|steel|beams|frames|tanks|joints|trailers|all day)\b",
     "welder"),
    (r"\b(?:take|takes|taking|show|shows|showing|guide|guides|guiding|lead|leads|leading) (?:the |our |my )?"
     r"(?:tourists?|visitors|groups|tour groups|trekkers|hikers|travellers|travelers|guests) "
     r"(?:to|around|through|up|on|into)\b", "tour guide"),
    (r"\b(?:fix(?:es|ing)? cars|brake jobs?|oil changes?|work(?:s|ing)? on cars|repair(?:s|ing)? cars|"
     r"clutch jobs?|under (?:a|the) hood)\b", "mechanic"),
    (r"\b(?:fil(?:e|es|ed|ing) (?:\w+ ){0,2}motions?|depositions?|billable hours|billed \d+ hours|"
     r"discovery requests?|closing arguments?)\b", "lawyer"),
    (r"\b(?:grading (?:papers|essays|tests|exams)|lesson plans?|my (?:students|pupils|class of))\b", "teacher"),
    (r"\b(?:milking|calving|the herd|planting (?:corn|wheat|beans|soy))\b", "farmer"),
    (r"\b(?:doing hair|cuts and colou?rs?|(?:a|my) (?:cut|colou?r) and blow ?dry)\b", "hairdresser"),
    # (not "software": a software engineer writing code for a bank has moved from the startup)
    # (not "a code at 2pm": a hospital's)
    (r"\b(?:writ(?:e|es|ing) (?:\w+ )?code|coding (?:for|at|in)|i code (?:for|at|in)|build(?:s|ing)? (?:\w+ )?apps)\b",
     "developer"),
))


def same_profession(a: str | None, b: str | None) -> bool:
    """Whether two job values name one profession by their head noun: "pediatric nurse" and
    "an rn at a nursing home" are a nurse either way. Weaker than `same_value`: the same job
    said with other detail is a refinement to ask about (Keep both), never a duplicate that is
    not stored (its detail would be lost)."""
    if a is None or b is None:
        return False
    a, b = canonical_value("job", a), canonical_value("job", b)
    head = _job_head(a)
    return head is not None and head == _job_head(b) and not different_fields(a, b)


def different_fields(a: str, b: str) -> bool:
    """Whether two job values name one trade in two fields: "a backend engineer" and "a petroleum
    engineer" are two jobs (not "a nurse" and "an ER nurse": a nurse on another ward is still a
    nurse, so only the trades whose field is the job, _FIELD_TRADES)."""
    head = _job_head(a)
    if head is None or head not in _FIELD_TRADES or head != _job_head(b):
        return False
    fields_a, fields_b = _job_fields(a), _job_fields(b)
    return bool(fields_a and fields_b and not fields_a & fields_b)


# trades whose field, said before them, is the job itself
_FIELD_TRADES = frozenset("engineer scientist analyst designer developer technician manager consultant officer "
                          "researcher specialist operator inspector therapist artist writer agent".split())
# words before a trade that say its rank or standing, not its field
_RANKS = frozenset("senior junior lead head chief principal staff assistant trainee apprentice qualified registered "
                   "certified licensed freelance self employed full part time new former retired young old".split())


def _job_fields(value: str) -> frozenset[str]:
    """The words before a job's head that name its field ("petroleum" of "a petroleum engineer")."""
    words = _NP_BOUNDARY.sub("", _LEADING_ARTICLES.sub("", value)).split()[:-1]
    return frozenset(lemma(word) for word in words if word not in _RANKS)


def _deeds_table() -> tuple[re.Pattern[str] | None, tuple[tuple[re.Pattern[str], str], ...]]:
    """deeds.json beside this file (phrases that tell a profession through its everyday work,
    written from general knowledge by a helper blind to the code and data): one pattern that
    finds any of them, and one per profession. Empty if unreadable."""
    try:
        found = json.loads(Path(__file__).with_name("deeds.json").read_text(encoding="utf-8"))
        table = found["professions"]
        per = tuple(
            (re.compile(r"\b(?:" + "|".join(f"(?:{p})" for p in phrases) + r")\b"), " ".join(job.replace("-", " ").split()))
            for job, phrases in table.items() if phrases
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError, re.error):
        return None, ()
    if not per:
        return None, ()
    return re.compile("|".join(f"(?:{pattern.pattern})" for pattern, _ in per)), per


_ANY_DEED, _TABLE_DEEDS = _deeds_table()
_DEED_TRADES = frozenset(job for _, job in _TABLE_DEEDS)
# the suffixes that make a word a trade whatever its stem ("orthoptist", "phlebotomist"); "-er" and
# "-or" alone also end names and things ("Heather.", "Jupiter.", "Kotor.")
_TRADE_SUFFIXES = ("ist", "ician", "ologist", "grapher", "eer")


def _one_word_trade(word: str) -> bool:
    """Whether a word said alone ("Plasterer.", "Orthoptist.") is a trade: a listed profession, a
    trade of deeds.json, or a word with a suffix that only trades have."""
    return (_listed_profession(word) or word in _DEED_TRADES or lemma(word) in _DEED_TRADES
            or word.endswith(_TRADE_SUFFIXES + _COMPOUND_HEADS) and word not in NOT_JOBS)


def deed_professions(text: str) -> frozenset[str]:
    """The professions a text tells by their work ("hanging IV bags and passing meds til 7am"
    -> {"nurse"}), by the hand-written patterns above and deeds.json; in normalised text."""
    norm = normalise(text)
    out = {job for pattern, job in _DEEDS if pattern.search(norm)}
    if _ANY_DEED is not None and _ANY_DEED.search(norm):
        out.update(job for pattern, job in _TABLE_DEEDS if pattern.search(norm))
    return frozenset(out)


def _title_words(value: str) -> frozenset[str]:
    out = set()
    for word in value.split():
        word = _JOB_SYNONYMS.get(word, word)
        if is_profession(word):
            found = lemma(word)
            out.add(_JOB_SYNONYMS.get(found, found))
    return frozenset(out)


def profession_words(value: str) -> frozenset[str]:
    """The words of a job value that name a profession, abbreviations as their word ("rn at a
    children hospital" -> {"nurse"}; "auto mechanic at a dealership" -> {"mechanic"}); a
    profession told by its work as the words its title gives ("hauled a load" -> {"driver"}, as
    "truck driver" does)."""
    out = set(_title_words(value))
    for job in deed_professions(value):
        out.update(_title_words(job) or {job})
    return frozenset(out)


def _job_head(value: str) -> str | None:
    """The profession a job value names, by its head noun ("pediatric nurse", "an rn at a nursing
    home" -> "nurse"), or None when the value names no profession (a workplace, "retired")."""
    phrase = _NP_BOUNDARY.sub("", _LEADING_ARTICLES.sub("", value)).strip()
    if not phrase or not is_profession(phrase):
        return None
    head = lemma(phrase.split()[-1])
    return _JOB_SYNONYMS.get(head, head)


NUMERIC_SLOTS = frozenset({"age", "phone", "work_phone", "height", "weight", "address"})
