"""Reading the sentence rather than the phrasings the rules were first written for (issue 15,
second pass), as tables of cases.

Each table is a cause found by reading the misses of the tuning and dev pairs (never the held-out
file): a job said as what one does at a workplace ("I wait tables at a steakhouse"), having no car
said as how one gets about ("I take the train everywhere"), a home said as a posting or a
retirement ("I'm stationed in Texas", "We retired to Arizona"), widowhood said as a loss ("I lost
my wife"), an omnivore's "I eat whatever", and a count read out of a plural after "a" ("a
children's hospital"). The sentences here are written for these tests, in other words than the
pair files.
"""

from __future__ import annotations

import pytest

from bot.memory.rules.conflict import (
    VERDICT_CHANGE,
    VERDICT_SAME,
    VERDICT_UNCLEAR,
    Assessment,
    Fact,
    assess,
    detect_slot,
    slot_value,
)
from bot.memory.rules.slots import deed_professions, find_slots, implied_value
from bot.memory.rules.text import normalise


def verdict(old: str, new: str) -> Assessment:
    """Assess `new` against one stored fact `old`, as the memory service would."""
    return assess(new, [Fact(id=1, text=old, slot=detect_slot(old))])


# text -> (slot, value); value None means "any value"
READ = [
    # what one does at a workplace is a job
    ("I serve coffee at a little cafe downtown.", "job", None),
    ("I fix engines at a truck garage.", "job", None),
    ("I answer phones for an insurance company.", "job", None),
    ("I cut hair at a barbershop in town.", "job", None),
    ("I stock shelves at the supermarket.", "job", None),
    ("I do the books for a law firm.", "job", None),
    ("I flip burgers at a diner.", "job", None),
    ("we keep sheep on our farm.", "job", "farmer"),
    ("I grow vegetables on a small farm.", "job", "farmer"),
    # how one gets about, when it is everywhere, is having no car
    ("I take the bus everywhere.", "car", "none"),
    ("I cycle everywhere.", "car", "none"),
    ("I ride the tube everywhere.", "car", "none"),
    ("I get around by public transport.", "car", "none"),
    # a posting or a retirement somewhere is a home
    ("I'm stationed in Germany.", "residence", "germany"),
    ("We retired to Spain.", "residence", "spain"),
    ("I retired to the coast last year.", "residence", "coast"),
    # a loss of a spouse is widowhood
    ("I lost my husband last spring.", "relationship", "widowed"),
    ("My wife passed away in 2019.", "relationship", "widowed"),
    ("my late husband loved this song.", "relationship", "widowed"),
    # eating anything is a diet
    ("I eat whatever is on the table.", "diet", "whatever"),
]


@pytest.mark.parametrize(("text", "slot", "value"), READ)
def test_the_topic_is_read_in_other_words(text: str, slot: str, value: str | None) -> None:
    assert detect_slot(text) == slot, find_slots(text)
    if value is not None:
        assert slot_value(text, slot) == value


NOT_READ = [
    # leisure at a place is not a job
    ("I play darts at the pub on Fridays.", "job"),
    ("I eat at a sushi restaurant most weekends.", "job"),
    ("I volunteer at the animal shelter.", "job"),
    ("I swim at the gym before work.", "job"),
    ("I shop at the farmers market.", "job"),
    ("I met my husband at a bar.", "job"),
    ("My brother works at a bank.", "job"),
    ("My sister cooks at a restaurant.", "job"),
    ("I go to church every Sunday.", "job"),
    ("I spend weekends at my uncle's farm.", "job"),
    # travelling is not having no car unless it is how one always gets about
    ("I take the train to Leeds on Mondays.", "car"),
    ("I walk my dog every morning.", "car"),
    # retiring from a job is a job fact, not a home
    ("I retired from teaching.", "residence"),
    # losing a thing is not widowhood
    ("I lost my wallet at the station.", "relationship"),
    ("My wife's father passed away.", "relationship"),
]


@pytest.mark.parametrize(("text", "slot"), NOT_READ)
def test_what_is_not_that_topic(text: str, slot: str) -> None:
    assert slot not in {m.slot for m in find_slots(text) if not m.hint}, find_slots(text)


# (old, new, verdict): "change" a different value (Mark older as past), "same" the same value
# (Keep both or a duplicate that is not stored twice)
PAIRS = [
    ("I'm a dentist.", "I serve coffee at a little cafe downtown.", VERDICT_CHANGE),
    ("I flip burgers at a diner.", "I'm a nurse now.", VERDICT_CHANGE),
    ("I drive a Toyota.", "I take the bus everywhere.", VERDICT_CHANGE),
    ("I cycle everywhere.", "I bought a Kia last week.", VERDICT_CHANGE),
    ("I cycle everywhere.", "I don't own a car.", VERDICT_SAME),
    ("I live in Denver.", "I'm stationed in Germany.", VERDICT_CHANGE),
    ("I live in Ohio.", "We retired to Spain.", VERDICT_CHANGE),
    ("I'm happily married.", "I lost my husband last spring.", VERDICT_CHANGE),
    ("My husband is a pilot.", "My husband passed away in May.", VERDICT_CHANGE),
    ("I'm a vegan.", "I eat whatever is on the table.", VERDICT_CHANGE),
]


@pytest.mark.parametrize(("old", "new", "expected"), PAIRS)
def test_the_verdict_follows_the_value(old: str, new: str, expected: str) -> None:
    result = verdict(old, new)
    if expected == VERDICT_SAME and result.duplicate_of is not None:
        return  # the same value in other words: not stored twice
    assert result.nominations, result
    assert result.nominations[0].verdict == expected, result


KEEP = [
    ("I work as a nurse at a children's hospital.", "I have three children."),
    ("We retired to Spain.", "I retired last year."),
    ("I eat whatever.", "I eat porridge every morning."),
    ("I eat whatever.", "Curry is my favourite thing to eat."),
    ("I play darts at the pub on Fridays.", "I'm an electrician."),
    ("I take the bus everywhere.", "I take the dog everywhere."),
]


@pytest.mark.parametrize(("old", "new"), KEEP)
def test_other_topics_are_left_alone(old: str, new: str) -> None:
    assert verdict(old, new) == Assessment(duplicate_of=None, nominations=())


def test_a_parent_at_home_is_a_job_and_not_a_count_of_children() -> None:
    assert detect_slot("i stay home with my two boys.") == "job"
    assert verdict("I have two boys.", "i stay home with my two boys.").nominations == ()
    assert verdict("i stay home with my two boys.", "I have two boys.").nominations == ()
    same = verdict("I'm a stay at home dad.", "I stay at home with the kids.")
    assert same.duplicate_of is not None or same.nominations[0].verdict == VERDICT_SAME


BREAK_UPS = [
    ("I'm single.", "We split up last month.", VERDICT_SAME),
    ("I have no girlfriend.", "I broke up with her in June.", VERDICT_SAME),
    ("I have a boyfriend.", "We broke up.", VERDICT_CHANGE),
    ("I'm engaged.", "I got dumped last week.", VERDICT_CHANGE),
]


@pytest.mark.parametrize(("old", "new", "expected"), BREAK_UPS)
def test_after_a_break_up_one_is_single(old: str, new: str, expected: str) -> None:
    result = verdict(old, new)
    if expected == VERDICT_SAME and result.duplicate_of is not None:
        return
    assert result.nominations and result.nominations[0].verdict == expected, result


# The topic sentences of bench/data/invented_topics.jsonl that the rules did not read were the
# next cause: homes, jobs, statuses and diets in other common words (these are new sentences).
MORE_READ = [
    ("We're currently staying in Lisbon.", "residence", "lisbon"),
    ("I've been in Montreal for three years.", "residence", "montreal"),
    ("We settled down in Perth.", "residence", "perth"),
    ("I went back home to Cork.", "residence", "cork"),
    ("We live down south.", "residence", "down south"),
    ("I live out in Nevada.", "residence", "nevada"),
    ("Our flat is in Glasgow.", "residence", "glasgow"),
    ("Home for us is a village near York.", "residence", "village near york"),
    ("I make a living fixing bikes.", "job", "fixing bikes"),
    ("I got hired at a law firm.", "job", "law firm"),
    ("I manage a small hotel.", "job", "hotel"),
    ("I'm the head of sales at a software company.", "job", "sales"),
    ("I'm the lead developer at a startup.", "job", "lead developer"),
    ("I work retail.", "job", "retail"),
    ("I play drums in a wedding band for a living.", "job", None),
    ("I'm going through a divorce.", "relationship", "divorce"),
    ("I just started dating someone.", "relationship", "dating"),
    ("I eat only fish and vegetables.", "diet", "fish"),
    ("I eat a lot of meat.", "diet", "meat"),
]


@pytest.mark.parametrize(("text", "slot", "value"), MORE_READ)
def test_more_of_the_common_words_are_read(text: str, slot: str, value: str | None) -> None:
    assert detect_slot(text) == slot, find_slots(text)
    if value is not None:
        assert slot_value(text, slot) == value


@pytest.mark.parametrize(
    "text",
    [
        "I live alone.", "I live simply.", "I live for the weekends.", "I live here.",
        "I've been in the shower for an hour.", "I manage my own time.", "I'm the oldest of four.",
        "I make money on the side selling cakes.", "I'm seeing a movie tonight.",
    ],
)
def test_and_what_they_are_not(text: str) -> None:
    assert not {m.slot for m in find_slots(text) if not m.hint} & {"residence", "job", "relationship"}, (
        find_slots(text)
    )


TYPOS = [
    ("detroit", "detriot", True),  # two neighbours swapped
    ("london", "londn", True),  # one dropped
    ("chicago", "chicagoo", True),  # one added
    ("hamburg", "hamburh", True),  # one changed, in a long word
    ("banker", "barker", False),  # one changed in a shorter word makes another word
    ("paris", "paris", True),
    ("bristol", "brighton", False),
    ("boston", "austin", False),  # another first letter: another name
    ("mainz", "maine", False),  # too short to call a slip
    ("rome", "roma", False),  # short words: a slip makes other words
]


@pytest.mark.parametrize(("a", "b", "typo"), TYPOS)
def test_a_typo_is_one_slip_in_a_long_word(a: str, b: str, typo: bool) -> None:
    from bot.memory.rules.text import is_typo_of

    assert is_typo_of(a, b) is typo


def test_the_same_city_misspelt_is_not_a_move() -> None:
    result = verdict("I live in Detroit.", "i live in detriot now")
    assert result.duplicate_of is not None or result.nominations[0].verdict == VERDICT_SAME
    moved = verdict("I live in Boston.", "I live in Austin now.")
    assert moved.nominations and moved.nominations[0].verdict == VERDICT_CHANGE


# Chat and notes drop "I am" / "I have": the subject is put back before the topics are read.
DROPPED_SUBJECT = [
    ("Based in Cardiff these days.", "residence", "cardiff"),
    ("living in Quebec now", "residence", "quebec"),
    ("been living in Oslo since 2020", "residence", "oslo"),
    ("Married, three kids.", "relationship", "married"),
    ("not dating anyone right now", "relationship", None),
    ("Retired since March.", "job", "retired"),
    ("Vegetarian.", "diet", "vegetarian"),
    ("52 years old", "age", "52"),
    ("Age 47.", "age", "47"),
    ("Primary school teacher.", "job", "primary school teacher"),
    ("Software engineer at a bank.", "job", None),
    ("Just moved to Leeds!", "residence", "leeds"),
]


@pytest.mark.parametrize(("text", "slot", "value"), DROPPED_SUBJECT)
def test_a_dropped_subject_is_put_back(text: str, slot: str, value: str | None) -> None:
    assert detect_slot(text) == slot, find_slots(text)
    if value is not None:
        assert slot_value(text, slot) == value


@pytest.mark.parametrize(
    "text",
    ["Coffee lover.", "Big fan of jazz.", "Been to Paris twice.", "Based on a true story.",
     "Living the dream!", "A dog person.", "From time to time I paint.", "Single malt, neat."],
)
def test_a_fragment_that_is_not_a_fact_about_the_topics(text: str) -> None:
    assert not {m.slot for m in find_slots(text) if not m.hint} & {
        "residence", "job", "relationship", "diet", "age", "origin"
    }, find_slots(text)


def test_terse_notes_are_compared_like_sentences() -> None:
    moved = verdict("Based in Cardiff.", "I live in Bath now.")
    assert moved.nominations and moved.nominations[0].verdict == VERDICT_CHANGE
    same = verdict("I'm vegetarian.", "Vegetarian.")
    assert same.duplicate_of is not None or same.nominations[0].verdict == VERDICT_SAME


# Third pass (2026-12-01, third session): values read from where they stand. Causes found in the
# misses of the second held-out set once it was spent (heldout2, now tuning); the sentences here
# are new. An age said any way is its number; a contact detail is recognised by its shape; the
# workplace said first is a job; having found work is being employed, never "no job".
THIRD_READ = [
    ("I'm 52 years young!", "age", "52"),
    ("I am 61 years of age.", "age", "61"),
    ("I have 29 years.", "age", "29"),
    ("reach me up at lina.w@post.example", "email", "lina.w@post.example"),
    ("hit me up on 0161 496 0000", "phone", "0161 496 0000"),
    ("Mail is tom@home.example", "email", "tom@home.example"),
    ("cell is 020 7946 0321", "phone", "020 7946 0321"),
    ("My number's 404-555-0172, call whenever.", "phone", "404 555 0172"),
    ("The print shop on Elm Road is where I work.", "job", "print shop on elm road"),
    ("i just got a job at the post office!", "job", "post office"),
    ("Got a new job!", "job", "employed"),
    ("i cannot afford a car right now", "car", "none"),
    ("Being single is great.", "relationship", "single"),
    ("im a web dev at an agency", "job", None),
    ("i teach year 6 at a village school", "job", "teacher"),
]


