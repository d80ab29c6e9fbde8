"""Private answers waiting for a person who has not opened a private chat with the bot yet.

In a group, an answer that only its owner may see goes to their private chat; on Telegram a bot
cannot write there until the person has pressed Start (403). The answer is then kept here under
a random code and the group is shown a deep link `t.me/<bot>?start=<code>`: pressing Start sends
"/start <code>", and the adapter delivers what waited, to that person only. Kept in memory for a
day (a restart forgets it: the person is told to ask again), bounded in size; nothing here is
stored or logged, and a code only ever opens its own person's answers. Discord has no deep link:
there the code stays inside the adapter, and the person's next direct message delivers the answer.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.events import Outgoing

WAIT_SECONDS = 24 * 3600
MAX_WAITING = 1000  # codes kept at once; the oldest go first
CODE_PREFIX = "a-"  # tells our codes from other /start payloads (letters, digits, _ and - only)


@dataclass
class _Waiting:
    user_id: str
    at: float
    outs: list[Outgoing] = field(default_factory=list)


class WaitingAnswers:
    """Answers by code; a code belongs to one person."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._by_code: dict[str, _Waiting] = {}

    def keep(self, user_id: str, out: Outgoing, code: str | None = None) -> str:
        """Keep `out` for `user_id` (under `code` when one was made for this batch); the code."""
        self._prune()
        waiting = self._by_code.get(code or "")
        if waiting is None or waiting.user_id != user_id:
            code = CODE_PREFIX + secrets.token_urlsafe(12)
            waiting = self._by_code[code] = _Waiting(user_id, self.clock())
        waiting.outs.append(out)
        return code  # type: ignore[return-value]

    def take(self, code: str, user_id: str) -> list[Outgoing] | None:
        """What waits under `code` for `user_id` (then forgotten); None when nothing does (also
        for a code of someone else: it stays for its owner)."""
        self._prune()
        waiting = self._by_code.get(code)
        if waiting is None or waiting.user_id != user_id:
            return None
        del self._by_code[code]
        return waiting.outs

    @staticmethod
    def is_ours(payload: str) -> bool:
        return payload.startswith(CODE_PREFIX)

    def _prune(self) -> None:
        now = self.clock()
        for code in [c for c, w in self._by_code.items() if now - w.at > WAIT_SECONDS]:
            del self._by_code[code]
        while len(self._by_code) >= MAX_WAITING:
            del self._by_code[next(iter(self._by_code))]
