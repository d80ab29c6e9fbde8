"""The conflict rules of docs/ARCHITECTURE.md section 4, as tables of cases.

Every row of the outcome table is exercised with several phrasings, plus the stories the issue
names (VW -> Tesla, London -> Paris, Google -> startup, vegetarian -> vegan, single -> married,
2 kids -> 3 kids), near duplicates both ways, and the things that must never be nominated. The
last tables are a held-out check written for these tests (realistic chat sentences, none taken
from the benchmark file): the rules must generalise beyond the data they were tuned on.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.memory.rules.conflict import (
    CHANGE_WORDING,
    RULES,
    VERDICT_CHANGE,
    VERDICT_SAME,
    Assessment,
    Fact,
    Nomination,
    assess,
    detect_slot,
    is_candidate,
    is_near_duplicate,
    keywords,
    nomination_rule,
    slot_value,
)
from bot.memory.rules.slots import SLOTS, find_slots, is_profession


def verdict(old: str, new: str, cosine: float | None = None) -> Assessment:
    """Assess `new` against one stored fact `old`, as the memory service would."""
    fact = Fact(id=1, text=old, slot=detect_slot(old))
    return assess(new, [fact], {1: cosine} if cosine is not None else None)


def rule(old: str, new: str) -> str | None:
    """The rule that fired for the pair, "duplicate", or None (nothing)."""
    result = verdict(old, new)
    if result.duplicate_of is not None:
        return "duplicate"
    return result.nominations[0].rule if result.nominations else None


# --- the outcome table of docs/ARCHITECTURE.md section 4, row by row ------------------------------------------------------

EXPLICIT_REPLACEMENT = [
    ("I live in London", "I moved from London to New York"),
    ("I live in London", "I no longer live in London"),
    ("I live in London", "I don't live in London anymore"),
    ("I drive a VW Golf", "I sold my VW and bought a Tesla"),
    ("I drive a VW Golf", "Got rid of the VW last month"),
    ("My car is a 2012 Honda Civic", "I traded in the Civic for a Mazda"),
    ("I work at Google", "I quit Google and joined a startup"),
    ("I work at Google", "I left Google in May"),
    ("I have a cat", "I gave my cat away"),
    ("I play guitar", "I stopped playing guitar"),
    ("I'm vegan", "I'm not vegan anymore"),
    ("I like coffee", "I switched from coffee to tea"),
]


@pytest.mark.parametrize(("old", "new"), EXPLICIT_REPLACEMENT)
def test_explicit_replacement_is_nominated(old: str, new: str) -> None:
    assert rule(old, new) == "explicit_change"


SLOT_CHANGE = [
    ("I live in London", "I moved to Paris for good"),
    ("I live in London", "I moved to Paris"),
    ("I live in London", "I live in Paris now"),
    ("I live in London", "Just moved to Bristol!"),
    ("I'm based in Berlin", "We relocated to Munich last month"),
    ("I drive a VW Golf", "I drive a Tesla now"),
    ("I drive a VW Golf", "Just picked up my new Tesla Model 3!"),
    ("I work at Google", "I just started a new job at Microsoft"),
    ("I work as a nurse", "I got laid off last week"),
    ("I'm a teacher", "I retired last year"),
    ("I'm vegetarian", "I'm vegan now"),
    ("I'm single", "I got engaged"),
    ("I'm single", "I'm married now"),
    ("I'm 34", "I just turned 35"),
]


@pytest.mark.parametrize(("old", "new"), SLOT_CHANGE)
def test_single_value_slot_change_is_nominated(old: str, new: str) -> None:
    assert rule(old, new) == "slot_change"


MORE_DETAILED = [
    ("green tea every morning", "green tea with honey every morning"),
    ("I drink green tea every morning", "I drink green tea with honey every morning"),
    ("I go to the gym on Mondays", "I go to the gym on Mondays and Thursdays"),
    ("I have a dog", "I have a german shepherd dog"),
    ("I have kids", "I have 2 kids"),
]


@pytest.mark.parametrize(("old", "new"), MORE_DETAILED)
def test_more_detailed_version_is_nominated(old: str, new: str) -> None:
    assert rule(old, new) == "more_detailed"


SAME_SLOT_UNCLEAR = [
    ("I live in London", "I live in Paris"),
    ("I'm a teacher", "I'm a lawyer"),
    ("I work as an accountant", "I'm unemployed at the moment"),
    ("I'm single", "I'm married"),
    ("I drive a Toyota", "My car is a Honda"),
    ("My favorite color is blue", "My favourite colour is green"),
    ("My name is Alex", "Call me Sasha"),
    ("I'm 34 years old", "I'm 35 years old"),
    ("I have a boyfriend", "My husband loves fishing"),
]


@pytest.mark.parametrize(("old", "new"), SAME_SLOT_UNCLEAR)
def test_same_slot_unclear_is_nominated(old: str, new: str) -> None:
    assert rule(old, new) == "same_slot"


NEW_OR_UNRELATED = [
    ("I live in London", "I visited Paris"),
    ("I live in London", "I visited Paris last summer"),
    ("I live in London", "I'd love to live in Tokyo someday"),
    ("I live in London", "I want to move to Lisbon one day"),
    ("I live in London", "My sister lives in Manchester"),
    ("I drive a Toyota", "I drive my kids to school every day"),
    ("I drive a Toyota", "My wife drives a Honda"),
]


@pytest.mark.parametrize(("old", "new"), NEW_OR_UNRELATED)
def test_new_or_unrelated_is_left_alone(old: str, new: str) -> None:
    assert verdict(old, new) == Assessment(duplicate_of=None, nominations=())


# --- the stories of the issue -------------------------------------------------------------------

STORIES = [
    ("I drive a VW Golf", "I sold my VW and bought a Tesla", "explicit_change"),
    ("I drive a VW Golf", "I drive a Tesla now", "slot_change"),
    ("I live in London", "I moved to Paris", "slot_change"),
    ("I live in London", "I live in Paris now", "slot_change"),
    ("I work at Google", "I quit Google and joined a startup", "explicit_change"),
    ("I'm vegetarian", "I'm vegan now", "slot_change"),
    ("I'm single", "I'm married", "same_slot"),
    ("I'm single", "I got engaged", "slot_change"),
    ("I have 2 kids", "I have 3 kids", "count_change"),
]


@pytest.mark.parametrize(("old", "new", "expected"), STORIES)
def test_stories(old: str, new: str, expected: str) -> None:
    assert rule(old, new) == expected


def test_the_vw_story_nominates_the_golf_once_among_other_memories() -> None:
    memories = [
        Fact(1, "I drive a VW Golf", "car"),
        Fact(2, "I live in London", "residence"),
        Fact(3, "I like hiking"),
        Fact(1, "I drive a VW Golf", "car"),  # the same memory twice: still nominated once
    ]
    result = assess("I sold my VW and bought a Tesla", memories)
    assert result == Assessment(None, (Nomination(1, "explicit_change", "change"),))


# --- things that must NOT be nominated ------------------------------------------------------------

KEEP = [
    ("I like hiking", "I like painting"),
    ("I love hiking in the Alps", "I enjoy painting watercolours"),
    ("I have a dog", "I have a cat"),
    ("I have a dog named Max", "I have a cat named Luna"),
    ("I have two dogs", "I have three cats"),
    ("I like sushi", "I love pizza"),
    ("I live in London", "I visited Paris"),
    ("I work at a school", "I like to work on vintage cars"),
    ("I work at a school", "I'm working on a novel"),
    ("I work at a hospital", "I work out three times a week"),
    ("My favorite color is blue", "My favorite food is pizza"),
    ("My favourite band is Radiohead", "My favourite film is Alien"),
    ("I have a brother", "I have a sister"),
    ("I have a sister", "My sister just got married"),
    # a wife and a husband mentioned in passing are one status, married (walking the story on
    # 2026-12-03, "my husband is a huge gamer" was asked about "my wife and i love hiking")
    ("my wife and i love hiking", "my husband is a huge gamer"),
    ("My best friend is Sam", "My friend Jo is a pilot"),
    ("I speak French", "I speak Spanish"),
    ("I'm allergic to peanuts", "I'm allergic to cats"),
    ("My wife is a doctor", "My wife loves gardening"),
]


@pytest.mark.parametrize(("old", "new"), KEEP)
def test_multi_valued_and_unrelated_facts_are_not_nominated(old: str, new: str) -> None:
    assert verdict(old, new) == Assessment(duplicate_of=None, nominations=())


@pytest.mark.parametrize(
    "text",
    [
        "I like hiking",
        "I have a dog",
        "I love pizza",
        "I have a sister",
        "My best friend is Sam",
        "I play the guitar",
        "I visited Paris",
        "I like to work on vintage cars",
        "I am a huge star wars fan",
        "I am an avid kayaker",
    ],
)
def test_multi_valued_relations_are_never_slots(text: str) -> None:
    assert detect_slot(text) is None


# --- near duplicates ------------------------------------------------------------------------------

DUPLICATES = [
    ("I volunteer in a homeless shelter", "I volunteer at the homeless shelter"),
    ("I drink green tea every morning", "Every morning I drink green tea"),
    ("I'm vegan", "I am a vegan"),
    ("I live in London", "I live in London"),
    ("I love tea", "I like tea"),
    ("I have 2 kids", "I have two kids"),
]


@pytest.mark.parametrize(("old", "new"), DUPLICATES)
def test_reworded_same_fact_is_a_duplicate(old: str, new: str) -> None:
    assert verdict(old, new) == Assessment(duplicate_of=1, nominations=())
    assert is_near_duplicate(new, old)


NOT_DUPLICATES = [
    # adds a number, a name or a content word
    ("I have kids", "I have 2 kids"),
    ("I work at a bank", "I work at a bank in London"),
    ("I drink green tea every morning", "I drink green tea with honey every morning"),
    # changes polarity, sense or tense
    ("I like coffee", "I don't like coffee"),
    ("I like coffee", "I hate coffee"),
    ("I eat meat", "I don't eat meat"),
    ("I have a dog", "I had a dog"),
]


def test_same_words_with_other_prepositions_are_not_a_restatement() -> None:
    assert not is_near_duplicate("I have been to canada twice", "I am from canada")
    assert verdict("I am from canada", "I have been to canada twice") == Assessment(None, ())


@pytest.mark.parametrize(("old", "new"), NOT_DUPLICATES)
def test_adding_or_changing_something_is_not_a_duplicate(old: str, new: str) -> None:
    result = verdict(old, new, cosine=0.97)  # even when the embeddings call them near-identical
    assert result.duplicate_of is None
    assert result.nominations, "it is not a duplicate, but it is related: the rules must ask"


def test_two_kids_then_three_kids_is_nominated_not_a_duplicate() -> None:
    for cosine in (None, 0.99):
        result = verdict("I have 2 kids", "I have 3 kids", cosine)
        assert result == Assessment(None, (Nomination(1, "count_change", "change"),))


def test_jaccard_threshold_needs_three_shared_keywords() -> None:
    # Two shared keywords out of two: Jaccard 1.0 but too short to call a near duplicate by
    # overlap alone, and the verbs differ, so it is not a restatement either.
    assert not is_near_duplicate("I cook italian pasta", "I eat italian pasta")


@pytest.mark.parametrize(
    ("cosine", "duplicate"),
    [(0.92, True), (0.95, True), (0.919, False), (0.60, False)],
)
def test_cosine_duplicates_when_embeddings_are_given(cosine: float, duplicate: bool) -> None:
    # Adds nothing, but shares too few keywords for the Jaccard rule: only embeddings can tell.
    old, new = "I have been living in Lisbon for years, in a small flat", "I live in Lisbon in a flat"
    assert not is_near_duplicate(new, old)
    result = verdict(old, new, cosine)
    assert (result.duplicate_of == 1) is duplicate


def test_the_best_duplicate_wins_and_nothing_else_is_reported() -> None:
    memories = [
        Fact(5, "I volunteer at a homeless shelter"),
        Fact(3, "I volunteer in a homeless shelter on Saturdays"),
        Fact(9, "I live in London", "residence"),
    ]
    result = assess("I volunteer at the homeless shelter", memories, {5: 0.98, 3: 0.95, 9: 0.3})
    assert result == Assessment(duplicate_of=5, nominations=())
    result = assess("I volunteer at the homeless shelter", memories, {5: 0.93, 3: 0.97, 9: 0.3})
    assert result.duplicate_of == 3  # the closer one by embeddings
    # without embeddings, the higher keyword overlap wins (1.0 against 0.75)
    assert assess("I volunteer at the homeless shelter", memories).duplicate_of == 5


def test_duplicate_by_cosine_alone_beats_keyword_ties_deterministically() -> None:
    memories = [Fact(8, "I'm vegan"), Fact(2, "I am a vegan")]
    assert assess("I'm a vegan", memories).duplicate_of == 2  # equal scores: lowest id


# --- assess: shape and guarantees ------------------------------------------------------------------


def test_historical_memories_are_ignored() -> None:
    memories = [Fact(1, "I live in London", "residence", status="historical")]
    assert assess("I live in Paris now", memories) == Assessment(None, ())
    unsure = [Fact(1, "I live in London", "residence", status="unsure")]
    assert assess("I live in Paris now", unsure).nominations == (Nomination(1, "slot_change", "change"),)


def test_nominations_keep_the_candidates_order() -> None:
    memories = [
        Fact(4, "I work at Google", "job"),
        Fact(2, "I live in London", "residence"),
        Fact(7, "I'm single", "relationship"),
    ]
    result = assess("I quit Google, moved to Paris and got married", memories)
    assert [n.old_id for n in result.nominations] == [4, 2, 7]
    assert result.nominations[0].rule == "explicit_change"


def test_no_candidates_gives_an_empty_assessment() -> None:
    assert assess("I live in Paris", []) == Assessment(None, ())


def test_every_rule_name_is_declared() -> None:
    assert set(RULES) >= {
        "explicit_change", "slot_change", "count_change", "more_detailed", "less_detailed",
        "same_slot", "duplicate",
    }
    for old, new in EXPLICIT_REPLACEMENT + SLOT_CHANGE + MORE_DETAILED + SAME_SLOT_UNCLEAR:
        assert rule(old, new) in RULES


def test_interface_types_are_frozen() -> None:
    fact = Fact(1, "I live in London")
    assert (fact.slot, fact.status) == (None, "current")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.text = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Nomination(1, "same_slot").rule = "x"  # type: ignore[misc]


def test_assess_is_deterministic() -> None:
    memories = [Fact(i, text) for i, text in enumerate(
        ["I live in London", "I drive a VW Golf", "I have 2 kids", "I like hiking"], start=1
    )]
    first = assess("I moved to Paris and I have 3 kids", memories)
    assert all(assess("I moved to Paris and I have 3 kids", memories) == first for _ in range(5))
    assert first == Assessment(None, (Nomination(1, "slot_change", "change"), Nomination(3, "count_change", "change")))


@settings(max_examples=150, deadline=None)
@given(
    new=st.text(max_size=60),
    olds=st.lists(st.tuples(st.integers(1, 6), st.text(max_size=60)), max_size=5),
    cos=st.dictionaries(st.integers(1, 6), st.floats(0, 1), max_size=4),
)
def test_assess_contract_holds_for_any_text(
    new: str, olds: list[tuple[int, str]], cos: dict[int, float]
) -> None:
    facts = [Fact(i, text) for i, text in olds]
    result = assess(new, facts, cos)
    assert result == assess(new, facts, cos)
    ids = [n.old_id for n in result.nominations]
    assert len(ids) == len(set(ids))
    assert set(ids) <= {i for i, _ in olds}
    assert all(n.rule in RULES for n in result.nominations)
    if result.duplicate_of is not None:
        assert result.nominations == ()
        assert result.duplicate_of in {i for i, _ in olds}


# --- slots, values, keywords and candidates ------------------------------------------------------

SLOT_CASES = [
    ("I live in London", "residence", "london"),
    ("I now live in the city", "residence", "city"),
    ("I live with my husband in Pennsylvania", "residence", "pennsylvania"),
    ("I moved to Paris for good", "residence", "paris"),
    ("I live in a small house in Ohio", "residence", "ohio"),
    ("I live in a three storey house", "home_type", "three storey house"),
    ("I drive a VW Golf", "car", "vw golf"),
    ("My main transportation is my motorbike", "car", "motorbike"),
    ("I work at Google", "job", "google"),
    ("I work as a school teacher", "job", "school teacher"),
    ("I'm a baby delivery nurse", "job", "baby delivery nurse"),
    ("I am a professional tennis player", "job", "professional tennis player"),
    ("I'm in the army", "job", "army"),
    ("I walk dogs for a living", "job", "walk dogs"),
    ("I'm retired", "job", "retired"),
    ("I'm vegan", "diet", "vegan"),
    ("I don't eat meat", "diet", "no meat"),
    ("I'm single", "relationship", "single"),
    ("I am in an open relationship", "relationship", "in an open relationship"),
    ("My wife spends all my money", "relationship", "wife"),
    ("I am 40 years old", "age", "40"),
    ("I am a 12 year old girl", "age", "12"),
    ("I'm four", "age", "four"),
    ("My favourite colour is navy blue", "favorite_color", "navy blue"),
    ("My favorite kind of movie is a documentary", "favorite_movie", "documentary"),
    ("Gymnastics is my favorite sport", "favorite_sport", "gymnastics"),
    ("My name is George", "name", "george"),
    ("I have blonde hair and blue eyes", "hair", "blonde"),
]


@pytest.mark.parametrize(("text", "slot", "value"), SLOT_CASES)
def test_detect_slot_and_slot_value(text: str, slot: str, value: str | None) -> None:
    assert detect_slot(text) == slot
    assert slot_value(text, slot) == value


@pytest.mark.parametrize(
    "text",
    [
        "I want to live in Paris",
        "When I grow up I want to be a vet",
        "My dream car is a Rolls Royce",
        "I work from home",
        "I'm working on a robot",
        "I also work as a DJ on weekends",  # a side job does not replace the main one
        "My best friend lives next door",
        "I'm a hard worker",
        "I'm a bit older than him",
        "I'm a Londoner",
        "I'm 30 minutes late",
        "Spiderman is my favorite",
        "I just moved to a new team at work",
    ],
)
def test_not_a_slot(text: str) -> None:
    assert detect_slot(text) is None, find_slots(text)


def test_a_sentence_can_hold_two_slots_and_the_likelier_to_change_is_stored() -> None:
    text = "I drive a big truck and live in the country"
    assert [m.slot for m in find_slots(text)] == ["residence", "car"]
    assert detect_slot(text) == "residence"
    assert detect_slot("Hey my name is Larry and I am a chef") == "job"


def test_slot_list_has_the_required_topics() -> None:
    assert {"residence", "car", "job", "diet", "relationship", "age"} <= set(SLOTS)


@pytest.mark.parametrize(
    ("phrase", "job"),
    [
        ("teacher", True),
        ("baby delivery nurse", True),
        ("bee farmer", True),
        ("professional wrestler", True),
        ("professional tennis player", True),
        ("schoolteacher", True),
        ("software developer", True),
        ("tennis player", False),
        ("skateboarder", False),
        ("avid kayaker", False),
        ("huge coffee lover", False),
        ("feminist", False),
        ("cancer survivor", False),
        ("mother of two", False),
        ("homeowner", False),
        ("hard worker", False),
        ("bit older", False),
        ("student", False),
    ],
)
def test_is_profession(phrase: str, job: bool) -> None:
    assert is_profession(phrase) is job


def test_keywords_skip_stop_and_generic_words_and_carry_other_spellings() -> None:
    said = keywords("I really love my favourite children")
    assert {"child", "children"} <= said and not said & {"really", "love", "favourite", "favorite"}
    assert {"kid", "son", "daughter"} <= said  # the words of the same children (frames.kind_words)
    assert keywords("My favorite color is blue") >= {"color", "colour", "blue"}
    assert keywords("I have 3 kids") >= {"kid"}
    assert not keywords("I have 3 kids") & {"3", "three"}  # numbers are not search words


@pytest.mark.parametrize(
    ("new", "old", "candidate"),
    [
        ("I sold my VW", Fact(1, "I drive a VW Golf", "car"), True),  # shared word
        ("I drive a Tesla", Fact(1, "My car is a VW", "car"), True),  # same stored slot
        ("I drive a Tesla", Fact(1, "My car is a VW"), True),  # slot read from the text
        ("I like painting", Fact(1, "I like hiking"), False),
        # a relative by a short or plainer word (tenth pass: "Me and my brother run the business"
        # never found "my little bro keeps stealing my hoodies", which the rules call the same)
        ("Me and my brother run the business together.", Fact(1, "my little bro keeps stealing my hoodies"), True),
        ("my sister lives in Dundee", Fact(1, "my older sis keeps mailing me care packages"), True),
        ("Our son just moved out west for work.", Fact(1, "my boy is learning to swim"), True),
        ("My favorite food is pizza", Fact(1, "My favorite color is blue"), False),
        # a second topic of the old text: not stored as its slot, but the service now reads the
        # newest facts of other topics again (saving.candidate_rows), so it is one (twelfth pass:
        # "turned 35 yesterday" after "I'm 34 and I live in Leeds" was never asked about)
        ("I live in Alaska", Fact(1, "I drive a truck and live in the country", "car"), True),
        ("turned 35 yesterday", Fact(1, "I'm 34 and I live in Leeds", "residence"), True),
        ("I live in Alaska", Fact(1, "I drive a truck and my wife loves the country", "car"), False),
    ],
)
def test_is_candidate(new: str, old: Fact, candidate: bool) -> None:
    assert is_candidate(new, old) is candidate


def test_nomination_rule_needs_no_duplicate_check() -> None:
    assert nomination_rule("I live in Paris now", Fact(1, "I live in London")) == "slot_change"
    assert nomination_rule("I like painting", Fact(1, "I like hiking")) is None


def test_change_wording_is_data() -> None:
    patterns = " ".join(cue.pattern for cue in CHANGE_WORDING)
    for word in ("sold", "moved", "no longer", "replaced", "rid of", "quit", "switched",
                 "broke", "divorced", "retired"):
        assert word in patterns


# --- held-out generalisation check (realistic sentences written for this test) -------------------

HELD_OUT_NOMINATE = [
    ("I have a dog named Biscuit", "Biscuit died last week"),
    ("I have a dog", "My dog passed away"),
    ("My mom lives in Dublin", "I lost my mom last year"),
    ("I live in Berlin", "I left Berlin in March"),
    ("I'm a teacher", "I'm a former teacher"),
    ("I'm vegetarian", "I started eating meat again"),
    ("I have a girlfriend named Anna", "Anna and I broke up"),
    ("I'm married to Tom", "Tom and I got divorced"),
    ("I used to live in Madrid", "I live in Madrid"),
    ("I work at Deloitte", "Got a new job at KPMG!"),
    ("I'm 29", "I'm 30 now"),
    ("I am a nurse", "I'm working as a paramedic now"),
    ("I smoke", "I quit smoking"),
    ("I have two dogs", "I have a dog and a cat"),
    ("I have two children", "We just had our third child, so now I have three children"),
    ("I weigh 80 kg", "I weigh 75 kg now"),
    ("I have brown hair", "I dyed my hair blonde"),
    ("I'm a software engineer at Spotify", "I'm a product manager now"),
    ("I'm planning a trip to Japan", "I changed my mind about the trip"),
    ("I live in Toronto with my partner", "I don't live in Toronto anymore"),
    # A known trade-off: a partner mention against an explicit status is asked about, because
    # "I am married" / "My wife spends all my money" are duplicates the benchmark must catch.
    ("I'm married", "My wife loves gardening"),
    # persona-style sentences in the register of the benchmark file (written for this test)
    ("I am a cashier at walmart.", "I am a truck driver."),
    ("I work as a nurse in a hospital.", "I sell cars for a living."),
    ("I am a retired police officer.", "I work at mcdonalds."),
    ("I am a dental assistant.", "I am a personal trainer."),
    ("I am a nurse practitioner.", "I am a flight attendant."),
    ("I teach elementary school.", "I am a hairdresser."),
    ("I have a job as a waitress.", "I own a bakery."),
    ("I am unemployed.", "I am a mechanic."),
    ("I live on a farm.", "I live in the mountains."),
    ("I live by the beach.", "I live in a small town in texas."),
    ("I live in chicago.", "I just moved to florida."),
    ("I am engaged to my high school sweetheart.", "I have been married for twenty years."),
    ("I recently got divorced.", "I have a wife and two kids."),
    ("I am a widow.", "I am dating a fireman."),
    ("I drive a prius.", "I ride a motorcycle."),
    ("I drive an old pickup truck.", "My car is a ford focus."),
    ("I am a vegetarian.", "I eat a vegan diet."),
    ("I don't eat meat.", "I am on a keto diet."),
    ("I am 25.", "I just turned 30."),
    ("I am in my 40s.", "I am twenty years old."),
    ("Red is my favorite color.", "My favorite color is purple."),
    ("My favorite tv show is friends.", "My favorite tv show is the office."),
    ("My favorite book is harry potter.", "My favorite book is the hobbit."),
    ("I am single.", "I have a girlfriend."),
    ("I am a stay at home mom.", "I work in an office."),
]

# More about one's own pet or relative, said with "my" first: these were kept apart in the first
# round ("more about a thing one has"); the persona sets label them the same fact, and the
# Keep-both question says "more about it", so they are asked about with Keep both recommended
# (changed 2026-12-03, bot/memory/rules/frames.py `_owned`).
MORE_ABOUT_ONES_OWN = [
    ("I have a cat.", "My cat is named tom."),
    ("I have a brother.", "My brother is a doctor."),
    ("I have a dog named max.", "My dog is a golden retriever."),
    ("I have two kids.", "My kids are my world."),
]


# A negation that denies nothing: in a clause of when or why, before praise; and a stop that
# is a place. Each was read as a denial, so the same liking said again was asked about with
# Mark older as past recommended (ninth pass; sentences written for this table).
NOT_DENIED = [
    ("I drink tea every day.", "nothing beats a cup of tea in the afternoon"),
    ("I read a lot.", "i read every night when im not too tired"),
    ("i like to hike", "hiking this saturday if it's not raining"),
    ("I drink coffee every morning.", "truck stop coffee, black, on every long haul"),
    # tenth pass: praise said with "nothing like"; a negation in a clause about something else
    ("I drink beer.", "nothing like a cold lager after knock-off"),
    ("I love lattes.", "iced oat latte every single day even in january, no shame"),
    ("I have a brother.", "my older brother is in med school and my parents won't let me forget it"),
]


# One profession told by its work: Keep both, never Mark older as past (ninth pass; sentences
# written for this table).
SAME_WORK = [
    ("I'm an electrician.", "I pull wire and fix breaker panels for a living."),
    ("i work as a mechanic", "I fix cars at a garage near the station."),
    ("I am a software developer.", "i write backend code for an insurance company"),
    ("I'm a nurse.", "I work at the hospital as an ER nurce."),  # one slip
]


@pytest.mark.parametrize(("old", "new"), MORE_ABOUT_ONES_OWN + NOT_DENIED + SAME_WORK)
def test_the_same_thing_said_again_is_asked_with_keep_both(old: str, new: str) -> None:
    """More about one's own pet or relative, a liking with a negation that denies nothing, one
    profession told by its work: one question, Keep both recommended."""
    assert [n.verdict for n in verdict(old, new).nominations] == [VERDICT_SAME]


@pytest.mark.parametrize(("old", "new"), [
    ("I drink coffee.", "I never drink coffee."),
    ("I eat meat.", "When I moved to Leeds, I stopped eating meat."),  # the denial is the main clause
    ("I drink coffee.", "I had to stop drinking coffee."),
    ("I am a software developer.", "I fix cars at a garage now."),  # another profession
    ("I'm a software engineer at a small startup.", "I write code for a bank."),  # another employer
])
def test_a_denial_in_the_main_clause_stays_a_change(old: str, new: str) -> None:
    assert [n.verdict for n in verdict(old, new).nominations] == ["change"]


HELD_OUT_KEEP = [
    ("I live in Berlin", "My ex lives in Berlin"),
    ("I live in Berlin", "My dad used to live in Berlin"),
    ("I live in Berlin", "My brother no longer lives in Berlin"),
    ("I live in Paris", "My sister lives in Paris"),
    ("I work at a store", "I stopped by the store on the way home"),
    ("I live in London", "I'm living in the moment"),
    ("I live in London", "We moved the meeting to Friday"),
    ("I live in Oslo", "I'm moving my blog to Substack"),
    ("I live in Cork", "My parents moved to Spain"),
    ("I live in Cork", "My mom lives in Dublin"),
    ("I'm a teacher", "I'm a big runner"),
    ("I'm a nurse", "I'm an avid reader"),
    ("I'm a teacher", "I'm a huge Arsenal fan"),
    ("I'm a lawyer", "I'm a night owl"),
    ("I'm a doctor", "I'm a Christian"),
    ("I'm a software developer", "I'm a proud father of two"),
    ("I'm a nurse", "I'm a mum of two"),
    ("I'm a nurse", "I'm a student at night school"),
    ("I'm a teacher", "I'm a Capricorn"),
    ("I'm a teacher", "I'm a member of the chess club"),
    ("I drive a Toyota", "I am driving to Bristol tomorrow"),
    ("I drive a Toyota", "I sold my old bike"),
    ("My brother sold his car", "I drive a car"),
    ("I work at Google", "I quit smoking"),
    ("I work at Google", "I left early today"),
    ("I work at Google", "Google Maps is my favorite app"),
    ("I'm 30", "I am one of five kids"),
    ("I'm 30", "I have 2 kids"),
    ("I have a dog", "I lost my keys"),
    ("I love my job", "I love my dog"),
    ("I moved to London in 2015", "I love London pubs"),
    ("I'm learning Spanish", "I'm learning to cook"),
    ("I read a lot of fantasy books", "I read the news every morning"),
    ("I drink coffee every morning", "I eat oatmeal every morning"),
    ("I play tennis on Sundays", "I play chess online"),
    ("I was born in Italy", "I live in Spain"),
    ("I grew up in Ohio", "I live in Texas"),
    ("I'm from Brazil", "I live in Portugal"),
    ("My favorite color is blue", "I painted the fence blue"),
    ("I like jazz", "I like blues"),
    ("I'm single", "My best friend just got engaged"),
    ("I love my wife", "My wife is a lawyer"),
    ("I support Liverpool", "I support the Labour party"),
    ("My daughter is 5", "My son is 8"),
    ("I'm saving for a house", "I'm saving for a holiday"),
    # persona-style
    ("I like to read books.", "I read a lot of books about history."),
    ("I like to play video games.", "I like to play basketball."),
    ("I have three kids.", "I have three dogs."),
    ("I have three kids.", "I have two sisters."),
    ("I am a teacher.", "I teach my kids at home."),
    ("I work at a bank.", "I keep a lot of money in the bank."),
    ("I live in a big city.", "I love the city lights."),
    ("I am from canada.", "I have been to canada twice."),
    ("I like to go fishing with my dad.", "My dad is a fisherman."),
    ("My mom is a nurse.", "I am a nurse."),
    ("I love dogs.", "I have a cat."),
    ("I play the piano.", "I play soccer."),
    ("I like rock music.", "I like country music."),
    ("I love the beach.", "I love the mountains."),
    ("My favorite food is pizza.", "I like to eat pizza with my friends."),
    ("I enjoy cooking.", "I enjoy baking cookies."),
    ("I like to swim.", "I am a good swimmer."),
    ("I am a christian.", "I go to church every sunday."),
    ("I am a teacher.", "My sister is a teacher."),
    ("I drive a truck.", "My dad drives a truck."),
    ("I like to travel.", "I have been to paris."),
    ("I love to bake.", "My favorite food is cake."),
    ("I work at a hospital.", "My mom works at a hospital."),
]


@pytest.mark.parametrize(("old", "new"), HELD_OUT_NOMINATE)
def test_held_out_changes_are_nominated(old: str, new: str) -> None:
    result = verdict(old, new)
    assert result.nominations or result.duplicate_of is not None


@pytest.mark.parametrize(("old", "new"), HELD_OUT_KEEP)
def test_held_out_unrelated_pairs_are_left_alone(old: str, new: str) -> None:
    assert verdict(old, new) == Assessment(duplicate_of=None, nominations=())


# A job the vectors name, told only by its work, beside a stated job of that profession: the
# same job, Keep both (ninth pass: "filed two motions ..." after "I'm a lawyer ..." recommended
# Mark older as past in a terminal walk). Sentences written for this table.
@pytest.mark.parametrize(("old", "new", "expected"), [
    ("I'm a lawyer at a small firm.", "filed two motions and a discovery request before noon", VERDICT_SAME),
    ("I work as a teacher.", "grading essays till midnight again", VERDICT_SAME),
    ("I'm a farmer.", "up before dawn for the milking", VERDICT_SAME),
    ("I'm a lawyer at a small firm.", "up before dawn for the milking", "change"),
])
def test_a_job_told_only_by_its_work_is_compared_by_that_work(old: str, new: str, expected: str) -> None:
    result = assess(new, [Fact(id=1, text=old, slot=detect_slot(old))], new_slot="job")
    assert [n.verdict for n in result.nominations] == [expected]


@pytest.mark.parametrize("new", [
    "civic's at 210k miles and still running orders",
    "the motor car is a Vauxhall Astra, a 2009 model",
])
def test_no_car_then_a_car_the_words_do_not_name_is_a_change(new: str) -> None:
    """Read from heldout18/19's wrong buttons (twelfth pass): after "never owned a car" a car the
    vectors name (its words state no value) was asked about with nothing recommended."""
    old = Fact(1, "never owned a car tbh, the bus and my legs do the job", "car")
    found = assess(new, [old], new_slot="car")
    assert [n.verdict for n in found.nominations] == [VERDICT_CHANGE]


@pytest.mark.parametrize(("topic", "text", "own"), [
    # a relative's marriage is no status of one's own, with or without the "my" chat drops
    ("relationship", "Daughter, married off to Rize. Next.", False),
    ("relationship", "my sister got married in May", False),
    ("relationship", "married, two kids", True),
    ("relationship", "Husband and I split last year", True),
    # what someone told is their news, not the speaker's job
    ("job", "The postman told me he's retiring", False),
    ("job", "The head nurse told us she is leaving", False),
    ("job", "I told my boss I am retiring", True),
    ("job", "Retiring in May after forty years on the buses", True),
    # where a brother lives or what the shop cat does is theirs (the vectors had found a home, a job)
    ("residence", "bro in dubai", False),
    ("residence", "I have an older sister, she lives in Perth now", False),
    ("job", "Shop cat sleeps on the counter all day, customers like him more than me", False),
    ("job", "I sell fish at the market all day", True),
    # a maker one works for is no car of one's own
    ("car", "Toyota. 12 years on the line at the plant", False),
    ("car", "Toyota now, the Sierra is gone", True),
])

def test_a_topic_the_vectors_name_is_ones_own_only_when_no_one_else_has_it(topic: str, text: str, own: bool) -> None:
    from bot.memory.rules.conflict import own_present

    assert own_present(text, topic) is own


@pytest.mark.parametrize(("text", "town"), [
    # a town said with "not" is no home the words imply (it had made a dish's town a move)
    ("fish cooked with beer, only real in Yangshuo, not Guilin, not Beijing", "yangshuo"),
    ("the tram outside my window in Zagreb never stops", "zagreb"),
    ("not Paris, Lyon. Lyon is home", "lyon"),
])
def test_the_town_a_fact_implies_is_not_one_it_denies(text: str, town: str) -> None:
    from bot.memory.rules.slots import implied_value

    assert implied_value("residence", text) == town
