"""Each person's timeline kept in the process: their live memories in save order with their save
times, so that recall finds a candidate's neighbours without asking the database.

Why: recall gives a memory saved right next to a strong match a share of its score (the answer to
a question often sits one message away from the words that match; scoring.neighbour_pairs). The
neighbours of the candidates were one SQLite statement of hundreds of index lookups and rows
on every chat turn (more on PostgreSQL, whose portable form is a new statement each time).
Here it is two binary searches per candidate over two arrays (16 bytes a memory).

How it stays right:
- New rows, from this process or another, are seen at once: every use compares the person's
  largest memory id with the largest one loaded (one index-only lookup) and appends the new live
  rows (rows are only ever added with larger ids).
- Rows that stop or start being live (delete, archive, restore, undo, forget-me, a move between
  people) are not visible to that check: the service forgets the person's timeline after its
  own such changes, and every timeline is read afresh at least every `ttl` seconds, which bounds
  what another process's (or the curator's) change can leave behind.
- What it can get wrong in the meantime is only which memories count as neighbours: every
  candidate and neighbour is then read from the database with the owner and liveness filters,
  so a stale timeline can never bring back a deleted memory or show another person's.

`neighbours_of` is pure and gives exactly what scoring.neighbour_pairs gives for the
candidates over the whole timeline (a table-tested equality).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone

import numpy as np
import sqlalchemy as sa

from bot.memory.index import keyword as search

__all__ = ["Timeline", "TimelineIndex", "neighbours_of"]

_NO_TIME = np.iinfo(np.int64).min  # a memory without a save time (never a neighbour)
_EPOCH = datetime(1970, 1, 1)


def _micros(when: datetime | None) -> int:
    """A save time as whole microseconds since 1970 (exact integers, so gaps compare exactly as
    scoring.neighbour_pairs compares datetimes); _NO_TIME for None. Aware times (PostgreSQL)
    count in UTC; naive ones (SQLite stores UTC without an offset) as they are."""
    if when is None:
        return int(_NO_TIME)
    naive = when.astimezone(timezone.utc).replace(tzinfo=None) if when.tzinfo is not None else when
    delta = naive - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


class Timeline:
    """One person's live memories: ids ascending and their save times (microseconds)."""

    __slots__ = ("ids", "times", "seen_max", "loaded_at")

    def __init__(self, ids: np.ndarray, times: np.ndarray, seen_max: int | None, loaded_at: float) -> None:
        self.ids = ids
        self.times = times
        self.seen_max = seen_max
        self.loaded_at = loaded_at



def neighbours_of(
    ids: np.ndarray,
    times: np.ndarray,
    candidates: Iterable[int],
    window: int = 2,
    max_gap: timedelta = timedelta(hours=1),
) -> dict[int, list[tuple[int, int]]]:
    """For each candidate that is on the timeline, its neighbours as (memory id, distance in saves),
    exactly as scoring.neighbour_pairs finds them on the whole timeline.

    neighbour_pairs walks forward from every memory i and stops at the first memory j (up to
    `window` saves on) that has no time or lies more than `max_gap` from i; every memory it
    passes is a neighbour of i and i of it. So a candidate c has the forward neighbours that
    walk from c reaches, and a backward neighbour b when the walk from b reaches c.
    """
    gap = max_gap // timedelta(microseconds=1)
    n = int(ids.shape[0])
    out: dict[int, list[tuple[int, int]]] = {}
    wanted = np.unique(np.fromiter((int(c) for c in candidates), dtype=np.int64))
    if n == 0 or wanted.size == 0:
        return out
    pos = np.searchsorted(ids, wanted)
    on_line = pos < n
    on_line[on_line] = ids[pos[on_line]] == wanted[on_line]
    at = pos[on_line]  # each candidate's place on the timeline
    names = wanted[on_line].tolist()
    for c in names:
        out[c] = []
    if not names:
        return out
    t0 = times[at]
    found: list[tuple[int, np.ndarray, np.ndarray]] = []  # (distance, which candidates, neighbour ids)
    # the walk from each candidate: on while every next memory has a time within the gap of it
    going = t0 != _NO_TIME
    for d in range(1, window + 1):
        j = np.minimum(at + d, n - 1)
        tj = times[j]
        going = going & (at + d < n) & (tj != _NO_TIME) & (np.abs(tj - t0) <= gap)
        if not going.any():
            break
        found.append((d, going, ids[j]))
    # walks from d saves back that reach the candidate: every memory from there up to it is
    # within the gap of where the walk started
    for d in range(1, window + 1):
        b = np.maximum(at - d, 0)
        tb = times[b]
        reach = (at - d >= 0) & (tb != _NO_TIME)
        for k in range(1, d + 1):
            tk = times[np.minimum(b + k, n - 1)]
            reach &= (tk != _NO_TIME) & (np.abs(tk - tb) <= gap)
        if reach.any():
            found.append((d, reach, ids[b]))
    for d, hit, other in found:
        for i in np.flatnonzero(hit).tolist():
            out[names[i]].append((int(other[i]), d))
    return out


