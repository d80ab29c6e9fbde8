"""One Settings object, read from the environment and `.env`.

Why one object: every part of the bot (adapters, memory, scheduler, model client) reads its knobs
from here, so `.env.example` can list them all and a bad value stops start-up with one clear line
naming the setting instead of failing later somewhere deep.
Tokens and keys are opaque strings: only emptiness is checked, never their shape.
"""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from platformdirs import user_data_path
from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

APP_NAME = "memory-assistant"
# where the database lived before it moved to the user's data directory: relative to the
# working directory, so starting the chat elsewhere opened an empty memory
LEGACY_DATABASE = Path("data") / "bot.db"


DEFAULT_WEB_PORT = 8080  # `python -m bot web` without WEB_PORT


class ConfigError(Exception):
    """A setting has an invalid value; the message is one line naming it."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    # --- storage -------------------------------------------------------------------------
    # empty: bot.db in the data directory (or an existing ./data/bot.db, see _default_database)
    database_url: str = ""
    # empty: the user's data directory (platformdirs), e.g. ~/.local/share/memory-assistant
    data_dir: str = ""

    # --- platforms -------------------------------------------------------------------------
    telegram_bot_token: str = ""
    # what Telegram shows before Start and on the bot's profile; "" = bot/core/menu.py's wording
    bot_description: str = Field("", max_length=512)
    bot_short_description: str = Field("", max_length=120)
    telegram_api_base_url: str = "https://api.telegram.org/bot"
    telegram_api_file_url: str = ""  # derived from the base URL when empty
    telegram_webhook_url: str = ""  # empty = long polling; set = served by the web server
    telegram_webhook_secret: str = ""
    telegram_max_import_bytes: int = Field(5_000_000, ge=1)
    discord_bot_token: str = ""
    discord_message_content: bool = False
    discord_max_import_bytes: int = Field(5_000_000, ge=1)
    console_user: str = "local"

    # --- the web server (HTTP API, MCP, Telegram's webhook) ------------------------------------
    web_host: str = "127.0.0.1"
    web_port: int | None = Field(None, ge=0, le=65535)  # None: `run` starts no web server; `web` uses 8080
    web_public_url: str = ""  # how people and programs reach it (behind a TLS proxy), for links
    api_rate_limit_per_minute: int = Field(120, ge=0)  # requests per token; 0 = off
    web_max_import_bytes: int = Field(5_000_000, ge=1)
    web_session_days: int = Field(30, ge=1, le=365)  # how long a memory page login lasts

    # --- model -----------------------------------------------------------------------------
    anthropic_api_key: str = ""
    anthropic_base_url: str = ""  # empty = the SDK's default (or its own env variable)
    chat_model: str = "claude-sonnet-4-6"
    extraction_model: str = "claude-haiku-4-5"
    judge_model: str = "claude-haiku-4-5"
    summary_model: str = "claude-haiku-4-5"
    llm_timeout_seconds: float = Field(30.0, gt=0)
    # a slow chat answer: "Still thinking…" after this long (0 = never), and the model's answer
    # still delivered (by editing the reply) up to this long after the message
    slow_notice_seconds: float = Field(8.0, ge=0)
    llm_late_answer_seconds: float = Field(120.0, gt=0)
    llm_max_retries: int = Field(2, ge=0, le=10)
    judge_timeout_seconds: float = Field(3.0, gt=0)
    model_context_tokens: int = Field(200_000, ge=1000)
    chat_max_tokens: int = Field(1024, ge=16)
    daily_token_budget: int = Field(200_000, ge=0)  # per person per day; 0 = unlimited
    max_tool_rounds: int = Field(5, ge=1, le=20)
    history_token_budget: int = Field(3000, ge=0)

    # --- memory ----------------------------------------------------------------------------
    embedding_model: str = "default"  # default | none | a path | a model name
    undo_window_seconds: int = Field(600, ge=0)
    recall_max_memories: int = Field(8, ge=1, le=50)
    recall_max_tokens: int = Field(1500, ge=50)
    recall_weight_relevance: float = Field(0.50, ge=0)
    recall_weight_importance: float = Field(0.15, ge=0)
    recall_weight_confidence: float = Field(0.15, ge=0)
    recall_weight_recency: float = Field(0.10, ge=0)
    recall_weight_frequency: float = Field(0.10, ge=0)
    recency_half_life_days: float = Field(30.0, gt=0)
    extraction_notice: bool = True
    default_conflict_review: bool = True
    default_ai_judge: bool = False

    # --- time, reminders and tidying -----------------------------------------------------------
    default_timezone: str = "UTC"
    reminder_grace_minutes: int = Field(60, ge=0)
    episode_quiet_minutes: int = Field(30, ge=1)
    curator_interval_minutes: int = Field(360, ge=1)
    curator_every_n_memories: int = Field(20, ge=1)
    recheck_after_days: int = Field(180, ge=1)
    recheck_enabled: bool = False

    # --- safety ----------------------------------------------------------------------------
    allowed_users: str = ""  # e.g. "telegram:123,discord:456"; empty = everyone
    rate_limit_per_minute: int = Field(20, ge=0)  # model-using messages per person; 0 = off
    imports_per_hour: int = Field(5, ge=1)  # /import runs per person per hour
    log_level: str = "INFO"

    @field_validator("default_timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}") from exc
        return value

    _database_note: str = PrivateAttr(default="")

    @field_validator("web_port", mode="before")
    @classmethod
    def _port(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("web_public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and not (value.startswith("http://") or value.startswith("https://")):
            raise ValueError("must start with https:// (or http://), e.g. https://memory.example.com")
        return value

    @field_validator("database_url")
    @classmethod
    def _db(cls, value: str) -> str:
        value = value.strip()
        if value and not (value.startswith("sqlite") or value.startswith("postgresql")):
            raise ValueError("must start with sqlite:// or postgresql+psycopg://")
        return value

    @model_validator(mode="after")
    def _default_database(self) -> "Settings":
        """No DATABASE_URL: bot.db in the data directory, so the memory does not depend on the
        folder the bot is started from. An existing ./data/bot.db (the old default) is still
        used, with a note on where the default is now, so nobody opens an empty memory after
        upgrading."""
        if self.database_url:
            return self
        default = self.data_path / "bot.db"
        legacy = (Path.cwd() / LEGACY_DATABASE).absolute()
        if legacy.is_file() and legacy.resolve() != default.resolve():
            self.database_url = f"sqlite:///{legacy}"
            self._database_note = (
                f"Note: using {legacy}, found in this folder (DATABASE_URL is not set). The default "
                f"place is now {default}; to move it there, stop the bot and move {legacy} (with "
                f"any bot.db-wal and bot.db-shm beside it) to {default.parent}, or set DATABASE_URL."
            )
        else:
            self.database_url = f"sqlite:///{default}"
        return self

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return level

    @property
    def allowed_identities(self) -> frozenset[tuple[str, str]]:
        pairs = set()
        for item in self.allowed_users.split(","):
            item = item.strip()
            if item and ":" in item:
                platform, _, user = item.partition(":")
                pairs.add((platform.strip().lower(), user.strip()))
        return frozenset(pairs)

    @property
    def database_note(self) -> str:
        """A line to show at start-up about where the database is (empty: nothing to say)."""
        return self._database_note

    @property
    def data_path(self) -> Path:
        """The folder for the default database, exports from chat and the terminal chat's log."""
        return Path(self.data_dir).expanduser().absolute() if self.data_dir else user_data_path(APP_NAME)

    @property
    def exports_dir(self) -> Path:
        """Where exports made in the terminal chat are written (mode 0700, files 0600)."""
        return self.data_path / "exports"

    @property
    def sqlite_path(self) -> Path | None:
        if not self.database_url.startswith("sqlite"):
            return None
        raw = self.database_url.split(":///", 1)[-1]
        return None if raw in ("", ":memory:") else Path(raw)


