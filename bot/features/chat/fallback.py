"""Chat without a model: plain messages when no model is configured, and the fallback when the
model is down, slow, rate limited or over the person's budget.

What a message gets (`message_kind`):
- a statement about the person ("I'm 34 and I'm allergic to peanuts") is not dropped: the reply
  quotes what would be saved and offers a Save button per fact (and Save all); nothing is saved
  until the person presses one, since without a model nobody checks what the words meant;
- a question gets an answer from memory: the same recall as the model's context
  (MemoryService.recall: candidates, scoring, blocks, the past-question rule), rendered for a
  person by bot/features/chat/answer_lines.py, with a plain note that the model is not used;
- small talk gets a one-line hint about remember: and /help, once per conversation (the chat's
  open window of messages), and a short note after that.
Group chats never see a person's memories and get no offers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.core import commands as c
from bot.core import render
from bot.core.buttons import ButtonSpec, Claim
from bot.core.core import Core
from bot.core.replies import describe_save, reply
from bot.core.turn import Turn
from bot.events import ButtonPress, Incoming, Outgoing
from bot.features.chat.answer_lines import answer_lines, shown
from bot.features.chat.why import WhyStore
from bot.features.chat.window import ChatLog
from bot.llm.extract import asks, stated_facts
from bot.memory import FactError, JudgeFn, strip_lead_in, tells_about_self
from bot.storage.models import Source, utcnow

# one sentence, whatever the reason: in a group an answer from memory would show it to everyone
GROUP_WITHOUT_MODEL = ("In a group I only answer with the language model, which isn't available right "
                       "now; ask me in a private chat, where I answer from what you told me.")
NO_MODEL = "(The language model isn't available right now, so I can only answer from what I remember.)"
# with no model configured at all "right now" would promise one: say what is so
NO_KEY_NOTE = "(No language model is connected, so I answer from what I remember.)"
SLOW_NOTE = (
    "(This is a quick answer from what I remember, because the language model is slow right now. "
    "I'll replace it with the model's answer if that comes.)"
)
SLOW_FOLLOW_NOTE = (
    "(This is a quick answer from what I remember, because the language model is slow right now. "
    "I'll send the model's answer too if it comes.)"
)
SAVE_ACTION = "save_offer"
HINT = (
    "Without the language model I can't chat, but I can remember things for you: "
    "write “remember: <fact>” to save one, or /help to see everything I can do."
)
SMALL_TALK_AGAIN = "(Without the language model I can't chat, but I can answer questions about what you told me.)"

# the AI judge for one person's saves, or None
JudgeFor = Callable[[int], JudgeFn | None]


def fallback_note(reason: str) -> str:
    """The plain note added to an answer from memory alone, by why the model was not used."""
    if reason == "budget":
        return (
            "(Today's model budget is used up, so I can only answer from what I remember. "
            "Memory commands like remember: and /memories still work.)"
        )
    if reason == "timeout":
        return "(The language model is too slow right now, so I can only answer from what I remember.)"
    if reason == "slow":  # the model may still answer: this message is replaced when it does
        return SLOW_NOTE
    if reason == "slow_follow":  # ... or followed, where there was no message to replace
        return SLOW_FOLLOW_NOTE
    if reason == "no_key":
        return NO_KEY_NOTE
    return NO_MODEL


def offered_facts(text: str) -> list[str]:
    """What a Save offer quotes: the first-person statements of the extraction gate, or, where it
    reads none, the whole message when the memory's rules read a fact about the person in it
    ("turned 35 yesterday 🎂", "our yellow lab Rosie is scared of the hoover"); each without what
    it says to the bot first ("store this: ...", "just so u know, ...")."""
    facts = [strip_lead_in(f) for f in stated_facts(text)]
    if not facts and not asks(text) and tells_about_self(text):  # "am i maried" asks, typed fast
        facts = [strip_lead_in(text).rstrip(" .!")]
    return [f for f in dict.fromkeys(facts) if f]


def message_kind(text: str) -> str:
    """"statement" (a lasting fact about the person, to offer for saving), "question" (to
    answer from memory) or "small_talk". A message that states something is a statement even
    if it also asks: saving what a person said matters more than an answer they can ask again."""
    return _kind(text, offered_facts(text))


def _kind(text: str, facts: Sequence[str]) -> str:
    """message_kind, given the message's offered facts (read once per message)."""
    if facts:
        return "statement"
    if asks(text):
        return "question"
    return "small_talk"


