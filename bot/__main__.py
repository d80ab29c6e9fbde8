"""Command line: `python -m bot run | chat | export | import | bench ...`.

Every failure ends with one clear line on stderr and a non-zero exit, never a stack trace.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from bot.config import ConfigError, Settings, load_settings


def _fail(message: str, code: int = 1) -> int:
    # one line, whatever the message: drivers put hints on lines of their own (psycopg's
    # "Is the server running ...?")
    print("error: " + " ".join(message.split()), file=sys.stderr)
    return code


# Libraries that log whole requests and events at DEBUG: the model's prompt (memories included),
# message bodies sent to Discord and Telegram, gateway events with what people typed, SQL with
# its parameters. They are capped at INFO whatever LOG_LEVEL says: logs hold no memory text.
LIBRARY_LOGGERS = ("anthropic", "discord", "telegram", "httpx", "httpcore", "aiohttp", "websockets",
                   "sqlalchemy", "apscheduler", "urllib3", "asyncio")
# ... and these even at INFO: httpx logs request URLs (which carry the Telegram token), SQLAlchemy
# logs every statement with its parameters.
WARNING_LOGGERS = ("httpx", "httpx2", "httpcore", "telegram.ext.Updater", "discord.gateway", "sqlalchemy")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def quiet_libraries(level: int = logging.DEBUG) -> None:
    """Cap the library loggers: INFO at the lowest (WARNING for the chatty ones), or `level`
    when that is higher. Their own level is set, so a root lowered later does not open them."""
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.INFO))
    for name in WARNING_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))


def terminal_log_path(settings: Settings) -> Path:
    return settings.data_path / "logs" / "chat.log"


def _setup_logging(settings: Settings, *, quiet: bool, to_file: bool) -> None:
    """Logs go to stderr; commands that own the terminal (`quiet`) log warnings only. In the
    terminal chat (`to_file`) the terminal is the conversation: a log line would be printed into
    what the person reads, so warnings go to logs/chat.log in the data directory instead (stderr
    keeps only errors if that file cannot be written)."""
    level = getattr(logging, settings.log_level)
    if quiet and level > logging.DEBUG:
        level = max(level, logging.WARNING)
    handler: logging.Handler = logging.StreamHandler(sys.stderr)
    if to_file:
        path = terminal_log_path(settings)
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handler = logging.FileHandler(path, encoding="utf-8")
        except OSError:
            level = max(level, logging.ERROR)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    quiet_libraries(level)


def _shown_url(url: str) -> str:
    """A database URL fit for a message: the password masked (it is a secret like any token)."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # unparsable: show nothing of it rather than risk the password
        return "the configured database"


def _parse_owner(text: str | None, settings: Settings) -> tuple[str, str]:
    if not text:
        return "console", settings.console_user
    platform, sep, user = text.partition(":")
    if not sep or not platform or not user:
        raise ValueError(f"--owner must look like PLATFORM:USER_ID, e.g. telegram:12345 (got {text!r})")
    return platform.strip().lower(), user.strip()


async def _chat(settings: Settings) -> int:
    from adapters.console import ConsoleAdapter, greet

    greet()  # before storage and models load: the chat is visibly alive at once
    from bot.app import build_app

    if settings.database_note:
        print(settings.database_note + "\n", flush=True)
    app = build_app(settings)
    try:
        owner_id = await app.memory.owner_for("console", settings.console_user, create=False)
        print(await app.startup_line(owner_id) + "\n", flush=True)
        console = ConsoleAdapter(app.core, settings)
        app.core.outbox.register("console", console)  # pushes (reminders) can arrive from the start
        await app.start_background(freeze_heap=True)
        await console.run(greet=False)
        owner_id = owner_id or await app.memory.owner_for("console", settings.console_user, create=False)
        if owner_id is not None:
            print(await app.goodbye(owner_id), flush=True)
    finally:
        await app.close()
    return 0


def _no_platform(settings: Settings) -> bool:
    """No platform token: `run` is the terminal chat."""
    return not settings.telegram_bot_token and not settings.discord_bot_token


async def _run(settings: Settings) -> int:
    if _no_platform(settings):
        return await _chat(settings)
    from bot.runner import run_platforms

    log = logging.getLogger("bot")
    if settings.database_note:
        log.warning("%s", settings.database_note)
    return await run_platforms(settings)


