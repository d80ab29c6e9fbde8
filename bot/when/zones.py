"""Time zones and how times read to a person: resolving what people type into an IANA zone,
converting wall-clock times, and the words for dates, delays and durations."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo, available_timezones

from bot.when.vocabulary import MONTH_NAMES, WEEKDAY_NAMES

UTC = timezone.utc

# Files some systems keep beside the zones; they are not zones a person can live in, and
# "localtime" means whatever the server happens to be set to.
_NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(
        n for n in available_timezones()
        if n not in _NOT_ZONES and not n.startswith(("posix/", "right/"))
    )


def is_valid_timezone(name: str) -> bool:
    """Whether ``name`` is an IANA zone key exactly as the tz database spells it.

    Checked against the list rather than by constructing ``ZoneInfo``, which would also accept
    file paths such as "localtime" that mean different things on different machines.
    """
    return isinstance(name, str) and name in _zone_names()


_REGIONS = frozenset(
    {"Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
     "Indian", "Pacific"}
)
_UTC_WORDS = frozenset({"utc", "gmt", "z", "zulu", "universal", "coordinated universal time"})
# Region abbreviations people type that name a zone with its daylight saving rules in the tz
# database ("CET" is Central European Time, CEST in summer): taken as that zone. Fixed offsets
# ("EST", a -05:00 that is wrong for New York all summer) are not among them.
_REGION_ABBREVIATIONS = {
    "cet": "CET", "cest": "CET", "met": "MET", "mest": "MET",
    "eet": "EET", "eest": "EET", "wet": "WET", "west": "WET",
}


def _fold_name(text: str) -> str:
    """Case, accents, spaces and hyphens folded, so "são paulo" meets "America/Sao_Paulo"."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[\s_\-]+", "_", plain.strip().lower())


@lru_cache(maxsize=1)
def _lookup_tables() -> tuple[dict[str, str], dict[str, list[str]]]:
    exact = {name.lower(): name for name in _zone_names()}
    by_city: dict[str, list[str]] = {}
    for name in _zone_names():
        parts = name.split("/")
        if len(parts) >= 2 and parts[0] in _REGIONS:
            by_city.setdefault(_fold_name(parts[-1]), []).append(name)
    return exact, by_city


def resolve_timezone(text: str) -> str | None:
    """Turn what a person typed into an IANA zone name, or None if it is not one.

    Accepts IANA names in any case ("europe/paris"), "UTC"/"GMT", and a city that is the last
    part of a zone name ("Paris", "new york", "São Paulo") found by searching the tz database,
    not a hand-made list; and the European region abbreviations (CET, CEST, EET, WET ...) as the
    tz database's zones of those names, which keep daylight saving. Refuses offsets such as
    "GMT+2" (they ignore daylight saving and, in the tz database's Etc/ spelling, have the
    opposite sign) and fixed abbreviations such as "EST" (a -05:00 that is wrong for New York
    all summer). When a city matches several
    names (old links like "Asia/Calcutta" are kept too), the most specific name wins.
    """
    if not isinstance(text, str):
        return None
    cleaned = " ".join(text.split())
    if not cleaned:
        return None
    if cleaned.lower() in _UTC_WORDS:
        return "UTC"
    region = _REGION_ABBREVIATIONS.get(cleaned.lower())
    if region is not None and is_valid_timezone(region):
        return region
    exact, by_city = _lookup_tables()
    if "/" in cleaned:
        return exact.get(cleaned.replace(" ", "_").lower())
    matches = by_city.get(_fold_name(cleaned))
    if not matches:
        return None
    return sorted(matches, key=lambda n: (-n.count("/"), n))[0]


@lru_cache(maxsize=128)
def zone_info(tz: str) -> ZoneInfo:
    if not is_valid_timezone(tz):
        raise ValueError(f"unknown time zone: {tz!r}")
    return ZoneInfo(tz)


