"""Command line: `python -m bot run | chat | export | import | bench ...`.

Every failure ends with one clear line on stderr and a non-zero exit, never a stack trace.
"""

from __future__ import annotations

import argparse
import asyncio
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
WARNING_LOGGERS = ("httpx", "httpcore", "telegram.ext.Updater", "discord.gateway", "sqlalchemy")


def quiet_libraries(level: int = logging.DEBUG) -> None:
    """Cap the library loggers: INFO at the lowest (WARNING for the chatty ones), or `level`
    when that is higher. Their own level is set, so a root lowered later does not open them."""
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.INFO))
    for name in WARNING_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))


def _setup_logging(settings: Settings, *, quiet: bool) -> None:
    level = getattr(logging, settings.log_level)
    if quiet and level > logging.DEBUG:  # the terminal chat owns the screen: warnings only
        level = max(level, logging.WARNING)
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
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

    app = build_app(settings)
    try:
        console = ConsoleAdapter(app.core, settings)
        app.core.outbox.register("console", console)  # pushes (reminders) can arrive from the start
        await app.start_background(freeze_heap=True)
        await console.run(greet=False)
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

    return await run_platforms(settings)


async def _export(settings: Settings, owner: str | None, out: str | None) -> int:
    from bot.app import build_app

    platform, user = _parse_owner(owner, settings)
    app = build_app(settings, with_model=False)
    try:
        owner_id = await app.memory.owner_for(platform, user, create=False)
        if owner_id is None:
            return _fail(f"nobody known as {platform}:{user} in {_shown_url(settings.database_url)}")
        data = await app.memory.export_bytes(owner_id)
    finally:
        await app.close()
    if out:
        try:
            Path(out).write_bytes(data)
        except OSError as exc:
            return _fail(f"cannot write {out}: {exc.strerror or exc}")
        print(f"Exported to {out}", file=sys.stderr)
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
    sub.add_parser("run", help="start the assistant (Telegram/Discord with tokens, else the terminal chat)")
    sub.add_parser("chat", help="the terminal chat")
    p_export = sub.add_parser("export", help="write a person's backup as JSON")
    p_export.add_argument("--owner", help="PLATFORM:USER_ID (default: the console person)")
    p_export.add_argument("--out", help="file to write (default: stdout)")
    p_import = sub.add_parser("import", help="restore a backup file")
    p_import.add_argument("file")
    p_import.add_argument("--owner", help="PLATFORM:USER_ID (default: the console person)")
    p_bench = sub.add_parser("bench", help="benchmarks that print figures")
    p_bench.add_argument("name", help="conflicts | retrieval | latency | cost | load | tidy | import")
    p_bench.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)

    try:
        settings = load_settings()
    except ConfigError as exc:
        return _fail(str(exc), 2)
    # the terminal chat owns the screen (also as `run` with no platform token): warnings only
    terminal = args.command in ("chat", "export", "import", "bench") or (
        args.command == "run" and _no_platform(settings)
    )
    _setup_logging(settings, quiet=terminal)

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

            return cli.main(settings, args.name, args.rest)
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
