"""The vectors' topic (bot/memory/rules/slot_vectors.py): a pure function over a vector, and how
a save uses it when the rules read no topic in the words."""

from __future__ import annotations

import numpy as np
import pytest

from bot.memory.embeddings.encoder import HashingEmbedder
from bot.memory.index.semantic import SemanticIndex
from bot.memory.rules import slot_vectors
from bot.memory.rules.conflict import VERDICT_CHANGE, VERDICT_UNCLEAR, detect_slot
from bot.memory.service import MemoryService
from bot.storage.db import Database
from tests.conftest import make_settings


def direction(topic: str) -> np.ndarray:
    """A unit vector pointing where the classifier's weights for `topic` point."""
    found = slot_vectors._weights()
    assert found is not None, "bot/memory/rules/slot_vectors.json must load"
    weights, _, classes, _ = found
    row = weights[classes.index(topic)]
    return row / np.linalg.norm(row)


@pytest.mark.parametrize("topic", [c for c in slot_vectors.CLASSES if c != slot_vectors.OTHER])
def test_each_topic_is_named_along_its_own_direction(topic: str) -> None:
    assert slot_vectors.vector_slot(direction(topic)) == topic


def test_no_topic_for_other_no_vector_or_a_vector_of_another_size() -> None:
    assert slot_vectors.vector_slot(direction(slot_vectors.OTHER)) is None
    assert slot_vectors.vector_slot(None) is None
    assert slot_vectors.vector_slot(np.ones(12, dtype=np.float32)) is None
    assert slot_vectors.vector_slot(np.zeros(384, dtype=np.float32)) is None  # not sure of anything


def test_the_weights_name_the_model_and_classes_they_were_trained_for() -> None:
    import json

    data = json.loads(slot_vectors.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert data["model"] == "all-MiniLM-L6-v2" and tuple(data["classes"]) == slot_vectors.CLASSES
    assert 0.5 <= data["threshold"] < 1.0


@pytest.mark.parametrize(("text", "topic"), [
    ("my sister keeps sending me job listings", "job"),
    ("my husband drives for a delivery firm", "job"),
    ("she works nights at the hospital", "job"),
    ("my brother's place downtown is tiny", "residence"),
    ("i'm studying to be an engineer", "job"),
])
def test_a_sure_topic_is_never_someone_elses_or_a_wish(text: str, topic: str) -> None:
    """Seen on the spent persona sets after retraining: "My sister keeps sending me job listings
    lol" was a job at p 0.81 and asked against one's own job with Mark older as past."""
    assert slot_vectors.vector_slot(direction(topic)) == topic
    assert slot_vectors.vector_slot(direction(topic), text) is None
    assert slot_vectors.vector_slot(direction(topic), "I love my work and my town") == topic


class JobWords(HashingEmbedder):
    """Hashing vectors, but the two job sentences the rules cannot read point where the
    classifier's "job" points."""

    JOBS = {"I am a gold medalist olympian", "I spend my days in spreadsheets for clients"}

    async def embed(self, texts: list[str]) -> np.ndarray:
        out = self.encode_sync(texts)
        for i, text in enumerate(texts):
            if text in self.JOBS:
                out[i] = direction("job")
        return out


async def test_a_job_the_rules_cannot_read_is_stored_as_a_job_and_a_new_one_is_asked_about(tmp_path) -> None:
    assert detect_slot("I am a gold medalist olympian") is None and detect_slot("I spend my days in spreadsheets for clients") is None
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'v.db'}")
    db = Database(settings.database_url)
    embedder = JobWords(dim=384)
    try:
        memory = MemoryService(db, settings, SemanticIndex(db, embedder))
        owner = await memory.owner_for("console", "a")
        assert owner is not None
        first = await memory.remember(owner, "I am a gold medalist olympian")
        assert first.memory is not None and first.memory.slot == "job"
        second = await memory.remember(owner, "I spend my days in spreadsheets for clients")
        assert [m.text for m in second.asked] == ["I am a gold medalist olympian"]
        assert second.conflict_id is not None
        view = await memory.conflict(owner, second.conflict_id)
        assert view is not None and view.recommended is not None and view.recommended.value == "past"
    finally:
        db.dispose()


