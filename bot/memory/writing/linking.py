"""The transactional half of /link and /unlink: codes, the identity switch, copying and
returning memories. Session-level functions, no I/O beyond the session, no core imports.

The model (docs/ARCHITECTURE.md section 3): an Identity maps to an Owner; a link points the joining
identity at the owner that showed the code (the *surviving* owner) and keeps the owner it had
in `Identity.home_owner_id`. The home owner is left untouched while the link lasts, so /unlink
always has the joining identity's own memories to return to, whatever happens meanwhile.

Memories the joining identity brought are *copies* in the surviving owner, each marked with its
provenance in `Memory.source_ref` (``link:<home owner id>:<uid of the original>``). That mark is
what /unlink uses to take exactly those memories out of the surviving owner again (so the other
side does not keep them) and to carry back what the person changed about them while linked.

Why the code is single use, short lived and bound to the owner that asked: whoever types it
joins that owner's memory; the code is the secret. It is 10 characters from an alphabet without
look-alikes (0/O, 1/I/L), about 49 bits, and a wrong, used or expired code counts towards a
limit of failed tries per person, so guessing one in its 10 minutes is hopeless.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import func, update
from sqlmodel import Session, select

from bot.memory.writing.changes import void_conflicts_naming
from bot.storage.models import (
    Action,
    Conflict,
    EventKind,
    Identity,
    LinkCode,
    Memory,
    MemoryEvent,
    Status,
    utcnow,
)
from bot.memory.writing.purge import purge_row
from bot.memory.store import MemoryView, log_event, new_action, snapshot, touch

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud or retyped safely
CODE_LENGTH = 10  # 31**10 ~ 8e14 codes (about 49 bits)
CODE_TTL = timedelta(minutes=10)
MAX_FAILURES = 5  # wrong, used or expired codes per person ...
FAILURE_WINDOW = timedelta(minutes=10)  # ... within this window; then further tries are refused
KEEP_DEAD_CODES = timedelta(days=1)  # used/expired codes kept this long to say "already used"

LINK_ACTOR = "link"
PROVENANCE_PREFIX = "link:"
KIND_LINK = "link"
KIND_MERGED = "link_merged"
KIND_UNLINK = "unlink"
KIND_FAILED = "link_failed"
KIND_COPY = "link_copy"

# what /unlink carries back from a copy to its original, when it changed while linked
SYNC_FIELDS = (
    "text",
    "category",
    "slot",
    "status",
    "valid_from",
    "valid_until",
    "archived",
    "confidence",
    "importance",
)


# --- codes ------------------------------------------------------------------------------------


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def display_code(code: str) -> str:
    """ABCDEFGHJK -> ABCDE-FGHJK: two halves are easier to read and retype."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def normalize_code(typed: str) -> str:
    """What a person typed -> the stored form: case, hyphens and spaces do not matter."""
    return "".join(ch for ch in typed.upper() if ch not in "- ")


def well_formed(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)


@dataclass(frozen=True)
class IssuedCode:
    code: str
    expires_at: datetime

    @property
    def shown(self) -> str:
        return display_code(self.code)


def issue_code(s: Session, owner_id: int, platform: str, user_id: str) -> IssuedCode:
    """A fresh code for this identity, bound to its current owner. An identity has at most one
    live code: asking again retires the previous one, so a code shown earlier (and perhaps seen
    by someone) stops working. Codes long dead are cleaned up on the way."""
    now = utcnow()
    for old in s.exec(
        select(LinkCode).where(
            LinkCode.platform == platform, LinkCode.user_id == user_id, LinkCode.used_at.is_(None)  # type: ignore[union-attr]
        )
    ):
        s.delete(old)
    for dead in s.exec(select(LinkCode).where(LinkCode.expires_at < now - KEEP_DEAD_CODES)):
        s.delete(dead)
    s.flush()
    code = new_code()
    while s.get(LinkCode, code) is not None:  # 1 in 8e14; cheap to rule out anyway
        code = new_code()
    row = LinkCode(code=code, owner_id=owner_id, platform=platform, user_id=user_id, created_at=now, expires_at=now + CODE_TTL)
    s.add(row)
    s.flush()
    return IssuedCode(code, row.expires_at)