THIRD_NOT_READ = [
    ("i have 3 years of experience in sales.", "age"),
    ("My mum's email is jan@family.example.", "email"),
    ("I have a job interview on Monday.", "job"),
    ("My sister is a web dev.", "job"),
]


THIRD_PAIRS = [
    # an age only the vectors or a loose phrase names is still compared by its number
    ("I'm 52 years young!", "im 30", VERDICT_CHANGE),
    ("I have 29 years.", "I am 29.", VERDICT_SAME),
    ("cell is 020 7946 0321", "My phone number is 020 7946 0999", VERDICT_CHANGE),
    ("reach me up at lina.w@post.example", "My email is lina@new.example", VERDICT_CHANGE),
    ("I'm a plumber.", "i just got a job at the post office!", VERDICT_CHANGE),
    ("I'm unemployed.", "Got a new job!", VERDICT_CHANGE),
    ("I drive a Mazda.", "i cannot afford a car right now", VERDICT_CHANGE),
]


# Read from the third held-out set's misses once it was measured (heldout3, then tuning); new
# sentences. A working vehicle is a job, a public employer is a workplace, "a married man" is a
# status, a favourite said first or as a note is a favourite, fish without meat is pescatarian.
FOURTH_READ = [
    ("i drive a semi across the midwest.", "job", "driver"),
    ("I drive a school bus.", "job", "driver"),
    ("i sweep streets for the county.", "job", "sweep streets"),
    ("i am a happily married woman.", "relationship", "married"),
    ("Lasagna is hands down my favorite food.", "favorite_food", "lasagna"),
    ("Green, definitely my favorite colour.", "favorite_color", "green"),
    ("Favourite band? Blur.", "favorite_band", "blur"),
    ("curry is my favorite thing to eat", "favorite_food", "curry"),
    ("i dont eat meat but i eat seafood", "diet", "pescatarian"),
    ("I now live in the city.", "residence", "city"),
    ("Getting hitched in June to my fiancee!", "relationship", "engaged"),
    ("i rent a small flat in glasgow.", "residence", "glasgow"),
    ("Now I am live in Lagos.", "residence", "lagos"),
    ("our home is an old narrowboat cabin.", "home_type", "cabin"),
    ("We broke up in March, so I'm single now.", "relationship", "single"),
    ("We split up in 2020, so I'm divorced now.", "relationship", "divorced"),
    ("i am a wife and a mum of three.", "relationship", "married"),
    ("i'm a proud husband and dad.", "relationship", "married"),
    ("we are newlyweds.", "relationship", "married"),
    ("i am a divorcee.", "relationship", "divorced"),
    ("i am a single mum of twins.", "relationship", "single"),
    ("i love the smiths, they are my favorite band.", "favorite_band", "smiths"),
    ("i like to eat tacos, it is my favorite food.", "favorite_food", "tacos"),
]


FOURTH_NOT_READ = [
    ("Favorite color? Blue.", "job"),  # "color" ends like an agent noun, and is none
    ("My favorite flavor is mint.", "job"),
    ("i drive a semi across the midwest.", "car"),
    ("i voted for the union.", "job"),
    ("I now live in the city.", "job"),
    ("my flat is on the third floor.", "residence"),
]


FOURTH_PAIRS = [
    ("I drive a Ford Focus.", "i drive a semi across the midwest.", None),  # a job, not a car
    ("i'm a barista.", "i drive a semi across the midwest.", VERDICT_CHANGE),
    ("I'm single.", "i am a happily married woman.", VERDICT_CHANGE),
    ("Lasagna is hands down my favorite food.", "curry is my favorite thing to eat", VERDICT_CHANGE),
    ("I'm vegetarian.", "i dont eat meat but i eat seafood", VERDICT_CHANGE),
]


# Found by the conversation stories of this pass (tests/support/stories.py): changes told the
# way people type them, each of which asked nothing before and left two values current.
TOLD_IN_CHAT = [
    ("new number: 0161 555 0101", "phone", "0161 555 0101"),
    ("got a new phone number, 0161 555 0199", "phone", "0161 555 0199"),
    ("new email: sam@new.example", "email", "sam@new.example"),
    ("I use sam.k@mail.example for email these days", "email", "sam.k@mail.example"),
    ("Tesco is where I work now", "job", "tesco"),
    ("I gave up law, I teach now", "job", "teacher"),
    ("new job at the museum!", "job", "museum"),
    ("turned 41 on Sunday", "age", "41"),
    ("Just started at the council offices", "job", "council offices"),
]


def test_an_age_only_the_vectors_name_is_compared_by_its_number() -> None:
    """"Thirty three, as of May." names no topic in words; the vectors' topic (age) is given, and
    its number is compared with the number the other fact states (a captured "30" holds no
    content word, only a number)."""
    from bot.memory.rules.conflict import VERDICT_CHANGE as CHANGE, VERDICT_SAME as SAME

    def said(old: str) -> str:
        found = assess("Thirty three, as of May.", [Fact(id=1, text=old, slot=detect_slot(old))], new_slot="age")
        return SAME if found.duplicate_of == 1 else found.nominations[0].verdict  # now read in words too

    assert said("Age 30.") == CHANGE
    assert said("I'm 33.") == SAME


# Read from the fourth held-out set's misses once it was measured (heldout4, then tuning); new
# sentences.
FIFTH_PAIRS = [
    # one profession with other detail is a refinement: Keep both
    ("i'm a paediatric nurse.", "i'm an rn at a care home.", VERDICT_SAME),
    ("I'm a maths teacher.", "i teach at a high school", VERDICT_SAME),
    ("I'm a nurse.", "I'm a dentist.", VERDICT_CHANGE),
    ("winter is my favorite time of year.", "winter is my favourite season.", VERDICT_SAME),
    ("I've taught primary school for 20 years.", "i tend bar at a pub downtown.", VERDICT_CHANGE),
]


def test_a_value_that_names_more_is_stored_and_asked_never_dropped_as_a_duplicate() -> None:
    """"i am a bank teller" after "i work at a bank" says more (teller): taken for a duplicate it
    would not be stored, and the person's words would be lost. It is asked about, Keep both."""
    result = verdict("i work at a bank.", "i am a bank teller.")
    assert result.duplicate_of is None
    assert [n.verdict for n in result.nominations] == [VERDICT_SAME]
    # the same value in other words is still not stored twice
    assert verdict("I live in Berlin", "Berlin is where I live").duplicate_of == 1


def test_one_more_said_as_one_more_is_not_a_recount() -> None:
    assert not verdict("i have a wife and two boys.", "i also have a baby boy.").nominations
    recount = verdict("I have two boys.", "I have three boys.")
    assert recount.nominations and recount.nominations[0].verdict == VERDICT_CHANGE


# Read from the fifth held-out set's misses once it was spent (heldout5); new sentences. A job
# said as a greeting, a home said first without "is", a favourite that "has always been".
SIXTH_READ = [
    ("Paramedic here, nights mostly.", "job", "paramedic"),
    ("retired teacher here!", "job", None),
    ("Oregon's home these days.", "residence", "oregon"),
    ("orange has always been my favourite colour", "favorite_color", "orange"),
]
SIXTH_NOT_READ = [
    ("Dad here, two kids.", "job"),
    ("Fishing here is great.", "job"),
    ("i went home now", "residence"),
    ("Pizza was my favorite food as a kid.", "favorite_food"),
]
SIXTH_PAIRS = [
    ("Paramedic here, nights mostly.", "i am a librarian.", VERDICT_CHANGE),
    ("Oregon's home these days.", "i live in ohio.", VERDICT_CHANGE),
    ("orange has always been my favourite colour", "my favorite color is teal.", VERDICT_CHANGE),
]


# Read from the sixth and seventh held-out sets' misses once they were spent (2026-12-03); new
# sentences. A job said as a note of its own, a favourite said as the best of its category or
# without "favourite", "fav", a note the other way round; autumn is fall.
SEVENTH_READ = [
    ("Midwife, eleven years now.", "job", "midwife"),
    ("Stay-at-home dad to three wild boys.", "job", "stay at home dad"),
    ("Currently unemployed, looking though.", "job", "unemployed"),
    ("im a dds, mostly fillings", "job", "dds"),
    ("winter is the best season, no contest", "favorite_season", "winter"),
    ("jaws is the greatest movie ever made", "favorite_movie", "jaws"),
    ("purple is my colour, always has been", "favorite_color", "purple"),
    ("my fav band is the killers", "favorite_band", "killers"),
    ("Lasagna. Favorite food, easy.", "favorite_food", "lasagna"),
    ("favorite drink is iced tea", "favorite_drink", "iced tea"),
    ("my favorite color has always been sky blue", "favorite_color", "sky blue"),
    ("Lifelong Tulsa resident.", "residence", "tulsa"),
    ("we spend our days in arizona now", "residence", "arizona"),
    ("Doing paleo, six months in.", "diet", "paleo"),
    ("i share a small flat with my sister", "home_type", "flat"),
    ("we rent a third floor walkup", "home_type", "walkup"),
    ("i repair engines at my own garage", "job", None),
]
SEVENTH_NOT_READ = [
    ("Pizza, every friday night.", "job"),
    ("Dog person, obviously.", "job"),
    ("no girlfriend rn, single", "job"),  # "rn" is "right now" here (found in heldout7's unrelated pairs)
    ("this is the best taco truck in town", "favorite_food"),
    ("my boss is the best person i know", "favorite_person"),
    ("that was the best movie ever", "favorite_movie"),
    ("I am a surgical resident.", "residence"),
    ("I spend my days in meetings.", "residence"),
    ("i have a dog house", "home_type"),
    ("i grow cactus and succulents in my yard", "job"),  # a yard of one's own is no workplace
    ("I bake bread in my kitchen on sundays", "job"),
]
SEVENTH_PAIRS = [
    ("Midwife, eleven years now.", "i work as a bus driver.", VERDICT_CHANGE),
    ("winter is the best season, no contest", "my favourite season is spring", VERDICT_CHANGE),
    ("autumn is by far the best season", "fall is my favorite time of year", VERDICT_SAME),
    ("we rent a third floor walkup", "i live in a tiny apartment", VERDICT_SAME),
    ("Lifelong Tulsa resident.", "I live in Denver.", VERDICT_CHANGE),
]



# Sixth pass (heldout8/9 spent, 2026-12-03); new sentences. One's car named by its make or
# model, an age said first or by a birthday, a city by any of its names is one home.
EIGHTH_READ = [
    ("my old corolla finally needs new tires", "car", "corolla"),
    ("our subaru outback has 300k on it", "car", "subaru"),  # "outback" is also a word
    ("my trusty f-150 never lets me down", "car", "f 150"),
    ("my work truck is a chevy", "car", "chevy"),
    ("71 and still chopping my own wood", "age", "71"),
    ("Only 19 but i pay my own rent", "age", "19"),
    ("my 45th birthday is next week, send cake", "age", "45"),
    ("30 candles this year, where did the time go", "age", "30"),
    ("i moved to the big apple last spring", "residence", "big apple"),
    ("the divorce went through in june, onwards", "relationship", "divorced"),
    ("i raise sheep and grow barley up north", "job", "farmer"),
]
EIGHTH_NOT_READ = [
    ("my phone charger broke again", "car"),
    ("my dad s honda is older than me", "car"),  # someone else's car
    ("my tesla stock is down again", "car"),
    ("i sell cars at the toyota dealership", "car"),
    ("2 and a half years at this job now", "age"),
    ("12, 14 and 16 are my kids ages", "age"),
    ("100 and counting, days sober that is", "age"),
    ("Doing paleo rn, no grains", "job"),  # "rn" is "right now" here
    ("Moved out last week. New chapter!", "job"),  # a chapter is no job
    ("i grow tomatoes on my balcony", "job"),  # a gardener, not a farmer
]
EIGHTH_PAIRS = [
    ("I live in NYC.", "the big apple has been home for ten years", VERDICT_SAME),
    ("I live in the windy city.", "i moved to chicago in 2019", VERDICT_SAME),
    ("I live in Boston.", "we moved to beantown last year", VERDICT_SAME),
    ("I live in Philly.", "I moved to Pittsburgh.", VERDICT_CHANGE),
    ("my old corolla finally needs new tires", "I drive a Tesla now.", VERDICT_CHANGE),
    ("my honda civic has 200k miles", "I drive a Civic.", VERDICT_SAME),
    ("I'm 34 years old.", "41 and loving it", VERDICT_CHANGE),
    ("I love cold brew.", "quit smoking cold turkey last year", None),  # how, not what, changed
]