def offer_text(facts: Sequence[str]) -> str:
    if len(facts) == 1:
        return f"Shall I remember this? {render.quote(facts[0], 1000)}"
    lines = ["Shall I remember these?"]
    lines += [f"{n}. {render.quote(f, 1000)}" for n, f in enumerate(facts, 1)]
    return "\n".join(lines)


def offer_buttons(facts: Sequence[str]) -> list[list[ButtonSpec]]:
    """Save (one fact) or Save 1 .. Save n and Save all. Each button stands alone (saving one
    fact leaves the others' buttons working); saving a fact twice is refused as a duplicate."""
    every = list(facts)
    if len(every) == 1:
        return [[ButtonSpec("Save", SAVE_ACTION, {"facts": every, "whole": True}, alone=True)]]
    row = [ButtonSpec(f"Save {n}", SAVE_ACTION, {"facts": [f], "whole": False}, alone=True)
           for n, f in enumerate(every, 1)]
    return [row, [ButtonSpec("Save all", SAVE_ACTION, {"facts": every, "whole": True}, alone=True)]]


def same_words(text: str) -> str:
    """A fact as compared for "already saved": case, spacing and end punctuation aside."""
    return " ".join(text.casefold().split()).rstrip(".!…")


def no_judge(owner_id: int) -> JudgeFn | None:
    return None