def code_owner(s: Session, typed: str) -> int | None:
    """The owner a typed code would link to (read only; used to take that owner's lock first)."""
    code = normalize_code(typed)
    if not well_formed(code):
        return None
    row = s.get(LinkCode, code)
    return row.owner_id if row is not None else None


# --- linking ----------------------------------------------------------------------------------


class Outcome(StrEnum):
    READY = "ready"  # the code is good; nothing done yet (the person is asked to confirm)
    LINKED = "linked"
    NO_SUCH_CODE = "no_such_code"
    EXPIRED = "expired"
    USED = "used"
    SELF = "self"
    ALREADY_LINKED = "already_linked"
    HAS_JOINED = "has_joined"
    RATE_LIMITED = "rate_limited"


@dataclass(frozen=True)
class Peer:
    """Another identity, as a person would recognise it."""

    platform: str
    display_name: str


@dataclass(frozen=True)
class Claimed:
    outcome: Outcome
    surviving_owner: int | None = None
    home_owner: int | None = None
    identity_id: int | None = None
    issuer: tuple[str, str] | None = None  # (platform, user id) of who showed the code
    peers: tuple[Peer, ...] = ()  # for refusals: who this account is linked with
    tries_left: int | None = None
    retry_after: timedelta | None = None


def _identity(s: Session, platform: str, user_id: str) -> Identity:
    row = s.exec(select(Identity).where(Identity.platform == platform, Identity.user_id == user_id)).first()
    if row is None:
        raise LookupError(f"no identity for {platform}")
    return row


def is_joined(ident: Identity) -> bool:
    """Joined another owner by /link (as opposed to being at home)."""
    return ident.home_owner_id is not None and ident.home_owner_id != ident.owner_id


def joined_into(s: Session, owner_id: int) -> list[Identity]:
    """Identities that joined this owner by /link."""
    rows = s.exec(select(Identity).where(Identity.owner_id == owner_id).order_by(Identity.id))  # type: ignore[arg-type]
    return [i for i in rows if is_joined(i)]


def peers_of(s: Session, ident: Identity) -> tuple[Peer, ...]:
    """The other identities sharing this identity's owner."""
    rows = s.exec(select(Identity).where(Identity.owner_id == ident.owner_id, Identity.id != ident.id).order_by(Identity.id))  # type: ignore[arg-type]
    return tuple(Peer(i.platform, i.display_name) for i in rows)


def recent_failures(s: Session, owner_id: int, now: datetime) -> list[datetime]:
    stmt = select(Action.created_at).where(
        Action.owner_id == owner_id, Action.kind == KIND_FAILED, Action.created_at > now - FAILURE_WINDOW
    )
    return sorted(s.exec(stmt))


def _fail(s: Session, owner_id: int, outcome: Outcome, failures: list[datetime]) -> Claimed:
    """A try that did not link: recorded (it counts towards the limit), nothing else changes."""
    new_action(s, owner_id, KIND_FAILED, f"a /link try failed: {outcome.value}", undoable=False)
    return Claimed(outcome, tries_left=max(0, MAX_FAILURES - len(failures) - 1))


def _vet(s: Session, ident: Identity, typed: str, now: datetime) -> Claimed | tuple[LinkCode, Identity, list[datetime]]:
    """The refusal for a typed code (recorded as a failed try where it counts), or the code's
    row, the identity that showed it and the failures so far."""
    failures = recent_failures(s, ident.owner_id, now)
    if len(failures) >= MAX_FAILURES:
        return Claimed(Outcome.RATE_LIMITED, retry_after=failures[-MAX_FAILURES] + FAILURE_WINDOW - now, tries_left=0)
    code = normalize_code(typed)
    row = s.get(LinkCode, code) if well_formed(code) else None
    if row is not None and row.owner_id == ident.owner_id:
        return Claimed(Outcome.SELF, peers=peers_of(s, ident))
    # Refusals that do not depend on the code come before anything that would tell whether it
    # is valid.
    if is_joined(ident):
        return Claimed(Outcome.ALREADY_LINKED, peers=peers_of(s, ident))
    if joined_into(s, ident.owner_id):
        return Claimed(Outcome.HAS_JOINED, peers=peers_of(s, ident))
    if row is None:
        return _fail(s, ident.owner_id, Outcome.NO_SUCH_CODE, failures)
    if row.used_at is not None:
        return _fail(s, ident.owner_id, Outcome.USED, failures)
    if row.expires_at <= now:
        return _fail(s, ident.owner_id, Outcome.EXPIRED, failures)
    issuer = s.exec(select(Identity).where(Identity.platform == row.platform, Identity.user_id == row.user_id)).first()
    if issuer is None or issuer.owner_id != row.owner_id:
        # whoever asked for it no longer belongs to that owner (unlinked since): the code is void
        return _fail(s, ident.owner_id, Outcome.EXPIRED, failures)
    return row, issuer, failures


