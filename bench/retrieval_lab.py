"""Research harness for recall on LoCoMo-format data (not part of the bot).

Why it exists: to choose the recall recipe (keyword query form, fusion, neighbour boost, dates,
recency) by measurement, with a split that keeps us honest: conversations 0-4 are the
development half (every constant was chosen there, see --grid), 5-9 the check half; every
variant is reported on dev, check and all. Nothing here looks at the content of particular
questions or turns.

Setup mirrors production: one in-memory SQLite database with the memory table and the FTS5
table + trigger of bot/storage/db.py (all conversations in it, each its own owner, so FTS5
statistics are shared across owners as in the bot), MiniLM vectors of turns and questions
cached under /tmp (re-runs take no model time), and bm25s over the same turns as the baseline.
The "FINAL" rows run the product's own functions end to end (search.keyword_search,
search.term_counts / vector_query_text, VectorIndex, search.timeline_around,
scoring.rank_for_recall); the class Recipe lists the steps recall.py must take.

Research log (recall@8, all 1,536 questions):
  bm25s 0.48 | dense 0.41 | RRF(bm25s, dense) 0.53          - the issue's baselines
  FTS5 porter, all words OR-ed 0.55; stop words removed 0.59  - stemming + query clean-up
  dense with the owner's common words (the speakers' names) taken out of the question 0.56
  score fusion (keyword/max, cosine/max; 0.4/0.6) 0.645 vs RRF k=60 of the same lists 0.62
  + neighbour boost 0.3 (two saves either side, same hour) + date bonus 0.4 -> 0.707
  + gated recency (10%, half-life 30 days from the owner's newest memory) -> 0.696 (FINAL)
Dropping candidates' owner-common words from the keyword query did not help (BM25's idf does
it already); dropping go/went/make/say as stop words hurt slightly; the constants sit on flat
plateaus (--grid).

Run:  python -m bench.retrieval_lab [--data FILE] [--cache DIR] [--only NAME,...] [--grid]
      [--explore]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from bench.datasets import cache_dir, data_file
from bench.locomo import Conversation, Question, hit_at_k, load_locomo, recall_at_k
from bot.memory.recall import scoring
from bot.memory.recall.questions import is_identity_question, question_period
from bot.memory.index.keyword import (
    fts_query,
    keyword_search,
    query_terms,
    term_counts,
    timeline_around,
    vector_query_text,
)
from bot.memory.index.vectors import VectorIndex

DEFAULT_DATA = str(data_file("locomo10.json"))
DEFAULT_CACHE = str(cache_dir("retrieval-lab"))
KS = (5, 8, 10, 20)
TOP = 20


# --------------------------------------------------------------------------- embeddings cache
def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """MiniLM vectors by text hash, stored as one .npz; only missing texts are encoded."""

    def __init__(self, cache_dir: str) -> None:
        self.path = Path(cache_dir) / "minilm.npz"
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            for k, v in zip(data["keys"], data["vecs"]):
                self.vectors[str(k)] = v
        self._model = None

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            from bot.memory.embeddings.encoder import default_model_path

            self._model = SentenceTransformer(str(default_model_path()), device="cpu")
        return self._model.encode(texts, batch_size=64, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False).astype(np.float32)

    def get(self, texts: Sequence[str]) -> np.ndarray:
        missing = sorted({t for t in texts if _key(t) not in self.vectors})
        if missing:
            t0 = time.time()
            print(f"[cache] encoding {len(missing)} texts ...", file=sys.stderr, flush=True)
            vecs = self._encode(missing)
            for t, v in zip(missing, vecs):
                self.vectors[_key(t)] = v
            self.path.parent.mkdir(parents=True, exist_ok=True)
            keys = np.array(list(self.vectors.keys()))
            np.savez(self.path, keys=keys, vecs=np.stack([self.vectors[k] for k in keys]))
            print(f"[cache] done in {time.time() - t0:.1f}s", file=sys.stderr, flush=True)
        return np.stack([self.vectors[_key(t)] for t in texts])


# --------------------------------------------------------------------------- the corpus
FTS_DDL = """
CREATE TABLE memory (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, text TEXT NOT NULL,
                     status TEXT NOT NULL DEFAULT 'current', archived BOOLEAN NOT NULL DEFAULT 0,
                     category TEXT, created_at TEXT, deleted_at TEXT);
