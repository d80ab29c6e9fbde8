"""Who handles what: intent type -> handler, /verb -> handler, button action -> handler.

One table, filled once by the composition root (bot/app.py), so that "what handles X?" is
answered by reading one file. A second registration for the same key is an error at start-up,
not a silent override.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.commands import Intent, Simple
from bot.core.turn import Turn
from bot.events import ButtonPress, Incoming, Outgoing
from bot.storage.buttons import Claim

# (core, turn, intent, message) and (core, turn, claim, press); the core is the bot.core.core.Core
# that dispatches (typed Any here: the router is imported by the core, not the other way round)
IntentHandler = Callable[[Any, Turn, Any, Incoming], Awaitable[list[Outgoing]]]
PressHandler = Callable[[Any, Turn, Claim, ButtonPress], Awaitable[list[Outgoing]]]


class DuplicateRoute(ValueError):
    """Two handlers registered for one intent, /command or button action."""


class Router:
    def __init__(self) -> None:
        self._intents: dict[type, IntentHandler] = {}
        self._commands: dict[str, IntentHandler] = {}
        self._presses: dict[str, PressHandler] = {}
        self._expired: dict[str, PressHandler] = {}

    # --- registration ---------------------------------------------------------------------------
    def intent(self, kind: type, handler: IntentHandler) -> None:
        """The handler of every intent of this type (Simple commands are routed by verb)."""
        if kind is Simple:
            raise DuplicateRoute("Simple commands are routed by verb: use command()")
        _put(self._intents, kind, handler, f"intent {kind.__name__}")

    def command(self, verb: str, handler: IntentHandler) -> None:
        """The handler of a command without arguments (/help, /undo, /tidy ...)."""
        _put(self._commands, verb, handler, f"/{verb}")

    def press(self, action: str, handler: PressHandler) -> None:
        """The handler of a button action (the action stored with the button's token)."""
        _put(self._presses, action, handler, f"button action {action!r}")

    def expired(self, action: str, handler: PressHandler) -> None:
        """What a press of an expired button of this action does (default: a short refusal).
        For confirmations that expire on purpose, so the person is asked again."""
        _put(self._expired, action, handler, f"expired button action {action!r}")

    # --- lookup --------------------------------------------------------------------------------
    def for_intent(self, intent: Intent) -> IntentHandler | None:
        if isinstance(intent, Simple):
            return self._commands.get(intent.verb)
        return self._intents.get(type(intent))

    def for_press(self, action: str) -> PressHandler | None:
        return self._presses.get(action)

    def for_expired(self, action: str) -> PressHandler | None:
        return self._expired.get(action)

    @property
    def intents(self) -> frozenset[type]:
        return frozenset(self._intents)

    @property
    def commands(self) -> frozenset[str]:
        return frozenset(self._commands)

    @property
    def presses(self) -> frozenset[str]:
        return frozenset(self._presses)


def _put(table: dict[Any, Any], key: Any, handler: Any, what: str) -> None:
    if key in table:
        raise DuplicateRoute(f"{what} already has a handler ({_name(table[key])}); not adding {_name(handler)}")
    table[key] = handler


def _name(handler: Any) -> str:
    return getattr(handler, "__qualname__", repr(handler))