async def test_a_fact_saved_while_the_model_loads_gets_its_topic_with_its_vector(tmp_path) -> None:
    from bot.storage.models import Memory

    class Loading(JobWords):
        is_ready = False

        @property
        def ready(self) -> bool:  # type: ignore[override]
            return self.is_ready

    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'b.db'}")
    db = Database(settings.database_url)
    embedder = Loading(dim=384)
    try:
        memory = MemoryService(db, settings, SemanticIndex(db, embedder))
        owner = await memory.owner_for("console", "a")
        assert owner is not None
        early = (await memory.remember(owner, "I am a gold medalist olympian")).memory
        worded = (await memory.remember(owner, "I live in Lisbon")).memory
        assert early is not None and early.slot is None and worded is not None
        embedder.is_ready = True
        assert await memory.semantic.backfill() == 2
        with db.session() as s:
            assert s.get(Memory, early.id).slot == "job"
            assert s.get(Memory, worded.id).slot == "residence"  # its own topic stays
    finally:
        db.dispose()


def half_sure_home() -> np.ndarray:
    """A unit vector the classifier ranks residence first of the topics at 0.5 <= p < its own
    threshold: between residence and "other"."""
    found = slot_vectors._weights()
    assert found is not None
    weights, bias, classes, threshold = found
    home, other = direction("residence"), direction(slot_vectors.OTHER)
    for t in np.linspace(0.0, 1.0, 201):
        v = t * home + (1 - t) * other
        v = v / np.linalg.norm(v)
        z = weights @ v + bias
        p = np.exp(z - z.max())
        p /= p.sum()
        topics = [i for i, c in enumerate(classes) if c != slot_vectors.OTHER]
        best = max(topics, key=lambda i: p[i])
        if classes[best] == "residence" and slot_vectors.PLACE_THRESHOLD <= p[best] < threshold:
            return v.astype(np.float32)
    raise AssertionError("no mix of residence and other is half sure")


class LocalLife(HashingEmbedder):
    """Hashing vectors, but sentences about rush hour are half sure to be about one's home."""

    async def embed(self, texts: list[str]) -> np.ndarray:
        out = self.encode_sync(texts)
        for i, text in enumerate(texts):
            if "rush hour" in text:
                out[i] = half_sure_home()
        return out


def test_half_sure_is_a_home_only_when_a_city_is_named() -> None:
    v = half_sure_home()
    assert slot_vectors.vector_slot(v) is None
    assert slot_vectors.vector_slot(v, "rush hour is no joke") is None
    assert slot_vectors.vector_slot(v, "rush hour in atlanta is no joke") == "residence"
    assert slot_vectors.vector_slot(v, "my sister hates rush hour in atlanta") is None


@pytest.mark.parametrize(("new", "recommended"), [
    ("rush hour in the ATL is no joke", "keep"),  # the same city by its nickname
    ("rush hour in boston is no joke", "past"),  # another city: a move
])
async def test_a_home_told_through_local_life_is_compared_by_its_city(tmp_path, new: str, recommended: str) -> None:
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'h.db'}")
    db = Database(settings.database_url)
    try:
        memory = MemoryService(db, settings, SemanticIndex(db, LocalLife(dim=384)))
        owner = await memory.owner_for("console", "a")
        assert owner is not None
        await memory.remember(owner, "I live in Atlanta.")
        saved = await memory.remember(owner, new)
        assert saved.memory is not None and saved.memory.slot == "residence"
        assert [m.text for m in saved.asked] == ["I live in Atlanta."]
        assert saved.conflict_id is not None
        view = await memory.conflict(owner, saved.conflict_id)
        assert view is not None and view.recommended is not None and view.recommended.value == recommended
    finally:
        db.dispose()


