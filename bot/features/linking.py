"""/link and /unlink: one person, several accounts (Telegram, Discord, the terminal), one memory.

The flow. On account A the person sends /link and gets a one-time code (10 characters, valid 10
minutes, bound to A's owner). On account B they send ``/link CODE`` and are shown whose account
that is (platform and display name) with "Yes, link them" / "Cancel": a code typed from someone
else's message would otherwise hand over every memory unasked. On "Yes" B *joins* A's owner:
every later message from B reads and writes the same memory as A. B's own memories are brought
over through the normal save path, ``core.memory.remember(...)`` (source and confidence kept,
the conflict rules on, the AI judge off), so where the two accounts disagree ("I live in
London" here, "I live in Paris" there) the person is asked with the usual four buttons instead
of one side silently winning. Past (historical) and archived memories are copied as they are:
they disagree with nothing now.

The code is the secret: whoever types it within its 10 minutes joins the owner that asked for
it — by design, like a pairing code. So it is random (about 49 bits), single use, retired when a
new one is asked for, void once its issuer unlinks, and five failed tries (wrong, used or
expired codes) in 10 minutes lock further tries for the rest of that window. A wrong, used or
expired code changes nothing and says so; typing a code of your own memory says there is
nothing to link. The person who showed the code is told, on their platform, when it was used.

/unlink separates them again. What each side keeps (the rules, and why):
- The joining account gets its own memory back: its owner from before the link
  (``Identity.home_owner_id``) was left untouched while linked. The memories it brought come
  back *with the changes the person made to them while linked* (edited, marked past, restored,
  archived, deleted) — nothing the person did is lost.
- The copies it brought are removed from the shared memory (and their text purged at once), so
  the other account does not keep the joining account's memories.
- Memories saved while linked stay with the account that showed the code. We cannot tell which
  account said them, and copying them to the leaving account would hand it things the other
  side said; deleting them would lose them. Whoever wants them on both sides can /export before
  /unlink and /import afterwards. The reply says how many stayed.
- /unlink from the joined account sends that account home; /unlink from the account that showed
  the code sends every account that joined it home.

Limits worth knowing: buttons shown to the joining account before the link (its old conflict
questions, undo buttons) belong to its old owner and are refused while linked — its pending
questions are asked again by the re-save, and they work again after /unlink. Reminders, chat
episodes and procedures are not merged: they stay with the owner they were made for (reminders
still fire). A merge interrupted by a crash is finished by the next /link from the joined
account (re-saving is idempotent: each copy carries its provenance).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bot.core import commands as c
from bot.core import render
from bot.core.buttons import ButtonSpec, Claim
from bot.core.core import Core
from bot.core.replies import conflict_message, reply
from bot.core.turn import Turn
from bot.events import ButtonPress, ChatRef, Incoming, Outgoing
from bot.memory import FactError
from bot.memory.writing import linking as tx
from bot.storage.models import Status

log = logging.getLogger(__name__)

PLATFORM_NAMES = {"telegram": "Telegram", "discord": "Discord", "console": "terminal"}
MAX_QUESTIONS_SHOWN = 5
LOCK_TIMEOUT = 10.0  # seconds to wait for the other owner's lock before saying "try again"
BUSY = "I'm busy with your other account right now. Please send that again in a moment."


# --- wording ----------------------------------------------------------------------------------


def platform_name(platform: str) -> str:
    return PLATFORM_NAMES.get(platform, platform)


def describe(peer: tx.Peer) -> str:
    """"your Telegram account (Alice)" — the name helps when both accounts are on one platform."""
    name = f" ({peer.display_name})" if peer.display_name else ""
    return f"your {platform_name(peer.platform)} account{name}"


def describe_all(peers: tuple[tx.Peer, ...] | list[tx.Peer]) -> str:
    return ", ".join(describe(p) for p in peers)


def _minutes(delta: timedelta) -> int:
    return max(1, -(-int(delta.total_seconds()) // 60))


# --- plumbing ---------------------------------------------------------------------------------


async def _tx(core: Core, fn: Callable[..., Any], *args: Any) -> Any:
    return await core.memory.db.tx(fn, *args)


class _Busy(Exception):
    pass


async def _acquire(core: Core, owner_id: int) -> asyncio.Lock:
    """The other owner's lock, so that the merge does not interleave with that owner's own
    messages. Bounded: two people typing each other's codes at the same moment would otherwise
    wait on each other forever."""
    lock = core.lock_for(owner_id)
    try:
        await asyncio.wait_for(lock.acquire(), LOCK_TIMEOUT)
    except asyncio.TimeoutError:
        raise _Busy from None
    return lock


# --- issuing ----------------------------------------------------------------------------------


async def issue(core: Core, turn: Turn) -> tx.IssuedCode:
    return await _tx(core, tx.issue_code, turn.owner_id, turn.platform, turn.user_id)


PRESS_ACTION = "link"


async def on_link(core: Core, turn: Turn, intent: c.Link, msg: Incoming) -> list[Outgoing]:
    """/link shows a code; /link CODE says whose account it would join and asks first."""
    if intent.code is None:
        return await _show_code(core, turn)
    return await confirm_code(core, turn, intent.code)


def confirmation_text(issuer: tx.Peer) -> str:
    """Whose account a typed code joins, before anything happens: a code typed from a message
    someone else sent would otherwise hand over every memory without a word."""
    name = f" “{issuer.display_name}”" if issuer.display_name else ""
    return (
        f"That code was shown by the {platform_name(issuer.platform)} account{name}. Linking makes this "
        f"account share one memory with it: everything this account knows goes there, and that account "
        "sees all of it. Only link your own accounts. Link them?"
    )


async def confirm_code(core: Core, turn: Turn, typed: str) -> list[Outgoing]:
    """The typed code checked (a wrong one counts as a failed try) but not used: the question."""
    peeked: tx.Claimed = await _tx(core, tx.peek_code, turn.platform, turn.user_id, typed)
    if peeked.outcome is not tx.Outcome.READY:
        return [reply(turn, refusal(peeked))]
    [issuer] = peeked.peers
    code = tx.normalize_code(typed)
    buttons = await core.buttons.issue(turn.owner_id, [[
        ButtonSpec("Yes, link them", PRESS_ACTION, {"code": code, "join": True}, ttl=tx.CODE_TTL),
        ButtonSpec("Cancel", PRESS_ACTION, {"code": code, "join": False}, ttl=tx.CODE_TTL),
    ]])
    return [reply(turn, confirmation_text(issuer), buttons=buttons)]


async def on_press(core: Core, turn: Turn, claim: Claim, press: ButtonPress) -> list[Outgoing]:
    """"Yes, link them" links with the code (checked again: it may have expired or been used
    meanwhile); "Cancel" leaves everything as it was."""
    code = claim.payload.get("code")
    if not isinstance(code, str):
        return [Outgoing(notice="This button is not valid (any more).")]
    if not claim.payload.get("join"):
        return [Outgoing(text="Nothing was linked.", edit_of=press.message_id, private=turn.is_group, notice="Cancelled.")]
    outs = await link_with_code(core, turn, code)
    if outs and press.message_id:
        first = outs[0]
        outs[0] = Outgoing(text=first.text, buttons=first.buttons, private=first.private,
                           edit_of=press.message_id, notice="Linked." if "Linked!" in first.text else None)
    return outs


async def _show_code(core: Core, turn: Turn) -> list[Outgoing]:
    out: list[Outgoing] = []
    pending = await _tx(core, tx.unfinished_merge, turn.platform, turn.user_id)
    if pending is not None:  # an earlier merge was interrupted: finish it first
        surviving, home, identity_id = pending
        report = await merge(core, surviving, home, identity_id)
        out += await _merge_messages(core, turn, report, resumed=True)
    issued = await issue(core, turn)
    peers: tuple[tx.Peer, ...] = await _tx(core, tx.link_status, turn.platform, turn.user_id)
    lines = [
        f"Your link code: {issued.shown}",
        f"On your other account, send: /link {issued.shown}",
        "It works once, within 10 minutes. Whoever types it shares this memory, so don't give it to anyone else.",
    ]
    if peers:
        lines.append(f"Already linked here: {describe_all(peers)}. /unlink separates them.")
    out.insert(0, reply(turn, "\n".join(lines)))
    return out


# --- linking ----------------------------------------------------------------------------------


@dataclass
class MergeReport:
    """What bringing one account's memories over did."""

    brought: int = 0  # new in the shared memory
    known: int = 0  # the shared memory already held them
    questions: list[int] = field(default_factory=list)  # conflict ids to ask about


