"""/why: which memories the last answer used, with their score parts.

The record is written by every chat turn (with the model, from memory alone, or in a group) and
kept on the Owner row; /why reads it and shows each memory as it is now (or "deleted since").
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from bot.core import render
from bot.core.core import Core
from bot.core.replies import reply
from bot.core.turn import Turn
from bot.events import Incoming, Outgoing
from bot.features.chat.answer_lines import status_label
from bot.features.episodes import Extras
from bot.memory import Recalled
from bot.storage.db import Database, StorageError
from bot.storage.models import Owner

log = logging.getLogger(__name__)

PART_ORDER = ("relevance", "importance", "confidence", "recency", "frequency", "identity", "total")

MODE_NOTES = {
    "group": "My last answer was in a group chat, where I never use your memories.",
    "memory_only": "The model was not available, so I answered from memory alone",
    # none configured: "not available" would suggest it might come back
    "no_model": "No language model is connected, so I answered from memory alone",
    "rate_limited": "",
}
RECALL_NOTES = {  # how an answer from memory alone searched: the same recall the model's context uses
    "hybrid": ", with the same recall the model's context uses (keyword and meaning search).",
    "keyword": ", with the same recall the model's context uses (keyword search; the embedding model was not loaded).",
    "": ".",
}


def why_record(recalled: Recalled | None, extras: Extras | None, mode: str, at: datetime) -> dict[str, Any]:
    """What /why will show about an answer: memory ids, their score parts and texts."""
    memories = []
    if recalled is not None:
        for mid in recalled.memory_ids:
            memories.append(
                {
                    "id": mid,
                    "text": recalled.texts.get(mid, ""),
                    "parts": {k: round(float(v), 4) for k, v in recalled.parts.get(mid, {}).items()},
                }
            )
    return {
        "at": at.isoformat(),
        "mode": mode,
        "memories": memories,
        "episodes": list(extras.episode_ids) if extras else [],
        "procedures": list(extras.procedure_ids) if extras else [],
    }


def render_parts(parts: dict[str, float]) -> str:
    keys = [k for k in PART_ORDER if k in parts] + sorted(k for k in parts if k not in PART_ORDER)
    return ", ".join(f"{k} {parts[k]:.2f}" for k in keys)


def render_why(
    record: dict[str, Any], alive: dict[int, str | None], statuses: dict[int, str] | None = None
) -> str:
    """The /why text. `alive` maps each memory id to its current text, or None if deleted since;
    `statuses` its status now, so a past fact says "(before)" on its own line as in answers.
    The memories still there are numbered like a list (the numbers then work with /history N),
    and no internal id is shown."""
    mode = str(record.get("mode", "model"))
    memories = record.get("memories") or []
    lines: list[str] = []
    if MODE_NOTES.get(mode):
        note = MODE_NOTES[mode]
        if mode in ("memory_only", "no_model"):
            note += RECALL_NOTES.get(str(record.get("recall", "")), ".")
        lines.append(note)
    if not memories:
        if mode != "group":
            lines.append("My last answer didn't use any of your memories.")
    else:
        lines.append("My last answer used these memories:")
        number = 0
        for item in memories:
            mid = int(item.get("id", 0))
            text = alive.get(mid)
            if text is None:
                lines.append("• a memory you deleted since")
                continue
            number += 1
            parts = item.get("parts") or {}
            score = f" — {render_parts(parts)}" if parts else ""
            label = status_label((statuses or {}).get(mid, "current"))
            lines.append(f"{number}. {render.quote(text, 200)}{label}{score}")
        if number:
            lines.append("(/history N shows where one of them came from.)")
    extra = []
    if record.get("episodes"):
        extra.append(f"{render.count(len(record['episodes']), 'summary', 'summaries')} of earlier conversations")
    if record.get("procedures"):
        extra.append(f"{render.count(len(record['procedures']), 'procedure', 'procedures')} you taught me")
    if extra:
        lines.append("Also used: " + " and ".join(extra) + ".")
    return "\n".join(lines)


class WhyStore:
    """The last answer's record, on the Owner row."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def store(self, owner_id: int, record: dict[str, Any]) -> None:
        db = self.db
        data = json.dumps(record, ensure_ascii=False)

        def work() -> None:
            with db.session() as s:
                owner = s.get(Owner, owner_id)
                if owner is not None:
                    owner.last_why_json = data
                    s.add(owner)

        try:
            await db.run(work)
        except StorageError:
            log.warning("could not store /why for owner %s", owner_id)

    async def load(self, owner_id: int) -> dict[str, Any] | None:
        db = self.db

        def work() -> str:
            with db.session() as s:
                owner = s.get(Owner, owner_id)
                return owner.last_why_json if owner is not None else ""

        raw = await db.run(work)
        try:
            record = json.loads(raw or "null")
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    async def on_why(self, core: Core, turn: Turn, intent: Any, msg: Incoming) -> list[Outgoing]:
        """/why: which memories the last answer used, with score parts."""
        record = await self.load(turn.owner_id)
        if record is None:
            return [reply(turn, "I haven't answered anything with the help of your memories yet.")]
        alive: dict[int, str | None] = {}
        statuses: dict[int, str] = {}
        for item in record.get("memories") or []:
            mid = int(item.get("id", 0))
            current = await core.memory.get(turn.owner_id, mid)
            alive[mid] = current.text if current is not None else None
            if current is not None:
                statuses[mid] = current.status
        numbered = [mid for mid, text in alive.items() if text is not None]
        if numbered:  # the list the person is looking at now: /history 1 means its first memory
            await core.memory.set_numbers(turn.owner_id, numbered)
        return [reply(turn, render_why(record, alive, statuses))]