CREATE INDEX ix_memory_owner ON memory(owner_id, id);
CREATE VIRTUAL TABLE memory_fts USING fts5(owner_tag, text,
                     tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
  INSERT INTO memory_fts(rowid, owner_tag, text) VALUES (new.id, 'o' || new.owner_id, new.text);
END;
"""


@dataclass
class Corpus:
    """One conversation as the bot would hold it: owner id, memory ids, vectors, dates."""

    conv: Conversation
    owner_id: int
    ids: np.ndarray  # memory id of each turn, in conversation order
    vecs: np.ndarray  # (n, 384) unit rows
    ts: np.ndarray  # created_at as days (float), nan when unknown
    session: np.ndarray
    id_to_pos: dict[int, int]


def build(convs: list[Conversation], cache: EmbeddingCache,
          db: sqlite3.Connection) -> tuple[sqlite3.Connection, list[Corpus]]:
    db.executescript(FTS_DDL)
    corpora = []
    next_id = 1
    for n, conv in enumerate(convs):
        owner = 1000 + n
        ids = []
        for t in conv.turns:
            db.execute("INSERT INTO memory(id, owner_id, text, created_at) VALUES (?,?,?,?)",
                       (next_id, owner, t.text, t.created_at.isoformat(sep=" ") if t.created_at else None))
            ids.append(next_id)
            next_id += 1
        vecs = cache.get([t.text for t in conv.turns])
        ts = np.array([t.created_at.timestamp() / 86400 if t.created_at else np.nan
                       for t in conv.turns])
        corpora.append(Corpus(conv, owner, np.array(ids), vecs, ts,
                              np.array([t.session for t in conv.turns]),
                              {i: p for p, i in enumerate(ids)}))
    db.commit()
    return db, corpora


# --------------------------------------------------------------------------- candidate sources
def fts_rank(db: sqlite3.Connection, c: Corpus, match: str | None, limit: int) -> list[int]:
    """Positions of turns, best first, by FTS5 bm25 (owner-scoped)."""
    if not match:
        return []
    rows = db.execute(
        "SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, 0.0, 1.0)"
        " LIMIT ?", (f'owner_tag : "o{c.owner_id}" AND text : ({match})', limit)).fetchall()
    return [c.id_to_pos[r[0]] for r in rows]


def fts_scored(db: sqlite3.Connection, c: Corpus, match: str | None, limit: int) -> list[tuple[int, float]]:
    if not match:
        return []
    rows = db.execute(
        "SELECT rowid, -bm25(memory_fts, 0.0, 1.0) FROM memory_fts WHERE memory_fts MATCH ?"
        " ORDER BY bm25(memory_fts, 0.0, 1.0) LIMIT ?",
        (f'owner_tag : "o{c.owner_id}" AND text : ({match})', limit)).fetchall()
    return [(c.id_to_pos[r[0]], float(r[1])) for r in rows]


def dense_scores(c: Corpus, qvec: np.ndarray) -> np.ndarray:
    return c.vecs @ qvec


def top_positions(scores: np.ndarray, k: int) -> list[int]:
    k = min(k, len(scores))
    idx = np.argpartition(-scores, k - 1)[:k]
    return [int(i) for i in idx[np.argsort(-scores[idx], kind="stable")]]


# --------------------------------------------------------------------------- evaluation
Method = Callable[[Corpus, Question, np.ndarray], list[int]]


def run_method(corpora: list[Corpus], qvecs: dict[str, np.ndarray], method: Method,
               which: Sequence[int]) -> list[tuple[int, int, list[str], tuple[str, ...]]]:
    """(conversation index, category, top-20 dia_ids, evidence) for every scored question."""
    out = []
    for ci in which:
        c = corpora[ci]
        for q in c.conv.scored_questions():
            ranked_pos = method(c, q, qvecs[q.question])[:TOP]
            out.append((ci, q.category, [c.conv.turns[p].dia_id for p in ranked_pos], q.evidence))
    return out


def summarise(rows: Sequence[tuple[int, int, list[str], tuple[str, ...]]],
              which: Sequence[int]) -> dict[str, float]:
    """recall@5/8/10/20, hit@8 and recall@8 by category over the questions of `which`."""
    keep = set(which)
    sums = {f"r@{k}": 0.0 for k in KS} | {"hit@8": 0.0}
    by_cat: dict[int, list[float]] = {}
    n = 0
    for ci, cat, ranked, evidence in rows:
        if ci not in keep:
            continue
        for k in KS:
            sums[f"r@{k}"] += recall_at_k(ranked, evidence, k)
        sums["hit@8"] += hit_at_k(ranked, evidence, 8)
        by_cat.setdefault(cat, []).append(recall_at_k(ranked, evidence, 8))
        n += 1
    out = {k: v / max(n, 1) for k, v in sums.items()}
    for cat in sorted(by_cat):
        out[f"c{cat}"] = sum(by_cat[cat]) / len(by_cat[cat])
    out["n"] = n
    return out


def evaluate(corpora: list[Corpus], qvecs: dict[str, np.ndarray], method: Method,
             which: Sequence[int]) -> dict[str, float]:
    return summarise(run_method(corpora, qvecs, method, which), which)


# --------------------------------------------------------------------------- methods
def make_bm25s(corpora: list[Corpus]) -> Method:
    import bm25s

    retrievers = {}
    for c in corpora:
        r = bm25s.BM25()
        r.index(bm25s.tokenize([t.text for t in c.conv.turns], stopwords="en", show_progress=False),
                 show_progress=False)
        retrievers[c.owner_id] = r

    def run(c: Corpus, q: Question, qv: np.ndarray) -> list[int]:
        r = retrievers[c.owner_id]
        toks = bm25s.tokenize([q.question], stopwords="en", show_progress=False)
        res, _ = r.retrieve(toks, k=min(TOP, len(c.conv.turns)), show_progress=False)
        return [int(x) for x in res[0]]

    return run


def naive_match(text: str) -> str | None:
    toks = re.findall(r"\w+", text.lower())
    return " OR ".join(f'"{t}"' for t in dict.fromkeys(toks)) or None


def rrf(lists: Sequence[Sequence[int]], weights: Sequence[float], k: float) -> dict[int, float]:
    out: dict[int, float] = {}
    for lst, w in zip(lists, weights):
        for r, p in enumerate(lst):
            out[p] = out.get(p, 0.0) + w / (k + r + 1)
    return out


def ranked(scores: dict[int, float]) -> list[int]:
    return [p for p, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def neighbour_boost(scores: dict[int, float], c: Corpus, alpha: float, window: int = 1) -> dict[int, float]:
    """score'(i) = score(i) + alpha * max(score(j) for j within `window` turns, same session)."""
    out = dict(scores)
    for p, s in scores.items():
        for d in range(1, window + 1):
            for j in (p - d, p + d):
                if 0 <= j < len(c.ids) and c.session[j] == c.session[p]:
                    out[j] = max(out.get(j, 0.0), scores.get(j, 0.0) + alpha * s)
    return out


_DF: dict[tuple[int, str], int] = {}


def owner_df(db: sqlite3.Connection, c: Corpus, term: str) -> int:
    key = (c.owner_id, term)
    if key not in _DF:
        _DF[key] = db.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?",
                              (f'owner_tag : "o{c.owner_id}" AND text : "{term}"',)).fetchone()[0]
    return _DF[key]


