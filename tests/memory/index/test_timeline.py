"""The in-process timeline (bot.memory.index.timeline): its neighbours are exactly scoring.neighbour_pairs
over the whole timeline, and it follows the database (new rows at once, removals after the
service's own changes or the ttl), per person."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.memory.recall import scoring
from bot.storage.db import Database
from bot.memory.service import MemoryService
from bot.memory.index.timeline import TimelineIndex, _micros, neighbours_of
from tests.conftest import make_settings

T0 = datetime(2023, 5, 8, 13, 0)


def _arrays(timeline: list[tuple[int, datetime | None]]) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([i for i, _ in timeline], dtype=np.int64),
            np.array([_micros(t) for _, t in timeline], dtype=np.int64))


def _expected(timeline, candidates, window, gap):
    pairs = scoring.neighbour_pairs(timeline, window, gap)
    return {c: sorted(pairs[c]) for c in candidates if c in pairs}


@pytest.mark.parametrize(
    ("timeline", "candidates", "window"),
    [
        ([], [1], 2),
        ([(1, T0)], [1, 2], 2),
        ([(1, T0), (2, T0), (3, T0), (4, T0 + timedelta(days=3)), (5, None), (6, T0)], [1, 3, 4, 5, 6], 2),
        # the walk from 1 stops at 2 (more than an hour from 1), so 3 is not 1's neighbour even
        # though 3 is close to 1
        ([(1, T0), (2, T0 + timedelta(hours=2)), (3, T0 + timedelta(minutes=10))], [1, 2, 3], 2),
        # exactly one hour apart still counts; one microsecond more does not
        ([(1, T0), (2, T0 + timedelta(hours=1)), (3, T0 + timedelta(hours=1, microseconds=1))], [1, 2, 3], 2),
        ([(10, T0), (20, T0), (30, T0), (40, T0)], [20], 0),
        ([(10, T0), (20, T0), (30, T0), (40, T0)], [20, 40], 3),
    ],
)
def test_neighbours_equal_neighbour_pairs(timeline, candidates, window) -> None:
    ids, times = _arrays(timeline)
    gap = timedelta(hours=1)
    got = {c: sorted(v) for c, v in neighbours_of(ids, times, candidates, window, gap).items()}
    assert got == _expected(timeline, candidates, window, gap)


@settings(max_examples=300, deadline=None)
@given(
    steps=st.lists(st.one_of(st.none(), st.integers(0, 150)), min_size=0, max_size=40),
    picks=st.lists(st.integers(0, 45), max_size=12),
    window=st.integers(0, 4),
)
def test_neighbours_equal_neighbour_pairs_on_random_timelines(steps, picks, window) -> None:
    # save times walking forward by 0..150 minutes (None: no time), ids with gaps
    timeline, when = [], T0
    for n, step in enumerate(steps):
        if step is None:
            timeline.append((n * 3 + 1, None))
        else:
            when = when + timedelta(minutes=step)
            timeline.append((n * 3 + 1, when))
    candidates = [p * 3 + 1 for p in picks] + [2]  # some not on the timeline at all
    ids, times = _arrays(timeline)
    gap = timedelta(hours=1)
    got = {c: sorted(v) for c, v in neighbours_of(ids, times, candidates, window, gap).items()}
    assert got == _expected(timeline, candidates, window, gap)


def test_aware_and_naive_times_count_the_same_instant() -> None:
    aware = datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    paris = aware.astimezone(timezone(timedelta(hours=1)))
    assert _micros(aware) == _micros(paris) == _micros(aware.replace(tzinfo=None))


@pytest.fixture
def service(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'timeline.db'}")
    yield MemoryService(db, make_settings(database_url=db.url)), db
    db.dispose()


def _ids(index: TimelineIndex, db: Database, owner: int) -> list[int]:
    with db.session() as s:
        return index.get(s.connection(), owner).ids.tolist()


async def test_index_follows_the_database(service) -> None:
    svc, db = service
    a = await svc.owner_for("console", "a")
    b = await svc.owner_for("console", "b")
    first = [(await svc.remember(a, f"fact number {n} about topic {n}", review=False)).memory.id for n in range(3)]
    other = (await svc.remember(b, "someone else's fact", review=False)).memory.id
    index = TimelineIndex(ttl=3600)
    assert _ids(index, db, a) == first
    assert _ids(index, db, b) == [other]  # each person their own
    # a new row, by this process or any other, is seen at once
    later = (await svc.remember(a, "a later fact about gardens", review=False)).memory.id
    assert _ids(index, db, a) == first + [later]
    # a row that stops being live is not seen by the check itself ...
    with db.session() as s:
        s.connection().execute(sa.text("UPDATE memory SET archived = 1 WHERE id = :i"), {"i": first[1]})
    assert _ids(index, db, a) == first + [later]
    # ... but after forget (the service's own changes) or the ttl
    index.forget(a)
    assert _ids(index, db, a) == [first[0], first[2], later]
    with db.session() as s:
        s.connection().execute(sa.text("UPDATE memory SET archived = 0 WHERE id = :i"), {"i": first[1]})
    index.ttl = 0.0
    assert _ids(index, db, a) == first + [later]


async def test_service_forgets_the_timeline_after_its_own_changes(service) -> None:
    svc, db = service
    a = await svc.owner_for("console", "a")
    ids = [(await svc.remember(a, f"fact number {n} about topic {n}", review=False)).memory.id for n in range(3)]
    assert _ids(svc.timeline, db, a) == ids
    await svc.delete(a, ids[1])
    assert _ids(svc.timeline, db, a) == [ids[0], ids[2]]
    await svc.undo(a)
    assert _ids(svc.timeline, db, a) == ids
