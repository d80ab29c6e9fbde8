"""The terminal chat and the export/import commands as real subprocesses, as a newcomer runs
them: `python -m bot chat` with piped stdin, `python -m bot export` and `python -m bot import`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "ANTHROPIC_"))}
    env.update(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
            "EMBEDDING_MODEL": "none",
            "CONSOLE_USER": "tester",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def chat(tmp_path: Path, lines: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "chat"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env_for(tmp_path, **extra),
        timeout=120,
    )


def test_save_list_update_history_undo_export_import(tmp_path):
    out = chat(
        tmp_path,
        [
            "remember: I live in London",
            "/memories",
            "remember: I drive a VW Golf",
            "/memories",
            "/update 2 I drive a Tesla",
            "/memories historical",
            "/history 1",
            "/undo",
            "/memories",
            "/export",
        ],
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Saved: “I live in London”" in text
    assert "1. I live in London" in text
    assert "Updated: “I drive a Tesla” is current; “I drive a VW Golf” is kept as history." in text
    assert "Historical memories (1):" in text
    assert "Undone the update" in text
    assert "remember: I live in London" not in text  # the input is never echoed
    exports = list(tmp_path.glob("memories-*.json"))
    assert len(exports) == 1
    doc = json.loads(exports[0].read_text())
    assert sorted(m["text"] for m in doc["memories"]) == ["I drive a VW Golf", "I live in London"]

    # import that file for someone else, through the command line
    imported = subprocess.run(
        [sys.executable, "-m", "bot", "import", str(exports[0]), "--owner", "console:friend"],
        capture_output=True, text=True, cwd=tmp_path, env=env_for(tmp_path), timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    assert "2 added" in imported.stdout
    again = chat(tmp_path, ["/memories"], CONSOLE_USER="friend")
    assert "I drive a VW Golf" in again.stdout and "I live in London" in again.stdout


def test_the_issue_example_prints_the_saved_memory(tmp_path):
    out = chat(tmp_path, ["remember: I live in London", "/memories"])
    assert out.returncode == 0
    listing = out.stdout.split("Your memories", 1)[1]
    assert "1. I live in London" in listing


def test_conflict_question_answered_by_typing_a_number(tmp_path):
    out = chat(tmp_path, ["remember: I live in London", "remember: I moved to Paris", "2", "/memories historical", "/history 1"])
    assert out.returncode == 0, out.stderr
    assert "[1] Keep both  [2] Mark older as past (recommended)  [3] Replace older  [4] Discard newer" in out.stdout
    assert "now past" in out.stdout
    hist = out.stdout.split("Historical memories (1):", 1)[1]
    assert "1. I live in London" in hist
    assert "marked past" in hist and "I moved to Paris" in hist


def test_greets_quickly_and_exits_cleanly_on_eof(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "chat"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=tmp_path, env=env_for(tmp_path, EMBEDDING_MODEL="default"),
    )
    started = time.monotonic()
    first = proc.stdout.readline()
    elapsed = time.monotonic() - started
    assert "Hello" in first
    assert elapsed < 2.0, f"greeting took {elapsed:.2f}s"
    proc.stdin.write("remember: I keep bees\n")
    proc.stdin.close()
    rest = proc.stdout.read()
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert "Saved: “I keep bees”" in rest


@pytest.mark.parametrize(
    "args,message",
    [
        (["export", "--owner", "nobody"], "PLATFORM:USER_ID"),
        (["export", "--owner", "console:ghost"], "nobody known as console:ghost"),
        (["import", "missing.json"], "cannot read missing.json"),
    ],
)
def test_cli_failures_exit_nonzero_with_one_line(tmp_path, args, message):
    out = subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, cwd=tmp_path, env=env_for(tmp_path), timeout=120)
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and message in lines[0], out.stderr


@pytest.mark.parametrize(
    "content",
    ['{"format": "memory-assistant-backup", "version": 1', '{"format": "memory-assistant-backup", "version": 2, "exported_at": "2026-01-01T00:00:00Z"}', "x" * 10_000_000],
    ids=["truncated", "wrong-version", "10MB-junk"],
)
def test_cli_import_of_a_malformed_file_changes_nothing(tmp_path, content):
    chat(tmp_path, ["remember: I live in London"])
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out = subprocess.run([sys.executable, "-m", "bot", "import", str(bad)], capture_output=True, text=True, cwd=tmp_path, env=env_for(tmp_path), timeout=120)
    assert out.returncode != 0 and out.stderr.startswith("error: nothing was imported")
    listing = chat(tmp_path, ["/memories"]).stdout
    assert "Your memories (1):" in listing


def test_cli_export_to_stdout_is_json(tmp_path):
    chat(tmp_path, ["remember: I live in London"])
    out = subprocess.run([sys.executable, "-m", "bot", "export", "--owner", "console:tester"], capture_output=True, text=True, cwd=tmp_path, env=env_for(tmp_path), timeout=120)
    assert out.returncode == 0
    assert json.loads(out.stdout)["memories"][0]["text"] == "I live in London"


def test_invalid_setting_stops_startup_with_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "bot", "chat"], input="", capture_output=True, text=True, cwd=tmp_path,
                         env=env_for(tmp_path, DEFAULT_TIMEZONE="Mars/Olympus"), timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == "error: Invalid setting DEFAULT_TIMEZONE: Value error, unknown time zone 'Mars/Olympus'"


def test_ctrl_c_finishes_what_is_in_flight_and_exits_cleanly(tmp_path):
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "chat"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=tmp_path, env=env_for(tmp_path),
    )
    assert "Hello" in proc.stdout.readline()
    proc.stdin.write("remember: I keep bees\n")
    proc.stdin.flush()
    seen = ""
    while "Saved" not in seen:
        seen += proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert "Traceback" not in proc.stderr.read()
    again = chat(tmp_path, ["/memories"])
    assert "1. I keep bees" in again.stdout


def test_run_without_tokens_is_the_terminal_chat(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "bot", "run"], input="remember: I keep bees\n/memories\n",
        capture_output=True, text=True, cwd=tmp_path, env=env_for(tmp_path, LOG_LEVEL="INFO"), timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Hello!") and "1. I keep bees" in out.stdout
    # the chat owns the terminal: no INFO log lines (scheduler started/stopped ...) drawn into it
    assert out.stderr == "", out.stderr