def pruned_terms(db: sqlite3.Connection, c: Corpus, text: str, max_share: float) -> list[str]:
    terms = query_terms(text)
    n = len(c.ids)
    kept = [t for t in terms if owner_df(db, c, t) <= max_share * n]
    return kept


def match_of(terms: list[str]) -> str | None:
    return " OR ".join(f'"{t}"' for t in terms) or None


def add_experiments(methods: dict[str, Method], db: sqlite3.Connection, corpora: list[Corpus]) -> None:
    for share in (0.05, 0.1, 0.2, 0.3):
        methods[f"fts5 prune>{share}"] = (lambda sh: lambda c, q, v: fts_rank(
            db, c, match_of(pruned_terms(db, c, q.question, sh)), TOP))(share)
    for k in (10, 30, 60):
        for wd in (0.5, 1.0):
            methods[f"rrf fts5+dense k{k} wd{wd}"] = (lambda k, wd: lambda c, q, v: ranked(rrf(
                [fts_rank(db, c, fts_query(q.question), 50), top_positions(dense_scores(c, v), 50)],
                [1, wd], k)))(k, wd)


def cc_scores(db, c: Corpus, q: Question, v: np.ndarray, a: float, nk: int = 50, nd: int = 50,
              cos_norm: str = "raw", text: str | None = None) -> dict[int, float]:
    """Convex combination: a * bm25/max(bm25) + (1-a) * normalised cosine, over the union."""
    kw = dict(fts_scored(db, c, fts_query(text or q.question), nk))
    dense = dense_scores(c, v)
    cand = set(kw) | set(top_positions(dense, nd))
    mx = max(kw.values()) if kw else 1.0
    cs = {p: float(dense[p]) for p in cand}
    if cos_norm == "minmax" and cs:
        lo, hi = min(cs.values()), max(cs.values())
        cs = {p: (x - lo) / (hi - lo + 1e-9) for p, x in cs.items()}
    elif cos_norm == "top":
        hi = max(cs.values())
        cs = {p: max(x, 0) / hi for p, x in cs.items()}
    return {p: a * kw.get(p, 0.0) / mx + (1 - a) * cs[p] for p in cand}


