"""Build old/new pair files from the invented persona facts (bench/data/invented_facts.jsonl).

Why: the conflict rules must hold on personas and phrasings the team does not have, so they are
tuned and checked on sentences written for this project (never taken from ConvAI2, Dialogue NLI or
GettingToKnowYou, the sources of the dev file). Each fact carries its persona, its split
("tune" or "heldout2": disjoint personas), a relation and an object, the same way the dev file's
sentences carry Dialogue NLI triples; pairs are then made the way bench/data/README.md describes
for the dev file, within one split only, so the held-out file shares no persona and no sentence
with the tuning file.

The first held-out file (conflict_pairs_invented_heldout.jsonl, personas H01-H12) is kept as it
was built and no longer rebuilt: once measured, its personas joined the tuning split, and
H13-H24 (split "heldout2") are the held-out set now.

A third held-out set, H25-H48 (split "heldout3"), lives in its own file,
bench/data/invented_facts_heldout3.jsonl: written blind to the rules on 2026-12-01, mostly in the
persona-chat style (short, lower case, first person), and never used for tuning. Its pairs go to
conflict_pairs_invented_heldout3.jsonl. The tune and heldout2 outputs do not change because of it:
each split is built from its own rows with its own seeded generator.

A fourth held-out set, H49-H72 (split "heldout4"), lives in its own file,
bench/data/invented_facts_heldout4.jsonl: written blind to the rules on 2026-12-01,
persona-chat-heavy (about 85% short, lower-case, first-person lines), never used for tuning.
Its pairs go to conflict_pairs_invented_heldout4.jsonl.
For this split only (JOB_SHARE), up to 40% of the slot_change pairs are drawn from job pairs and
the rest from the other slots, since job changes are the commonest kind in the real measurement;
the other splits keep plain sampling, so their outputs are unchanged.

A fifth held-out set, H73-H96 (split "heldout5"), lives in its own file,
bench/data/invented_facts_heldout5.jsonl: written blind to the rules on 2026-12-01,
persona-chat-heavy and duplicate-heavy (values repeat across personas in different words, so it
has many more duplicate pairs), never used for tuning. Its pairs go to
conflict_pairs_invented_heldout5.jsonl, with slot_change job-weighted (JOB_SHARE) as in heldout4.
Adding it leaves the other pair files byte-identical.

A sixth and a seventh, H97-H120 ("heldout6") and H121-H144 ("heldout7"), live in
bench/data/invented_facts_heldout6.jsonl and invented_facts_heldout7.jsonl: written blind to the
rules on 2026-12-03 by two writers who had read neither the rules nor any other data file,
duplicate-heavy and job-weighted as heldout5. Adding them left every other pair file
byte-identical.

The later sets, heldout8 to heldout41 (H145-H960, two per pass), live in
invented_facts_heldout8.jsonl ... invented_facts_heldout41.jsonl, each written blind to the rules
by writers who opened nothing of the project, with the sizes and job share of heldout5
(bench/data/README.md says when each was measured and read). Each addition left every other pair
file byte-identical.

    python -m bench.invented_pairs             # writes the pair files that do not exist yet
    python -m bench.invented_pairs --rewrite   # rewrites every tune, heldout2..heldout41 file

Why missing files only: the unrelated_overlap pairs are drawn by `content_words`, the product's
own reading of words, so a change there (the sixteenth pass found that folding accents in
`text.normalise` re-drew the overlap pairs of heldout13, 18, 21 and 28) would silently replace
pairs whose figures the notes and README already report. A committed pair file is a measurement
record; `--rewrite` is for a deliberate rebuild, with its figures measured again.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from pathlib import Path
from typing import Any

from bench.datasets import data_file
from bot.memory.rules.text import content_words

FACTS = "invented_facts.jsonl"
# the later persona sets, one file each (heldout3 ... heldout41)
HELDOUT_FACTS = tuple(f"invented_facts_heldout{n}.jsonl" for n in range(3, 42))
SINGLE_VALUE = frozenset(
    "residence job relationship car diet age home_type phone email address".split()
)
# the sizes of the duplicate-heavy blind sets (heldout5 onwards)
BLIND_SIZES = {"slot_change": 250, "duplicate": 150, "unrelated_overlap": 120, "unrelated": 80,
               "multi_value": 120}
# kind -> how many pairs at most, per split
SIZES = {
    "tune": {"slot_change": 480, "duplicate": 200, "unrelated_overlap": 200, "unrelated": 150,
             "multi_value": 200},
    "heldout2": {"slot_change": 160, "duplicate": 60, "unrelated_overlap": 80, "unrelated": 80,
                 "multi_value": 80},
    "heldout3": {"slot_change": 200, "duplicate": 80, "unrelated_overlap": 100, "unrelated": 80,
                 "multi_value": 100},
    "heldout4": {"slot_change": 250, "duplicate": 80, "unrelated_overlap": 120, "unrelated": 80,
                 "multi_value": 120},
    **{split: dict(BLIND_SIZES) for split in (
        "heldout5", "heldout6", "heldout7", "heldout8", "heldout9", "heldout10", "heldout11",
        "heldout12", "heldout13", "heldout14", "heldout15", "heldout16", "heldout17", "heldout18",
        "heldout19", "heldout20", "heldout21", "heldout22", "heldout23", "heldout24", "heldout25",
        "heldout26", "heldout27", "heldout28", "heldout29", "heldout30", "heldout31", "heldout32", "heldout33",
        "heldout34", "heldout35", "heldout36", "heldout37", "heldout38", "heldout39", "heldout40", "heldout41")},
}
# split -> the largest share of its slot_change pairs taken from job pairs
# (splits not listed sample slot_change plainly)
JOB_SHARE = {split: 0.4 for split in SIZES if split not in ("tune", "heldout2", "heldout3")}
SEED = 15


def single_valued(rel: str) -> bool:
    return rel in SINGLE_VALUE or rel.startswith("favorite_")


def load_facts(path: Path | None = None) -> list[dict[str, Any]]:
    with open(path or data_file(FACTS), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _pair(kind: str, old: dict[str, Any], new: dict[str, Any], number: int, split: str,
          shared: frozenset[str] = frozenset()) -> dict[str, Any]:
    label = "nominate" if kind in ("slot_change", "duplicate") else "keep"
    slot = old["rel"] if kind in ("slot_change", "duplicate", "multi_value") else None
    source = (f"invented {split}; old {old['persona']} {old['rel']}={old['obj']}, "
              f"new {new['persona']} {new['rel']}={new['obj']}")
    if shared:
        source += "; shared: " + ", ".join(sorted(shared))
    return {"id": f"invented-{split}-{kind}-{number:04d}", "old": old["text"], "new": new["text"],
            "label": label, "kind": kind, "slot": slot, "source": source,
            "persona": f"{old['persona']}+{new['persona']}"}


def _job_weighted(pool: list[Any], limit: int, share: float, rng: random.Random) -> list[Any]:
    """Up to share * limit job pairs, the rest from the other slots, shuffled together."""
    jobs = [p for p in pool if p[0]["rel"] == "job"]
    others = [p for p in pool if p[0]["rel"] != "job"]
    n_jobs = min(len(jobs), int(limit * share))
    n_others = min(len(others), limit - n_jobs)
    n_jobs = min(len(jobs), limit - n_others)
    chosen = rng.sample(jobs, n_jobs) + rng.sample(others, n_others)
    rng.shuffle(chosen)
    return chosen


def build(facts: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    """All pairs of one split, sampled to SIZES with a fixed seed."""
    rows = [f for f in facts if f["split"] == split]
    words = {f["text"]: content_words(f["text"]) - {"favorite"} for f in rows}
    found: dict[str, list[tuple[dict[str, Any], dict[str, Any], frozenset[str]]]] = {
        kind: [] for kind in SIZES[split]
    }
    for old, new in itertools.permutations(rows, 2):
        if old["text"] == new["text"]:
            continue
        shared = words[old["text"]] & words[new["text"]]
        if old["rel"] == new["rel"]:
            if old["obj"] == new["obj"]:
                found["duplicate"].append((old, new, frozenset()))
            elif old["persona"] == new["persona"]:
                continue
            elif single_valued(old["rel"]):
                found["slot_change"].append((old, new, frozenset()))
            else:
                found["multi_value"].append((old, new, frozenset()))
        elif shared:
            found["unrelated_overlap"].append((old, new, shared))
        else:
            found["unrelated"].append((old, new, frozenset()))
    rng = random.Random(f"{SEED}-{split}")
    out: list[dict[str, Any]] = []
    for kind, limit in SIZES[split].items():
        pool = found[kind]
        if len(pool) <= limit:
            chosen = pool
        elif kind == "slot_change" and split in JOB_SHARE:
            chosen = _job_weighted(pool, limit, JOB_SHARE[split], rng)
        else:
            chosen = rng.sample(pool, limit)
        for number, (old, new, shared) in enumerate(chosen):
            out.append(_pair(kind, old, new, number, split, shared))
    return out


def main(argv: list[str] | None = None) -> int:
    rewrite = "--rewrite" in (sys.argv[1:] if argv is None else argv)
    facts = load_facts() + [fact for name in HELDOUT_FACTS for fact in load_facts(data_file(name))]
    for split in SIZES:
        path = data_file(f"conflict_pairs_invented_{split}.jsonl")
        if path.exists() and not rewrite:
            print(f"{path.name}: kept (exists; --rewrite to rebuild)")
            continue
        pairs = build(facts, split)
        with open(path, "w", encoding="utf-8") as handle:
            for pair in pairs:
                handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
        counts = {kind: sum(p["kind"] == kind for p in pairs) for kind in SIZES[split]}
        print(f"{path.name}: {len(pairs)} pairs {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
