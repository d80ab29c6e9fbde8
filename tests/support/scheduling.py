"""Helpers shared by the scheduler, reminder, curator and re-check tests (no tests here).

`Clock` is a controllable "now"; `RecordingSender` is a platform sender that records what it
was asked to send and can fail on demand; `make_app` builds an App like bot.app.build_app but
on a given Database (a second Database on the same URL stands for a second process) and
wires everything the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from bot.app import App, build_app
from bot.config import Settings
from bot.events import ChatRef, Incoming, Outgoing
from bot.storage.db import Database

T0 = datetime(2026, 3, 2, 11, 0, tzinfo=timezone.utc)  # a Monday, 12:00 in Paris


class Clock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now = self.now + timedelta(**delta)
        return self.now


class RecordingSender:
    """A sender that records messages; `fail` makes the next N sends raise (platform down)."""

    def __init__(self, fail: int = 0, delay: float = 0.0) -> None:
        self.sent: list[tuple[ChatRef, Outgoing]] = []
        self.fail = fail
        self.attempts = 0
        self.delay = delay
        self.attempt_times: list[float] = []

    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        self.attempts += 1
        self.attempt_times.append(asyncio.get_running_loop().time())
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail > 0:
            self.fail -= 1
            raise ConnectionError("platform unreachable")
        self.sent.append((chat, message))
        return f"sent-{len(self.sent)}"

    async def typing(self, chat: ChatRef) -> None:
        return None

    def texts(self) -> list[str]:
        return [m.text for _, m in self.sent]


def make_app(db: Database, settings: Settings, **options: Any) -> App:
    """An App on `db` like bot.app.build_app (no model, no embeddings), timers not started.
    `options` go to build_app (clock, delivery options)."""
    return build_app(settings, db=db, embedder=None, with_model=False, **options)


def other_database(db: Database) -> Database:
    """A second Database (own engine and pool) on the same storage: another process."""
    return Database(db.url, pg_schema=db.pg_schema)


def msg(text: str, user: str = "u1", *, platform: str = "console", chat: str | None = None, group: bool = False) -> Incoming:
    return Incoming(
        platform=platform,
        chat_id=chat or user,
        user_id=user,
        text=text,
        display_name=user,
        is_group=group,
        message_id="m1",
    )


def button(out: Outgoing, label_start: str) -> str:
    for b in out.all_buttons:
        if b.label.startswith(label_start):
            return b.token
    raise AssertionError(f"no button {label_start!r} in {[b.label for b in out.all_buttons]}")


async def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.05) -> bool:
    """Poll `predicate` until true or `timeout` seconds passed (real time, for real timers)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if predicate():
            return True
        await asyncio.sleep(step)
    return predicate()
