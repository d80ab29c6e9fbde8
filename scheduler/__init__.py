"""Scheduled work: reminder timers and delivery, the curator, the purge, the re-check.

`install(app)` wires it all into an assembled App (bot.app): it creates the Scheduler on the
app's core, memory, database and settings, registers the services and handlers on the core,
and puts the Scheduler in app.parts["scheduler"], whose start()/stop() the app calls from
start_background() / close(). Nothing runs until start().

Registered on the core:
- services["reminders"]: the ReminderService (chat model tool, /forget_me)
- services["remind"]: "/remind ..." and "remind me ..." messages
- services["simple:reminders"]: /reminders
- services["simple:tidy"] and services["curator"]: /tidy and the Curator
- services["rechecker"] and services["scheduler"]
- press_handlers["reminder"] (Done, Snooze, Cancel/Stop) and press_handlers["recheck"]
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

__all__ = ["install"]


def install(app: Any, *, clock: Callable[[], datetime] | None = None, **options: Any) -> Any:
    """Create the Scheduler for `app` and register it; returns it. `clock` and `options` (see
    scheduler.core.Scheduler) are for tests and tuning."""
    from bot import reminders
    from scheduler import curator, recheck
    from scheduler.core import Scheduler

    if clock is not None:
        options["clock"] = clock
    sched = Scheduler(app.core, app.memory, app.db, app.settings, **options)
    core = app.core
    core.services["scheduler"] = sched
    core.services["reminders"] = sched.reminders
    core.services["remind"] = reminders.on_remind
    core.services["simple:reminders"] = reminders.on_list
    core.services["curator"] = sched.curator
    core.services["simple:tidy"] = curator.on_tidy
    core.services["rechecker"] = sched.rechecker
    core.press_handlers[reminders.PRESS_ACTION] = reminders.on_press
    core.press_handlers[recheck.PRESS_ACTION] = recheck.on_press
    app.parts["scheduler"] = sched
    return sched