def add_experiments2(methods: dict[str, Method], db, corpora) -> None:
    for a in (0.3, 0.5, 0.7):
        for norm in ("raw", "minmax", "top"):
            methods[f"cc a{a} {norm}"] = (lambda a, norm: lambda c, q, v: ranked(
                cc_scores(db, c, q, v, a, cos_norm=norm)))(a, norm)
    for a in (0.5, 0.7):
        for alpha in (0.1, 0.2, 0.35, 0.5):
            methods[f"cc a{a} top nb{alpha}"] = (lambda a, alpha: lambda c, q, v: ranked(
                neighbour_boost(cc_scores(db, c, q, v, a, cos_norm="top"), c, alpha)))(a, alpha)


_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
_RX_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON},?\s+(\d{{4}})\b", re.I)
_RX_MDY = re.compile(rf"\b{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_RX_MY = re.compile(rf"\b{_MON},?\s+(\d{{4}})\b", re.I)
_RX_Y = re.compile(r"\b(?:in|during|of|since)\s+((?:19|20)\d\d)\b", re.I)


def time_window(text: str):
    """(start_day, end_day) in epoch days for an absolute date named in the text, or None."""
    import calendar
    from datetime import datetime as dt
    m = _RX_DMY.search(text)
    if m:
        d, mo, y = int(m.group(1)), _MONTHS[m.group(2).lower()], int(m.group(3))
        try:
            t = dt(y, mo, d).timestamp() / 86400
        except ValueError:
            return None
        return t, t + 1
    m = _RX_MDY.search(text)
    if m:
        mo, d, y = _MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3))
        try:
            t = dt(y, mo, d).timestamp() / 86400
        except ValueError:
            return None
        return t, t + 1
    m = _RX_MY.search(text)
    if m:
        mo, y = _MONTHS[m.group(1).lower()], int(m.group(2))
        last = calendar.monthrange(y, mo)[1]
        return dt(y, mo, 1).timestamp() / 86400, dt(y, mo, last).timestamp() / 86400 + 1
    m = _RX_Y.search(text)
    if m:
        y = int(m.group(1))
        return dt(y, 1, 1).timestamp() / 86400, dt(y + 1, 1, 1).timestamp() / 86400
    return None


def time_boost(scores: dict[int, float], c: Corpus, text: str, beta: float, before: float,
               after: float) -> dict[int, float]:
    w = time_window(text)
    if not w:
        return scores
    lo, hi = w[0] - before, w[1] + after
    return {p: s + (beta if lo <= c.ts[p] <= hi else 0.0) for p, s in scores.items()}


def add_experiments3(methods: dict[str, Method], db, corpora) -> None:
    base = lambda c, q, v: neighbour_boost(cc_scores(db, c, q, v, 0.7, cos_norm="top"), c, 0.2)
    methods["R0 cc.7 top nb.2"] = lambda c, q, v: ranked(base(c, q, v))
    for beta in (0.1, 0.2, 0.4):
        for before, after in ((0, 7), (1, 14), (3, 31)):
            methods[f"R0 + time b{beta} -{before}+{after}"] = (lambda beta, before, after: lambda c, q, v: ranked(
                time_boost(base(c, q, v), c, q.question, beta, before, after)))(beta, before, after)
    for nk, nd in ((20, 20), (30, 30), (100, 100), (50, 20), (20, 50)):
        methods[f"R0 nk{nk} nd{nd}"] = (lambda nk, nd: lambda c, q, v: ranked(neighbour_boost(
            cc_scores(db, c, q, v, 0.7, nk=nk, nd=nd, cos_norm="top"), c, 0.2)))(nk, nd)
    for win in (2,):
        methods[f"R0 win{win}"] = (lambda win: lambda c, q, v: ranked(neighbour_boost(
            cc_scores(db, c, q, v, 0.7, cos_norm="top"), c, 0.2, window=win)))(win)


