"""A job told by its everyday work (bot/memory/rules/deeds.json, slots.deed_professions) and as
the job's topic beside the classifier (slot_vectors.is_job_by_deed): tables of sentences written
for these tests (tenth pass on issue 15)."""

from __future__ import annotations

import pytest

from bot.memory.rules import slot_vectors
from bot.memory.rules.conflict import VERDICT_CHANGE, VERDICT_SAME, Fact, assess
from bot.memory.rules.slots import deed_professions, detect_slot
from tests.memory.rules.test_places import probs  # class probabilities, the rest on "other"

TOLD_BY_WORK = [
    # seventeenth pass: the deeds of 50 more trades (each in other words than the phrase's)
    ("spent the morning inspecting forty hives, got stung twice", "beekeeper"),
    ("led the maghrib prayer and then taught the kids", "imam"),
    ("two removals from the hospice before lunch, long day", "undertaker"),
    ("six hour set tonight, beatmatching till my ears rang", "dj"),
    ("cracking cocoa pods under the trees all week", "cocoa farmer"),
    ("rewrote our wine list for the autumn menu", "sommelier"),
    ("three twelves on the med-surg floor, hanging IV bags and passing meds til 7am", "nurse"),
    ("pulled like 300 shots this morning, my wrists hate that espresso machine", "barista"),
    ("three clogged mainlines and a busted water heater before lunch", "plumber"),
    ("spent the morning in depositions and the afternoon drafting a motion to dismiss", "lawyer"),
    ("lesson planning on a sunday night again", "teacher"),
    ("I pull wire and fix breaker panels for a living", "electrician"),
    ("we run a little tienda by the market, open every day but sunday", "shop owner"),
    ("I open my shop at 6 so the builders get their coffee", "shop owner"),
    # the sixteenth pass's phrases (another blind helper, 50 trades)
    ("walked my mail route in the rain again, 600 boxes", "mail carrier"),
    ("ran the roof bolter all shift, dust everywhere", "miner"),
    ("in the weeds on the line all night, heard chef a hundred times", "line cook"),
    ("did my deliveroo shift in the rain, soaked through", "delivery rider"),
    ("soundchecked at the venue at six and played till one", "musician"),
    ("we grow rice, two hectares by the river", "farmer"),
]
NOT_WORK = [
    "I cooked dinner for the kids",
    "my daughter is learning to code",
    "I took my son to the hospital",
    "I love gardening on weekends",
    "I painted the living room",
    "we went fishing on holiday",
    "i help my kids with homework",
    "Six patients on the ward today and a code at 2pm.",  # a hospital's code, no developer's
    "we have a shop near the station that sells everything",
    "my mum runs a small shop in the village",
    "I ordered food on the app, the rider was late",
    "we went to a gig last night, great band",
]


@pytest.mark.parametrize(("text", "job"), TOLD_BY_WORK)
def test_a_profession_told_by_its_work(text: str, job: str) -> None:
    assert job in deed_professions(text)


@pytest.mark.parametrize("text", NOT_WORK)
def test_everyday_life_tells_no_profession(text: str) -> None:
    assert deed_professions(text) == frozenset()


JOBS = [  # (job p, residence p)
    ("hanging IV bags and passing meds til 7am", (0.35, 0.0), True),
    ("hanging IV bags and passing meds til 7am", (0.1, 0.0), False),  # the classifier disagrees
    ("hanging IV bags and passing meds til 7am", (0.35, 0.5), False),  # a home ranks first
    ("long night, feet are killing me", (0.6, 0.0), False),  # no work named (the classifier alone decides above its threshold)
    ("my sister is passing meds on the night shift again", (0.6, 0.0), False),  # someone else's job
]


@pytest.mark.parametrize(("text", "sure", "job"), JOBS)
def test_a_job_told_by_its_work_names_the_topic(text: str, sure: tuple[float, float], job: bool) -> None:
    job_p, residence_p = sure
    assert slot_vectors.is_job_by_deed(probs(residence_p, job_p), slot_vectors.CLASSES, text) is job


@pytest.mark.parametrize(("old", "new", "expected"), [
    # the hours and the runs of two days name no job: "10pm" and "2pm" are no shared value
    ("forklift from 10pm to 6:30am moving pallets around the distribution center",
     "Six patients on the ward today and a code at 2pm.", VERDICT_CHANGE),
    ("home with the kids full time, school run, washing, snacks, repeat",
     "doing parcel runs for a courier, 140 drops a day in the van", VERDICT_CHANGE),
    # one profession told by its title and by its work: Keep both; another's work: a change
    ("I'm a nurse at the county hospital.", "hanging IV bags and passing meds til 7am again", VERDICT_SAME),
    ("I'm a plumber.", "hanging IV bags and passing meds til 7am again", VERDICT_CHANGE),
    ("three clogged mainlines before lunch, pipes all day", "I work as a plumber", VERDICT_SAME),
    ("pulled like 300 shots this morning, my wrists hate that espresso machine",
     "three twelves on the med-surg floor, hanging IV bags", VERDICT_CHANGE),
])
def test_the_work_decides_the_verdict(old: str, new: str, expected: str) -> None:
    result = assess(new, [Fact(id=1, text=old, slot=detect_slot(old) or "job")], new_slot=detect_slot(new) or "job")
    assert result.nominations and result.nominations[0].verdict == expected, result
