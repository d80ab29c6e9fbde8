"""Telegram Mini App sign-in: the page opened from the bot's menu button carries Telegram's
initData, signed with the bot's token; a valid, fresh one names the Telegram user.

The check (Telegram's "Validating data received via the Mini App"): every field but `hash`,
sorted by key, as `key=value` lines joined by "\\n" (the data-check string); the secret key is
HMAC-SHA256 of the bot token keyed with the constant "WebAppData"; valid when the hex HMAC-SHA256
of the data-check string under that key equals `hash`. Note the Login Widget derives its key
differently (SHA-256 of the token): a widget signature is not accepted here, nor the other way.

Why auth_date freshness too: initData is a bearer credential for as long as it is accepted; a
copy taken from a screen or a log must stop working soon. Pure: no clock, no token of its own.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

MAX_AGE_SECONDS = 600  # as long as a /web link lasts
MAX_LENGTH = 4096


@dataclass(frozen=True)
class MiniAppUser:
    user_id: str
    name: str


def secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def sign(fields: dict[str, str], bot_token: str) -> str:
    """The hash Telegram puts beside these fields (for tests and the stand-in)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    return hmac.new(secret_key(bot_token), check.encode(), hashlib.sha256).hexdigest()


def check_init_data(raw: str, bot_token: str, now: float, max_age: int = MAX_AGE_SECONDS) -> MiniAppUser | str:
    """The user this initData names, or why it is refused (a sentence)."""
    if not bot_token:
        return "This assistant has no Telegram bot, so Telegram sign-in is off."
    if not raw or len(raw) > MAX_LENGTH:
        return "Telegram's sign-in data is missing. Open the page from the assistant's menu button in Telegram."
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return "Telegram's sign-in data is malformed."
    fields = dict(pairs)
    if len(fields) != len(pairs):
        return "Telegram's sign-in data is malformed (a field appears twice)."
    given = fields.pop("hash", "")
    if not given or not hmac.compare_digest(sign(fields, bot_token), given.lower()):
        return "Telegram's sign-in data does not carry a valid signature."
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        return "Telegram's sign-in data has no date."
    if now - auth_date > max_age:
        return "Telegram's sign-in data is too old; close the page and open it again from the menu button."
    if auth_date - now > 60:
        return "Telegram's sign-in data is dated in the future; check this server's clock."
    try:
        user = json.loads(fields.get("user", ""))
        user_id = str(int(user["id"]))
    except (ValueError, TypeError, KeyError):
        return "Telegram's sign-in data names no user."
    name = " ".join(str(user.get(k, "")) for k in ("first_name", "last_name")).strip()
    return MiniAppUser(user_id, name[:100])
