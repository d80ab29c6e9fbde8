"""Command line: `python -m bot run | chat | web | mcp | token | export | import | bench ...`.

Every failure ends with one clear line on stderr and a non-zero exit, never a stack trace.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from datetime import timedelta
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
WARNING_LOGGERS = ("httpx", "httpx2", "httpcore", "telegram.ext.Updater", "discord.gateway", "sqlalchemy",
                   "mcp")  # the MCP SDK logs refused tool calls, with their text, at INFO
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


async def _chat(settings: Settings, *, web: bool = False) -> int:
    from adapters.console import ConsoleAdapter, greet

    greet()  # before storage and models load: the chat is visibly alive at once
    from bot.app import build_app

    if settings.database_note:
        print(settings.database_note + "\n", flush=True)
    app = build_app(settings)
    server = None
    try:
        owner_id = await app.memory.owner_for("console", settings.console_user, create=False)
        print(await app.startup_line(owner_id) + "\n", flush=True)
        if web:  # `run` with WEB_PORT and no platform token: the terminal chat and the web server
            from bot.runner import web_for
            from web.server import ServerError

            _, server = web_for(app)
            try:
                await server.start()
            except ServerError as exc:
                server = None
                return _fail(str(exc))
        console = ConsoleAdapter(app.core, settings)
        app.core.outbox.register("console", console)  # pushes (reminders) can arrive from the start
        await app.start_background(freeze_heap=True)
        await console.run(greet=False)
        owner_id = owner_id or await app.memory.owner_for("console", settings.console_user, create=False)
        if owner_id is not None:
            print(await app.goodbye(owner_id), flush=True)
    finally:
        if server is not None:
            await server.stop()
        await app.close()
    return 0


def _no_platform(settings: Settings) -> bool:
    """No platform token: `run` is the terminal chat."""
    return not settings.telegram_bot_token and not settings.discord_bot_token


async def _run(settings: Settings) -> int:
    if _no_platform(settings):
        return await _chat(settings, web=settings.web_port is not None)
    from bot.runner import run_platforms

    log = logging.getLogger("bot")
    if settings.database_note:
        log.warning("%s", settings.database_note)
    return await run_platforms(settings)


async def _web(settings: Settings) -> int:
    from bot.runner import run_web

    return await run_web(settings)


async def _mcp(settings: Settings, owner: str | None) -> int:
    """The MCP server over stdio for one person: stdout carries JSON-RPC and nothing else (the
    SDK points fd 1 at stderr while it serves; the background work starts inside that)."""
    import contextlib

    from bot.app import build_app
    from bot.memory import Source
    from web.door import Caller, Door
    from web.mcp import build_mcp, fixed_caller

    platform, user = _parse_owner(owner, settings)
    app = build_app(settings, role="web")
    try:
        owner_id = await app.memory.owner_for(platform, user)
        assert owner_id is not None

        @contextlib.asynccontextmanager
        async def running(_: object):  # type: ignore[no-untyped-def]
            await app.start_background()
            yield None

        door = Door(app.memory, app.reminders, undo_window=timedelta(seconds=settings.undo_window_seconds),
                    judge_for=app.judge)
        server = build_mcp(door, fixed_caller(Caller(owner_id, platform, user, Source.MCP.value)), lifespan=running)
        await server.run_stdio_async()
    finally:
        await app.close()
    return 0


async def _token(settings: Settings, action: str, owner: str | None, name: str | None, number: int | None) -> int:
    """`token create|list|revoke`: the chat's /token for scripts. create prints the token alone on
    its last line (so `| tail -n 1` takes it) and creates the person if the id is new."""
    from bot.app import build_app
    from bot.features.access import where

    platform, user = _parse_owner(owner, settings)
    app = build_app(settings, with_model=False, embedder=None, role="web")
    try:
        owner_id = await app.memory.owner_for(platform, user, create=action == "create")
        if owner_id is None:
            return _fail(f"nobody known as {platform}:{user} in {_shown_url(settings.database_url)}")
        if action == "create":
            issued = await app.access.create(platform, user, name)
            label = f"“{issued.token.name}”" if issued.token.name else "(no name)"
            print(f"API token {label} for {platform}:{user}, shown only this once (only its hash is stored).")
            print(f"Send it as “Authorization: Bearer <token>” to {where(settings)}.")
            print(issued.secret)
            return 0
        if action == "revoke":
            assert number is not None
            revoked = await app.access.revoke_number(owner_id, number)
            if revoked is None:
                return _fail(f"{platform}:{user} has no active token number {number} (see `token list`)")
            print(f"Revoked token {number} ({revoked.name or 'no name'}).")
            return 0
        tokens = await app.access.active(owner_id)
        if not tokens:
            print(f"{platform}:{user} has no active API tokens.")
        for n, t in enumerate(tokens, 1):
            used = t.last_used_at.isoformat(timespec="minutes") if t.last_used_at else "never used"
            print(f"{n}. {t.name or '(no name)'} ({t.platform}:{t.user_id}) made {t.created_at.isoformat(timespec='minutes')}, "
                  f"last used {used}")
        return 0
    finally:
        await app.close()


async def _login_link(settings: Settings, owner: str | None) -> int:
    """`login-link`: /web for scripts and for the person at the server. The link is printed alone
    on its last line (so `| tail -n 1` takes it); the person is created if the id is new."""
    from bot.app import build_app
    from bot.core.web_login import page_configured

    platform, user = _parse_owner(owner, settings)
    app = build_app(settings, with_model=False, embedder=None, role="web")
    try:
        await app.memory.owner_for(platform, user, create=True)
        link = await app.web_logins.link(platform, user)
        if link is None:
            return _fail(f"{platform}:{user} made several login links in the last minutes; the newest still works, "
                         "or try again in a few minutes")
        if not page_configured(settings):
            print("note: no web server is configured (WEB_PORT / WEB_PUBLIC_URL); `python -m bot web` serves the "
                  "page on port 8080", file=sys.stderr)
        print(f"A login link to the memory page of {platform}:{user}: it works once, for {link.minutes} minutes.")
        print(link.url)
        return 0
    finally:
        await app.close()


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
    sub.add_parser("web", help="the web server alone (HTTP API and MCP) on WEB_HOST:WEB_PORT, with the memory's upkeep")
    p_mcp = sub.add_parser("mcp", help="the MCP server over stdio for one person (for Claude Desktop / Claude Code)")
    p_mcp.add_argument("--owner", help="PLATFORM:USER_ID whose memory it serves (default: the console person)")
    p_token = sub.add_parser("token", help="API tokens for the HTTP API and MCP: create | list | revoke")
    token_sub = p_token.add_subparsers(dest="action", required=True)
    for action, text in (("create", "make a token (printed alone on the last line)"), ("list", "list active tokens"),
                         ("revoke", "revoke a token by its number in `token list`")):
        p_action = token_sub.add_parser(action, help=text)
        p_action.add_argument("--owner", help="PLATFORM:USER_ID (default: the console person)")
        if action == "create":
            p_action.add_argument("--name", help="a name to tell the token apart, e.g. laptop")
        if action == "revoke":
            p_action.add_argument("number", type=int, help="the number shown by `token list`")
    p_login = sub.add_parser("login-link", help="a one-time login link to a person's memory page (printed last)")
    p_login.add_argument("--owner", help="PLATFORM:USER_ID (default: the console person)")
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
    p_bench.add_argument("name", nargs="?", help="conflicts | retrieval | latency | cost | load | tidy | import | api | page")
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
    _setup_logging(settings, quiet=chat or args.command in ("export", "import", "bench", "token", "login-link"), to_file=chat)

    try:
        if args.command == "chat":
            return asyncio.run(_chat(settings))
        if args.command == "run":
            return asyncio.run(_run(settings))
        if args.command == "web":
            return asyncio.run(_web(settings))
        if args.command == "mcp":
            return asyncio.run(_mcp(settings, args.owner))
        if args.command == "token":
            number = getattr(args, "number", None)
            if args.action == "revoke" and (number is None or number < 1):
                return _fail("token revoke needs the number shown by `token list`, e.g. token revoke 2")
            return asyncio.run(_token(settings, args.action, args.owner, getattr(args, "name", None), number))
        if args.command == "login-link":
            return asyncio.run(_login_link(settings, args.owner))
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