def half_sure(topic: str) -> np.ndarray:
    """A unit vector the classifier finds `topic` likely but not sure of (LIKELY_THRESHOLD <= p
    < its threshold): between the topic and "other"."""
    found = slot_vectors._weights()
    assert found is not None
    weights, bias, classes, threshold = found
    for t in np.linspace(0.0, 1.0, 401):
        v = t * direction(topic) + (1 - t) * direction(slot_vectors.OTHER)
        v = v / np.linalg.norm(v)
        z = weights @ v + bias
        p = np.exp(z - z.max())
        p /= p.sum()
        best = int(p.argmax())
        if classes[best] == topic and slot_vectors.LIKELY_THRESHOLD <= p[best] < threshold:
            return v.astype(np.float32)
    raise AssertionError(f"no mix of {topic} and other is half sure")


def test_a_likely_topic_is_not_a_topic() -> None:
    v = half_sure("job")
    assert slot_vectors.vector_slot(v) is None
    assert slot_vectors.likely_slot(v) == "job"
    assert slot_vectors.likely_slot(direction(slot_vectors.OTHER)) is None
    assert slot_vectors.likely_slot(None) is None


class DayAtWork(HashingEmbedder):
    """Hashing vectors, but a working day told without a job's name is half sure to be a job."""

    async def embed(self, texts: list[str]) -> np.ndarray:
        out = self.encode_sync(texts)
        for i, text in enumerate(texts):
            if "espresso shots" in text:
                out[i] = half_sure("job")
        return out


# (a working day the rules do not read: "I pull espresso shots all day" is a barista's by
# deeds.json since the sixteenth pass, and "I hand out espresso shots all day" the work itself
# since the twentieth (slots._work_done), so these say it without "I")
@pytest.mark.parametrize(("old", "new", "asked"), [
    ("I'm a nurse.", "espresso shots all day, my wrists hate me", True),  # a stored job: compared with it
    ("I live in Leeds.", "espresso shots all day, my wrists hate me", False),  # another topic: nothing to compare
    ("I'm a nurse.", "studying to be a barista, espresso shots all day", False),  # an aspiration
    ("I'm a nurse.", "my son pulls espresso shots all day", False),  # someone else's
])
async def test_a_likely_topic_is_compared_only_with_a_stored_fact_of_that_topic(
    tmp_path, old: str, new: str, asked: bool
) -> None:
    assert detect_slot(new) is None
    first, saved = await save_two(tmp_path, DayAtWork(dim=384), old, new, asked)
    assert saved is not None and saved.slot is None  # never stored as a job


async def save_two(tmp_path, embedder: HashingEmbedder, old: str, new: str, asked: bool):  # type: ignore[no-untyped-def]
    """Save `old`, then `new`, for one person; check whether `old` was asked about (then with
    Mark older as past recommended); the two saved memories."""
    settings = make_settings(database_url=f"sqlite:///{tmp_path / 'two.db'}")
    db = Database(settings.database_url)
    try:
        memory = MemoryService(db, settings, SemanticIndex(db, embedder))
        owner = await memory.owner_for("console", "a")
        assert owner is not None
        first = await memory.remember(owner, old)
        saved = await memory.remember(owner, new)
        assert [m.text for m in saved.asked] == ([old] if asked else [])
        if asked:
            assert saved.conflict_id is not None
            view = await memory.conflict(owner, saved.conflict_id)
            assert view is not None and view.recommended is not None and view.recommended.value == "past"
        return first.memory, saved.memory
    finally:
        db.dispose()


class DayAtWorkThenJob(DayAtWork):
    """As DayAtWork, and a job named outright points where the classifier's "job" points (so the
    working day, half sure, is its vector neighbour); a home in Leeds is put right beside the
    working day."""

    async def embed(self, texts: list[str]) -> np.ndarray:
        out = await super().embed(texts)
        for i, text in enumerate(texts):
            if "nurse" in text:
                out[i] = direction("job")
            if "Leeds" in text:
                out[i] = half_sure("job")
        return out


@pytest.mark.parametrize(("new", "asked"), [
    ("I'm a nurse.", True),  # states a job: the likely job before it is compared
    ("I live in Leeds.", False),  # states a home, not a job, however near its vector
])
async def test_an_old_fact_of_a_likely_topic_is_compared_with_a_new_one_that_states_it(
    tmp_path, new: str, asked: bool
) -> None:
    first, _ = await save_two(tmp_path, DayAtWorkThenJob(dim=384), "espresso shots all day, my wrists hate me", new, asked)
    assert first is not None and first.slot is None