# Seventh pass (heldout10/11 spent, 2026-12-03); new sentences. Retirement told by what was hung
# up or came before it, a student by their year or major, a wedding had or planned, a known city
# one was born and raised in.
NINTH_READ = [
    ("hung up my stethoscope after 38 years on the wards", "job", "retired"),
    ("drove a cab for 30 years before i retired", "job", "retired"),
    ("finally hung it up in 2019, no more alarm clocks", "job", "retired"),
    ("retird and loving the quiet", "job", "retired"),
    ("sophomore at penn state, engineering", "job", "student"),
    ("majoring in biology, minoring in coffee", "job", "student"),
    ("we tied the knot on a beach in maui", "relationship", "married"),
    ("popped the question at the lake, she said yes", "relationship", "engaged"),
    ("our wedding is in october, so much planning", "relationship", "engaged"),
    ("swiping left a lot, still single", "relationship", "single"),
    ("Philly born and raised, wooder ice forever", "residence", "philly"),
    ("born and raised in cleveland, never leaving", "residence", "cleveland"),
    ("born and raised in ohio but moved to texas for work", "residence", "texas"),  # not ohio
    ("we moved up to duluth last year", "residence", "duluth"),
]
NINTH_NOT_READ = [
    ("i hung up on a telemarketer today", "job"),
    ("hung up the christmas lights already", "job"),
    ("my brother is a junior at ohio state", "job"),  # his studies
    ("my sister tied the knot last june", "relationship"),
    ("farm born and raised, hands like leather", "residence"),  # no city
]
# Seen in a terminal walk: a word said one at a time for emphasis is not a fragment of its own
# ("Every. Single. Day." was the status single, asked about against "I am married to Sam").
TENTH_READ = [
    # a job by "<profession> life", by its field's doer, or said first before a comma or a number
    ("fixing burst pipes in the rain, plumber life", "job", "plumber"),
    ("bookkeeper life means spreadsheets till midnight", "job", "bookkeeper"),
    ("calving season again, ranch life never stops", "job", "rancher"),
    ("Electrician, 15 years in the trade", "job", "electrician"),
    ("long haul trucker since the 90s", "job", None),
    ("paramedic 10 yrs, seen it all", "job", "paramedic"),
    ("teaching year 9 geography and losing my voice", "job", "teacher"),
    ("been teaching kindergarten for eleven years", "job", "teacher"),
    ("junior in civil engineering, finals next week", "job", "student"),
    ("final year of my bsn, placements start monday", "job", "student"),
    ("qualified sparky, mostly rewiring old houses", "job", None),
    # a home by its city alone or with the words around it
    ("Tulsa, Oklahoma.", "residence", None),
    ("Halifax NS. Foggy most days.", "residence", None),
    ("spokane's been home since 1999", "residence", "spokane"),
    ("Lisbon is my city now, I'm never leaving", "residence", "lisbon"),
    ("home base is tampa but i travel a lot", "residence", "tampa"),
    ("here in melbourne the trams run all night on weekends", "residence", None),
    ("calgary area, out past the ring road", "residence", "calgary"),
    ("29 as of last tuesday", "age", "29"),
    # misspelt as chat writes it; learner's English without the article; Indian English
    ("been divorsed since 2015, best decision ever", "relationship", "divorced"),
    ("maried 12 years this august", "relationship", "married"),
    ("the divorse went through in march, finally", "relationship", "divorced"),
    ("my husband and i are living separately for now", "relationship", "separated"),
    ("we have been living apart since the summer", "relationship", "separated"),
    ("I am driver for a logistics company", "job", "driver"),
    ("I am pure veg since childhood", "diet", "vegetarian"),
    ("asked my girlfriend to marry me on the beach and she said yes", "relationship", "engaged"),
    ("had to sell my car after the layoff, bus it is", "car", None),
    ("so Zoë proposed at the top of the eiffel tower", "relationship", "engaged"),
    ("I study chemistry at the university, second semester", "job", "student"),
    ("finally hit the big 3-0, where did my twenties go", "age", "30"),
    ("the big six-oh is next month and i feel 25", "age", "60"),
    ("thirty eight last week and nobody remembered", "age", None),
    ("35 going on 80, my back agrees", "age", "35"),
    ("been baking professionally since i left school", "job", None),
    ("been doing bookkeeping for about twelve years", "job", None),
    ("been driving the number 12 bus for a decade", "job", "driver"),
    # a partner named without "my", a partner's proposal, no partner said first
    ("the hubby is making pancakes again", "relationship", None),
    ("wifey wants a new couch, send help", "relationship", None),
    ("so jamal finally proposed last weekend!!", "relationship", "engaged"),
    ("my girlfriend popped the question on new years", "relationship", "engaged"),
    ("no boyfriend, no drama, just me and my cat", "relationship", "single"),
    # an age said first in words, a city one was born and bred in, a misspelt diet said first
    ("forty three and my knees know it", "age", None),
    ("glasgow born and bred, wouldnt live anywhere else", "residence", "glasgow"),
    ("vegitarian for ten years and counting", "diet", None),
    ("Single. Every single day I wonder why.", "relationship", "single"),
]
TENTH_NOT_READ = [
    ("city life is too loud for me", "job"),
    ("mom life is pure chaos today", "job"),
    ("the night life here is dead", "job"),
    ("Dog lover, obviously", "job"),
    ("my sister finally proposed to her girlfriend", "relationship"),
    ("dad proposed to mum on a ferry in 1979", "relationship"),
    ("no man is an island", "relationship"),
    ("teaching my daughter to drive is terrifying", "job"),
    ("Rome. Best trip of my life.", "residence"),
    ("here in vegas for the weekend, wish me luck", "residence"),
    ("Seattle seahawks fan since birth", "residence"),
    ("Denver.", "job"),
    ("i am older than my sister", "job"),
    ("i am senior in my team now", "job"),
    ("my brother asked his girlfriend to marry him", "relationship"),
    ("i study spanish at night school for fun", "job"),
    ("my husband is turning the big 5-0 on friday", "age"),
    ("the big 40 bash was epic, thanks everyone", "age"),
    # what precedes a comma, said first, is a job only when it names a listed profession
    ("Tesla Model 3, never going back to gas", "job"),
    ("model 3, charging is a pain on trips", "job"),
    ("my neighbour's a pastry chef, I taste everything", "job"),
    ("Lavender, rosemary and thyme in the window box", "job"),
    ("the bus driver on my route knows my name", "job"),
    ("31 and still getting carded at every bar", "job"),
    ("my sister and her husband are living apart", "relationship"),
    ("driving the kids to school then straight to the gym", "job"),
    ("teaching the puppy to sit, send patience", "job"),
    ("Houston. Humid. Every. Single. Day.", "relationship"),
    ("Each. Single. Time. I forget my keys.", "relationship"),
    ("Not. One. Single. Text back from him.", "relationship"),
]
NINTH_PAIRS = [
    ("I'm a retired teacher.", "hung up the whistle after 30 years of coaching", VERDICT_SAME),
    ("I'm single.", "still single, and fine with it", VERDICT_SAME),
    ("I live in Atlanta.", "ATL born and raised", VERDICT_SAME),
    ("I live in Denver.", "Chicago born and raised", VERDICT_CHANGE),
    # one profession said by its doer, its deed or its abbreviation is one value
    ("I'm a teacher.", "i teach biology at a middle school", VERDICT_SAME),
    ("I work as a nurse at a clinic.", "i'm an rn at a big hospital downtown", VERDICT_SAME),
    ("I'm a paramedic.", "I work night shifts as a paramedic.", VERDICT_SAME),  # shifts: no value
    ("I'm an accountant.", "i do the accounting for a dental office", VERDICT_SAME),
    ("I'm a truck driver.", "trucker for 20 years, still love the open road", VERDICT_SAME),
    ("I work at a retirement home as a cook.", "I'm retired now.", VERDICT_CHANGE),
    ("I'm a plumber.", "i teach biology at a middle school", VERDICT_CHANGE),
    # no meat said twice, by stopping or by not eating, is one diet; eating it is another
    ("I don't eat meat.", "stopped eating meat three years ago", VERDICT_SAME),
    ("I haven't eaten meat in years.", "gave up meat for good, no regrets", VERDICT_SAME),
    ("I eat meat.", "stopped eating meat three years ago", VERDICT_CHANGE),
    ("I'm vegetarian.", "im vegitarian btw", VERDICT_SAME),
    # a car by its make and model, whatever is said of it; a home by the one city it names
    ("my old civic has 250k miles on it", "I drive a Honda Civic.", VERDICT_SAME),
    ("i drive a rusty civic with a cracked windshield", "drive a little honda civic now, great on gas",
     VERDICT_SAME),
    ("I drive a Ford pickup truck.", "I drive a Ford Mustang.", VERDICT_CHANGE),
    # a model is its make's: the make said later is the same car, another make's model a change
    # (ninth pass: "My toyota needs new tires" after "I drive a Camry" recommended Mark older as past)
    ("I drive a Camry.", "My toyota needs new tires.", VERDICT_SAME),
    ("my old civic has 250k miles on it", "my honda is ten years old", VERDICT_SAME),
    ("I drive a Golf GTI.", "my volkswagen is in the shop again", VERDICT_SAME),
    ("I drive a Camry.", "I drive a Civic now.", VERDICT_CHANGE),
    ("I drive a Toyota.", "I just bought a Honda Civic.", VERDICT_CHANGE),
    ("I live in Portland, Oregon.", "moved to portland for the coffee and never left", VERDICT_SAME),
    ("I live in Austin, Texas.", "i live in houston texas", VERDICT_CHANGE),
    ("moved down to ATX for the job", "Austin is home now, love the live music", VERDICT_SAME),
    # trade slang is its profession; a number of years is not part of the job
    ("I'm an electrician.", "qualified sparky, mostly rewiring old houses", VERDICT_SAME),
    ("I'm a carpenter.", "been a chippy twenty years", VERDICT_SAME),
    ("I'm a plumber.", "been a welder twenty years", VERDICT_CHANGE),
    # the same status, diet or no car said again, misspelt or in other words: Keep both
    ("Divorced since 2019.", "been divorsed almost ten years now", VERDICT_SAME),
    ("I am vegetarian.", "vegitarian 15 yrs now", VERDICT_SAME),
    ("I am pure veg.", "I'm vegetarian.", VERDICT_SAME),
    ("I don't own a car.", "had to sell my car last year, it's the bus for me", VERDICT_SAME),
    ("Just got engaged!", "asked my boyfriend to marry me and he said yes", VERDICT_SAME),
    ("I am staff nurse in a government hospital.", "I'm an RN on a surgical ward.", VERDICT_SAME),
]

