"""The composition root: every part built once, and every handler, button action, /command and
periodic job registered in one table (`wire`), for every entry point (chat, run, export,
import, benchmarks), so that they all run the same code paths.

Reading order for "what handles X?": `wire` below. The core (bot/core) only dispatches through
the router it is given; features (bot/features) get what they need from other features as
constructor arguments here, never through a registry.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.config import Settings, describe_database
from bot.core import commands as c
from bot.core.access import AccessTokens
from bot.core.web_login import WebLogins
from bot.core.core import Core
from bot.features import linking, memory_commands as mem, memory_presses as presses
from bot.features.access import TokenCommands
from bot.features.web_page import WebCommand
from bot.features.chat.fallback import SAVE_ACTION as SAVE_OFFER_ACTION
from bot.features.chat.fallback import MemoryAnswers
from bot.features.chat.turn import Conversation
from bot.features.chat.why import WhyStore
from bot.features.chat.window import ChatLog
from bot.features.episodes import close_quiet_conversations, closing_interval_seconds
from bot.features.judge import AiJudge
from bot.features.recheck import PRESS_ACTION as RECHECK_ACTION
from bot.features.recheck import Rechecker
from bot.features.reminders import PRESS_ACTION as REMINDER_ACTION
from bot.features.reminders import NoTimers, ReminderCommands, ReminderService, delivery_buttons
from bot.features.timezones import PRESS_ACTION as ZONE_ACTION
from bot.features.timezones import ZoneOffer
from bot.features.import_offer import PRESS_ACTION as IMPORT_OFFER_ACTION
from bot.features.import_offer import ImportOffer
from bot.features.tidy import Curator, purge_deleted
from bot.features.welcome import HOW_ACTION, Welcome
from bot.features.welcome import ZONE_ACTION as START_ZONE_ACTION
from bot.llm.client import LLM
from bot.memory import MemoryService
from bot.memory.embeddings.encoder import build_embedder
from bot.memory.index.semantic import SemanticIndex
from bot.storage.db import Database
from bot.storage.models import utcnow
from bot.storage.usage import DatabaseLedger
from scheduler.delivery import ReminderDelivery
from scheduler.timers import Timers

log = logging.getLogger(__name__)

PURGE_SECONDS = 60
CURATOR_COUNT_CHECK_SECONDS = 60
RECHECK_SECONDS = 3600


class SemanticWarmup:
    """Waits in the background for the embedding model, then gives vectors to memories saved
    before it was ready. Start-up and saves never wait for it."""

    def __init__(self, semantic: SemanticIndex) -> None:
        self.semantic = semantic
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.semantic.embedder is not None:
            start = getattr(self.semantic.embedder, "start", None)
            if start is not None:
                start()  # loading begins only now, after the greeting, in its own thread
            self._task = asyncio.get_running_loop().create_task(self._run(), name="semantic-warmup")

    async def _run(self) -> None:
        embedder = self.semantic.embedder
        while not self.semantic.ready:
            if getattr(embedder, "failed", False):
                return
            await asyncio.sleep(0.5)
        try:
            count = await self.semantic.backfill()
            if count:
                log.info("gave vectors to %d memories saved before the model was ready", count)
        except Exception:
            log.exception("vector backfill failed; keyword search still serves")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        close = getattr(self.semantic.embedder, "close", None)
        if close is not None:
            close()


@dataclass
class App:
    """Every part of one assistant process; `wire` connects them."""

    settings: Settings
    db: Database
    memory: MemoryService
    core: Core
    timers: Timers
    delivery: ReminderDelivery
    reminders: ReminderService
    reminder_commands: ReminderCommands
    zone_offer: ZoneOffer
    curator: Curator
    rechecker: Rechecker
    judge: AiJudge
    answers: MemoryAnswers
    why: WhyStore
    chat_log: ChatLog
    warmup: SemanticWarmup
    access: AccessTokens
    web_logins: WebLogins
    llm: LLM | None = None
    conversation: Conversation | None = None  # the chat turn with the model; None without one
    clock: Callable[[], datetime] = utcnow
    # "chat": everything; "web" (`python -m bot web`, `python -m bot mcp`): the memory's upkeep
    # (purge, tidy) but no reminder delivery and no jobs that talk to people in a chat
    role: str = "chat"
    _started: bool = field(default=False, repr=False)

    async def start_background(self, *, freeze_heap: bool = False) -> None:
        """Start the embedding model's warm-up and the timers (reminders, purge, tidy ...).
        `freeze_heap`: the long-running processes (`run`, `chat`) also `freeze_startup_heap`."""
        await self.warmup.start()
        await self.timers.start()
        self._started = True
        if freeze_heap:
            freeze_startup_heap()

    async def startup_line(self, owner_id: int | None = None, *, everyone: bool = False) -> str:
        """One line: the database in use, whether a model is configured, and how many questions
        wait for an answer (the person's; everyone's with `everyone`)."""
        model = (
            f"model: {self.settings.chat_model}" if self.llm is not None
            else "model: none (set ANTHROPIC_API_KEY to chat; I answer from memory)"
        )
        if everyone:
            waiting = await self.memory.pending_count(None)
            where = " in all"
        else:
            waiting = await self.memory.pending_count(owner_id) if owner_id is not None else 0
            where = " for your answer (/memories review)"
        plural = "s" if waiting != 1 else ""
        questions = f"{waiting} question{plural} waiting{where}" if waiting else "no questions waiting"
        return f"Memory: {describe_database(self.settings.database_url)} · {model} · {questions}."

    async def goodbye(self, owner_id: int) -> str:
        """What the terminal chat says on quitting: whether reminders stay scheduled."""
        upcoming = await self.reminders.upcoming(owner_id)
        if not upcoming:
            return "Goodbye."
        from bot.features.reminders import due_words

        first = upcoming[0]
        n = len(upcoming)
        return (
            f"Goodbye. {n} reminder{'s' if n != 1 else ''} stay{'s' if n == 1 else ''} scheduled "
            f"(next: “{first.text[:80]}”, {due_words(first)}); I deliver them while the chat or "
            "`python -m bot run` is running, late ones as soon as it starts again."
        )

    async def close(self) -> None:
        await self.core.drain(timeout=10)
        for name, stop in (("timers", self.timers.stop), ("warmup", self.warmup.stop)):
            try:
                await stop()
            except Exception:
                log.exception("stopping %s failed", name)
        if self.llm is not None:
            try:
                await self.llm.aclose()
            except Exception:
                log.exception("closing the model client failed")
        self.db.dispose()


def freeze_startup_heap() -> None:
    """Keep what start-up built (modules, the rules' tables, the libraries' state: hundreds of
    thousands of objects that live as long as the process) out of every later full garbage
    collection. Such a collection holds the GIL for all its length, so every thread, the event
    loop included, waits for it; with the start-up heap in it, one took 80-150 ms during a
    tidy-up of 10,000 memories, against 30-45 ms without (`python -m bot bench tidy`). Once per
    process, after start-up: objects frozen are never collected as cycles."""
    gc.collect()
    gc.freeze()


_UNSET: Any = object()


def build_app(
    settings: Settings,
    *,
    db: Database | None = None,
    embedder: Any = _UNSET,
    with_model: bool = True,
    llm: LLM | None = None,
    clock: Callable[[], datetime] = utcnow,
    role: str = "chat",
    **delivery_options: Any,
) -> App:
    """Open storage and build every part. Slow parts (the embedding model) load in the
    background. `role` is "chat" or "web" (see App.role). `db`, `embedder`, `llm`, `clock` and
    `delivery_options` (see ReminderDelivery) are for tests and benchmarks."""
    if role not in ("chat", "web"):
        raise ValueError(f"unknown role {role!r}")
    db = db or Database(settings.database_url)
    if embedder is _UNSET:
        embedder = build_embedder(settings, start=False)
    semantic = SemanticIndex(db, embedder)
    memory = MemoryService(db, settings, semantic)
    core = Core(settings=settings, memory=memory)
    if llm is None and with_model and settings.anthropic_api_key:
        llm = LLM(settings, DatabaseLedger(db))

    timers = Timers(clock=clock)
    buttons = core.buttons
    async def reminder_buttons(owner_id: int, reminder_id: int) -> Any:
        """Done / Snooze, each naming the reminder it acts on."""
        view = await reminders.get(owner_id, reminder_id)
        return await delivery_buttons(buttons, owner_id, reminder_id, view.text if view is not None else "")

    delivers = role == "chat"  # a web-only process leaves delivery to the chat process and its sweep
    delivery = ReminderDelivery(
        timers if delivers else Timers(clock=clock, name="reminder timers (not started here)"), db, core.outbox,
        settings, reminder_buttons, clock=clock, **delivery_options,
    )
    reminders = ReminderService(db, settings, memory.timezone_of, timers=delivery if delivers else NoTimers(), clock=clock)
    zone_offer = ZoneOffer(reminders)
    chat_log = ChatLog(db, settings.history_token_budget)
    why = WhyStore(db)
    judge = AiJudge(llm, settings)
    answers = MemoryAnswers(chat_log, why, judge)
    conversation = None
    if llm is not None:
        conversation = Conversation(
            core, llm, chat_log=chat_log, why=why, answers=answers, judge_for=judge, reminders=reminders,
            after_reminder=zone_offer.after_model_reminder,
        )
    app = App(
        settings=settings,
        db=db,
        memory=memory,
        core=core,
        timers=timers,
        delivery=delivery,
        reminders=reminders,
        reminder_commands=ReminderCommands(reminders, zone_offer.after_first_reminder),
        zone_offer=zone_offer,
        curator=Curator(memory, db, settings, llm=llm, clock=clock),
        rechecker=Rechecker(core, memory, db, settings, clock=clock),
        judge=judge,
        answers=answers,
        why=why,
        chat_log=chat_log,
        warmup=SemanticWarmup(semantic),
        access=AccessTokens(db, settings),
        web_logins=WebLogins(db, settings, clock),
        llm=llm,
        conversation=conversation,
        clock=clock,
        role=role,
    )
    wire(app)
    return app


def forgetting_tokens(app: App, handler: Any) -> Any:
    """/link and /unlink move an identity to another owner: API tokens are checked afresh after."""

    async def wrapped(core: Core, turn: Any, intent: Any, msg: Any) -> Any:
        try:
            return await handler(core, turn, intent, msg)
        finally:
            app.access.forget()

    return wrapped


def wire(app: App) -> None:
    """The one table: who handles each intent, /command, button action and periodic job."""
    core, router, settings = app.core, app.core.router, app.settings
    save = mem.SaveCommand(app.judge)
    reminders = app.reminder_commands
    chat = app.conversation.chat_turn if app.conversation is not None else app.answers.on_chat

    # what people type
    router.intent(c.Chat, chat)  # the model's turn, or answers from memory without a model
    router.intent(c.Save, save.on_save)
    router.intent(c.BareNumber, mem.NumberReply(chat).on_number)  # a number that pressed nothing
    router.intent(c.ListMemories, mem.on_list)
    router.intent(c.Search, mem.on_search)
    router.intent(c.ByNumber, mem.on_by_number)
    router.intent(c.Rewrite, mem.on_rewrite)
    router.intent(c.Timezone, app.zone_offer.on_timezone)  # asks whether reminders set move with it
    router.intent(c.SettingsCmd, mem.on_settings)
    router.intent(c.Remind, reminders.on_remind)
    router.intent(c.Link, forgetting_tokens(app, linking.on_link))
    router.intent(c.TokenCmd, TokenCommands(app.access, settings).on_token)
    router.intent(c.Malformed, mem.on_malformed)
    router.intent(c.Unknown, mem.on_unknown)

    # /commands without arguments
    router.command("help", mem.on_help)
    welcome = Welcome(lambda: app.llm is not None and app.llm.available, app.zone_offer.on_ask)
    router.command("start", welcome.on_start)
    router.command("undo", mem.UndoCommand(app.reminders.after_undo).on_undo)
    router.command("export", mem.on_export)
    importer = mem.ImportCommand(settings.imports_per_hour, app.clock)
    router.command("import", importer.on_import)
    offer = ImportOffer(importer)
    router.intent(c.FileOnly, offer.on_file)  # a backup dropped into a private chat: offered
    router.command("forget_me", mem.on_forget_me)
    router.command("why", app.why.on_why)
    router.command("reminders", reminders.on_list)
    router.command("tidy", app.curator.on_tidy)
    router.command("unlink", forgetting_tokens(app, linking.on_unlink))
    router.command("web", WebCommand(app.web_logins, settings).on_web)

    # buttons
    async def forget_owner(owner_id: int) -> None:  # what else /forget_me lets go of, beside the memory
        await app.reminders.forget_owner(owner_id)
        app.access.forget(owner_id)

    router.press("conflict", presses.on_conflict)
    router.press("undo", presses.UndoPress(app.reminders.after_undo).on_press)
    router.press("page", presses.on_page)
    router.press("ask_again", presses.on_ask_again)
    router.press("still_current", presses.on_still_current)
    forget_me = presses.ForgetMePress(forget_owner)
    router.press("forget_me", forget_me.on_press)
    router.expired("forget_me", forget_me.on_expired)  # an old confirmation asks again
    router.press(REMINDER_ACTION, reminders.on_press)
    router.press(ZONE_ACTION, app.zone_offer.on_press)
    router.press(IMPORT_OFFER_ACTION, offer.on_press)  # the time zone offered under a first reminder
    router.press(RECHECK_ACTION, app.rechecker.on_press)
    router.press(linking.PRESS_ACTION, linking.on_press)
    router.press(HOW_ACTION, welcome.on_how)
    router.press(START_ZONE_ACTION, welcome.on_zone)
    router.press(SAVE_OFFER_ACTION, app.answers.on_save_press)  # "Save" under a statement, without a model

    # periodic jobs (reminder delivery adds its own sweep)
    timers, memory, db, clock = app.timers, app.memory, app.db, app.clock
    # often enough that a deleted memory's text is gone within a minute of its undo window
    purge_every = max(1, min(PURGE_SECONDS, settings.undo_window_seconds))
    timers.add_interval_job("purge", purge_every, lambda: purge_deleted(db, memory, clock))
    timers.add_interval_job("curator", settings.curator_interval_minutes * 60, app.curator.tidy_all)
    timers.add_interval_job("curator_by_count", CURATOR_COUNT_CHECK_SECONDS, app.curator.tidy_busy_owners)
    if app.role != "chat":
        return  # the rest talks to people in a chat
    timers.add_interval_job("recheck", RECHECK_SECONDS, app.rechecker.run)
    if app.llm is not None:
        llm = app.llm
        timers.add_interval_job(
            "close_quiet_conversations",
            closing_interval_seconds(settings.episode_quiet_minutes),
            lambda: close_quiet_conversations(core, llm, clock()),
        )