def test_a_likely_status_is_never_a_sisters_or_a_friends() -> None:
    from bot.memory.rules.conflict import Fact, assess

    old = Fact(id=1, text="my wife and i are living apart for now", slot="relationship")
    for new, asked in (("my sister and i are eleven months apart", False),
                       ("my best friend and i share a flat now", False),
                       ("him and i are giving it another go", True)):
        result = assess(new, [old], likely="relationship")
        assert bool(result.nominations) == asked, (new, result)


@pytest.mark.parametrize(("old", "new", "asked"), [
    # the working day shares no word with the job and its vector is far from it: found all
    # the same, as a fact the vectors find likely a job (heldout22: "2nd semester of computer
    # science at AU ..." was never compared with "I am teaching mathematics ...")
    ("espresso shots all day, my wrists hate me", "I'm a nurse.", True),
    ("my son pulls espresso shots all day", "I'm a nurse.", False),  # someone else's day
    ("espresso shots all day, my wrists hate me", "I live in Leeds.", False),  # another topic
])
async def test_an_old_fact_likely_of_the_topic_is_found_though_no_neighbour(
    tmp_path, old: str, new: str, asked: bool
) -> None:
    embedder = DayAtWork(dim=384)
    one, two = await embedder.embed([old, new])
    assert float(one @ two) < 0.6  # not a vector neighbour: only its likely topic finds it
    first, _ = await save_two(tmp_path, embedder, old, new, asked)
    assert first is not None and first.slot is None


@pytest.mark.parametrize(("new", "likely", "verdict"), [
    # local life that names no town: asked, since its vector is near a home's, but nothing is
    # recommended (it cannot say where one lives now; it had recommended Mark older as past)
    ("Smoked lamb, dried in the shed all winter, give me that and bread and I want nothing more", "residence",
     VERDICT_UNCLEAR),
    ("the tram outside my window never stops, and I love it", "residence", VERDICT_UNCLEAR),
    # a town named: it may be a move
    ("the tram outside my window in Zagreb never stops", "residence", VERDICT_CHANGE),
    # an age needs a number
    ("my knees creak every morning these days", "age", VERDICT_UNCLEAR),
    ("sixty creaky years on these knees", "age", VERDICT_CHANGE),
    # a temperature, a time or a small count is no age (the number alone had made it a change)
    ("-28 today. I cut ice blocks out of the river, saw and hook", "age", VERDICT_UNCLEAR),
    ("21:10 and the knees are done for", "age", VERDICT_UNCLEAR),
    ("30 degrees in the shade and my knees still ache", "age", VERDICT_UNCLEAR),
])

def test_a_likely_topic_recommends_a_change_only_with_something_that_could_be_its_value(
    new: str, likely: str, verdict: str
) -> None:
    from bot.memory.rules.conflict import Fact, assess

    old = {"residence": Fact(id=1, text="I live in Lae, near the botanical gardens", slot="residence"),
           "age": Fact(id=1, text="I am 44", slot="age")}[likely]
    result = assess(new, [old], likely=likely)
    assert [n.verdict for n in result.nominations] == [verdict], (new, result)


def test_a_maker_one_works_for_is_no_car_of_ones_own() -> None:
    """The vectors may find "Toyota. 12 years on the line" of a car; the words say it is work (a
    terminal walk asked it as a change of "GMC Sierra 2500, bed full of tools")."""
    from bot.memory.rules.conflict import Fact, assess

    old = Fact(id=1, text="GMC Sierra 2500, bed full of tools", slot="car")
    assert assess("Toyota. 12 years on the line at the plant", [old], likely="car").nominations == ()
    assert assess("Toyota now, the Sierra is gone", [old], likely="car").nominations


def test_a_small_town_named_in_local_life_may_be_a_move() -> None:
    from bot.memory.rules.conflict import Fact, assess

    old = Fact(id=1, text="I live in Passau, where the three rivers meet", slot="residence")
    new = "the fish market screaming at seven and the volcano smoking, there's nowhere I'd rather be than Catania"
    assert [n.verdict for n in assess(new, [old], likely="residence").nominations] == [VERDICT_CHANGE]
