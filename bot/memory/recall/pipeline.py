"""Recall: which memories a chat turn sees.

The read side of memory for the model, in the steps the retrieval research settled on
(bench/retrieval_lab.py, class Recipe, measured on LoCoMo):

1. keyword hits from the database's own full-text index (FTS5 / PostgreSQL), owner-scoped,
   and how common each query word is among the owner's memories;
2. when the embedding model is ready: the question without the owner's most common words is
   embedded, and the owner's vector matrix gives its nearest memories plus the cosine of every
   keyword hit (so both sides score every candidate);
3. the neighbours of every candidate in the owner's timeline (a memory saved next to a match,
   within the hour, shares a little of its score: a conversation's answer often sits one turn
   away from the words that match), and the topic of every candidate: the memories of its
   replaced_by chain, which share the best score among them (scoring.successor_boost), so
   "where do I live?" finds "I moved to Berlin" through the word "live" of the London it
   replaced; a question about the past also reads the older values a candidate replaced;
4. fusion and the five-factor score (scoring.rank_for_recall): relevance 50%, importance 15%,
   confidence 15%, recency 10% (from the owner's newest memory, gated by relevance),
   frequency 10%; identity facts win identity questions; memories saved around a date named in
   the question get a bonus;
5. assembly into labelled blocks under the budgets (context.assemble_context); historical
   memories only when the question is about the past.

Without an embedding model, step 2 is skipped and keyword relevance serves alone; recall never
fails for want of vectors. Only memories actually injected into a real chat turn get uses += 1;
benchmarks and /why read without writing. Answers without a language model
(bot/features/chat/fallback.py) are rendered from this same result (`Recalled.items`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import NamedTuple

import sqlalchemy as sa

from sqlalchemy import func, update
from sqlmodel import Session, select

from bot.memory.recall import scoring
from bot.memory.index import keyword as search
from bot.memory.recall.context import Candidate, assemble_context, recall_token_budget
from bot.storage.models import Conflict, Memory, utcnow
from bot.memory.recall.questions import is_identity_question, is_past_question, question_period, question_slots
from bot.memory.index.timeline import TimelineIndex
from bot.memory.rules.conflict import states_slot
from bot.memory.rules.frames import frame_words, kind_words, with_name_parts
from bot.memory.rules.text import content_words, lemma
from bot.memory.store import stating_other_topic

KEYWORD_CANDIDATES = 50
VECTOR_CANDIDATES = 50
RANKED_CANDIDATES = 40  # what assembly chooses from (the benchmark scores the top 20)
LIVE_STATUSES = ("current", "unsure", "historical")
MAX_SUCCESSOR_HOPS = 8  # a replacement chain longer than this is followed no further
TOPIC_CANDIDATES = 10  # the newest memories of a topic the question names (questions.question_slots)


@dataclass(frozen=True)
class RecalledMemory:
    """One memory of the context, with what a person-facing answer needs to render it honestly:
    its state, its dates, what replaced it, and the evidence that it matches the question."""

    id: int
    text: str
    status: str  # current | unsure | historical
    valid_from: date | None
    valid_until: date | None
    # the live memory at the end of its replacement chain, if any; for a possibly outdated one,
    # the newer fact a pending question asks about it
    replaced_by: int | None
    # the evidence that it or another value of its topic (the memories of one replacement chain,
    # scoring.successor_boost) answers the question:
    keyword: float  # the best full-text score; 0.0 when none shares a searchable word with it
    cosine: float | None  # the best cosine to the question; None without vectors
    relevance: float  # 0..1, relative to this question's best candidate
    successor_of: tuple[int, ...] = ()  # for a live memory, the older memories it replaced
    # "asked" when it is of a topic the question names ("how old am I?" / "I am 34"); "other"
    # when the question names a topic and it is known to be of another ("my old corolla", a car)
    topic: str = ""


@dataclass
class Recalled:
    text: str
    memory_ids: list[int] = field(default_factory=list)
    parts: dict[int, dict[str, float]] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)
    ranked: list[int] = field(default_factory=list)  # best first, before budgets and blocks
    mode: str = "keyword"  # keyword | hybrid
    items: list[RecalledMemory] = field(default_factory=list)  # the memory_ids, in that order
    past_question: bool = False  # whether historical memories were allowed in


@dataclass(frozen=True)
class KeywordStage:
    keyword: dict[int, float]
    counts: dict[str, int]  # memories holding each query word ({} when not asked for)
    total: int  # the owner's memories; when counts were not asked for, capped past what `few` needs
    few: tuple[int, ...] = ()  # all of a person's memories, when they are only a few
    topic: tuple[int, ...] = ()  # memories of a topic the question names (already in `keyword`)
    elsewhere: frozenset[int] = frozenset()  # keyword hits of another topic, when the question names one
    asked: frozenset[str] = frozenset()  # the topics the question asks about (questions.question_slots)


def keyword_stage(
    s: Session, owner_id: int, query: str, dialect: str, few_limit: int = 0, *, with_counts: bool = True
) -> KeywordStage:
    """Step 1, in one transaction: keyword hits and the owner's word counts. A person with at
    most `few_limit` memories gets all of them as candidates: they all fit the budget, and a
    question that shares no word with them ("any ideas for the weekend?") may still need them.

    The word counts only serve to leave a person's most common words out of the question before
    it is embedded; a caller that has the question's vector already (or no vectors at all)
    passes with_counts=False and saves their statement (a count per word, which grows with the
    person's memory)."""
    conn = s.connection()
    if with_counts:
        counts, total = search.term_counts(conn, owner_id, search.query_terms(query), dialect)
    else:
        counts, total = {}, search.count_memories(conn, owner_id, cap=few_limit * 2 + 1) if few_limit else 0
    hits = dict(search.keyword_search(conn, owner_id, query, KEYWORD_CANDIDATES, dialect))
    kin = kin_words(query)
    if kin:  # "do I have kids?" also matches "I have a son", "do I have a dog?" "I have a beagle"
        best = max(hits.values(), default=1.0)
        for mid, score in search.keyword_search(conn, owner_id, " ".join(kin), KEYWORD_CANDIDATES, dialect,
                                                max_terms=len(kin) + 1):
            hits[mid] = max(hits.get(mid, 0.0), min(score, best))
        for mid in named_by_parts(conn, owner_id, kin, dialect):
            # read as the kind itself: as good a match as the question's best word (a part
            # such as "pit" scores little where it is common, as in a fire pit beside it)
            hits[mid] = max(hits.get(mid, 0.0), best)
    asked = question_slots(query)
    topic = topic_hits(s, owner_id, asked)
    elsewhere: frozenset[int] = frozenset()
    if topic:  # a question about a topic matches its facts as well as its best word match does
        elsewhere = other_topics(s, owner_id, sorted(set(hits) - set(topic)), asked)
        best = max(hits.values(), default=1.0)
        for mid in topic:
            hits[mid] = max(hits.get(mid, 0.0), best)
    few: tuple[int, ...] = ()
    if few_limit and total <= few_limit * 2:
        live = s.exec(
            select(Memory.id)
            .where(
                Memory.owner_id == owner_id,
                Memory.deleted_at.is_(None),  # type: ignore[union-attr]
                Memory.archived == False,  # noqa: E712
                Memory.status.in_(("current", "unsure")),  # type: ignore[attr-defined]
            )
            .limit(few_limit + 1)
        ).all()
        if len(live) <= few_limit:
            few = tuple(int(i) for i in live)
    return KeywordStage(hits, counts, total, few, topic, elsewhere, asked)


def kin_words(query: str) -> list[str]:
    """The words of the kinds a question names that it does not say itself: "kids" gives "son",
    "daughter", ...; "dog" the breeds (bot/memory/rules/frames.py). Why: without vectors (none
    configured, or still loading) the keyword search is all there is, and "I have a beagle"
    answers "do I have a dog?" though they share no word."""
    words = content_words(query)
    return sorted(kind_words(words) - words - {lemma(w) for w in words})


def named_by_parts(conn: sa.Connection, owner_id: int, kin: list[str], dialect: str) -> list[int]:
    """The facts a search for the parts of a two-word name among `kin` finds ("pit" of "pit
    mix") that read as one of `kin` themselves (bot/memory/rules/frames.frame_words). Why: the
    index holds "I have a pit mix called Tank" as "pit" and "mix", and "pit" alone is no pet:
    "we built a fire pit" shares the word and not the dog."""
    words = frozenset(kin)
    parts = sorted(with_name_parts(words) - words)
    if not parts:
        return []
    found = search.keyword_search(conn, owner_id, " ".join(parts), KEYWORD_CANDIDATES, dialect,
                                  max_terms=len(parts) + 1)
    if not found:
        return []
    texts = {int(r[0]): r[1] for r in search.memory_rows(conn, owner_id, [mid for mid, _ in found], _TEXT_COLUMNS)}
    return [mid for mid, _ in found if mid in texts and frame_words(texts[mid]) & words]


def topic_hits(s: Session, owner_id: int, slots: frozenset[str]) -> tuple[int, ...]:
    """The newest live memories saved with a topic (`Memory.slot`) the question asks about:
    "what do I do for work?" reaches "I'm a nurse now" and "I work at Google" (topic job),
    which share no word with it and may sit under the answer's cosine threshold. Historical
    ones too: the past-question rule of assembly decides whether they are shown."""
    if not slots:
        return ()
    live = (
        Memory.owner_id == owner_id,
        Memory.deleted_at.is_(None),  # type: ignore[union-attr]
        Memory.archived == False,  # noqa: E712
        Memory.status.in_(LIVE_STATUSES),  # type: ignore[attr-defined]
    )
    ids = s.exec(
        select(Memory.id)
        .where(*live, Memory.slot.in_(sorted(slots)))  # type: ignore[union-attr]
        .order_by(Memory.id.desc())  # type: ignore[union-attr]
        .limit(TOPIC_CANDIDATES)
    ).all()
    # a fact saved under another topic that states an asked one too: "I'm 34 and I live in
    # Leeds" is saved as a home, and answers "how old am I?" (the save reads it the same way)
    compound = stating_other_topic(s, owner_id, slots, LIVE_STATUSES)
    return tuple(int(i) for i in [*ids, *compound])


def other_topics(s: Session, owner_id: int, ids: list[int], asked: frozenset[str]) -> frozenset[int]:
    """Which of these memories are saved with a topic other than the ones asked about. Why: a
    word a topic question is asked with can stand in a fact of another topic ("how old am I?"
    and "my old corolla needs tires"); an answer from memory shows such a fact only on stronger
    evidence than the shared word (bot/features/chat/answer_lines.py)."""
    if not ids or not asked:
        return frozenset()
    rows = s.exec(
        select(Memory.id).where(
            Memory.owner_id == owner_id,
            Memory.id.in_(ids),  # type: ignore[union-attr]
            Memory.slot.is_not(None),  # type: ignore[union-attr]
            Memory.slot.not_in(sorted(asked)),  # type: ignore[union-attr]
        )
    ).all()
    return frozenset(int(i) for i in rows)


class Row(NamedTuple):
    """One recallable memory as recall reads it (the columns of _DETAIL_COLUMNS, in order)."""

    id: int
    text: str
    status: str
    category: str
    valid_from: object
    valid_until: object
    created_at: datetime | None
    importance: float
    confidence: float
    uses: int
    replaced_by: int | None
    slot: str | None = None  # the topic it was saved under (Memory.slot)


@dataclass(frozen=True)
class DetailStage:
    neighbours: dict[int, list[tuple[int, int]]]
    rows: dict[int, Row]
    newest: datetime | None
    # historical id -> its live successor; possibly outdated id -> the newer fact a pending question
    # asks about it (_questioned)
    successors: dict[int, int] = field(default_factory=dict)


_DETAIL_COLUMNS = tuple(
    Memory.__table__.c[name]  # type: ignore[attr-defined]
    for name in ("id", "text", "status", "category", "valid_from", "valid_until", "created_at", "importance",
                 "confidence", "uses", "replaced_by", "slot")
)


_TEXT_COLUMNS = tuple(Memory.__table__.c[name] for name in ("id", "text"))  # type: ignore[attr-defined]


_NEWEST_PROBE = (
    "SELECT (SELECT max(id) FROM memory WHERE owner_id = :owner), "
    "(SELECT 1 FROM memory WHERE id = :nid AND owner_id = :owner AND deleted_at IS NULL)"
)


class NewestCache:
    """created_at of each owner's newest live memory, kept between recalls.

    Why: MAX(created_at) over all of a person's memories reads every one of their rows (there
    is no index on created_at), growing linearly with their memory, on every chat turn.
    Rows only ever get added with a new, larger id and created_at never changes, so a cached
    value stays right as long as (a) the newest row is still live and (b) no new id appeared;
    both are checked on every use with index-only lookups, and new rows are read as an id
    range. What the checks cannot see is a deleted memory coming back (undo) in another
    process: the service forgets an owner's entry on its own undo, restore, import and
    forget-me, and every entry is read afresh at least every `ttl` seconds.
    """

    def __init__(self, ttl: float = 60.0) -> None:
        self.ttl = ttl
        # owner -> (largest id seen, id of the newest live memory, its created_at, read at)
        self._entries: dict[int, tuple[int | None, int | None, datetime | None, float]] = {}

    def forget(self, owner_id: int) -> None:
        self._entries.pop(owner_id, None)

    def get(self, s: Session, owner_id: int) -> datetime | None:
        return self.get_with_max(s, owner_id)[0]

    def get_with_max(self, s: Session, owner_id: int) -> tuple[datetime | None, int | None]:
        """(the newest live memory's created_at, the owner's largest memory id as read now): the
        timeline's own check needs the same number, so recall reads it once."""
        conn = s.connection()
        entry = self._entries.get(owner_id)
        params = {"owner": owner_id, "nid": entry[1] if entry is not None and entry[1] is not None else -1}
        if conn.dialect.name == "sqlite":
            probe = search.sqlite_rows(conn, _NEWEST_PROBE, params)[0]
        else:
            probe = conn.execute(sa.text(_NEWEST_PROBE), params).one()
        max_id = None if probe[0] is None else int(probe[0])
        now = time.monotonic()
        if (
            entry is None
            or now - entry[3] > self.ttl
            or (entry[1] is not None and probe[1] is None)  # the newest is gone
            or (max_id or 0) < (entry[0] or 0)  # rows went away: read afresh
        ):
            newest_id, newest = _newest_live(s, owner_id, None)
            self._entries[owner_id] = (max_id, newest_id, newest, now)
            return newest, max_id
        seen, newest_id, newest, read_at = entry
        if max_id is not None and max_id != seen:
            new_id, new_when = _newest_live(s, owner_id, seen)
            if new_when is not None and (newest is None or new_when > newest):
                newest_id, newest = new_id, new_when
            self._entries[owner_id] = (max_id, newest_id, newest, read_at)
        return newest, max_id


def _newest_live(s: Session, owner_id: int, after_id: int | None) -> tuple[int | None, datetime | None]:
    """(id, created_at) of the owner's newest live memory, among ids above `after_id` if given."""
    stmt = select(Memory.id, Memory.created_at).where(
        Memory.owner_id == owner_id, Memory.deleted_at.is_(None)  # type: ignore[union-attr]
    )
    if after_id is not None:
        stmt = stmt.where(Memory.id > after_id)  # type: ignore[operator]
    row = s.exec(stmt.order_by(Memory.created_at.desc(), Memory.id.desc()).limit(1)).first()  # type: ignore[union-attr, attr-defined]
    return (None, None) if row is None else (int(row[0]), row[1])


def detail_stage(
    s: Session,
    owner_id: int,
    candidate_ids: list[int],
    dialect: str,
    newest_cache: NewestCache | None = None,
    timeline: TimelineIndex | None = None,
    past_question: bool = False,
) -> DetailStage:
    """Steps 3 and the facts of step 4, in one transaction: the neighbours of the candidates on the
    person's timeline (from the in-process timeline when given, else read around them), what
    scoring and assembly need to know about the candidates and their neighbours, and the
    candidates' topics (the live memory at the end of each historical one's replacement chain;
    for a question about the past, also the older values the candidates replaced)."""
    conn = s.connection()
    params = scoring.FusionParams()
    known_max: int | None | object = ...  # unknown: the timeline reads it itself
    if newest_cache is not None:
        newest, known_max = newest_cache.get_with_max(s, owner_id)
    else:
        newest = s.exec(
            select(func.max(Memory.created_at)).where(Memory.owner_id == owner_id, Memory.deleted_at.is_(None))  # type: ignore[union-attr]
        ).first()
    neighbours: dict[int, list[tuple[int, int]]]
    if not candidate_ids:
        neighbours = {}
    elif timeline is not None:
        neighbours = timeline.neighbours(conn, owner_id, candidate_ids, params.neighbour_window,
                                         params.neighbour_max_gap, max_id=known_max)
    else:
        around = search.timeline_around(conn, owner_id, candidate_ids, params.neighbour_window)
        neighbours = scoring.neighbour_pairs(around, params.neighbour_window, params.neighbour_max_gap) if around else {}
    # only the candidates and their neighbours can be scored: the rest of the timeline was read
    # to learn that it is not next to them (saved too far apart), so its details are not read
    wanted = set(candidate_ids)
    for mid in candidate_ids:
        wanted.update(other for other, _ in neighbours.get(mid, ()))
    rows = _recallable(search.memory_rows(conn, owner_id, sorted(wanted), _DETAIL_COLUMNS))
    if past_question:
        _read_predecessors(conn, owner_id, rows, candidate_ids)
    successors = _successors(conn, owner_id, rows, candidate_ids)
    successors.update(_questioned(s, owner_id, rows, successors))
    return DetailStage(neighbours, rows, newest, successors)


def _questioned(s: Session, owner_id: int, rows: dict[int, Row], successors: dict[int, int]) -> dict[int, int]:
    """{possibly outdated id: the newer memory a pending question asks about it}, read into `rows`.

    Why: while "does 'we sold the polo, bikes only now' replace 'I drive an old VW Polo'?" waits,
    "what do I drive?" would show the Polo as possibly outdated and not the fact that put it in
    question, which shares no word with the question. The newer memory is its topic's would-be
    present value, so it joins the topic like a settled successor (scoring.successor_boost) and
    an answer shows the two side by side. Only read when a candidate is unsure (rare)."""
    unsure = {mid for mid, row in rows.items() if row.status == "unsure"}
    if not unsure:
        return {}
    newer: dict[int, int] = {}
    pending = s.exec(select(Conflict.new_memory_id, Conflict.old_ids_json).where(
        Conflict.owner_id == owner_id, Conflict.status == "pending").order_by(Conflict.id))  # type: ignore[arg-type]
    for new_id, old_json in pending:
        for old in json.loads(old_json):
            if int(old) in unsure and int(new_id) != int(old):
                newer[int(old)] = int(new_id)  # the newest question wins
    missing = sorted(set(newer.values()) - rows.keys())
    if missing:
        rows.update(_recallable(search.memory_rows(s.connection(), owner_id, missing, _DETAIL_COLUMNS)))
    out: dict[int, int] = {}
    for old, new in newer.items():
        end = successors.get(new, new)  # the newer fact was itself replaced since
        if end in rows and rows[end].status != "historical" and end != old:
            out[old] = end
    return out


def _read_predecessors(conn: sa.Connection, owner_id: int, rows: dict[int, Row], candidate_ids: list[int]) -> None:
    """Read into `rows` the older memories that the candidates replaced, back along their
    chains: a question about the past wants every past value of a topic whose present value
    matched ("where was I based before?" shares a word only with "I'm based in Lyon now")."""
    frontier = [mid for mid in candidate_ids if mid in rows]
    for _ in range(MAX_SUCCESSOR_HOPS):
        if not frontier:
            break
        found = _recallable(search.predecessor_rows(conn, owner_id, frontier, _DETAIL_COLUMNS))
        frontier = [mid for mid in found if mid not in rows]
        rows.update({mid: found[mid] for mid in frontier})
        if not frontier:
            break


def _recallable(raw: list[tuple[object, ...]]) -> dict[int, Row]:
    rows: dict[int, Row] = {}
    for r in raw:
        row = Row._make(r)
        if row.status not in LIVE_STATUSES or not row.text:
            continue  # cannot be recalled
        rows[int(row.id)] = row
    return rows


def _successors(conn: sa.Connection, owner_id: int, rows: dict[int, Row], candidate_ids: list[int]) -> dict[int, int]:
    """{historical id: the live memory at the end of its replaced_by chain}, for every historical
    row; the chains of the candidates are read into `rows` as well (a neighbour's chain is not:
    it has no score of its own to pass on). Usually nothing to read: a chain's members are often
    candidates already, and a person without settled changes has none."""
    tried: set[int] = set()
    chain = {mid for mid in candidate_ids if mid in rows}
    for _ in range(MAX_SUCCESSOR_HOPS):
        nexts = {int(rows[mid].replaced_by) for mid in chain  # type: ignore[arg-type]
                 if rows[mid].status == "historical" and rows[mid].replaced_by}
        missing = sorted(nexts - rows.keys() - tried)
        chain = nexts & rows.keys()
        if missing:
            tried.update(missing)  # a deleted or archived successor is not read again
            found = _recallable(search.memory_rows(conn, owner_id, missing, _DETAIL_COLUMNS))
            rows.update(found)
            chain |= found.keys()
        if not chain:
            break
    out: dict[int, int] = {}
    for mid, row in rows.items():
        if row.status != "historical":
            continue
        seen, nxt = {mid}, row.replaced_by
        while nxt is not None and int(nxt) in rows and int(nxt) not in seen:
            after = rows[int(nxt)]
            if after.status != "historical":
                out[mid] = int(after.id)
                break
            seen.add(int(nxt))
            nxt = after.replaced_by
    return out


def gather_stage(
    s: Session,
    owner_id: int,
    query: str,
    dialect: str,
    few_limit: int,
    kw: KeywordStage | None,
    vector_hits: Callable[[list[int]], dict[int, float]] | None,
    newest_cache: NewestCache | None = None,
    timeline: TimelineIndex | None = None,
    past: bool = False,
) -> tuple[KeywordStage, dict[int, float], DetailStage]:
    """Steps 1 to 3 in one transaction (one trip to the database thread): the keyword stage
    unless already done (`kw`), the vector hits (`vector_hits(keyword ids)`, in-process), the
    details of every candidate. `past`: read the question as one about the past whatever its
    words."""
    if kw is None:  # the question's vector is known already, or there are no vectors
        kw = keyword_stage(s, owner_id, query, dialect, few_limit, with_counts=False)
    vector = vector_hits(list(kw.keyword)) if vector_hits is not None else {}
    candidates = sorted(kw.keyword.keys() | vector.keys() | set(kw.few))
    detail = detail_stage(s, owner_id, candidates, dialect, newest_cache, timeline,
                          past_question=past or is_past_question(query))
    if kw.asked and detail.successors:
        detail = replace(detail, successors=topic_successors(detail.successors, detail.rows, kw.asked))
    return kw, vector, detail


def topic_successors(successors: dict[int, int], rows: dict[int, Row], asked: frozenset[str]) -> dict[int, int]:
    """The replacement links that still join a topic the question asks about: an older fact
    that states an asked topic keeps its successor only if the successor states it too.

    Why: "turned 35 yesterday" marked "I'm 34 and I live in Leeds" past (the person chose so
    against no recommendation); "where do I live?" then found the birthday through the word
    "live" of the fact it replaced and showed it as the home. A successor is the present value
    of the topics it states, not of every topic of the fact it replaced."""
    def states(row: Row, slot: str) -> bool:
        return row.slot == slot or states_slot(row.text, slot)

    return {
        old: new for old, new in successors.items()
        if not any(states(rows[old], slot) and not states(rows[new], slot) for slot in asked)
    }


def rank(
    query: str,
    keyword: dict[int, float],
    vector: dict[int, float],
    detail: DetailStage,
    weights: scoring.Weights,
    half_life_days: float,
    few: tuple[int, ...] = (),
) -> list[tuple[int, scoring.ScoreParts]]:
    """Step 4 (pure): every recallable candidate with its score parts, best first."""
    facts = detail.rows  # each Row carries what scoring.Scorable asks for
    ranked = scoring.rank_for_recall(
        keyword,
        vector,
        facts,
        neighbours=detail.neighbours,
        period=question_period(query),
        identity_question=is_identity_question(query),
        newest=detail.newest,
        half_life_days=half_life_days,
        weights=weights,
        successors=detail.successors,
    )
    # the rest of a person's few memories, after every match, ranked by what they are
    seen = {mid for mid, _ in ranked}
    identity_q = is_identity_question(query)
    rest = [
        (
            mid,
            scoring.score_memory(
                0.0, f.importance, f.confidence, scoring.recency_score(f.created_at, detail.newest, half_life_days),
                scoring.frequency_score(f.uses), weights, identity=identity_q and f.category == "identity",
            ),
        )
        for mid, f in facts.items()
        if mid in few and mid not in seen
    ]
    rest.sort(key=lambda kv: (-kv[1].total, -kv[0]))
    return ranked + rest


def assemble(
    query: str,
    ranked: list[tuple[int, scoring.ScoreParts]],
    detail: DetailStage,
    *,
    max_memories: int,
    max_tokens: int,
    model_context_tokens: int,
    mode: str,
    keyword: dict[int, float] | None = None,
    vector: dict[int, float] | None = None,
    topic: tuple[int, ...] = (),
    elsewhere: frozenset[int] = frozenset(),
    past: bool = False,
) -> Recalled:
    """Step 5 (pure): the labelled blocks within the budgets; `keyword` and `vector` (the
    candidates' raw scores) go into the items, as the evidence an answer for a person needs;
    `topic` and `elsewhere` (KeywordStage) mark the items of the asked topic and of another."""
    top = ranked[:RANKED_CANDIDATES]
    candidates = [
        Candidate(
            id=mid,
            text=detail.rows[mid].text,
            status=detail.rows[mid].status,
            score=parts.total,
            valid_from=detail.rows[mid].valid_from,  # type: ignore[arg-type]
            valid_until=detail.rows[mid].valid_until,  # type: ignore[arg-type]
        )
        for mid, parts in top
    ]
    past = past or is_past_question(query)
    ctx = assemble_context(
        candidates,
        past_question=past,
        max_memories=max_memories,
        max_tokens=recall_token_budget(model_context_tokens, max_tokens),
    )
    parts = dict(top)
    keyword, vector = keyword or {}, vector or {}
    topics: dict[int, list[int]] = {}  # a live memory -> it and the older memories it replaced
    for old, new in detail.successors.items():
        topics.setdefault(new, [new]).append(old)
    items = []
    for i in ctx.memory_ids:
        row = detail.rows[i]
        if topics:
            end = detail.successors.get(i, i)
            members = topics.get(end, [i])
            cosines = [vector[j] for j in members if j in vector]
            best_keyword = max(keyword.get(j, 0.0) for j in members)
            olds = tuple(sorted(j for j in members if j != i)) if end == i else ()
            # a word lent by a member of another topic lends that topic too ("how old am I?"
            # matched "my old VW Polo" only by "old": the sale that put it in question is no age)
            other = any(j in elsewhere for j in members)
        else:  # no settled changes among the candidates (the usual case)
            cosines = [vector[i]] if i in vector else []
            best_keyword, olds = keyword.get(i, 0.0), ()
            other = i in elsewhere
        items.append(RecalledMemory(
            id=i, text=row.text, status=row.status,
            valid_from=row.valid_from, valid_until=row.valid_until,  # type: ignore[arg-type]
            replaced_by=detail.successors.get(i),
            keyword=float(best_keyword),
            cosine=float(max(cosines)) if cosines else None,
            relevance=float(parts[i].relevance),
            successor_of=olds,
            topic="asked" if i in topic else "other" if other else "",
        ))
    return Recalled(
        text=ctx.text,
        memory_ids=list(ctx.memory_ids),
        parts={i: parts[i].as_dict() for i in ctx.memory_ids},
        texts={i: detail.rows[i].text for i in ctx.memory_ids},
        ranked=[mid for mid, _ in ranked],
        mode=mode,
        items=items,
        past_question=past,
    )


def record_use(s: Session, owner_id: int, memory_ids: list[int]) -> None:
    """uses += 1 for what a real chat turn injected. A plain UPDATE: being recalled is not a
    change the person made, so it does not move the row's version."""
    if not memory_ids:
        return
    s.execute(
        update(Memory)
        .where(Memory.owner_id == owner_id, Memory.id.in_(memory_ids))  # type: ignore[union-attr, arg-type]
        .values(uses=Memory.uses + 1, last_used_at=utcnow())
        .execution_options(synchronize_session=False)
    )