# Tenth pass (seen in a terminal walk): a car sold by its model is no car, whatever model names
# it ("I sold my honda civic" was read as the car honda civic, so a sale said after driving it
# was "the same thing said again"); a make's short name; a question one answers with no denies
# its value; a filler word after "i am" hides nothing.
ELEVENTH_READ = [
    ("I sold my honda civic", "car", "none"),
    ("sold my old f150 last month", "car", "none"),
    ("we sold the polo, bikes only now", "car", "none"),
    ("we sold our camry when the baby came", "car", "none"),
    ("i totaled my camry on the ice", "car", "none"),
    ("I got rid of my vw", "car", "none"),
    ("I sold my car and bought a Tesla", "car", "tesla"),
    ("my vw is in the garage again", "car", "vw"),
    ("my merc needs a service", "car", "merc"),
    ("Married? No wait. I'm actually divorced since last spring.", "relationship", "divorced"),
    ("Married? No. Single.", "relationship", "single"),
    ("Single? Nope, engaged!", "relationship", "engaged"),
    ("married? yes, 10 years", "relationship", "married"),
    ("married? not anymore, divorced in 2019", "relationship", "divorced"),
    ("I'm actually a nurse", "job", "nurse"),
    ("im kinda single rn", "relationship", "single"),
    # an age by one's birthday's ordinal, nickname, years alive, or a learner's word order
    ("Just had my 55th, the guys on the crew got me a cake", "age", "55"),
    ("I celebrated my forty-fifth birthday at school", "age", "45"),
    ("I celebrated my sixtieth with the family", "age", "60"),
    ("sweet sixteen last saturday!! my friends bought cake", "age", "16"),
    ("Half a century today! Big party", "age", "50"),
    ("47 years on this earth and I still can't park", "age", "47"),
    ("Seventy-three years young, as my wife likes to say", "age", "seventy three"),
    ("Forty-five candles on the cake last weekend", "age", "forty five"),
    ("Just hit 42 and my coworkers decorated the break room", "age", "42"),
    ("just turn 31 last week, mi friends dem surprise mi", "age", "31"),
    ("I 64 this year, can get senior citizen discount", "age", "64"),
    # a marriage by its wedding, its years, a spouse's death; single or engaged in chat's words
    ("Mary And I Said I Do In 1963 At The Little White Church", "relationship", "married"),
    ("Been hitched to Marlene since '76", "relationship", "married"),
    ("Linda and I celebrate 50 years of marriage this October.", "relationship", "married"),
    ("my bride of 43 years still beats me at cribbage", "relationship", "married"),
    ("been Mrs. Campbell for 25 years now and he still brings me flowers", "relationship", "married"),
    ("My Wife Margaret Passed Away Three Years Ago This Spring.", "relationship", "widowed"),
    ("my husband passed four winters ago", "relationship", "widowed"),
    ("my wife passed three years back, miss her every day", "relationship", "widowed"),
    ("nah no girlfriend, just me and my dog", "relationship", "single"),
    ("single af and honestly kinda loving it", "relationship", "single"),
    ("my girl said YES!! wedding is next june", "relationship", "engaged"),
    ("My partner and I exchanged vows at City Hall in 2014", "relationship", "married"),
    ("Dating apps are a joke. Been solo two years now and I'm fine with it.", "relationship", "single"),
    ("Forty years on the buses and now a lie-in every day. Retirement suits me down to the ground.", "job", "retired"),
    ("31 years at the district office, hung it up last spring. Retirment suits me fine.", "job", "retired"),
]
ELEVENTH_NOT_READ = [
    ("sold my golf clubs on ebay", "car"),
    ("Married? Nah.", "relationship"),
    ("Car? No.", "car"),
    ("Tim's double double at every stop, can't drive without one", "car"),  # a coffee, not no car
    ("I do not drive to work, I cycle", "car"),
    ("we celebrated our 12th anniversary", "age"),
    ("her sweet sixteen is next week", "age"),
    ("celebrating my daughter's 5th birthday", "age"),
    ("I just hit 100 followers", "age"),
    ("my parents celebrate 50 years of marriage", "relationship"),
    ("the bride said i do", "relationship"),
    ("my husband and i just hit ten years", "age"),  # a marriage's years
    ("my sister is solo travelling for months", "relationship"),
]
# an age told to the bot, its subject dropped or turned round, an emoji or "rn" after it
# (read from heldout18/19's misses; sentences written for the test)
TWELFTH_READ = [
    ("just so u know, 52 and still climbing ladders", "age", "52"),
    ("heads up im 33 rn and tired", "age", "33"),
    ("im 19 btw, so be patient with me", "age", "19"),
    ("turned 40 yesterday 🎉 the kids made pancakes", "age", "40"),
    ("fix my age please, just turned 61 🎂", "age", "61"),
    ("41 yesterday, quiet dinner with the wife", "age", "41"),
    ("noted? 24 y/o, working nights at the depot", "age", "24"),
    ("you can put me down as fifty-five", "age", "fifty five"),
    ("store this: am 46. still no grey hair", "age", "46"),
    ("Age? 58.", "age", "58"),
    ("36. Two kids, one dog, no sleep.", "age", "36"),
    ("Sixty-two. Back says ninety.", "age", "sixty two"),
    ("How old? Last spring I became 44.", "age", "44"),
    ("52 years I am, thirty of them at sea", "age", "52"),
    ("jot this down: I drive a Skoda now", "car", "skoda"),
    # retirement in other words, a job one speaks as, chat's abbreviations, partners and singles
    ("After thirty years at the council I am now retired, thank God", "job", "retired"),
    ("sold the shop in 2016 and have been enjoying a lazy retirement since", "job", "retired"),
    ("drove a taxi 30 years, pensioned off now", "job", "retired"),
    ("night shift again, as charge nurse I never sit down", "job", "charge nurse"),
    ("twelve hours in the bakery as head baker, feet are done", "job", "head baker"),
    ("headset on all day, CSR life", "job", "csr"),
    ("Deckhand on a trawler since I left school.", "job", None),
    ("my Scottish wife laughs at my accent", "relationship", "wife"),
    ("single n loving it", "relationship", "single"),
    ("still no boyfriend, single af and fine", "relationship", "single"),
    ("sinlge. too busy for dates", "relationship", "single"),
    ("As for that, I am at the moment single.", "relationship", "single"),
    ("twenty years we're wed this June", "relationship", "married"),
    ("Tom and I celebrate our 10th wedding anniversary on Friday", "relationship", "married"),
    ("wedding ring comes off for every shift at the bakery", "relationship", "married"),
]
TWELFTH_NOT_READ = [
    ("my son just turned 5, cake everywhere", "age"),
    ("12. that is how many eggs the hens laid", "age"),
    ("2. pick up the kids", "age"),
    ("write a novel someday, that's the dream", "job"),
    ("put me down as a maybe for saturday", "age"),
    ("we have 3 kids, 40 chickens", "age"),
    ("dressed up as a nurse for halloween", "job"),
    ("my sister in leeds working as pharmacist, i miss her", "job"),
    ("I started as a cashier in 2001", "job"),
    ("my sister husband is a cop", "relationship"),
    ("my best friend husband cooks for us", "relationship"),
    ("my sister's wedding ring got lost at the beach", "relationship"),
    ("my parents' wedding anniversary is next week", "relationship"),
]
# a partner who passed an exam is no widowhood (the hint of a partner stays)
PASSED_NOT_DIED = [
    ("my husband passed the exam", "husband"),
    ("my wife Jane passed her driving test", "wife"),
]
ELEVENTH_PAIRS = [
    ("I drive a Honda Civic.", "I sold my honda civic last week.", VERDICT_CHANGE),
    ("I drive an old VW Polo.", "we sold the polo, bikes only now", VERDICT_CHANGE),
    ("I drive a Golf GTI.", "my vw is in the garage again", VERDICT_SAME),
    ("I'm married.", "Married? No wait. I'm actually divorced since last spring.", VERDICT_CHANGE),
    ("Retired after 35 years at the post office.", "Aye, I'm a pensioner now, eleven years since I left", VERDICT_SAME),
    ("I'm single.", "Married? No. Single.", VERDICT_SAME),
]

# how a drink is taken and how much of it is no change of the drink (twelfth pass: "coffee
# black, no sugar" was a negated coffee, "10 cups a day" a recount of "a cup of tea")
TWELFTH_PAIRS = [
    ("I drink coffee black, no sugar", "can't start the day without a flat white", VERDICT_SAME),
    ("a strong mug of tea at breakfast", "builder's tea, six cups a day", VERDICT_SAME),
    ("two cups of kape before my shift", "coffee, probably 5 cups a day", VERDICT_SAME),
    ("I drink coffee", "I don't drink coffee anymore", VERDICT_CHANGE),
    ("Married.", "twenty years we're wed this June", VERDICT_SAME),
    # a compound fact is not wholly replaced by one of its topics: nothing is recommended
    ("I'm 34 and I live in Leeds", "turned 35 yesterday", VERDICT_UNCLEAR),
    ("I'm 34", "turned 35 yesterday", VERDICT_CHANGE),
    ("I am a 56 year old woman.", "I am 57 now", VERDICT_CHANGE),  # "woman" says no topic one loses
    # a filler word is no object of change wording: "kinda" named nothing that changed
    ("single af and honestly kinda loving it", "just turned 20, no longer a teenager which is kinda sad", None),
]

# thirteenth pass: a learner's birthday, a single person in other words, cars by a two-digit
# year and by models of other markets; a question someone else asks is no wedding, a car in the
# garage is no job (sentences written for the tests)
THIRTEENTH_READ = [
    ("I make forty this year, my sister bakes the cake", "age", "forty"),
    ("Sixty-one years I completed in March, still cycling", "age", "sixty one"),
    ("I am 47 year, my back is older", "age", "47"),
    ("auntie keeps asking when I'm getting married, I'm not even seeing anyone", "relationship", "single"),
    ("Not married yet, no hurry", "relationship", "single"),
    ("my 07 tiida is finally dying", "car", "tiida"),
    ("still driving my 03 commodore to the footy", "car", "commodore"),
    ("I drive a Perodua Myvi", "car", None),
    ("after the divorce I took a flat near the office", "relationship", "divorced"),
    ("five years since the split, still friends", "relationship", "divorced"),
    ("my ex and I co-parent the twins", "relationship", "divorced"),
    ("my better half hates my snoring", "relationship", None),
    ("wife's been nagging me about the gutters", "relationship", None),
]
THIRTEENTH_NOT_READ = [
    ("everyone asks me when I'm getting married", "relationship"),
    ("my nan wonders whether I'll ever get married", "relationship"),
    ("astra's in the garage again", "job"),
    ("I am 10 years sober", "age"),
    ("I am 5 years into my career", "age"),
    ("I live in Malibu", "car"),
    ("since my sister's divorce she lives with us", "relationship"),
    ("wife material, my mum says", "relationship"),
]
FOURTEENTH_READ = [
    ("i drive the big bus from the depot to the airport, six runs a day", "job", "driver"),
    ("driving city bus on the night line, quiet roads", "job", "driver"),
    ("I drive the 73 bus through town", "job", "driver"),
    ("10th grade at a public school, finals next month", "job", "student"),
    ("3rd semester of nursing at the poly and I'm tired", "job", "student"),
    ("I'm in year 11 at the comprehensive", "job", "student"),
    ("the big four-oh arrived last week, no crisis yet", "age", "40"),
    ("61 this past spring and still climbing ladders", "age", "61"),
    ("I teach 10th grade at a public school", "job", "teacher"),  # a grade taught, not attended
    ("3rd year of my physics degree, exams soon", "job", "student"),
]
# a student of a trade who now works in it has changed jobs (the walk: "Keep both" was
# recommended for a nursing student become a staff nurse, by the shared word "nurse")
FOURTEENTH_PAIRS = [
    ("2nd year of my nursing degree and placements are brutal", "I'm a staff nurse on a cardiac ward now",
     VERDICT_CHANGE),
]
FOURTEENTH_NOT_READ = [
    ("I drive a little Fiat to the station", "job"),
    ("I drive the kids to school every morning", "job"),
    ("my daughter is in 3rd grade at the village school", "job"),
    ("12 this past week were tough", "age"),
    ("the big 50 party was a blast", "age"),
]
# fifteenth pass: what one says to the bot is no wish ("I wish to inform you"); the team a fan
# supports, told as fans tell it; a favourite with words between it and its value; a pronoun
# before "my favourite" names what came first; a spouse is married; a spouse who died by name;
# "bae"; a pensioner without an article; a new start in a city; a city and how long one has
# been there; a ute; the wedding in learner's English
FIFTEENTH_READ = [
    ("I wish to inform you that I have moved to Leeds", "residence", "leeds"),
    ("I would like you to know I got engaged in May", "relationship", "engaged"),
    ("I'm a lifelong supporter of Leeds United, through thick and thin", "favorite_team", "leeds united"),
    ("Hibs supporter since I was a boy", "favorite_team", "hibs"),
    ("I support Hajduk Split, every match on the telly", "favorite_team", "hajduk split"),
    ("season ticket at Anfield for twenty years", "favorite_team", None),
    ("boca till i die, even when they lose", "favorite_team", "boca"),
    ("My favourite film, if I had to choose, is Casablanca", "favorite_movie", "casablanca"),
    ("note: favourite band ever is Radiohead", "favorite_band", "radiohead"),
    ("My favourite novel remains Middlemarch", "favorite_book", "middlemarch"),
    ("Fairuz forever, she is my favourite singer", "favorite_singer", "fairuz"),
    ("My beloved husband Piet passed away last spring", "relationship", "widowed"),
    ("bae cooks better than me tbh", "relationship", "bae"),
    ("I am pensioner now, since three years", "job", "pensioner"),
    ("after the divorce I started over in Tallinn", "residence", "tallinn"),
    ("Leeds for 12 years now and still no tan", "residence", "leeds"),
    ("the work ute is a hilux, basically my office", "car", "hilux"),
    ("me and Jana we have wedding 15 years ago", "relationship", "married"),
    ("I am wife of Tomas since 1999", "relationship", "married"),
    ("no bf rn, too busy with exams", "relationship", "single"),
    ("I have taught fourth and fifth graders at the same school for twenty years", "job", "teacher"),
    ("forty years on the buses, now I have my pension and a garden", "job", "retired"),
    ("did 30 years at the plant, been pensioned off since 2012", "job", "retired"),
    ("I live on my state pension these days", "job", "retired"),
    ("I drive for Lyft most nights", "job", "driver"),
    ("driving Grab since 2019, before that a tuk tuk", "job", "driver"),
    ("me and Luca we made the wedding in 2012", "relationship", "married"),
    ("note: fave band the national, saw them twice", "favorite_band", "national"),
    ("for the record: all-time fave movie is Amelie", "favorite_movie", "amelie"),
    ("my favourite group is BTS obviously", "favorite_band", "bts"),
    ("fyi if anyone asks, jollof rice is my number one food forever", "favorite_food", "jollof rice"),
    ("Middlemarch is my best book, I reread it every winter", "favorite_book", "middlemarch"),
    ("Boise State Broncos, blue turf and all, that's my team", "favorite_team", "boise state broncos"),
]
FIFTEENTH_NOT_READ = [
    ("I am a huge fan of jazz, every club in town", "favorite_team"),  # (no team: a music fan)
    ("I support my sister in everything she does", "favorite_team"),
    ("I'm a big fan of Taylor Swift", "favorite_team"),
    ("my son is an Arsenal fan", "favorite_team"),
    ("Paris for three days, then Rome", "residence"),
    ("single rn, too busy", "job"),
    ("I'm 38 and my wife is 36 and teaches Chinese at the same school", "job"),
    ("I am teaching my son to drive", "job"),
    ("I manage the pension fund at work", "job"),
    ("I took an Uber home last night", "job"),
    ("I live on my state pension these days", "residence"),
    ("I live on coffee and spite", "residence"),
    ("my mum is my best friend", "favorite_friend"),
]
FIFTEENTH_PAIRS = [
    # a fan's team, then another: a change
    ("I'm a committed supporter of Hearts", "I support Aberdeen FC, every home match", VERDICT_CHANGE),
    # a spouse, then the missus: the same marriage, nothing asked
    ("my spouse and I celebrate our anniversary in June", "the missus says I work too much", None),
    # two cats, then a cat by its name: one of them (or one more), not a recount (Keep both)
    ("two cats, Salt and Pepper, rule the house", "I have a ginger cat named Fortune", VERDICT_SAME),
    # kids one teaches per class are no count of one's own
    ("I teach maths, thirty kids per class", "we have four kids under ten", None),
    # a pensioner and a retired man: the same
    ("I am pensioner since 9 years", "Retired. Thirty years on the rigs.", VERDICT_SAME),
]