async def link_with_code(core: Core, turn: Turn, typed: str) -> list[Outgoing]:
    """Claim the code and merge, holding the code owner's lock as well as the typer's own (the
    core holds that one): the merge must not interleave with that owner's messages."""
    other: int | None = await _tx(core, tx.code_owner, typed)
    lock: asyncio.Lock | None = None
    try:
        if other is not None and other != turn.owner_id:
            lock = await _acquire(core, other)
        claimed: tx.Claimed = await _tx(core, tx.claim_code, turn.platform, turn.user_id, typed)
        if claimed.outcome is not tx.Outcome.LINKED:
            return [reply(turn, refusal(claimed))]
        surviving, home, identity_id = claimed.surviving_owner, claimed.home_owner, claimed.identity_id
        assert surviving is not None and home is not None and identity_id is not None
        if surviving != other:  # cannot happen (a code never changes owner); never merge unlocked
            raise RuntimeError("link code changed owner between the check and the claim")
        report = await merge(core, surviving, home, identity_id)
    except _Busy:
        return [reply(turn, BUSY)]
    finally:
        if lock is not None:
            lock.release()
    await _tell_issuer(core, claimed, turn)
    joined = dataclasses.replace(turn, owner_id=surviving)  # the questions belong to the shared memory
    return await _merge_messages(core, joined, report, peers=claimed.peers)