def describe_database(url: str) -> str:
    """The database in use, for a person: an SQLite file's full path, or PostgreSQL's host and
    database name (never the user or password)."""
    if url.startswith("sqlite"):
        raw = url.split(":///", 1)[1] if ":///" in url else ""
        if raw in ("", ":memory:"):
            return "a temporary in-memory database (nothing is kept after you quit)"
        return str(Path(raw.split("?", 1)[0]).expanduser().absolute())
    try:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
    except Exception:  # unparsable: show nothing of it rather than risk the password
        return "the configured PostgreSQL database"
    where = parsed.host or "localhost"
    if parsed.port:
        where += f":{parsed.port}"
    return f"PostgreSQL database {parsed.database or '(default)'} on {where}"


# settings that no longer apply -> what replaced them. Start-up stops rather than ignore them:
# a deployment that still sets one would otherwise listen where nobody looks.
RETIRED = {
    "TELEGRAM_WEBHOOK_LISTEN": "Telegram's webhook is served by the web server now; set WEB_HOST instead",
    "TELEGRAM_WEBHOOK_PORT": "Telegram's webhook is served by the web server now; set WEB_PORT instead",
}


def _retired_in_use(overrides: dict[str, object]) -> str | None:
    names = {k.upper() for k in os.environ} | {k.upper() for k in overrides if not k.startswith("_")}
    env_file = overrides["_env_file"] if "_env_file" in overrides else Settings.model_config.get("env_file")
    if isinstance(env_file, (str, Path)) and Path(env_file).is_file():
        from dotenv import dotenv_values

        names |= {k.upper() for k in dotenv_values(env_file)}
    return next((name for name in RETIRED if name in names), None)


def load_settings(**overrides: object) -> Settings:
    """Build the settings; raise ConfigError with one line naming the first bad setting."""
    retired = _retired_in_use(overrides)
    if retired is not None:
        raise ConfigError(f"Setting {retired} no longer applies: {RETIRED[retired]} (and remove {retired}).")
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]).upper() if err.get("loc") else "a setting"
        raise ConfigError(f"Invalid setting {name}: {err['msg']}") from None