def as_utc(dt: datetime) -> datetime:
    """Naive datetimes come from the database, which stores UTC."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def local_to_utc(day: date, at: time, zone: ZoneInfo) -> datetime:
    # fold=0: a skipped time is read with the offset before the change (so it lands later by
    # the gap), a repeated time is the first of the two.
    return datetime.combine(day, at).replace(tzinfo=zone, fold=0).astimezone(UTC)


def human_date(local: datetime | date) -> str:
    return f"{WEEKDAY_NAMES[local.weekday()]} {local.day} {MONTH_NAMES[local.month - 1]} {local.year}"


def format_local(dt_utc: datetime, tz: str) -> str:
    """A UTC instant as the person's wall clock: "Monday 30 November 2026 at 09:00 (Europe/Paris)".

    Written out in full (weekday, day, month name, year, 24-hour time, zone) so that it cannot
    be misread as day/month or month/day, and independent of the process locale.
    """
    local = as_utc(dt_utc).astimezone(zone_info(tz))
    return f"{human_date(local)} at {local:%H:%M} ({tz})"


def plural(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def duration_words(seconds: int) -> str:
    parts = []
    rest = int(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, rest = divmod(rest, size)
        if n:
            parts.append(plural(n, unit))
    if parts == ["1 hour"]:
        return "hour"
    if parts == ["1 minute"]:
        return "minute"
    return " ".join(parts) if parts else "0 seconds"


def format_delay(seconds: float) -> str:
    """How late a reminder is, in the two largest units: "2 hours 5 minutes late".

    Rounded down, because "1 hour late" for 1 h 59 min is the honest lower bound; anything under
    a minute is just "less than a minute late", and no delay at all is "on time".
    """
    total = int(seconds)
    if total <= 0:
        return "on time"
    if total < 60:
        return "less than a minute late"
    parts = []
    rest = total
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        n, rest = divmod(rest, size)
        if n:
            parts.append(plural(n, unit))
    return " ".join(parts[:2]) + " late"


def ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def and_list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]




# --- a time zone asked for once (bot/features/timezones.py) -------------------------------------

_OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)


def zone_from_offset(text: str) -> str | None:
    """"UTC+2", "GMT-5", "+02:00" as the tz database's fixed zone ("Etc/GMT-2": its sign is
    the opposite of the offset's, a POSIX leftover), or None. Only whole hours exist there;
    a half-hour offset ("+05:30") is None, so the person is asked for their city instead."""
    m = _OFFSET.match(" ".join(text.split()))
    if m is None:
        return None
    sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
    if minutes or hours > 14 or (sign != "+" and hours > 12):
        return None
    if hours == 0:
        return "UTC"
    name = f"Etc/GMT{'-' if sign == '+' else '+'}{hours}"
    return name if is_valid_timezone(name) else None


_ANSWER_LEADS = re.compile(
    r"^(?:(?:i'?m|i am|i live|we'?re|we are|we live)\s+(?:in|near)\s+|in\s+|near\s+|my time ?zone is\s+)",
    re.IGNORECASE,
)


def zone_from_answer(text: str) -> str | None:
    """What a person types when asked where they are: a city ("Rome", "I'm in New York"), a zone
    name, or a UTC offset. None for anything else, so the message is read as it normally would
    be (an awaited answer must never swallow a real message)."""
    cleaned = _ANSWER_LEADS.sub("", " ".join(text.split()).strip(" .!?,;")).strip(" .!?,;")
    if not cleaned or len(cleaned) > 60:
        return None
    return resolve_timezone(cleaned) or zone_from_offset(cleaned)


def is_fixed_offset(tz: str) -> bool:
    """A zone that never changes its offset on its own ("Etc/GMT-2")."""
    return tz.startswith("Etc/")


# A few zones people of a language most often live in, most populous first; the language is the
# platform's (Telegram's language_code, Discord's locale), which is all a bot is told.
_LIKELY = {
    "en-us": ("America/New_York", "America/Chicago", "America/Los_Angeles"),
    "en-gb": ("Europe/London", "Europe/Dublin"),
    "en": ("America/New_York", "Europe/London", "America/Los_Angeles", "Asia/Kolkata"),
    "de": ("Europe/Berlin", "Europe/Vienna", "Europe/Zurich"),
    "fr": ("Europe/Paris", "Europe/Brussels", "America/Toronto"),
    "it": ("Europe/Rome",),
    "es": ("Europe/Madrid", "America/Mexico_City", "America/Bogota", "America/Argentina/Buenos_Aires"),
    "pt-br": ("America/Sao_Paulo",),
    "pt": ("Europe/Lisbon", "America/Sao_Paulo"),
    "nl": ("Europe/Amsterdam", "Europe/Brussels"),
    "pl": ("Europe/Warsaw",),
    "ru": ("Europe/Moscow",),
    "uk": ("Europe/Kyiv",),
    "tr": ("Europe/Istanbul",),
    "ja": ("Asia/Tokyo",),
    "ko": ("Asia/Seoul",),
    "zh": ("Asia/Shanghai", "Asia/Taipei", "Asia/Hong_Kong"),
    "hi": ("Asia/Kolkata",),
    "sv": ("Europe/Stockholm",),
    "id": ("Asia/Jakarta",),
}
_ANYWHERE = ("Europe/London", "America/New_York", "Europe/Berlin", "Asia/Kolkata")


def likely_zones(locale: str, limit: int = 4) -> tuple[str, ...]:
    """Zones to offer as buttons for a platform language ("en-US", "de", "pt_BR", "")."""
    key = locale.strip().lower().replace("_", "-")
    found = _LIKELY.get(key) or _LIKELY.get(key.split("-")[0]) or _ANYWHERE
    return tuple(z for z in found if is_valid_timezone(z))[:limit]


def city_of(tz: str) -> str:
    """The words for a zone in a sentence: "New York" for America/New_York, "UTC+2" for a fixed
    offset."""
    if is_fixed_offset(tz):
        hours = int(tz.removeprefix("Etc/GMT") or 0)
        return f"UTC{'+' if hours <= 0 else '-'}{abs(hours)}" if hours else "UTC"
    return tz.rsplit("/", 1)[-1].replace("_", " ")