def refusal(claimed: tx.Claimed) -> str:
    o = tx.Outcome
    left = ""
    if claimed.tries_left is not None and claimed.outcome in (o.NO_SUCH_CODE, o.USED, o.EXPIRED):
        left = f" ({claimed.tries_left} {'try' if claimed.tries_left == 1 else 'tries'} left for the next 10 minutes)"
    get_new = "Send /link on your other account for a new code."
    if claimed.outcome is o.NO_SUCH_CODE:
        return f"That link code doesn't match any code I gave out, so nothing was linked.{left} Check it, or: {get_new}"
    if claimed.outcome is o.EXPIRED:
        return f"That link code is no longer valid (codes last 10 minutes), so nothing was linked.{left} {get_new}"
    if claimed.outcome is o.USED:
        return f"That link code was already used, so nothing was linked.{left} {get_new}"
    if claimed.outcome is o.SELF:
        return (
            "That code belongs to this account's own memory, so there is nothing to link. "
            "Type it on your other account instead."
        )
    if claimed.outcome is o.ALREADY_LINKED:
        return (
            f"This account is already linked with {describe_all(claimed.peers)}. "
            "Send /unlink first if you want to link it with another memory."
        )
    if claimed.outcome is o.HAS_JOINED:
        return (
            f"{describe_all(claimed.peers).capitalize()} already share this account's memory, so it cannot "
            "join another one. Do it the other way round: send /link here and type that code on the other account."
        )
    assert claimed.retry_after is not None
    return (
        "Too many link codes that didn't work. To keep your memory safe from guessing, "
        f"please wait {render.count(_minutes(claimed.retry_after), 'minute', 'minutes')} before trying again. Nothing was changed."
    )


async def merge(core: Core, surviving: int, home: int, identity_id: int) -> MergeReport:
    """Bring the home owner's memories into the surviving owner. Live ones go through
    remember() — the normal save path, so duplicates are recognised and disagreements become
    questions; past and archived ones are copied as they are. Every copy carries its provenance
    (see linking_tx), which makes this safe to run again after an interruption."""
    report = MergeReport()
    items = await _tx(core, tx.to_bring, surviving, home)
    holders: dict[str, int] = {}  # uid at home -> memory of the surviving owner holding it
    verbatim: list[int] = []
    usage: list[tuple[int, int]] = []
    for m in items:
        if m.archived or m.status == Status.HISTORICAL.value:
            verbatim.append(m.id)
            continue
        try:
            result = await core.memory.remember(
                surviving,
                m.text,
                source=m.source,
                confidence=m.confidence,
                source_ref=tx.provenance(home, m.uid),
                created_at=m.created_at,
                importance=m.importance,
                actor=tx.LINK_ACTOR,
                judge=None,  # a merge never retires anything on its own, and stays quick
            )
        except FactError:  # e.g. an imported memory longer than a typed fact may be
            verbatim.append(m.id)
            continue
        if result.duplicate_of is not None:
            report.known += 1
            holders[m.uid] = result.duplicate_of.id
            continue
        assert result.memory is not None
        report.brought += 1
        holders[m.uid] = result.memory.id
        usage.append((result.memory.id, m.id))
        if result.conflict_id is not None:
            report.questions.append(result.conflict_id)
    if verbatim:
        report.brought += len(await _tx(core, tx.copy_verbatim, surviving, home, verbatim, holders))
    await _tx(core, tx.finish_merge, surviving, identity_id, usage)
    core.memory.forget_cached(surviving)
    return report


