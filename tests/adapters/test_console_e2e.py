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
            "DATA_DIR": str(tmp_path / "data"),
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
    # the export goes to a private folder of the data directory, never the working directory
    assert list(tmp_path.glob("memories-*.json")) == []
    exports = list((tmp_path / "data" / "exports").glob("memories-*.json"))
    assert len(exports) == 1
    assert f"Saved the file to {exports[0]} (readable only by you)." in text
    assert exports[0].stat().st_mode & 0o777 == 0o600 and exports[0].parent.stat().st_mode & 0o777 == 0o700
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
    assert "[1] Keep both  [2] Mark older as past (recommended)  [3] Replace older (deletes it)  [4] Discard newer" in out.stdout
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
        (["import", "missing.json"], "cannot read missing.json"),
        (["bench"], "name a benchmark"),
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


# --- issue 16: safe hands in the terminal ---------------------------------------------------------


def replies(out: subprocess.CompletedProcess[str]) -> list[str]:
    """What the chat printed, message by message (the greeting and start-up line first)."""
    return [block.strip() for block in out.stdout.split("\n\n") if block.strip()]


def test_a_bare_number_never_presses_a_stale_button(tmp_path):
    """The story of issue 16, item 1, as typed: /forget_me left unanswered, then a list, a save
    and another list; "1" used to press the old "Yes, delete everything" and erase all three
    memories, the one saved after the question included."""
    out = chat(tmp_path, [
        "remember: I live in Oslo",
        "remember: I have a cat",
        "/forget_me",
        "/memories",
        "remember: I like tea",
        "/memories",
        "1",
        "/memories",
        # an Undo shown before a list is not pressed by a number after it either
        "remember: I play chess",
        "/memories",
        "1",
        "/memories",
    ])
    assert out.returncode == 0, out.stderr
    said = replies(out)
    stale = [i for i, r in enumerate(said) if r.startswith("“1” on its own presses nothing")]
    assert len(stale) == 2, said
    assert "Nothing was changed." in said[stale[0]]
    lists = [r for r in said if r.startswith("Your memories")]
    assert lists[2] == "Your memories (3):\n— Current —\n1. I live in Oslo\n2. I have a cat\n3. I like tea"
    assert lists[-1].startswith("Your memories (4):") and "I play chess" in lists[-1]
    assert "deleted everything" not in out.stdout


def test_forget_me_pressed_at_once_erases_with_no_undo(tmp_path):
    out = chat(tmp_path, ["remember: I live in Oslo", "remember: I have a cat", "/forget_me", "1", "/undo", "/memories"])
    said = replies(out)
    question = next(r for r in said if r.startswith("This deletes everything"))
    assert "2 memories" in question and "There is no undo" in question and "works for 3 minutes" in question
    assert question.endswith("[1] Yes, delete everything now (no undo)  [2] Cancel")
    assert ("Done. I deleted everything I held about you: 2 memories, their history, your reminders, settings "
            "and our conversation log. There is no undo.") in said
    assert "There is nothing to undo." in said and "Your memories: nothing yet." in said


def test_start_up_says_where_the_memory_is_and_quitting_mentions_reminders(tmp_path):
    out = chat(tmp_path, ["remember: I live in London", "remember: I moved to Paris", "/remind tomorrow at 9 call mom"])
    assert replies(out)[1] == (
        f"Memory: {tmp_path / 'bot.db'} · model: none (set ANTHROPIC_API_KEY to chat; I answer from memory) · "
        "no questions waiting."
    )
    assert replies(out)[-1].startswith("Goodbye. 1 reminder stays scheduled (next: “call mom”, ")
    again = chat(tmp_path, ["/help"])
    said = replies(again)
    assert said[1].endswith("· 1 question waiting for your answer (/memories review).")
    assert "/import <file>" in again.stdout and "send the file with it" not in again.stdout  # no attachments here
    assert said[-1].startswith("Goodbye. 1 reminder stays scheduled")


def test_the_default_database_lives_in_the_data_directory_and_an_old_one_is_still_found(tmp_path):
    env = {k: v for k, v in env_for(tmp_path).items() if k != "DATABASE_URL"}
    first = subprocess.run([sys.executable, "-m", "bot", "chat"], input="remember: I keep bees\n", capture_output=True,
                           text=True, cwd=tmp_path, env=env, timeout=120)
    assert f"Memory: {tmp_path / 'data' / 'bot.db'} ·" in first.stdout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = subprocess.run([sys.executable, "-m", "bot", "chat"], input="/memories\n", capture_output=True,
                           text=True, cwd=elsewhere, env=env, timeout=120)
    assert "1. I keep bees" in again.stdout  # the same memory from another folder

    # an upgrade: ./data/bot.db of the old default is used, with a note on where the default is now
    old = tmp_path / "project"
    old.mkdir()
    chat(old, ["remember: I keep goats"], DATABASE_URL=f"sqlite:///{old / 'data' / 'bot.db'}")
    upgraded = subprocess.run([sys.executable, "-m", "bot", "chat"], input="/memories\n", capture_output=True,
                              text=True, cwd=old, env=env, timeout=120)
    said = replies(upgraded)
    assert said[1].startswith(f"Note: using {old / 'data' / 'bot.db'}, found in this folder (DATABASE_URL is not set). "
                              f"The default place is now {tmp_path / 'data' / 'bot.db'};")
    assert "1. I keep goats" in upgraded.stdout


def test_cli_export_for_someone_unknown_writes_an_empty_backup_and_out_is_private(tmp_path):
    target = tmp_path / "backup.json"
    out = subprocess.run([sys.executable, "-m", "bot", "export", "--owner", "console:ghost", "--out", str(target)],
                         capture_output=True, text=True, cwd=tmp_path, env=env_for(tmp_path), timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(target.read_text())
    assert doc["format"] == "memory-assistant-backup" and doc["memories"] == []
    assert target.stat().st_mode & 0o777 == 0o600
    assert "Nothing is held about console:ghost" in out.stderr and f"Exported to {target}" in out.stderr
    # and it imports as nothing
    back = subprocess.run([sys.executable, "-m", "bot", "import", str(target)], capture_output=True, text=True,
                          cwd=tmp_path, env=env_for(tmp_path), timeout=120)
    assert back.returncode == 0 and "0 added" in back.stdout


@pytest.mark.parametrize("command", ["run", "chat"])
def test_run_and_chat_help_describe_themselves(tmp_path, command):
    out = subprocess.run([sys.executable, "-m", "bot", command, "--help"], capture_output=True, text=True,
                         cwd=tmp_path, env=env_for(tmp_path), timeout=60)
    assert out.returncode == 0
    description = out.stdout.split("\n\n")[1]
    assert len(description.split()) > 10, out.stdout


def test_a_failed_model_call_is_logged_to_a_file_not_into_the_conversation(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on: every model call fails
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = chat(tmp_path, ["remember: I live in Lisbon", "where do I live?"],
               ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", LLM_MAX_RETRIES="0",
               LLM_TIMEOUT_SECONDS="3")
    assert out.returncode == 0, out.stderr
    assert "WARNING" not in out.stdout and out.stderr == ""
    assert "I live in Lisbon" in replies(out)[-2]  # answered from memory
    log = (tmp_path / "data" / "logs" / "chat.log").read_text()
    assert "WARNING" in log or "ERROR" in log
