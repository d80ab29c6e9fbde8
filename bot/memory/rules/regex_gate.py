"""Literal gates for regular expressions: a cheap test that tells when a pattern cannot match.

Why: the slot rules are ~130 regular expressions run over every sentence of every fact the
conflict check reads, and Python's `re` scans the whole sentence for each of them even when a
word the pattern needs ("live", "moved", "drive") is not there. A substring test (`in`, in C)
for the words a pattern cannot match without is many times cheaper. The gate is sound: it only
says "no match" when the pattern's own structure proves it, so results never change (the tests
compare gated and ungated matching on thousands of sentences).

The patterns are read with `re`'s own parser, which is private (`re._parser`, `sre_parse`
before 3.11). So that a Python upgrade that changes it cannot make the gate unsound, the module
checks itself at import on patterns whose literals are known; if the parser answers anything
else (or fails), gating is switched off and every pattern simply runs (a test fails loudly then,
so the change is noticed).
"""

from __future__ import annotations

import re
from typing import Any

try:  # the parser behind `re` (public as sre_parse before Python 3.11)
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

__all__ = ["required_literals", "may_match"]

MIN_LITERAL = 2  # shorter literals are too common to be worth testing


def _choose(options: list[frozenset[str]]) -> frozenset[str] | None:
    """The most selective of several sufficient sets: the one whose shortest string is longest."""
    best: frozenset[str] | None = None
    for opt in options:
        if not opt:
            continue
        if best is None or (min(map(len, opt)), -len(opt)) > (min(map(len, best)), -len(best)):
            best = opt
    return best


def _seq(items: Any) -> frozenset[str] | None:
    options: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            options.append(frozenset({"".join(run)}))
            run = []
        got = _item(op, av)
        if got is not None:
            options.append(got)
    if run:
        options.append(frozenset({"".join(run)}))
    return _choose(options)


def _item(op: Any, av: Any) -> frozenset[str] | None:
    if op is _c.SUBPATTERN:
        _group, add_flags, _del_flags, body = av
        if add_flags & re.IGNORECASE:
            return None
        return _seq(body)
    if op is _c.BRANCH:
        union: set[str] = set()
        for alternative in av[1]:
            got = _seq(alternative)
            if got is None:
                return None  # one way through needs no literal
            union |= got
        return frozenset(union)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or op is getattr(_c, "POSSESSIVE_REPEAT", None):
        low, _high, body = av
        return _seq(body) if low >= 1 else None
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(av)
    return None  # classes, anchors, lookarounds, backreferences: nothing certain


def _analyse(pattern: str | re.Pattern[str]) -> frozenset[str] | None:
    source, flags = (pattern.pattern, pattern.flags) if isinstance(pattern, re.Pattern) else (pattern, 0)
    if not isinstance(source, str) or flags & re.IGNORECASE:
        return None
    try:
        parsed = _p.parse(source, flags)
        if parsed.state.flags & re.IGNORECASE:
            return None
        got = _seq(parsed)
    except Exception:  # noqa: BLE001 - a parser we do not know: no gate
        return None
    if got is None or min(map(len, got)) < MIN_LITERAL:
        return None
    return got


# Patterns whose required literals are known; the parser must agree on every one of them.
SELF_CHECK: tuple[tuple[str, frozenset[str] | None], ...] = (
    (r"\bI (?:live|stay) in\b", frozenset({"live", "stay"})),
    (r"(?:moved|relocated) to (\w+)", frozenset({"moved", "relocated"})),
    (r"\bdrive[sn]?\b", frozenset({"drive"})),
    (r"(?:a|b)?\d+", None),
    (r"(?i)moved", None),
    (r"x{0,3}yz", frozenset({"yz"})),
)


def parser_agrees() -> bool:
    """True when `re`'s parser reads the known patterns as this module expects."""
    try:
        return all(_analyse(pattern) == expected for pattern, expected in SELF_CHECK)
    except Exception:  # noqa: BLE001
        return False


GATING = parser_agrees()


def required_literals(pattern: str | re.Pattern[str]) -> frozenset[str] | None:
    """Strings of which every match of `pattern` contains at least one, or None when the
    pattern's structure names none (or it ignores case, or cannot be parsed here, or gating is
    off because the parser changed)."""
    return _analyse(pattern) if GATING else None


def may_match(literals: frozenset[str] | None, text: str) -> bool:
    """False only when the pattern behind `literals` cannot match `text`."""
    if literals is None:
        return True
    for lit in literals:  # a plain loop: this runs ~100 times per sentence analysed
        if lit in text:
            return True
    return False
