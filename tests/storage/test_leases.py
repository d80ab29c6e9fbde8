"""The named lease (bot.storage.leases) on SQLite and PostgreSQL: one holder at a time, also
across two Database objects racing from threads; expiry frees it; release only by the holder."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from bot.storage.leases import holder_of, lease, release, try_acquire
from bot.storage.models import utcnow
from tests.support.scheduling import other_database

TTL = timedelta(minutes=5)


def test_one_holder_at_a_time_and_release_only_by_the_holder(database):
    assert try_acquire(database, "curator:1", "A", TTL)
    assert not try_acquire(database, "curator:1", "B", TTL)
    assert try_acquire(database, "curator:2", "B", TTL)  # another owner's lease is independent
    assert try_acquire(database, "curator:1", "A", TTL)  # the holder may renew
    release(database, "curator:1", "B")  # not B's: nothing happens
    assert holder_of(database, "curator:1") == "A"
    release(database, "curator:1", "A")
    assert holder_of(database, "curator:1") is None
    assert try_acquire(database, "curator:1", "B", TTL)


def test_an_expired_lease_can_be_taken(database):
    now = utcnow()
    assert try_acquire(database, "curator:1", "crashed", TTL, now - timedelta(minutes=6))
    assert holder_of(database, "curator:1", now) is None
    assert try_acquire(database, "curator:1", "B", TTL, now)
    assert holder_of(database, "curator:1", now) == "B"


def test_many_racers_from_two_processes_exactly_one_wins(database):
    other = other_database(database)
    try:
        dbs = [database, other] * 4
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda i: try_acquire(dbs[i], "curator:9", f"racer-{i}", TTL), range(8)))
        assert results.count(True) == 1
    finally:
        other.dispose()


async def test_the_async_form_skips_when_busy_and_releases_on_exit(database):
    async with lease(database, "purge", TTL) as first:
        assert first
        async with lease(database, "purge", TTL) as second:
            assert not second  # a second run in the same process is excluded too
    async with lease(database, "purge", TTL) as again:
        assert again