@dataclass
class RecipeOptions:
    params: scoring.FusionParams = scoring.FusionParams()
    weights: scoring.Weights = scoring.Weights()
    recency: str = "newest"  # newest | now | off
    half_life_days: float = 30.0
    use_neighbours: bool = True
    use_period: bool = True
    use_vectors: bool = True
    strip_common: bool = True


class Recipe:
    """What the bot's recall must do for one question, step by step, with the product's own
    functions (this is the reference for bot/memory/recall/pipeline.py):

    1. counts, total = search.term_counts(conn, owner, search.query_terms(q), dialect)
    2. kw  = dict(search.keyword_search(conn, owner, q, 50, dialect))
    3. qvec = embed(search.vector_query_text(q, counts, total))          (if the model is ready)
    4. vec = dict(index.search(owner, qvec, 50)) | index.similarities(owner, qvec, kw)
    5. timeline = search.timeline_around(conn, owner, kw | vec, 2)
       neighbours = scoring.neighbour_pairs(timeline, 2, 1 hour)
    6. facts (created_at, importance, confidence, uses, category) of timeline ids; newest =
       the owner's newest created_at
    7. ranked = scoring.rank_for_recall(kw, vec, facts, neighbours=..., newest=...,
       period=questions.question_period(q), identity_question=questions.is_identity_question(q))
    8. top 20 -> context.assemble_context(..., past_question=questions.is_past_question(q))
    """

    def __init__(self, engine: sa.Engine, corpora: list[Corpus]) -> None:
        self.engine = engine
        self.index = VectorIndex(dim=int(corpora[0].vecs.shape[1]))
        self.facts: dict[int, dict[int, scoring.MemoryFacts]] = {}
        self.newest: dict[int, datetime | None] = {}
        self._vtext: dict[tuple[int, str], str] = {}
        self._vvec: dict[str, np.ndarray] = {}
        for c in corpora:
            self.index.ensure_loaded(c.owner_id, lambda c=c: zip(c.ids.tolist(), c.vecs))
            # in the benchmark every memory has importance 0.5, confidence 1.0 and no uses
            self.facts[c.owner_id] = {int(i): scoring.MemoryFacts(int(i), t.created_at)
                                      for i, t in zip(c.ids, c.conv.turns)}
            self.newest[c.owner_id] = max((t.created_at for t in c.conv.turns if t.created_at),
                                          default=None)

    def vector_text(self, c: Corpus, q: Question) -> str:
        """Steps 1 and 3: the question without the owner's common words."""
        key = (c.owner_id, q.question)
        if key not in self._vtext:
            with self.engine.connect() as conn:
                counts, total = term_counts(conn, c.owner_id, query_terms(q.question), "sqlite")
            self._vtext[key] = vector_query_text(q.question, counts, total)
        return self._vtext[key]

    def prepare(self, corpora: list[Corpus], cache: EmbeddingCache) -> None:
        """Embed every vector query text once (cached on disk like the turns)."""
        texts = [self.vector_text(c, q) for c in corpora for q in c.conv.scored_questions()]
        uniq = sorted(set(texts))
        self._vvec = dict(zip(uniq, cache.get(uniq)))

    def __call__(self, c: Corpus, q: Question, qv: np.ndarray, o: RecipeOptions) -> list[int]:
        p = o.params
        owner = c.owner_id
        if o.strip_common:
            qv = self._vvec[self.vector_text(c, q)]
        with self.engine.connect() as conn:
            kw = dict(keyword_search(conn, owner, q.question, p.keyword_candidates, "sqlite"))
            vec: dict[int, float] = {}
            if o.use_vectors:
                vec = dict(self.index.search(owner, qv, p.vector_candidates))
                vec.update(self.index.similarities(owner, qv, kw))
            neighbours = None
            if o.use_neighbours:
                timeline = timeline_around(conn, owner, sorted(kw.keys() | vec.keys()),
                                           p.neighbour_window)
                neighbours = scoring.neighbour_pairs(timeline, p.neighbour_window,
                                                     p.neighbour_max_gap)
        newest = {"newest": self.newest[owner], "now": datetime.now(), "off": None}[o.recency]
        ranked = scoring.rank_for_recall(
            kw, vec, self.facts[owner], neighbours=neighbours,
            period=question_period(q.question) if o.use_period else None,
            identity_question=is_identity_question(q.question),
            newest=newest, half_life_days=o.half_life_days, weights=o.weights, params=p)
        return [c.id_to_pos[mid] for mid, _ in ranked[:TOP]]