class TimelineIndex:
    """The timelines of the people recall served lately (least recently used dropped past
    `max_people`). Thread-safe; does its reading on the connection it is given."""

    def __init__(self, ttl: float = 60.0, max_people: int = 1000) -> None:
        self.ttl = ttl
        self.max_people = max_people
        self._people: OrderedDict[int, Timeline] = OrderedDict()
        self._lock = threading.Lock()

    def forget(self, owner_id: int) -> None:
        with self._lock:
            self._people.pop(owner_id, None)

    def get(self, conn: sa.Connection, owner_id: int, *, max_id: int | None | object = ...) -> Timeline:
        """The person's current timeline, brought up to date first (see the module text).
        `max_id`: the person's largest memory id if the caller read it in this transaction
        already (recall's newest-memory check does), else it is read here."""
        if max_id is ...:
            max_id = conn.execute(sa.text("SELECT max(id) FROM memory WHERE owner_id = :owner"),
                                  {"owner": owner_id}).scalar()
        max_id = None if max_id is None else int(max_id)  # type: ignore[call-overload]
        now = time.monotonic()
        with self._lock:
            entry = self._people.get(owner_id)
        if (
            entry is None
            or now - entry.loaded_at > self.ttl
            or (max_id or 0) < (entry.seen_max or 0)  # rows went away: read afresh
            or (max_id is not None and entry.seen_max is None)  # the first rows: read them all
        ):
            entry = Timeline(*_read(conn, owner_id, None), seen_max=max_id, loaded_at=now)
        elif max_id is not None and max_id != entry.seen_max and entry.seen_max is not None:
            new_ids, new_times = _read(conn, owner_id, entry.seen_max)
            entry = Timeline(np.concatenate([entry.ids, new_ids]), np.concatenate([entry.times, new_times]),
                             seen_max=max_id, loaded_at=entry.loaded_at)
        else:
            with self._lock:
                if owner_id in self._people:
                    self._people.move_to_end(owner_id)
            return entry
        with self._lock:
            self._people[owner_id] = entry
            self._people.move_to_end(owner_id)
            while len(self._people) > self.max_people:
                self._people.popitem(last=False)
        return entry

    def neighbours(
        self, conn: sa.Connection, owner_id: int, candidates: Sequence[int], window: int, max_gap: timedelta,
        *, max_id: int | None | object = ...,
    ) -> dict[int, list[tuple[int, int]]]:
        line = self.get(conn, owner_id, max_id=max_id)
        return neighbours_of(line.ids, line.times, candidates, window, max_gap)


def _read(conn: sa.Connection, owner_id: int, after_id: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(ids, save times) of the person's live memories, by id, above `after_id` if given."""
    where = search.LIVE_SQL + (" AND id > :after" if after_id is not None else "")
    sql = f"SELECT id, created_at FROM memory WHERE {where} ORDER BY id"
    params: dict[str, object] = {"owner": owner_id}
    if after_id is not None:
        params["after"] = after_id
    if conn.dialect.name == "sqlite":
        rows = [(r[0], None if r[1] is None else datetime.fromisoformat(r[1])) for r in search.sqlite_rows(conn, sql, params)]
    else:
        rows = [(r[0], r[1]) for r in conn.execute(sa.text(sql), params)]
    ids = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
    times = np.fromiter((_micros(r[1]) for r in rows), dtype=np.int64, count=len(rows))
    return ids, times