# sixteenth pass: a town of the world by its name (GeoNames, bench/world_places.py), accents and
# emoji, a dash as a comma, the form's words, pidgin and learner's English, daily work
SIXTEENTH_READ = [
    ("Yerevan born and raised, Arabkir district", "residence", "yerevan"),
    ("born and raised in Pokhara", "residence", "pokhara"),
    ("Batumi is home now, sea and rain", "residence", "batumi"),
    ("Thiès is home, near to Dakar", "residence", "thies"),
    ("Kigali 🌋 is home, I can see the hills", "residence", "kigali"),
    ("Please be advised that my place of residence is Brno", "residence", "brno"),
    ("my residence is in Plovdiv, by the old town", "residence", "plovdiv"),
    ("I'm up in Inverness these days, it suits me", "residence", "inverness"),
    ("we're down south in Tartu, by the river", "residence", "tartu"),
    ("me and Gosia have been married twenty years", "relationship", "married"),
    ("I was joined in holy matrimony to my Anna in 1979", "relationship", "married"),
    ("Sixty-one summers now, and the knees know it", "age", "sixty one"),
    ("I am tour guide in the old city, every day walking", "job", "tour guide"),
    ("me na bus driver for Lagos, every day for road", "job", "bus driver"),
    ("i na cab man for twenty years", "job", "taxi driver"),
    ("Dental hygienist — that's me, scaling teeth all day", "job", "dental hygienist"),
    ("nowadays I'm home with the twins full time", "job", "stay at home"),
    ("I weld pipes all day at the yard", "job", "welder"),
    ("I fix cars all day, brakes mostly", "job", "mechanic"),
    ("I take tourists up the volcano every day", "job", "tour guide"),
    ("Car: none, I cycle everywhere", "car", None),
    ("Please save: I am bank teller in the city branch", "job", "bank teller"),
    ("For your files: I'm a midwife, nights mostly", "job", "midwife"),
    ("We have been lawfully wedded since 1998", "relationship", "married"),
    ("Ana and I celebrated our silver anniversary in May", "relationship", "married"),
    ("because the town I live in and moan about daily is Gyumri", "residence", "gyumri"),
    ("fyi 33 n already tired of everything", "age", "33"),
]
SIXTEENTH_NOT_READ = [
    ("I'm home with the kids today, they're off sick", "job"),
    ("I play video games all day at the weekend", "job"),
    ("my brother fixes cars all day", "job"),
    ("I'm up in the attic sorting boxes", "residence"),
    ("I am very tired today, long shift", "job"),
    ("coffee, every. single. day.", "relationship"),
    ("Police came by about the noise", "residence"),
    ("my parents' golden anniversary is next week", "relationship"),
    ("A Weißbier in the beer garden is the best thing in summer", "job"),  # a beer, not one who weisses
]
SIXTEENTH_HINTS = [
    # "me and X" is "we" only for a name: a partner's word is kept, it says the status
    ("me and my girlfriend live together", "girlfriend"),
    ("me n my hubby have a dog", "husband"),
]


@pytest.mark.parametrize(("text", "hint"), SIXTEENTH_HINTS)
def test_a_partner_named_with_me_keeps_its_word(text: str, hint: str) -> None:
    assert [(m.slot, m.value, m.hint) for m in find_slots(text)] == [("relationship", hint, True)]
SIXTEENTH_PAIRS = [
    # a salesman's sales are no car of his own that he sold
    ("I drive a Hilux, double cab", "sold two Hiluxes and a Land Cruiser before lunch, I'm a car salesman", None),
    # "long ago" names no thing that changed
    ("I am retired after a long career at the bank", "I gave up meat long ago but still eat fish", None),
    # "every single day" is no status
    ("Engaged! He asked last month.", "khachapuri every. single. day.", None),
    # a town with and without its accents is one town
    ("I live in Reykjavík", "Reykjavik is home", VERDICT_SAME),
    # a world town, then another: a move
    ("I live in Tartu", "Pärnu is home now", VERDICT_CHANGE),  # a small town as a whole value
]


# sixteenth pass (misses of the spent heldout28/29, in other words): the bot addressed before the
# fact, a form's job line, the years one has been it, a birthday by when it came, an age in one's
# own language, a clause particle, a favourite with a filler after its category or named after it
SEVENTEENTH_READ = [
    ("Respected assistant, I wish to inform you that I am a nurse at the district hospital", "job",
     "nurse at the district hospital"),
    ("Dear bot: I drive a Skoda Octavia", "car", "skoda octavia"),
    ("job? forklift driver. nights mostly.", "job", "forklift driver"),
    ("job: courier", "job", "courier"),
    ("me I'm a teacher ba, grade 5 at the mission school", "job", "teacher"),
    ("forty years a carpenter, still love the smell of pine", "job", "carpenter"),
    ("that's what fifteen years of being a paramedic does to you", "job", "paramedic"),
    ("34 since June, still feel 25", "age", "34"),
    ("Fifty-five last birthday, and the grandkids made a cake", "age", "fifty five"),
    ("tengo 29 años, for the record", "age", "29"),
    ("am 52 de ani and still dancing", "age", "52"),
    ("not bad for a woman of 68, the doctor says", "age", "68"),
    ("autumn is my favourite season honestly", "favorite_season", "autumn"),
    ("Boca Juniors, my club till I die", "favorite_team", "boca juniors"),
    ("that's my favorite food, gumbo", "favorite_food", "gumbo"),
    ("Big news. We are now engaged!", "relationship", "engaged"),
    ("we're happily married, twenty years in May", "relationship", "married"),
    ("Me and my husband, thank God, have been husband and wife for thirty years", "relationship", "married"),
    ("me and my guy, 3 years strong", "relationship", "in a relationship"),
    ("divorcd since 2019, it was for the best", "relationship", "divorced"),
    ("I have the honour of being a married woman", "relationship", "married"),
    ("I turn Spanish into English for a publisher, a translator, they call it", "job", "translator"),
    ("Sou enfermeira — nurse — at the clinic by the port", "job", "nurse"),
    # a job said first, before a comma (a second `_JOB_NOTE` had shadowed the first and lost it)
    ("Pensioner now, handed the bus route over after 30 years", "job", "pensioner"),
    # a job whose name was said before: its topic, no value (and never the job "do")
    ("Open mic set tonight at the pier, this is what I do for a living", "job", None),
]
SEVENTEENTH_NOT_READ = [
    ("20 lat temu we moved here", "age"),  # twenty years ago, in Polish
    ("hace 20 años que vivo aquí", "age"),
    ("my son is 12 since March", "age"),
    ("the lads, my team at work, bought me lunch", "favorite_team"),
    ("assistant manager at the garden centre", "name"),
    ("I turned 50 on Sunday and nobody at work remembered", "job"),  # "nobody" is no one's job
    ("my parents have been husband and wife for 50 years", "relationship"),
    ("6 months sober strong", "relationship"),
    ("my sister, nurse, in Leeds", "job"),
    ("as a married woman she should know better", "relationship"),
]

# seventeenth pass: read from the spent heldout30/31, each row in other words than theirs
EIGHTEENTH_READ = [
    # a form's heading, its value on the next line (a line break ends a sentence)
    ("Home:\n- Lusaka these days\n- moved from Ndola in 2021", "residence", "lusaka"),
    ("Work:\n- paediatric nurse\n- night shifts", "job", "paediatric nurse"),
    ("Car:\n- Land Cruiser\n- very dusty", "car", "land cruiser"),
    ("Vehicle: nope, I take the bus", "car", "none"),
    ("Profile for you:\n1. age 52\n2. that's all", "age", "52"),
    ("Place of residence: Tartu, Annelinn district. Please file it.", "residence", "tartu"),
    ("my place of permanent residence is the city of Almaty", "residence", "almaty"),
    # a town and how long: said after it
    ("Windhoek. All my life.", "residence", "windhoek"),
    ("Ghent, born and raised, Patershol side", "residence", "ghent"),
    ("with the fog and the cable cars, there's nowhere I'd rather live than Valparaíso", "residence", "valparaiso"),
    ("Every morning the ferry horns wake me. Bergen has been my city since I was small", "residence", "bergen"),
    # ages
    ("really I only just turned 31, stop it", "age", "31"),
    ("Hit 60 on Tuesday and the grandkids sang", "age", "60"),
    ("Seventy winters have whitened this old head", "age", "seventy"),
    ("I am forty-four (44) years of age.", "age", "forty four"),
    # diets said alone, or kept
    ("Kosher only. Write it down.", "diet", "kosher"),
    ("vegan obvs", "diet", "vegan"),
    ("no pork for me, thanks", "diet", "no pork"),
    ("I've stayed vegetarian since school", "diet", "vegetarian"),
    ("I eat gluten free these days", "diet", "gluten free"),
    ("no dairy for me", "diet", "no dairy"),
    # cars
    ("for the file: I am the proud owner of a Lada Niva", "car", "lada niva"),
    ("save: drive old toyota hilux", "car", "toyota hilux"),
    ("it's a Skoda Octavia now, the Polo is gone", "car", "skoda octavia"),
    # a marriage by its years
    ("forty years since our wedding at St Mary's and still holding hands", "relationship", "married"),
    ("We have been in a civil marriage for ten years", "relationship", "married"),
    # words of one's own language (bot.memory.rules.foreign)
    ("Soy casada, 20 años ya", "relationship", "married"),
    ("Viuda. Desde 2018.", "relationship", "widowed"),
    ("Jubilada desde 2015, ahora cuido el huerto", "job", "retired"),
    ("tell it I'm aposentado now", "job", "retired"),
    ("Je suis divorcée depuis trois ans", "relationship", "divorced"),
    ("Divorcé depuis 2016. La vie continue.", "relationship", "divorced"),
    ("soy vegetariana desde niña", "diet", "vegetarian"),
    ("vivo en Rosario, cerca del río", "residence", "rosario"),
    ("j'habite à Nantes depuis dix ans", "residence", "nantes"),
    ("Ich wohne in Graz", "residence", "graz"),
    ("eu moro em Recife", "residence", "recife"),
    ("Anota: tengo 36, recién cumplidos", "age", "36"),
    ("J'ai 41 ans et toutes mes dents", "age", "41"),
    ("no tengo coche, voy en bici", "car", "none"),
    ("Mon mari thinks I spend too long on this app", "relationship", "husband"),
    ("mi novia is coming over tonight", "relationship", "girlfriend"),
    # the divorce done, after a wedding's age
    ("I married at 20, and we finalised the divorce last spring", "relationship", "divorced"),
    # one's own person lost, named by a first name alone
    ("Since my Rosa died in 2017 the garden has gone wild", "relationship", "widowed"),
    ("My Tomasz passed three winters back, so it's just me and the radio", "relationship", "widowed"),
    ("lost my Anna in 2015 and I miss her every single day", "relationship", "widowed"),
    ("lost my walter two years back, the house is so quiet now", "relationship", "widowed"),
    ("31 years since our nikah, alhamdulillah", "relationship", "married"),
    # a favourite: by its rank, or with a space before the comma
    ("Bob Marley forever, he's my number one singer", "favorite_singer", "bob marley"),
    ("teal is my favorite color , all my pens are teal", "favorite_color", "teal"),
    # ages said as years completed, or the number first
    ("29 years completed this month only", "age", "29"),
    ("twenty three and already tired of rent", "age", "twenty three"),
    # diets kept, or told by their weeks
    ("I keep halal, always have", "diet", "halal"),
    ("I'm coeliac, so no bread for me", "diet", "gluten free"),
    ("been veg since birth, my whole family is", "diet", "vegetarian"),
    ("keto day 12 and I dream of bread", "diet", "keto"),
    # one's own car talked of
    ("the Corolla is in the shop again, third time this year", "car", "corolla"),
    ("Toyota Hilux, 14 years old, still starts first go", "car", "toyota hilux"),
    ("the car that I drive is a little Fiat Panda", "car", "little fiat panda"),
    ("Occupation - dental hygienist", "job", "dental hygienist"),
    # a trade by its deeds and the hours of the working day, said without "I"
    ("night shift again, pulled 300 shots and the steam wand hates me", "job", "barista"),
    ("on call all weekend, caught two babies before dawn", "job", "midwife"),
    # "no car" said beside a two-wheeler
    ("no car. I have a moped and a death wish", "car", "none"),
    # a run-on job ends where "been" starts
    ("im a lecturer at the polytechnic been teaching there for ages", "job", "lecturer at the polytechnic"),
]
EIGHTEENTH_NOT_READ = [
    ("Hobbies:\n- woodworking in the garage\n- birdhouses", "job"),  # a pastime, never a job
    # a heading whose line answers something else
    ("Work: exhausting today, three meetings", "job"),
    ("Home: the kids are driving me mad", "residence"),
    ("Town. Not much to do here.", "residence"),
    ("Car:\nwashed it today, finally", "car"),
    ("Mercedes. E-class. Twenty years old. Still runs.", "age"),  # the car's years
    ("My car is an old Volvo. 25 years old and never broke down", "age"),
    ("I am welder since I have 18 years", "age"),  # since the age of 18
    ("hit 100 followers today", "age"),
    ("Three winters have passed since the flood", "age"),
    ("Hi, I am Marie and I am new here", "relationship"),
    ("no meat tonight, we are having fish", "diet"),
    ("we are in a marriage counselling course", "relationship"),
    ("my sister is jubilada and bored", "job"),
    ("I married young, too young", "relationship"),  # a wedding's age says nothing of now
    ("I lost my Nokia last year, all my photos gone", "relationship"),
    ("my Max died last year, best dog ever", "relationship"),
    ("since it died I have been alone on the road, the old van", "relationship"),
    ("since my Dad passed in 2019 I run the farm", "relationship"),
    ("I keep kosher, as my parents did", "job"),  # a note that starts "I ..." is no job's name
    ("ute, 300k on the clock, started at minus twenty this morning no worries", "job"),  # a time, no employer
    ("the Prado is the best SUV ever made", "car"),  # a model praised, not one's own
    ("the Prado is going to be discontinued next year", "car"),
    ("20 years completed at the company this year", "age"),
    ("I baked bread today with the kids", "job"),  # a deed without the working day's hours
]