def strip_common_words(db: sqlite3.Connection, c: Corpus, text: str, share: float = 0.2) -> str:
    """The question without words found in more than `share` of the owner's memories."""
    common = {t for t in query_terms(text) if owner_df(db, c, t) > share * len(c.ids)}
    return " ".join(w for w in re.findall(r"\S+", text)
                    if re.sub(r"[^\w]", "", w.lower()) not in common and
                    re.sub(r"'s$", "", re.sub(r"[^\w']", "", w.lower())) not in common)


def add_recipe(methods: dict[str, Method], engine: sa.Engine, corpora: list[Corpus],
               cache: EmbeddingCache) -> None:
    recipe = Recipe(engine, corpora)
    recipe.prepare(corpora, cache)
    def dense_stripped(c: Corpus, q: Question, v: np.ndarray) -> list[int]:
        qv = recipe._vvec[recipe.vector_text(c, q)]
        return [c.id_to_pos[m] for m, _ in recipe.index.search(c.owner_id, qv, TOP)]

    def rrf_product(c: Corpus, q: Question, v: np.ndarray) -> list[int]:
        qv = recipe._vvec[recipe.vector_text(c, q)]
        with engine.connect() as conn:
            kw = [m for m, _ in keyword_search(conn, c.owner_id, q.question, 50, "sqlite")]
        dense = [m for m, _ in recipe.index.search(c.owner_id, qv, 50)]
        fused = scoring.rrf([kw, dense], k=60)
        return [c.id_to_pos[m] for m in sorted(fused, key=lambda m: (-fused[m], m))]

    methods["dense, query w/o common words"] = dense_stripped
    methods["rrf k60 fts5+dense(w/o common)"] = rrf_product
    variants = {
        "score fusion only (no boosts)": RecipeOptions(
            use_neighbours=False, use_period=False, weights=scoring.Weights(recency=0.0)),
        "FINAL (defaults)": RecipeOptions(),
        "final -neighbours": RecipeOptions(use_neighbours=False),
        "final -date bonus": RecipeOptions(use_period=False),
        "final -vectors (keyword only)": RecipeOptions(use_vectors=False),
        "final -common-word stripping": RecipeOptions(strip_common=False),
        "final recency=now": RecipeOptions(recency="now"),
        "final recency off (w=0)": RecipeOptions(weights=scoring.Weights(recency=0.0)),
        "final recency newest hl365": RecipeOptions(half_life_days=365.0),
        "final recency w0.2": RecipeOptions(weights=scoring.Weights(recency=0.2)),
        "final recency newest hl90": RecipeOptions(half_life_days=90.0),
        "final recency newest hl180": RecipeOptions(half_life_days=180.0),
    }
    for name, opt in variants.items():
        methods[name] = (lambda opt: lambda c, q, v: recipe(c, q, v, opt))(opt)

    from bot.memory.index import keyword as search_mod

    db = engine.raw_connection().driver_connection
    for share in (0.1, 0.45):  # the share hardly matters (exploration; the product uses 0.2)
        stripped = {q.question: strip_common_words(db, c, q.question, share) or q.question
                    for c in corpora for q in c.conv.scored_questions()}
        texts = sorted(set(stripped.values()))
        svecs = dict(zip(texts, cache.get(texts)))
        methods[f"final, common words at >{share}"] = (
            lambda stripped, svecs: lambda c, q, v: recipe(
                c, q, svecs[stripped[q.question]], RecipeOptions()))(stripped, svecs)

    plain = frozenset(search_mod.STOP_WORDS_BASIC)

    def plain_stop_words(c: Corpus, q: Question, v: np.ndarray) -> list[int]:
        saved = search_mod.STOP_WORDS
        search_mod.STOP_WORDS = plain
        try:
            return recipe(c, q, v, RecipeOptions())
        finally:
            search_mod.STOP_WORDS = saved

    methods["final, basic stop words only"] = plain_stop_words