async def _merge_messages(
    core: Core, turn: Turn, report: MergeReport, *, peers: tuple[tx.Peer, ...] = (), resumed: bool = False
) -> list[Outgoing]:
    """The answer to a link: what happened, then each question with its buttons."""
    if resumed:
        head = "I finished bringing over this account's memories (that was interrupted earlier)."
    else:
        head = f"Linked! This {platform_name(turn.platform)} account now shares one memory with {describe_all(peers)}."
    parts = [head]
    counted = f"I brought over {report.brought} memor{'y' if report.brought == 1 else 'ies'} from this account"
    if report.known:
        counted += f" ({report.known} I already knew)"
    parts.append(counted + ".")
    if report.questions:
        n = len(report.questions)
        parts.append(
            f"{n} of them may change something I knew — please answer "
            f"{'the question' if n == 1 else 'the questions'} below. Nothing changes until you do."
        )
    if not resumed:
        parts.append("/unlink separates the accounts again; this account then gets back the memories it brought.")
    out = [reply(turn, "\n".join(parts))]
    for conflict_id in report.questions[:MAX_QUESTIONS_SHOWN]:
        question = await conflict_message(core, turn, conflict_id)
        if question is not None:
            out.append(question)
    rest = len(report.questions) - MAX_QUESTIONS_SHOWN
    if rest > 0:
        out.append(reply(turn, f"{render.count(rest, 'more question is', 'more questions are')} waiting: /memories review"))
    return out


async def _tell_issuer(core: Core, claimed: tx.Claimed, turn: Turn) -> None:
    """Tell the person who showed the code that it was used: if it wasn't them, they can
    /unlink at once. Best effort, private, only where a sender for that platform runs."""
    if claimed.issuer is None:
        return
    platform, user_id = claimed.issuer
    if not core.outbox.has(platform):
        return
    who = describe(tx.Peer(turn.platform, turn.display_name)).replace("your ", "a ", 1)
    text = (
        f"Your link code was used: {who} now shares your memory. "
        "If that wasn't you, send /unlink here to separate it again."
    )
    await core.push(ChatRef(platform, user_id, user_id), Outgoing(text=text, private=True))


# --- unlinking --------------------------------------------------------------------------------


async def on_unlink(core: Core, turn: Turn, intent: c.Simple, msg: Incoming) -> list[Outgoing]:
    result: tx.Unlinked = await _tx(core, tx.unlink, turn.platform, turn.user_id)
    if not result.separated:
        return [reply(turn, "This account isn't linked with another one, so there is nothing to separate. /link links one.")]
    for sep in result.separated:
        core.memory.forget_cached(sep.surviving_owner)
        core.memory.forget_cached(sep.home_owner)
    if result.identity_went_home:
        (sep,) = result.separated
        n = sep.returned
        text = [
            f"Unlinked. This {platform_name(turn.platform)} account has its own memory again: the {n} "
            f"memor{'y' if n == 1 else 'ies'} it brought in {'is' if n == 1 else 'are'} back here"
            + (f", with the {sep.changed} change{'' if sep.changed == 1 else 's'} you made while linked" if sep.changed else "")
            + "."
        ]
        if sep.deleted:
            text.append(f"{sep.deleted} you deleted while linked {'is' if sep.deleted == 1 else 'are'} deleted here too.")
        if sep.stayed:
            text.append(
                f"{sep.stayed} memor{'y' if sep.stayed == 1 else 'ies'} saved while linked "
                f"{'stays' if sep.stayed == 1 else 'stay'} with the other account "
                "(to have them here too: /export there, then /import the file here)."
            )
        return [reply(turn, "\n".join(text))]
    lines = ["Unlinked:"]
    for sep in result.separated:
        lines.append(
            f"• {describe(tx.Peer(sep.platform, sep.display_name))} has its own memory again and took back the "
            f"{sep.returned} memor{'y' if sep.returned == 1 else 'ies'} it brought in."
        )
    stayed = sum(s.stayed for s in result.separated)
    if stayed:
        lines.append(f"What was saved while linked stays here ({stayed} memor{'y' if stayed == 1 else 'ies'}).")
    return [reply(turn, "\n".join(lines))]


__all__ = ["on_link", "on_press", "on_unlink", "merge", "issue", "link_with_code", "confirm_code", "MergeReport", "PRESS_ACTION"]