EIGHTEENTH_PAIRS = [
    ("I am lactose free", "no dairy for me", VERDICT_SAME),
    ("I live in Lyon", "j'habite à Marseille", VERDICT_CHANGE),
    ("Soy soltero", "Soy casado desde junio", VERDICT_CHANGE),
    ("I'm retired", "Jubilado desde 2017", VERDICT_SAME),
    ("got a gf now", "Mon mari says hi", VERDICT_CHANGE),
    ("I drive a Golf", "It's a Passat now, not the Golf anymore", VERDICT_CHANGE),
    ("Penzance. All my life.", "Falmouth born n bred", VERDICT_CHANGE),
    ("Home:\n- Riga", "Home:\n- Tallinn these days\n- moved from Riga last year", VERDICT_CHANGE),
]


# the nineteenth pass: the "'s" of "is" and "that's home" after a town, years before the verb,
# settling for good, a correction after a slip, a grade before a teacher, a trade the list lacked,
# a car as a fragment, Dutch, a marriage and then the partner's death
NINETEENTH_READ = [
    ("Lisbon's home. Noisy trams, best custard tarts", "residence", "lisbon"),
    ("Tartu, that's home, and it's a student town", "residence", "tartu"),
    ("halifax my whole life apart from two years in toronto", "residence", "halifax"),
    ("9 yrs living in Muscat and I still melt every August", "residence", "muscat"),
    ("Dropped anchor in Valletta for good after thirty years at sea", "residence", "valletta"),
    ("We came back to Mostar in 2001 and never left again", "residence", "mostar"),
    ("I live in Vilnus *Vilnius, typing on a bus", "residence", "vilnius"),
    ("Tartu has changed so much since the nineties. Still, it's home and I never left.", "residence", "tartu"),
    ("Brisbane. Born and bred and never leaving!!", "residence", "brisbane"),
    ("Year 3 teacher here, and the glue sticks never last", "job", "year 3 teacher"),
    ("I'm a grade 6 teacher at a village school", "job", "grade 6 teacher at a village school"),
    ("I'm the only night nurse on the ward this week", "job", "night nurse"),
    ("I'm a printer, posters and wedding invitations mostly", "job", "printer"),
    ("I am a bookbinder, leather and thread all day", "job", "bookbinder"),
    ("Plasterer.", "job", "plasterer"),  # a trade of deeds.json, said alone
    ("Schoolteacher. Year 2.", "job", "schoolteacher"),  # a listed trade at the end of a longer word
    ("Orthoptist. Eyes all day.", "job", "orthoptist"),  # a suffix only trades have
    ("Loodgieter, that's my job, leaks and boilers", "job", "loodgieter"),  # a word named a job
    ("Long day of stitching up tomcats. Being a vet in this town is never dull.", "job", None),
    ("Commercial fisherman, out before dawn most days", "job", "commercial fisherman"),
    ("I drive trams on the number 9 line", "job", "driver"),
    ("An old Polo. Rattles on every corner.", "car", "polo"),
    ("old Navara out front, the tray full of nets", "car", "navara"),
    ("Finally bought a Hilux, second hand but solid", "car", "hilux"),
    ("I continue to drive my father's Lada", "car", "father lada"),
    ("Ik ben 52, en nog steeds fit", "age", "52"),
    ("ik woon in Groningen", "residence", "groningen"),
    ("Getrouwd sinds 1998!", "relationship", "married"),
    ("Ik ben verpleegkundige in het ziekenhuis", "job", "nurse in het ziekenhuis"),
    ("Je suis pianiste, every evening at the hotel bar", "job", "pianist"),
    ("I don't have car, the tram is enough", "car", "none"),
    ("I go by bus everywhere, cheaper than parking", "car", "none"),
    ("Meat is something I gave up in 2015", "diet", "vegetarian"),
    ("Plant based now. No meat, no dairy, no eggs.", "diet", "vegan"),
    ("We married in 1975 and he passed in 2020, the house is quiet now", "relationship", "widowed"),
    ("I'm married and he is gone for work all week", "relationship", "married"),  # no death: not widowed
]
NINETEENTH_NOT_READ = [
    ("Sarah's home from uni this weekend", "residence"),
    ("I came back to Rome last week, what a trip", "residence"),
    ("I'm the only one who knows the wifi password", "job"),
    ("Finally got a Ranger! The tray fits all my tools", "job"),  # a car bought, no park ranger
    # a name or a thing said alone is no trade by its "-er" or "-or" ("Heather." had stored a job)
    # "now it's home for me" after a trip is going home, and "now it" no town
    ("Lisbon trip was fun, now it's home for me, back to work", "residence"),
    ("Went to Paris last week. It's home time now.", "residence"),
    ("Heather.", "job"),
    ("Jupiter. Saw it through the telescope last night.", "job"),
    ("Mostar. Lovely, they say, until the coaches arrive.", "job"),
    ("Esther, my grandmother", "job"),
]
NINETEENTH_PAIRS = [
    ("my boyfiend *boyfriend is cooking tonight", "I'm in a relationship", VERDICT_SAME),
    ("I teach Englsih *English at a secondary school", "I teach English at a secondary school", VERDICT_SAME),
    ("I'm married", "We married in 1980 and she died three years ago", VERDICT_CHANGE),
    ("I drink coffee every morning", "coffee is the best, don't @ me", VERDICT_SAME),
    ("Lisbon's home", "Porto, that's home now", VERDICT_CHANGE),
    ("I'm a concierge at a big hotel", "I'm a bookbinder now", VERDICT_CHANGE),
    # a teacher's subject is detail, not another job: both are true of a teacher of two subjects
    ("I teach English at a secondary school", "I teach maths at a high school", VERDICT_SAME),
    # "none" negated or not is one value: no car, then a car sold and a bike everywhere
    ("no car here, only a bike and the bus", "sold my car, bike everywhere now", VERDICT_SAME),
    ("I'm vegan", "No meat, no dairy, no eggs for four years now", VERDICT_SAME),
]

# the twentieth pass: old trades by their heads, a trade said first, the subject taught, the
# years completed, an old word for a car, Italian and Portuguese "-ista", Indonesian and Malay,
# Russian and Ukrainian status and trade words, a couple not married, a club by its name
TWENTIETH_READ = [
    ("Ironmonger since I left school.", "job", "ironmonger"),
    ("Shipwright, forty years on the slipway", "job", "shipwright"),
    ("Cheesemonger. Yes, that's a real job", "job", "cheesemonger"),
    ("Wheelwright since 1998", "job", "wheelwright"),
    ("I teach Geography.", "job", "teacher"),
    ("I teach history to thirty year 9 pupils", "job", "teacher"),
    ("jot this down: postie. Six miles of letters a day", "job", "postie"),
    ("Sono pianista, jazz mostly", "job", "pianist"),
    ("sou dentista, clinic in Porto", "job", "dentist"),
    ("Saya perawat di rumah sakit", "job", "nurse at rumah sakit"),
    ("aku pensiunan guru", "job", "retired"),
    ("I'm a учитель at a village school", "job", "teacher at a village school"),
    ("я пенсионерка, внуки каждые выходные", "job", "retired"),
    ("Add to my list: age: 52", "age", "52"),
    ("I'm 29 y'all, still carded at every bar", "age", "29"),
    ("I completed fifty-five years on Diwali", "age", "fifty five"),
    ("usia saya 37 tahun", "age", "37"),
    ("мне 61 год", "age", "61"),
    ("I sold the motor car in the spring", "car", "none"),
    ("Upgraded to a Corolla last month", "car", "corolla"),
    ("kami tidak punya mobil, naik ojek saja", "car", "none"),
    ("these days I'm in Tbilisi, three years now", "residence", "tbilisi"),
    ("I basically live in Berlin now, the Hamburg flat is empty", "residence", "berlin"),
    ("Lagos, the big one, is where I live", "residence", "lagos"),
    ("aku tinggal di Surabaya sejak kecil", "residence", "surabaya"),
    ("Note: женат, двое детей", "relationship", "married"),
    ("я не замужем и счастлива", "relationship", "single"),
    ("sudah menikah 10 tahun", "relationship", "married"),
    ("we were wed in a tiny chapel in 1999", "relationship", "married"),
    ("not married, just together 12 years and happy", "relationship", "partnered"),
    ("Kilmarnock FC, always have been", "favorite_team", "kilmarnock fc"),
    ("my team is Benfica, every home match", "favorite_team", "benfica"),
    ("Jollof is me favourite food", "favorite_food", "jollof"),
]
TWENTIETH_NOT_READ = [
    ("the kids call me Teacher", "name"),  # a title is no name
    ("favourite poet: Szymborska, I read her on the bus", "job"),  # a favourite's heading, no poet
    ("I basically live in the library during exams", "residence"),
    ("I practically live at the gym", "job"),  # had stored the job "practically live"
    ("Troublemaker since I was five", "job"),
    ("I teach my daughter maths at the kitchen table", "job"),
    ("upgraded to a bigger flat last year", "car"),
    ("my team is small but we ship a lot", "favorite_team"),
    ("these days I'm in a bad mood", "residence"),
    ("I'm 29 y'all, still carded at every bar", "job"),  # carded is no trade
]
TWENTIETH_PAIRS = [
    # what is said to the bot first names no changed thing ("please note that ..." after "note to self")
    ("Note to self and to you: vegan.", "Please note that I no longer own a car, buses now", None),
    # a time of day names no changed thing: coffee given up in the morning ends no morning run
    ("I run every morning", "I quit coffee in the morning", None),
    # "sell" alone is a trade: selling fish every morning changes no morning coffee
    ("Two coffees in the morning, none after four", "I sell fish at the market every morning", None),
    # a change of another topic than the old one states: a car sold, a job that mentions cars
    ("Claims adjuster, mostly hail on cars and burst pipes", "sold the car, so no car now", None),
    # but "quit Google" still ends "I work at Google"
    ("I work at Google", "I quit Google, moved to Paris", VERDICT_CHANGE),
    # a negation in another sentence denies nothing of the dog; nor "never boring" the hiking
    ("got a coonhound named Biscuit", "I have a dog, a spitz, name is Rocky. He walks me not the other way round",
     VERDICT_SAME),
    ("Hiking up the hills every weekend", "hiking the volcanoes again, never boring for me", VERDICT_SAME),
    # "80lb" is a weight, not eighty dogs
    ("our dog Cedar rides shotgun, 80lb lab mix who thinks he is a lapdog",
     "I have a little dog called Pipoca who is a mix of everything", VERDICT_SAME),
    ("Single, and happy that way", "not married, just together 8 yrs", VERDICT_CHANGE),
]

# the twenty-first pass: famous cities whose names are also words
TWENTY_FIRST_READ = [
    ("Salvador, that's home now", "residence", "salvador"),
    # a couple not married is partnered, said any way (it had read as nothing, or as single)
    ("we are not married, just living together", "relationship", "partnered"),
    ("I have a man, we live together, not married. That's all you get.", "relationship", "partnered"),
    ("Got a fella, Colm, we're not married so don't be buying a hat", "relationship", "partnered"),
    ("me and my novio Chema, together 6 years, no wedding, no hurry", "relationship", "partnered"),
    ("Family-run with my muž Ante, 25 years of marriage and counting", "relationship", "married"),
    ("kasal na ako, ten years this June", "relationship", "married"),
    ("Evliyim. 30 years, write it down.", "relationship", "married"),
    ("Single po. lol", "relationship", "single"),
    ("Bekarım, no time for love", "relationship", "single"),
    ("sınıf öğretmeniyim, third graders this year", "job", "teacher"),
    ("hemşireyim, night shifts at the devlet hastanesi", "job", "nurse"),
    ("I'm a penzionerka now, ten years out of the factory", "job", "retired"),
    ("Emerytka, and busier than ever", "job", "retired"),
    ("Infirmière at the CHU, nights mostly", "job", "nurse at the chu"),
    ("32 na ako, still the youngest at work", "age", "32"),
    ("45 yaşındayım", "age", "45"),
    ("merk dir das: 44 since Tuesday, where does the time go", "age", "44"),
    ("just hit 38 , back aches like im 60", "age", "38"),  # had read 60, the comparison
    ("not married, a man of simple needs", "relationship", "single"),  # no couple named
    # a trade no table knows, told as the work one does with words of work
    ("I polish amber. At the workshop by the harbour, all day, every day.", "job", "polish amber"),
    ("I fix mobile phones, small shop by the station, screens and batteries all day", "job", "fix mobile phones"),
    ("I deal blackjack, swing shift downtown. Shuffle, burn, pay 3 to 2.", "job", "deal blackjack"),
    ("Me I pour bronze in the old quarter, wax and clay, every day God gives", "job", "pour bronze"),
    # German compound trades by their heads
    ("Werkzeugmacher. Trained 1988 to 1991, on the job since.", "job", "werkzeugmacher"),
    ("Altenpflegerin, 20 Jahre", "job", "altenpflegerin"),
    ("Busfahrer. Line 7, every day", "job", "busfahrer"),
    ("anota esto: 38 since yesterday", "age", "38"),
    ("Little Rock (Hillcrest, the cute part).", "residence", "little rock"),
    ("Finally got my own little Clio, no more running for the bus", "car", "clio"),
    ("bought a Tacoma last spring", "car", "tacoma"),
    ("upgraded to a Tundra, the old one was falling apart", "car", "tundra"),
    ("No car. My Yamaha moto carries me and the shopping", "car", "none"),
    ("Georgetown born and raised", "residence", "georgetown"),
]
TWENTY_FIRST_NOT_READ = [
    ("I studied law at Georgetown", "residence"),
    ("we live on rice and beans till payday", "residence"),  # what one lives on is no place
    ("I live on toast and tea when she's away", "residence"),
    ("my sisters still treat me like I'm ten", "age"),  # a comparison, no age
    ("Daughter, married off to Rize. Next.", "relationship"),  # her marriage, not mine
    ("my parents just had 40 years of marriage", "relationship"),
    ("annem 70 yaşında", "age"),  # one's mother's age
    ("we got a sierra nevada ale", "car"),
    ("Hiker, mostly weekends", "job"),
    # the same words of pastimes and of leisure are no trade
    ("I paint every day, watercolours mostly", "job"),
    ("I knit scarves all day on weekends", "job"),
    ("I lift weights every day", "job"),
    ("I build furniture in my workshop", "job"),
    ("I fall asleep to it every morning after shift", "job"),
    ("i work hard every day.", "job"),
    ("I watched it from the top of the crane all day", "job"),
    ("my son fixes phones all day at the market", "job"),
]
TWENTY_FIRST_PAIRS = [
    # married, then a couple not married (and back): a change of status, Mark older as past
    ("Married to Heike since 1996. That makes 28 years.", "Got a fella, Colm, we're not married", VERDICT_CHANGE),
    ("I have a man, we live together, not married.", "Drizzle. Gift sedan 1998, married, to Johan.", VERDICT_CHANGE),
    # one trade in two languages is the same trade
    ("Staff nurse on the wards up at Altnagelvin", "Infirmière at the CHU, nights mostly", VERDICT_SAME),
    ("Profe de geografía at a secondary school", "Maestra rural in a bilingual school up in Chamula", VERDICT_SAME),
    # (an English professor is no Spanish "profesor")
    ("im a professor of linguistics at the university", "I teach Grade 8 at a primary school here", VERDICT_CHANGE),
    # the work one does and the trade that does it are one job; another's work is a change
    ("I fix mobile phones, small shop in the bazaar, all day", "phone repairman, small shop in the bazaar",
     VERDICT_SAME),
    ("I polish amber at the kombinat all day", "amber polisher at the kombinat", VERDICT_SAME),
    ("I deal blackjack, swing shift on Virginia Street", "I pour bronze at the foundry, every day", VERDICT_CHANGE),
    ("I'm a nurse", "I fix mobile phones, small shop in the bazaar, all day", VERDICT_CHANGE),
    # a comparison is no age, and a daughter's marriage no status of mine
    ("I'm 68, and my neighbour says she's 60", "my sisters still treat me like I'm ten", None),
    ("I've got a partner, Lars (not married, we keep saying next year)", "Daughter, married off to Rize. Next.", None),
]

