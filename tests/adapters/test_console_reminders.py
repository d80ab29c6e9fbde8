"""Reminders in the terminal chat, as real subprocesses with stdin kept open: printed when due
while the chat runs; set, stopped (EOF) before due, started again after: delivered once, late,
with a note, and not again at the next start."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from scheduler.delivery import ON_TIME

ROOT = Path(__file__).resolve().parents[2]
GREETING = "Hello! I'm your assistant"


class Chat:
    """`python -m bot chat` with a pipe we keep open and an output reader on a thread."""

    def __init__(self, tmp_path: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_"))}
        env.update(
            {
                "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
                "DATA_DIR": str(tmp_path / "data"),
                "EMBEDDING_MODEL": "none",
                "CONSOLE_USER": "tester",
                "PYTHONUNBUFFERED": "1",
            }
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "chat"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
        )
        self.out: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                self.out.append(line)

    @property
    def text(self) -> str:
        with self._lock:
            return "".join(self.out)

    def wait_for(self, needle: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if needle in self.text:
                return True
            time.sleep(0.05)
        return needle in self.text

    def say(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self, timeout: float = 30) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise

    def stderr(self) -> str:
        return self.proc.stderr.read() if self.proc.stderr else ""


def test_a_reminder_is_printed_when_due_while_the_chat_runs(tmp_path):
    chat = Chat(tmp_path)
    try:
        assert chat.wait_for(GREETING, 60), chat.text
        chat.say("/remind in 3 seconds to stretch")
        assert chat.wait_for("I'll remind you: “stretch”", 10)
        set_at = time.monotonic()
        assert chat.wait_for("⏰ Reminder: “stretch”", 10), chat.text
        assert time.monotonic() - set_at >= 2.0  # not before it is due
        assert "[1] Done  [2] Snooze 10 min  [3] Snooze 1 h" in chat.text
        chat.say("1")  # typed at once: it may have been meant for what was on screen before
        assert chat.wait_for("so nothing was pressed. The latest buttons are:\n[1] Done: “stretch”", 10), chat.text
        chat.say("1")  # now it is Done, for "stretch"
        assert chat.wait_for("✅ Done: “stretch”", 10)
    finally:
        code = chat.close()
    assert code == 0, chat.stderr()
    assert chat.text.count("⏰ Reminder") == 1


def test_due_while_stopped_is_delivered_once_late_at_the_next_start(tmp_path):
    first = Chat(tmp_path)
    try:
        assert first.wait_for(GREETING, 60), first.text
        # due well after the chat has stopped, even on a loaded machine where stopping takes seconds
        first.say("/remind in 12 seconds to drink water")
        assert first.wait_for("I'll remind you: “drink water”", 10)
        due = time.monotonic() + 12
    finally:
        code = first.close()
    assert code == 0, first.stderr()
    assert "⏰" not in first.text.replace("⏰ I'll remind you", "")  # stopped before it was due

    # clearly late by the next start: past the few seconds that still count as on time
    time.sleep(max(0.0, due + ON_TIME.total_seconds() + 3 - time.monotonic()))
    second = Chat(tmp_path)
    try:
        assert second.wait_for("⏰ Reminder, ", 60), second.text
        assert second.wait_for("(It was due ", 5)
        text = second.text
        assert "⏰ Reminder, less than a minute late: “drink water”" in text or "minute late: “drink water”" in text
        time.sleep(1.0)
    finally:
        code = second.close()
    assert code == 0, second.stderr()
    assert second.text.count("“drink water”") == 1

    third = Chat(tmp_path)
    try:
        assert third.wait_for(GREETING, 60)
        third.say("/reminders")
        assert third.wait_for("You have no upcoming reminders.", 10)
        time.sleep(1.0)
    finally:
        code = third.close()
    assert code == 0, third.stderr()
    assert "drink water" not in third.text