def grid(engine: sa.Engine, corpora: list[Corpus], qvecs: dict[str, np.ndarray],
         which: Sequence[int], cache: EmbeddingCache) -> None:
    """One-at-a-time sweeps of the recipe's constants, on the development half only."""
    from dataclasses import replace

    recipe = Recipe(engine, corpora)
    recipe.prepare(corpora, cache)
    base = RecipeOptions()
    sweeps = {
        "keyword_weight": [0.5, 0.6, 0.7, 0.8, 0.9],
        "neighbour_share": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        "neighbour_window": [1, 2, 3],
        "date_bonus": [0.0, 0.2, 0.4, 0.6, 0.8],
        "keyword_candidates": [20, 50, 100],
        "vector_candidates": [20, 50, 100],
    }
    print(f"{'constant':20s} {'value':>6s} {'r@8':>6s} {'r@20':>6s} {'hit@8':>6s}")
    for field_name, values in sweeps.items():
        for value in values:
            opt = replace(base, params=replace(base.params, **{field_name: value}))
            res = evaluate(corpora, qvecs, lambda c, q, v: recipe(c, q, v, opt), which)
            print(f"{field_name:20s} {value!s:>6s} {res['r@8']:6.3f} {res['r@20']:6.3f} "
                  f"{res['hit@8']:6.3f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("--only", default="")
    ap.add_argument("--grid", action="store_true", help="sweep the recipe constants on the dev half")
    ap.add_argument("--explore", action="store_true",
                    help="also run the exploratory variants of the research log (slow)")
    args = ap.parse_args(argv)

    convs = load_locomo(args.data)
    cache = EmbeddingCache(args.cache)
    engine = sa.create_engine("sqlite://", poolclass=StaticPool,
                              connect_args={"check_same_thread": False})
    db = engine.raw_connection().driver_connection
    db, corpora = build(convs, cache, db)
    questions = [q.question for c in convs for q in c.scored_questions()]
    qm = cache.get(questions)
    qvecs = {q: v for q, v in zip(questions, qm)}
    half = len(corpora) // 2
    splits = {"dev": range(0, half), "check": range(half, len(corpora)), "all": range(len(corpora))}

    if args.grid:
        grid(engine, corpora, qvecs, splits["dev"], cache)
        return 0
    methods: dict[str, Method] = {}
    methods["bm25s"] = make_bm25s(corpora)
    methods["fts5 naive OR"] = lambda c, q, v: fts_rank(db, c, naive_match(q.question), TOP)
    methods["fts5 query_terms"] = lambda c, q, v: fts_rank(db, c, fts_query(q.question), TOP)
    methods["dense"] = lambda c, q, v: top_positions(dense_scores(c, v), TOP)
    bm = methods["bm25s"]
    methods["rrf bm25s+dense k60"] = lambda c, q, v: ranked(rrf(
        [bm(c, q, v), top_positions(dense_scores(c, v), 50)], [1, 1], 60))

    if args.explore:
        add_experiments(methods, db, corpora)
        add_experiments2(methods, db, corpora)
        add_experiments3(methods, db, corpora)
    add_recipe(methods, engine, corpora, cache)
    only = [s for s in args.only.split(",") if s]
    header = f"{'method':34s} {'split':6s} " + " ".join(f"{k:>6s}" for k in
                                                      ["r@5", "r@8", "r@10", "r@20", "hit@8", "c1", "c2", "c3", "c4", "n"])
    print(header)
    for name, m in methods.items():
        if only and not any(o in name for o in only):
            continue
        rows = run_method(corpora, qvecs, m, splits["all"])
        for split, which in splits.items():
            res = summarise(rows, which)
            print(f"{name:34s} {split:6s} " + " ".join(
                f"{res.get(k, 0):6.3f}" if k != "n" else f"{int(res[k]):6d}"
                for k in ["r@5", "r@8", "r@10", "r@20", "hit@8", "c1", "c2", "c3", "c4", "n"]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