class MemoryAnswers:
    """The chat handler without a model, and the fallback the model turn uses: the answer is
    logged like any chat answer and recorded for /why; Save offers are pressed here too."""

    def __init__(self, log: ChatLog, why: WhyStore, judge_for: JudgeFor = no_judge) -> None:
        self.log = log
        self.why = why
        self.judge_for = judge_for

    async def on_chat(self, core: Core, turn: Turn, intent: c.Chat, msg: Incoming) -> list[Outgoing]:
        """A plain message when no model is configured."""
        await self.log.log(turn, "user", msg.text, turn.message_id)
        return [await self.answer(core, turn, msg.text, "no_key", [])]

    async def answer(self, core: Core, turn: Turn, text: str, reason: str, done: Sequence[str]) -> Outgoing:
        """The reply without the model, by what the message is (see the module's docstring), and
        what tools already changed before the model stopped."""
        note = fallback_note(reason)
        memories: list[dict[str, Any]] = []
        recall_mode = ""
        if turn.is_group:
            out = Outgoing(GROUP_WITHOUT_MODEL)
        else:
            facts = [] if done else offered_facts(text)
            kind = "question" if done else _kind(text, facts)  # a tool already handled a statement
            if kind == "statement":
                out = await self._offer(core, turn, facts, reason, note)
            elif kind == "question":
                out, memories, recall_mode = await self._from_recall(core, turn, text, note)
            else:
                out = reply(turn, await self._small_talk(turn, reason, note))
        if done:
            out = Outgoing(
                text=out.text + "\n\nDone before the model stopped:\n" + "\n".join(f"✓ {c}" for c in done),
                private=out.private,
                buttons=out.buttons,
            )
        await self.log.log(turn, "assistant", out.text, None)
        mode = "group" if turn.is_group else "no_model" if reason == "no_key" else "memory_only"
        record = {"at": utcnow().isoformat(), "mode": mode,
                  "recall": recall_mode, "memories": memories, "episodes": [], "procedures": []}
        await self.why.store(turn.owner_id, record)
        return out

    async def _from_recall(self, core: Core, turn: Turn, text: str, note: str) -> tuple[Outgoing, list[dict[str, Any]], str]:
        """The answer to a question: what recall gives the model, as lines a person can trust."""
        recalled = await core.memory.recall(turn.owner_id, text, record_use=False)
        lines = answer_lines(recalled.items)
        used = [i.id for i in shown(recalled.items)]
        await core.memory.record_use(turn.owner_id, used)
        memories = [{"id": i, "text": recalled.texts.get(i, ""),
                     "parts": {k: round(float(v), 4) for k, v in recalled.parts.get(i, {}).items()}} for i in used]
        head = "Here is what I remember about that:"
        if not lines and not recalled.past_question:
            # nothing current answers; the person may have marked the answer past themselves
            # ("where do I live?" after Leeds was marked past with no new home): say what was
            # true before, labelled, rather than that nothing was ever saved
            before = await core.memory.recall(turn.owner_id, text, record_use=False, past=True)
            old = [i for i in shown(before.items) if i.status == "historical"]
            lines = answer_lines(old)
            if lines:
                head = "Nothing current is saved about that. What was true before:"
                memories += [{"id": i.id, "text": i.text, "parts": {}} for i in old]
                await core.memory.record_use(turn.owner_id, [i.id for i in old])
        if not lines:
            return reply(turn, f"I don't have anything saved about that yet. {note}"), memories, recalled.mode
        body = "\n".join([head, *lines, note])
        return reply(turn, body), memories, recalled.mode

    async def _offer(self, core: Core, turn: Turn, facts: list[str], reason: str, note: str) -> Outgoing:
        """The Save offer for what is not saved already (word for word); "I already know that"
        for what is."""
        known, new = [], []
        for fact in facts:
            (known if await self._saved_already(core, turn.owner_id, fact) else new).append(fact)
        lines = [f"I already know that: {render.quote(f, 1000)}" for f in known]
        buttons: tuple = ()
        if new:
            lines.append(offer_text(new))
            buttons = await core.buttons.issue(turn.owner_id, offer_buttons(new))
        if reason != "no_key":
            lines.append(note)
        return reply(turn, "\n".join(lines), buttons=buttons)

    @staticmethod
    async def _saved_already(core: Core, owner_id: int, fact: str) -> bool:
        """Whether a current memory says exactly this (case, spacing and end punctuation aside).
        Near duplicates are left to the save itself, which refuses them with the same words."""
        want = same_words(fact)
        return any(m.status == "current" and same_words(m.text) == want
                   for m in await core.memory.search(owner_id, fact, limit=5))

    async def _small_talk(self, turn: Turn, reason: str, note: str) -> str:
        """The hint once per conversation (while it is in this chat's open window), then a
        short note."""
        window = await self.log.window(turn)
        if any(role == "assistant" and HINT in said for role, said in window):
            return SMALL_TALK_AGAIN if reason == "no_key" else note
        return HINT if reason == "no_key" else f"{note} {HINT}"

    async def on_save_press(self, core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
        """Save what the person confirmed, through the same path as remember: (duplicates refused,
        possible replacements asked about). Saving every offered fact replaces the offer; saving
        one of several answers below it, so the other buttons stay."""
        facts = [f for f in claim.payload.get("facts", []) if isinstance(f, str) and f.strip()]
        if not facts:
            return [Outgoing(notice="This button is not valid (any more).")]
        outs: list[Outgoing] = []
        for fact in facts:
            try:
                result = await core.memory.remember(
                    turn.owner_id, fact, source=Source.COMMAND.value, source_ref=press.message_id,
                    judge=self.judge_for(turn.owner_id),
                )
            except FactError as exc:
                outs.append(reply(turn, str(exc)))
                continue
            outs.append(await describe_save(core, turn, result))
        if claim.payload.get("whole") and outs:
            first = outs[0]
            outs[0] = Outgoing(text=first.text, buttons=first.buttons, private=first.private,
                               edit_of=press.message_id, notice="Saved.")
        return outs