async def _export(settings: Settings, owner: str | None, out: str | None) -> int:
    from bot.app import build_app

    from adapters.console import write_private
    from bot.memory.writing.transfer import empty_backup

    platform, user = _parse_owner(owner, settings)
    app = build_app(settings, with_model=False)
    try:
        owner_id = await app.memory.owner_for(platform, user, create=False)
        if owner_id is None:  # nothing held about them: a valid backup with nothing in it
            print(f"Nothing is held about {platform}:{user} in {_shown_url(settings.database_url)}; "
                  "the backup is empty.", file=sys.stderr)
            data = json.dumps(empty_backup(), indent=1).encode("utf-8")
        else:
            data = await app.memory.export_bytes(owner_id)
    finally:
        await app.close()
    if out:
        try:
            write_private(Path(out), data)
        except OSError as exc:
            return _fail(f"cannot write {out}: {exc.strerror or exc}")
        print(f"Exported to {Path(out).resolve()} (readable only by you)", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.flush()
    return 0


async def _import(settings: Settings, path: str, owner: str | None) -> int:
    from bot.app import build_app
    from bot.memory.writing.transfer import ImportProblem, parse_backup

    platform, user = _parse_owner(owner, settings)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror or exc}")
    try:
        parse_backup(raw)  # validate before opening anything for writing
    except ImportProblem as exc:
        return _fail(f"nothing was imported: {exc}")
    app = build_app(settings, with_model=False)
    try:
        owner_id = await app.memory.owner_for(platform, user)
        assert owner_id is not None
        report = await app.memory.import_bytes(owner_id, raw)
    except ImportProblem as exc:
        return _fail(f"nothing was imported: {exc}")
    finally:
        await app.close()
    print(report.summary())
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="A personal assistant with a long-term memory.")
    sub = parser.add_subparsers(dest="command", required=True)
    run_help = "start the assistant (Telegram/Discord with tokens, else the terminal chat)"
    sub.add_parser("run", help=run_help, description=(
        "Start the assistant: the Telegram and/or Discord adapters when TELEGRAM_BOT_TOKEN or "
        "DISCORD_BOT_TOKEN is set, otherwise the terminal chat. Settings come from the "
        "environment and .env (see .env.example)."))
    chat_help = "the terminal chat"
    sub.add_parser("chat", help=chat_help, description=(
        "Talk to the assistant in this terminal as CONSOLE_USER. It prints the database in use "
        "at start; type /help for the commands, a number to press a button of the latest "
        "message, Ctrl-D to quit (reminders stay scheduled)."))
    p_export = sub.add_parser("export", help="write a person's backup as JSON",
                              description="Write everything held about one person as a JSON backup.")
    p_export.add_argument("--owner", help="PLATFORM:USER_ID (default: the console person)")
    p_export.add_argument("--out", help="file to write, readable only by you (default: stdout)")
    p_import = sub.add_parser("import", help="restore a backup file",
                              description="Restore a JSON backup for one person (idempotent).")
    p_import.add_argument("file")
    p_import.add_argument("--owner", help="PLATFORM:USER_ID (default: the console person)")
    p_bench = sub.add_parser("bench", help="benchmarks that print figures",
                             description="Run a benchmark; `python -m bot bench NAME --help` shows its options.")
    p_bench.add_argument("name", nargs="?", help="conflicts | retrieval | latency | cost | load | tidy | import")
    p_bench.add_argument("options", nargs=argparse.REMAINDER, metavar="...", help="the benchmark's own options")
    args = parser.parse_args(argv)
    if args.command == "bench" and not args.name:
        return _fail("name a benchmark: conflicts, retrieval, latency, cost or load", 2)

    try:
        settings = load_settings()
    except ConfigError as exc:
        return _fail(str(exc), 2)
    # the terminal chat owns the screen (also as `run` with no platform token): warnings only
    chat = args.command == "chat" or (args.command == "run" and _no_platform(settings))
    _setup_logging(settings, quiet=chat or args.command in ("export", "import", "bench"), to_file=chat)

    try:
        if args.command == "chat":
            return asyncio.run(_chat(settings))
        if args.command == "run":
            return asyncio.run(_run(settings))
        if args.command == "export":
            return asyncio.run(_export(settings, args.owner, args.out))
        if args.command == "import":
            return asyncio.run(_import(settings, args.file, args.owner))
        if args.command == "bench":
            from bench import cli

            return cli.main(settings, args.name, args.options)
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:
        return _fail(str(exc))
    except Exception as exc:  # storage that cannot be opened, a schema that is too new, ...
        logging.getLogger("bot").debug("fatal", exc_info=exc)
        return _fail(f"{exc.__class__.__name__}: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
