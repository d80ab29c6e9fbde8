"""The terminal chat: the adapter contract over stdin and stdout.

Lines are read on a thread, so it works the same interactively and with piped input. It never
echoes the input. Buttons are printed as "[1] Label  [2] Label", and a typed number presses one,
by the rule of docs/ARCHITECTURE.md section 2: a number presses a button of the assistant's
latest message only while nothing else has appeared since (no other line from the person, no
other reply or push). Why so strict: a number is one keystroke, and pressing the buttons of a
message the person scrolled past once deleted everything they had. A number typed within
PUSH_GRACE_SECONDS after a push presses nothing (the person was answering what they saw before
it arrived): the buttons are shown again, each naming what it acts on. A number that presses
nothing goes to the core as text (an awaited answer, "at what time?", takes it; otherwise the
core says that it pressed nothing). On EOF or Ctrl-C it finishes what is in flight, waits for
background work, and returns.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.config import Settings
from bot.events import Attachment, Button, ButtonPress, ChatRef, Core, Incoming, Outgoing

PLATFORM = "console"
PUSH_GRACE_SECONDS = 3.0
GREETING = "Hello! I'm your assistant with a long-term memory. Type /help to see what I can do (Ctrl-D to quit)."


def greet(stdout: TextIO | None = None) -> None:
    """The greeting, printed before the slow parts of start-up (storage, the model) so the
    person sees the chat is alive at once."""
    out = stdout or sys.stdout
    out.write(GREETING + "\n\n")
    out.flush()


class ConsoleAdapter:
    def __init__(
        self,
        core: Core,
        settings: Settings,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        export_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.core = core
        self.settings = settings
        self.user_id = settings.console_user
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        # files the assistant sends (an export) go here, never into the working directory
        self.export_dir = export_dir or settings.exports_dir
        self.clock = clock
        self._ids = itertools.count(1)
        # the buttons of the latest message, while nothing else has appeared since
        self._latest_buttons: tuple[str, list[Button]] | None = None
        self._last_push_at: float | None = None
        self._print_lock = threading.Lock()

    # --- the Sender protocol, for pushes (reminders, conflicts found in the background) -------
    async def send(self, chat: ChatRef, message: Outgoing) -> str | None:
        shown = self._show(message)
        self._last_push_at = self.clock()
        return shown

    async def typing(self, chat: ChatRef) -> None:
        return None

    # --- the loop ------------------------------------------------------------------------------
    def greet(self) -> None:
        with self._print_lock:
            greet(self.stdout)

    async def run(self, *, greet: bool = True) -> None:
        self.core.outbox.register(PLATFORM, self)
        if greet:
            self.greet()
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()

        def reader() -> None:
            try:
                for line in self.stdin:
                    loop.call_soon_threadsafe(lines.put_nowait, line)
            except (ValueError, OSError):
                pass
            finally:
                loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=reader, name="console-stdin", daemon=True).start()
        try:  # Ctrl-C: stop reading, finish the line in flight, then leave like EOF
            loop.add_signal_handler(signal.SIGINT, lines.put_nowait, None)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread / not POSIX
            pass
        try:
            while True:
                line = await lines.get()
                if line is None:
                    break
                await self.handle_line(line.rstrip("\r\n"))
        finally:
            try:
                loop.remove_signal_handler(signal.SIGINT)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
            await self.core.drain()  # type: ignore[attr-defined]
            self.core.outbox.unregister(PLATFORM)

    async def handle_line(self, line: str) -> None:
        text = line.strip()
        if not text:
            return
        if text.isascii() and text.isdigit() and len(text) <= 9:
            if self._just_pushed():
                self._show_again(text)
                return
            if self._latest_buttons is not None:
                await self._press(int(text))
                return
        else:
            self._latest_buttons = None  # a new line from the person: earlier buttons are history
        attachments: tuple[Attachment, ...] = ()
        if text.lower().startswith("/import ") and len(text.split(maxsplit=1)) == 2:
            path = Path(text.split(maxsplit=1)[1].strip()).expanduser()
            try:
                attachments = (Attachment(path.name, path.read_bytes(), "application/json"),)
            except OSError as exc:
                self._write(f"I can't read {path}: {exc.strerror or exc}.")
                return
            text = "/import"
        message = Incoming(
            platform=PLATFORM,
            chat_id=self.user_id,
            user_id=self.user_id,
            text=text,
            display_name=self.user_id,
            message_id=f"in-{next(self._ids)}",
            attachments=attachments,
        )
        for out in await self.core.handle_message(message):
            self._show(out)

    def _just_pushed(self) -> bool:
        return self._last_push_at is not None and self.clock() - self._last_push_at < PUSH_GRACE_SECONDS

    def _show_again(self, typed: str) -> None:
        """A number typed just after a push: nothing is pressed; the latest buttons are shown
        again, naming what each acts on, and from now on they are what a number presses."""
        self._last_push_at = None
        if self._latest_buttons is None:
            self._write(f"A new message arrived just as you typed “{typed}”, so nothing was pressed.")
            return
        message_id, buttons = self._latest_buttons
        choices = "\n".join(f"[{i}] {b.described}" for i, b in enumerate(buttons, 1))
        self._write(
            f"A new message arrived just as you typed “{typed}”, so nothing was pressed. "
            f"The latest buttons are:\n{choices}"
        )

    async def _press(self, number: int) -> None:
        assert self._latest_buttons is not None
        message_id, buttons = self._latest_buttons
        if not 1 <= number <= len(buttons):
            choose = "the only one is 1" if len(buttons) == 1 else f"choose 1 to {len(buttons)}"
            self._write(f"There is no button {number}; {choose}.")
            return
        press = ButtonPress(
            platform=PLATFORM,
            chat_id=self.user_id,
            user_id=self.user_id,
            token=buttons[number - 1].token,
            message_id=message_id,
            display_name=self.user_id,
        )
        for out in await self.core.handle_press(press):
            self._show(out)

    # --- output --------------------------------------------------------------------------------
    def _show(self, out: Outgoing) -> str | None:
        if not out.text and out.file is None:
            if out.notice:  # a short line about a press; the buttons shown stay what they were
                self._write(out.notice)
            return None
        message_id = out.edit_of or f"out-{next(self._ids)}"
        text = out.text
        if out.markdown:  # no raw ** in a terminal; imported here, so start-up stays quick
            from adapters.formatting import from_markdown

            text = from_markdown(out.text).text
        parts = [text] if text else []
        if out.file is not None:
            parts.append(self._save_file(out.file))
        buttons = out.all_buttons
        if buttons:
            parts.append("  ".join(f"[{i}] {b.label}" for i, b in enumerate(buttons, 1)))
        # every message the assistant shows is now the latest: only its buttons can be pressed
        self._latest_buttons = (message_id, buttons) if buttons else None
        self._write("\n".join(parts))
        return message_id

    def _save_file(self, file: Attachment) -> str:
        """Write a file the assistant sent (an export) where only this user can read it."""
        folder = self.export_dir
        path = folder / Path(file.filename).name
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_private(path, file.data)
        except OSError as exc:
            return f"(I could not write {path}: {exc.strerror or exc})"
        return f"Saved the file to {path.resolve()} (readable only by you)."

    def _write(self, text: str) -> None:
        with self._print_lock:
            self.stdout.write(text + "\n\n")
            self.stdout.flush()


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` with mode 0600 from the first byte (a backup holds everything the
    assistant knows about a person; the umask must not make it readable by others)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an existing file keeps its old mode through O_CREAT
        with os.fdopen(fd, "wb") as fh:
            fd = -1
            fh.write(data)
    finally:
        if fd != -1:
            os.close(fd)
