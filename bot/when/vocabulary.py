"""The names of weekdays and months, once: the time grammar, stated dates and past-question
detection all read the same words."""

from __future__ import annotations

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)

#: lower-case forms, for matching what people type
WEEKDAYS_LOWER = tuple(name.lower() for name in WEEKDAY_NAMES)
MONTHS_LOWER = tuple(name.lower() for name in MONTH_NAMES)

#: month words as people write them (full, three-letter, "sept") -> month number
MONTH_NUMBERS: dict[str, int] = {
    **{name: i + 1 for i, name in enumerate(MONTHS_LOWER)},
    **{name[:3]: i + 1 for i, name in enumerate(MONTHS_LOWER)},
    "sept": 9,
}