# Twenty-first pass (the misses of the spent heldout38/39, said in other words too)
TWENTY_SECOND_READ = [
    # a known town said first and alone, the rest about life there
    ("Rostock. The Warnemunde end, cruise ships from the balcony.", "residence", "rostock"),
    ("Note: Stuttgart, down in the Kessel. Never moving.", "residence", "stuttgart"),
    ("Moin. Kiel, by the canal locks.", "residence", "kiel"),
    ("note: Kiel now, moved for the shipyard job", "residence", "kiel"),  # (the walk found it unread)
    ("Boon and me live in Surin, outside town.", "residence", "surin"),
    ("where? Phnom Penh, Toul Kork side.", "residence", "phnom penh"),  # a question one answers oneself
    ("Denver's where I live now.", "residence", "denver"),
    ("penang girl, staying in george town near the jetties", "residence", "george town"),
    # an age alone after what is said to the bot, or with its years and nothing else
    ("for ur record 27 years. still zero savings lol", "age", "27"),
    ("for the records: 33. like a medium roast", "age", "33"),
    ("remember this hun: 26! still getting carded at the bar", "age", "26"),
    ("oh yeah put down 58, chur", "age", "58"),
    ("save it: 35 years, like the stations on my line", "age", "35"),
    ("save my age: 24 years. is that young for you?", "age", "24"),
    ("seventy-one years, mijo, and still climbing these stairs", "age", "seventy one"),
    ("27 this spring. Feels like 17 and 70 at once", "age", "27"),
    ("I am 35 completed, 36 running", "age", "35"),
    ("remember: 49 I turned in November", "age", "49"),
    ("Remember, computer: 72. Not old. Old is 90.", "age", "72"),
    # "my work is" a craft, not a mood
    ("My work is aizome, indigo dyeing, hands always blue", "job", "indigo dyeing"),
    ("my work is nursing, nights mostly", "job", "nursing"),
    ("stay at home mum, two under three", "job", None),
    ("sahm, toddler and a newborn, send coffee", "job", "stay at home mom"),
    # cars bought or driven, said without "I" or an article
    ("fyi drive a Ranger, bit rough but she goes", "car", "ranger"),
    ("Finally purchased Maruti Swift on EMI", "car", "maruti swift"),
    # a car said first and alone, the rest about it
    ("GMC Sierra 2500, bed full of tools", "car", "gmc sierra 2500"),
    ("Mercedes. E-class. Twenty years old. Runs.", "car", "mercedes"),
    ("Fiat Panda 4x4, old one, smells of mud", "car", "fiat panda 4x4"),
    ("Oldham, aye, that's home", "residence", "oldham"),
    # teams cheered, supported, named by their club word
    ("football i cheer Buriram United!! every home game", "favorite_team", "buriram united"),
    ("In IPL I am supporting Sunrisers Hyderabad", "favorite_team", "sunrisers hyderabad"),
    ("Newcastle United. Since '74. Divvent start us on it.", "favorite_team", "newcastle united"),
    # a favourite asked of oneself, or named before it is called one
    ("best food in the world? chapshuro. no discussion", "favorite_food", "chapshuro"),
    ("Kino. My fave band, always", "favorite_band", "kino"),
    ("pescatarian fyi, fish yes, no meat", "diet", "pescatarian"),
    # a season praised with no category, a colour or a drink called one's own, the one food kept
    ("spring's my favourite, when the blossom comes", "favorite_season", "spring"),
    ("winter, no contest. crisp and quiet", "favorite_season", "winter"),
    ("Lavender has always been my color, half my closet is lavender", "favorite_color", "lavender"),
    ("if i could only eat one food forever itd be pho", "favorite_food", "pho"),
    ("zubeen garg = fav singer", "favorite_singer", "zubeen garg"),
    ("Remember mi favourite film is Cool Runnings", "favorite_movie", "cool runnings"),
    ("blue has been my fave colour since i was a little kid", "favorite_color", "blue"),
    ("fleetwood mac forever, my favorite band since i was 12", "favorite_band", "fleetwood mac"),
    ("pizza is the greatest food ever invented, no contest", "favorite_food", "pizza"),
    # ages after a birthday, before "I am", by a verb of the clock, in a self-asked quiz
    ("Seventy six I am, and my knees are ninety", "age", "seventy six"),
    ("my birthday was yesterday, 24 now!", "age", "24"),
    ("76 in April. Gone quick.", "age", "76"),
    ("Clocked 38 last month! cake with too much icing", "age", "38"),
    ("Just turned 36 #birthday", "age", "36"),
    ("Quiz for you, bot: how old am I? 44.", "age", "44"),
    ("Kindly remember that my good age is 42 years.", "age", "42"),
    # a diet with how long, or with "pretty much" / "strictly"
    ("Keto for the last six months. I miss pizza.", "diet", "keto"),
    ("note: vegan six years now, not even honey", "diet", "vegan"),
    ("I'm pretty much pescatarian now", "diet", "pescatarian"),
    ("I am strictly vegetarian since many years", "diet", "vegetarian"),
    # a couple together for years, no marriage named
    ("Luc and I have been together six years", "relationship", "in a relationship"),
    ("me and Tash been together 2 yrs, she's the boss", "relationship", "in a relationship"),
    ("bf & I together ~3 yrs, long distance rn", "relationship", "in a relationship"),
    ("my girlfriend and me are together since two years", "relationship", "in a relationship"),
    ("me and my lady been together 15 years, never married, never will", "relationship", "partnered"),
    ("girlfriend came over. 3 years together, nobody in a hurry to marry", "relationship", "in a relationship"),
    ("Bae is making pancakes. Been together two years this month.", "relationship", "in a relationship"),
    ("My boyfriend Liam is the best!!! Two years together in March!!", "relationship", "in a relationship"),
    # the years of one's own marriage, or oneself a married man (they had read only a hint)
    ("the missus runs the till, 33 years married this spring", "relationship", "married"),
    ("forty years wed to the same stubborn man", "relationship", "married"),
    ("Twelve years a married woman and still no dishwasher", "relationship", "married"),
    ("I cut steel on the breaking yard, old tankers. 650 taka a day if the foreman is happy", "job", "cut steel"),
    ("Six hours a day I beat gold leaf for the pagodas", "job", "beat gold leaf"),
    # a trade in one's own word glossed after a dash, and a German trade since a year
    ("dolmuşçu – minibus driver, route 12 since forever", "job", "minibus driver"),
    ("Kfz-Mechaniker since 2001", "job", "kfz mechaniker"),
    # retirement by its years, by the day work ended, by the Swedish word
    ("I taught for thirty-four years and have now enjoyed eleven years of retirement", "job", "retired"),
    ("Finished work for good in 2014, when the pension came.", "job", "retired"),
    ("Pensionär now, after 38 years behind the counter", "job", "pensioner"),
    ("freelance graphic designer , mostly logos", "job", "freelance graphic designer"),  # a space before the comma
    ("three night shifts in a row, RN life lol", "job", "rn"),
    ("pharmacist life, counting pills till 9", "job", "pharmacist"),
    # one's own wedding told as done ("I married", "said our vows"), an engagement said with "yaar"
    ("Dave and I married young, 26 years this June", "relationship", "married"),
    # a status after an adverb, a widow said bare, a partner without an article, "X and me"
    ("officially divorced since 2019, me and the ex are almost friends now", "relationship", "divorced"),
    ("as of this spring I am officially engaged", "relationship", "engaged"),
    ("perpetually single and honestly thriving", "relationship", "single"),
    ("Widow since my Rodolfo went to heaven", "relationship", "widow"),
    ("I have boyfriend, he is in Manila.", "relationship", "boyfriend"),
    ("My man and me are married since 2005.", "relationship", "married"),
    ("me and my ex have been divorced three years now", "relationship", "divorced"),
    ("the divorce went thru in 2019, best for both of us", "relationship", "divorced"),
    ("Update for my profile: Kevin finally put a ring on it last month!", "relationship", "engaged"),
    ("Amma sends matrimony profiles every week, but no boyfriend, and honestly I like it", "relationship", "single"),
    ("note that me and Florence are enganged, church wedding next april", "relationship", "engaged"),
    ("Maria and I will have been married twenty-seven years in June", "relationship", "married"),
    # a town called one's city, where one is with its district
    ("Maputo, my city, my vibe", "residence", "maputo"),
    ("we're in Ballard, Seattle, rain is a lifestyle here", "residence", None),
    ("Kari and I said our vows in 1979, she still laughs at my jokes", "relationship", "married"),
    ("Engaged yaar! the shaadi is after Eid", "relationship", "engaged"),
    ("Lisbon - nurse, nights", "residence", "lisbon"),  # (a town before the dash is no word glossed: kept)
]
TWENTY_SECOND_NOT_READ = [
    # a town first with words of a team, a film, a trip or someone else's life
    ("Benfica. Since always. Red in the blood.", "residence"),
    ("casablanca, i could watch it a hundred times", "residence"),
    ("Paris. Best trip ever.", "residence"),
    ("Where? Paris, for the weekend", "residence"),
    ("30 in june we move", "age"),
    ("thirty years i am stitching salwar kameez in my small tailoring shop", "age"),  # the years of a trade
    ("winter, no contest. 70 and sunny in january is heaven", "age"),  # the weather, no age
    ("this is my song", "favorite_song"),
    ("Torun - grandson, 2 years old, first one", "residence"),
    ("Reading, lovely town", "residence"),  # a town whose name is a word
    # the years of a marriage are no age
    ("married. 19 years. Same woman, same patience.", "age"),
    ("Lena and I signed in 2005. 19 years, 1 wife, 0 regrets", "age"),
    ("30 years, same job", "age"),
    ("For the log: age two-niner. Over.", "job"),
    ("Bourbon. Don't judge.", "job"),  # a judge, said no
    ("anniversary dinner tonight, 50 years together, my golden anniversary", "age"),
    # how the work feels is no trade
    ("my work is exhausting lately", "job"),
    ("my work is killing me", "job"),
    ("my work is going well", "job"),
    ("I bought Toyota shares", "car"),
    ("I'm in Rome, visiting my aunt", "residence"),
    ("saving up for years of retirement", "job"),
    ("my sister's boyfriend put a ring on it", "relationship"),
    # the moment one gets home is no home, a tram driven all day no car
    ("The one waiting at the door when I get home is Scout, my collie", "residence"),
    ("my own ride when im home is a dodge ram, diesel", "residence"),
    ("a traffic cone on the duke's heid outside GoMA, aye that's home", "residence"),  # "aye" is no town
    ("drive the Trambesòs all day, zero incidents", "car"),
    ("Cozido das Furnas... cooked in the hot ground by the volcano", "job"),  # a past participle is no cook
    ("the wife of my boss is nice", "relationship"),
    ("Toyota. 12 years on the line at the plant", "car"),  # a maker one works for
    ("Tesla. dream car, someday", "car"),
    ("Note it down, smart alec: gin and tonic on a Friday", "car"),
    ("i cheer for my kids at football", "favorite_team"),
    ("they still call me young at the mill", "name"),
    ("Jot this doon: Aa'm sixty-one, pet.", "residence"),
    ("Berlin. Best city. I don't change it for nothing.", "favorite_city"),
    ("my wife and I have been together 20 years", "relationship"),  # married: not "in a relationship"
    ("we've been together 5 years in the band", "relationship"),
    # the years together of a marriage named in another sentence are no unmarried couple's
    ("My husband is teaching me this phone. Fifty three years together and he is still patient", "relationship"),
    ("my parents, 40 years married this June", "relationship"),
    ("Defender life, the footwell is full of water", "job"),  # a car's life, no trade
    ("student life is hard", "job"),
    ("we know a married couple who run a bakery", "relationship"),
]
TWENTY_SECOND_PAIRS = [
    # a town first, then another home: a change
    ("Terneuzen. Zeeland Flanders, still the Netherlands.", "I live in Ghent now", VERDICT_CHANGE),
    ("Rostock. The Warnemunde end, cruise ships from my balcony.", "note: Kiel now, moved for the shipyard job",
     VERDICT_CHANGE),
    ("for ur record 27 years. still zero savings lol", "just turned 28 today", VERDICT_CHANGE),
    ("Luc and I have been together six years", "Married Luc in June!", VERDICT_CHANGE),
    ("fyi drive a Ranger, bit rough but she goes", "sold the Ranger, got a Hilux", VERDICT_CHANGE),
    ("Newcastle United. Since '74.", "I support Sunderland AFC now, don't ask", VERDICT_CHANGE),
    # prices and minutes are no count of things one has (they were asked as a recount)
    ("Engaged to Rumana; the wedding after I save 80 thousand taka", "Rent is 3000 taka for one room", None),
    ("my commute is 10 min by bike, assembly line at the plant", "the sea is 5 min from the salon", None),
    # one's own work changes nothing of a relative's, and a time is no thing changed
    ("my little bro is a welder, we do side jobs together", "got laid off from my warehouse job in january", None),
    ("my older brother teaches middle school math", "I retired from teaching last year.", None),
    ("our granddaughter comes to stay for spring break", "lost my Harold three years ago this spring", None),
    ("my wife drives a Golf", "I sold the Golf", VERDICT_CHANGE),  # (a thing shared may be one's own)
    # a move leaves the old home's kind behind: Mark older as past (it had recommended nothing)
    # one car with its model year or without, said twice (it had asked Mark older as past)
    ("My car is a Honda Civic 2018, very economic.", "drive a beat up 04 honda civic w a cracked windshield", VERDICT_SAME),
    ("i live in a dorm in boston.", "i live in austin texas.", VERDICT_CHANGE),
    # two trades their fields name are two jobs; a nurse on another ward is still a nurse
    ("I'm a backend engineer at a fintech startup", "I am a petroleum engineer, reservoir models all week", VERDICT_CHANGE),
    ("i'm an rn at a children's hospital.", "I'm an ER nurse, nights", VERDICT_SAME),
    ("I am a petroleum engineer", "first yr engineering at u of m, regretting every choice", VERDICT_CHANGE),
    ("rent a tiny apartment in chicago near wrigley", "relocated to seattle two summers ago", VERDICT_CHANGE),
    # a change one could make is none, and "stop eating it" names no food
    ("sarson da saag, I could eat it every day till March", "Grilled halloumi. I could stop eating it any time. I don't.", None),
    ("I drink coffee", "I quit drinking coffee", VERDICT_CHANGE),
    # getting used to a word is no "used to"
    ("cepelinai with sour cream, I like it too much, wife says",
     "Got married in spring, still getting used to saying 'my wife'", None),
]