def peek_code(s: Session, platform: str, user_id: str, typed: str) -> Claimed:
    """Check a typed code without using it: READY with the account that showed it (so the
    person can see whose memory they would join before anything happens), or the refusal."""
    ident = _identity(s, platform, user_id)
    vetted = _vet(s, ident, typed, utcnow())
    if isinstance(vetted, Claimed):
        return vetted
    row, issuer, _ = vetted
    return Claimed(Outcome.READY, issuer=(row.platform, row.user_id), peers=(Peer(issuer.platform, issuer.display_name),))


def claim_code(s: Session, platform: str, user_id: str, typed: str) -> Claimed:
    """Check a typed code and, if it is good, join this identity to the code's owner, in one
    transaction: the code is used up by a conditional update, so of two people typing the same
    code at once exactly one links. Every refusal changes nothing but the failure count."""
    now = utcnow()
    ident = _identity(s, platform, user_id)
    vetted = _vet(s, ident, typed, now)
    if isinstance(vetted, Claimed):
        return vetted
    row, issuer, failures = vetted
    code = row.code
    taken = s.execute(
        update(LinkCode)
        .where(LinkCode.code == code, LinkCode.used_at.is_(None), LinkCode.expires_at > now)  # type: ignore[union-attr,arg-type]
        .values(used_at=now)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        return _fail(s, ident.owner_id, Outcome.USED, failures)
    home = ident.owner_id
    ident.owner_id = row.owner_id
    ident.home_owner_id = home
    s.add(ident)
    for live in s.exec(select(LinkCode).where(LinkCode.owner_id == home, LinkCode.used_at.is_(None))):  # type: ignore[union-attr]
        s.delete(live)  # codes that would join the (now dormant) home owner
    s.flush()
    assert ident.id is not None
    new_action(s, row.owner_id, KIND_LINK, _mark(ident.id), actor=LINK_ACTOR, undoable=False)
    new_action(s, home, KIND_LINK, _mark(ident.id), actor=LINK_ACTOR, undoable=False)
    return Claimed(
        Outcome.LINKED,
        surviving_owner=row.owner_id,
        home_owner=home,
        identity_id=ident.id,
        issuer=(row.platform, row.user_id),
        peers=peers_of(s, ident),
    )


def _mark(identity_id: int) -> str:
    return f"identity {identity_id}"


# --- bringing memories over -----------------------------------------------------------------


def provenance(home_owner_id: int, uid: str) -> str:
    return f"{PROVENANCE_PREFIX}{home_owner_id}:{uid}"


def _copies(s: Session, owner_id: int, home_owner_id: int, *, live_only: bool) -> list[Memory]:
    stmt = select(Memory).where(
        Memory.owner_id == owner_id,
        Memory.source_ref.like(f"{provenance(home_owner_id, '')}%"),  # type: ignore[union-attr]
    )
    if live_only:
        stmt = stmt.where(Memory.deleted_at.is_(None))  # type: ignore[union-attr]
    return list(s.exec(stmt.order_by(Memory.id)))  # type: ignore[arg-type]


def _uid_of(copy: Memory) -> str:
    return (copy.source_ref or "").split(":", 2)[2]


def to_bring(s: Session, surviving: int, home: int) -> list[MemoryView]:
    """The home owner's memories that are not deleted and have no live copy yet, oldest first
    (so a resumed merge picks up where it stopped)."""
    copied = {_uid_of(c) for c in _copies(s, surviving, home, live_only=True)}
    rows = s.exec(
        select(Memory)
        .where(Memory.owner_id == home, Memory.deleted_at.is_(None))  # type: ignore[union-attr]
        .order_by(Memory.created_at, Memory.id)  # type: ignore[arg-type]
    )
    return [MemoryView.of(m) for m in rows if m.uid not in copied and m.text]


def copy_verbatim(
    s: Session, surviving: int, home: int, memory_ids: list[int], copied: dict[str, int]
) -> list[int]:
    """Copy memories as they are, without the conflict rules: historical and archived ones (a
    fact that is already past disagrees with nothing now) and the rare text remember() refuses
    (an imported memory longer than a typed fact may be). `copied` maps uids of the home owner
    to memories of the surviving owner that now hold them, so replaced_by links survive.
    Returns the ids of the copies."""
    now = utcnow()
    action = new_action(s, surviving, KIND_COPY, "memories brought in by /link", actor=LINK_ACTOR, undoable=False)
    existing = {
        (" ".join(m.text.casefold().split()), m.status, m.archived)
        for m in s.exec(select(Memory).where(Memory.owner_id == surviving, Memory.deleted_at.is_(None)))  # type: ignore[union-attr]
    }
    originals: list[tuple[Memory, Memory]] = []
    for mid in memory_ids:
        orig = s.get(Memory, mid)
        if orig is None or orig.owner_id != home or orig.deleted_at is not None:
            continue
        key = (" ".join(orig.text.casefold().split()), orig.status, orig.archived)
        if key in existing:
            continue  # the surviving owner holds exactly this already
        existing.add(key)
        copy = Memory(
            owner_id=surviving,
            text=orig.text,
            category=orig.category,
            slot=orig.slot,
            status=orig.status,
            valid_from=orig.valid_from,
            valid_until=orig.valid_until,
            source=orig.source,
            source_ref=provenance(home, orig.uid),
            confidence=orig.confidence,
            importance=orig.importance,
            uses=orig.uses,
            last_used_at=orig.last_used_at,
            confirmed_at=orig.confirmed_at,
            created_at=orig.created_at,
            updated_at=now,
            embedding=orig.embedding,
            archived=orig.archived,
        )
        s.add(copy)
        s.flush()
        assert copy.id is not None
        copied[orig.uid] = copy.id
        originals.append((orig, copy))
    uid_by_id = {o.id: o.uid for o, _ in originals}
    for orig, copy in originals:
        if orig.replaced_by is not None:
            target_uid = uid_by_id.get(orig.replaced_by)
            if target_uid is None:
                target = s.get(Memory, orig.replaced_by)
                target_uid = target.uid if target is not None and target.owner_id == home else None
            copy.replaced_by = copied.get(target_uid) if target_uid else None
            s.add(copy)
        log_event(s, action, copy, EventKind.CREATED, None, actor=LINK_ACTOR, note="brought in by /link")
    return [c.id for _, c in originals if c.id is not None]


def finish_merge(s: Session, surviving: int, identity_id: int, usage: list[tuple[int, int]]) -> None:
    """After the re-saves: carry over how often each memory was used (recall scores it), make
    the re-saves not undoable one by one (/unlink is how a link is undone; a plain /undo right
    after linking must not quietly drop a memory the person brought), and record that the merge
    is complete, so a later /link knows there is nothing to resume."""
    for copy_id, orig_id in usage:
        copy, orig = s.get(Memory, copy_id), s.get(Memory, orig_id)
        if copy is None or orig is None:
            continue
        copy.uses = max(copy.uses, orig.uses)
        if orig.last_used_at is not None and (copy.last_used_at is None or copy.last_used_at < orig.last_used_at):
            copy.last_used_at = orig.last_used_at
        s.add(copy)
    for action in s.exec(
        select(Action).where(Action.owner_id == surviving, Action.actor == LINK_ACTOR, Action.undoable == True)  # noqa: E712
    ):
        action.undoable = False
        s.add(action)
    new_action(s, surviving, KIND_MERGED, _mark(identity_id), actor=LINK_ACTOR, undoable=False)


def unfinished_merge(s: Session, platform: str, user_id: str) -> tuple[int, int, int] | None:
    """(surviving owner, home owner, identity id) when this identity is linked but the copying
    of its memories was interrupted (a crash or a restart between the link and its end)."""
    ident = _identity(s, platform, user_id)
    if not is_joined(ident) or ident.id is None or ident.home_owner_id is None:
        return None

    def last(kind: str) -> Action | None:
        return s.exec(
            select(Action)
            .where(Action.owner_id == ident.owner_id, Action.kind == kind, Action.summary == _mark(ident.id or 0))
            .order_by(Action.created_at.desc())  # type: ignore[attr-defined]
        ).first()

    linked, merged = last(KIND_LINK), last(KIND_MERGED)
    if linked is None or (merged is not None and merged.created_at >= linked.created_at):
        return None
    return ident.owner_id, ident.home_owner_id, ident.id


def link_status(s: Session, platform: str, user_id: str) -> tuple[Peer, ...]:
    return peers_of(s, _identity(s, platform, user_id))


# --- unlinking --------------------------------------------------------------------------------


@dataclass
class Separated:
    """One identity sent home by /unlink, and what it took along."""

    platform: str
    display_name: str
    home_owner: int
    surviving_owner: int
    returned: int = 0  # memories it brought in, back in its own memory
    changed: int = 0  # ... of which the person changed while linked (the change went along)
    deleted: int = 0  # ... of which the person deleted while linked (deleted at home too)
    stayed: int = 0  # memories saved while linked: they stay with the surviving owner


@dataclass(frozen=True)
class Unlinked:
    separated: list[Separated] = field(default_factory=list)
    identity_went_home: bool = False  # the identity that asked is the one that left


def _seal_actions_about(s: Session, owner_id: int, copy_ids: set[int]) -> None:
    """Changes made while linked that involve a memory about to leave (an edit of it, a question
    it was part of) can no longer be undone one by one: undoing them afterwards would reopen a
    question about a memory that is gone, or act on one that lives elsewhere now."""
    if not copy_ids:
        return
    touched = set(s.exec(select(MemoryEvent.action_id).where(MemoryEvent.memory_id.in_(copy_ids))))  # type: ignore[union-attr]
    questions = {
        c.id
        for c in s.exec(select(Conflict).where(Conflict.owner_id == owner_id))
        if c.new_memory_id in copy_ids or copy_ids & set(json.loads(c.old_ids_json))
    }
    for action in s.exec(select(Action).where(Action.owner_id == owner_id, Action.undoable == True)):  # noqa: E712
        if action.id in touched or (action.conflict_id is not None and action.conflict_id in questions):
            action.undoable = False
            s.add(action)


def _creation_snapshot(s: Session, copy: Memory) -> dict[str, object] | None:
    ev = s.exec(
        select(MemoryEvent)
        .where(MemoryEvent.memory_id == copy.id, MemoryEvent.kind == EventKind.CREATED.value)
        .order_by(MemoryEvent.id)  # type: ignore[arg-type]
    ).first()
    return json.loads(ev.after_json) if ev is not None and ev.after_json else None


def unlink(s: Session, platform: str, user_id: str) -> Unlinked:
    """Separate linked identities. Asked by an identity that joined another owner: it goes home.
    Asked by an identity at home that others joined: they all go home. Nothing linked: no-op."""
    ident = _identity(s, platform, user_id)
    if is_joined(ident):
        return Unlinked([_separate(s, ident)], identity_went_home=True)
    return Unlinked([_separate(s, other) for other in joined_into(s, ident.owner_id)])


def _separate(s: Session, ident: Identity) -> Separated:
    """Send one joined identity home (see bot/features/linking.py for the rules and why)."""
    assert ident.home_owner_id is not None and ident.id is not None
    surviving, home = ident.owner_id, ident.home_owner_id
    now = utcnow()
    out = Separated(ident.platform, ident.display_name, home, surviving)
    action_s = new_action(s, surviving, KIND_UNLINK, _mark(ident.id), actor=LINK_ACTOR, undoable=False)
    action_h = new_action(s, home, KIND_UNLINK, _mark(ident.id), actor=LINK_ACTOR, undoable=False)

    copies = _copies(s, surviving, home, live_only=False)
    _seal_actions_about(s, surviving, {c.id for c in copies if c.id is not None})
    # 1. questions about a copy no longer make sense in the surviving owner; voiding them puts
    #    the surviving owner's own facts they held as unsure back to current
    for c in copies:
        if c.deleted_at is None:
            void_conflicts_naming(s, surviving, c.id)
    originals = {
        m.uid: m for m in s.exec(select(Memory).where(Memory.owner_id == home))
    }
    orig_of_copy: dict[int, Memory] = {}
    for c in copies:
        o = originals.get(_uid_of(c))
        if o is not None and c.id is not None:
            orig_of_copy[c.id] = o

    # 2. carry back what changed, then take the copy out of the surviving owner for good
    for c in copies:
        orig = orig_of_copy.get(c.id or 0)
        if c.deleted_at is not None:
            if orig is not None and orig.deleted_at is None:
                before = snapshot(orig)
                orig.deleted_at = now
                touch(orig)
                s.add(orig)
                log_event(s, action_h, orig, EventKind.DELETED, before, actor=LINK_ACTOR, note="deleted while linked")
                out.deleted += 1
            if c.purged_at is None:
                purge_row(s, c)
            continue
        if orig is None or orig.deleted_at is not None:
            # the original is gone (it cannot be while dormant, but never lose what the copy holds)
            orig = Memory(owner_id=home, text=c.text, created_at=c.created_at, source=c.source, embedding=c.embedding)
            s.add(orig)
            s.flush()
            log_event(s, action_h, orig, EventKind.CREATED, None, actor=LINK_ACTOR, note="returned by /unlink")
            baseline: dict[str, object] | None = None
        else:
            baseline = _creation_snapshot(s, c)
        now_state = snapshot(c)
        changed = [f for f in SYNC_FIELDS if baseline is None or now_state.get(f) != baseline.get(f)]
        if c.status == Status.UNSURE.value and "status" in changed:
            changed.remove("status")  # unsure only meant "a question was pending here"; it is void
        if changed:
            before = snapshot(orig)
            for f in changed:
                setattr(orig, f, getattr(c, f))
            if "text" in changed:
                orig.embedding = c.embedding
            if "status" in changed:  # past now: linked to what replaced it only if that came home too
                target = orig_of_copy.get(c.replaced_by) if c.status == Status.HISTORICAL.value and c.replaced_by else None
                orig.replaced_by = target.id if target is not None else None
            orig.uses = max(orig.uses, c.uses)
            touch(orig)
            s.add(orig)
            if baseline is not None:
                log_event(s, action_h, orig, EventKind.EDITED, before, actor=LINK_ACTOR, note="changed while linked")
                out.changed += 1
        out.returned += 1
        before = snapshot(c)
        c.deleted_at = now
        touch(c)
        s.add(c)
        log_event(s, action_s, c, EventKind.DELETED, before, actor=LINK_ACTOR, note="returned by /unlink")
        purge_row(s, c)

    # 3. what was saved while linked stays with the surviving owner
    linked_at = s.exec(
        select(Action.created_at)
        .where(Action.owner_id == surviving, Action.kind == KIND_LINK, Action.summary == _mark(ident.id))
        .order_by(Action.created_at.desc())  # type: ignore[attr-defined]
    ).first()
    if linked_at is not None:
        out.stayed = int(
            s.exec(
                select(func.count())
                .select_from(Memory)
                .where(
                    Memory.owner_id == surviving,
                    Memory.deleted_at.is_(None),  # type: ignore[union-attr]
                    Memory.created_at >= linked_at,  # type: ignore[operator]
                )
            ).one()
        )

    # 4. the identity goes home; codes it asked for are void
    for code in s.exec(
        select(LinkCode).where(LinkCode.platform == ident.platform, LinkCode.user_id == ident.user_id, LinkCode.used_at.is_(None))  # type: ignore[union-attr]
    ):
        s.delete(code)
    ident.owner_id = home
    ident.home_owner_id = None
    s.add(ident)
    s.flush()
    return out
