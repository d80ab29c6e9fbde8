"""Many people at once through the core (docs/ARCHITECTURE.md section 7: one person's messages in order, many
people's concurrently), on SQLite and PostgreSQL.

50 people x 20 messages, all handed to `Core.handle_message` at the same moment: saves (conflict
review stays on) and lists. What must hold: every person's messages are handled in the order they
were sent (each list shows exactly the saves sent before it), nothing deadlocks (a time bound),
and no memory ever lands with, or is shown to, the wrong person.
"""

from __future__ import annotations

import asyncio
import re
import time

from sqlalchemy import text as sql

from bot.events import Incoming, Outgoing

PEOPLE = 50
MESSAGES = 20
LIST_EVERY = 4  # messages 4, 8, 12, 16, 20 are lists; the other 15 are saves
TIME_BOUND = 180.0  # seconds for all 1000 messages; a deadlock would hit it


def msg(text: str, user: str, n: int) -> Incoming:
    return Incoming(platform="console", chat_id=user, user_id=user, text=text, display_name=user, message_id=str(n))


VERBS = "adores collects repairs paints photographs studies grows bakes sculpts translates restores sketches knits carves brews".split()
NOUNS = "marmalade lanterns clocks murals owls fungi orchids pretzels marble sonnets tractors cathedrals scarves totems kombucha".split()


def plan(person: int) -> list[str]:
    """20 messages: facts that share nothing but the person's tag (so no duplicate or conflict
    rule fires between them) and a list after every three saves."""
    tag = f"person{person:02d}"
    out = []
    k = 0
    for n in range(1, MESSAGES + 1):
        if n % LIST_EVERY == 0:
            out.append("/memories")
        else:
            out.append(f"remember: {tag} {VERBS[k]} {NOUNS[(k + person) % len(NOUNS)]}")
            k += 1
    return out


def only(outs: list[Outgoing]) -> Outgoing:
    assert len(outs) == 1, outs
    return outs[0]


async def test_fifty_people_twenty_messages_each_at_once(core, database) -> None:
    plans = {f"user{p:02d}": plan(p) for p in range(PEOPLE)}
    calls = [(user, n, text) for user, texts in plans.items() for n, text in enumerate(texts)]
    started = time.monotonic()
    # every message of every person is handed over at once; each person's in the order sent
    replies = await asyncio.wait_for(
        asyncio.gather(*(core.handle_message(msg(text, user, n)) for user, n, text in calls)), TIME_BOUND
    )
    elapsed = time.monotonic() - started
    by_person: dict[str, list[str]] = {user: [] for user in plans}
    for (user, _, _), outs in zip(calls, replies):
        by_person[user].append(only(outs).text)

    for p, (user, texts) in enumerate(plans.items()):
        tag = f"person{p:02d}"
        facts = [t.split(": ", 1)[1] for t in texts if t.startswith("remember:")]
        saved_so_far: list[str] = []
        for sent, reply in zip(texts, by_person[user]):
            if sent.startswith("remember:"):
                fact = sent.split(": ", 1)[1]
                assert reply == f"Saved: “{fact}”", (user, sent, reply)
                saved_so_far.append(fact)
            else:
                listed = re.findall(r"^\d+\. (.*)$", reply, re.M)
                assert listed == saved_so_far, f"{user}: the list does not show exactly what was sent before it, in order"
                assert all(line.startswith(tag) for line in listed)
        assert saved_so_far == facts

    with database.session() as s:
        rows = s.execute(
            sql("SELECT i.user_id, m.text FROM memory m JOIN identity i ON i.owner_id = m.owner_id ORDER BY m.id")
        ).all()
        owners = s.execute(sql("SELECT count(*) FROM owner")).scalar()
        conflicts = s.execute(sql("SELECT count(*) FROM conflict")).scalar()
    assert owners == PEOPLE and conflicts == 0
    assert len(rows) == PEOPLE * (MESSAGES - MESSAGES // LIST_EVERY)
    for user, text in rows:  # no memory belongs to anyone but its author
        assert text.startswith(f"person{int(user[4:]):02d} "), (user, text)
    assert elapsed < TIME_BOUND


async def test_one_persons_burst_stays_ordered_while_others_conflict(core) -> None:
    """A person whose saves raise conflict questions (review on) runs next to people who save
    and list; the questions go to the right person only and the order of each holds."""
    movers = [f"mover{i}" for i in range(10)]
    savers = [f"saver{i}" for i in range(10)]
    cities = ["London", "Paris", "Berlin", "Madrid", "Rome"]
    calls: list[tuple[str, str]] = []
    for user in movers:
        calls.append((user, f"remember: I live in {cities[0]}"))
        calls += [(user, f"remember: I moved to {c}") for c in cities[1:]]
        calls.append((user, "/memories review"))
    for user in savers:
        calls += [(user, f"remember: {user} plays instrument{k}") for k in range(5)] + [(user, "/memories")]
    replies = await asyncio.wait_for(asyncio.gather(*(core.handle_message(msg(t, u, i)) for i, (u, t) in enumerate(calls))), 120)
    seen: dict[str, list[Outgoing]] = {}
    for (user, _), outs in zip(calls, replies):
        seen.setdefault(user, []).extend(outs)
    for user in movers:
        texts = [o.text for o in seen[user]]
        assert texts[0] == f"Saved: “I live in {cities[0]}”"
        for city, reply in zip(cities[1:], seen[user][1:5]):  # each move is saved, then asked about
            assert reply.text.startswith(f"Saved: “I moved to {city}”") and "This may change something" in reply.text
            assert len(reply.all_buttons) == 4
        assert texts[5].startswith("Waiting for your answer") and f"I live in {cities[0]}" in texts[5]
        assert not any(s in "".join(texts) for s in savers)
    for user in savers:
        listing = seen[user][-1].text
        assert re.findall(r"instrument(\d)", listing) == [str(k) for k in range(5)]
        assert not any(c in listing for c in cities)