@pytest.mark.parametrize(("old", "new", "expected"), [
    # "can't wait" is eagerness: the sister is still there, and said again
    ("my big sister is flying in to visit, cant wait", "my lil sis is my biggest fan", VERDICT_SAME),
    ("I have a cat", "my cat, I could not be happier with her", VERDICT_SAME),
    ("I have a dog", "I can not have a dog anymore", VERDICT_CHANGE),
])
def test_eagerness_is_no_denial(old: str, new: str, expected: str) -> None:
    found = verdict(old, new)
    assert found.nominations and found.nominations[0].verdict == expected, found


@pytest.mark.parametrize(("text", "category"), [
    ("spring is my favourite season obviously", "favorite_season"),
    ("the beatles are my favorite band tbh", "favorite_band"),
    ("my favorite tv show is friends", "favorite_tv_show"),
])
def test_a_filler_after_the_category_is_no_part_of_it(text: str, category: str) -> None:
    assert detect_slot(text) == category, find_slots(text)


def test_not_married_and_alone_is_single() -> None:
    assert [m.value for m in find_slots("not married, no partner either") if m.slot == "relationship"] == ["single"]


def test_what_i_do_for_a_living_names_no_job_do() -> None:
    assert [m.value for m in find_slots("this is what I do for a living, mostly weekends") if m.slot == "job"] == [None]


def test_a_pronoun_is_never_a_favourite() -> None:
    """The reject of a favourite's value had never applied ("that" was kept as the value of
    "that's my favorite food"): a pronoun names nothing, and neither does a filler after it."""
    assert [m.value for m in find_slots("that is my favorite food, really") if m.slot == "favorite_food"] in ([], [None])
    assert [m.value for m in find_slots("that's my favorite band, honestly, the Beatles")
            if m.slot == "favorite_band"] == ["beatles"]


@pytest.mark.parametrize(("text", "profession"), [
    ("I grow rice. Two hectares.", "farmer"),
    ("we farm maize, six hectares near the river", "farmer"),
    ("I do construction labour, mix cement all day", "construction worker"),
])
def test_a_trade_told_by_its_work(text: str, profession: str) -> None:
    assert profession in deed_professions(normalise(text))


def test_a_garden_is_no_farm() -> None:
    assert not deed_professions(normalise("I grow tomatoes on my balcony"))


# a relationship the vectors name, its status unread on one side: no shared word is no change,
# since statuses are few and told in endless words ("nobody in my life right now" is as single as
# "no girlfriend"); a wedding, vows or an anniversary imply a marriage (thirteenth pass)
STATUS_PAIRS = [
    ("no girlfriend, no time for dates", "nobody in my life right now and I'm fine", VERDICT_UNCLEAR),
    ("no girlfriend, no time for dates", "happily unattached, the cat is my only commitment", VERDICT_SAME),
    ("we said our vows in 1990", "our golden anniversary is next month", VERDICT_SAME),
    ("I'm single", "my wife cooks every sunday", VERDICT_CHANGE),
    ("my girlfriend loves hiking", "I'm single now", VERDICT_CHANGE),
]


@pytest.mark.parametrize(("old", "new", "expected"), STATUS_PAIRS)
def test_a_status_told_in_other_words_is_not_changed_by_its_words(old: str, new: str, expected: str) -> None:
    found = assess(new, [Fact(id=1, text=old, slot="relationship")], {1: 0.6}, new_slot="relationship")
    assert found.nominations and found.nominations[0].verdict == expected, found


# The tables of the third pass, read by one test each: a text names its topic and value, a text
# is not that topic, a pair gets its verdict (None: nothing asked).
LATER_READ = THIRD_READ + FOURTH_READ + TOLD_IN_CHAT + SIXTH_READ + SEVENTH_READ + EIGHTH_READ + NINTH_READ + TENTH_READ + ELEVENTH_READ + TWELFTH_READ + THIRTEENTH_READ + FOURTEENTH_READ + FIFTEENTH_READ + SIXTEENTH_READ + SEVENTEENTH_READ + EIGHTEENTH_READ + NINETEENTH_READ + TWENTIETH_READ + TWENTY_FIRST_READ + TWENTY_SECOND_READ
LATER_NOT_READ = THIRD_NOT_READ + FOURTH_NOT_READ + SIXTH_NOT_READ + SEVENTH_NOT_READ + EIGHTH_NOT_READ + NINTH_NOT_READ + TENTH_NOT_READ + ELEVENTH_NOT_READ + TWELFTH_NOT_READ + THIRTEENTH_NOT_READ + FOURTEENTH_NOT_READ + FIFTEENTH_NOT_READ + SIXTEENTH_NOT_READ + SEVENTEENTH_NOT_READ + EIGHTEENTH_NOT_READ + NINETEENTH_NOT_READ + TWENTIETH_NOT_READ + TWENTY_FIRST_NOT_READ + TWENTY_SECOND_NOT_READ + [
    ("new number: 555 9999", "job"),
    ("i started at a new school this fall.", "job"),
]
LATER_PAIRS = THIRD_PAIRS + FOURTH_PAIRS + FIFTH_PAIRS + SIXTH_PAIRS + SEVENTH_PAIRS + EIGHTH_PAIRS + NINTH_PAIRS + ELEVENTH_PAIRS + TWELFTH_PAIRS + FOURTEENTH_PAIRS + FIFTEENTH_PAIRS + SIXTEENTH_PAIRS + EIGHTEENTH_PAIRS + NINETEENTH_PAIRS + TWENTIETH_PAIRS + TWENTY_FIRST_PAIRS + TWENTY_SECOND_PAIRS


@pytest.mark.parametrize(("text", "slot", "value"), LATER_READ)
def test_values_are_read_where_they_stand(text: str, slot: str, value: str | None) -> None:
    assert detect_slot(text) == slot, find_slots(text)
    if value is not None:
        assert slot_value(text, slot) == value


@pytest.mark.parametrize(("text", "hint"), PASSED_NOT_DIED)
def test_passing_an_exam_is_no_death(text: str, hint: str) -> None:
    found = [m for m in find_slots(text) if m.slot == "relationship"]
    assert [(m.value, m.hint) for m in found] == [(hint, True)]


@pytest.mark.parametrize(("text", "slot"), LATER_NOT_READ)
def test_and_where_they_do_not(text: str, slot: str) -> None:
    assert slot not in {m.slot for m in find_slots(text) if not m.hint}, find_slots(text)


@pytest.mark.parametrize(("old", "new", "expected"), LATER_PAIRS)
def test_values_read_where_they_stand_set_the_verdict(old: str, new: str, expected: str | None) -> None:
    result = verdict(old, new)
    if expected is None:
        assert result == Assessment(duplicate_of=None, nominations=()), result
        return
    if expected == VERDICT_SAME and result.duplicate_of is not None:
        return  # the same value in other words: not stored twice
    assert result.nominations, result
    assert result.nominations[0].verdict == expected, result


# A topic only the vectors (or the stored slot) named: the value its words imply decides the
# verdict, so the same status said twice is Keep both, never "Mark older as past" (sixth pass).
IMPLIED = [
    ("relationship", "the missus and i have been hitched for ages", "married"),
    ("relationship", "twenty years since our nikah, alhamdulillah", "married"),
    ("relationship", "flying solo these days, nobody special", "single"),
    ("relationship", "my ex kept the dog after the divorce", "separated"),
    ("relationship", "we argue about whose turn it is to cook", None),
    ("diet", "zero animal products for me, ever", "vegan"),
    ("diet", "meatless all week, fish on fridays", "vegetarian"),
    ("residence", "another grey morning in the big smoke, love this city", None),  # not in the table
    ("residence", "rush hour in atlanta is no joke", "atlanta"),
    ("residence", "swapped tulsa for denver, no regrets", None),  # two cities: which?
]


@pytest.mark.parametrize(("slot", "text", "value"), IMPLIED)
def test_the_value_the_words_imply(slot: str, text: str, value: str | None) -> None:
    assert implied_value(slot, text) == value


@pytest.mark.parametrize(("old", "new", "slot", "expected"), [
    ("I am married.", "the missus and i have been hitched for ages", "relationship", VERDICT_SAME),
    ("I am married.", "flying solo these days, nobody special", "relationship", VERDICT_CHANGE),
    ("I live in Atlanta.", "rush hour in the ATL is no joke", "residence", VERDICT_SAME),
    ("I live in Atlanta.", "rush hour in boston is no joke", "residence", VERDICT_CHANGE),
])
def test_an_implied_value_sets_the_verdict(old: str, new: str, slot: str, expected: str) -> None:
    result = assess(new, [Fact(id=1, text=old, slot=detect_slot(old))], new_slot=slot)
    assert result.nominations and result.nominations[0].verdict == expected, result


@pytest.mark.parametrize(("old", "new"), [
    ("I have two sisters", "got a sister in Porto who calls every Sunday"),
    ("we have three sons", "a son down in Durban, the eldest"),
])
def test_one_of_them_said_which_is_no_recount(old: str, new: str) -> None:
    """"a sister in Porto" says which of the sisters, not that there is one sister now: no count
    change, so "Mark older as past" is never recommended for it (sixteenth pass)."""
    assert all(n.rule != "count_change" for n in verdict(old, new).nominations)


def test_a_plain_recount_is_still_a_count_change() -> None:
    assert [n.rule for n in verdict("I have two dogs", "I have a dog").nominations] == ["count_change"]


@pytest.mark.parametrize(("text", "city"), [
    ("Split at sunset from the Riva, this is the city where I live and I never tire of it", None),  # Split is a word
    ("Gdańsk traffic again, where else would I live though, it's home", "gdansk"),
    ("Porto in the rain, remember this is the city where I live", "porto"),
])
def test_a_home_pointed_at(text: str, city: str | None) -> None:
    """One town named, then pointed at as home ("this is the city where I live"): that town is
    the home; none is read when the town's name is also a word."""
    homes = [m.value for m in find_slots(text) if m.slot == "residence"]
    assert homes == ([city] if city else [])


def test_pointing_at_home_with_two_towns_named_reads_none() -> None:
    assert not [m for m in find_slots("Flew Paris to Rome today, this is home") if m.slot == "residence"]


@pytest.mark.parametrize("text", [
    "that's my favorite food and I eat it daily",  # no value after the category: none read
    "my kids are my team",  # one's own people, not a team one supports
])
def test_rewrites_that_need_their_shape(text: str) -> None:
    assert all(m.value not in {"and i eat it daily", "kids", "my kids"} for m in find_slots(text)), find_slots(text)
